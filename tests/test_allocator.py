"""The allocator setting the appliance makes at start-up (``tracker.runtime.allocator``): memory a frame
frees stays with the process for the next frame instead of being faulted in again, and an operator's own
glibc variables win. Each case runs in a fresh interpreter (the setting is for the whole process)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# allocate, touch and free a full frame's float copy (2028 x 1520 x 3 float32, 37 MB: above anything glibc
# keeps on its own) and a read's worth of ~300 KB arrays a few times; print the page faults of the last round
ROUNDS = textwrap.dedent("""
    import resource, sys
    import numpy as np
    from tracker.runtime.allocator import keep_freed_memory
    print(keep_freed_memory() if sys.argv[1] == "keep" else "plain")
    for _ in range(4):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        frame = np.ones((1520, 2028, 3), np.float32)
        patches = [np.ones((155, 155, 3), np.float32) for _ in range(40)]
        del frame, patches
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    print(faults)
""")


def _run(mode: str, env: dict[str, str] | None = None) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", ROUNDS, mode], cwd=ROOT, capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    set_, faults = out.stdout.split()
    return set_, int(faults)


def test_a_frames_memory_is_kept_for_the_next_frame() -> None:
    said, kept = _run("keep")
    assert said == "True"
    _, plain = _run("plain")
    # by default the 37 MB and the patches are mapped and faulted in again each round (~3,600 faults here, numpy
    # asking for huge pages where it can); kept, the last round reuses the heap's pages
    assert plain > 1000
    assert kept < plain / 20


def test_the_operators_own_setting_wins() -> None:
    said, faults = _run("keep", {"MALLOC_TRIM_THRESHOLD_": "131072"})
    assert said == "False"
    assert faults > 1000  # glibc's own behaviour, as the operator asked
