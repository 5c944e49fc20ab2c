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
from tests.overhead_support import PALETTE, half_resolution_table, layout, random_tokens, stand_tally
from vision.board import BoardReader
from vision.frame_blur import FrameBlur
from vision.light import channel_gains, shrink
from vision.synth import Renderer, TableScene
from vision.synth.clutter import Clutter

SMALL = (1014, 760)


def _read(seed: int, photo: bool, frames: int = 3) -> tuple[int, int, int]:
    """(right, wrong, stand readings) over ``frames`` JPEG q25 frames of one seeded table after warm-up."""
    reader, r, clean, tokens = half_resolution_table(seed, photo)
    right = wrong = n = 0
    for i in range(frames):
        obs = reader.read(r.finish(clean, seed=seed * 10 + 5 + i, jpeg_quality=25))
        ok, bad = stand_tally(obs.stands, tokens)
        right, wrong, n = right + ok, wrong + bad, n + len(obs.stands)
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


def _phone(seed: int, photo: bool) -> tuple[int, int, int]:
    """(covered stands flagged, covered stands, wrong readings of any stand) over 3 JPEG q25 frames of a
    seeded 1014x760 table with a phone lying on the map (put there after the warm-up frames)."""
    lay = layout()
    pose = default_pose(lay, image_size=SMALL)
    r = Renderer(lay, pose, PALETTE)
    rng = np.random.default_rng(seed)
    tokens = random_tokens(rng, fill=0.6)
    clean, _ = r.compose(TableScene(tokens), seed=seed)
    (ox, oy), (w, h) = lay.map_origin_mm, lay.map_size_mm
    phone = Clutter("phone", (ox + w * rng.uniform(0.3, 0.7), oy + h * rng.uniform(0.3, 0.7), 22.0))
    staged, truth = r.compose(TableScene(tokens, clutter=[phone]), seed=seed)
    reader = BoardReader(lay, pose, PALETTE, r.render(TableScene({}), seed=seed + 500) if photo else None)
    for i in range(3):
        reader.read(r.finish(clean, seed=seed * 10 + i))
    flagged = covered = wrong = 0
    for i in range(3):
        obs = reader.read(r.finish(staged, seed=seed * 10 + 5 + i, jpeg_quality=25))
        for sid, o in obs.stands.items():
            unsure = o.obstructed or o.confidence < 0.5
            tok = tokens.get(sid)
            want = ("empty", None) if tok is None else (tok.kind, tok.owner)
            wrong += not unsure and (o.state, o.owner) != want
            if truth.occluded.get(sid, 0.0) >= 0.25:
                covered += 1
                flagged += unsure
    return flagged, covered, wrong


def test_a_phone_over_stands_in_a_jpeg_q25_frame_is_flagged_and_nothing_is_read_wrong() -> None:
    """The degraded-frame rule passes JPEG bleed to the classifier, never an object's edge as a read: no
    stand is read wrong, covered or not. Known limit (docs/overhead.md, lies7): a small stand whose piece's
    blurred reach leaves no free core to test can be read (right) under a phone's edge; seed 46 reads 2 of
    27 covered stand readings where main flagged all."""
    for seed, photo in ((46, True), (47, False), (48, True), (49, False)):
        flagged, covered, wrong = _phone(seed, photo)
        assert covered > 0
        assert wrong == 0, f"seed {seed}: {wrong} stand readings wrong"
        assert flagged >= 0.9 * covered, f"seed {seed}: {covered - flagged} of {covered} covered stands read"
