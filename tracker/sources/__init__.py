"""Room 1, where a frame enters: frame sources and their recovery.

`capture` holds the `Frame` and `FrameSource` vocabulary and the recorded-folder and OpenCV sources;
`picamera` the Raspberry Pi camera; `resilient` re-opens a camera that stalls or dies; `open` builds the
source a camera section of `table.toml` asks for.

May import: `tracker.errors`, `tracker.config`. Nothing else of ours: a frame knows no game.
"""
