"""Pure game logic for every game the table can play: no I/O beyond each game's packaged data, no OpenCV,
so that every decision the tracker takes can be replayed and tested without cameras.

`rules.core` is the game interface every game implements (verdicts, prompts, notation framework, snapshot
engine, registry); `rules.kipukas`, `rules.kaiju` and `rules.tilemap` hold one game each (docs/games.md).
"""
