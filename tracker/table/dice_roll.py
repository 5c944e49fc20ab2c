"""The roll the rules asked for, read by the camera: a reading at rest becomes the prompt's answer, confirmed
with one tap; what cannot be read becomes a question; what looks like cheating is flagged for the judge.

Which rolls are due comes from the rules (`Game.legal_actions`, the roll verbs): the capital roll-off (D6),
the diel die, the D20 of a trap roll, a chase or a random territory, the 2D6 of an escape, and bout rolls
whose dice are D6 or D20. When the dice come to rest (`tracker.table.dice_watch`) the desk records a
``dice`` row (source ``overhead``: what the camera read, with its confidence, where and whose) and:

- the dice of the roller's colour that the roll needs, all read, make the answer: it waits as a
  `CameraRoll` ("read 14 - confirm") until the roller or the opponent confirms it with one tap; the
  action row then has source ``camera`` and names who confirmed it and the dice row;
- a die that cannot be read, dice that cannot be told apart, or dice rolled outside the area: a question
  to the roller, whose options are the roll's legal answers (the judge sees the keyframe of the dice row);
- dice of the other seat's colour: a ``flag`` row ``wrong-seat`` and the same question;
- dice at rest picked up and rolled again before the reading was confirmed: a ``flag`` row ``re-roll``;
- a result typed on a phone that differs from the camera's reading: a ``flag`` row ``typed-differs``, and
  the typed action is not applied: a question (the camera's reading or the player's word) to the roller,
  which a judge settles when the players disagree: the judge sees both, and the dice row's keyframe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.core.errors import RulesError
from rules.kipukas.notation import parse
from tracker.errors import InputError
from tracker.table.dice_watch import DiceWatch, DieAtRest, Rest, RollSeen
from tracker.table.reconcile import Question
from tracker.table.table import Entry, Table

DIE_OF_SIZE = {6: "d6", 20: "d20"}
ASK_AT_MOST = 40  # a question lists every legal answer of the roll; more than this and the phone's pad is used


@dataclass(frozen=True)
class RollDue:
    """A roll the rules wait for: `prefix` ("red roll d20"), its player, the dice it needs, its legal answers."""

    prefix: str
    player: str
    kinds: tuple[str, ...]
    answers: tuple[str, ...]


@dataclass(frozen=True)
class CameraRoll:
    """A roll read by the camera, waiting for one tap: `id` is its dice row."""

    id: int
    player: str
    prefix: str
    text: str
    dice: tuple[DieAtRest, ...]

    @property
    def label(self) -> str:
        return f"read {self.text.split()[-1].replace(',', ' + ')}"

    def view(self) -> dict[str, Any]:
        return {"id": self.id, "player": self.player, "prefix": self.prefix, "text": self.text,
                "label": self.label, "dice": [d.body() for d in self.dice]}


def _other(player: str, seats: Sequence[str]) -> str:
    return next((s for s in seats if s != player), player)


class DiceDesk:
    """The camera's dice for one table (`table`): fed with roll readings by the overhead loop."""

    def __init__(self, table: Table, frames_to_agree: int = 3) -> None:
        self.table = table
        self.watch = DiceWatch(frames_to_agree)
        self.pending: list[CameraRoll] = []
        self._due: tuple[int, list[RollDue]] = (-1, [])

    def due(self) -> list[RollDue]:
        """The rolls the rules wait for now that the camera can read (cached per table version)."""
        version = self.table.version()
        if self._due[0] == version:
            return self._due[1]
        with self.table.lock:
            game = self.table.game
            texts = [a.to_text() for a in game.legal_actions() if a.to_text().split()[1] == "roll"]
            if game.state.phase == "diel":  # either player may roll it; the engine offers it to one
                for seat in self._seats():
                    texts += [t for t in (f"{seat} roll diel {v}" for v in ("day", "night", "storm"))
                              if t not in texts and game.is_legal(parse(t))]
        grouped: dict[str, list[str]] = {}
        for text in texts:
            words = text.split()
            if len(words) == 4 and not words[3].startswith("="):
                grouped.setdefault(" ".join(words[:3]), []).append(text)
        out: list[RollDue] = []
        for prefix, answers in sorted(grouped.items()):
            player, what = prefix.split()[0], prefix.split()[2]
            if what == "diel":
                kinds: tuple[str, ...] = ("diel",)
            else:
                sizes: list[int] = []
                for text in answers:
                    faces = [int(f) for f in text.split()[3].split(",") if f.isdigit()]
                    sizes = [max(a, b) for a, b in zip(sizes, faces, strict=False)] + faces[len(sizes):]
                if not sizes or any(s not in DIE_OF_SIZE for s in sizes):
                    continue  # dice the camera does not know (a D4, a D8): typed on the phone
                kinds = tuple(DIE_OF_SIZE[s] for s in sizes)
            out.append(RollDue(prefix, player, kinds, tuple(answers)))
        self._due = (version, out)
        return out

    def _seats(self) -> list[str]:
        return sorted(self.table.game.state.players)

    # --- the camera ------------------------------------------------------------------------------------------
    def feed(self, reading: RollSeen) -> list[Entry]:
        """One frame's reading of the roll area."""
        rest, lifted = self.watch.feed(reading)
        entries: list[Entry] = []
        if lifted is not None:
            entries += self._lifted(lifted)
        if rest is not None:
            entries += self._rest(rest)
        return entries

    def _lifted(self, lifted: Rest) -> list[Entry]:
        waiting = [p for p in self.pending if p.dice == lifted.dice]
        if not waiting:
            return []
        roll = waiting[0]
        self.pending.remove(roll)
        return self._flag("overhead", {
            "flag": "re-roll", "player": roll.player, "camera": roll.text, "dice_row": roll.id,
            "text": f"{roll.player} picked up the dice read as {roll.text.split()[-1]} and rolled again before "
                    f"confirming ({roll.prefix})"})

    def _flag(self, source: str, body: dict[str, Any], question: Question | None = None) -> list[Entry]:
        """An anti-cheat flag: a judges-only row, and a warning on the judge's page."""
        entries = self.table.note("flag", source, body, question)
        self.table.warn(f"dice: {body['text']}", "warning", key=f"dice-flag-{entries[0].seq}")
        return entries

    def _rest(self, rest: Rest) -> list[Entry]:
        due = self.due()
        if not due:
            return []
        seats = self._seats()
        inside = [d for d in rest.dice if d.inside]
        outside = [d for d in rest.dice if not d.inside]
        body: dict[str, Any] = {"read": [d.body() for d in rest.dice], "unresolved": rest.unresolved}
        for roll in due:
            mine = self._pick(roll, [d for d in inside if d.known], seats)
            if mine is not None:
                text = self._answer(roll, mine)
                if text is not None:
                    entries = self.table.note("dice", "overhead", {**body, "status": "read", "player": roll.player,
                                                                   "answer": text,
                                                                   "text": f"camera read {text}"})
                    self.pending = [p for p in self.pending if p.prefix != roll.prefix]
                    self.pending.append(CameraRoll(entries[0].seq, roll.player, roll.prefix, text, tuple(mine)))
                    return entries
        roll = self._roll_of(due, rest.dice, seats)
        wrong = [d for d in inside if d.known and d.kind in roll.kinds and roll.kinds != ("diel",)
                 and d.owner != roll.player]
        unknown = [d for d in inside if not d.known] or rest.unresolved
        if wrong and not unknown:
            status, why = "wrong-seat", (f"the dice read are {_other(roll.player, seats)}'s colour, "
                                         f"not {roll.player}'s")
        elif unknown:
            status, why = "unreadable", "the camera could not read every die"
        elif outside and not inside:
            status, why = "outside", "the dice came to rest outside the roll area"
        else:
            return []  # dice that are no roll the rules wait for (set aside, another set)
        question = self._question(roll, f"{why}: what did {roll.player} roll? ({roll.prefix} ...)")
        entries = self.table.note("dice", "overhead", {**body, "status": status, "player": roll.player,
                                                       "text": f"camera: {why} ({roll.prefix})"}, question)
        if status == "wrong-seat":
            entries += self._flag("overhead", {
                "flag": "wrong-seat", "player": roll.player, "dice_row": entries[0].seq,
                "text": f"{roll.player} rolled with {_other(roll.player, seats)}'s dice ({roll.prefix})"})
        return entries

    @staticmethod
    def _pick(roll: RollDue, known: list[DieAtRest], seats: Sequence[str]) -> list[DieAtRest] | None:
        """The dice of this roll: of the kinds it needs, in the roller's colour (the diel die: anyone's)."""
        picked: list[DieAtRest] = []
        pool = list(known)
        for kind in roll.kinds:
            found = next((d for d in pool if d.kind == kind and (kind == "diel" or d.owner == roll.player)), None)
            if found is None:
                return None
            pool.remove(found)
            picked.append(found)
        if any(d.kind in roll.kinds and d.owner == roll.player for d in pool):
            return None  # more dice of the roller's than the roll needs: which ones count is a question
        return picked

    @staticmethod
    def _answer(roll: RollDue, dice: list[DieAtRest]) -> str | None:
        words = [str(d.face) for d in dice]
        player = roll.player if roll.kinds != ("diel",) else str(dice[0].owner or roll.player)
        prefix = f"{player} {' '.join(roll.prefix.split()[1:])}"
        for text in (f"{prefix} {','.join(words)}", f"{prefix} {','.join(reversed(words))}"):
            if text in roll.answers or (roll.kinds == ("diel",) and text.split()[-1] in ("day", "night", "storm")):
                return text
        return None

    @staticmethod
    def _roll_of(due: list[RollDue], dice: Sequence[DieAtRest], seats: Sequence[str]) -> RollDue:
        """The roll these dice are most likely for: one whose kinds and roller's colour they show, else one
        whose kinds they show, else one whose roller's colour they show, else the first due."""
        kinds = {d.kind for d in dice if d.kind}
        owners = {d.owner for d in dice if d.owner}
        return (next((r for r in due if kinds & set(r.kinds) and r.player in owners), None)
                or next((r for r in due if kinds & set(r.kinds)), None)
                or next((r for r in due if r.player in owners), None) or due[0])

    @staticmethod
    def _question(roll: RollDue, text: str) -> Question | None:
        if len(roll.answers) > ASK_AT_MOST:
            return None
        return Question(roll.player, text, roll.answers)

    # --- the phones ------------------------------------------------------------------------------------------
    def confirm(self, seat: str, roll_id: int) -> Entry:
        """One tap: the roller or the opponent (or a judge, `seat` "judge") accepts the camera's reading."""
        roll = next((p for p in self.pending if p.id == roll_id), None)
        if roll is None:
            raise InputError(f"no camera reading {roll_id} waits for confirmation")
        if seat != "judge" and seat not in self._seats():
            raise InputError(f"{seat} is not a player of this game")
        entry = self.table.act("camera", roll.text, extra={"confirmed_by": seat, "dice_row": roll.id})
        if entry.accepted:
            self.pending.remove(roll)
        return entry

    def typed(self, seat: str, text: str) -> list[Entry] | None:
        """A roll typed on `seat`'s phone while the camera's reading of it waits: the same result confirms
        it; another is flagged and becomes a question. None: no camera reading concerns this text."""
        try:
            words = parse(text).to_text().split()
        except RulesError:
            return None
        if len(words) < 4 or words[1] != "roll":
            return None
        prefix = " ".join(words[:3])
        roll = next((p for p in self.pending if p.prefix == prefix or
                     (words[2] == "diel" and p.prefix.split()[1:] == words[1:3])), None)
        if roll is None:
            return None
        typed = " ".join(words)
        if typed == roll.text:
            return [self.confirm(seat, roll.id)]
        self.pending.remove(roll)
        question = Question(roll.player, f"{seat} entered {typed}, the camera read {roll.text}: which is right? "
                                         f"(if the players disagree, a judge decides from the keyframe)",
                            (roll.text, typed))
        return self._flag(f"phone:{seat}", {
            "flag": "typed-differs", "player": roll.player, "camera": roll.text, "typed": typed,
            "dice_row": roll.id, "text": f"{seat} entered {typed.split()[-1]}, the camera read "
                                         f"{roll.text.split()[-1]} ({roll.prefix})"}, question)

    def views(self, seat: str | None) -> list[dict[str, Any]]:
        """The readings waiting for a tap that `seat` sees: both players see every one (the roller confirms,
        the opponent may); judges (`seat` None) too."""
        return [p.view() for p in self.pending]

    def drop_answered(self) -> None:
        """Forget readings whose roll was answered some other way (a phone, a judge)."""
        live = {r.prefix for r in self.due()}
        self.pending = [p for p in self.pending if p.prefix in live or
                        (p.prefix.split()[2] == "diel" and any(r.prefix.split()[2] == "diel" for r in self.due()))]
