"""The table service the web layer talks to (see `tracker.api`): views, change notification, inputs."""

from __future__ import annotations

from importlib import resources
from typing import Any

from tracker.table import Table
from tracker.views import public_view


class TableService:
    """Versions keep growing when the table is replaced (the demo starts a new game each round)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._base = 0

    def replace(self, table: Table) -> None:
        self._base += self.table.version() + 1
        self.table = table

    def snapshot(self) -> dict[str, Any]:
        table, base = self.table, self._base
        with table.lock:
            return public_view(table, base + table.version())

    def version(self) -> int:
        return self._base + self.table.version()

    def wait_for_change(self, after: int, timeout: float) -> int:
        base = self._base
        return base + self.table.wait_for_change(after - base, timeout)

    def map_image(self) -> tuple[bytes, str]:
        name = str(self.table.board.texture.get("file", "map_top.jpeg"))
        return (resources.files("vision") / "assets" / name).read_bytes(), "image/jpeg"
