"""Hints for a stuck player: the best next turn and an honest chance of winning,
computed from what the player can see (RULES.md §14), never from the hidden truth.

Method (perfect-information Monte Carlo with pruning and successive halving):

1. **Worlds.** ``WorldSampler`` draws hidden worlds uniformly among those
   consistent with the observation (exact counting, ``worlds.py``). The same
   worlds are used for every candidate (common random numbers), so differences
   between candidates are not sampling noise of different worlds.
2. **Candidates, pruned.** A position has hundreds to thousands of legal turns,
   mostly re-scan and Deep-Scan-target variants. Turns are grouped by their
   *command effect* (bolster; the set of cards played; the action; the heading
   the top card leaves [D11]; the pod's direction and value §10): which of two
   equivalent Fly cards lies on top changes nothing else. The re-scan is
   decided after the command's result is seen, so each group is first scored
   with a re-scan chosen per world by ``rescan_policy``.
3. **Stage 1 (screening).** Every group is applied in the first worlds and the
   resulting state scored by a fast perfect-information heuristic ``value``
   (a shortest safe route to a virus sample and Earth, in cards, against the
   cards left). Groups whose command loses at once in every world drop out.
4. **Re-scan.** For the best groups, each legal re-scan choice is scored over the
   same worlds; the best fixed choice becomes part of the hinted turn.
5. **Stage 2 (win estimates).** The best groups are played to the end in each
   world: the solver (``solve``, mode 'deal', when ``solver_nodes`` > 0 and it
   finishes within that many nodes: exact), otherwise a perfect-information
   greedy rollout. Successive halving: after each round of worlds the worse half
   of the candidates is dropped, so the time goes to the contenders. The win
   estimate is wins / rollouts with a Wilson 95% interval.
6. **Budget.** Stages stop at the deadline (``budget`` seconds, default 2.0)
   and return the best answer so far. Deterministic for a seed: the answer
   depends on how far the stages got, so for bit-identical results across
   machines pass ``budget=None`` with fixed ``worlds``/``rollouts``.

Caveats (documented, measured in ``benchmarks/bots.py``): each world is played
with full knowledge of it (PIMC's *strategy fusion*), so the win estimate of a
strong rollout policy would be optimistic; the greedy rollout policy is weak,
which pulls the other way. The root decision itself is never fused: it is one
turn, scored across worlds the player cannot tell apart.

The rules solver is exact but, measured on this project's machine, needs seconds
to minutes per mid-game world (hundreds of nodes per second); inside a 2-second
budget it is used only with ``solver_nodes`` > 0, where it settles late-game
worlds exactly.
"""

from __future__ import annotations

import heapq
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..rules.cards import CommandKind, SectorType, Side
from ..rules.commands import legal_commands
from ..rules.deck import draw_up
from ..rules.engine import execute, legal_turns
from ..rules.geometry import COLS, DIRECTIONS, DOCK, EARTH, ROWS, Direction, Pos, format_pos, on_grid
from ..rules.observation import Observation, SeenCard, SeenGap
from ..rules.rescan import rescan, rescan_choices, rescan_row
from ..rules.setup import Gap, Slot
from ..rules.state import GameState, Status
from ..rules.turns import DECK_PLAYER, ActionKind, Command, PlayedCard, Turn
from .worlds import WorldSampler, down_side_marginals

__all__ = [
    "Candidate",
    "Hint",
    "command_key",
    "hint",
    "rollout",
    "value",
    "wilson",
]

WIN_VALUE = 1000.0
LOSS_VALUE = -1000.0


# ----------------------------------------------------------------------------
# Small statistics
# ----------------------------------------------------------------------------


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


# ----------------------------------------------------------------------------
# Perfect-information evaluation of one world
# ----------------------------------------------------------------------------


FIX_COST = 1.0
"""Extra cards to make a card safe before entering it: a Deep Scan flip, or a
re-scan flip lined up in time (free but constrained): about one card."""
WAIT_COST = 1.0
"""Cards per turn spent waiting for the row ahead to shift a card into place."""

OK, FIX, SHIELD = 0, 1, 2


def _cell_costs(state: GameState) -> dict[Pos, tuple[float, SectorType, bool, int]]:
    """For every card cell that can be entered: the cards it costs (1 for the move,
    more when it must be flipped first or shields charged), the face the ship
    then meets, whether a virus sample lies there, and what it needs first."""
    out: dict[Pos, tuple[float, SectorType, bool, int]] = {}
    sh = state.shields
    safe = (SectorType.EMPTY, SectorType.BOOST)
    # A flip costs one card with a Deep Scan or the Wild in hand, else three (a
    # wild); in the row two ahead the re-scan flips cards for free.
    kinds = {state.kind(c) for c in state.hands[state.active]}
    fix = FIX_COST if kinds & {CommandKind.DEEP_SCAN, CommandKind.WILD} else 2.5
    rescan_row_ = state.ship_row + 2 if state.ship != EARTH else 0
    for r, row in enumerate(state.grid, 1):
        for c, cell in enumerate(row, 1):
            if isinstance(cell, Gap):
                continue
            card = cell.card
            virus = cell.sample is not None and cell.sample.virus
            if card.start:
                out[(r, c)] = (1.0, SectorType.EMPTY, virus, OK)
                continue
            down = card.back if cell.up is Side.FRONT else card.front
            up = card.front if cell.up is Side.FRONT else card.back
            if down in safe:
                out[(r, c)] = (1.0, down, virus, OK)
            elif up in safe:
                out[(r, c)] = (1.0 + (0.3 if r == rescan_row_ else fix), up, virus, FIX)
            elif down is SectorType.ASTEROID:
                need = max(0, 2 - sh)
                out[(r, c)] = (1.0 + need, SectorType.EMPTY, virus, SHIELD if need else OK)
    return out


def route(state: GameState) -> tuple[float, tuple | None]:
    """Cards needed (an estimate) to collect enough virus samples and reach Earth
    in ``state``'s fully known grid, and the route's first step
    ``(direction, wait, cell entered, need)``.

    Dijkstra over (row, ship column, rotation of the ship's row, sample still
    needed): sideways moves meet the cards of the ship's row as it has rotated; a
    move up may first wait k turns (k cards) for the row ahead, which shifts left
    every turn (§8), to bring any of its cards above the ship; boosts chain; cards
    that must be flipped or shielded first cost more (``_cell_costs``)."""
    if state.ship == EARTH:
        return 0.0, None
    costs = _cell_costs(state)
    need = 1 if state.held < state.options.samples_to_win else 0
    start = (1, 0, 0, need) if state.ship == DOCK else (state.ship[0], state.ship[1], 0, need)
    dist: dict[tuple[int, int, int, int], float] = {start: 0.0}
    first: dict[tuple[int, int, int, int], tuple | None] = {start: None}
    heap: list[tuple[float, tuple[int, int, int, int]]] = [(0.0, start)]
    push = heapq.heappush
    right, up = Direction.RIGHT, Direction.UP
    while heap:
        c, node = heapq.heappop(heap)
        if dist.get(node, 1e9) < c:
            continue
        r, x, rot, left = node
        f0 = first[node]
        # Sideways (boosts chain along the row).
        for dx in (-1, 1):
            cx, cost, lft, step = x, c, left, None
            while True:
                nx = cx + dx
                if r == ROWS and nx == COLS + 1:
                    if lft == 0:
                        return cost + 1, f0 or (right, 0, EARTH, OK)
                    break
                if not 1 <= nx <= COLS:
                    break
                cell = (r, (nx - 1 + rot) % COLS + 1)
                info = costs.get(cell)
                if info is None or (step is not None and info[3] != OK):
                    break  # nothing can be prepared in the middle of a boost chain
                if step is None:
                    step = f0 or (right if dx == 1 else Direction.LEFT, 0, cell, info[3])
                cost += info[0]
                lft = 0 if info[2] else lft
                cx = nx
                if info[1] is not SectorType.BOOST:
                    key = (r, cx, rot, lft)
                    if cost < dist.get(key, 1e9):
                        dist[key], first[key] = cost, step
                        push(heap, (cost, key))
                    break
                cost -= 1.0  # a boost's onward move is free
        if x == 0:
            continue  # from the dock only right
        # Up, after waiting k turns for the row ahead; boosts chain upwards.
        for k in range(COLS):
            cr, cost, lft, rr, step = r, c + k * WAIT_COST, left, k, None
            while True:
                nr = cr + 1
                if nr > ROWS:
                    break
                cell = (nr, (x - 1 + rr) % COLS + 1)
                info = costs.get(cell)
                if info is None or (step is not None and info[3] != OK):
                    break
                if step is None:
                    step = f0 or (up, k, cell, info[3])
                cost += info[0]
                lft = 0 if info[2] else lft
                cr = nr
                if info[1] is not SectorType.BOOST:
                    key = (cr, x, rr, lft)
                    if cost < dist.get(key, 1e9):
                        dist[key], first[key] = cost, step
                        push(heap, (cost, key))
                    break
                cost -= 1.0
                rr = 0  # rows further ahead have not shifted
        # Down (rare): the row behind, as it lies now.
        if r > 1:
            cell = (r - 1, x)
            info = costs.get(cell)
            if info is not None and info[1] is not SectorType.BOOST:
                key = (r - 1, x, 0, 0 if info[2] else left)
                cost = c + info[0]
                if cost < dist.get(key, 1e9):
                    dist[key], first[key] = cost, f0 or (Direction.DOWN, 0, cell, info[3])
                    push(heap, (cost, key))
    return math.inf, None


def route_cost(state: GameState) -> float:
    """The cards ``route`` needs (inf when no route is found)."""
    return route(state)[0]


def cards_left(state: GameState) -> int:
    """Command cards the active player can still play before the deck runs out."""
    n = len(state.hands[state.active]) + len(state.deck)
    if not state.second_pass:
        # The reshuffle brings back the pile, the cards played until then and the
        # Wild [D15]; the hand held at that moment stays in the hand.
        n += len(state.discard) + n - state.options.hand_limit + 1
    return n


def value(state: GameState) -> float:
    """A perfect-information score of ``state`` (higher is better): win and loss
    at the ends; else minus the route's cards, a margin of spare cards, shields."""
    if state.outcome.status is Status.WON:
        return WIN_VALUE
    if state.outcome.status is Status.LOST:
        return LOSS_VALUE
    cost = route_cost(state)
    left = cards_left(state)
    if math.isinf(cost):
        # No safe route now (rows shift every turn): prefer progress and cards.
        return -200.0 + 3 * state.ship_row + 0.5 * left + state.shields
    spare = left - cost
    return -10.0 * cost + min(spare, 6.0) + (-100.0 if spare < 0 else 0.0) + 0.3 * state.shields


# ----------------------------------------------------------------------------
# Turns: grouping, completing a command with a re-scan
# ----------------------------------------------------------------------------


def command_key(state: GameState, cmd: Command | None) -> tuple | None:
    """What a command does, up to interchangeable cards: the kinds of the cards
    played (with pod values under the escape pod), the top card's kind, the
    action, the heading it leaves [D11] and the pod's direction (§10). Cards of
    one kind are interchangeable to a player who cannot see the deck order: the
    reshuffle's ranking is uniformly random [D22]."""
    if cmd is None:
        return None
    pod = state.pod is not None

    def kind(pc: PlayedCard) -> tuple:
        card = state.card(pc.card)
        return (card.kind.value, card.pod_value if pod else 0, pc.player == DECK_PLAYER)

    return (
        tuple(sorted(kind(pc) for pc in cmd.cards)),
        kind(cmd.top),
        cmd.action,
        cmd.arrow,
        cmd.pod_direction,
    )


def turn_key(state: GameState, turn: Turn) -> tuple:
    """A turn's command effect (``command_key``), re-scan left out."""
    return (
        turn.bolster,
        command_key(state, turn.command),
        command_key(state, turn.second),
    )


def _after_command(state: GameState, turn: Turn) -> tuple[GameState, frozenset[int]]:
    """Steps 1-4 of ``turn`` (bolster, command(s), draw): the state the re-scan
    is chosen in, and the cards flipped by choice so far [D23]."""
    s = state.evolve(
        shields=min(2, state.shields + turn.bolster), held=state.held - turn.bolster
    )
    flipped: frozenset[int] = frozenset()
    if turn.command is not None:
        s, flipped = execute(s, _remap(s, turn.command), flipped)
    if turn.second is not None and not s.is_over:
        s = s.evolve(held=s.held - 1)
        s, flipped = execute(s, _remap(s, turn.second), flipped)
    if not s.is_over:
        s = draw_up(s)
    return s, flipped


def _remap(state: GameState, cmd: Command) -> Command:
    """[D18] The deck's card in a two-player wild is whatever lies on top in this
    world."""
    if all(pc.player != DECK_PLAYER for pc in cmd.cards) or not state.deck:
        return cmd
    cards = tuple(
        PlayedCard(state.deck[0], DECK_PLAYER) if pc.player == DECK_PLAYER else pc
        for pc in cmd.cards
    )
    return Command(cards, cmd.action, cmd.arrow, cmd.pod_direction)


def _finish(state: GameState, flipped: frozenset[int], cols: frozenset[int]) -> GameState:
    """Step 5 (re-scan) and the hand-over, as the engine does it."""
    if state.is_over:
        return state
    state = rescan(state, cols, flipped)
    return state.evolve(turn=state.turn + 1, active=(state.active + 1) % state.options.players)


def _safe(t: SectorType | None, shields: int) -> float:
    if t is None:
        return 0.5
    if t in (SectorType.EMPTY, SectorType.BOOST):
        return 1.0
    if t is SectorType.ASTEROID:
        return 0.5 if shields == 2 else 0.0
    return 0.0


def rescan_policy(
    state: GameState, flipped: frozenset[int], down: Callable[[Pos], SectorType | None] | None = None
) -> frozenset[int]:
    """A re-scan choice: flip the cards of the row two ahead that become safer to
    enter (entering flips a card, so its *down* side is what the ship meets);
    nearer the ship's column first. ``down`` gives a card's down side as known
    (default: the true one, perfect information)."""
    choices = rescan_choices(state, flipped)
    if len(choices) <= 1:
        return choices[0] if choices else frozenset()
    row = rescan_row(state)
    assert row is not None
    col = state.ship[1] if on_grid(state.ship) else 1

    def gain(c: int) -> float:
        cell = state.grid[row - 1][c - 1]
        assert isinstance(cell, Slot)
        d = down((row, c)) if down is not None else cell.down
        # Flipping: the face becomes the old down side; the new down side is the face.
        return _safe(cell.face, 2) - _safe(d, 2) - 0.01 * abs(c - col)

    gains = {c: gain(c) for c in set().union(*choices)}
    return max(choices, key=lambda ch: (sum(gains[c] for c in ch), -min(ch)))


def play(state: GameState, turn: Turn, cols: frozenset[int] | None = None) -> GameState:
    """``turn`` in ``state`` (a world); its re-scan if legal there, else ``cols``,
    else the perfect-information ``rescan_policy``."""
    s, flipped = _after_command(state, turn)
    if s.is_over:
        return s
    choices = rescan_choices(s, flipped)
    for want in (turn.rescan, cols):
        if want is not None and want in choices:
            return _finish(s, flipped, want)
    return _finish(s, flipped, rescan_policy(s, flipped))


# ----------------------------------------------------------------------------
# A fast perfect-information policy (rollouts, the cheating bot's fallback)
# ----------------------------------------------------------------------------


def _useful(state: GameState, cmd: Command) -> bool:
    a = cmd.action
    if a.kind is ActionKind.PEEK:
        return False  # nothing to learn with perfect information
    if a.kind is ActionKind.SHIELDS:
        return state.shields < 2
    if a.kind is ActionKind.FLIP:
        assert a.target is not None
        if not on_grid(state.ship):
            return a.target[0] <= 2 and a.target[1] <= 2
        return abs(a.target[0] - state.ship[0]) + abs(a.target[1] - state.ship[1]) <= 2
    if a.kind is ActionKind.SHIFT:
        return a.row is not None and 0 < a.row - state.ship_row <= 2
    return True


def policy_turn(state: GameState, rng: random.Random | None = None) -> Turn:
    """A greedy perfect-information turn: every distinct useful command (plus one
    cheapest 'wait') with the re-scan of ``rescan_policy``, scored by ``value``."""
    best: tuple[float, int] | None = None
    best_turn: Turn | None = None
    seen: set = set()
    wait: Command | None = None
    bolsters = [0]
    if state.held > state.options.samples_to_win and state.shields < 2:
        bolsters.append(min(state.held - state.options.samples_to_win, 2 - state.shields))
    if not state.hands[state.active]:
        s, f = _after_command(state, Turn(None))
        return Turn(None, rescan=rescan_policy(s, f) if not s.is_over else frozenset())
    for b in bolsters:
        s0 = state.evolve(shields=min(2, state.shields + b), held=state.held - b)
        for cmd in legal_commands(s0):
            if not _useful(s0, cmd):
                if cmd.action.kind is ActionKind.PEEK and (wait is None or len(cmd.cards) < len(wait.cards)):
                    wait = cmd
                continue
            # The cheapest cards for each effect (action and heading left).
            key = (b, cmd.action, cmd.arrow, cmd.pod_direction)
            if key in seen:
                continue
            seen.add(key)
            t = Turn(cmd, b)
            v = _score(state, t)
            cand = (v, -len(cmd.cards))
            if best is None or cand > best:
                best, best_turn = cand, t
    if wait is not None:
        t = Turn(wait, 0)
        cand = (_score(state, t), -len(wait.cards))
        if best is None or cand > best:
            best, best_turn = cand, t
    if best_turn is None:  # only peeks were legal and none kept: take any legal turn
        return legal_turns(state)[0]
    s, flipped = _after_command(state, best_turn)
    cols = rescan_policy(s, flipped) if not s.is_over else frozenset()
    return Turn(best_turn.command, best_turn.bolster, best_turn.second, cols)


def _score(state: GameState, turn: Turn) -> float:
    return value(play(state, turn))


def _card_cost(state: GameState, cmd: Command) -> float:
    wild = state.setup.command_cards.wild.id
    return len(cmd.cards) + sum(1.5 for pc in cmd.cards if pc.card == wild)


def fast_turn(state: GameState) -> Turn:
    """A fast perfect-information turn: follow the first step of ``route`` — fly
    there, or first flip the card (Deep Scan), charge shields, or wait a turn
    (shift the row ahead, charge shields, peek) for the row ahead to bring the
    right card; cheapest cards; re-scan by ``rescan_policy``. Falls back to the
    slower ``policy_turn`` when no route is found."""
    if not state.hands[state.active]:
        return policy_turn(state)
    _, step = route(state)
    if step is None:
        return policy_turn(state)
    d, k, cell, need = step
    cheapest: dict = {}
    for cmd in legal_commands(state):
        cost = _card_cost(state, cmd)
        a = cmd.action
        if a.kind is ActionKind.PEEK:
            a = "wait"
        if a not in cheapest or cost < cheapest[a][0]:
            cheapest[a] = (cost, cmd)
    from ..rules.turns import Action

    def get(action) -> Command | None:
        got = cheapest.get(action)
        return got[1] if got else None

    chosen: Command | None = None
    bolster = 0
    if k == 0 and need == OK:
        chosen = get(Action(ActionKind.FLY, d))
    elif k == 0 and need == FIX and cell != EARTH:
        chosen = get(Action(ActionKind.FLIP, target=cell))
    elif k == 0 and need == SHIELD:
        spare = state.held - state.options.samples_to_win
        if spare > 0:
            bolster = min(spare, 2 - state.shields)
            chosen = get(Action(ActionKind.FLY, d)) if state.shields + bolster >= 2 else None
        if chosen is None:
            bolster = 0
            chosen = get(Action(ActionKind.SHIELDS))
    if chosen is None:
        # Wait: speed the row ahead up, or charge shields, or peek.
        for action in (
            Action(ActionKind.SHIFT, row=state.ship_row + 1) if k > 1 else None,
            Action(ActionKind.SHIELDS) if state.shields < 2 else None,
            "wait",
        ):
            if action is not None and get(action) is not None and cheapest[action][0] < 2.5:
                chosen = get(action)
                break
    if chosen is None:
        return policy_turn(state)
    t = Turn(chosen, bolster)
    s, flipped = _after_command(state, t)
    cols = rescan_policy(s, flipped) if not s.is_over else frozenset()
    return Turn(chosen, bolster, None, cols)


def rollout(state: GameState, max_turns: int = 60, policy: Callable[[GameState], Turn] | None = None) -> bool:
    """Play ``state`` (a fully known world) to the end with ``fast_turn`` (or
    ``policy``); True if won."""
    policy = policy or fast_turn
    for _ in range(max_turns):
        if state.is_over:
            break
        state = play(state, policy(state))
    return state.outcome.status is Status.WON


# ----------------------------------------------------------------------------
# The hint
# ----------------------------------------------------------------------------


@dataclass
class Candidate:
    """One command group under evaluation."""

    turn: Turn
    key: tuple
    values: list[float] = field(default_factory=list)
    wins: int = 0
    n: int = 0
    variants: int = 1
    """How many legal turns this group stands for (re-scan choices included)."""

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values) if self.values else -math.inf

    @property
    def win(self) -> float:
        return self.wins / self.n if self.n else 0.0

    def rank(self) -> tuple:
        return (self.win if self.n else -1.0, self.mean)


@dataclass
class Hint:
    """The answer: the best turn, its win estimate with a Wilson 95% interval, the
    runner-up, and a one-line reason."""

    best: Turn
    win: float
    low: float
    high: float
    samples: int
    reason: str
    runner_up: Turn | None = None
    runner_up_win: float | None = None
    runner_up_samples: int = 0
    worlds: int = 0
    candidates: int = 0
    legal: int = 0
    seconds: float = 0.0
    method: str = ""

    def __str__(self) -> str:
        lines = [
            f"best: {self.best}",
            f"  win ≈ {self.win:.0%} (95% CI {self.low:.0%}-{self.high:.0%}, "
            f"{self.samples} playouts in sampled worlds)",
            f"  why: {self.reason}",
        ]
        if self.runner_up is not None:
            lines.append(
                f"runner-up: {self.runner_up}"
                + (
                    f" (win ≈ {self.runner_up_win:.0%}, {self.runner_up_samples} playouts)"
                    if self.runner_up_win is not None
                    else ""
                )
            )
        lines.append(
            f"({self.legal} legal turns in {self.candidates} command groups, {self.worlds} "
            f"worlds, {self.seconds:.2f}s; {self.method})"
        )
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "best": str(self.best),
            "win": round(self.win, 4),
            "ci95": [round(self.low, 4), round(self.high, 4)],
            "samples": self.samples,
            "reason": self.reason,
            "runner_up": None if self.runner_up is None else str(self.runner_up),
            "runner_up_win": None if self.runner_up_win is None else round(self.runner_up_win, 4),
            "runner_up_samples": self.runner_up_samples,
            "worlds": self.worlds,
            "candidates": self.candidates,
            "legal": self.legal,
            "seconds": round(self.seconds, 3),
            "method": self.method,
        }


class GameOverObservation(ValueError):
    """A hint was asked for a finished game."""


def hint(
    observation: Observation,
    *,
    budget: float | None = 2.0,
    seed: int = 0,
    worlds: int = 32,
    screen_worlds: int = 8,
    finalists: int = 4,
    rollouts: int | None = None,
    solver_nodes: int = 0,
    playouts: bool = True,
) -> Hint:
    """The best next turn for ``observation``'s player, from what they can see.

    ``budget``: seconds (None: no limit; then each finalist gets ``rollouts``
    playouts, default ``worlds``). ``seed`` makes the answer deterministic for a
    fixed amount of work. ``solver_nodes`` > 0 lets the exact solver settle each
    playout first. ``playouts=False`` stops after the heuristic screening (the
    win estimate is then not available: ``samples`` is 0).
    Raises ``InconsistentObservationError`` for an impossible observation."""
    t0 = time.perf_counter()
    deadline = math.inf if budget is None else t0 + budget
    reserve = 0.0 if budget is None else 0.1 * budget  # for the re-scan choice
    if observation.outcome.status is not Status.ONGOING:
        raise GameOverObservation(f"the game is over ({observation.outcome})")
    if observation.active != observation.player:
        raise ValueError("hints are for the active player (the observation is another player's)")
    sampler = WorldSampler(observation)
    rng = random.Random(seed)
    ws = [sampler.sample(rng) for _ in range(worlds)]

    # --- candidates: grouped by command effect --------------------------------
    base = ws[0]
    by_key: dict[tuple, Candidate] = {}
    legal = legal_turns(base)
    for t in legal:
        k = turn_key(base, t)
        c = by_key.get(k)
        if c is None:
            by_key[k] = Candidate(Turn(t.command, t.bolster, t.second), k)
        else:
            c.variants += 1
    if observation.options.players > 1:
        # Turns using another player's cards depend on hands the player cannot
        # see: keep the groups legal in other worlds too.
        for w in ws[1:4]:
            keys = {turn_key(w, t) for t in legal_turns(w)}
            by_key = {k: c for k, c in by_key.items() if k in keys}
    cands = list(by_key.values())
    if not cands:
        raise ValueError("no legal turn")

    # --- stage 1: heuristic screening, successive halving ---------------------
    n1 = min(screen_worlds, len(ws))
    alive = list(cands)
    lo = 0
    for hi, keep in ((1, 40), (min(3, n1), 12), (n1, finalists)):
        for w in ws[lo:hi]:
            for c in alive:
                c.values.append(value(play(w, c.turn)))
        lo = hi
        alive.sort(key=lambda c: c.mean, reverse=True)
        alive = alive[: max(1, keep)]
        if time.perf_counter() > deadline - reserve:
            break
    top = alive[: max(1, finalists)]

    # --- stage 2: playouts with successive halving ----------------------------
    contenders = list(top)
    want = rollouts if rollouts is not None else len(ws)
    w_index = n1 % len(ws)
    done = 0
    while playouts and time.perf_counter() < deadline - reserve:
        w = ws[w_index % len(ws)]
        w_index += 1
        done += 1
        for c in contenders:
            if time.perf_counter() > deadline - reserve:
                break
            c.wins += _playout(play(w, c.turn), solver_nodes)
            c.n += 1
        if budget is None and all(c.n >= want for c in contenders):
            break
        # Halve after every few worlds: the time goes to the contenders.
        if len(contenders) > 2 and done % 4 == 0:
            contenders.sort(key=lambda c: c.rank(), reverse=True)
            contenders = contenders[: (len(contenders) + 1) // 2]
    ranked = sorted(top, key=lambda c: c.rank(), reverse=True)
    best = ranked[0]
    runner = ranked[1] if len(ranked) > 1 else None

    # --- the re-scan: the best fixed choice for the best command -------------
    best_turn = _best_rescan(best.turn, ws[: min(4, n1)], deadline + reserve)
    low, high = wilson(best.wins, best.n)
    method = "PIMC: exact world sampling, heuristic screening"
    if playouts:
        method += ", greedy playouts with successive halving"
    if solver_nodes:
        method += f", solver up to {solver_nodes} nodes a playout"
    return Hint(
        best=best_turn,
        win=best.win,
        low=low,
        high=high,
        samples=best.n,
        reason=explain(observation, best_turn, runner.turn if runner else None),
        runner_up=runner.turn if runner else None,
        runner_up_win=runner.win if runner and runner.n else None,
        runner_up_samples=runner.n if runner else 0,
        worlds=len(ws),
        candidates=len(cands),
        legal=len(legal),
        seconds=time.perf_counter() - t0,
        method=method,
    )


def _best_rescan(turn: Turn, ws: Sequence[GameState], deadline: float) -> Turn:
    """The fixed re-scan choice with the best mean value over ``ws`` (where it is
    not legal in a world, the per-world policy stands in)."""
    options: set[frozenset[int]] = set()
    for w in ws:
        s, f = _after_command(w, turn)
        if not s.is_over:
            options.update(rescan_choices(s, f))
    if len(options) <= 1:
        return Turn(turn.command, turn.bolster, turn.second, next(iter(options), frozenset()))
    scores: dict[frozenset[int], float] = {}
    for cols in sorted(options, key=sorted):
        if time.perf_counter() > deadline and scores:
            break
        scores[cols] = sum(value(play(w, turn, cols)) for w in ws)
    cols = max(scores, key=lambda k: (scores[k], -min(k)))
    return Turn(turn.command, turn.bolster, turn.second, cols)


def _playout(state: GameState, solver_nodes: int) -> int:
    if state.is_over:
        return int(state.outcome.status is Status.WON)
    if solver_nodes > 0:
        from .api import solve

        res = solve(state, mode="deal", max_nodes=solver_nodes, progress=_quiet)
        if res.status == "solved":
            return 1
        if res.status == "unsolvable":
            return 0
    return int(rollout(state))


def _quiet(_: dict) -> None:
    return None


# ----------------------------------------------------------------------------
# Reasons a person understands
# ----------------------------------------------------------------------------

_NAMES = {"E": "Empty", "B": "Boost", "A": "Asteroid", "O": "Obstructed"}
_DIRS = {Direction.UP: "up", Direction.DOWN: "down", Direction.LEFT: "left", Direction.RIGHT: "right"}


def _known_down(obs: Observation, pos: Pos) -> str | None:
    cell = obs.cell(pos)
    if isinstance(cell, SeenCard) and cell.down is not None:
        return cell.down.value
    return None


def explain(obs: Observation, turn: Turn, runner: Turn | None = None) -> str:
    """One line: what the best turn does and why, in the player's terms."""
    cmd = turn.command
    parts: list[str] = []
    if turn.bolster:
        parts.append(f"spends {turn.bolster} sample(s) on shields")
    if cmd is None:
        parts.append("no card to play: draw and re-scan")
        return "; ".join(parts)
    a = cmd.action
    margs: dict[Pos, dict[str, float]] | None = None

    def danger(pos: Pos) -> str:
        nonlocal margs
        cell = obs.cell(pos)
        if isinstance(cell, SeenGap):
            return "a gap"
        assert isinstance(cell, SeenCard)
        if cell.start:
            return "the start card (always Empty)"
        known = _known_down(obs, pos)
        if known is not None:
            how = "you peeked" if cell.side is Side.FRONT else "you saw"
            return f"the card {how} as {_NAMES[known]}"
        if margs is None:
            margs = down_side_marginals(obs)
        m = margs.get(pos, {})
        safe = m.get("E", 0) + m.get("B", 0) + (m.get("A", 0) if obs.shields == 2 else 0)
        return f"an unseen card ({safe:.0%} safe to enter)"

    if a.kind is ActionKind.FLY:
        assert a.direction is not None
        target = a.direction.step(obs.ship)
        if target == EARTH:
            parts.append("flies to Earth with the virus sample")
        elif not on_grid(target):
            parts.append(f"flies {_DIRS[a.direction]} off the grid")
        else:
            parts.append(f"flies {_DIRS[a.direction]} onto {danger(target)} at {format_pos(target)}")
            cell = obs.cell(target)
            if isinstance(cell, SeenCard) and cell.sample:
                parts.append("picks up the sample there")
    elif a.kind is ActionKind.PEEK:
        assert a.direction is not None
        parts.append(f"peeks {_DIRS[a.direction]} to learn the cards ahead before moving")
    elif a.kind is ActionKind.SHIELDS:
        parts.append(f"charges shields to {min(2, obs.shields + 1)} (an asteroid needs 2)")
    elif a.kind is ActionKind.FLIP:
        assert a.target is not None
        parts.append(f"flips {format_pos(a.target)}: its other side is {danger(a.target)[0:]}")
    elif a.kind is ActionKind.SHIFT:
        parts.append(f"shifts row {a.row} to line up a safer card")
    if len(cmd.cards) == 2:
        parts.append("two Fly cards to turn")
    elif len(cmd.cards) == 3:
        parts.append("three cards as a wild")
    ahead = _threat_ahead(obs)
    if ahead:
        parts.append(ahead)
    if turn.rescan:
        parts.append("re-scan flips column(s) " + ",".join(str(c) for c in sorted(turn.rescan)))
    return "; ".join(parts)


def _threat_ahead(obs: Observation) -> str:
    """The nearest known danger straight ahead of the ship, if any."""
    if not on_grid(obs.ship):
        return ""
    r, c = obs.ship
    for k in (1, 2):
        pos = (r + k, c)
        if not on_grid(pos):
            return ""
        cell = obs.cell(pos)
        if isinstance(cell, SeenGap):
            return f"the gap {'two ' if k == 2 else ''}ahead must be flown around"
        down = _known_down(obs, pos)
        if down == "A" and obs.shields < 2:
            return f"the asteroid {'two ' if k == 2 else ''}ahead needs shields first"
        if down == "O":
            return f"the obstruction {'two ' if k == 2 else ''}ahead must be flown around"
    return ""
