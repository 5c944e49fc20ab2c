"""Placing capitals and base camps, and where a played soul may enter the map (#game_setup, #movement,
#claiming_territories)."""

from __future__ import annotations

from collections.abc import Mapping

from rules.board_map import BoardMap
from rules.verdict import Verdict

CLAIM_KINDS = ("capital", "basecamp")


def check_claim_token(board: BoardMap, owner: str, kind: str, stand: str,
                      claims: Mapping[str, tuple[str, str]]) -> Verdict:
    """May `owner` put a `kind` token on territory stand `stand`? `claims` maps territory stands to
    (kind, owner) of the tokens already there."""
    if kind not in CLAIM_KINDS:
        return Verdict.reject("#claiming_territories", f"{kind} is not a claim token")
    spec = board.stands.get(stand)
    if spec is None or spec.kind != "territory":
        return Verdict.reject("#claiming_territories", f"{owner} {kind} must stand on a territory stand, not {stand}")
    if stand in claims:
        held_kind, held_owner = claims[stand]
        return Verdict.reject("#claiming_territories",
                              f"territory {spec.territory} is already held by {held_owner}'s {held_kind}")
    if kind == "capital" and any(k == "capital" and o == owner for k, o in claims.values()):
        return Verdict.reject("#game_setup", f"{owner} already has a capital")
    if kind == "basecamp" and not any(k == "capital" and o == owner for k, o in claims.values()):
        return Verdict.reject("#game_setup", f"{owner} places a capital before any base camp")
    return Verdict.ok("#claiming_territories", f"{owner} claims territory {spec.territory} with a {kind}")


def check_entry_stand(board: BoardMap, owner: str, soul: str, stand: str,
                      claims: Mapping[str, tuple[str, str]]) -> Verdict:
    """A card enters the map at one of its player's base camps or capital (#movement)."""
    held = claims.get(stand)
    if held is None or held[1] != owner:
        return Verdict.reject("#movement", f"{soul} must enter play at one of {owner}'s base camps or capital, "
                              f"not {stand}")
    return Verdict.ok("#movement", f"{soul} enters play at {owner}'s {held[0]} on {stand}")
