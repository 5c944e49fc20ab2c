"""What the overhead camera should see if the record is right: the game state as tokens on stands.

Claims show as a capital or base-camp token on the territory's stand. A revealed soul on a movement stand
shows as a soul token (stacked when several of one player share the stand); a soul in a base camp or
capital shows no token (#movement).
"""

from __future__ import annotations

from rules.kipukas.board_map import BoardMap
from rules.kipukas.state import GameState
from tracker.table.board import EMPTY, StandValue

CLAIM_TOKEN = {"capital": "capital", "camp": "basecamp"}


def expected_board(state: GameState, board: BoardMap) -> dict[str, StandValue]:
    view = {stand: EMPTY for stand in board.stands}
    for territory, (player, kind) in state.claims.items():
        stand = board.territory_stand(territory)
        if stand is not None:
            view[stand.id] = StandValue(CLAIM_TOKEN[kind], player, 1)
    for card in state.cards.values():
        if card.zone != "play" or card.at is None or card.at not in board.stands:
            continue
        if board.stands[card.at].kind != "movement" or not card.revealed:
            continue
        prev = view[card.at]
        count = prev.count + 1 if prev.kind == "soul" and prev.owner == card.control else 1
        view[card.at] = StandValue("soul", card.control, count)
    return view


def differences(expected: dict[str, StandValue], observed: dict[str, StandValue]) -> list[str]:
    """Human-readable list of every stand where the board and the record disagree."""
    out = []
    for stand in sorted(observed):
        want = expected.get(stand, EMPTY)
        if observed[stand].visible() != want.visible():
            out.append(f"{stand}: board shows {observed[stand].text()}, record expects {want.text()}")
    return out
