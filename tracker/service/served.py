"""`ServedTable`: what every table service does alike, whatever the game.

Both the Kipukas table's `TableService` and the interface games' `GameService` answer the pages through
`tracker.api.TableService`; who may connect, who may act for which seat, who may call a judge, the change
notification across replaced tables and the record's exports are one policy, kept here so that the two can
never drift apart (a role check written twice is a role check that one day differs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from tracker.service.exports import key_fingerprint, record_rows, sqlite_copy
from tracker.service.seats import AccessDenied, Seats, Viewer


class _Table(Protocol):
    """The part of a table (`tracker.table.table.Table`, `tracker.table.games.GameTable`) served alike."""

    @property
    def record(self) -> Any: ...  # a `GameRecord`: its `path` names the SQLite file

    def version(self) -> int: ...

    def wait_for_change(self, after: int, timeout: float) -> int: ...

    def warn(self, message: str) -> None: ...


class ServedTable:
    """Seats, roles, change notification and exports of a served table. Subclasses set `table`, `seats`,
    `judge_callers`, `_base` (versions keep growing when the table is replaced) and `_fingerprints`."""

    table: _Table
    seats: Seats
    judge_callers: list[Callable[[str], None]]
    _base: int
    _fingerprints: dict[str, str]

    # --- change notification --------------------------------------------------------------------------
    def version(self) -> int:
        return self._base + self.table.version()

    def wait_for_change(self, after: int, timeout: float) -> int:
        base = self._base
        return base + self.table.wait_for_change(after - base, timeout)

    # --- who is connecting ----------------------------------------------------------------------------
    def authenticate(self, token: str | None, pin: str | None, local: bool) -> Viewer:
        return self.seats.authenticate(token, pin, local)

    def judge_key_ok(self, key: str | None) -> bool:
        return self.seats.judge_key_ok(key)

    def judge_key(self) -> str:
        return self.seats.judge_key

    def join_tokens(self) -> dict[str, str]:
        """Seat -> token, and "spectator" -> the spectator token: for the judge's host page only."""
        return dict(self.seats.tokens)

    # --- the record's key and exports -----------------------------------------------------------------
    def key_fingerprint(self) -> str:
        """SHA-256 of the table's public signing key as the record holds it (`exports.key_fingerprint`),
        read once per record."""
        path = self.table.record.path
        if path not in self._fingerprints:
            self._fingerprints = {path: key_fingerprint(path)}
        return self._fingerprints[path]

    def export_sqlite(self) -> bytes:
        """The signed record as one SQLite file (a consistent copy, taken without stopping the table)."""
        return sqlite_copy(self.table.record.path)

    def export_rows(self) -> list[dict[str, Any]]:
        """Every row of the record with its hashes, as `kipukas-tracker log export` writes them."""
        return record_rows(self.table.record.path)

    # --- who may do what ------------------------------------------------------------------------------
    def call_judge(self, viewer: Viewer) -> dict[str, Any]:
        if viewer.role != "player" or viewer.seat is None:
            raise AccessDenied("only a player at the table calls a judge")
        self.table.warn(f"{viewer.seat} called a judge")
        for call in self.judge_callers:
            call(viewer.seat)
        return {"hub": bool(self.judge_callers)}

    def _source_of(self, viewer: Viewer, text: str) -> str:
        """The record's source of an action `viewer` sends: a player acts for their own seat only, a judge
        for anyone, a spectator never."""
        words = text.split()
        if viewer.role == "spectator":
            raise AccessDenied("spectators cannot act")
        if viewer.role == "player" and (not words or words[0] != viewer.seat):
            raise AccessDenied(f"you sit at {viewer.seat}: actions must start with '{viewer.seat}'")
        return "judge" if viewer.role == "judge" else f"phone:{viewer.seat}"

    def _judge_only(self, viewer: Viewer, what: str) -> None:
        if viewer.role != "judge":
            raise AccessDenied(f"only a judge may {what}")
