"""Room broadcasts that encode a packet once and frame it once, for python-socketio's client managers.

python-socketio already encodes a room's packet once per emit; what remains per socket is the websocket
library framing the same text again (simple-websocket/wsproto, pure Python) and, on the Redis queue, the
emitting request doing every local delivery itself. Here the packet is a `FramedPacket`: every socket of
the room gets the same object through the engine's own queue (so each socket's order is kept: one queue,
one writer), and the websocket class put in by `install_framed_websocket` writes its ready frame.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import socketio
from engineio import packet as eio_packet
from socketio import packet as sio_packet

from broadcast.coalesce import Coalescer
from broadcast.frames import FramedPacket, ws_text_frame
from broadcast.passthrough import NAMESPACE as RAW_NAMESPACE
from broadcast.passthrough import RawRows, socketio_text, split
from broadcast.timing import StageTimes
from broadcast.wire import COOPERATIVE, Wire, WiredSocket

log = logging.getLogger(__name__)
RAW_ROWS = "rows (as published)"  # the coalescer's event for passed-through rows: never merged with decoded ones


def install_framed_websocket(eio_server: Any) -> None:
    """Replace the engine's websocket class by one that writes a `FramedText`'s frame as it is; every
    other message goes through the websocket library as before. On a cooperative server each websocket
    also gets a `Wire` (as the engine.io socket's `wire`): every byte to it goes through the wire, and
    `send_to_room` writes a room's frame straight to it. Idempotent."""
    base = eio_server._async["websocket"]
    if base is None or getattr(base, "writes_frames", False):
        return
    wired = eio_server.async_mode in COOPERATIVE

    class FramedWebSocket(base):  # type: ignore[misc,valid-type]
        writes_frames = True

        def __init__(self, handler: Any, server: Any, *args: Any, **kwargs: Any) -> None:
            session = getattr(handler, "__self__", None)  # the engine.io socket being served

            def serve(ws: Any) -> Any:
                inner: Any = getattr(ws, "ws", None)
                sock = getattr(inner, "sock", None)
                if wired and session is not None and inner is not None and sock is not None:
                    wire = Wire(sock, server.start_background_task, threaded=False)
                    inner.sock = WiredSocket(sock, wire)
                    session.wire = wire
                    session.send = direct_send(session, wire)
                return handler(ws)

            super().__init__(serve, server, *args, **kwargs)

        def send(self, message: Any) -> Any:
            """A text message as one unmasked, uncompressed frame (valid whether or not the client offered
            compression), its ready frame when it has one; binary the library's way."""
            ws: Any = getattr(self, "ws", None)
            sock = getattr(ws, "sock", None)
            if sock is None or not isinstance(message, str):
                return super().send(message)
            if not ws.connected:
                raise OSError("websocket closed")
            sock.sendall(getattr(message, "frame", None) or ws_text_frame(message))
            return None

    eio_server._async = dict(eio_server._async, websocket=FramedWebSocket)


def direct_send(session: Any, wire: Wire) -> Callable[[Any], None]:
    """An engine.io socket's `send` that writes a text message straight to the socket's wire when
    nothing waits in its queue (a table's acknowledgement among them: the hub answers a push from the
    task that stored it, not after a switch to the socket's writer task; issue 20, item 2). Anything
    else, or a socket still upgrading or with packets queued ahead, goes through the queue as before.
    Order is kept as in `send_to_room`: the writer task takes packets from the queue and writes them
    without yielding, so an empty queue means everything sent before is on the wire."""
    queued = session.send

    def send(pkt: Any) -> None:
        if (pkt.packet_type == eio_packet.MESSAGE and not pkt.binary and session.upgraded
                and not session.closed and session.queue.qsize() == 0):
            if not session.check_ping_timeout():
                return
            text = pkt.encode()
            if wire.write(getattr(text, "frame", None) or ws_text_frame(text)):
                return
        queued(pkt)

    return send


def encode_event(server: Any, namespace: str, event: str, data: Any,
                 binary: bool | None = None) -> FramedPacket | None:
    """The room's packet, encoded once (None when it needs binary attachments: the ordinary path).
    `binary=False`: the caller knows `data` holds no bytes (it came as JSON), so python-socketio need not
    walk every row's fields looking for some (a measurable share of a message's cost, issue 20)."""
    pkt = server.packet_class(sio_packet.EVENT, namespace=namespace, data=[event, data], binary=binary)
    encoded = pkt.encode()
    return None if isinstance(encoded, list) else FramedPacket(encoded)


def send_to_room(manager: Any, namespace: str, room: str | None, event: str, data: Any,
                 skip_sid: Any = None, binary: bool | None = None) -> int:
    """Send one event to every socket of `room` in this process, encoded and framed once; the number of
    sockets it went to. A websocket with a `Wire` and nothing waiting in its engine.io queue gets the frame
    written at once (this loop never yields, so nothing can come between); any other socket (long-polling,
    upgrading, or with packets still queued ahead) gets it through its queue, behind them. Binary data goes
    the library's ordinary way."""
    framed = encode_event(manager.server, namespace, event, data, binary)
    if framed is None:
        socketio.Manager.emit(manager, event, data, namespace, room=room, skip_sid=skip_sid)
        return -1
    return send_framed(manager, namespace, room, framed, skip_sid)


def send_framed(manager: Any, namespace: str, room: str | None, framed: FramedPacket, skip_sid: Any = None) -> int:
    """`send_to_room` for a packet already encoded and framed; the number of sockets it went to."""
    skip = set(skip_sid) if isinstance(skip_sid, list) else {skip_sid}
    frame = framed.encode_cache.frame
    sessions = manager.server.eio.sockets
    direct = queued = 0
    for sid, eio_sid in participants(manager, namespace, room):
        if sid in skip:
            continue
        session = sessions.get(eio_sid)
        wire = getattr(session, "wire", None)
        if wire is not None and session.upgraded and not session.closed and session.queue.qsize() == 0:
            wire.write(frame)
            direct += 1
        else:
            manager.server._send_eio_packet(eio_sid, framed)
            queued += 1
    counts = getattr(manager, "deliveries", None)
    if isinstance(counts, dict):
        counts["direct"] += direct
        counts["queued"] += queued
    return direct + queued


def participants(manager: Any, namespace: str, room: Any) -> list[tuple[Any, Any]]:
    """A room's (sid, eio_sid) pairs in this process, as `get_participants` gives them, taken at once
    from the room's own mapping for a single room: the library's generator is resumed once per socket,
    a measurable share of a broadcast's per-socket cost in the hub's profile (issue 20, docs/hub.md)."""
    if isinstance(room, str):
        members = manager.rooms.get(namespace, {}).get(room)
        forward = getattr(members, "_fwdm", None)  # python-socketio's bidict of sid -> eio_sid
        if isinstance(forward, dict):
            return list(forward.items())
        if members is None:
            return []
    return list(manager.get_participants(namespace, room))


def _as_payload(data: Any) -> Any:
    """python-socketio's emit takes a tuple as several arguments; a room broadcast here has one."""
    if isinstance(data, tuple):
        if len(data) != 1:
            raise TypeError("a framed room broadcast carries exactly one argument")
        return data[0]
    return data


class FramedManager(socketio.Manager):  # type: ignore[misc]
    """A single process's client manager whose emits without acknowledgement are encoded and framed once."""

    def initialize(self) -> None:
        super().initialize()
        install_framed_websocket(self.server.eio)

    def emit(self, event: str, data: Any, namespace: str, room: Any = None, skip_sid: Any = None,
             callback: Any = None, to: Any = None, **kwargs: Any) -> Any:
        room = to or room
        if callback is not None or namespace not in self.rooms or data is None:
            return super().emit(event, data, namespace, room=room, skip_sid=skip_sid, callback=callback, **kwargs)
        send_to_room(self, namespace, room, event, _as_payload(data), skip_sid)
        return None


class FramedRedisManager(socketio.RedisManager):  # type: ignore[misc]
    """Flask-SocketIO's Redis message queue, where each process delivers a broadcast encoded and framed
    once, and a room's broadcasts for which `coalesce(namespace, room, event)` names a way to merge them
    ("append": lists are concatenated, "latest": the last one replaces the others) are merged while the
    previous delivery is under way: the request that emitted returns at once, and a busy process sends
    fewer, larger messages instead of queueing many small ones (nothing is dropped: appended rows all go)."""

    def __init__(self, url: str, channel: str,
                 coalesce: Callable[[str, Any, str], str | None] | None = None, **kwargs: Any) -> None:
        super().__init__(url, channel=channel, **kwargs)
        self.deliveries = {"direct": 0, "queued": 0}  # written straight to a wire / through engine.io's queue
        self.timing = StageTimes()  # how late the rows are at each stage (`broadcast.timing`)
        self._coalesce_rule = coalesce
        self._coalescer: Coalescer | None = None

    def initialize(self) -> None:
        super().initialize()
        install_framed_websocket(self.server.eio)
        if self._coalesce_rule is not None:
            self._coalescer = Coalescer(self._deliver, self.server.start_background_task,
                                        pause=lambda: self.server.sleep(0))

    def _listen(self) -> Any:
        """python-socketio's listener, with the store's rows announcements taken here as bytes
        (`broadcast.passthrough`): never decoded into dicts and encoded again. Everything else is
        yielded to python-socketio's own handling, as before."""
        for message in super()._listen():
            raw = split(message)
            if raw is None:
                yield message
                continue
            try:
                self._handle_raw(raw)
            except Exception:  # one broadcast's failure must not stop the listener
                log.exception("passed-through rows to %r failed", raw.room)

    def _handle_raw(self, raw: RawRows) -> None:
        self.timing.note_stamps("picked", raw.stamps)
        if self._coalescer is not None and self._coalesce_rule is not None \
                and self._coalesce_rule(RAW_NAMESPACE, raw.room, "rows") == "append":
            self._coalescer.add(RAW_NAMESPACE, raw.room, RAW_ROWS, [raw], "append")
        else:
            self._deliver(RAW_NAMESPACE, raw.room, RAW_ROWS, [raw])

    def _deliver_raw(self, namespace: str, room: str, batches: list[RawRows]) -> None:
        stamps = [ts for b in batches for ts in b.stamps]
        self.timing.note_stamps("writing", stamps)
        send_framed(self, namespace, room, FramedPacket(socketio_text(batches)))
        self.timing.note_stamps("written", stamps)

    def _deliver(self, namespace: str, room: Any, event: str, data: Any) -> None:
        if event == RAW_ROWS:
            self._deliver_raw(namespace, room, data)
            return
        timed = event == "rows" and isinstance(data, list)
        if timed:
            self.timing.note("writing", data)
        send_to_room(self, namespace, room, event, data, binary=False)  # from the queue's JSON: no bytes
        if timed:
            self.timing.note("written", data)

    def _handle_emit(self, message: dict[str, Any]) -> None:
        namespace, room, event = message.get("namespace") or "/", message.get("room"), message.get("event")
        plain = not message.get("callback") and not message.get("binary") and not message.get("skip_sid")
        data = message.get("data")
        if not plain or not isinstance(event, str) or not isinstance(data, list) or len(data) != 1:
            super()._handle_emit(message)
            return
        if event == "rows" and isinstance(data[0], list):
            self.timing.note("picked", data[0])
        mode = self._coalesce_rule(namespace, room, event) if self._coalesce_rule else None
        if mode is not None and self._coalescer is not None and isinstance(room, str):
            self._coalescer.add(namespace, room, event, data[0], mode)
        else:
            self._deliver(namespace, room, event, data[0])
