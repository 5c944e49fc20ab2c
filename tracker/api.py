"""The public interface of the tracker: the only thing `web` may import.

A `TableService` authenticates connections (seat tokens, judge PIN), hands out JSON-ready snapshots of
the table projected for each viewer, lets a publisher wait for the next change without polling, and
takes the inputs phones and judges may send. `tracker.service.service.TableService` implements it for
Kipukas, `tracker.service.game_service.GameService` for every other game of `rules.core.registry`
(`game` names which: the pages choose the Kipukas pages or the generic game pages by it).
"""

from __future__ import annotations

from typing import Any, Protocol

from tracker.errors import InputError
from tracker.service.seats import JUDGE, SPECTATOR, AccessDenied, Viewer, player

__all__ = ["JUDGE", "SPECTATOR", "AccessDenied", "InputError", "TableService", "Viewer", "player"]


class TableService(Protocol):
    game: str
    public_url: str

    spectator_delay_min: float
    allowed_origins: tuple[str, ...]

    def snapshot(self, viewer: Viewer = ...) -> dict[str, Any]:
        """The current state as `viewer` may see it (JSON-serialisable); the public view by default."""

    def entries_since(self, viewer: Viewer, after: int) -> list[dict[str, Any]]:
        """Every record entry after row `after` that `viewer` may see (reconnection)."""

    def log_pages(self, viewer: Viewer, after: int, newest_only: bool = ...) -> list[list[dict[str, Any]]]:
        """The entries after row `after` that `viewer` may see, in pages (the newest page only when
        `after` is 0 and `newest_only`)."""

    def version(self) -> int:
        """A number that grows by one with every change of the snapshot."""

    def wait_for_change(self, after: int, timeout: float) -> int:
        """Block until `version()` exceeds `after` or `timeout` seconds pass; return the version."""

    def map_image(self) -> tuple[bytes, str]:
        """The map picture the pages draw tokens on, with its MIME type."""

    def keyframe(self, seq: int, camera: str) -> bytes | None:
        """The JPEG kept of record row `seq` by `camera` (overhead, front), or None."""

    def authenticate(self, token: str | None, pin: str | None, local: bool) -> Viewer:
        """The viewer these credentials name; raises `AccessDenied`. `local`: the peer is the Pi itself."""

    def judge_key_ok(self, key: str | None) -> bool:
        """Whether `key` is this run's judge key (the judge page's HTTP requests carry it)."""

    def join_tokens(self) -> dict[str, str]:
        """Seat -> token and "spectator" -> token, for the host page's QR codes."""

    def judge_key(self) -> str:
        """This run's judge key, handed to judge connections for the judge page's HTTP requests."""

    def act(self, viewer: Viewer, text: str) -> dict[str, Any]:
        """Record an action in notation; `InputError` for bad notation, `AccessDenied` for a wrong seat."""

    def undo(self, viewer: Viewer, reason: str) -> dict[str, Any]:
        """A judge takes back the last accepted action."""

    def confirm_roll(self, viewer: Viewer, roll_id: int) -> dict[str, Any]:
        """One tap: a player (the roller or the opponent) or a judge accepts a roll the camera read."""

    def correct(self, viewer: Viewer, target: int, text: str, reason: str) -> dict[str, Any]:
        """A judge replaces (or strikes, with empty `text`) the action recorded at row `target`."""

    def state_at(self, viewer: Viewer, seq: int) -> dict[str, Any]:
        """A judge's view of the table after row `seq` (replay); `InputError` outside the record."""

    def start_game(self, viewer: Viewer, decks: dict[str, list[str]], style: str = ...,
                   colours: dict[str, str] | None = ..., game: str = ...) -> dict[str, Any]:
        """A judge starts a new game with each seat's deck lines (or the cards registered with the front
        camera), a play style and the seats' token colours; `game` names which game of `games` in
        `organise_options` (default: the table's). `InputError` names what is wrong."""

    def organise_options(self) -> dict[str, Any]:
        """Seats, play styles, token colours, whether the front camera can register decks, the game in
        play (``game``) and the games the page may start (``games``)."""

    def registration(self, viewer: Viewer, action: str, seat: str = ...) -> dict[str, Any]:
        """Deck registration with the front camera: ``start`` (for `seat`), ``stop`` or ``status``."""

    def export_sqlite(self) -> bytes:
        """The signed record as one SQLite file."""

    def export_rows(self) -> list[dict[str, Any]]:
        """Every row of the record with its hashes (the JSON export)."""

    def calibration_state(self) -> dict[str, Any] | None:
        """The overhead calibration (image size, mat corners in pixels), or None without an overhead camera."""

    def calibration_overlay(self) -> bytes | None:
        """The current overhead frame with the calibration drawn on it, as JPEG."""

    def set_calibration_corners(self, corners: list[list[float]]) -> dict[str, Any]:
        """Re-solve the camera pose from the mat's corners nudged by a judge (InputError if impossible)."""

    def learn_colours(self, samples: dict[str, str]) -> dict[str, Any]:
        """Learn the players' token colours from the overhead frame (stand -> player whose token is on it)."""

    def call_judge(self, viewer: Viewer) -> dict[str, Any]:
        """A player asks for a judge: a warning every page shows, and the tournament hub's organiser page
        lights up with the table number when the table pushes to a hub (`hub` true in the answer)."""
