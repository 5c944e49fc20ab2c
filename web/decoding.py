"""Every Socket.IO message is answered, even one python-socketio cannot decode.

python-socketio decodes packets before any handler of ours runs; a packet it cannot decode (a number of
thousands of digits, arrays nested thousands deep, broken JSON, an unknown packet type) raises inside
engine.io's message handler, which logs a traceback and answers nothing. Binary attachments are not part
of any of our events, and a binary packet whose attachments never come is held forever. This wraps the
server's engine.io message handler: such a message gets an `error` event on the sender's `/table`
connection (or, when it has none, a connection refusal and the connection closed), and one log line.
"""

from __future__ import annotations

import logging
from typing import Any

import socketio
from socketio import packet

log = logging.getLogger(__name__)
BINARY = (str(packet.BINARY_EVENT), str(packet.BINARY_ACK))


class Undecodable(ValueError):
    """A message that is not a Socket.IO packet we take."""


def _why(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deep"
    if isinstance(exc, Undecodable):
        return str(exc)
    text = str(exc)
    if "digits" in text:
        return "a number with too many digits"
    return f"not a valid Socket.IO packet ({type(exc).__name__})"


def guard_decoding(server: socketio.Server, namespace: str) -> None:
    """Install the answering wrapper around `server`'s engine.io message handler."""
    original = server._handle_eio_message

    def refuse(eio_sid: str, reason: str) -> None:
        server._binary_packet.pop(eio_sid, None)
        sid = server.manager.sid_from_eio_sid(eio_sid, namespace)
        log.warning("undecodable Socket.IO message from %s: %s", sid or eio_sid, reason)
        if sid is not None:
            server.emit("error", {"event": "", "kind": "invalid", "error": f"undecodable message: {reason}"},
                        to=sid, namespace=namespace)
            return
        refusal = server.packet_class(packet.CONNECT_ERROR, data={"message": f"undecodable message: {reason}"},
                                      namespace=namespace)
        server._send_packet(eio_sid, refusal)
        server.eio.disconnect(eio_sid)

    def handle(eio_sid: str, data: Any) -> Any:
        try:
            if isinstance(data, bytes | bytearray):
                raise Undecodable("binary attachments are not accepted")
            if isinstance(data, str) and data[:1] in BINARY:
                raise Undecodable("binary messages are not accepted")
            return original(eio_sid, data)
        except (ValueError, RecursionError, TypeError, KeyError, IndexError, AttributeError) as exc:
            refuse(eio_sid, _why(exc))
            return None

    server.eio.on("message", handle)
