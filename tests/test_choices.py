"""Tap to act: the choices a phone offers are what the rules allow that seat now, by name, and never
tell a card the seat may not know."""

from __future__ import annotations

import json
from pathlib import Path

from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.game import Game
from rules.kipukas.notation import parse
from tests.test_web_support import golden_script, new_service
from tracker.service.choices import choices_for, resolve
from tracker.service.seats import player
from tracker.service.views import knows

NOT_SAMPLED: tuple[str, ...] = ()  # every crafting combination is offered now (rules.kipukas.legal_rare)


def offered(choices: dict[str, object], game: Game, seat: str, line: str) -> bool:
    words = line.split()
    if words[1] == "roll" and words[2] != "diel":
        value = words[3].lstrip("=")
        pads = [d for d in choices["dice"] if d["prefix"] == " ".join(words[:3])]  # type: ignore[attr-defined]
        return any(bool(d.get("total")) == words[3].startswith("=") and
                   all(1 <= int(f) <= n for f, n in zip(value.split(","), d["dice"], strict=False)) for d in pads)
    if words[1] == "draw":
        draw = choices["draw"]
        if not isinstance(draw, dict):
            return False
        ids = words[2].split(",")
        return len(ids) in draw["counts"] and set(ids) <= {c["id"] for c in draw["deck"]}
    if words[1] == "craft":  # a recipe is a set of items: the engine offers each combination once
        return any(p[0] == "craft" and set(p[1].split(",")) == set(words[2].split(",")) and p[2:] == words[3:]
                   for p in choices["paths"])  # type: ignore[attr-defined]
    return any(resolve(game, seat, " ".join([seat, *p])) == line for p in choices["paths"])  # type: ignore[attr-defined]


def test_every_line_of_a_real_game_is_offered_to_its_seat_by_taps() -> None:
    decks, lines = golden_script()
    game = Game.new(decks, BoardMap.packaged())
    catalog = Catalog.packaged()
    checked = 0
    for line in lines:
        seat = line.split()[0]
        legal = game.is_legal(parse(line))
        if legal and line.split()[1] not in NOT_SAMPLED and "affinity" not in line:
            visible = {cid for cid, c in game.state.cards.items() if knows(player(seat), c)}
            choices = choices_for(game, seat, visible, catalog)
            assert offered(choices, game, seat, line), f"{line!r} is allowed but not offered as taps"
            checked += 1
        game.apply(line)
    assert checked >= 40


def test_choices_never_name_a_card_the_seat_may_not_know() -> None:
    decks, lines = golden_script()
    game = Game.new(decks, BoardMap.packaged())
    catalog = Catalog.packaged()
    face_down_targets = 0
    for line in lines:
        for seat in ("red", "blue"):
            visible = {cid for cid, c in game.state.cards.items() if knows(player(seat), c)}
            text = json.dumps(choices_for(game, seat, visible, catalog))
            hidden = [cid for cid in game.state.cards if cid not in visible]
            assert not [cid for cid in hidden if f'"{cid}"' in text or f"{cid}," in text or f",{cid}" in text]
            for cid in hidden:
                title = catalog.card(game.state.cards[cid].code).title
                if all(title != catalog.card(game.state.cards[v].code).title for v in visible):
                    assert title not in text, f"{title} leaked to {seat}"
            face_down_targets += text.count("face-down card on")
        game.apply(line)
    assert face_down_targets > 0, "no face-down card was ever offered as a target by its stand"


def test_a_face_down_target_named_by_its_stand_is_recorded_by_its_id(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    _, lines = golden_script()
    index = lines.index("red attack WCA9#0001 ZrrD#0001")
    for line in lines[:index]:
        service.table.act(f"phone:{line.split()[0]}", line)
    view = service.snapshot(player("red"))
    paths = [p for p in view["choices"]["paths"] if p[:2] == ["attack", "WCA9#0001"]]
    assert paths and paths[0][2].startswith("@") and "ZrrD" not in json.dumps(view["choices"])
    entry = service.act(player("red"), "red " + " ".join(paths[0]))
    assert entry["accepted"], entry
    assert service.table.entries()[-1].text == "red attack WCA9#0001 ZrrD#0001"


BOOK_VERBS = ("equip", "unequip", "pass", "pickup", "roam", "tame", "resolve", "imprison", "release", "discard",
              "steal", "bs", "dig")


def test_every_verb_the_engine_accepts_is_offered_as_a_labelled_button() -> None:
    """Issue 19: legal_actions offers every verb (equip, unequip, pass, pick up, roam, taming attempts,
    sabotage results, imprison/release, BS ...), and the phone shows each as a button with a label, whose
    path, sent back, is an action the rules accept."""
    import random

    from rules.kipukas.context import Ctx
    from rules.kipukas.notation import Imprison
    from rules.kipukas.selfplay import choose
    from tests.perft_positions import random_position
    from tracker.service.choices import VERBS

    catalog = Catalog.packaged()
    seen: set[str] = set()
    for seed in (109, 102):  # seeds whose games reach a rogue and an underground dweller
        game = random_position(seed, 0)
        rng = random.Random(seed)
        for step in range(300):
            if game.result or seen >= set(BOOK_VERBS):
                break
            offers = game.legal_actions(free=True)
            texts = {a.to_text() for a in offers}
            for seat in {a.player for a in offers if a.verb in BOOK_VERBS and a.verb not in seen}:
                choices = choices_for(game, seat, set(game.state.cards), catalog)  # a judge-like view
                for path in choices["paths"]:
                    verb = path[0]
                    if verb in BOOK_VERBS and verb not in seen:
                        assert choices["verbs"][verb] == VERBS[verb] and VERBS[verb] != verb
                        line = resolve(game, seat, " ".join([seat, *path]))
                        assert line in texts, line
                        if verb != "bs":
                            assert game.is_legal(parse(line)), line
                        seen.add(verb)
            jail = [a for a in offers if isinstance(a, Imprison)]
            if jail and "release" not in seen and step > 100:  # a printed prison, so that a release is due
                game.push(jail[0])
                continue
            ctx = Ctx(game.state, game.board, game.catalog)
            game.push(choose(ctx, game.legal_actions(), rng))
    assert seen == set(BOOK_VERBS), sorted(set(BOOK_VERBS) - seen)
