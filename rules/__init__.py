"""Kipukas rules: pure game logic.

Holds the card catalog, card identity from QR payloads, the map model and its graph queries, and (as it
grows) the game state machine, combat arithmetic and deck validation. Imports nothing from the other
packages of this project and does no I/O beyond reading its own packaged data, so that every decision the
tracker takes can be replayed and tested without cameras.
"""
