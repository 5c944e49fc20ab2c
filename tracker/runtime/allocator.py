"""The C allocator told to keep the memory a frame's read frees for the next frame, set once at start-up.

Reading an overhead frame allocates and frees ~14 MB of short-lived arrays (the quarter-resolution frame's
chromaticity and change masks, the regions' patches and their float copies). With glibc's defaults the heap
is handed back to the kernel between frames and grown again inside the next read: a full read faulted in
~455 fresh pages where one reader reads frame after frame, ~2,900 for a fresh reader, each ~2.5 us of zeroing
and bookkeeping (issue 14; docs/overhead.md, speed15). Raising the thresholds above a read's largest array
and its whole working set keeps those pages: a read faults in a few. The values read are the same; only where the memory
comes from changes. The cost is that the process keeps its peak heap (tens of MB) instead of returning it.

An operator's own ``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_TRIM_THRESHOLD_`` (glibc's variables) is never
overridden; a C library without ``mallopt`` (musl, macOS) is left as it is.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
# above a full frame in float32 (2028 x 1520 x 3 x 4 bytes = 37 MB): no array of a read is mapped apart
MMAP_THRESHOLD_BYTES = 64 << 20
# far above a read's working set: the heap a read grew is not handed back before the next one
TRIM_THRESHOLD_BYTES = 256 << 20
OPERATOR_VARIABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")


def keep_freed_memory() -> bool:
    """Set glibc's mmap and trim thresholds for this process: once, at start-up, before any frame is
    allocated (made after a process's large arrays, it kept nothing: docs/overhead.md, speed15). True when
    set; False where the operator set either variable or the C library has no ``mallopt``."""
    if any(name in os.environ for name in OPERATOR_VARIABLES):
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # the mmap threshold first: setting either fixes both (glibc stops adapting them), so both are set
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and bool(mallopt(M_TRIM_THRESHOLD,
                                                                                  TRIM_THRESHOLD_BYTES))
