"""Errors of the calibration package."""

from __future__ import annotations


class CalibrationError(Exception):
    """A calibration could not be computed or loaded; the message says what and where."""


class CalibrationFileError(CalibrationError):
    """A calibration or mat description file is unreadable or invalid; names the file and the key."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        super().__init__(f"{source}: {key}: {problem}")
        self.source = source
        self.key = key
        self.problem = problem
