"""The players' dice training category (issue 13, branch lies17): dice in the players' own colours on territory
stands, which the reader must flag as covered, never read as that player's piece.

Each player's dice are printed in their colour with recessed marks (issue 21), so a 14-17 mm die on an empty
stand has the top of a capital of its owner's colour; the stress bench's "player's die on a stand" row accepted
one as a capital (docs/overhead.md, lies16). ``training.patch_data`` can add such dice to its scenes
(``dice=True``); the renderer's truth labels the stands they cover "unknown", as any foreign object's.
"""

from __future__ import annotations

import cv2
import numpy as np

from tests.overhead_support import layout
from training.patch_data import DIE_MM, PLAYER_DICE, player_dice, random_palette, random_scene, scene_patches
from vision.patch_classifier import STAND_CLASSES


def _hue(c: tuple[int, int, int]) -> float:
    return float(cv2.cvtColor(np.array([[c]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0, 0])


def test_players_dice_lie_on_territory_stands_in_their_owners_colours_sizes_and_shapes() -> None:
    lay = layout()
    territory = {s.id: lay.stand_world(s.id) for s in lay.stands if s.kind == "territory"}
    faces: set[int] = set()
    where = {"empty": 0, "piece": 0}
    sides: list[float] = []
    for seed in range(30):
        rng = np.random.default_rng([seed, 3])
        palette = random_palette(rng)
        scene = random_scene(lay, rng, palette)
        dice = player_dice(lay, scene, palette, np.random.default_rng([seed, 4]))
        assert PLAYER_DICE[0] <= len(dice) < PLAYER_DICE[1]
        for d in dice:
            sid, (x, y, z) = min(territory.items(), key=lambda kv: np.hypot(kv[1][0] - d.at_mm[0],
                                                                              kv[1][1] - d.at_mm[1]))
            assert np.hypot(x - d.at_mm[0], y - d.at_mm[1]) <= 19.0  # on the stand or leaning on its piece
            assert d.kind == "die" and d.colour is not None and d.side_mm is not None
            hue = min(min(abs(_hue(d.colour) - _hue(c)), 180 - abs(_hue(d.colour) - _hue(c)))
                      for c in palette.values())
            assert hue <= 9.0, (d.colour, palette)
            sides.append(d.side_mm)
            faces.add(d.faces)
            where["piece" if sid in scene.tokens else "empty"] += 1
            if sid not in scene.tokens:
                assert d.at_mm[2] == z
    assert DIE_MM[0] <= min(sides) and max(sides) <= DIE_MM[1] and max(sides) - min(sides) > 6.0
    assert faces == {6, 20}
    assert min(where.values()) >= 10, where


def test_a_dice_scene_is_the_ordinary_scene_with_more_stands_labelled_unknown() -> None:
    lay = layout()
    unknown = STAND_CLASSES.index("unknown")
    counts = {}
    for dice in (False, True):
        out = list(scene_patches(lay, 901_234, shots=1, views=1, cache={}, dice=dice))
        labels = np.array([label for kind, _, label in out if kind == "stand"])
        slots = [p for kind, p, _ in out if kind == "slot"]
        counts[dice] = (int((labels == unknown).sum()), len(slots))
    assert counts[True][0] >= counts[False][0] + PLAYER_DICE[0] - 1, counts
    assert counts[True][1] == counts[False][1]
