"""Stands at half resolution under heavy JPEG, and the frame's blur estimated once per frame.

At 1014x760 JPEG quality 25 codes colour in 16x16 frame-pixel blocks (4:2:0): 16 mm on the table, as wide
as a capital. A block straddling a piece and the map takes the colour of both, so the change test finds
"unexplained" change around pieces and "another colour" on their tops; each stand picking its own model
blur (the per-stand ladder) often picked none. The frame's blur is now estimated once per frame and group
of models (``vision.frame_blur``), and in a frame blurrier than its models such change leaves the reading
unsure for the patch classifier rather than unknown (``vision.stands``). Nothing may be read wrong. Seeds
here are neither the bench's tuning seed (7) nor its reporting seeds (11, 67); of the test seeds 40-49
(3 frames each) main at 52a0c58 read 96.1 / 96.7 % of the readings (photo / none), this change 98.9 / 98.5 %,
none wrong either way; 44 and 45 are the two where main read fewest (49 and 50 of 54).
"""

from __future__ import annotations

import numpy as np

from calibration.camera import default_pose
from tests.overhead_support import PALETTE, layout, random_tokens
from vision.board import BoardReader
from vision.frame_blur import FrameBlur
from vision.light import channel_gains, shrink
from vision.synth import Renderer, TableScene

SMALL = (1014, 760)


def _read(seed: int, photo: bool, frames: int = 3) -> tuple[int, int, int]:
    """(right, wrong, stand readings) over ``frames`` JPEG q25 frames of one seeded table after warm-up."""
    lay = layout()
    pose = default_pose(lay, image_size=SMALL)
    r = Renderer(lay, pose, PALETTE)
    tokens = random_tokens(np.random.default_rng(seed), fill=0.6)
    clean, _ = r.compose(TableScene(tokens), seed=seed)
    reader = BoardReader(lay, pose, PALETTE, r.render(TableScene({}), seed=seed + 500) if photo else None)
    for i in range(3):
        reader.read(r.finish(clean, seed=seed * 10 + i))
    right = wrong = n = 0
    for i in range(frames):
        obs = reader.read(r.finish(clean, seed=seed * 10 + 5 + i, jpeg_quality=25))
        for sid, o in obs.stands.items():
            n += 1
            tok = tokens.get(sid)
            want = ("empty", None) if tok is None else (tok.kind, tok.owner)
            if o.obstructed or o.confidence < 0.5:
                continue
            right += (o.state, o.owner) == want
            wrong += (o.state, o.owner) != want
    return right, wrong, n


def test_jpeg_q25_half_resolution_stands_are_read_with_a_photo_and_none_wrong() -> None:
    right, wrong, n = _read(44, photo=True)
    assert wrong == 0
    assert right >= 0.96 * n, f"{right} of {n} stand readings (main before the fix: 49 of 54)"


def test_jpeg_q25_half_resolution_stands_are_read_without_a_photo_and_none_wrong() -> None:
    right, wrong, n = _read(45, photo=False)
    assert wrong == 0
    assert right >= 0.96 * n, f"{right} of {n} stand readings (main before the fix: 50 of 54)"


def test_the_frame_blur_is_estimated_once_for_the_photo_models() -> None:
    lay = layout()
    pose = default_pose(lay, image_size=SMALL)
    r = Renderer(lay, pose, PALETTE)
    photo = r.render(TableScene({}), seed=45)
    reader = BoardReader(lay, pose, PALETTE, photo)
    clean, _ = r.compose(TableScene(random_tokens(np.random.default_rng(45), fill=0.5)), seed=45)
    levels = []
    for blur in (0.0, 2.0):
        frame = r.finish(clean, seed=451, blur=blur)
        gains = channel_gains(shrink(frame), shrink(photo))
        est = FrameBlur.estimate(frame, reader.stand_regions, reader.models, gains)
        got = {est.blur_mm(sid) for sid in reader.stand_regions}
        assert len(got) == 1, got  # one level for the whole group of the photo's models
        levels.append(got.pop())
        (group,) = est.groups.values()
        assert group is not None and group.stands == 8
    assert levels[0] == 0.0
    assert levels[1] is not None and levels[1] >= 1.4
