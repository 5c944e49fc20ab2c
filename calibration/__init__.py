"""Camera geometry: intrinsics, the pose of mat and map, and projection of stands and mat slots to pixels.

Imports neither `rules` nor `tracker`; it receives stand positions as plain data.
"""
