"""`prompts(ctx)`, behind `Game.prompts()`: what the rules demand now, in words a player understands."""

from __future__ import annotations

from rules.core.verdict import Prompt
from rules.kipukas.context import Ctx
from rules.kipukas.state import Pending

_SETUP = {
    "affinity": ("#game_setup", "declare your affinity: 'The <adaptation> are my crux' ({p} affinity <adaptation>)"),
    "rolloff": ("#game_setup", "roll a D6 for the capital roll-off ({p} roll d6 <1-6>)"),
    "effects": ("#personal_effects", "choose your personal effect ({p} personal <card>|none) or the default effect "
                                     "({p} default <card from your deck>)"),
    "draw": ("#game_setup", "draw three cards ({p} draw <card>,<card>,<card>)"),
}


def prompts(c: Ctx) -> list[Prompt]:
    s = c.s
    out: list[Prompt] = []
    if s.phase == "over":
        return [Prompt(None, "#win", f"the game is over: {s.result}", False)]
    if s.phase in _SETUP:
        rule, text = _SETUP[s.phase]
        for p in s.players:
            ps = s.players[p]
            waiting = {"affinity": ps.affinity is None, "rolloff": ps.rolloff is None,
                       "effects": not ps.effect_chosen, "draw": not s.in_zone("hand", p)}[s.phase]
            if waiting:
                out.append(Prompt(p, rule, text.format(p=p)))
        return out
    if s.phase in ("capitals", "camps") and s.active:
        kind = "capital" if s.phase == "capitals" else "camp"
        out.append(Prompt(s.active, "#game_setup", f"place your {kind} ({s.active} {kind} <territory>)"))
        return out
    if s.phase == "diel":
        out.append(Prompt(None, "#diel_cycle", "either player rolls the diel die (<player> roll diel day|night|storm)"))
    if s.bout is not None:
        b = s.bout
        att, dfn = c.card(b.attacker), c.card(b.defender)
        if not b.final and (b.attack_means is None or b.defence_means is None):
            for cs, chosen in ((att, b.attack_means), (dfn, b.defence_means)):
                if chosen is None:
                    options = ", ".join(f"{i}={c.info(cs).keal_means[i - 1].name}" for i in c.available_means(cs))
                    out.append(Prompt(cs.owner, "#ce_setup", f"choose in secret the KEAL means of {c.name(cs)} "
                                      f"({cs.owner} means {cs.id} <n>; {options})"))
        else:
            kind = "final blow" if b.final else "KEAL means bout"
            for cs, what, got in ((att, "attack", b.attack_roll), (dfn, "defence", b.defence_roll)):
                if got is None:
                    die = c.info(cs).die
                    how = f"dice {die.raw}" if die and die.covered else "the total as =N"
                    out.append(Prompt(cs.owner, "#ADRH", f"{kind}: roll {what} for {c.name(cs)} "
                                      f"({cs.owner} roll {what} <{how}>)"))
    for pend in s.pending:
        out.append(Prompt(pend.player, *_pending_text(c, pend)))
    if not out and s.phase in ("day", "night") and s.active:
        p = s.active
        due = sorted(t for q, t in s.contention_due if q == p)
        if due:
            out.append(Prompt(p, "#day", f"enemies share territory {due[0]} with you: attack or retreat first"))
        elif s.phase == "day":
            alone = " (your opponent took initiative: act as long as you like, then 'end')" if s.passed else ""
            out.append(Prompt(p, "#day", "your action: play a card, reveal or move a soul, or take initiative" + alone))
        else:
            left = sorted({"bottom", "draw", "craft", "sabotage", "initiative"} - s.players[p].night_done)
            out.append(Prompt(p, "#night", f"your night action ({', '.join(left)})"))
    for note in s.notices:
        out.append(Prompt(None, "#card_activation", note, False))
    return out


def _pending_text(c: Ctx, pend: object) -> tuple[str, str]:

    assert isinstance(pend, Pending)
    p = pend.player
    them = " or ".join(c.foes(p)) if p in c.s.players else "the opponent"  # two seats: the other player
    if pend.kind == "trap-roll":
        return "#card_activation", (f"you entered territory {pend.territory} where {them} has unrevealed cards: "
                                    f"roll a D20 for trap activation and detection ({p} roll d20 <1-20>)")
    if pend.kind == "trap":
        return "#traps", (f"does your trap {c.name(c.card(pend.cards[0]))} activate on a D20 of {pend.value}, by its "
                          f"printed condition? ({p} trap {pend.cards[0]} sprung|idle)")
    if pend.kind == "combat":
        if pend.note == "must-attack":
            return "#movement", f"your soul moved onto an enemy on {pend.stand}: attack ({p} attack <yours> <theirs>)"
        if pend.note == "press":
            return "#ADRH", f"your attack won: attack again, final blow if downed, or stop ({p} attack ...|{p} stop)"
        return "#retreat", (f"in territory {pend.territory}: counter-attack, retreat, reinforce by moving a soul in, "
                            f"or stop for today ({p} attack|retreat|move|stop)")
    if pend.kind == "challenge":
        return "#retreat", (f"{them} retreats {','.join(pend.cards)} to {pend.stand}: let them go or challenge "
                            f"({p} challenge release|challenge)")
    if pend.kind == "escape":
        return "#retreat", (f"retreat challenged: {p} rolls 2D6 ({p} roll escape a,b), {them} a D20 "
                            f"({them} roll chase n); the escapee must roll higher")
    if pend.kind == "damage":
        cause = "the storm catches" if pend.note == "#storm" else "volcanic ground burns"
        return pend.note, (f"{cause} {c.name(c.card(pend.cards[0]))}: mark one KEAL means injured "
                           f"({p} injure {pend.cards[0]} <n>)")
    if pend.kind == "heal":
        return "#habitat_effects", (f"{c.name(c.card(pend.cards[0]))} rested 2 diel cycles on uncontested plains: "
                                    f"heal one KEAL means ({p} heal {pend.cards[0]} <n>)")
    if pend.kind == "tame":
        return "#tameability", (f"{c.name(c.card(pend.cards[0]))} has tameability {pend.value}: do your affinity and "
                                f"effects tame it? ({p} tame {pend.cards[0]} tamed|rogue)")
    if pend.kind == "grab":
        return "#items", (f"{pend.cards[0]} was dropped in contested territory {pend.territory}: {p} names a soul "
                          f"there to grab it ({p} grab {pend.cards[0]} <soul>)")
    if pend.kind == "bs":
        return "#BS", (f"{them} calls BS on {pend.note!r}: hold convention; one player concedes reasonability "
                       f"({p}|{them} concede for|against), or the judge decides (judge concede for|against)")
    if pend.kind == "peace":
        return "#discarding_runout", f"forced peace: keep the peace or call the reserves ({p} peace keep|reserves)"
    return "#diel_cycle", pend.kind
