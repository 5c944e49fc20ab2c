"""Room 2b, the overhead camera's set-up: what the reader needs before it can read a frame.

`layout` builds the table layout (map file plus mat) the reader projects; `calibration_service` keeps the
camera pose and token colours of a running table; `auto_calibration` finds the pose from a first frame;
`palettes` stores the token colours learned at set-up.

May import: `vision`, `calibration`, `rules.kipukas.board_map` (the map), `tracker.errors`.
"""
