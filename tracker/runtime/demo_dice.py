"""The demo's dice round: a short scripted game whose rolls are read by the overhead camera.

The diel die, the D6 capital roll-off and the D20 trap roll are rendered into the roll area (a hand
throws them: the frames of the throw show the hand and the dice moving, blurred; then the dice at rest),
read by `vision.dice`, and answer their prompts with source ``camera`` once a player taps "read N -
confirm". Two things a judge must see happen on purpose: blue picks up a die read as 3 and rolls again
before confirming (flagged ``re-roll``), and red types 6,6 for an attack the camera read as 1,1 (flagged
``typed-differs``; the judge settles it with the camera's reading). Every other action is said on a phone,
and this round reads only the roll area (the main round, `demo_script`, reads the board and the mat).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from tracker.runtime.demo_script import Step
from vision.synth import Renderer
from vision.synth.dice import Die, RollScene, render_roll
from vision.warp import Image

SPOTS_MM = ((370.0, -62.0), (455.0, -50.0), (520.0, -75.0))  # where the dice of a throw come to rest


def dice_steps() -> list[Step]:
    def step(caption: str, *say: str, dice: tuple[tuple[str, str, str], ...] = (), tap: tuple[str, ...] = (),
             typed: tuple[str, ...] = (), judge: tuple[str, ...] = ()) -> Step:
        return Step(caption, {}, say, dice=dice, tap=tap, typed=typed, judge=judge)

    return [
        step("Affinities, by phone", "red affinity Avian", "blue affinity Decrepit"),
        step("Red throws its D6 for the capital roll-off: the camera reads 5, red taps 'read 5 - confirm'",
             dice=(("d6", "red", "5"),), tap=("red",)),
        step("Blue throws its D6: the camera reads 3 ...", dice=(("d6", "blue", "3"),)),
        step("... blue picks the die up and throws again before confirming (flagged: re-roll); it reads 2, "
             "red (the opponent) taps confirm", dice=(("d6", "blue", "2"),), tap=("red",)),
        step("Capitals, camps, effects and draws, by phone; blue lays Tears for Oly face down on 3, red plays "
             "Hilbert on 1, blue takes initiative, Hilbert moves onto territory 3: a D20 trap roll is due",
             "red capital 7", "blue capital 4", "red camp 8", "blue camp 3", "red camp 1", "blue camp 5",
             "red personal none", "blue personal none", "red draw HMPU#0004,SWyA#0001,WCA9#0001",
             "blue draw F3GW#0001,ZrrD#0002,hLwQ#0001", "blue play F3GW#0001 3 unrevealed",
             "red play HMPU#0004 1 revealed", "blue initiative", "red move HMPU#0004 T1-T3"),
        step("Red throws its D20: the camera reads 14, red taps 'read 14 - confirm'",
             dice=(("d20", "red", "14"),), tap=("red",)),
        step("Red attacks; both choose their means in secret", "red attack HMPU#0004 F3GW#0001",
             "red means HMPU#0004 1", "blue means F3GW#0001 1"),
        step("Red throws two D6 for the attack: the camera reads 1 and 1, but red types 6,6 (flagged: "
             "typed-differs); the judge looks at the keyframe and records the camera's reading",
             dice=(("d6", "red", "1"), ("d6", "red", "1")), typed=("red roll attack 6,6",),
             judge=("red roll attack 1,1",)),
        step("The rest of the day and the night, by phone, until the diel die is due", "blue roll defence 1",
             "blue stop", "red end", "blue initiative", "red end", "blue retreat F3GW#0001 M4",
             "red challenge release", "red initiative", "blue end"),
        step("Red throws the diel die: the camera reads the sun (day); blue taps confirm",
             dice=(("diel", "red", "day"),), tap=("blue",)),
    ]


@dataclass
class DiceFrames:
    """Frames of the dice round: each throw shows a hand over the roll area with the dice still moving
    (blurred, elsewhere), then the dice at rest."""

    renderer: Renderer
    palette: dict[str, tuple[int, int, int]]
    steps: list[Step]
    hand_frames: int = 2
    settled_frames: int = 4
    seed: int = 0

    def __post_init__(self) -> None:
        self._lying: list[Die] = []
        self._n = 0

    def step_frames(self, index: int, step: Step) -> Iterator[Image]:
        """The frames of step `index`: a throw (hand, dice moving) then the dice at rest; one frame when the
        step throws nothing."""
        rng = np.random.default_rng([self.seed, index])
        if step.dice:
            self._lying = [Die(kind, face, self.palette[seat], (x + float(rng.uniform(-6, 6)),
                                                                y + float(rng.uniform(-6, 6))),
                               float(rng.uniform(0, 360)))
                           for (kind, seat, face), (x, y) in zip(step.dice, SPOTS_MM, strict=False)]
        frames = (self.hand_frames + self.settled_frames) if step.dice else 1
        for k in range(frames):
            self._n += 1
            if step.dice and k < self.hand_frames:  # the hand lets go, the dice still tumble, blurred
                dice = [Die(d.kind, d.face, d.colour, (d.at_mm[0] - 30 + 10 * k, d.at_mm[1] + 8),
                            float(rng.uniform(0, 360)), 0.0, 6.0) for d in self._lying]
                scene = RollScene(dice=dice, hands_at=[(dice[0].at_mm[0] - 25, dice[0].at_mm[1] - 40)])
            else:
                scene = RollScene(dice=list(self._lying))
            yield render_roll(self.renderer, scene, seed=self.seed * 100_000 + self._n)
