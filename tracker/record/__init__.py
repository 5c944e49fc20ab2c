"""Room 4, where a row is made durable: the hash-chained, signed SQLite game record.

`store` writes and reads rows (WAL, synchronous=FULL, hash chain, signed checkpoints and head); `keys`
holds the table's signing key; `keyframes` keeps the camera pictures that explain rows, within a disk limit.

May import: `tracker.errors` only. The record knows rows, not rules: replaying them is `tracker.table`'s.
"""
