"""One Engine.IO message, encoded once and framed once as a websocket text frame, sent to many sockets.

A server's websocket frames are not masked (RFC 6455, 5.1), so the very same bytes are a valid frame on
every connection: the fan-out writes them as they are instead of asking the websocket library to frame
the same text again for each socket. On a long-polling connection the packet is the same text it always
was (`FramedText` is a `str`).
"""

from __future__ import annotations

import struct
from typing import Any

from engineio import packet as eio_packet


class FramedText(str):
    """An encoded Engine.IO packet that also carries its websocket frame (`frame`)."""

    frame: bytes

    def __new__(cls, text: str) -> FramedText:
        self = super().__new__(cls, text)
        self.frame = ws_text_frame(text)
        return self


def ws_text_frame(text: str) -> bytes:
    """A final, unmasked websocket text frame holding `text` (what a server sends)."""
    data = text.encode("utf-8")
    n = len(data)
    if n < 126:
        head = struct.pack("!BB", 0x81, n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x81, 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, 127, n)
    return head + data


class FramedPacket(eio_packet.Packet):  # type: ignore[misc]
    """An Engine.IO MESSAGE packet whose encoding (and websocket frame) is computed once, whoever sends it.

    `encode()` returns the same `FramedText` for every socket; the engine's writer hands it to the
    websocket, and the websocket class `rooms.install_framed_websocket` puts in writes `frame` as it is."""

    def __init__(self, socketio_text: str) -> None:
        super().__init__(eio_packet.MESSAGE, socketio_text)
        self.encode_cache = FramedText(f"{eio_packet.MESSAGE}{socketio_text}")

    def encode(self, b64: bool = False) -> Any:
        return self.encode_cache
