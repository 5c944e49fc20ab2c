"""Errors of the vision package."""

from __future__ import annotations


class VisionError(Exception):
    """An image could not be used; the message names the image and the problem."""
