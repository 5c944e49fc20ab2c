"""Room 3, the table: where observations meet the rules.

`board` is the vocabulary of a board reading; `stabiliser` keeps only readings that agree over frames with
no hand in view; `expected` is the board the game's state implies; `reconcile` turns the differences into
actions in the rules' notation or questions; `table` is the one owner of a game: every input goes through
`Table`, is asked of `rules`, and is written to the record before anything is broadcast; `replay` rebuilds
the state from the record; `loop` feeds camera readings to the table.

May import: `rules`, `tracker.record`, `tracker.errors`.
"""
