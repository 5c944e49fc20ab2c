"""The hub's per-message paths, timed in one process against the code they replace (issue 20, sixth session).

1. A spectators' `rows` message from the Redis message queue to the frame written to the room's sockets:
   python-socketio's way (decode the whole message, then encode the rows again into the room's packet;
   `broadcast.rooms.encode_event`) against the passthrough (`broadcast.passthrough`: split the bytes, put
   the rows' text into the packet as it came). Both end in the same `FramedPacket`.
2. A push's `EVALSHA`, packed by redis-py's Python serializer against hiredis's `pack_command`, and the
   same message-queue message parsed by redis-py's Python RESP parser against hiredis's reader.

Each pair is run interleaved (old, new, old, new, ...) and the figure is the ratio new / old of the
medians, so a loaded machine slows both alike. Rows are made like a table's public rows (seeded).

    PYTHONPATH=. python bench/bench_hub_paths.py [--rounds 7] [--messages 2000]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from socketio import packet as sio_packet

from broadcast.frames import FramedPacket
from broadcast.passthrough import END, MIDDLE, PREFIX, socketio_text, split
from hub.namespaces import public_row


def messages(count: int, seed: int) -> list[bytes]:
    """`count` store announcements of 1-4 rows each, for 32 tables, as the append script publishes them."""
    rng = random.Random(seed)
    out = []
    for n in range(count):
        table = str(rng.randint(1, 32))
        rows = []
        for k in range(rng.randint(1, 4)):
            text = " ".join(rng.choice(["move", "attack", "plains", "kaiju", "stand", "card", "to", "3"])
                            for _ in range(rng.randint(4, 12)))
            raw = {"seq": n * 4 + k, "ts": 1.7e9 + n * 0.01, "kind": "action",
                   "body": {"text": text, "accepted": rng.random() < 0.9, "rule": "movement", "shown": "x"}}
            rows.append(json.dumps(public_row(table, "game-1", raw), separators=(",", ":")))
        out.append(PREFIX + ",".join(rows).encode() + MIDDLE + json.dumps(f"watch:{table}").encode() + END)
    return out


def decoded(msgs: list[bytes]) -> None:
    for m in msgs:
        data = json.loads(m)  # python-socketio's listener
        pkt = sio_packet.Packet(sio_packet.EVENT, namespace=data["namespace"], data=["rows", data["data"][0]],
                                binary=False)
        FramedPacket(pkt.encode())


def passed(msgs: list[bytes]) -> None:
    for m in msgs:
        raw = split(m)
        assert raw is not None
        FramedPacket(socketio_text([raw]))


def interleaved(old: Callable[[], Any], new: Callable[[], Any], rounds: int) -> tuple[float, float]:
    a, b = [], []
    for _ in range(rounds):
        for fn, out in ((old, a), (new, b)):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return statistics.median(a), statistics.median(b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--messages", type=int, default=2000)
    args = ap.parse_args()
    msgs = messages(args.messages, seed=2020)
    old, new = interleaved(lambda: decoded(msgs), lambda: passed(msgs), args.rounds)
    per = 1e6 / len(msgs)
    print(f"rows message, queue to frame: decode + encode {old * per:.1f} us, passthrough {new * per:.1f} us "
          f"a message; ratio passthrough / decode {new / old:.2f}")
    try:
        import hiredis
        from redis._parsers import _RESP2Parser
        from redis.connection import PythonRespSerializer
    except ImportError:
        print("hiredis not installed: the packing and parsing comparison is skipped (pip install hiredis)")
        return
    blob = b"".join(m[len(PREFIX):m.rfind(MIDDLE)] + b"\n" for m in msgs[:8])
    evalsha: tuple[Any, ...] = ("EVALSHA", "a" * 40, 5, *[f"hub:k{i}" for i in range(5)], "0" * 64, "1700000000.123",
                                "game-1", 12, "f" * 64, "e" * 128, "7", "kipukas-hub", PREFIX.decode(),
                                MIDDLE.decode() + '"watch:7"' + END.decode(), blob)
    python_pack = PythonRespSerializer(6000, lambda v: v if isinstance(v, bytes) else str(v).encode()).pack
    reps = range(args.messages)
    old, new = interleaved(lambda: [python_pack(*evalsha) for _ in reps],
                           lambda: [hiredis.pack_command(evalsha) for _ in reps], args.rounds)
    print(f"push EVALSHA packed: redis-py {old * 1e6 / len(reps):.1f} us, hiredis {new * 1e6 / len(reps):.1f} us; "
          f"ratio hiredis / redis-py {new / old:.2f}")
    wire = b"".join(b"*3\r\n$7\r\nmessage\r\n$11\r\nkipukas-hub\r\n$%d\r\n%s\r\n" % (len(m), m) for m in msgs)
    old, new = interleaved(lambda: parse_python(_RESP2Parser, wire, len(msgs)),
                           lambda: parse_hiredis(hiredis, wire, len(msgs)), args.rounds)
    print(f"message-queue message parsed: redis-py {old * per:.1f} us, hiredis {new * per:.1f} us; "
          f"ratio hiredis / redis-py {new / old:.2f}")


class _Buffer:
    """Socket stand-in for redis-py's Python parser: serves `data` from memory (no network in a CPU figure)."""

    def __init__(self, data: bytes) -> None:
        import io
        self._io = io.BytesIO(data)

    def recv(self, size: int, *_: Any) -> bytes:
        return self._io.read(size)


def parse_python(parser_class: Any, wire: bytes, count: int) -> None:
    from redis._parsers.encoders import Encoder
    from redis._parsers.socket import SocketBuffer
    parser = parser_class(socket_read_size=65536)
    parser.encoder = Encoder("utf-8", "strict", False)  # bytes, as the hub's message-queue connection reads them
    parser._buffer = SocketBuffer(_Buffer(wire), 65536, None)  # type: ignore[arg-type]
    for _ in range(count):
        parser._read_response()


def parse_hiredis(hiredis: Any, wire: bytes, count: int) -> None:
    reader = hiredis.Reader()
    reader.feed(wire)
    for _ in range(count):
        reader.gets()


if __name__ == "__main__":
    main()
