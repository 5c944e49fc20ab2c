"""A spectators' `rows` broadcast taken from the message queue as bytes, never decoded and re-encoded.

The hub's store publishes each append's public rows on python-socketio's Redis channel as one message it
builds from text (`hub.streams.Announce`: a fixed prefix, the rows' JSON joined by commas, a fixed suffix
naming the room). python-socketio's listener would decode the whole message into dicts in every hub
process, and the room's delivery encode the same rows back into the same JSON: about a tenth of a hub
process's CPU under the load bench (issue 20, profile in docs/hub.md). A message of exactly that shape is
split here instead: its rows' text goes into the Socket.IO packet as it came. Any other message (another
shape, another event, anything unexpected) is left to python-socketio's ordinary path.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

PREFIX = b'{"method":"emit","event":"rows","data":[['
MIDDLE = b']],"binary":false,"namespace":"/watch","room":'
END = b',"skip_sid":null,"callback":null,"host_id":"hub-store"}'
NAMESPACE = "/watch"
# A row's `ts`, as `public_row` orders a row's keys (table, game, seq, ts, kind, body): for the stage
# timing only (`broadcast.timing`), read without decoding the row.
TS = re.compile(rb'"seq":\d+,"ts":(-?[0-9][0-9.eE+-]*),"kind":')


@dataclass(frozen=True, slots=True)
class RawRows:
    """One published `rows` broadcast: its room and its rows' JSON texts joined by commas (bytes)."""

    room: str
    rows: bytes
    stamps: tuple[float, ...]  # each row's `ts` (seconds), read from the text: what the stage timing notes


def split(message: object) -> RawRows | None:
    """`message` as a `RawRows` when it is exactly the store's rows announcement, else None."""
    if not isinstance(message, bytes) or not message.startswith(PREFIX) or not message.endswith(END):
        return None
    middle = message.rfind(MIDDLE)  # the last one: a row's text never holds it outside a string
    if middle < len(PREFIX):
        return None
    room_text = message[middle + len(MIDDLE):len(message) - len(END)]
    if not room_text.startswith(b'"') or not room_text.endswith(b'"'):
        return None
    try:
        room = json.loads(room_text)
    except ValueError:
        return None
    if not isinstance(room, str):
        return None
    rows = message[len(PREFIX):middle]
    return RawRows(room, rows, tuple(float(m) for m in TS.findall(rows)))


def socketio_text(batches: list[RawRows]) -> str:
    """The Socket.IO EVENT packet `rows` to `/watch` holding these broadcasts' rows in order (what
    python-socketio would encode from the decoded rows, whitespace aside)."""
    return '2/watch,["rows",[' + b",".join(b.rows for b in batches).decode("utf-8") + "]]"
