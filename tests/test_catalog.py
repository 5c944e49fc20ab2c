"""The packaged catalog: every card loads, souls carry a full model, die fields parse or say why not."""

from __future__ import annotations

import pytest

from rules.core.errors import CatalogError, PayloadError
from rules.kipukas.adaptations import ADAPTATIONS, adaptation
from rules.kipukas.catalog import Catalog
from rules.kipukas.dice import parse_die
from rules.kipukas.habitats import habitat
from rules.kipukas.motives import Motives


def test_all_56_cards_load_with_souls_fully_modelled() -> None:
    cat = Catalog.packaged()
    assert len(cat.cards) == 56
    souls = cat.souls()
    assert len(souls) == 30
    for s in souls:
        assert s.gene in ADAPTATIONS and s.motive in Motives.packaged().names
        assert s.habitat is not None and s.tolerance is not None and s.movement is not None
        assert s.keal_means and all(a in ADAPTATIONS for m in s.keal_means for a in m.adaptations)
        assert s.brawl is not None and len(s.brawl) == 4


def test_hilbert_matches_the_rule_book_example() -> None:
    h = Catalog.packaged().card("HMPU")
    assert (h.gene, h.motive, h.habitat, h.brawl, h.movement) == ("Avian", "Passion", "Forest", "HMPU", 2)
    assert h.means("King's Mojo").adaptations == ("Energetic", "Angelic", "Avian")
    assert h.die is not None and h.die.dice == (6, 6)


def test_misspellings_in_data_are_normalised_and_reported() -> None:
    card = Catalog.packaged().card("Hh2Y")
    assert card.motive == "Service"
    assert any("Algorithimic" in n for n in card.data_notes)


def test_adaptation_aliases_and_unknown_names() -> None:
    assert adaptation("Decript") == "Decrepit" and adaptation("avain") == "Avian"
    with pytest.raises(CatalogError, match="'Wobbly'"):
        adaptation("Wobbly")
    assert habitat("Digital Cloud") == "DigitalCloud"
    with pytest.raises(CatalogError):
        Motives.packaged().motive("Greed")


def test_unknown_code_is_a_clear_error() -> None:
    with pytest.raises(PayloadError, match="'ZZZZ'"):
        Catalog.packaged().card("ZZZZ")


@pytest.mark.parametrize(("raw", "dice", "base", "note"), [
    ("D6", (6,), 0, None), ("D6-D6", (6, 6), 0, None), ("D20-D6", (20, 6), 0, None),
    ("D20-D6-D6", (20, 6, 6), 0, None), ("Base 3", (), 3, None), ("Base 2 + D6", (6,), 2, None),
    ("D6-(+6)", (6,), 6, None), ("D6-D6 (Option to Re-roll)", (6, 6), 0, "Option to Re-roll"),
])
def test_die_grammar(raw: str, dice: tuple[int, ...], base: int, note: str | None) -> None:
    spec = parse_die(raw)
    assert spec.covered and spec.dice == dice and spec.base == base and spec.note == note


@pytest.mark.parametrize("raw", ["", "n/a ( D6 in capital )", "(without bear) D6-D6, (with bear) D20", "D1", "2D6x"])
def test_die_fields_outside_the_grammar_keep_raw_text(raw: str) -> None:
    spec = parse_die(raw)
    assert not spec.covered and spec.raw == raw
    with pytest.raises(ValueError, match="not covered"):
        spec.total([])


def test_roll_totals_check_faces() -> None:
    spec = parse_die("Base 2 + D6")
    assert spec.total([4]) == 6 and spec.bounds == (3, 8)
    with pytest.raises(ValueError, match="D6 cannot show 7"):
        spec.total([7])
