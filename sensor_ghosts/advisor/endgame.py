"""The exact hidden-information solver for endgames (RULES.md §14): the win
probability of optimal play from what one player can see, and the value of
each command, by expectimax over what the players can know.

The game is cooperative, so everything hidden is chance. The player's belief is
the uniform distribution over the worlds consistent with the observation
(``solver/worlds.py`` says why), so an observation is a sufficient statistic
and the search runs over observations:

- a **decision** at the start of a turn: every command effect (``commands``:
  bolster, cards by kind, action, heading), none pruned by a heuristic;
- a **chance node** for what the command reveals: the down sides of the cards
  the ship enters (or a Deep Scan flips, or a Peek shows), a sample token
  taken, the cards drawn, each with its exact probability;
- a **decision** on the re-scan, made after seeing that outcome;
- a **chance node** for the down sides the re-scan's flips show.

**Outcomes, exactly.** A command is played by the engine in one world
consistent with the observation and what has been fixed so far; the hidden
facts it revealed there (a card's down side, a token, the k-th card drawn)
that are not fixed yet are branched on, one at a time, over every value they
can take, with exact conditional probabilities (down sides: the ratio of
``PairProblem`` layout counts; tokens: the hidden virus/rock counts; draws:
the kinds left in the deck, which is a uniform shuffle, and after a reshuffle
the pile's kinds, the ranking being uniform [D22]). When a world reveals
nothing unfixed, every world consistent with what is fixed plays the same way
(the engine reads only what it reveals), so the outcome is one observation.

**Exact within a horizon.** The search looks ``H`` turns ahead; a position not
finished by then counts as [0, 1]. Values are intervals: a node's lower bound
is what it surely achieves, its upper bound what it might. Deepening ``H``
closes them; the answer is exact when the root's interval is a point, and a
command is proven optimal when its lower bound reaches every other command's
upper bound. Past the node or time budget the answer is ``unknown`` with the
bounds found. A command that cannot beat the best one found is cut as soon
as its partial sum plus the unexplored probability falls short.

Scope: one player (with more, partners' hands are hidden *from each other*,
so a team's policy is not a single player's expectimax), no low-memory loss
of unseen tokens mid-turn; anything else raises ``EndgameUnsupported``.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..rules.cards import SectorType
from ..rules.deck import draw_up
from ..rules.engine import execute, pod_moves_after_first
from ..rules.errors import SensorGhostsError
from ..rules.geometry import EARTH, Direction, on_grid
from ..rules.observation import Observation, SeenCard, check_observation, observe, pair_problem
from ..rules.rescan import rescan_choices
from ..rules.setup import Sample, Slot
from ..rules.state import GameState, Status
from ..rules.turns import ActionKind, Turn
from ..solver.worlds import WorldSampler
from .search import commands, finish, turn_key

__all__ = ["EndgameResult", "EndgameUnsupported", "solve_endgame"]

Pos = tuple[int, int]


class EndgameUnsupported(SensorGhostsError):
    """The position is outside what the endgame solver models exactly."""


class _OutOfBudget(Exception):
    pass


@dataclass
class EndgameResult:
    status: str
    """'exact': ``value`` is the win probability of optimal play; 'unknown':
    only ``low``/``high`` are known."""
    low: float
    high: float
    best: Turn | None
    """The command with the highest lower bound (its re-scan left out: it is
    chosen after the outcome is seen)."""
    proven: bool
    """``best`` is proven optimal (its lower bound reaches every other command's
    upper bound)."""
    values: dict[tuple, tuple[float, float]] = field(default_factory=dict)
    """Bounds on each command's value, by ``turn_key``."""
    turns: dict[tuple, Turn] = field(default_factory=dict)
    horizon: int = 0
    nodes: int = 0
    seconds: float = 0.0

    @property
    def value(self) -> float | None:
        return self.low if self.status == "exact" else None

    def command_value(self, key: tuple) -> tuple[float, float]:
        return self.values.get(key, (0.0, 1.0))

    def optimal(self, key: tuple) -> bool | None:
        """Is the command ``key`` optimal? None where the bounds do not tell."""
        lo, hi = self.command_value(key)
        if lo >= self.high - 1e-12:
            return True
        if hi < self.low - 1e-12:
            return False
        return None


# ----------------------------------------------------------------------------
# Hidden facts and the worlds that fix them
# ----------------------------------------------------------------------------

# A hidden fact: ("D", pos) a down side, ("T", pos) a token (True = virus),
# ("P", j) the j-th card drawn from the deck, ("R", j) the j-th card drawn after
# a reshuffle. Values: a SectorType, a bool, a card kind.
Fact = tuple[str, Any]
"""A hidden fact: its kind ("D" a down side, "T" a token, "P" a deck card, "R"
a reshuffled card) and where (a cell for D and T, a place in the deck for P and
R). The second part is typed Any because the first part says which it is."""


class _Belief:
    """The worlds consistent with one observation, and the exact conditional
    probability of each hidden fact given others fixed."""

    def __init__(self, obs: Observation):
        self.obs = obs
        self.pod = obs.pod is not None
        self.known = [
            (r, c) for r, row in enumerate(obs.grid, 1) for c, cell in enumerate(row, 1)
            if isinstance(cell, SeenCard) and cell.down is not None and not cell.start
        ]
        self._samplers: dict[tuple, WorldSampler] = {}
        self._base: dict[tuple, GameState] = {}
        self._counts: dict[tuple, int] = {}
        cards = obs.command_cards
        self.deck = Counter(_kind(cards, c, self.pod) for c in obs.unknown_commands())
        self.tokens = len(obs.face_down_samples()) + obs.unseen_lost
        self.rng = random.Random(0)

    # --- down sides ---------------------------------------------------------
    def _with_downs(self, downs: tuple[tuple[Pos, SectorType], ...]) -> Observation:
        grid = [list(row) for row in self.obs.grid]
        for (r, c), d in downs:
            cell = grid[r - 1][c - 1]
            assert isinstance(cell, SeenCard)
            grid[r - 1][c - 1] = replace(cell, down=d)
        return replace(self.obs, grid=tuple(tuple(row) for row in grid))

    def count(self, downs: tuple[tuple[Pos, SectorType], ...]) -> int:
        if downs not in self._counts:
            self._counts[downs] = pair_problem(self._with_downs(downs))[1].count()
        return self._counts[downs]

    def sampler(self, downs: tuple[tuple[Pos, SectorType], ...]) -> WorldSampler:
        if downs not in self._samplers:
            # Every observation here was seen in a world, or fixes a down side
            # to a value with a positive count: consistent by construction.
            self._samplers[downs] = WorldSampler(self._with_downs(downs), checked=True)
        return self._samplers[downs]

    # --- the distribution of a fact ------------------------------------------
    def values(self, fixed: dict[Fact, object], fact: Fact, pool: Counter | None) -> list[tuple[object, float]]:
        kind = fact[0]
        if kind == "D":
            downs = _downs(fixed)
            total = self.count(downs)
            out: list[tuple[object, float]] = []
            for d in SectorType:
                n = self.count(tuple(sorted(downs + ((fact[1], d),))))
                if n:
                    out.append((d, n / total))
            return out
        if kind == "T":
            v_fixed = sum(1 for f, x in fixed.items() if f[0] == "T" and x)
            r_fixed = sum(1 for f, x in fixed.items() if f[0] == "T" and not x)
            v = self.obs.virus_face_down - v_fixed
            n = self.tokens - v_fixed - r_fixed
            return [(x, p) for x, p in ((True, v / n), (False, 1 - v / n)) if p > 0]
        assert pool is not None
        left = Counter(pool)
        for f, x in fixed.items():
            if f[0] == kind:
                left[x] -= 1  # type: ignore[index]
        n = sum(left.values())
        return [(k, c / n) for k, c in sorted(left.items()) if c > 0]

    # --- a world consistent with the fixed facts ------------------------------
    def world(self, fixed: dict[Fact, object]) -> GameState:
        """One world consistent with the observation and ``fixed`` (any one will
        do: the outcome is read only once every fact it reveals is fixed)."""
        downs = _downs(fixed)
        w = self._base.get(downs)
        if w is None:
            w = self.sampler(downs).sample(self.rng)
            # Only what the observation knows counts as seen: a fixed fact is
            # revealed by the command, as in the world it stands for.
            w = self._base[downs] = w.evolve(seen=frozenset(w.cell(p).card.id for p in self.known))
        tokens = {f[1]: x for f, x in fixed.items() if f[0] == "T"}
        if tokens:
            w = _with_tokens(w, tokens, self.obs, self.rng)
        draws = sorted((f[1], x) for f, x in fixed.items() if f[0] == "P")
        if draws:
            deck = list(w.deck)
            for j, want in draws:
                if _kind(w.setup.command_cards, deck[j], self.pod) != want:
                    i = next(i for i in range(j + 1, len(deck))
                             if _kind(w.setup.command_cards, deck[i], self.pod) == want)
                    deck[j], deck[i] = deck[i], deck[j]
            w = w.evolve(deck=tuple(deck))
        return w


def _kind(cards, card_id: str, pod: bool) -> tuple:
    card = cards.by_id(card_id)
    return (card.kind.value, card.pod_value if pod else 0)


def _downs(fixed: dict[Fact, object]) -> tuple[tuple[Pos, SectorType], ...]:
    return tuple(sorted((f[1], x) for f, x in fixed.items() if f[0] == "D"))  # type: ignore[misc]


def _with_tokens(w: GameState, tokens: dict, obs: Observation, rng: random.Random) -> GameState:
    """``w`` with the fixed tokens' contents, the others reshuffled among the
    rest of the hidden tokens (those on the board and those lost unseen)."""
    board = obs.face_down_samples()
    v_left = obs.virus_face_down - sum(1 for x in tokens.values() if x)
    free = [p for p in board if p not in tokens]
    n_hidden = len(free) + obs.unseen_lost
    rest = [True] * v_left + [False] * (n_hidden - v_left)
    rng.shuffle(rest)
    value = dict(tokens) | dict(zip(free, rest, strict=False))
    grid = [list(row) for row in w.grid]
    for (r, c), virus in value.items():
        s = grid[r - 1][c - 1]
        assert isinstance(s, Slot) and s.sample is not None
        grid[r - 1][c - 1] = Slot(s.card, s.up, Sample(s.sample.id, virus))
    return w.evolve(grid=tuple(tuple(row) for row in grid))


@dataclass
class _Run:
    """A command played in one world: the state reached, and what it revealed."""

    state: GameState
    revealed: list[tuple[Fact, object]]
    extra: Extra = None
    pool: Counter | None = None
    """The reshuffled pile's kinds, when the draw reshuffled."""
    reshuffled: tuple[str, ...] = ()
    """The reshuffled deck in its order (the cards drawn from it first)."""


Extra = frozenset[Pos] | None
"""What an operation tells besides the states: a command, where its chosen flips were."""
Op = Callable[[GameState], tuple[GameState, GameState | None, Extra]]
"""A world -> (the state after, the state just before the draw or None, extra)."""


def _play(w: GameState, op: Op, pod: bool) -> _Run:
    after, before_draw, extra = op(w)
    if after.lost_unseen != w.lost_unseen:
        raise EndgameUnsupported("a token lost unseen mid-turn (low memory mode)")
    where = {s.card.id: (r, c) for r, row in enumerate(w.grid, 1) for c, s in enumerate(row, 1)
             if isinstance(s, Slot) and not s.card.start}
    revealed: list[tuple[Fact, object]] = []
    for cid in sorted(after.seen - w.seen, key=lambda i: where[i]):
        p = where[cid]
        revealed.append((("D", p), w.cell(p).down))
    tokens = {s.sample.id: ((r, c), s.sample.virus) for r, row in enumerate(w.grid, 1)
              for c, s in enumerate(row, 1) if isinstance(s, Slot) and s.sample is not None}
    left = {s.sample.id for row in after.grid for s in row if isinstance(s, Slot) and s.sample is not None}
    for sid in sorted(set(tokens) - left):
        p, virus = tokens[sid]
        revealed.append((("T", p), virus))
    run = _Run(after, revealed, extra)
    if before_draw is not None and not before_draw.is_over:
        player = before_draw.active
        drawn = after.hands[player][len(before_draw.hands[player]):]
        cards = w.setup.command_cards
        first = len(before_draw.deck)
        for j, card_id in enumerate(drawn):
            if j < first or before_draw.second_pass:
                revealed.append((("P", j), _kind(cards, card_id, pod)))
            else:
                revealed.append((("R", j - first), _kind(cards, card_id, pod)))
        if not before_draw.second_pass and len(drawn) > first:
            run.reshuffled = tuple(drawn[first:]) + after.deck
            run.pool = Counter(_kind(cards, c, pod) for c in run.reshuffled)
    return run


def _fix_reshuffle(w: GameState, run: _Run, fixed: dict[Fact, object], op: Op, pod: bool) -> _Run:
    """Reorder the ranking [D22] until the cards drawn after a reshuffle are the
    fixed ones: the reshuffled deck is the pile sorted by rank, so swapping two
    cards' ranks swaps their places in it."""
    cards = w.setup.command_cards
    for _ in range(16):
        bad = [(f[1], fixed[f]) for f, v in run.revealed if f[0] == "R" and f in fixed and fixed[f] != v]
        if not bad:
            return run
        j, want = bad[0]
        order = run.reshuffled
        i = next(i for i in range(j + 1, len(order)) if _kind(cards, order[i], pod) == want)
        rank = list(w.ranking)
        a, b = rank.index(order[j]), rank.index(order[i])
        rank[a], rank[b] = rank[b], rank[a]
        w = w.evolve(ranking=tuple(rank))
        run = _play(w, op, pod)
    raise EndgameUnsupported("could not fix the reshuffled deck")


def _outcomes(belief: _Belief, op: Op, draws: bool = True) -> list[tuple[float, GameState, Extra]]:
    """Every distinct outcome of ``op`` (as the player sees it) with its exact
    probability, and a world state standing for it. With ``draws`` False the
    cards drawn are not told apart (for a position valued only by whether the
    game is over): outcomes then differ by what else was revealed."""
    out: dict[tuple, list] = {}
    stack: list[tuple[float, dict[Fact, object]]] = [(1.0, {})]
    while stack:
        p, fixed = stack.pop()
        w = belief.world(fixed)
        run = _play(w, op, belief.pod)
        if run.pool is not None and any(f in fixed for f, _ in run.revealed if f[0] == "R"):
            run = _fix_reshuffle(w, run, fixed, op, belief.pod)
        free = [(f, v) for f, v in run.revealed if f not in fixed and (draws or f[0] in "DT")]
        if not free:
            o = observe(run.state, belief.obs.player)
            k = _key(o) if draws else _key(o)[:11]
            if k in out:
                out[k][0] += p
            else:
                out[k] = [p, run.state, run.extra]
            continue
        fact = free[0][0]
        pool = belief.deck if fact[0] == "P" else run.pool
        for value, q in belief.values(fixed, fact, pool):
            stack.append((p * q, {**fixed, fact: value}))
    return [(p, s, e) for p, s, e in out.values()]


def _key(obs: Observation) -> tuple:
    """An observation up to interchangeable command cards (same kind, same pod
    value) and the turn number, which no rule reads."""
    pod = obs.pod is not None
    cards = obs.command_cards
    return (
        obs.grid, obs.ship, obs.pod, obs.shields, obs.held, obs.rocks_found, obs.virus_face_down,
        obs.unseen_lost, obs.second_pass, obs.deck_size, obs.outcome.status,
        tuple(sorted(_kind(cards, c, pod) for c in obs.hand)),
        tuple((_kind(cards, e.card, pod), e.arrow) for e in obs.discard),
    )


# ----------------------------------------------------------------------------
# Bounds that need no search
# ----------------------------------------------------------------------------


def fewest_turns_to_earth(obs: Observation) -> int:
    """A lower bound on the turns the ship needs to reach Earth: one Fly a turn
    (two with the §12 second action), each carried on by any card that is or
    may be a Boost underneath, never through a gap or off the grid, ignoring
    headings, hands, shields and samples (each of which only adds turns)."""
    if obs.ship == EARTH:
        return 0
    per_turn = 2 if obs.options.second_action else 1

    def boost_possible(pos: Pos) -> bool:
        cell = obs.cell(pos)
        return isinstance(cell, SeenCard) and (cell.down is SectorType.BOOST or cell.down is None)

    def moves(pos: Pos) -> set[Pos]:
        out = set()
        for d in Direction:
            nxt = d.step(pos)
            while True:
                if nxt == EARTH:
                    out.add(nxt)
                    break
                if not on_grid(nxt) or not isinstance(obs.cell(nxt), SeenCard):
                    break
                out.add(nxt)
                if not boost_possible(nxt):
                    break
                nxt = d.step(nxt)
        return out

    frontier, seen, steps = {obs.ship}, {obs.ship}, 0
    while frontier:
        steps += 1
        nxt_frontier = set()
        for p in frontier:
            for q in moves(p):
                if q == EARTH:
                    return -(-steps // per_turn)
                if q not in seen:
                    seen.add(q)
                    nxt_frontier.add(q)
        frontier = nxt_frontier
    return 10**6


def turns_left(obs: Observation) -> int | None:
    """An upper bound on the turns the game can last, on the second pass: each
    turn plays a card and draws at least one, and a draw from the empty deck
    loses (§7); the last turn may win before its draw."""
    if not obs.second_pass:
        return None
    return obs.deck_size + 1


# ----------------------------------------------------------------------------
# The search
# ----------------------------------------------------------------------------


def _command_op(turn: Turn) -> Op:
    def op(w: GameState):
        s = w.evolve(shields=min(2, w.shields + turn.bolster), held=w.held - turn.bolster)
        flipped: frozenset[int] = frozenset()
        if turn.command is not None:
            pod1 = pod_moves_after_first(s, turn.second is not None)
            s, flipped = execute(s, turn.command, flipped, pod_moves=pod1)
        if turn.second is not None and not s.is_over:
            s = s.evolve(held=s.held - 1)
            s, flipped = execute(s, turn.second, flipped)
        before = s
        if not s.is_over:
            s = draw_up(s)
        where = frozenset(p for p, cid in _positions(s).items() if cid in flipped)
        return s, before, where
    return op


def _flights_first(kv: tuple[tuple, Turn]) -> tuple:
    t = kv[1]
    return (not _flies(t), len(t.command.cards) if t.command else 0)


def _flies(turn: Turn) -> bool:
    return any(c is not None and c.action.kind is ActionKind.FLY for c in (turn.command, turn.second))


def _positions(s: GameState) -> dict[Pos, int]:
    return {(r, c): x.card.id for r, row in enumerate(s.grid, 1) for c, x in enumerate(row, 1)
            if isinstance(x, Slot)}


def _rescan_op(flipped_at: frozenset[Pos], cols: frozenset[int]) -> Op:
    def op(w: GameState):
        ids = _positions(w)
        return finish(w, frozenset(ids[p] for p in flipped_at), cols), None, None
    return op


class _Search:
    def __init__(self, max_nodes: int, deadline: float):
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.nodes = 0
        self.memo: dict[tuple, tuple[int, float, float]] = {}
        self.need: dict[tuple, int] = {}
        self.opts: dict[tuple, list[tuple[tuple, Turn]]] = {}
        self.beliefs: dict[tuple, _Belief] = {}
        self.cmd_outcomes: dict[tuple, list] = {}
        self.scan_outcomes: dict[tuple, list] = {}

    def belief(self, obs: Observation) -> _Belief:
        k = _key(obs)
        if k not in self.beliefs:
            self.beliefs[k] = _Belief(obs)
        return self.beliefs[k]

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes or (self.nodes & 15 == 0 and time.perf_counter() > self.deadline):
            raise _OutOfBudget

    # V(observation at the start of a turn, turns left)
    def value(self, obs: Observation, h: int) -> tuple[float, float]:
        st = obs.outcome.status
        if st is not Status.ONGOING:
            return (1.0, 1.0) if st is Status.WON else (0.0, 0.0)
        k = _key(obs)
        got = self.memo.get(k)
        if got is not None and (got[0] >= h or got[1] == got[2]):
            return got[1], got[2]
        need = self.need.get(k)
        if need is None:
            need = self.need[k] = fewest_turns_to_earth(obs)
        left = turns_left(obs)
        if left is not None and need > left:
            return (0.0, 0.0)
        if h == 0 or need > h:
            return (0.0, 1.0)
        best_lo, best_hi = 0.0, 0.0
        for _tk, t in self.options(obs):
            lo, hi = self.command(obs, t, h, best_lo)
            best_lo, best_hi = max(best_lo, lo), max(best_hi, hi)
            if best_lo >= 1.0:
                break
        self.memo[k] = (h, best_lo, best_hi)
        return best_lo, best_hi

    def options(self, obs: Observation) -> list[tuple[tuple, Turn]]:
        k = _key(obs)
        if k in self.opts:
            return self.opts[k]
        b = self.belief(obs)
        w = b.world({})
        opts = commands(w)
        if obs.options.players != 1:
            raise EndgameUnsupported("more than one player")
        # Flights first: in an endgame they decide, and a good first bound cuts.
        self.opts[k] = sorted(opts.items(), key=_flights_first)
        return self.opts[k]

    def command(self, obs: Observation, turn: Turn, h: int, cut: float) -> tuple[float, float]:
        """Bounds on the value of ``turn``'s command (with the best re-scan after
        each outcome); once it cannot exceed ``cut`` the rest is left unexplored."""
        self.tick()
        if h == 1 and obs.pod is None and not _flies(turn):
            # Only a Fly reaches Earth, and without the escape pod (§10, which
            # moves after any command) nothing else ends a turn but the draw:
            # lost if the second pass cannot refill the hand (§7).
            # The draw is the same in every world (the deck's size is seen): ask the
            # engine in any one of them rather than restate §7 here.
            after, _, _ = _command_op(turn)(self.belief(obs).world({}))
            return (0.0, 0.0) if after.is_over else (0.0, 1.0)
        # One turn left: only whether the game ends counts, not what is drawn.
        draws = h > 1
        ck = (_key(obs), turn_key(self.belief(obs).world({}), turn), draws)
        outs = self.cmd_outcomes.get(ck)
        if outs is None:
            outs = _outcomes(self.belief(obs), _command_op(turn), draws)
            outs.sort(key=lambda o: -o[0])
            self.cmd_outcomes[ck] = outs
        lo = hi = 0.0
        rest = 1.0
        for p, s, flipped_at in outs:
            rest -= p
            assert flipped_at is not None  # a command's outcome tells where its flips were
            a, b = self.after_command(s, flipped_at, h)
            lo += p * a
            hi += p * b
            if hi + rest <= cut + 1e-12:
                return lo, hi + max(rest, 0.0)
        return lo, hi

    def after_command(self, s: GameState, flipped_at: frozenset[Pos], h: int) -> tuple[float, float]:
        if s.is_over:
            return (1.0, 1.0) if s.outcome.status is Status.WON else (0.0, 0.0)
        if h == 1:
            return (0.0, 1.0)  # the re-scan never ends the game
        mid = observe(s, s.active)
        ids = _positions(s)
        choices = rescan_choices(s, frozenset(ids[p] for p in flipped_at))
        best = (0.0, 0.0)
        for cols in choices or [frozenset()]:
            sk = (_key(mid), flipped_at, cols)
            outs = self.scan_outcomes.get(sk)
            if outs is None:
                self.tick()
                outs = _outcomes(self.belief(mid), _rescan_op(flipped_at, cols))
                self.scan_outcomes[sk] = outs
            lo = hi = 0.0
            for p, s2, _ in outs:
                a, b = self.value(observe(s2, s2.active), h - 1)
                lo += p * a
                hi += p * b
            best = (max(best[0], lo), max(best[1], hi))
            if best[0] >= 1.0:
                break
        return best


def solve_endgame(
    observation: Observation,
    *,
    focus: Sequence[tuple] = (),
    max_turns: int = 8,
    max_nodes: int = 200_000,
    timeout: float | None = 10.0,
) -> EndgameResult:
    """The exact value of ``observation`` for its (only) player, deepening the
    horizon one turn at a time up to ``max_turns`` within ``max_nodes`` and
    ``timeout`` seconds. It stops once the value is exact, the best command is
    proven optimal, and each command of ``focus`` (``turn_key``s) is settled:
    its value exact, or shown below the optimum. Other commands get only the
    bounds needed to rule them out."""
    t0 = time.perf_counter()
    check_observation(observation)  # (the search's own observations are consistent by construction)
    if observation.options.players != 1:
        raise EndgameUnsupported("the endgame solver plays one player")
    if observation.outcome.status is not Status.ONGOING:
        raise EndgameUnsupported(f"the game is over ({observation.outcome})")
    search = _Search(max_nodes, math.inf if timeout is None else t0 + timeout)
    result = EndgameResult("unknown", 0.0, 1.0, None, False)
    try:
        opts = search.options(observation)
    except _OutOfBudget:
        return result
    result.turns = dict(opts)
    focus_set = set(focus)
    order = [k for k, _ in opts]
    for h in range(1, max_turns + 1):
        values: dict[tuple, tuple[float, float]] = {}
        try:
            best_lo = 0.0
            for k in order:
                cut = -1.0 if k in focus_set else best_lo
                lo_k, hi_k = search.command(observation, result.turns[k], h, cut)
                values[k] = (min(1.0, max(0.0, lo_k)), min(1.0, max(0.0, hi_k)))  # (float sums)
                best_lo = max(best_lo, values[k][0])
        except _OutOfBudget:
            break
        lo = max(v[0] for v in values.values())
        hi = max(v[1] for v in values.values())
        bk = max(values, key=lambda k: (values[k][0], values[k][1]))
        others = max((v[1] for k, v in values.items() if k != bk), default=0.0)
        result = EndgameResult(
            "exact" if hi - lo < 1e-12 else "unknown", lo, hi, result.turns[bk],
            values[bk][0] >= others - 1e-12, values, result.turns, h,
        )
        settled = all(values[k][1] - values[k][0] < 1e-12 or values[k][1] < lo - 1e-12
                      for k in focus_set if k in values)
        if result.status == "exact" and result.proven and settled:
            break
        order.sort(key=lambda k: -values[k][0])
    result.nodes = search.nodes
    result.seconds = time.perf_counter() - t0
    return result
