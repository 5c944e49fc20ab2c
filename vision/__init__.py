"""Images in, observations out.

QR decoding of card backs, stand and mat-slot classification, obstruction detection, and `vision.synth`,
which renders realistic overhead frames of any table state for tests and the demo. Knows nothing of the
rules: it may import `calibration` for geometry, never `rules` or `tracker`.
"""
