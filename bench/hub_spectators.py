"""Thousands of spectator sockets in one asyncio process for bench_hub: a minimal Engine.IO 4 /
Socket.IO 5 websocket client (the protocol python-socketio speaks), cheap enough per socket that the
bench measures the hub, not its clients. Each socket joins one table's room on `/watch` and notes, for
every row it receives, now minus the row's time (the moment the table recorded it)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
import time
from typing import Any

NS = "/watch"


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


async def _read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    b0, b1 = await reader.readexactly(2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", await reader.readexactly(2))[0]
    elif n == 127:
        n = struct.unpack(">Q", await reader.readexactly(8))[0]
    return b0 & 0x0F, await reader.readexactly(n)


class Stats:
    def __init__(self) -> None:
        self.connected = 0
        self.refused = 0
        self.dropped = 0
        self.latencies: list[float] = []
        self.rows = 0
        self.messages = 0
        self.recording = False


async def spectator(port: int, table: str, source_ip: str, stats: Stats, stop: asyncio.Event,
                    sample: bool = True) -> None:
    """One socket; only `sample` sockets decode rows (the others count messages), so that the client
    process, which shares the machine's cores with the hub, spends its time reading, not parsing."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source_ip, 0))
    except OSError:
        stats.refused += 1
        return
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    joined = False
    try:
        status = await reader.readuntil(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n", 1)[0]:
            stats.refused += 1
            return
        stop_wait = asyncio.ensure_future(stop.wait())
        while True:
            read = asyncio.ensure_future(_read_frame(reader))
            done, _ = await asyncio.wait({read, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
            if stop_wait in done:
                read.cancel()
                break
            opcode, payload = read.result()
            if opcode == 8:
                break
            if opcode == 9:
                continue
            text = payload.decode()
            if text.startswith("0"):
                writer.write(_frame(f'40{NS},{json.dumps({"table": table})}'))
            elif text == "2":
                writer.write(_frame("3"))
            elif text.startswith(f"40{NS},"):
                joined = True
                stats.connected += 1
            elif text.startswith(f"44{NS},"):
                stats.refused += 1
                break
            elif text.startswith(f"42{NS},") and stats.recording and not sample:
                stats.messages += 1
            elif text.startswith(f"42{NS},"):
                now = time.time()
                event, data = json.loads(text[len(NS) + 3:])[:2]
                stats.messages += 1 if stats.recording else 0
                if event == "rows" and stats.recording:
                    for row in data:
                        stats.latencies.append(now - float(row["ts"]))
                        stats.rows += 1
    except (asyncio.IncompleteReadError, ConnectionError, OSError):
        if joined and not stop.is_set():
            stats.dropped += 1
    finally:
        if joined:
            stats.connected -= 1
        writer.close()


def run_spectators(port: int, count: int, tables: int, commands: Any, results: Any) -> None:
    """Process entry: connect `count` sockets spread over tables and over source addresses (nginx's ip_hash
    then spreads them over the hub processes); obey "record"/"stop"; send back the latencies of every
    tenth socket (a sample of every table) and the count of messages all sockets received."""

    async def main() -> None:
        stats, stop = Stats(), asyncio.Event()
        tasks = []
        for i in range(count):
            table = str(i % tables + 1)
            source = f"127.1.{i % 200 + 1}.{i // 200 % 250 + 1}"
            tasks.append(asyncio.ensure_future(spectator(port, table, source, stats, stop, sample=i % 10 == 0)))
            if i % 50 == 49:
                await asyncio.sleep(0.05)
        loop = asyncio.get_running_loop()
        while True:
            command = await loop.run_in_executor(None, commands.get)
            if command == "count":
                results.put({"connected": stats.connected, "refused": stats.refused})
            elif command == "record":
                stats.latencies, stats.rows, stats.messages, stats.recording = [], 0, 0, True
            elif command == "stop":
                stats.recording = False
                results.put({"connected": stats.connected, "refused": stats.refused, "dropped": stats.dropped,
                             "latencies": stats.latencies, "rows": stats.rows, "messages": stats.messages,
                             "cpu_s": time.process_time()})
                stop.set()
                await asyncio.wait(tasks, timeout=10)
                return

    asyncio.run(main())


