"""The game interface every game of the table implements, and the parts the games share.

`interface` declares what the tracker may rely on (seats, apply with a verdict naming the rule, undo,
prompts, views per viewer, result); `engine` is a base for engines built on cheap state snapshots;
`notation` holds the word-level grammar shared by the games' notations; `registry` maps a game's name to
its factory. Pure like all of `rules`: no I/O, imports nothing outside `rules`.
"""
