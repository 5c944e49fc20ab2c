"""The Socket.IO service and the phone, judge and spectator pages.

Talks only to `tracker.api`; every asset the pages need is served from this package (tables are often
offline).
"""
