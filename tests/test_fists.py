"""Combat arithmetic against every worked example of the rule books."""

from __future__ import annotations

import json

import pytest

from rules.kipukas.fists import affinity_bonus, brawl, final_blow_modifier, habitat_modifiers, keal_modifier, type_chart
from rules.kipukas.movement import DOWNED_MOVEMENT, downed_range
from tracker.cli import main


def test_hilbert_vs_myrthvither_raven_is_minus_6() -> None:
    # 000 #ce_defense_action: the Raven's Symbiont Barrage (Decrepit-Arboreal) against King's Mojo.
    t = keal_modifier(["Decript", "Arboreal"], ["Energetic", "Angelic", "Avian"])
    assert t.attack == -6
    assert {(p.attacker, p.defender): p.modifier for p in t.pairs} == {
        ("Decrepit", "Angelic"): -1, ("Decrepit", "Avian"): -2, ("Decrepit", "Energetic"): 1,
        ("Arboreal", "Angelic"): 2, ("Arboreal", "Avian"): -3, ("Arboreal", "Energetic"): -3}


def test_crushing_minus_13() -> None:
    assert keal_modifier(["Cenozoic", "Decrepit", "Angelic"], ["Decrepit", "Angelic", "Brutal"]).attack == -13


def test_002_typing_summary_plus_6() -> None:
    assert keal_modifier(["Mechanical", "Magic"], ["Brutal", "Decrepit"]).attack == 6


def test_chart_is_complete_and_not_symmetric() -> None:
    chart = type_chart()
    assert len(chart) == 15 and all(len(r) == 15 for r in chart.values())
    assert chart["Cenozoic"]["Decrepit"] != chart["Decrepit"]["Cenozoic"]


@pytest.mark.parametrize(("winner", "loser"), [
    ("Aa9-", "ZAAA"), ("Zz0_", "aAAA"), ("Aa9-", "AzAA"), ("Zz0_", "Z9AA"),
    ("Aa9-", "Aa0A"), ("Aa0_", "Aa-A"), ("Aa9-", "Aa9_"),
])
def test_brawl_table(winner: str, loser: str) -> None:
    assert brawl(winner, loser) == 1 and brawl(loser, winner) == -1


def test_brawl_example_hilbert_beats_raven_and_identical_ties() -> None:
    assert brawl("HMPU", "ZrrD") == 1
    assert brawl("HMPU", "HMPU") == 0
    with pytest.raises(ValueError, match="brawl character"):
        brawl("A!", "AA")


@pytest.mark.parametrize(("before", "after"), [(0, None), (1, 1), (2, 1), (3, 1), (4, 2), (5, 2)])
def test_downed_movement_table(before: int, after: int | None) -> None:
    assert DOWNED_MOVEMENT[before] == after and downed_range(before) == after


def test_final_blow_service_beats_satisfaction_plus_10() -> None:
    t = final_blow_modifier("Avian", "Avian", "Service", "Satisfaction")
    assert t.motive_bonus == 10 and t.attack == 10 and t.best_of == 3  # Satisfaction preserves Self


def test_final_blow_possessor_beats_conscience_and_support_adds_3() -> None:
    t = final_blow_modifier("Cenozoic", "Avian", "Possessor", "Conscience")
    assert t.attack == 3 + 10 and t.best_of == 3
    s = final_blow_modifier("Avian", "Avian", "Passion", "Satisfaction")  # #ce_victory: no interaction
    assert s.motive_bonus == 0 and s.attack == 3 and s.best_of == 3
    d = final_blow_modifier("Avian", "Avian", "Survival", "Duty")
    assert d.attack == 10 and d.defence == 3


def test_affinity_and_habitat() -> None:
    assert affinity_bonus("Avian", "Avain") == 1 and affinity_bonus("Avian", "Brutal") == 0
    # #ce_setup: Hilbert (forest) in forest territory 7 against a nomad: no habitat effects.
    assert habitat_modifiers("Nomad", "Forest", "forest")[:2] == (0, 0)
    # 002 example with 000 numbers: forest dweller +2, plains dweller -2 in forest.
    assert habitat_modifiers("Forest", "Plains", "forest")[:2] == (2, -2)
    assert habitat_modifiers("Plains", "Mountain", "plains")[:2] == (3, 0)


def test_fists_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fists", "--attacker", "Decrepit,Arboreal", "--defender", "Energetic,Angelic,Avian"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["modifier"] == -6 and len(out["pairs"]) == 6
    assert main(["fists", "--attacker", "Avian", "--defender", "Avian", "--attacker-motive", "Service",
                 "--defender-motive", "Satisfaction", "--final-blow"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["modifier"] == 10 and out["best_of"] == 3


@pytest.mark.parametrize("argv", [
    ["fists", "--attacker", "Wobbly", "--defender", "Avian"],
    ["fists", "--attacker", "Avian,Magic", "--defender", "Avian", "--final-blow"],
    ["fists", "--attacker", "Avian", "--defender", "Avian", "--attacker-motive", "Duty"],
])
def test_fists_cli_bad_input_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("kipukas-tracker fists:") and err.count("\n") == 1
