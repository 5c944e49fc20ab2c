"""The patch networks' two runtimes (``vision.patch_runtime``): onnxruntime, which the reader uses when it
is installed, computes what OpenCV's DNN module computes on the reader's own patches of a seeded rendered
table (features and calibrated probabilities within 1e-4), so the choice of runtime never moves a reading;
and a runtime that does not exist is refused by name."""

from __future__ import annotations

import numpy as np
import pytest

from tests.overhead_support import PALETTE, layout, pose, random_slots, random_tokens, renderer
from vision.board import BoardReader
from vision.patch_classifier import PatchClassifier, PatchNet, patch_input
from vision.patch_runtime import available, forward
from vision.synth import TableScene


def reader_patches(seed: int) -> dict[str, list[np.ndarray]]:
    """The classifier's inputs for every stand and slot of a seeded table, cut as the reader cuts them."""
    r = renderer()
    rng = np.random.default_rng(seed)
    frame = r.render(TableScene(random_tokens(rng), random_slots(rng, seed)), seed=seed)
    reader = BoardReader(layout(), pose(), PALETTE, r.base())
    gains = np.array([1.06, 0.97, 1.1], np.float32)
    return {"stands": [patch_input(frame, reg, gains) for reg in reader.input_regions.values()],
            "slots": [patch_input(frame, reg, gains) for reg in reader.slot_regions.values()]}


def test_onnxruntime_is_installed_for_the_reader() -> None:
    assert available()[0] == "onnxruntime", "pyproject.toml lists onnxruntime: the reader's faster runtime"


@pytest.mark.parametrize("seed", [71, 72])
def test_both_runtimes_compute_the_same_probabilities(seed: int) -> None:
    shipped = PatchClassifier.load()
    for kind, patches in reader_patches(seed).items():
        weights = shipped.weights[0 if kind == "stands" else 1]
        ocv, ort = PatchNet(weights, runtime="opencv"), PatchNet(weights, runtime="onnxruntime")
        assert (ocv.body.name, ort.body.name) == ("opencv", "onnxruntime")
        batch = np.asarray(patches)
        f_ocv, f_ort = ocv.features(batch), ort.features(batch)
        assert f_ocv.shape == f_ort.shape == (len(patches), weights.head.w.shape[1])
        assert float(np.abs(f_ocv).max()) > 0.1, "the features are not all zero"
        assert np.allclose(f_ocv, f_ort, rtol=0.0, atol=1e-4), float(np.abs(f_ocv - f_ort).max())
        p_ocv, p_ort = ocv.head.probs(f_ocv), ort.head.probs(f_ort)
        assert np.allclose(p_ocv, p_ort, rtol=0.0, atol=1e-4), float(np.abs(p_ocv - p_ort).max())
        # one batch or one patch at a time: the same rows
        one = np.concatenate([ort.features(batch[i:i + 1]) for i in range(len(batch))])
        assert np.allclose(one, f_ort, rtol=0.0, atol=1e-4)


def test_the_reader_runs_onnxruntime_by_default() -> None:
    c = PatchClassifier.load()
    assert (c.stands.body.name, c.slots.body.name) == (available()[0], available()[0])


def test_an_unknown_runtime_is_refused_by_name() -> None:
    body = PatchClassifier.load().weights[0].body
    with pytest.raises(ValueError, match="'tensorflow'"):
        forward(body, "tensorflow")
