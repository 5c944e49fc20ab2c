"""Kipukas (rule book seed 000): the card catalog, card identity from QR payloads, the map model and its
graph queries, the game state machine (`game.Game`), combat arithmetic and deck validation, and
`adapter.KipukasGame`, the engine behind the game interface of `rules.core`.
"""
