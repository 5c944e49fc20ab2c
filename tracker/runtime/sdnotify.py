"""The systemd notification protocol (sd_notify(3)) without a third-party dependency.

A service started with `Type=notify` finds a datagram socket in `$NOTIFY_SOCKET` and tells systemd there
that it is ready (`READY=1`), alive (`WATCHDOG=1`), what it is doing (`STATUS=...`) or that it is stopping
(`STOPPING=1`). Outside systemd (a terminal, the tests, the demo) the variable is unset and every call is a
harmless no-op, so the service code can notify unconditionally.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


def _address(value: str) -> str | None:
    """The socket address for `$NOTIFY_SOCKET`: a filesystem path, or `@name` for Linux's abstract namespace."""
    if value.startswith("@") and len(value) > 1:
        return "\0" + value[1:]
    if value.startswith("/"):
        return value
    return None


def sd_notify(message: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send one notification (e.g. ``"READY=1"``) to systemd; True when it was sent.

    Returns False, without raising, when `$NOTIFY_SOCKET` is unset or unusable or the send fails: a
    service must never stop because its supervisor cannot be told something.
    """
    env = os.environ if environ is None else environ
    address = _address(env.get("NOTIFY_SOCKET", ""))
    if address is None or not message:
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.sendto(message.encode("utf-8"), address)
    except OSError:
        return False
    return True


def watchdog_interval(environ: Mapping[str, str] | None = None, pid: int | None = None) -> float | None:
    """How often to send `WATCHDOG=1`, in seconds: half of `$WATCHDOG_USEC`, as sd_watchdog_enabled(3) advises.

    None when systemd set no watchdog for this process (the variable is unset or invalid, or
    `$WATCHDOG_PID` names another process).
    """
    env = os.environ if environ is None else environ
    owner = env.get("WATCHDOG_PID", "")
    if owner and owner != str(os.getpid() if pid is None else pid):
        return None
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return usec / 2_000_000 if usec > 0 else None
