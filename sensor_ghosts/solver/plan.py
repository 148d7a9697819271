"""Plans: what the solver returns, turned from model records into engine turns.

``concretize`` undoes the lazy re-scan flips (see ``model``): for every row it
picks a final flip pattern in the row's set and walks the logged pattern-set
operations backwards; for each re-scan it finds a pattern in the set before and
a legal choice of that re-scan leading to the current one (one always exists,
the set after a re-scan being exactly the image of the set before). The choices
are the plan's re-scan flips. ``Plan.replay`` runs them through the rules
engine; ``solve`` replays every plan before returning it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from ..rules.engine import apply_turn
from ..rules.errors import SensorGhostsError
from ..rules.log import Event
from ..rules.setup import Deal
from ..rules.state import GameState, Status
from ..rules.turns import DECK_PLAYER, Action, ActionKind, Command, PlayedCard, Turn
from .model import FLIP, FLY, MASKS, PEEK, ROT, SHIELDS, SHIFT, Model, members
from .pattern_sets import pattern_columns

_KINDS = {FLY: ActionKind.FLY, PEEK: ActionKind.PEEK, FLIP: ActionKind.FLIP,
          SHIFT: ActionKind.SHIFT, SHIELDS: ActionKind.SHIELDS}


class PlanReplayError(SensorGhostsError):
    """A plan that does not win when replayed through the rules engine."""


@dataclass
class Figures:
    turns: int
    cards_played: int
    shields_spent: int
    cards_left: int

    def as_dict(self) -> dict:
        return {"turns": self.turns, "cards_played": self.cards_played,
                "shields_spent": self.shields_spent, "cards_left": self.cards_left}


OBJECTIVE_NOTES = {
    "turns": "optimal: fewest turns, then fewest cards",
    "cards": "optimal: fewest cards, then fewest turns",
    "turns-only": "fewest turns; cards not minimised",
}
"""What a plan is optimal for (``Plan.objective``), as the plan text, the
solution page and ``generate --solve`` say it."""


@dataclass
class Plan:
    """A winning line: ``start`` (the initial GameState, with ``deal``'s deck and
    ranking) and one ``Turn`` per turn."""

    start: GameState
    turns: list[Turn]
    deal: Deal
    mode: str = "deal"
    objective: str = "turns"
    """What the plan is optimal for (``api.OBJECTIVES``): 'turns-only' plans
    have the fewest turns but their cards were not minimised."""
    _cache: _Replay | None = field(default=None, init=False, repr=False, compare=False)

    def _replayed(self) -> _Replay:
        """The one pass of the turns through the engine that every reading
        shares (``replay``, ``states``, ``logs``, ``figures``)."""
        if self._cache is None:
            self._cache = _replay(self.start, self.turns)
        return self._cache

    @property
    def figures(self) -> Figures:
        """Turns, cards played, shields spent and cards left (worked out by
        ``replay``, or on first reading: one pass through the engine). A plan
        that turns out illegal counts its figures up to the illegal turn."""
        return self._replayed().figures

    def replay(self) -> list[GameState]:
        """Every state from the start to the win; raises ``PlanReplayError`` when a
        turn is illegal or the last state is not won. The states and the
        engine's account of each turn are kept (``states``, ``logs``)."""
        run = self._replayed()
        if run.illegal is not None:
            i, e = run.illegal
            raise PlanReplayError(f"turn {i} ({self.turns[i - 1]}) is illegal: {e}") from e
        if run.states[-1].outcome.status is not Status.WON:
            raise PlanReplayError(f"the plan does not win: {run.states[-1].outcome}")
        return run.states

    @property
    def states(self) -> list[GameState]:
        """Every state from the start to the win, as ``replay`` gave them (the
        engine runs once per plan); ``PlanReplayError`` as there."""
        return self.replay()

    @property
    def logs(self) -> list[list[Event]]:
        """What each turn did, as the rules engine told it during ``replay``
        (``rules.log``: cells entered and the sides met, samples, flips,
        shifts, pod moves, draws): one list of events per turn;
        ``PlanReplayError`` as there."""
        self.replay()
        assert self._cache is not None
        return self._cache.logs

    def to_text(self) -> str:
        f = self.figures
        lines = [
            f"plan ({self.mode} mode): {f.turns} turns, {f.cards_played} cards played, "
            f"{f.shields_spent} shields spent, {f.cards_left} cards left"
            + (f" ({OBJECTIVE_NOTES[self.objective]})" if self.objective == "turns-only" else ""),
            "deck: " + " ".join(self.deal.first_deck),
            "ranking: " + " ".join(self.deal.ranking),
        ]
        players = self.start.options.players
        for i, t in enumerate(self.turns):
            who = f" (player {(self.start.active + i) % players + 1})" if players > 1 else ""
            lines.append(f"{i + 1:2d}.{who} {t}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        players = self.start.options.players
        return {
            "mode": self.mode,
            "objective": self.objective,
            "figures": self.figures.as_dict(),
            "deal": {"deck": list(self.deal.first_deck), "ranking": list(self.deal.ranking)},
            "turns": [
                {
                    "turn": i + 1,
                    "player": (self.start.active + i) % players + 1,
                    "text": str(t),
                    "bolster": t.bolster,
                    "command": _cmd_json(t.command),
                    "second": _cmd_json(t.second),
                    "rescan": sorted(t.rescan),
                }
                for i, t in enumerate(self.turns)
            ],
        }

    def to_json_text(self) -> str:
        return json.dumps(self.to_json(), indent=2)


def _cmd_json(cmd: Command | None) -> dict | None:
    if cmd is None:
        return None
    a = cmd.action
    return {
        "cards": [{"card": pc.card, "player": "deck" if pc.player == DECK_PLAYER else pc.player + 1}
                  for pc in cmd.cards],
        "action": a.kind.value,
        "direction": a.direction.letter if a.direction else None,
        "target": list(a.target) if a.target else None,
        "row": a.row,
        "arrow": cmd.arrow.letter if cmd.arrow else None,
        "pod": cmd.pod_direction.letter if cmd.pod_direction else None,
    }


@dataclass
class _Replay:
    """A plan's turns played through the rules engine, up to the first illegal one."""

    states: list[GameState]
    logs: list[list[Event]]
    figures: Figures
    illegal: tuple[int, SensorGhostsError] | None
    """The first illegal turn (1-based) and the engine's reason, if any."""


def _replay(start: GameState, turns: list[Turn]) -> _Replay:
    """One pass of ``turns`` through the rules engine: the states, each turn's
    log and the figures, stopping at an illegal turn."""
    states = [start]
    logs: list[list[Event]] = []
    s = start
    played = spent = 0
    illegal = None
    for i, t in enumerate(turns, 1):
        played += sum(len(c.cards) for c in (t.command, t.second) if c is not None)
        trace: list = []
        log: list[Event] = []
        try:
            s = apply_turn(s, t, trace, log=log)
        except SensorGhostsError as e:
            illegal = (i, e)
            break
        states.append(s)
        logs.append(log)
        for cmd, before, after, _events in trace:
            if cmd.action.kind is ActionKind.FLY and after.shields < before.shields:
                spent += before.shields - after.shields
    left = sum(len(h) for h in s.hands) + len(s.deck)
    return _Replay(states, logs, Figures(len(turns), played, spent, left), illegal)


def concretize(model: Model, path: list, rotation: Callable[[int, bool], tuple] | None = None
               ) -> dict[int, frozenset[int]]:
    """Re-scan columns per turn index (1-based) from the lazy pattern sets.
    ``rotation(t, True)``: the rows' real rotation at the end of turn t, when
    deferred shifts make it differ from the model's (``shift_rotation``)."""
    choices: dict[int, frozenset[int]] = {}
    final = path[-1][0]
    ops_by_row: list[list] = [[] for _ in range(7)]
    for t in range(1, len(path)):
        rec = path[t][1]
        for r, kind, arg, before in rec[5]:
            if kind in ("xor", "keep", "rescan"):
                ops_by_row[r].append((t, kind, arg, before))
    for r in range(7):
        m = members(final[MASKS][r])[0]
        for t, kind, arg, before in reversed(ops_by_row[r]):
            if kind == "xor":
                m ^= 1 << arg
            elif kind == "rescan":
                found = None
                for m0 in members(before):
                    for p in model.rescan_choices(r, m0, arg):
                        if m0 ^ p == m:
                            found = (m0, p)
                            break
                    if found:
                        break
                assert found is not None, "lazy re-scan set without a predecessor"
                m0, p = found
                rot = path[t][0][ROT] if rotation is None else rotation(t, True)
                cols = pattern_columns(rot[r], p)
                choices[t] = cols
                m = m0
            assert (before >> m) & 1, "pattern not in the set before the operation"
        assert m == 0, "the row's start pattern must be the start"
    return choices


def pending_shift_targets(path: list) -> tuple[dict, list]:
    """Rows for the deferred Deep Scan shifts (``Model.enter_row``):
    {(turn, command 1|2): row0}, and each one's (row0, turn made, turn it was
    applied in, or None: a row the ship never entered again). Replays the
    pending-shift log; the entries are in the model's order (by the rows
    they may no longer shift) at the start of each turn."""
    ents: list[list] = []  # [rows blocked, (turn, command)]
    targets: dict[tuple[int, int], int] = {}
    spans: list[tuple] = []
    for t in range(1, len(path)):
        rec = path[t][1]
        ents.sort(key=lambda e: e[0])
        slots = [i for i, c in ((1, rec[1]), (2, rec[2])) if c is not None and c[1] == (SHIFT, None)]
        for r, kind, arg, _extra in rec[5]:
            if kind == "snew":
                ents.append([arg, (t, slots.pop(0))])
            elif kind == "sapply":
                e = ents.pop(arg)
                targets[e[1]] = r
                spans.append((r, e[1][0], t))
            elif kind == "sobs":
                for e in ents:
                    e[0] |= arg
    for blocked, ref in ents:
        free = [r for r in range(7) if not (blocked >> r) & 1]
        if not free:  # pragma: no cover - the model drops such branches
            raise PlanReplayError("no row left for a deferred Deep Scan shift")
        targets[ref] = free[0]
        spans.append((free[0], ref[0], None))
    return targets, spans


def shift_rotation(path: list, spans: list) -> Callable[[int, bool], tuple]:
    """The rows' real rotation before turn t's command (``end`` False) or
    at its end (True), from the model's and the deferred shifts
    (``pending_shift_targets``' spans): a shift made on turn t0 and applied
    by the model on turn t2 (None: never) turned its row in between."""

    def rotation(t: int, end: bool) -> tuple:
        rot = list(path[t][0][ROT] if end else path[t - 1][0][ROT])
        for r, t0, t2 in spans:
            made = t0 <= t if end else t0 < t
            if made and (t2 is None or t2 > t):
                rot[r] = (rot[r] + 1) % 5
        return tuple(rot)

    return rotation


def pending_targets(model: Model, path: list) -> dict[tuple[int, int], tuple[int, int]]:
    """Cards for the deferred Deep Scan flips: {(turn, command 1|2): (row0, j)}.
    Replays the pending-flip log (see ``Model.observe``)."""
    pend: list[list] = []  # [mask, ref, new this turn]
    targets: dict[tuple[int, int], tuple[int, int]] = {}
    chosen_by_turn: dict[int, set] = {}
    for t in range(1, len(path)):
        rec = path[t][1]
        pend.sort(key=lambda e: e[0])
        for e in pend:
            e[2] = False
        slots = [i for i, c in ((1, rec[1]), (2, rec[2])) if c is not None and c[1] == (FLIP, None)]
        for r, kind, arg, extra in rec[5]:
            if kind == "pnew":
                pend.append([0, (t, slots.pop(0)), True])
            elif kind == "pobs":
                for e in pend:
                    e[0] |= arg
            elif kind == "papply":
                e = pend.pop(arg)
                targets[e[1]] = (r, extra)
                chosen_by_turn.setdefault(e[1][0], set()).add((r, extra))
            elif kind == "prow":
                for e in pend:
                    if e[2]:
                        e[0] |= arg
        for _which, c in ((1, rec[1]), (2, rec[2])):
            if c is not None and c[1][0] == FLIP and c[1][1] is not None:
                chosen_by_turn.setdefault(t, set()).add(c[1][1])
    for mask, ref, _ in pend:
        used = chosen_by_turn.setdefault(ref[0], set())
        for r in range(7):
            for j in model.flip_idx[r]:
                if not (mask >> (r * 5 + j)) & 1 and (r, j) not in used:
                    targets[ref] = (r, j)
                    used.add((r, j))
                    break
            if ref in targets:
                break
        if ref not in targets:
            raise PlanReplayError("no card left for a deferred Deep Scan flip")
    return targets


class _Cards:
    """Concrete card ids for a path of type tokens (open/expected modes) or card
    tokens (deal mode), and the deal that realises it."""

    def __init__(self, model: Model, start: GameState, dealt: tuple | None):
        self.m = model
        self.hands = [list(h) for h in start.hands]
        self.pool = list(start.deck)  # the pile currently drawn from
        self.order: list[str] = []  # draws from that pile, in order
        self.first_order: list[str] | None = None
        self.first_pool_rest: list[str] = []
        self.discard = [e.card for e in start.discard]
        self.second = start.second_pass
        self.wild = start.setup.command_cards.wild.id
        if dealt is not None:
            # Open mode from a fresh setup: the solver deals the opening hands.
            self.pool = [c for h in start.hands for c in h] + list(start.deck)
            self.hands = [[] for _ in start.hands]
            for i in range(model.limit):
                for p, types in enumerate(dealt):
                    self.hands[p].append(self._take(self.pool, types[i]))

    def _pick(self, cards: list[str], tok: int) -> str:
        for c in cards:
            if self.m.tok_of_card[c] == tok:
                return c
        raise AssertionError(f"no card of token {tok} in {cards}")

    def _take(self, pool: list[str], tok: int) -> str:
        c = self._pick(pool, tok)
        pool.remove(c)
        self.order.append(c)
        return c

    def reshuffle(self) -> None:
        self.first_order = self.order
        self.first_pool_rest = self.pool
        self.pool = self.discard + [self.wild]
        self.order = []
        self.discard = []
        self.second = True

    def command(self, rec: tuple) -> Command:
        order, act, arrow, pd, pos, resh = rec
        if resh:
            self.reshuffle()
        cards = []
        for tok, player in order:
            if player == -1:
                cards.append(PlayedCard(self._take(self.pool, tok), DECK_PLAYER))
            else:
                c = self._pick(self.hands[player], tok)
                self.hands[player].remove(c)
                cards.append(PlayedCard(c, player))
        self.discard += [pc.card for pc in cards]
        kind = _KINDS[act[0]]
        if kind in (ActionKind.FLY, ActionKind.PEEK):
            action = Action(kind, direction=act[1])
        elif kind is ActionKind.FLIP:
            action = Action(kind, target=pos)
        elif kind is ActionKind.SHIFT:
            action = Action(kind, row=pos)
        else:
            action = Action(kind)
        return Command(tuple(cards), action, arrow, pd)

    def draw(self, player: int, drawn: tuple) -> None:
        for tok in drawn:
            if tok == "R":
                self.reshuffle()
            else:
                self.hands[player].append(self._take(self.pool, tok))

    def deal(self, start: GameState) -> Deal:
        if self.first_order is None:
            first = self.order + self.pool
            second_first: list[str] = []
        else:
            first = self.first_order + self.first_pool_rest
            second_first = self.order + self.pool
        all_cards = list(start.ranking) or list(self.m.card_ids)
        ranking = second_first + [c for c in all_cards if c not in second_first]
        return Deal(tuple(first), tuple(ranking))


def dealt_of(path: list) -> tuple | None:
    """The opening hands an open-mode search dealt at the root of ``path``
    (its record ('deal', hands)); None when it started from dealt hands."""
    rec = path[0][1]
    return rec[1] if isinstance(rec, tuple) and rec[0] == "deal" else None


def build_plan(
    model: Model, path: list, mode: str, dealt: tuple | None = None, deal: Deal | None = None
) -> Plan:
    """Engine turns for a model path [(state, record)] (record None at the root)."""
    start = model.start
    rotation = None
    shifts: dict = {}
    if model.pending_shifts:
        shifts, spans = pending_shift_targets(path)
        if spans:
            rotation = shift_rotation(path, spans)
    flips = concretize(model, path, rotation) if model.lazy else {}
    pending = pending_targets(model, path) if model.pending_ok else {}
    cards = _Cards(model, start, dealt)
    turns = []
    active = start.active
    for t in range(1, len(path)):
        bolster, rec1, rec2, drawn, cols, _ = path[t][1]
        rot = None if rotation is None else rotation(t, False)
        c1 = cards.command(_resolve(rec1, pending, shifts, rot, t, 1)) if rec1 is not None else None
        c2 = cards.command(_resolve(rec2, pending, shifts, rot, t, 2)) if rec2 is not None else None
        cards.draw(active, drawn)
        resc = cols if cols is not None else flips.get(t, frozenset())
        turns.append(Turn(c1, bolster, c2, resc))
        active = (active + 1) % model.players
    if mode == "deal":
        plan_start = start
        if deal is None:
            deal = Deal(tuple(start.deck), tuple(start.ranking))
    else:
        deal = cards.deal(start)
        if dealt is not None:
            from ..rules.state import initial_state

            plan_start = initial_state(start.setup, deal)
        else:
            plan_start = start.evolve(deck=tuple(deal.first_deck), ranking=deal.ranking)
    return Plan(plan_start, turns, deal, mode)


def _resolve(rec: tuple, pending: dict, shifts: dict, rot: tuple | None, t: int, which: int) -> tuple:
    """A command record with a deferred Deep Scan's target filled in, and a
    flip's column from ``rot``, the rows' real rotation before it (None: the
    model's), when deferred shifts make them differ."""
    order, act, arrow, pd, pos, resh = rec
    if act == (FLIP, None):
        r, j = pending[(t, which)]
        rot = rot or pos
        return (order, (FLIP, (r, j)), arrow, pd, (r + 1, (j - rot[r]) % 5 + 1), resh)
    if act == (SHIFT, None):
        r = shifts[(t, which)]
        return (order, (SHIFT, r), arrow, pd, r + 1, resh)
    if act[0] == FLIP and rot is not None:
        r, j = act[1]
        return (order, act, arrow, pd, (r + 1, (j - rot[r]) % 5 + 1), resh)
    return rec
