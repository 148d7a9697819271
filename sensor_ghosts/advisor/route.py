"""The previous hint engine's estimate of a position (``advisor.legacy``, the
bot study's ``hint-old``; the greedy and cheating bots' policies): a route
search over cards and risk (``route``) and a calibrated win chance from it
(``value``)."""

from __future__ import annotations

import heapq
import math

from ..rules.cards import SectorCard, SectorType, Side
from ..rules.geometry import COLS, DOCK, EARTH, ROWS, Direction, Pos, on_grid
from ..rules.log import Entered
from ..rules.movement import fly
from ..rules.rescan import shift_row
from ..rules.setup import Cell, Gap, Slot
from ..rules.state import GameState, Outcome, Status

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


Entry = tuple[Pos, Pos | None, tuple | None]


class _Walks:
    """The cells a Fly enters in the route's picture of the grid, asked of the
    rules engine (``rules.movement.fly``: boosts chain, Earth, gaps, the edges,
    the dock once left), so that the Fly rule is not written twice.

    The picture (``probe``): every card shows on both sides the face the
    route meets there (``_cell_costs``), Obstructed where the route cannot
    enter; no samples, no pod, no shields. A row the route waits on is shifted
    by the engine's own shift (``rules.rescan.shift_row``). Walks are cached
    for one route search."""

    def __init__(self, state: GameState, costs: dict[Pos, tuple]):
        grid = []
        self.where: dict[int, Pos] = {}
        for r, row in enumerate(state.grid, 1):
            cells: list[Cell] = []
            for c, cell in enumerate(row, 1):
                if isinstance(cell, Slot):
                    self.where[cell.card.id] = (r, c)
                    info = costs.get((r, c))
                    met = info[2] if info is not None else SectorType.OBSTRUCTED
                    card = cell.card if cell.card.start else SectorCard(cell.card.id, met, met)
                    cell = Slot(card, Side.FRONT, None)
                cells.append(cell)
            grid.append(tuple(cells))
        self.probe = state.evolve(grid=tuple(grid), shields=0, pod=None, seen=frozenset(),
                                  outcome=Outcome(Status.ONGOING))
        self._shifted: dict[tuple[int, int], _Picture] = {}
        self.costs = costs
        self._walks: dict[tuple, list[Entry]] = {}

    def _grid(self, row: int, k: int) -> _Picture:
        """The picture with ``row`` shifted ``k`` times (k turns of waiting);
        beyond row 7 there is no row to shift."""
        got = self._shifted.get((row, k))
        if got is None:
            s = self.probe
            for _ in range(k if row <= ROWS else 0):
                s = shift_row(s, row)
            got = self._shifted[(row, k)] = _Picture(s)
        return got

    def walk(self, start: Pos, d: Direction, row: int = 1, k: int = 0) -> list[Entry]:
        """The cells a Fly from ``start`` in ``d`` enters, in order, with ``row``
        shifted ``k`` times: (the cell in the shifted picture, the card's cell
        in ``state`` — EARTH for Earth, None for a gap or off the grid —, its
        ``_cell_costs`` entry or None)."""
        key = (start, d, row, k)
        got = self._walks.get(key)
        if got is None:
            p = self._grid(row, k)
            got = []
            for pos in p.entered(start, d):
                cell = p.state.cell(pos) if on_grid(pos) else None
                real = EARTH if pos == EARTH else (
                    self.where[cell.card.id] if isinstance(cell, Slot) else None)
                got.append((pos, real, self.costs.get(real) if real is not None else None))
            self._walks[key] = got
        return got


_ENTERED: dict[tuple, tuple[Pos, ...]] = {}
"""The engine's walks by what they depend on (``_Picture.entered``)."""


class _Picture:
    """One picture of the grid for ``_Walks``, with what each of its rows and
    columns shows (``line``)."""

    def __init__(self, state: GameState):
        self.state = state
        self._lines: dict[tuple, tuple] = {}

    def line(self, start: Pos, d: Direction) -> tuple:
        """What the cells a Fly from ``start`` in ``d`` can meet show: its row
        or column (the whole grid where ``start`` is off it)."""
        r, c = start
        if d in (Direction.LEFT, Direction.RIGHT) and 1 <= r <= ROWS:
            key: tuple = ("row", r)
        elif d in (Direction.UP, Direction.DOWN) and 1 <= c <= COLS:
            key = ("col", c)
        else:
            key = ("grid",)
        got = self._lines.get(key)
        if got is None:
            grid = self.state.grid
            cells = (grid[r - 1] if key[0] == "row" else tuple(row[c - 1] for row in grid)
                     if key[0] == "col" else tuple(x for row in grid for x in row))
            got = self._lines[key] = tuple(
                (x.card.start, x.card.front, x.card.back, x.up) if isinstance(x, Slot) else None
                for x in cells)
        return got

    def entered(self, start: Pos, d: Direction) -> tuple[Pos, ...]:
        """The cells ``fly`` enters from ``start`` in ``d``. A Fly goes
        straight, so the answer depends only on that line (and the rule
        options): it is remembered by them, as route searches ask the same
        walks again and again."""
        key = (start, d, self.line(start, d), self.state.options)
        got = _ENTERED.get(key)
        if got is None:
            log: list = []
            fly(self.state.evolve(ship=start), d, log)
            got = tuple(e.pos for e in log if isinstance(e, Entered))
            if len(_ENTERED) > 200_000:
                _ENTERED.clear()
            _ENTERED[key] = got
        return got


def _enter(info: tuple, cards: float, risk: float, lft: int) -> tuple[float, float, int]:
    """Cards and risk after entering a cell of ``info`` (``_cell_costs``), and
    the samples still needed."""
    cards += info[0]
    risk += info[1]
    if lft and info[3] > 0:
        if info[3] >= 1.0:
            lft = 0
        else:  # a face-down token: counted as the virus, at its odds
            risk += -math.log(info[3])
            lft = 0
    return cards, risk, lft


Step = tuple[Direction, int, Pos, int]
"""A route's first step: (direction, turns waited, cell entered, what it needs)."""
Node = tuple[int, int, int, int, int]
"""(row, ship column, rotation of the ship's row, samples still needed, the
heading's axis: 0 none, 1 vertical, 2 sideways)."""


class _RouteSearch:
    """Dijkstra on cards + ``RISK_WEIGHT`` x risk over ``Node``s (``route``)."""

    def __init__(self, costs: dict[Pos, tuple], walks: _Walks, start: Node):
        self.costs = costs
        self.walks = walks
        self.best: dict[Node, float] = {start: 0.0}
        self.first: dict[Node, Step | None] = {start: None}
        self.heap: list[tuple[float, float, float, Node]] = [(0.0, 0.0, 0.0, start)]

    def push(self, key: Node, cards: float, risk: float, step: Step | None) -> None:
        comb = cards + RISK_WEIGHT * risk
        if comb < self.best.get(key, 1e18):
            self.best[key], self.first[key] = comb, step
            heapq.heappush(self.heap, (comb, cards, risk, key))

    def run(self) -> tuple[float, float, Step | None]:
        while self.heap:
            comb, cards0, risk0, node = heapq.heappop(self.heap)
            if self.best.get(node, 1e18) < comb:
                continue
            done = self.sideways(node, cards0, risk0)
            if done is not None:
                return done
            if node[1] == 0:
                continue  # from the dock only right
            self.up(node, cards0, risk0)
            self.down(node, cards0, risk0)
        return math.inf, math.inf, None

    def sideways(self, node: Node, cards0: float, risk0: float) -> tuple[float, float, Step] | None:
        """Along the ship's row as it has rotated (boosts chain); the answer
        when Earth is reached with the samples."""
        r, x, rot, left, ax = node
        f0 = self.first[node]
        for d in (Direction.LEFT, Direction.RIGHT):
            cards, risk, lft, step = cards0 + (ax == 1), risk0, left, None
            for (_, cx), cell, info in self.walks.walk((r, x), d, r, rot):
                if cell == EARTH:
                    if lft == 0:
                        return cards + 1, risk, f0 or (Direction.RIGHT, 0, EARTH, OK)
                    break
                if cell is None or info is None or (step is not None and info[4] != OK):
                    break  # nothing can be prepared in the middle of a boost chain
                if step is None:
                    step = f0 or (d, 0, cell, info[4])
                cards, risk, lft = _enter(info, cards, risk, lft)
                if info[2] is not SectorType.BOOST:
                    self.push((r, cx, rot, lft, 2), cards, risk, step)
                    break
                cards -= 1.0  # a boost's onward move is free
        return None

    def up(self, node: Node, cards0: float, risk0: float) -> None:
        """Up after waiting k turns for the row ahead (which shifts left every
        turn, §8) to bring one of its cards above the ship; boosts chain."""
        r, x, _rot, left, ax = node
        f0 = self.first[node]
        for k in range(COLS):
            cards, risk, lft, step = cards0 + k * WAIT_COST + (ax == 2), risk0, left, None
            for i, ((cr, _), cell, info) in enumerate(self.walks.walk((r, x), Direction.UP, r + 1, k)):
                if cell is None or cell == EARTH or info is None or (step is not None and info[4] != OK):
                    break
                if step is None:
                    # Flipping or charging shields for a card of the row ahead
                    # takes turns, during which that row shifts: the card must
                    # be k >= that many columns away, and those turns are the wait.
                    busy = 1 if info[4] == FIX else round(info[0] - 1) if info[4] == SHIELD else 0
                    if k < busy:
                        break
                    cards -= busy * WAIT_COST
                    step = f0 or (Direction.UP, k, cell, info[4])
                cards, risk, lft = _enter(info, cards, risk, lft)
                if info[2] is not SectorType.BOOST:
                    # Rows further ahead than the first have not shifted.
                    self.push((cr, x, k if i == 0 else 0, lft, 1), cards, risk, step)
                    break
                cards -= 1.0

    def down(self, node: Node, cards0: float, risk0: float) -> None:
        """Down (rare): onto the row behind as it lies now, never a boost."""
        r, x, _rot, left, ax = node
        walk = self.walks.walk((r, x), Direction.DOWN)
        _, cell, info = walk[0]
        if cell is not None and info is not None and len(walk) == 1:  # a boost carries on
            cards, risk, lft = _enter(info, cards0 + (ax == 2), risk0, left)
            self.push((r - 1, x, 0, lft, 1), cards, risk,
                      self.first[node] or (Direction.DOWN, 0, cell, info[4]))


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
    token that may be rock is a risk too. Where a Fly goes is the rules
    engine's answer (``_Walks``)."""
    if state.ship == EARTH:
        return 0.0, 0.0, None
    costs = _cell_costs(state, informed)
    need = 1 if state.held < state.options.samples_to_win else 0
    # The heading's axis (0 none, 1 vertical, 2 sideways): turning costs a card
    # (two Fly cards, [D11]).
    h = state.heading
    axis = 0 if h is None else (1 if h in (Direction.UP, Direction.DOWN) else 2)
    row, col = (1, 0) if state.ship == DOCK else state.ship
    return _RouteSearch(costs, _Walks(state, costs), (row, col, 0, need, axis)).run()


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
