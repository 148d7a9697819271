"""The previous hint engine's estimate of a position (``advisor.legacy``, the
bot study's ``hint-old``; the greedy and cheating bots' policies): a route
search over cards and risk (``route``) and a calibrated win chance from it
(``value``)."""

from __future__ import annotations

import heapq
import math

from ..rules.cards import SectorType, Side
from ..rules.geometry import COLS, DOCK, EARTH, ROWS, Direction, Pos
from ..rules.setup import Gap, Slot
from ..rules.state import GameState, Status

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
Informed = bool | int
"""What an estimate may know of a world: everything (True), only what the
player has seen (False), or ``PARTIAL``."""
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


def _cell_costs(state: GameState, informed: Informed) -> dict[Pos, tuple]:
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


def route(state: GameState, informed: Informed = True) -> tuple[float, float, tuple | None]:
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


def route_cost(state: GameState, informed: Informed = True) -> float:
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


def value(state: GameState, informed: Informed = True) -> float:
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
