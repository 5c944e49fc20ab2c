"""The printed-effect layer's data: entries load, and bad entries name the card and the field."""

from __future__ import annotations

import pytest

from rules.core.errors import CatalogError
from rules.kipukas.catalog import Catalog
from rules.kipukas.effects import FLAGS, effects_from_row, packaged_effects


def test_packaged_effects_name_catalog_cards_and_give_the_raven_its_printed_text() -> None:
    effects = packaged_effects()
    catalog = Catalog.packaged()
    assert set(effects) <= set(catalog.cards)
    raven = effects["ZrrD"]
    assert raven.attacks_downed and raven.moves_downed and raven.wasted_on_lost_bout and raven.bout_detection
    assert "#contention_ex" in raven.source
    tolerance_zero = {c.code for c in catalog.souls() if c.tolerance == 0}
    assert tolerance_zero == {"ZrrD", "Hh2Y", "oOnN", "P2IR"}
    assert all(effects[code].attacks_downed for code in tolerance_zero)


@pytest.mark.parametrize(("row", "words"), [
    ({"flies": True}, "unknown field(s) flies"),
    ({"detection": [0, 3]}, "detection is a list of D20 faces"),
    ({"heal_cycles": 0}, "heal_cycles is a whole number"),
    ({"attacks_downed": "yes"}, "attacks_downed is true or false"),
])
def test_bad_effect_entries_name_the_card_and_the_field(row: dict[str, object], words: str) -> None:
    with pytest.raises(CatalogError, match="XXXX") as err:
        effects_from_row("XXXX", row)
    assert words in str(err.value)


def test_a_judge_flag_must_be_known() -> None:
    with pytest.raises(CatalogError, match="unknown effect flag"):
        packaged_effects()["ZrrD"].with_flag("flies", True)
    assert "heals" in FLAGS
