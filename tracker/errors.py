"""Errors of the tracker package."""

from __future__ import annotations


class TrackerError(Exception):
    """Base class for errors raised by the tracker."""


class UsageError(TrackerError):
    """Bad command-line usage or bad input: the CLI prints it on one line and exits with status 2."""


class RecordError(TrackerError):
    """The game record file is unreadable, belongs to another table key, or cannot be written."""


class InputError(TrackerError, ValueError):
    """An input the tracker cannot take (bad notation, a correction of a row that does not exist):
    nothing is recorded and the state is unchanged."""
