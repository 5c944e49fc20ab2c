"""Room 2a, the front camera: card QR codes shown to it become card identities.

`scan` reads still images (`kipukas-tracker scan`); `camera` runs the live front-camera loop and hands
each card seen once per presentation to the table; `registration` turns a filmed deck into a deck file.

May import: `vision`, `rules` (card identity and decks), `tracker.sources`, `tracker.errors`.
"""
