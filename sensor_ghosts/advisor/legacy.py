"""The previous hint engine, kept as the bot study's ``hint-old`` for
comparison (``advisor.search`` is the hint engine; its figures against this one
are in docs/HINTS.md). The greedy and cheating bots use its route-following
policies (``fast_turn``, ``policy_turn``).

Hints for a stuck player: the best next turn and a chance of winning,
computed from what the player can see (RULES.md §14), never from the hidden truth.

Method. First, in solo games, a **careful plan** (``careful_turn``): one
sampled world, with every down side the player has not seen taken as
Obstructed (``worlds.worst_case``), solved for the fewest turns. Such a plan
never enters a card whose down side is unknown when the ship gets there, so it
does not gamble on hidden cards; only the draws and the face-down samples are
guesses, and a player asks again next turn. When one is found within
``CAREFUL_SHARE`` of the budget, its first turn (and re-scan) is the hint, and
the rest of the budget estimates its chance. Otherwise (or with more players)
the hint comes from Monte Carlo over sampled worlds, with pruning and staged
evaluation:

1. **Worlds.** ``WorldSampler`` draws hidden worlds uniformly among those
   consistent with the observation (exact counting, ``worlds.py``). The same
   worlds serve every candidate (common random numbers).
2. **Candidates, pruned.** A position has hundreds to thousands of legal turns,
   mostly re-scan and Deep-Scan variants. (a) Turns are grouped by *command
   effect* (``turn_key``: bolster; the kinds of the cards played — cards of
   one kind are interchangeable to a player who cannot see the deck order,
   [D22]; the action; the heading left [D11]; the pod's direction and value
   §10); the re-scan is left out, since it is chosen after the command's
   result is seen. (b) ``_prune``: for one effect only the cheapest cards
   (``CARD_WEIGHT``, the Wild dearest); Deep Scan flips only within 3 steps of
   the ship, shifts only of the two rows ahead. Typically 1,600-2,700 legal
   turns become ~170-290 groups, then ~30-60 candidates.
3. **Screening** (successive halving: 1 world for all, 3 for the best 40, 8 for
   the best 12): each candidate is applied in a world and the result scored by
   ``value``, a calibrated win-chance estimate from a route search
   (``route``: cards needed to reach a virus sample and Earth, with the row
   shifts of §8, flips, shields and turning costs; unseen cards carry risk).
4. **Ranking** of the finalists in more worlds, each with the re-scan chosen
   after its outcome (the best re-scan by value in that world), because the
   re-scan changes the value a lot.
5. **Win estimate**: playouts of the best two to the end of the game in the
   sampled worlds with ``fast_turn`` (a route-following policy), optionally
   settled exactly by the solver (``solver_nodes`` > 0). wins / playouts with a
   Wilson 95% interval.
6. **The hinted re-scan**: the fixed choice with the best mean value.
7. **Budget**: every stage checks the deadline (``budget`` seconds, default
   2.0) and the best answer so far is returned. Deterministic for a seed and a
   fixed amount of work (``budget=None``).

**Beyond plain sampling — against strategy fusion.** Plain PIMC (``honest=
False``) scores every world as if the player knew it: waiting and peeking look
free of risk, so it dawdles. ``honest=True`` scores worlds only with what the
player has seen (unseen cards carry the card set's risk). The default,
``PARTIAL``, is in between: seen cards and the rows two or more ahead (which the
re-scan will show before the ship gets there) are known, the near rows are not.
``benchmarks/bots.py`` measures the three (bots ``hint-pimc``, ``hint-honest``,
``hint``).

Settling dozens of candidate turns in many worlds with the exact solver is
still too slow for 2 seconds (one sampled world from the dock takes tens of
milliseconds to seconds), so inside the budget the playouts' solver is off by
default (``solver_nodes=0``); the solver's budget goes to the careful plan.
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
from ..rules.engine import legal_turns
from ..rules.geometry import (
    COLS,
    DOCK,
    EARTH,
    ROWS,
    Direction,
    Pos,
    format_pos,
    on_grid,
)
from ..rules.observation import Observation, SeenCard, SeenGap
from ..rules.rescan import rescan_choices, rescan_row
from ..rules.setup import Gap, Slot
from ..rules.state import GameState, Status
from ..rules.turns import DECK_PLAYER, ActionKind, Command, PlayedCard, Turn
from ..solver import compiled
from ..solver.worlds import WorldSampler, down_side_marginals
from .search import after_command as _after_command
from .search import finish as _finish
from .search import wilson

__all__ = [
    "Candidate",
    "Hint",
    "command_key",
    "hint",
    "rollout",
    "value",
    "wilson",
]


# ----------------------------------------------------------------------------
# Small statistics
# ----------------------------------------------------------------------------


# ----------------------------------------------------------------------------
# Perfect-information evaluation of one world
# ----------------------------------------------------------------------------


FIX_COST = 1.5
"""Extra cards to make a card of a near row safe before entering it: a Deep
Scan flip (one card, or three as a wild)."""
WAIT_COST = 1.0
"""Cards per turn spent waiting for the row ahead to shift a card into place."""
RISK_WEIGHT = 3.0
"""How many cards a route gives to avoid a unit of risk (-ln of the chance to
survive): 3 cards to avoid a 1-in-e death, about 2 cards for a coin flip."""

FAR_RISK = 0.25
"""An unseen card two or more rows ahead will be seen (re-scan flips, peeks)
before the ship gets there: only this share of its risk counts now."""

OK, FIX, SHIELD, BLIND = 0, 1, 2, 3
PARTIAL = 2
"""``informed=PARTIAL``: cards two or more rows ahead count as known (the
re-scan will have shown them by the time the ship gets there); the rows the ship
can reach now count only as far as the player has seen them."""
_SAFE = (SectorType.EMPTY, SectorType.BOOST)


def _priors(state: GameState) -> tuple[dict, dict]:
    """P(down side safe | visible side) from the card set (front up: the backs of
    that front's row; back up: the fronts of that back's column). Known cards are
    not removed: a cheap approximation of ``down_side_marginals``."""
    cache = state.setup.sector_cards
    hit = _PRIOR_CACHE.get(id(cache))
    if hit is not None and hit[0] is cache:
        return hit[1], hit[2]
    pairs = cache.pair_counts()
    by_front: dict = {}
    by_back: dict = {}
    for t in SectorType:
        row = {b: n for (f, b), n in pairs.items() if f is t}
        col = {f: n for (f, b), n in pairs.items() if b is t}
        by_front[t] = {k: v / max(1, sum(row.values())) for k, v in row.items()}
        by_back[t] = {k: v / max(1, sum(col.values())) for k, v in col.items()}
    _PRIOR_CACHE[id(cache)] = (cache, by_front, by_back)
    return by_front, by_back


_PRIOR_CACHE: dict[int, tuple] = {}


def _p_virus(state: GameState) -> float:
    """The chance that a face-down token is a virus, from public counts (§14)."""
    on_board = sum(1 for row in state.grid for c in row if isinstance(c, Slot) and c.sample)
    collected = 5 - on_board - state.rocks_found - state.lost_unseen
    hidden = on_board + state.lost_unseen
    return max(0.0, 3 - collected) / hidden if hidden else 0.0


def _cell_costs(state: GameState, informed: bool) -> dict[Pos, tuple]:
    """For every card cell that can be entered: (cards it costs — 1 for the move,
    more when it must be flipped first or shields charged —, the risk of entering
    it blind as -ln P(safe), the face the ship then meets, the chance it holds a
    virus sample, what it needs first).

    ``informed``: True, every card is known (the cheating bot, the truth);
    ``PARTIAL``, the rows two or more ahead are known, nearer ones as seen. Otherwise a
    card's down side is used only if the player has seen it (``state.seen``);
    an unseen one is entered blind at the risk the card set gives, or flipped
    first. Face-down tokens are virus with the public odds."""
    out: dict[Pos, tuple] = {}
    sh = state.shields
    # A flip costs a Deep Scan (or more, as a wild); not tied to the hand held
    # now, so that cycling cards to draw a Deep Scan is not mistaken for
    # progress. In the rows two or more ahead the re-scan flips cards for free.
    fix = FIX_COST
    rescan_row_ = state.ship_row + 2 if state.ship != EARTH else 0
    seen = state.seen
    pv = _p_virus(state)
    by_front, by_back = _priors(state)
    for r, row in enumerate(state.grid, 1):
        for c, cell in enumerate(row, 1):
            if isinstance(cell, Gap):
                continue
            card = cell.card
            # Rows two or more ahead will pass through the re-scan (two flips a
            # turn) before the ship gets there: fixing them is nearly free.
            far = r >= rescan_row_
            if cell.sample is None:
                virus = 0.0
            elif informed is True or informed == 1:
                virus = 1.0 if cell.sample.virus else 0.0
            else:
                virus = pv
            if card.start:
                out[(r, c)] = (1.0, 0.0, SectorType.EMPTY, virus, OK)
                continue
            front_up = cell.up is Side.FRONT
            up = card.front if front_up else card.back
            fixing = 1.0 + (0.4 if far else fix)
            if (
                (informed is True or informed == 1)
                or card.id in seen
                or (informed == PARTIAL and far)
            ):
                down = card.back if front_up else card.front
                if down in _SAFE:
                    out[(r, c)] = (1.0, 0.0, down, virus, OK)
                elif up in _SAFE:
                    out[(r, c)] = (fixing, 0.0, up, virus, FIX)
                elif down is SectorType.ASTEROID:
                    need = max(0, 2 - sh)
                    out[(r, c)] = (1.0 + need, 0.0, SectorType.EMPTY, virus, SHIELD if need else OK)
                continue
            dist = (by_front if front_up else by_back)[up]
            p = dist.get(SectorType.EMPTY, 0.0) + dist.get(SectorType.BOOST, 0.0)
            if sh == 2:
                p += dist.get(SectorType.ASTEROID, 0.0)
            risk = -math.log(p) if p > 0 else 50.0
            blind_cards = 1.0
            if far:  # it will be seen (re-scan, peek) before the ship gets there
                risk *= FAR_RISK
                blind_cards = 1.0 + FAR_RISK
            if up in _SAFE and fixing < blind_cards + RISK_WEIGHT * risk:
                out[(r, c)] = (fixing, 0.0, up, virus, FIX)
            elif p > 0:
                out[(r, c)] = (blind_cards, risk, SectorType.EMPTY, virus, BLIND)
    return out


def route(state: GameState, informed: bool = True) -> tuple[float, float, tuple | None]:
    """An estimate of the cards needed to collect enough virus samples and reach
    Earth, the risk taken on the way (-ln of the chance to survive it), and the
    route's first step ``(direction, wait, cell entered, need)``.

    Dijkstra on cards + ``RISK_WEIGHT`` x risk over (row, ship column, rotation
    of the ship's row, sample still needed): sideways moves meet the cards of the
    ship's row as it has rotated; a move up may first wait k turns (k cards) for
    the row ahead, which shifts left every turn (§8), to bring any of its cards
    above the ship; boosts chain; cards that must be flipped or shielded first
    cost more, unseen ones are risky (``_cell_costs``). Collecting a face-down
    token that may be rock is a risk too."""
    if state.ship == EARTH:
        return 0.0, 0.0, None
    costs = _cell_costs(state, informed)
    need = 1 if state.held < state.options.samples_to_win else 0
    # The heading's axis (0 none, 1 vertical, 2 sideways): turning costs a card
    # (two Fly cards, [D11]).
    h = state.heading
    axis = 0 if h is None else (1 if h in (Direction.UP, Direction.DOWN) else 2)
    if state.ship == DOCK:
        start = (1, 0, 0, need, axis)
    else:
        start = (state.ship[0], state.ship[1], 0, need, axis)
    best: dict[tuple, float] = {start: 0.0}
    first: dict[tuple, tuple | None] = {start: None}
    heap: list[tuple[float, float, float, tuple]] = [(0.0, 0.0, 0.0, start)]
    push, pop = heapq.heappush, heapq.heappop
    right, up_d, left_d = Direction.RIGHT, Direction.UP, Direction.LEFT
    lam = RISK_WEIGHT

    def enter(info, cards, risk, lft):
        cards += info[0]
        risk += info[1]
        if lft and info[3] > 0:
            if info[3] >= 1.0:
                lft = 0
            else:  # a face-down token: counted as the virus, at its odds
                risk += -math.log(info[3])
                lft = 0
        return cards, risk, lft

    while heap:
        comb, cards0, risk0, node = pop(heap)
        if best.get(node, 1e18) < comb:
            continue
        r, x, rot, left, ax = node
        f0 = first[node]
        # Sideways (boosts chain along the row).
        for dx in (-1, 1):
            cx, cards, risk, lft, step = x, cards0 + (ax == 1), risk0, left, None
            while True:
                nx = cx + dx
                if r == ROWS and nx == COLS + 1:
                    if lft == 0:
                        return cards + 1, risk, f0 or (right, 0, EARTH, OK)
                    break
                if not 1 <= nx <= COLS:
                    break
                cell = (r, (nx - 1 + rot) % COLS + 1)
                info = costs.get(cell)
                if info is None or (step is not None and info[4] != OK):
                    break  # nothing can be prepared in the middle of a boost chain
                if step is None:
                    step = f0 or (right if dx == 1 else left_d, 0, cell, info[4])
                cards, risk, lft = enter(info, cards, risk, lft)
                cx = nx
                if info[2] is not SectorType.BOOST:
                    key = (r, cx, rot, lft, 2)
                    comb = cards + lam * risk
                    if comb < best.get(key, 1e18):
                        best[key], first[key] = comb, step
                        push(heap, (comb, cards, risk, key))
                    break
                cards -= 1.0  # a boost's onward move is free
        if x == 0:
            continue  # from the dock only right
        # Up, after waiting k turns for the row ahead; boosts chain upwards.
        for k in range(COLS):
            cr, cards, risk, lft, rr, step = (
                r,
                cards0 + k * WAIT_COST + (ax == 2),
                risk0,
                left,
                k,
                None,
            )
            while True:
                nr = cr + 1
                if nr > ROWS:
                    break
                cell = (nr, (x - 1 + rr) % COLS + 1)
                info = costs.get(cell)
                if info is None or (step is not None and info[4] != OK):
                    break
                if step is None:
                    # Flipping or charging shields for a card of the row ahead
                    # takes turns, during which that row shifts: the card must
                    # be k >= that many columns away, and those turns are the wait.
                    busy = 1 if info[4] == FIX else round(info[0] - 1) if info[4] == SHIELD else 0
                    if k < busy:
                        break
                    cards -= busy * WAIT_COST
                    step = f0 or (up_d, k, cell, info[4])
                cards, risk, lft = enter(info, cards, risk, lft)
                cr = nr
                if info[2] is not SectorType.BOOST:
                    key = (cr, x, rr, lft, 1)
                    comb = cards + lam * risk
                    if comb < best.get(key, 1e18):
                        best[key], first[key] = comb, step
                        push(heap, (comb, cards, risk, key))
                    break
                cards -= 1.0
                rr = 0  # rows further ahead have not shifted
        # Down (rare): the row behind, as it lies now.
        if r > 1:
            cell = (r - 1, x)
            info = costs.get(cell)
            if info is not None and info[2] is not SectorType.BOOST:
                cards, risk, lft = enter(info, cards0 + (ax == 2), risk0, left)
                key = (r - 1, x, 0, lft, 1)
                comb = cards + lam * risk
                if comb < best.get(key, 1e18):
                    best[key], first[key] = comb, f0 or (Direction.DOWN, 0, cell, info[4])
                    push(heap, (comb, cards, risk, key))
    return math.inf, math.inf, None


def route_cost(state: GameState, informed: bool = True) -> float:
    """The cards ``route`` needs (inf when no route is found)."""
    return route(state, informed)[0]


def cards_left(state: GameState) -> int:
    """Command cards the active player can still play before the deck runs out."""
    n = len(state.hands[state.active]) + len(state.deck)
    if not state.second_pass:
        # The reshuffle brings back the pile, the cards played until then and the
        # Wild [D15]; the hand held at that moment stays in the hand.
        n += len(state.discard) + n - state.options.hand_limit + 1
    return n


# Logistic calibration of the win chance against the route's margin, fitted on
# 1161 positions of 80 generated standard games played by ``fast_turn`` with
# perfect information (41% won): P(win) = sigmoid(A + B * spare + C * cost).
CAL_A, CAL_B, CAL_C = -0.79, 0.27, -0.02


def value(state: GameState, informed: bool = True) -> float:
    """An estimate, in [0, 1], of the chance to win ``state``: 1 won, 0 lost, else
    the chance to survive the route's blind steps times a logistic function of
    the spare cards (cards left minus the route's cards) and the route's length.
    ``informed=False`` uses only what the player has seen (§14)."""
    if state.outcome.status is Status.WON:
        return 1.0
    if state.outcome.status is Status.LOST:
        return 0.0
    cost, risk, _ = route(state, informed)
    if math.isinf(cost):
        # No route now (rows shift every turn): a small chance, more with progress.
        return 0.02 + 0.005 * state.ship_row
    spare = cards_left(state) - cost
    z = CAL_A + CAL_B * spare + CAL_C * cost + 0.05 * state.shields
    return math.exp(-risk) / (1.0 + math.exp(-z))


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


def _safe(t: SectorType | None, shields: int) -> float:
    if t is None:
        return 0.5
    if t in (SectorType.EMPTY, SectorType.BOOST):
        return 1.0
    if t is SectorType.ASTEROID:
        return 0.5 if shields == 2 else 0.0
    return 0.0


def rescan_policy(
    state: GameState,
    flipped: frozenset[int],
    down: Callable[[Pos], SectorType | None] | None = None,
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
    return max(choices, key=lambda ch: (sum(gains[c] for c in ch), -min(ch, default=0)))


def seen_down(state: GameState) -> Callable[[Pos], SectorType | None]:
    """A card's down side if the player has seen it, else None (§14)."""

    def down(pos: Pos) -> SectorType | None:
        cell = state.cell(pos)
        if isinstance(cell, Slot) and (cell.card.start or cell.card.id in state.seen):
            return cell.down
        return None

    return down


def play(
    state: GameState, turn: Turn, cols: frozenset[int] | None = None, informed: bool = True
) -> GameState:
    """``turn`` in ``state`` (a world); its re-scan if legal there, else ``cols``,
    else ``rescan_policy`` (on what the player has seen unless ``informed``)."""
    s, flipped = _after_command(state, turn)
    if s.is_over:
        return s
    choices = rescan_choices(s, flipped)
    for want in (turn.rescan, cols):
        if want is not None and want in choices:
            return _finish(s, flipped, want)
    return _finish(s, flipped, rescan_policy(s, flipped, None if informed else seen_down(s)))


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


def policy_turn(state: GameState, informed: bool = True) -> Turn:
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
        down = None if informed else seen_down(s)
        return Turn(None, rescan=rescan_policy(s, f, down) if not s.is_over else frozenset())
    for b in bolsters:
        s0 = state.evolve(shields=min(2, state.shields + b), held=state.held - b)
        for cmd in legal_commands(s0):
            if not _useful(s0, cmd):
                if cmd.action.kind is ActionKind.PEEK and (
                    wait is None or len(cmd.cards) < len(wait.cards)
                ):
                    wait = cmd
                continue
            # The cheapest cards for each effect (action and heading left).
            key = (b, cmd.action, cmd.arrow, cmd.pod_direction)
            if key in seen:
                continue
            seen.add(key)
            t = Turn(cmd, b)
            v = _score(state, t, informed)
            cand = (v, -len(cmd.cards))
            if best is None or cand > best:
                best, best_turn = cand, t
    if wait is not None:
        t = Turn(wait, 0)
        cand = (_score(state, t, informed), -len(wait.cards))
        if best is None or cand > best:
            best, best_turn = cand, t
    if best_turn is None:  # only peeks were legal and none kept: take any legal turn
        return legal_turns(state)[0]
    s, flipped = _after_command(state, best_turn)
    down = None if informed else seen_down(s)
    cols = rescan_policy(s, flipped, down) if not s.is_over else frozenset()
    return Turn(best_turn.command, best_turn.bolster, best_turn.second, cols)


def _score(state: GameState, turn: Turn, informed: bool) -> float:
    return value(play(state, turn, informed=informed), informed)


def _card_cost(state: GameState, cmd: Command) -> float:
    wild = state.setup.command_cards.wild.id
    return len(cmd.cards) + sum(1.5 for pc in cmd.cards if pc.card == wild)


def fast_turn(state: GameState, informed: bool = True) -> Turn:
    """A fast perfect-information turn: follow the first step of ``route`` — fly
    there, or first flip the card (Deep Scan), charge shields, or wait a turn
    (shift the row ahead, charge shields, peek) for the row ahead to bring the
    right card; cheapest cards; re-scan by ``rescan_policy``. Falls back to the
    slower ``policy_turn`` when no route is found."""
    if not state.hands[state.active]:
        return policy_turn(state, informed)
    _, _, step = route(state, informed)
    if step is None:
        return policy_turn(state, informed)
    d, k, cell, need = step
    cheapest: dict = {}
    for cmd in legal_commands(state):
        cost = _card_cost(state, cmd)
        a = cmd.action
        if a.kind is ActionKind.PEEK:
            if a not in cheapest or cost < cheapest[a][0]:
                cheapest[a] = (cost, cmd)
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
    elif k == 0 and need == BLIND:
        # Look before leaping, when a cheap peek that way is at hand.
        peek = cheapest.get(Action(ActionKind.PEEK, d))
        if peek is not None and peek[0] > 2:
            peek = None
        chosen = peek[1] if peek is not None else get(Action(ActionKind.FLY, d))
    elif need == FIX and cell != EARTH:
        # Flip it now: a card of the row ahead then shifts into place while
        # the ship waits (``route`` counted the flip as one of the k turns).
        chosen = get(Action(ActionKind.FLIP, target=cell))
    elif need == SHIELD:
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
        return policy_turn(state, informed)
    t = Turn(chosen, bolster)
    s, flipped = _after_command(state, t)
    down = None if informed else seen_down(s)
    cols = rescan_policy(s, flipped, down) if not s.is_over else frozenset()
    return Turn(chosen, bolster, None, cols)


def rollout(state: GameState, max_turns: int = 60, informed: bool = True) -> bool:
    """Play ``state`` (a world) to the end with ``fast_turn``; True if won.
    ``informed=False``: the policy uses only what the player has seen so far in
    that world (peeks, flips, cards entered), never the world's hidden truth —
    the playout respects the information the real player would have."""
    for _ in range(max_turns):
        if state.is_over:
            break
        state = play(state, fast_turn(state, informed), informed=informed)
    return state.outcome.status is Status.WON


# ----------------------------------------------------------------------------
# A careful plan: never rely on a hidden down side
# ----------------------------------------------------------------------------

CAREFUL_NODES = 3000
"""Node budget of the careful plan's search (a node is a turn expanded)."""
CAREFUL_SHARE = 0.75
"""Share of a hint's time budget the careful plan may use."""


def careful_turn(world: GameState, *, timeout: float | None, max_nodes: int = CAREFUL_NODES) -> Turn | None:
    """The first turn of a fewest-turns plan that wins in ``worst_case(world)``:
    every down side the player has not seen taken as Obstructed, the deck order
    and the face-down samples as the sampled ``world`` has them. Such a plan
    enters only cards whose down side is known (peeked, watched, or made known
    by a flip), so it does not gamble on what the player cannot see; only the
    draws and the samples may differ from the real game, which is why a bot
    plans again every turn. None when no such plan is found in the budget.

    Measured against plain sampling (``benchmarks/bots.py``): see the README."""
    from ..solver.api import solve
    from ..solver.worlds import worst_case

    res = solve(worst_case(world), mode="deal", objective="turns-only", timeout=timeout,
                max_nodes=max_nodes)
    if res.status == "solved" and res.plan is not None and res.plan.turns:
        return res.plan.turns[0]
    return None


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

    PRIOR = 40.0
    """Playouts and the screening estimate are blended in the final ranking:
    the screening mean (many worlds, low variance) counts as this many
    playouts."""

    @property
    def blended(self) -> float:
        m = self.mean if self.values else 0.0
        return (self.wins + self.PRIOR * m) / (self.n + self.PRIOR)

    def rank(self) -> tuple:
        return (self.mean, self.blended)


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
    honest: bool | int = PARTIAL,
    prune: bool = True,
    careful: bool = True,
    careful_nodes: int = CAREFUL_NODES,
) -> Hint:
    """The best next turn for ``observation``'s player, from what they can see.

    ``budget``: seconds (None: no limit; then each finalist gets ``rollouts``
    playouts, default ``worlds``). ``seed`` makes the answer deterministic for a
    fixed amount of work. ``solver_nodes`` > 0 lets the exact solver settle each
    playout first. ``playouts=False`` stops after the heuristic screening (the
    win estimate is then not available: ``samples`` is 0). ``careful`` (solo
    games, with a time budget): first look for a plan that never relies on a hidden down side
    (``careful_turn``); when one is found within ``careful_nodes`` nodes and
    ``CAREFUL_SHARE`` of the budget, its first turn is the hint.
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
    # The solver's compiled kernels, loaded outside the budget (``compiled``).
    loading = compiled.load_for(ws[0])
    t0 += loading
    deadline += loading
    planned: Turn | None = None
    if careful and budget is not None and observation.options.players == 1:
        # (Without a time budget it is left out: its search in a world with no
        # careful plan has no cheap end.)
        # Other players' hands are hidden: a plan could lean on their cards.
        share = CAREFUL_SHARE * budget
        planned = careful_turn(ws[0], timeout=share, max_nodes=careful_nodes)
    # What the leaf evaluation and playouts may know of each world: everything
    # (classic PIMC, honest=False), only what the player has seen (True), or
    # PARTIAL (default): seen cards, and the rows the re-scan will show first.
    know: bool | int = PARTIAL if honest == PARTIAL else (not honest)

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
    groups = len(by_key)
    cands = _prune(base, list(by_key.values()), prune)
    if not cands:
        raise ValueError("no legal turn")
    plan_cand: Candidate | None = None
    if planned is not None:
        pk = turn_key(base, planned)
        plan_cand = next((c for c in cands if c.key == pk), None)
        if plan_cand is None:
            plan_cand = by_key.get(pk) or Candidate(Turn(planned.command, planned.bolster, planned.second), pk)
            cands.append(plan_cand)

    # --- stage 1: heuristic screening, successive halving ---------------------
    n1 = min(screen_worlds, len(ws))
    # A cheap prior order, so that a budget cut keeps the likelier turns: moves
    # first, then shields, peeks, shifts, flips; fewer cards first.
    order = {ActionKind.FLY: 0, ActionKind.SHIELDS: 1, ActionKind.PEEK: 2, ActionKind.SHIFT: 3}
    cands.sort(key=lambda c: _prior(c.turn, order))
    alive = list(cands)
    lo = 0
    for hi, keep in ((1, 40), (min(3, n1), 12), (n1, finalists)):
        for w in ws[lo:hi]:
            for c in alive:
                if time.perf_counter() > deadline - reserve and any(x.values for x in alive):
                    break
                c.values.append(value(play(w, c.turn, informed=know), know))
        lo = hi
        alive.sort(key=lambda c: c.mean, reverse=True)
        alive = alive[: max(1, keep)]
        if time.perf_counter() > deadline - reserve:
            break
    top = alive[: max(1, finalists)]

    # --- stage 2: more worlds for the finalists (the ranking) ---------------
    # Screening values vary far less than win/loss playouts, so the ranking
    # rests on them; playouts are for the win estimate (stage 3).
    # Each finalist is re-scored with the re-scan chosen after its outcome
    # (the best choice by value in each world: the re-scan follows the result,
    # which the player sees), since the re-scan moves the value a lot.
    rank_until = t0 + 0.6 * (deadline - t0) if budget is not None else math.inf
    for c in top:
        c.values = []
    w_index = 0
    while w_index < len(ws) and time.perf_counter() < rank_until:
        w = ws[w_index]
        w_index += 1
        for c in top:
            c.values.append(_after_best_rescan(w, c.turn, know))
        if budget is None and w_index >= max(n1, rollouts or 0):
            break
    top = [c for c in top if c.values] or top
    top.sort(key=lambda c: c.mean, reverse=True)

    # --- stage 3: playouts of the best two (the win estimate) ----------------
    contenders = top[:2]
    if plan_cand is not None:
        contenders = [plan_cand] + [c for c in top if c is not plan_cand][:1]
    want = rollouts if rollouts is not None else len(ws)
    k = 0
    while playouts and time.perf_counter() < deadline - reserve:
        w = ws[k % len(ws)]
        k += 1
        for c in contenders if k % 3 == 0 else contenders[:1]:
            if time.perf_counter() > deadline - reserve:
                break
            c.wins += _playout(play(w, c.turn, informed=know), solver_nodes, know)
            c.n += 1
        if budget is None and contenders[0].n >= want:
            break
    ranked = sorted(top, key=lambda c: c.rank(), reverse=True)
    if plan_cand is not None:
        ranked = [plan_cand] + [c for c in ranked if c is not plan_cand]
    best = ranked[0]
    runner = ranked[1] if len(ranked) > 1 else None

    # --- the re-scan: the best fixed choice for the best command -------------
    if plan_cand is not None:
        assert planned is not None
        best_turn = planned  # the plan's own re-scan
    else:
        best_turn = _best_rescan(best.turn, ws[: min(4, n1)], deadline + reserve, know)
    low, high = wilson(best.wins, best.n)
    method = "exact world sampling, staged heuristic screening"
    if plan_cand is not None:
        method = "a careful plan (unseen down sides taken as Obstructed; deck and samples sampled), " + method
    if playouts:
        method += ", route-following playouts of the best two"
    if solver_nodes:
        method += f", solver up to {solver_nodes} nodes a playout"
    if know == PARTIAL:
        method += "; worlds scored on seen cards and the rows two ahead"
    elif know:
        method += "; worlds scored whole (plain PIMC)"
    else:
        method += "; worlds scored on seen cards only"
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
        candidates=groups,
        legal=len(legal),
        seconds=time.perf_counter() - t0,
        method=method,
    )


CARD_WEIGHT = {CommandKind.FLY: 1.0, CommandKind.SHIELDS: 0.9, CommandKind.DEEP_SCAN: 1.2,
               CommandKind.WILD: 3.0}  # fmt: skip
"""How dear a card is to spend, to pick the cheapest cards for one effect."""


def _prune(state: GameState, cands: list[Candidate], prune: bool) -> list[Candidate]:
    """Documented pruning of the command groups before any evaluation:

    - for one effect (bolster, action, heading left, pod direction) only the
      cheapest cards are kept (``CARD_WEIGHT``: the Wild dearest);
    - Deep Scan flips only of cards within 3 steps of the ship, shifts only of
      the two rows ahead (farther cards will pass through the re-scan anyway).
    ``prune=False`` keeps every group."""
    if not prune:
        return cands
    ship = state.ship if state.ship != DOCK else (1, 0)
    best: dict[tuple, tuple[float, Candidate]] = {}
    for c in cands:
        t = c.turn
        cmd = t.command
        if cmd is not None:
            a = cmd.action
            if a.kind is ActionKind.FLIP and a.target is not None:
                if abs(a.target[0] - ship[0]) + abs(a.target[1] - ship[1]) > 3:
                    continue
            if a.kind is ActionKind.SHIFT and not 0 < (a.row or 0) - state.ship_row <= 2:
                continue
        key = (t.bolster, _effect(t.command), _effect(t.second))
        cost = _weight(state, t.command) + _weight(state, t.second)
        if key not in best or cost < best[key][0]:
            best[key] = (cost, c)
    return [c for _, c in best.values()]


def _effect(cmd: Command | None) -> tuple | None:
    if cmd is None:
        return None
    return (cmd.action, cmd.arrow, cmd.pod_direction)


def _weight(state: GameState, cmd: Command | None) -> float:
    if cmd is None:
        return 0.0
    return sum(CARD_WEIGHT[state.kind(pc.card)] for pc in cmd.cards)


def _prior(turn: Turn, order: dict) -> tuple:
    if turn.command is None:
        return (0, 0, 0)
    return (order.get(turn.command.action.kind, 4), len(turn.command.cards), turn.bolster)


def _best_rescan(
    turn: Turn, ws: Sequence[GameState], deadline: float, informed: bool = True
) -> Turn:
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
        scores[cols] = sum(value(play(w, turn, cols, informed=informed), informed) for w in ws)
    cols = max(scores, key=lambda k: (scores[k], -min(k, default=0)))
    return Turn(turn.command, turn.bolster, turn.second, cols)


def _after_best_rescan(world: GameState, turn: Turn, know: bool | int) -> float:
    """The value of ``turn`` in ``world`` with the best re-scan for its outcome."""
    s, flipped = _after_command(world, turn)
    if s.is_over:
        return value(s, know)
    return max(value(_finish(s, flipped, cols), know) for cols in rescan_choices(s, flipped))


def _playout(state: GameState, solver_nodes: int, informed: bool = True) -> int:
    if state.is_over:
        return int(state.outcome.status is Status.WON)
    if solver_nodes > 0:
        from ..solver.api import solve

        # Only whether the world can be won matters here: the fewest turns
        # settle it, without the proof of the fewest cards.
        res = solve(state, mode="deal", objective="turns-only", max_nodes=solver_nodes)
        if res.status == "solved":
            return 1
        if res.status == "unsolvable":
            return 0
    return int(rollout(state, informed=informed))


# ----------------------------------------------------------------------------
# Reasons a person understands
# ----------------------------------------------------------------------------

_NAMES = {"E": "Empty", "B": "Boost", "A": "Asteroid", "O": "Obstructed"}
_DIRS = {
    Direction.UP: "up",
    Direction.DOWN: "down",
    Direction.LEFT: "left",
    Direction.RIGHT: "right",
}


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
            parts.append(
                f"flies {_DIRS[a.direction]} onto {danger(target)} at {format_pos(target)}"
            )
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
