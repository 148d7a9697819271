"""The hint engine: the best next command from what a player can see (RULES.md
§14), and the chance of winning with it.

The game is cooperative, so everything hidden is chance (the down sides of
unseen cards, the face-down tokens, the deck order, the other players' hands),
revealed by what the players do. The engine searches one turn deep over that
chance and values what follows with the exact solver, honestly:

1. **Worlds.** Hidden worlds are drawn uniformly among those consistent with the
   observation (exact counting, ``solver/worlds.py``). The same worlds serve
   every candidate (common random numbers).
2. **Candidates.** The commands that the exact solver's plans start with in a
   few *near-careful* worlds (below), every Fly that enters an unseen card (a
   gamble the near-careful worlds never take), the Peeks towards unseen cards,
   and Shields: one candidate per command effect, its cheapest cards. A
   command that loses at once whatever the hidden cards are is never a
   candidate while another one exists.
3. **Value.** A candidate is played in each world as the world truly is (so an
   unseen card it enters is met as the chance of the card set has it), the
   re-scan chosen from what the player has seen, and the position reached is
   solved exactly in its *near-careful* version: every down side the players
   have not seen in the ship's row and the row ahead counts as Obstructed (the
   ship will meet those before any re-scan shows them, so a plan may not count
   on them), while the rows two or more ahead keep the world's truth (each
   re-scan shows two of their cards before the ship gets there). The deck order
   is the world's. A world scores 1 when that solve wins, 0 when it cannot.
   This is a one-step look-ahead over the real chance of the next command on
   top of a careful continuation, so it values a Peek or a Deep Scan by what
   it shows, and a blind step by the odds of the card set.
4. **Choice.** Successive halving over the candidates (every candidate in the
   first worlds, the better half in more), then the best mean, fewer turns
   breaking ties.
5. **The chance** printed is the hinted command's share of won worlds, with a
   Wilson 95 % interval over the worlds it was valued in, both mapped to the
   win rate that such estimates had in games (``calibration.py``).
6. **The re-scan** is chosen after the command's result is seen: ``Hint``
   holds one re-scan per outcome seen in the worlds (the hinted turn carries
   the likeliest), and ``rescan_hint`` answers for the outcome that happened.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..rules.cards import SectorCard, SectorType, Side
from ..rules.commands import legal_commands
from ..rules.deck import draw_up
from ..rules.engine import apply_turn, command_phases, execute, pod_moves_after_first
from ..rules.errors import SensorGhostsError
from ..rules.geometry import EARTH, Pos, on_grid, peek_cells
from ..rules.observation import Observation, observe
from ..rules.rescan import rescan, rescan_choices
from ..rules.setup import Slot
from ..rules.state import GameState, Status
from ..rules.turns import DECK_PLAYER, ActionKind, Command, PlayedCard, Turn
from ..solver import compiled
from ..solver.api import solve
from ..solver.plan import Plan
from ..solver.worlds import WorldSampler, down_side_marginals
from .calibration import calibrated

__all__ = [
    "Hint",
    "HintError",
    "GameOverObservation",
    "command_key",
    "hint",
    "near_careful",
    "rescan_hint",
    "wilson",
]

NEAR_ROWS = 1
"""Rows ahead of the ship (besides its own) whose unseen down sides the
continuation may not count on: the re-scan flips cards two rows ahead, so the
row ahead is met before a re-scan shows anything more of it."""
SOLVE_NODES = 800
"""Node budget of one continuation solve (a node is a turn expanded): a
near-careful position from the dock is solved in a few hundred."""
SOLVE_SECONDS = 0.12
"""Time cap of one continuation solve."""
TURN_WEIGHT = 0.004
"""A won world's score drops by this per turn its plan needs, so that among
equally safe commands the faster one is hinted (a win always outscores a loss)."""


class HintError(SensorGhostsError, ValueError):
    """A hint cannot be given for this observation (not the active player's, ...)."""


class GameOverObservation(HintError):
    """A hint was asked for a finished game."""


# ----------------------------------------------------------------------------
# Statistics
# ----------------------------------------------------------------------------


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / den
    return max(0.0, centre - half), min(1.0, centre + half)


# ----------------------------------------------------------------------------
# The continuation: a world solved with the near rows taken at their worst
# ----------------------------------------------------------------------------


def near_careful(world: GameState, near: int = NEAR_ROWS) -> GameState:
    """``world`` with every down side the players have not seen, in the ship's
    row and the ``near`` rows ahead of it, turned Obstructed (the worst a card
    can be to enter, §5); rows farther ahead keep the world's truth."""
    last = (world.ship_row if world.ship != EARTH else 7) + near
    grid = []
    for r, row in enumerate(world.grid, 1):
        if r > last:
            grid.append(row)
            continue
        cells = []
        for cell in row:
            if isinstance(cell, Slot) and not cell.card.start and cell.card.id not in world.seen:
                c = cell.card
                card = (
                    SectorCard(c.id, c.front, SectorType.OBSTRUCTED)
                    if cell.up is Side.FRONT
                    else SectorCard(c.id, SectorType.OBSTRUCTED, c.back)
                )
                cell = Slot(card, cell.up, cell.sample)
            cells.append(cell)
        grid.append(tuple(cells))
    return world.evolve(grid=tuple(grid))


@dataclass
class _Outcome:
    """One world's valuation of a candidate: the chance that a player who can
    not see this world's hidden cards wins along the best plan found."""

    chance: float
    turns: int | None  # turns to the win, this one included
    blind: int = 0
    """Unseen cards the plan enters (each a gamble at the card set's odds)."""

    @property
    def won(self) -> bool:
        return self.chance > 0

    @property
    def score(self) -> float:
        return self.chance * (1.0 - TURN_WEIGHT * (self.turns or 0))


SafeOdds = dict[str, dict[str, float]]
"""Card id (in one world) -> the down side's odds as the player knows them now."""


def plan_survival(plan: Plan, odds: SafeOdds) -> tuple[float, int]:
    """The chance that the plan's route survives for a player who does not know
    this world: the product, over the cards the plan enters while their down
    side is unseen (by then: a peek, flip or re-scan on the way counts), of the
    odds that the side met is not fatal there (an Asteroid is survived at 2
    shields; a Boost only where the next cell can be entered)."""
    state = plan.start
    p, blind = 1.0, 0
    for turn in plan.turns:
        trace: list = []
        nxt = apply_turn(state, turn, trace)
        for cmd, before, after in trace:
            a = cmd.action
            if a.kind is not ActionKind.FLY or a.direction is None:
                continue
            new = after.seen - before.seen
            if not new.intersection(odds):
                continue
            shields = before.shields
            pos = before.ship
            while True:  # walk the cells entered, in order
                pos = a.direction.step(pos)
                cell = before.cell(pos) if on_grid(pos) else None
                if not isinstance(cell, Slot):
                    break
                cid = cell.card.id
                m = odds.get(cid) if cid in new else None
                if m is not None:
                    blind += 1
                    nxt_cell = a.direction.step(pos)
                    boost_ok = nxt_cell == EARTH or (on_grid(nxt_cell) and isinstance(before.cell(nxt_cell), Slot))
                    safe = (m.get("E", 0.0) + (m.get("B", 0.0) if boost_ok else 0.0)
                            + (m.get("A", 0.0) if shields == 2 else 0.0))
                    p *= safe
                met = after.cell(pos)
                if isinstance(met, Slot) and met.face is SectorType.ASTEROID:
                    shields = 0
                if pos == after.ship:
                    break
        state = nxt
    return p, blind


CONTINUATION_ROWS = (3, 1)
"""The ``near_careful`` worlds solved for a continuation, in this order: a
plan that must see three rows ahead gambles less, one that must see one row
ahead fits the deck more often."""


def continuation(state: GameState, odds: SafeOdds, *, deadline: float,
                 nodes: int = SOLVE_NODES) -> _Outcome:
    """The best chance found from ``state`` (a world at the start of a turn).

    Plans solved exactly in ``near_careful`` versions of this world (the cards
    they may not count on taken as Obstructed), each valued by
    ``plan_survival``: the chance that its route survives the unseen cards it
    still enters. The better one counts; a plan that enters no unseen card
    is the best there is."""
    if state.is_over:
        return _Outcome(float(state.outcome.status is Status.WON), 0)
    best = _Outcome(0.0, None)
    for rows in CONTINUATION_ROWS:
        try:
            res = solve(near_careful(state, rows), mode="deal", objective="turns-only",
                        max_nodes=nodes, timeout=_timeout(deadline, SOLVE_SECONDS))
        except SensorGhostsError:
            continue
        if res.status != "solved" or res.plan is None:
            continue
        plan = Plan(state, res.plan.turns, res.plan.deal, objective=res.plan.objective)
        chance, blind = plan_survival(plan, odds)
        out = _Outcome(chance, res.turns, blind)
        if out.score > best.score:
            best = out
        break  # the first plan found stands: time is for more worlds
    return best


def world_odds(world: GameState, marginals: dict[Pos, dict[str, float]]) -> SafeOdds:
    """``down_side_marginals`` (by position, as the player sees the table now)
    keyed by the card ids of one world."""
    out: SafeOdds = {}
    for pos, m in marginals.items():
        cell = world.cell(pos)
        if isinstance(cell, Slot):
            out[cell.card.id] = m
    return out


def _timeout(deadline: float, cap: float) -> float | None:
    """A solve's time limit: ``cap`` or what is left; none without a budget
    (then node limits alone bound the work, and the answer is deterministic)."""
    if deadline == math.inf:
        return None
    return max(0.005, min(cap, deadline - time.perf_counter()))


# ----------------------------------------------------------------------------
# Commands: grouped by effect, played in a world
# ----------------------------------------------------------------------------


def command_key(state: GameState, cmd: Command | None) -> tuple | None:
    """What a command does, up to interchangeable cards: the kinds of the cards
    played (with pod values under the escape pod, and whether one comes from
    the deck [D18]), the top card's kind, the action, the heading it leaves
    [D11] and the pod's direction (§10). Cards of one kind are interchangeable
    to a player who cannot see the deck order: the reshuffle's ranking is
    uniformly random [D22]."""
    if cmd is None:
        return None
    pod = state.pod is not None

    def kind(pc: PlayedCard) -> tuple:
        card = state.card(pc.card)
        return (card.kind.value, card.pod_value if pod else 0, pc.player == DECK_PLAYER,
                pc.player == state.active)

    return (tuple(sorted(kind(pc) for pc in cmd.cards)), kind(cmd.top), cmd.action, cmd.arrow,
            cmd.pod_direction)


def turn_key(state: GameState, turn: Turn) -> tuple:
    """A turn's command effect, its re-scan left out."""
    return (turn.bolster, command_key(state, turn.command), command_key(state, turn.second))


def commands(state: GameState) -> dict[tuple, Turn]:
    """Every command effect the active player can choose (bolster, command, a
    second action), each as a turn without its re-scan."""
    if not state.hands[state.active]:
        return {(0, None, None): Turn(None)}
    out: dict[tuple, Turn] = {}
    for bolster in range(state.held + 1):
        s0 = state.evolve(shields=min(2, state.shields + bolster), held=state.held - bolster)
        if s0.options.second_action:
            for cmd, cmd2, _s, _f in command_phases(s0):
                t = Turn(cmd, bolster, cmd2)
                out.setdefault(turn_key(state, t), t)
            continue
        for cmd in legal_commands(s0):  # (no need to play them out)
            t = Turn(cmd, bolster)
            out.setdefault(turn_key(state, t), t)
    return out


def in_world(world: GameState, turn: Turn) -> Turn | None:
    """``turn`` with the cards other players lend it taken from their hands in
    ``world`` (a card of the same kind and pod value), or None where a partner
    holds none there: the player cannot see the other hands (§14)."""
    if world.options.players == 1 or turn.command is None:
        return turn
    taken: set[str] = set()

    def remap(cmd: Command | None) -> Command | None | bool:
        if cmd is None:
            return None
        cards = []
        for pc in cmd.cards:
            if pc.player in (world.active, DECK_PLAYER):
                cards.append(pc)
                continue
            want = world.card(pc.card)
            pick = next((c for c in world.hands[pc.player] if c not in taken
                         and world.card(c).kind is want.kind
                         and world.card(c).pod_value == want.pod_value), None)
            if pick is None:
                return False
            taken.add(pick)
            cards.append(PlayedCard(pick, pc.player))
        return Command(tuple(cards), cmd.action, cmd.arrow, cmd.pod_direction)

    c1 = remap(turn.command)
    c2 = remap(turn.second)
    if c1 is False or c2 is False:
        return None
    return Turn(c1, turn.bolster, c2, turn.rescan)  # type: ignore[arg-type]


def after_command(state: GameState, turn: Turn) -> tuple[GameState, frozenset[int]]:
    """Steps 1-4 of ``turn`` (bolster, command(s), draw) in a world: the state the
    re-scan is chosen in, and the cards flipped by choice so far [D23]."""
    s = state.evolve(shields=min(2, state.shields + turn.bolster), held=state.held - turn.bolster)
    flipped: frozenset[int] = frozenset()
    if turn.command is not None:
        pod1 = pod_moves_after_first(s, turn.second is not None)
        s, flipped = execute(s, _deck_card(s, turn.command), flipped, pod_moves=pod1)
    if turn.second is not None and not s.is_over:
        s = s.evolve(held=s.held - 1)
        s, flipped = execute(s, _deck_card(s, turn.second), flipped)
    if not s.is_over:
        s = draw_up(s)
    return s, flipped


def _deck_card(state: GameState, cmd: Command) -> Command:
    """[D18] The deck's card in a two-player wild is whatever lies on top in this world."""
    if all(pc.player != DECK_PLAYER for pc in cmd.cards) or not state.deck:
        return cmd
    cards = tuple(PlayedCard(state.deck[0], DECK_PLAYER) if pc.player == DECK_PLAYER else pc
                  for pc in cmd.cards)
    return Command(cards, cmd.action, cmd.arrow, cmd.pod_direction)


def finish(state: GameState, flipped: frozenset[int], cols: frozenset[int]) -> GameState:
    """Step 5 (the re-scan) and the hand-over, as the engine does it."""
    if state.is_over:
        return state
    state = rescan(state, cols, flipped)
    return state.evolve(turn=state.turn + 1, active=(state.active + 1) % state.options.players)


def _meets_if_entered(state: GameState, pos: tuple[int, int]) -> float:
    """How good a card of the row two ahead is to enter as the players know it:
    1 safe, 0 deadly, 0.5 unknown (entering meets the down side)."""
    cell = state.cell(pos)
    if not isinstance(cell, Slot):
        return 0.0
    if not (cell.card.start or cell.card.id in state.seen):
        return 0.5
    d = cell.down
    return 1.0 if d in (SectorType.EMPTY, SectorType.BOOST) else 0.25 if d is SectorType.ASTEROID else 0.0


def quick_rescan(state: GameState, flipped: frozenset[int]) -> frozenset[int]:
    """A re-scan chosen from what the player knows, for the valuation of
    candidates: flip the cards that become better to enter (a flipped card's
    new down side is its face, which everyone saw), nearer the ship first."""
    choices = rescan_choices(state, flipped)
    if len(choices) <= 1:
        return choices[0] if choices else frozenset()
    from ..rules.rescan import rescan_row

    row = rescan_row(state)
    assert row is not None
    col = state.ship[1] if 1 <= state.ship[1] <= 5 else 1

    def gain(c: int) -> float:
        cell = state.cell((row, c))
        if not isinstance(cell, Slot):
            return -1.0
        f = cell.face
        after = 1.0 if f in (SectorType.EMPTY, SectorType.BOOST) else 0.25 if f is SectorType.ASTEROID else 0.0
        # Unseen cards are worth flipping for what they show, too.
        info = 0.3 if not (cell.card.start or cell.card.id in state.seen) else 0.0
        return after - _meets_if_entered(state, (row, c)) + info - 0.05 * abs(c - col)

    gains = {c: gain(c) for c in set().union(*choices)}
    return max(choices, key=lambda ch: (sum(gains[c] for c in ch), -min(ch, default=0)))


# ----------------------------------------------------------------------------
# Candidates
# ----------------------------------------------------------------------------


@dataclass
class Candidate:
    key: tuple
    turn: Turn
    why: str
    scores: list[float] = field(default_factory=list)
    chances: list[float] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    outcomes: dict[tuple, list[int]] = field(default_factory=dict)
    """Outcome signature -> indexes of the worlds that produced it."""

    @property
    def n(self) -> int:
        return len(self.scores)

    @property
    def mean(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else -1.0

    @property
    def chance(self) -> float:
        return sum(self.chances) / len(self.chances) if self.chances else 0.0


CARD_COST = {"fly": 1.0, "shields": 1.05, "deep-scan": 1.2, "wild": 3.0}


def _cost(state: GameState, turn: Turn) -> float:
    c = 0.1 * turn.bolster
    for cmd in (turn.command, turn.second):
        if cmd is not None:
            c += sum(CARD_COST.get(state.kind(pc.card).value, 1.0) for pc in cmd.cards)
    return c


def _effect(turn: Turn) -> tuple:
    def one(cmd: Command | None) -> tuple | None:
        return None if cmd is None else (cmd.action, cmd.pod_direction)

    return (turn.bolster, one(turn.command), one(turn.second))


def cheapest(state: GameState, options: dict[tuple, Turn]) -> dict[tuple, Turn]:
    """For each effect (bolster, actions, pod direction) the command with the
    cheapest cards (the Wild dearest; a heading left is part of the effect only
    through which cards are spent)."""
    best: dict[tuple, tuple[float, tuple, Turn]] = {}
    for k, t in options.items():
        e = _effect(t)
        c = _cost(state, t)
        if e not in best or c < best[e][0]:
            best[e] = (c, k, t)
    return {k: t for _c, k, t in best.values()}


def _unseen(state: GameState, pos: tuple[int, int]) -> bool:
    cell = state.cell(pos) if 1 <= pos[0] <= 7 and 1 <= pos[1] <= 5 else None
    return isinstance(cell, Slot) and not cell.card.start and cell.card.id not in state.seen


def surely_lost(world: GameState, turn: Turn) -> bool:
    """Does ``turn`` end the game in a loss at once however the hidden cards lie?
    Tried with every unseen down side Empty, the kindest world (a Boost could
    carry the ship into worse)."""
    from ..solver.worlds import with_unseen_down_sides

    kind = with_unseen_down_sides(world, SectorType.EMPTY)
    s, _ = after_command(kind, turn)
    return s.is_over and s.outcome.status is not Status.WON


# ----------------------------------------------------------------------------
# The answer
# ----------------------------------------------------------------------------


@dataclass
class Hint:
    """The hinted command, its chance, and the re-scan for each outcome."""

    best: Turn
    """The hinted turn: the command, with the re-scan for its likeliest outcome."""
    win: float
    """The estimated chance to win with this command and good play after it."""
    low: float
    high: float
    worlds: int
    """Worlds the hinted command was valued in (the interval's sample size)."""
    reason: str
    rescans: list[tuple[str, float, frozenset[int]]] = field(default_factory=list)
    """(outcome described, its probability, the re-scan columns) per outcome."""
    runner_up: Turn | None = None
    runner_up_win: float | None = None
    candidates: int = 0
    commands: int = 0
    seconds: float = 0.0
    method: str = ""
    raw_win: float = 0.0
    """The estimate before calibration."""
    careful: bool = False
    """The command keeps to a careful route: its outcome is certain, and so is
    the re-scan that goes with it."""

    def __str__(self) -> str:
        lines = [f"best: {self.best}"]
        lines.append(
            f"  win ≈ {self.win:.0%} (95% interval {self.low:.0%}-{self.high:.0%}; "
            f"valued in {self.worlds} sampled worlds)"
        )
        lines.append(f"  why: {self.reason}")
        if len(self.rescans) > 1:
            lines.append("  re-scan after the command, by what happens:")
            for label, p, cols in self.rescans:
                lines.append(f"    {label} ({p:.0%}): {_cols(cols)}")
        if self.runner_up is not None:
            extra = "" if self.runner_up_win is None else f" (win ≈ {self.runner_up_win:.0%})"
            lines.append(f"runner-up: {self.runner_up}{extra}")
        lines.append(f"({self.commands} commands, {self.candidates} weighed, {self.seconds:.2f}s; "
                     f"{self.method})")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "best": str(self.best),
            "win": round(self.win, 4),
            "ci95": [round(self.low, 4), round(self.high, 4)],
            "raw_win": round(self.raw_win, 4),
            "worlds": self.worlds,
            "reason": self.reason,
            "rescans": [{"outcome": lab, "probability": round(p, 4), "columns": sorted(c)}
                        for lab, p, c in self.rescans],
            "runner_up": None if self.runner_up is None else str(self.runner_up),
            "runner_up_win": None if self.runner_up_win is None else round(self.runner_up_win, 4),
            "candidates": self.candidates,
            "commands": self.commands,
            "seconds": round(self.seconds, 3),
            "method": self.method,
        }


def _cols(cols: frozenset[int]) -> str:
    return "flip columns " + ",".join(map(str, sorted(cols))) if cols else "nothing to flip"


def _signature(s: GameState, player: int) -> tuple:
    """What the player sees after a command: enough to tell outcomes apart."""
    o = observe(s, player)
    return (o.ship, o.shields, o.held, o.outcome.status, o.grid)


def _label(s: GameState, before: GameState) -> str:
    """An outcome as the player sees it: where the ship is, and what was revealed."""
    if s.is_over:
        return str(s.outcome)
    from ..rules.geometry import format_pos

    where = f"ship at {format_pos(s.ship)}" if s.ship != EARTH else "ship at Earth"
    new = s.seen - before.seen
    shown = [f"{format_pos((r, c))} {cell.face.value}/{cell.down.value}"
             for r, row in enumerate(s.grid, 1) for c, cell in enumerate(row, 1)
             if isinstance(cell, Slot) and cell.card.id in new]
    return where + (" (now known, up/down: " + ", ".join(shown) + ")" if shown else "")


def hint(
    observation: Observation,
    *,
    budget: float | None = 2.0,
    seed: int = 0,
    worlds: int = 24,
) -> Hint:
    """The best next command for ``observation``'s player, from what they can see.

    ``budget``: seconds (None: a fixed amount of work, ``worlds`` worlds per
    finalist, deterministic for ``seed``). Raises ``InconsistentObservationError``
    for an impossible observation, ``GameOverObservation`` for a finished game."""
    t0 = time.perf_counter()
    if observation.outcome.status is not Status.ONGOING:
        raise GameOverObservation(f"the game is over ({observation.outcome})")
    if observation.active != observation.player:
        raise HintError("hints are for the active player (the observation is another player's)")
    sampler = WorldSampler(observation)
    rng = random.Random(seed)
    n_worlds = max(worlds, 8)
    ws = [sampler.sample(rng) for _ in range(n_worlds)]
    t0 += compiled.load_for(ws[0])  # outside the budget (``compiled``)
    deadline = math.inf if budget is None else t0 + budget
    player = observation.player

    base = ws[0]
    options = commands(base)
    # With more players a partner's cards are sampled like the deck: a
    # command they lend cards to is played in each world with that world's
    # cards of the same kind, and counts as lost where the partner has none.
    per_world = _PerWorld(ws)
    n_commands = len(options)
    pool = cheapest(base, options)
    alive_pool = {k: t for k, t in pool.items() if not surely_lost(base, t)} or pool

    # --- careful plans: a route that never enters an unseen card ------------
    careful = _careful_plans(ws, alive_pool, t0, deadline, budget)
    tried = len(careful)
    found = [(i, p) for i, p in careful if p is not None]
    if found and len(found) * 2 >= tried:
        return _careful_hint(observation, ws, found, tried, alive_pool, n_commands, t0)

    by_effect = {_effect(t): k for k, t in alive_pool.items()}
    cands: dict[tuple, Candidate] = {}

    def add(k: tuple, why: str) -> None:
        if k in alive_pool and k not in cands:
            cands[k] = Candidate(k, alive_pool[k], why)

    # (a) The first commands of near-careful plans in a few worlds.
    propose_until = t0 + 0.25 * (deadline - t0) if budget is not None else math.inf
    for w in ws[:4]:
        if time.perf_counter() > propose_until and cands:
            break
        res = solve(near_careful(w), mode="deal", objective="turns-only", max_nodes=SOLVE_NODES,
                    timeout=_timeout(deadline, SOLVE_SECONDS))
        if res.status == "solved" and res.plan is not None and res.plan.turns:
            # The plan's own cards may not be the cheapest for its effect.
            k = by_effect.get(_effect(res.plan.turns[0]))
            if k is not None:
                add(k, "plan")
    # (b) Gambles, looks and shields the near-careful plans never take.
    ship = observation.ship
    for k, t in sorted(alive_pool.items(), key=lambda kt: _cost(base, kt[1])):
        cmd = t.command
        if cmd is None or t.second is not None or len(cmd.cards) > 2:
            continue  # (a wild's three cards only where a plan asks for them)
        a = cmd.action
        if a.kind is ActionKind.FLY and a.direction is not None:
            if _unseen(base, a.direction.step(ship)):
                add(k, "gamble")
        elif a.kind is ActionKind.PEEK and a.direction is not None:
            if t.bolster == 0 and any(_unseen(base, p) for p in peek_cells(ship, a.direction)):
                add(k, "peek")
        elif a.kind is ActionKind.SHIELDS and observation.shields < 2 and t.bolster == 0:
            add(k, "shields")
    if not cands:  # nothing proposed in time: the cheapest commands
        for k in sorted(alive_pool, key=lambda k: _cost(base, alive_pool[k]))[:4]:
            add(k, "cheap")
    cand_list = list(cands.values())

    marginals = down_side_marginals(observation)
    odds = [world_odds(w, marginals) for w in ws]

    # Successive halving over the worlds.
    def value(c: Candidate, i: int) -> None:
        w = ws[i]
        t = per_world.turn(i, c.turn)
        if t is None:
            c.scores.append(0.0)
            c.chances.append(0.0)
            return
        s, flipped = after_command(w, t)
        c.outcomes.setdefault(_signature(s, player), []).append(i)
        if not s.is_over:
            s = finish(s, flipped, quick_rescan(s, flipped))
        out = continuation(s, odds[i], deadline=deadline)
        c.scores.append(out.score)
        c.chances.append(out.chance)
        if out.won and out.turns is not None:
            c.turns.append(out.turns + 1)

    alive = cand_list
    i = 0
    schedule = [(4, 8), (10, 4), (16, 2)]
    stage = 0
    while i < len(ws):
        if time.perf_counter() > deadline and all(c.n for c in alive):
            break
        for c in alive:
            if time.perf_counter() > deadline and c.n >= 1 and all(x.n for x in alive):
                break
            if c.n == i:
                value(c, i)
        if any(c.n <= i for c in alive):
            break  # out of time within the round
        i += 1
        if stage < len(schedule) and i >= schedule[stage][0]:
            alive.sort(key=lambda c: c.mean, reverse=True)
            alive = alive[: schedule[stage][1]]
            stage += 1
        if budget is None and i >= len(ws):
            break
        if i >= len(ws) and time.perf_counter() < deadline - 0.05:
            # More worlds while time is left, for the finalists.
            ws.append(sampler.sample(rng))
            odds.append(world_odds(ws[-1], marginals))
        if len(ws) > 400:
            break

    ranked = sorted(cand_list, key=lambda c: (c.n > 0, c.mean if c.n else -1.0), reverse=True)
    # Compare on the worlds both were valued in: the finalists have the most.
    best = ranked[0]
    runner = ranked[1] if len(ranked) > 1 else None

    # The re-scan for each outcome, chosen on the worlds that produced it.
    rescans = _rescans_by_outcome(best, ws, odds, per_world, player,
                                  deadline + 0.1 * (budget or 0))
    best_turn = best.turn
    if rescans:
        best_turn = Turn(best.turn.command, best.turn.bolster, best.turn.second, rescans[0][2])
    raw = best.chance
    low, high = wilson(raw * best.n, best.n)
    from .explain import explain

    return Hint(
        best=best_turn,
        win=calibrated(raw, False),
        low=calibrated(low, False),
        high=calibrated(high, False),
        worlds=best.n,
        reason=explain(observation, best_turn, runner.turn if runner else None),
        rescans=rescans,
        runner_up=runner.turn if runner else None,
        runner_up_win=runner.chance if runner and runner.n else None,
        candidates=len(cand_list),
        commands=n_commands,
        seconds=time.perf_counter() - t0,
        method="one-turn look-ahead over sampled worlds, each position after it solved exactly "
               "with the unseen cards of the ship's row and the row ahead taken as Obstructed",
        raw_win=raw,
    )


class _PerWorld:
    """A command as played in each world (``in_world``)."""

    def __init__(self, ws: list[GameState]):
        self.ws = ws

    def turn(self, i: int, turn: Turn) -> Turn | None:
        return in_world(self.ws[i], turn)


CAREFUL_SHARE = 0.5
"""Share of the budget for looking for careful plans."""
CAREFUL_WORLDS = 8
CAREFUL_SECONDS = 0.3


def _careful_plans(
    ws: list[GameState], pool: dict[tuple, Turn], t0: float, deadline: float, budget: float | None
) -> list[tuple[int, Plan | None]]:
    """Careful plans (``near_careful`` over the whole grid: every unseen down side
    Obstructed) in the first worlds, within ``CAREFUL_SHARE`` of the budget."""
    until = t0 + CAREFUL_SHARE * (deadline - t0) if budget is not None else math.inf
    out: list[tuple[int, Plan | None]] = []
    for i, w in enumerate(ws[:CAREFUL_WORLDS]):
        if until - time.perf_counter() <= 0.01 and out:
            break
        found = sum(p is not None for _, p in out)
        if found * 2 + (CAREFUL_WORLDS - len(out)) * 2 < CAREFUL_WORLDS or (out and not found and len(out) >= 2):
            break  # careful routes cannot be the majority any more
        try:
            res = solve(near_careful(w, 7), mode="deal", objective="turns-only", max_nodes=4000,
                        timeout=_timeout(until, CAREFUL_SECONDS))
        except SensorGhostsError:
            continue
        out.append((i, res.plan if res.status == "solved" and res.plan and res.plan.turns else None))
    return out


def _careful_hint(
    observation: Observation,
    ws: list[GameState],
    found: list[tuple[int, Plan]],
    tried: int,
    pool: dict[tuple, Turn],
    n_commands: int,
    t0: float,
) -> Hint:
    """Follow the careful plans: the first command most of them share (fewer
    turns breaking ties), with the re-scan of one of them."""
    votes: dict[tuple, list[tuple[int, Plan]]] = {}
    for i, plan in found:
        votes.setdefault(_effect(plan.turns[0]), []).append((i, plan))
    ranked = sorted(votes.values(), key=lambda v: (-len(v), min(len(p.turns) for _, p in v)))
    i, plan = min(ranked[0], key=lambda ip: (len(ip[1].turns), ip[0]))
    best = plan.turns[0]
    runner = ranked[1][0][1].turns[0] if len(ranked) > 1 else None
    raw = len(found) / tried
    low, high = wilson(len(found), tried)
    from .explain import explain

    win, low, high = calibrated(raw, True), calibrated(low, True), calibrated(high, True)
    note = (f"; a careful route of {len(plan.turns)} turns (it enters no unseen card) fits the "
            f"deck in {len(found)} of {tried} sampled worlds")
    if certain_win(observation, plan, raw):
        win = low = high = 1.0
        note = "; it reaches Earth now on cards already seen, with the samples held: a sure win"
    return Hint(
        best=best,
        win=win,
        low=low,
        high=high,
        worlds=tried,
        reason=explain(observation, best, runner) + note,
        rescans=[],
        runner_up=runner,
        candidates=len(votes),
        commands=n_commands,
        seconds=time.perf_counter() - t0,
        method="careful plans: solved exactly with every unseen down side taken as Obstructed, "
               "in sampled worlds (deck order, samples)",
        raw_win=raw,
        careful=True,
    )


def certain_win(observation: Observation, plan: Plan, raw: float) -> bool:
    """A careful plan of one turn found in every world tried wins for sure when
    the ship already holds the samples Earth asks for and there is no pod to
    wait for: it enters only cards whose down sides were seen, and the turn
    ends at Earth before anything is drawn. (With a sample still to pick up,
    or one spent on a bolster or a second action, a face-down token on the way
    might be a rock.)"""
    t = plan.turns[0] if len(plan.turns) == 1 else None
    return (raw == 1.0 and t is not None and t.bolster == 0 and t.second is None
            and observation.pod is None and observation.held >= observation.options.samples_to_win)


def _rescans_by_outcome(
    best: Candidate,
    ws: Sequence[GameState],
    odds: Sequence[SafeOdds],
    per_world: _PerWorld,
    player: int,
    deadline: float,
) -> list[tuple[str, float, frozenset[int]]]:
    out = []
    total = sum(len(v) for v in best.outcomes.values())
    for _sig, idx in sorted(best.outcomes.items(), key=lambda kv: -len(kv[1]))[:3]:
        mids = []
        for i in idx[:8]:
            t = per_world.turn(i, best.turn)
            if t is None:
                continue
            mids.append((*after_command(ws[i], t), odds[i]))
        s0, f0, _o = mids[0]
        label = _label(s0, ws[idx[0]])
        if s0.is_over:
            out.append((label, len(idx) / total, frozenset()))
            continue
        out.append((label, len(idx) / total, choose_rescan(mids, deadline)))
    return out


def choose_rescan(
    mids: Sequence[tuple[GameState, frozenset[int], SafeOdds]], deadline: float
) -> frozenset[int]:
    """The re-scan with the best mean continuation over worlds that all show the
    player the same position (``mids``: each world's state before the re-scan,
    the cards flipped by choice so far, and the odds of its unseen cards)."""
    s0, f0, _o = mids[0]
    choices = rescan_choices(s0, f0)
    if len(choices) <= 1:
        return choices[0] if choices else frozenset()
    fallback = quick_rescan(s0, f0)
    totals: dict[frozenset[int], float] = {c: 0.0 for c in choices}
    done = 0
    for s, f, o in mids:
        if set(rescan_choices(s, f)) != set(choices):
            continue
        world: dict[frozenset[int], float] = {}
        for cols in choices:
            if time.perf_counter() > deadline:
                break  # a world counts only with every choice valued in it
            world[cols] = continuation(finish(s, f, cols), o, deadline=deadline, nodes=600).score
        if len(world) < len(choices):
            break
        for cols, v in world.items():
            totals[cols] += v
        done += 1
    if done == 0:
        return fallback
    return max(choices, key=lambda c: (totals[c], c == fallback, -min(c, default=0)))


def rescan_hint(
    observation: Observation,
    flipped: frozenset[int] = frozenset(),
    *,
    budget: float | None = 0.5,
    seed: int = 0,
    worlds: int = 6,
) -> frozenset[int]:
    """The re-scan for a turn whose command has been played and its result seen:
    ``observation`` is the player's view after the command and the draw, before
    the re-scan; ``flipped``, the cards flipped by choice this turn [D23]."""
    t0 = time.perf_counter()
    sampler = WorldSampler(observation)
    rng = random.Random(seed)
    marginals = down_side_marginals(observation)
    mids = []
    for _ in range(worlds):
        w = sampler.sample(rng)
        mids.append((w, flipped, world_odds(w, marginals)))
    deadline = math.inf if budget is None else t0 + budget
    return choose_rescan(mids, deadline)
