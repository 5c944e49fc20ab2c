"""Running a patch network's ONNX body: onnxruntime when it is installed, else OpenCV's DNN module.

Both runtimes compute the same features from the same input (measured: within 5e-6, the calibrated
probabilities within 3e-7; ``tests/test_patch_runtime.py`` holds them to 1e-4). onnxruntime runs the
small convolutional bodies ~2.8x faster on one core (its graph optimisations fuse each convolution with its
activation and pick a blocked memory layout; ``bench/bench_patch_runtime.py``), which is ~3 ms of a full
read of the overhead frame (issue 14). It runs on one thread, as the reader's OpenCV does
(``cv2.setNumThreads(1)`` in the appliance and the benches): the loop shares its core with the front camera.

OpenCV stays the fallback: a checkout without onnxruntime, or a body onnxruntime cannot load (the
caller's check then meets OpenCV's own error, as before), runs the network as it always did.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
RUNTIMES = ("onnxruntime", "opencv")


class Forward(Protocol):
    """A network body: NCHW float input -> its output, one row per patch."""

    name: str

    def __call__(self, blob: F32) -> F32: ...


class OpenCvForward:
    """The body in OpenCV's DNN module (``cv2.dnn.readNetFromONNX``)."""

    name = "opencv"

    def __init__(self, body: bytes) -> None:
        self.net = cv2.dnn.readNetFromONNX(np.frombuffer(body, np.uint8))

    def __call__(self, blob: F32) -> F32:
        self.net.setInput(blob)
        return np.asarray(self.net.forward(), np.float32)


class OrtForward:
    """The body in an onnxruntime session on one thread, with every graph optimisation."""

    name = "onnxruntime"

    def __init__(self, body: bytes, ort: Any) -> None:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3  # errors only: a fallback to OpenCV is not worth a warning on every start
        self.session = ort.InferenceSession(body, opts, providers=["CPUExecutionProvider"])
        self.input = str(self.session.get_inputs()[0].name)

    def __call__(self, blob: F32) -> F32:
        return np.asarray(self.session.run(None, {self.input: blob})[0], np.float32)


def available() -> tuple[str, ...]:
    """The runtimes this installation can use, the preferred first."""
    return RUNTIMES if importlib.util.find_spec("onnxruntime") is not None else ("opencv",)


def forward(body: bytes, runtime: str | None = None) -> Forward:
    """The body of one network in ``runtime`` ("onnxruntime" or "opencv"); by default the first of
    ``available()`` that loads it. Asking for onnxruntime where it is not installed is a ``ValueError``."""
    if runtime not in (None, *RUNTIMES):
        raise ValueError(f"patch network runtime {runtime!r}: expected one of {RUNTIMES}")
    if runtime == "opencv" or (runtime is None and "onnxruntime" not in available()):
        return OpenCvForward(body)
    if "onnxruntime" not in available():
        raise ValueError("patch network runtime 'onnxruntime': onnxruntime is not installed")
    ort = importlib.import_module("onnxruntime")
    if runtime == "onnxruntime":
        return OrtForward(body, ort)
    try:
        return OrtForward(body, ort)
    except Exception:  # onnxruntime's load errors derive from Exception only; OpenCV's own check then reports
        return OpenCvForward(body)
