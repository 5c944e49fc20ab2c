"""Thousands of spectator sockets in one asyncio process for bench_hub: a minimal Engine.IO 4 /
Socket.IO 5 websocket client (the protocol python-socketio speaks), cheap enough per socket that the
bench measures the hub, not its clients. Each socket joins one table's room on `/watch` and notes, for
every row it receives, now minus the row's time (the moment the table recorded it)."""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import os
import struct
import threading
import time
from typing import Any

from hub.stalls import install_stalls

NS = "/watch"
WITNESSES = 4  # tables 1..4: one sampled socket of each returns what it got, to compare with real clients


def _frame(text: str) -> bytes:
    data = text.encode()
    mask = os.urandom(4)
    head = bytes([0x81])
    n = len(data)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


class Stats:
    def __init__(self) -> None:
        self.connected = 0
        self.refused = 0
        self.dropped = 0
        self.latencies: list[float] = []
        self.rows = 0
        self.messages = 0
        self.recording = False
        self.seen: dict[str, list[list[Any]]] = {}  # per table, what its first sampled socket got: [game, seq]


class Spectator(asyncio.Protocol):
    """One socket as an asyncio protocol: frames are cut out of the received bytes in `data_received`
    (no task or future per frame), so that the client process, which shares the machine's cores with
    the hub, costs little per message. Only `sample` sockets decode rows (the others count messages)."""

    def __init__(self, table: str, stats: Stats, sample: bool) -> None:
        self.table, self.stats, self.sample = table, stats, sample
        self.witness = False  # this socket's rows are returned, to compare with a real client's
        self.buf = bytearray()
        self.upgraded = self.joined = False
        self.transport: asyncio.Transport | None = None
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)

    def send(self, text: str) -> None:
        if self.transport is not None:
            self.transport.write(_frame(text))

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if b" 101 " not in bytes(buf[:end]).split(b"\r\n", 1)[0]:
                self.stats.refused += 1
                self.close()
                return
            del buf[:end + 4]
            self.upgraded = True
        while len(buf) >= 2:
            n, at = buf[1] & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = struct.unpack_from(">H", buf, 2)[0], 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = struct.unpack_from(">Q", buf, 2)[0], 10
            if len(buf) < at + n:
                return
            opcode, payload = buf[0] & 0x0F, bytes(buf[at:at + n])
            del buf[:at + n]
            if opcode == 8:
                self.close()
                return
            if opcode == 1:
                self.message(payload)

    def message(self, payload: bytes) -> None:
        stats = self.stats
        if payload.startswith(b"42" + NS.encode() + b","):
            if not stats.recording:
                return
            stats.messages += 1
            if self.sample or self.witness:
                now = time.time()
                event, data = json.loads(payload[len(NS) + 3:])[:2]
                if event == "rows":
                    if self.witness:
                        stats.seen[self.table] += [[row["game"], row["seq"]] for row in data]
                    if not self.sample:
                        return
                    for row in data:
                        stats.latencies.append(now - float(row["ts"]))
                        stats.rows += 1
        elif payload.startswith(b"0"):
            self.send(f'40{NS},{json.dumps({"table": self.table})}')
        elif payload == b"2":
            self.send("3")
        elif payload.startswith(f"40{NS},".encode()):
            self.joined = True
            stats.connected += 1
        elif payload.startswith(f"44{NS},".encode()):
            stats.refused += 1
            self.close()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def spectator(port: int, table: str, source_ip: str, stats: Stats, stop: asyncio.Event,
                    sample: bool = True, witness: bool = False) -> None:
    """Connect one socket from `source_ip`, keep it until `stop`."""
    loop = asyncio.get_running_loop()
    try:
        transport, proto = await loop.create_connection(lambda: Spectator(table, stats, sample), "127.0.0.1", port,
                                                        local_addr=(source_ip, 0))
    except OSError:
        stats.refused += 1
        return
    proto.witness = witness
    key = base64.b64encode(os.urandom(16)).decode()
    transport.write((f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({proto.closed, stopping}, return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    if proto.joined:
        stats.connected -= 1
        if not stop.is_set():
            stats.dropped += 1
    transport.close()


def run_spectators(port: int, count: int, tables: int, commands: Any, results: Any) -> None:
    """Process entry: connect `count` sockets spread over tables and over source addresses (nginx's ip_hash
    then spreads them over the hub processes); obey "record"/"stop"; send back the latencies of every
    tenth socket (a sample of every table), the count of messages all sockets received, and the rows one
    socket of each of the first tables got (`seen`: compared with real python-socketio clients)."""

    install_stalls("spectators", lambda probe: threading.Thread(target=probe, daemon=True).start())
    witnesses = {str(t) for t in range(1, min(WITNESSES, tables) + 1)}

    async def main() -> None:
        stats, stop = Stats(), asyncio.Event()
        chosen: set[str] = set()
        tasks = []
        for i in range(count):
            table = str(i % tables + 1)
            source = f"127.1.{i % 200 + 1}.{i // 200 % 250 + 1}"
            witness = table in witnesses and table not in chosen
            if witness:
                chosen.add(table)
            tasks.append(asyncio.ensure_future(spectator(port, table, source, stats, stop, sample=i % 10 == 0,
                                                         witness=witness)))
            if i % 50 == 49:
                await asyncio.sleep(0.05)
        loop = asyncio.get_running_loop()
        cpu0 = time.process_time()
        while True:
            command = await loop.run_in_executor(None, commands.get)
            if command == "count":
                results.put({"connected": stats.connected, "refused": stats.refused})
            elif command == "record":
                # 2,000 sockets' objects in one heap: a full collection stood this process still for 400 ms
                # (hub.stalls), holding every spectator's reading at once; a real spectator is a phone of
                # its own. Frozen once connected, they are never walked again (the bench's side only).
                gc.collect()
                gc.freeze()
                stats.latencies, stats.rows, stats.messages, stats.recording = [], 0, 0, True
                stats.seen = {t: [] for t in witnesses}
                cpu0 = time.process_time()
            elif command == "stop":
                stats.recording = False
                results.put({"connected": stats.connected, "refused": stats.refused, "dropped": stats.dropped,
                             "latencies": stats.latencies, "rows": stats.rows, "messages": stats.messages,
                             "seen": stats.seen,
                             "cpu_s": time.process_time() - cpu0})
                stop.set()
                await asyncio.wait(tasks, timeout=10)
                return

    asyncio.run(main())


def same_content(lean: dict[str, list[list[Any]]], real: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Compare, table by table, the rows a lean bench socket got with those a real python-socketio client
    got over the moments both were listening: the same (game, seq), in order, once; and the real client's
    rows public only (no field beyond a spectator's, no shown card's body)."""
    compared = differing = private = 0
    example = ""
    for t, rows in real.items():
        theirs = [(str(g), int(q)) for g, q in lean.get(t, [])]
        mine = [(str(r["game"]), int(r["seq"])) for r in rows]
        private += sum(1 for r in rows if set(r) != {"table", "game", "seq", "ts", "kind", "body"}
                       or (r["kind"] == "shown" and r["body"]))
        if not theirs or not mine:
            differing += 1
            continue
        lo, hi = max(theirs[0], mine[0]), min(theirs[-1], mine[-1])
        a, b = [k for k in theirs if lo <= k <= hi], [k for k in mine if lo <= k <= hi]
        compared += len(b)
        if not (a == b and len(set(b)) == len(b) and b == sorted(b)):
            differing += 1
            first = next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            example = f"table {t}: lean {a[max(0, first - 2):first + 3]} real {b[max(0, first - 2):first + 3]}"
    return {"tables": len(real), "compared": compared, "differing": differing, "private": private,
            "example": example}
