"""The rounded dice training category (issue 13, branch lies19): real-looking players' dice on stands.

A die drawn as the project's real dice look (``vision.synth.dice``: rounded D6 and diel die, D20), in its
owner's colour, on an empty territory or movement stand was read as a confident piece in 58 of 141 frames
(docs/overhead.md, lies18). ``training.patch_data`` can add such dice to its dice scenes (``rounded=True``);
the stand each one rests on is labelled "unknown". Without the flag every category renders what it did.
"""

from __future__ import annotations

import cv2
import numpy as np

from tests.overhead_support import layout
from training.patch_data import random_palette, random_scene, scene_patches
from training.patch_dice import DIE_MM, KINDS, ROUNDED_DICE, rounded_dice
from vision.patch_classifier import STAND_CLASSES
from vision.synth.tokens import GEOMETRY


def _hue(c: tuple[int, int, int]) -> float:
    return float(cv2.cvtColor(np.array([[c]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0, 0])


def test_rounded_dice_rest_on_free_stands_of_both_kinds_in_their_owners_colours_sizes_and_shapes() -> None:
    lay = layout()
    stands = {s.id: s for s in lay.stands}
    kinds: set[str] = set()
    where = {"territory": 0, "movement": 0, "piece": 0}
    sizes: list[float] = []
    for seed in range(40):
        rng = np.random.default_rng([seed, 3])
        palette = random_palette(rng)
        scene = random_scene(lay, rng, palette)
        free = {sid for i, sid in enumerate(sorted(stands)) if (i + seed) % 4}  # a quarter hidden by something
        dice = rounded_dice(lay, scene, palette, np.random.default_rng([seed, 4]), free)
        assert ROUNDED_DICE[0] <= len(dice) < ROUNDED_DICE[1]
        assert len({d.stand for d in dice}) == len(dice)  # one die per stand
        for d in dice:
            assert d.stand in free
            x, y, z = lay.stand_world(d.stand)
            assert np.hypot(x - d.die.at_mm[0], y - d.die.at_mm[1]) <= 4.5
            tok = scene.tokens.get(d.stand)
            lift = 0.0 if tok is None else GEOMETRY["soul" if tok.kind == "soul" else tok.kind].height_mm
            assert d.z_mm == z + lift  # on the stand's top or on its piece's
            hue = min(min(abs(_hue(d.die.colour) - _hue(c)), 180 - abs(_hue(d.die.colour) - _hue(c)))
                      for c in palette.values())
            assert hue <= 9.0, (d.die.colour, palette)
            sizes.append(d.size_mm)
            kinds.add(d.die.kind)
            where["piece" if tok is not None else stands[d.stand].kind] += 1
    assert DIE_MM[0] <= min(sizes) and max(sizes) <= DIE_MM[1] and max(sizes) - min(sizes) > 6.0
    assert kinds == set(KINDS)
    assert min(where.values()) >= 5, where


def test_the_flag_adds_unknown_stands_and_changes_nothing_else_and_is_off_by_default() -> None:
    lay = layout()
    unknown = STAND_CLASSES.index("unknown")
    for seed in (901_234, 1_100_007):
        plain = list(scene_patches(lay, seed, shots=1, views=1, cache={}, dice=True))
        off = list(scene_patches(lay, seed, shots=1, views=1, cache={}, dice=True, rounded=False))
        on = list(scene_patches(lay, seed, shots=1, views=1, cache={}, dice=True, rounded=True))
        assert len(plain) == len(off) and all(
            a[0] == b[0] and a[2] == b[2] and np.array_equal(a[1], b[1]) for a, b in zip(plain, off, strict=True))
        # the dice have their own generator: the slots (none under a die) are cut where they were and labelled
        # as they were; only the frame's light gains (measured over the whole frame) move by a grey level
        slots_off = [(p, label) for kind, p, label in off if kind == "slot"]
        slots_on = [(p, label) for kind, p, label in on if kind == "slot"]
        assert len(slots_on) == len(slots_off)
        for (p_off, l_off), (p_on, l_on) in zip(slots_off, slots_on, strict=True):
            assert l_on == l_off
            assert int(np.abs(p_on.astype(np.int16) - p_off.astype(np.int16)).max()) <= 2
        st_off = [label for kind, _, label in off if kind == "stand"]
        st_on = [label for kind, _, label in on if kind == "stand"]
        assert st_on.count(unknown) >= st_off.count(unknown) + ROUNDED_DICE[0] - 1, (st_off, st_on)
        assert st_on != st_off


def test_a_d20_share_makes_that_share_d20s_and_its_default_draws_what_it_did() -> None:
    """lies20: ``d20_share`` (more D20s, nearly a soul's outline from above); ``None`` keeps the three kinds
    alike and every draw as before."""
    lay = layout()
    stands = {s.id for s in lay.stands}
    counts = {"default": [0, 0], "half": [0, 0]}
    for seed in range(60):
        rng = np.random.default_rng([seed, 3])
        palette = random_palette(rng)
        scene = random_scene(lay, rng, palette)
        plain = rounded_dice(lay, scene, palette, np.random.default_rng([seed, 4]), set(stands))
        same = rounded_dice(lay, scene, palette, np.random.default_rng([seed, 4]), set(stands), None)
        assert [(d.die, d.size_mm, d.z_mm, d.stand) for d in plain] == [
            (d.die, d.size_mm, d.z_mm, d.stand) for d in same]
        half = rounded_dice(lay, scene, palette, np.random.default_rng([seed, 4]), set(stands), 0.5)
        for name, dice in (("default", plain), ("half", half)):
            counts[name][0] += sum(d.die.kind == "d20" for d in dice)
            counts[name][1] += len(dice)
    default, half = (d20 / n for d20, n in counts.values())
    assert 0.2 < default < 0.45 and 0.4 < half < 0.65, counts
