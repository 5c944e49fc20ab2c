"""The dice crops' cache follows the crop code (issue 21, round 11).

Round 10 changed the crop of glaring cubes whose pixels the sensor clipped, while the cache kept round 8's
name and crops: a training run would have read crops the reader no longer makes. The cache's folder is now
named for a hash of the code that cuts the crops, so any change to it gives a new folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import training.train_dice as train_dice


def test_the_cache_name_changes_with_the_crop_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in train_dice.CROP_CODE:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(train_dice.ROOT / name, tmp_path / name)
    shipped = train_dice.crop_cache()
    monkeypatch.setattr(train_dice, "ROOT", tmp_path)
    assert train_dice.crop_cache() == shipped  # the same code, the same folder
    assert shipped.name not in ("kipukas-dice", "kipukas-dice-deglared")  # round 6 and round 8's crops
    for name in ("vision/dice_glare.py", "vision/dice_crop.py", "training/dice_data.py"):
        path = tmp_path / name
        before = path.read_bytes()
        path.write_bytes(before + b"\n# changed\n")
        assert train_dice.crop_cache() != shipped, name
        path.write_bytes(before)
    assert train_dice.crop_cache() == shipped
