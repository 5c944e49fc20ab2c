"""Broadcast to Socket.IO rooms at scale: each packet encoded once and framed once for every websocket of
a room (`frames`, `rooms`), and a room's broadcasts coalesced while a send is under way (`coalesce`).

It builds on python-socketio and python-engineio (their client managers and the engine's pluggable
websocket class), never on a transport of its own; it imports nothing of this project, and `web` (the
table's phones) and `hub` (the tournament's spectators) both use it (docs/architecture.md).
"""
