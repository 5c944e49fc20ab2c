"""The public interface of the tracker: the only thing `web` may import.

A `TableService` hands out JSON-ready snapshots of the table and lets a publisher wait for the next
change without polling.
"""

from __future__ import annotations

from typing import Any, Protocol


class TableService(Protocol):
    def snapshot(self) -> dict[str, Any]:
        """The current public state of the table (JSON-serialisable)."""

    def version(self) -> int:
        """A number that grows by one with every change of the snapshot."""

    def wait_for_change(self, after: int, timeout: float) -> int:
        """Block until `version()` exceeds `after` or `timeout` seconds pass; return the version."""

    def map_image(self) -> tuple[bytes, str]:
        """The map picture the pages draw tokens on, with its MIME type."""
