"""The table's broadcast to phones, encoded once per room: a connection that takes deltas rebuilds, at
every version, exactly the state a connection taking whole states gets and the service's own view for
that viewer; a delta carries nothing its viewer's whole state would not (a spectator or the other
player never learns a hidden card); websocket and long-polling connections alike."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from broadcast.deltas import apply
from tests.test_web_support import Peer, auth_for, close_all, connect, golden_script, new_service, running
from tracker.api import JUDGE, SPECTATOR, player
from tracker.service.service import TableService

WHO = ("judge", "red", "blue", "spectator")
VIEWER = {"judge": JUDGE, "red": player("red"), "blue": player("blue"), "spectator": SPECTATOR}


def rebuilt(peer: Peer) -> list[dict[str, Any]]:
    """Every state a delta-taking connection holds, in order: whole states as they came, deltas applied
    to the state before (each must name that state as its base: nothing changes while it connects)."""
    states: list[dict[str, Any]] = []
    with peer.lock:
        events = list(peer.events)
    for event, data in events:
        if event == "state":
            states.append(data)
        elif event == "delta":
            assert states, f"{peer.name}: a delta before any state"
            if data["to"] == [states[-1]["version"], states[-1]["seq"]]:
                continue
            states.append(apply(states[-1], data))
    return states


def leaves(obj: Any) -> set[str]:
    """Every string in a JSON value (keys and values)."""
    if isinstance(obj, dict):
        return {str(k) for k in obj} | {s for v in obj.values() for s in leaves(v)}
    if isinstance(obj, list):
        return {s for v in obj for s in leaves(v)}
    return {obj} if isinstance(obj, str) else set()


def wait_rebuilt(peer: Peer, version: int) -> None:
    end = time.monotonic() + 60  # polled: the deadline is for a loaded machine
    while not rebuilt(peer) or rebuilt(peer)[-1]["version"] < version:
        assert time.monotonic() < end, f"{peer.name} never got version {version}"
        time.sleep(0.02)


def wait_all(service: TableService, peers: dict[str, Peer], deltas: dict[str, Peer]) -> None:
    for who in WHO:
        version = service.snapshot(VIEWER[who])["version"]
        peers[who].wait_version(version)
        wait_rebuilt(deltas[who], version)


def test_deltas_rebuild_each_viewers_own_state_exactly(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    _, lines = golden_script()
    with running(service) as server:
        whole = {who: connect(server, f"{who} whole", auth_for(service, who)) for who in WHO}
        deltas = {who: connect(server, f"{who} deltas", (auth_for(service, who) or {}) | {"deltas": True})
                  for who in WHO}
        polling = connect(server, "blue deltas polling", (auth_for(service, "blue") or {}) | {"deltas": True},
                          transport="polling")
        try:
            for line in lines[:22]:  # red and blue draw: each holds cards the other may not know
                service.table.act(f"phone:{line.split()[0]}", line)
                wait_all(service, whole, deltas)
            wait_rebuilt(polling, service.snapshot(player("blue"))["version"])
            blue_states = rebuilt(polling)
            for who in WHO:
                by_version = {s["version"]: s for s in whole[who].of("state")}
                got = rebuilt(deltas[who])
                assert len(deltas[who].of("delta")) >= 10, f"{who}: changes should come as deltas"
                for state in got:
                    assert json.loads(json.dumps(state)) == by_version[state["version"]], who
                final = json.loads(json.dumps(service.snapshot(VIEWER[who])))
                assert got[-1] == final == whole[who].of("state")[-1]
                for delta in deltas[who].of("delta"):  # nothing beyond the viewer's own whole state
                    target = by_version.get(delta["to"][0]) or final
                    assert leaves({"set": delta["set"], "lists": delta.get("lists", {})}) <= leaves(
                        target) | {"set", "lists", "drop", "append"}, who
            assert blue_states[-1] == rebuilt(deltas["blue"])[-1]
            red_hand = {c["id"] for c in service.snapshot(player("red"))["hand"]}
            assert red_hand == {"K-LE#0001", "WCA9#0001"}
            for who, peer in (("spectator", deltas["spectator"]), ("blue", deltas["blue"]), ("blue", polling)):
                text = json.dumps(peer.events)
                assert not [c for c in red_hand if c in text], f"{who} learnt a card in red's hand"
            assert all(c in json.dumps(deltas["red"].events) for c in red_hand)
            spectator = {s["version"]: len(json.dumps(s)) for s in whole["spectator"].of("state")}
            sent = [(len(json.dumps(d)), spectator[d["to"][0]]) for d in deltas["spectator"].of("delta")]
            assert sum(d for d, _ in sent) < sum(s for _, s in sent) / 2, sent
        finally:
            close_all([*whole.values(), *deltas.values(), polling])
