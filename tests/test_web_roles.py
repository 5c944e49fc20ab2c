"""A whole golden game played from phones over a real server, with a client for every role listening:
no message ever tells a role a card it must not know, and a phone that drops out mid-game catches up
with nothing lost or doubled."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from rules.kipukas.catalog import Catalog
from rules.kipukas.state import GameState
from tests.test_web_support import Peer, auth_for, close_all, connect, golden_script, new_service, running
from tracker.service.seats import JUDGE, player
from tracker.service.service import TableService
from tracker.service.views import is_public
from tracker.table.replay import replay

pytestmark = pytest.mark.slow
DROP_AT, BACK_AT = 30, 52  # red's phone is away for these lines of the script


@dataclass
class Game:
    service: TableService
    peers: dict[str, Peer]
    red_before: Peer       # red's first connection, closed at DROP_AT
    resumed_from: int      # the last row red had seen when it came back


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Game]:
    service = new_service(tmp_path_factory.mktemp("roles"))
    _, lines = golden_script()
    with running(service) as server:
        peers = {who: connect(server, who, auth_for(service, who)) for who in ("red", "blue", "judge", "spectator")}
        red_before, resumed_from = peers["red"], 0
        for i, line in enumerate(lines):
            seat = line.split()[0]
            if i == DROP_AT:
                peers["red"].wait_version(service.version())
                peers["red"].close()
            if i == BACK_AT:
                resumed_from = max(s["seq"] for s in red_before.of("state"))
                peers["red"] = connect(server, "red", {**(auth_for(service, "red") or {}), "since": resumed_from})
            sender = peers["judge"] if DROP_AT <= i < BACK_AT and seat == "red" else peers[seat]
            ack = sender.call("act", {"text": line})
            assert ack["ok"], ack
            with sender.lock:
                sender.events.append(("ack", ack))
        for peer in peers.values():
            peer.wait_version(service.version())
        yield Game(service, peers, red_before, resumed_from)
        close_all(list(peers.values()))


def max_seq(obj: Any) -> int:
    if isinstance(obj, dict):
        own = obj["seq"] if isinstance(obj.get("seq"), int) else 0
        return max([own, *(max_seq(v) for v in obj.values())])
    if isinstance(obj, list):
        return max([0, *(max_seq(v) for v in obj)])
    return 0


def states_by_seq(service: TableService) -> dict[int, GameState]:
    rows = list(service.table.record.rows())
    return {r.seq: replay(rows, service.table.board, upto=r.seq).game.state for r in rows}


def secret_windows(service: TableService) -> list[tuple[int, int, str, str]]:
    """(from seq, until seq, the player, the text) of every accepted means choice while it is secret:
    from the choice until the other side's choice (or any other accepted action) follows it."""
    out: list[tuple[int, int, str, str]] = []
    waiting: dict[str, tuple[int, str]] = {}
    for e in service.table.entries():
        if e.kind != "action" or not e.accepted:
            continue
        who = e.text.split()[0]
        if " means " in e.text and not any(p != who for p in waiting):
            waiting[who] = (e.seq, e.text)
            continue
        out += [(start, e.seq, p, text) for p, (start, text) in waiting.items()]
        waiting = {}
    return out + [(start, 10**9, p, text) for p, (start, text) in waiting.items()]


def forbidden(state: GameState, viewer: str, catalog: Catalog) -> list[str]:
    words = []
    for card in state.cards.values():
        if is_public(card) or card.owner == viewer:
            continue
        words += [card.id, catalog.card(card.code).title]
    return words


def leaks(peer: Peer, viewer: str, game: Game) -> list[str]:
    states = states_by_seq(game.service)
    catalog = Catalog.packaged()
    windows = secret_windows(game.service)
    found = []
    for event, data in peer.events:
        text = json.dumps(data)
        seq = max_seq(data)
        for word in forbidden(states[max(seq, 1)], viewer, catalog):
            if re.search(r"(?<![\w#-])" + re.escape(word) + r"(?![\w#-])", text):
                found.append(f"{event} at row {seq} names {word}")
        for start, until, who, line in windows:
            if who != viewer and start <= seq < until and line in text:
                found.append(f"{event} at row {seq} shows {line!r} before both chose")
    return found


@pytest.mark.parametrize("viewer", ["red", "blue", "spectator"])
def test_no_message_names_a_card_the_role_must_not_know(game: Game, viewer: str) -> None:
    peers = [game.peers[viewer]] + ([game.red_before] if viewer == "red" else [])
    messages = sum(len(p.events) for p in peers)
    assert messages > 60, "the client heard too little for the scan to mean anything"
    assert [leak for p in peers for leak in leaks(p, viewer, game)] == []


def test_secret_choices_and_hands_do_reach_their_owner_and_the_judge(game: Game) -> None:
    judge = json.dumps(game.peers["judge"].events)
    assert "ZrrD#0001,SWyA#0001,K_vJ#0001" in judge          # blue's draw, hand ids included
    assert "blue means SWyA#0001 1" in judge and "state_text" in judge
    red_seen = json.dumps(game.red_before.events)
    assert "Cartesian Sea" in red_seen                          # red's own face-down trap, by name
    blue_states = game.peers["blue"].of("state")
    # While blue's bout waited for red's means, blue's choice showed on blue's phone, not to spectators.
    waiting = [s["bout"] for s in blue_states if s["bout"] and s["bout"]["attack_chosen"]
               and not s["bout"]["defence_chosen"]]
    assert waiting and all(b["attack_means"] == 1 and b["defence_means"] is None for b in waiting)
    seen = [s["bout"] for s in game.peers["spectator"].of("state") if s["bout"] and s["bout"]["attack_chosen"]
            and not s["bout"]["defence_chosen"]]
    assert seen and all(b["attack_means"] is None for b in seen)


def test_spectators_and_players_get_the_state_of_their_role(game: Game) -> None:
    for who, viewer in (("judge", JUDGE), ("red", player("red")), ("blue", player("blue"))):
        final = game.peers[who].of("state")[-1]
        assert final == json.loads(json.dumps(game.service.snapshot(viewer)))
        assert final["role"] == viewer.role and final["seat"] == viewer.seat
    spectator = game.peers["spectator"].of("state")[-1]
    assert "hand" not in spectator and "state_text" not in spectator and spectator["role"] == "spectator"
    assert game.peers["red"].of("hello")[0] == {"role": "player", "seat": "red", "spectator_delay_min": 0.0}


def test_a_phone_that_drops_out_gets_every_entry_it_missed_once(game: Game) -> None:
    red = game.peers["red"]
    caught_up = red.of("log")
    assert len(caught_up) == 1 and caught_up[0]["after"] == game.resumed_from
    missed = [e["seq"] for e in caught_up[0]["entries"]]
    assert missed == sorted(set(missed)) and missed[0] > game.resumed_from
    visible = [e["seq"] for e in game.service.entries_since(player("red"), 0)]
    assert missed == [s for s in visible if game.resumed_from < s <= missed[-1]]
    # Everything before the drop came over the first connection: together, every entry exactly once.
    before = {e["seq"] for s in game.red_before.of("state") for e in s["log"]}
    after = {e["seq"] for s in red.of("state") for e in s["log"]}
    assert before | set(missed) | after == set(visible)
    assert max(before) == game.resumed_from and all(s > game.resumed_from for s in missed)
    # Lines played for red by the judge while the phone was away are in what it got back.
    assert any(e["source"] == "judge" and e["action"].startswith("red ") for e in caught_up[0]["entries"])
