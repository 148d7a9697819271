"""What a player can see of the true state (RULES.md §14), kept apart from the
state itself as in OpenSpiel. The hint engine works only from an Observation.

Knowledge of a card, precisely (§14):

- its face-up type, and whether that side is its front or its back (the ring);
- its down side if the player has seen it: a peek, a flip they watched (re-scan,
  Deep Scan, the ship entering it). Every flip shows both sides, so with a
  perfect memory the front of a back-up card is always known; a player who has
  forgotten may still describe it as unknown (``?A`` in the notation) — the
  observation is then weaker, never wrong;
- a start card is Empty on both sides ([D4]) and is always fully known;
- a gap: the front of the removed card was seen at setup, its back never ([D26]).

The card sets are public, so the up sides and the known down sides constrain the
unknown ones: which layouts of the card set fit an observation is a counting
problem, solved exactly by ``PairProblem`` (used to refuse an impossible
observation here, and to sample hidden worlds in ``solver/worlds.py``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from math import factorial

from .cards import CommandCardSet, CommandKind, SectorCardSet, SectorType, Side
from .errors import SensorGhostsError
from .geometry import COLS, DOCK, EARTH, ROWS, Pos, on_grid
from .options import RuleOptions
from .setup import Gap, Slot
from .state import DiscardEntry, GameState, Outcome, Status, heading_of

TOTAL_VIRUS, TOTAL_ROCK = 3, 2
TYPES: tuple[SectorType, ...] = tuple(SectorType)
Pair = tuple[SectorType, SectorType]
"""A sector card as (front, back)."""


class InconsistentObservationError(SensorGhostsError):
    """An observation that parses but that no real game could show: refused, never
    answered. ``reasons`` lists every problem found."""

    def __init__(self, reasons: Sequence[str]):
        self.reasons = list(reasons)
        super().__init__("inconsistent observation: " + "; ".join(self.reasons))


@dataclass(frozen=True)
class SeenCard:
    """A card as the players see it: the face-up type, whether that side is the
    front (the ring shows it), the down side if they have seen it, and whether a
    face-down sample token lies on it."""

    up: SectorType
    side: Side
    down: SectorType | None
    start: bool = False
    sample: bool = False

    @property
    def front(self) -> SectorType | None:
        return self.up if self.side is Side.FRONT else self.down

    @property
    def back(self) -> SectorType | None:
        return self.down if self.side is Side.FRONT else self.up


@dataclass(frozen=True)
class SeenGap:
    """A gap. [D26] Its card's front was seen at setup, its back never."""

    front: SectorType | None


@dataclass(frozen=True)
class Observation:
    player: int
    options: RuleOptions
    grid: tuple[tuple[SeenCard | SeenGap, ...], ...]
    """Seven rows, index 0 is row 1; five cells each, index 0 is column 1."""
    ship: Pos
    pod: Pos | None
    shields: int
    held: int
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    discard: tuple[DiscardEntry, ...]
    deck_size: int
    second_pass: bool
    active: int
    turn: int
    outcome: Outcome
    virus_face_down: int
    """How many of the hidden tokens are virus: the face-down tokens on the board
    together with the tokens lost unseen (§11). Every collected token is revealed."""
    unseen_lost: int
    rocks_found: int = 0
    sector_cards: SectorCardSet = field(default_factory=SectorCardSet.default)
    command_cards: CommandCardSet = field(default_factory=CommandCardSet.default)

    # ----- derived facts -------------------------------------------------
    @property
    def spent(self) -> int:
        """Virus samples collected and since spent (bolster, second action, §11)."""
        return TOTAL_VIRUS - self.virus_face_down - self.held

    @property
    def heading(self):
        return heading_of(self.discard)

    def cell(self, pos: Pos) -> SeenCard | SeenGap:
        return self.grid[pos[0] - 1][pos[1] - 1]

    def face_down_samples(self) -> list[Pos]:
        return [
            (r, c)
            for r in range(1, ROWS + 1)
            for c in range(1, COLS + 1)
            if isinstance(x := self.grid[r - 1][c - 1], SeenCard) and x.sample
        ]

    def unknown_commands(self) -> list[str]:
        """Command cards the player cannot see: the deck and the other hands."""
        o = self.options
        if self.second_pass:
            pool = self.command_cards.game_cards(o.difficulty, o.players)
        else:
            pool = self.command_cards.deck_for(o.difficulty, o.players)
        gone = set(self.hand) | {e.card for e in self.discard}
        return [c.id for c in pool if c.id not in gone]


def observe(state: GameState, player: int = 0) -> Observation:
    """The view of ``player`` (0-based): §14's visible facts only."""
    rows = []
    for row in state.grid:
        cells: list[SeenCard | SeenGap] = []
        for cell in row:
            if isinstance(cell, Gap):
                cells.append(SeenGap(cell.card.front if cell.card else None))
                continue
            assert isinstance(cell, Slot)
            known = cell.card.start or cell.card.id in state.seen
            cells.append(
                SeenCard(
                    up=cell.face,
                    side=cell.up,
                    down=cell.down if known else None,
                    start=cell.card.start,
                    sample=cell.sample is not None,
                )
            )
        rows.append(tuple(cells))
    on_board = sum(1 for row in state.grid for c in row if isinstance(c, Slot) and c.sample)
    # Revealed tokens: the rocks found and every virus collected (held or spent).
    collected_virus = TOTAL_VIRUS + TOTAL_ROCK - on_board - state.rocks_found - state.lost_unseen
    return Observation(
        player=player,
        options=state.options,
        grid=tuple(rows),
        ship=state.ship,
        pod=state.pod,
        shields=state.shields,
        held=state.held,
        hand=state.hands[player],
        hand_sizes=tuple(len(h) for h in state.hands),
        discard=state.discard,
        deck_size=len(state.deck),
        second_pass=state.second_pass,
        active=state.active,
        turn=state.turn,
        outcome=state.outcome,
        virus_face_down=TOTAL_VIRUS - collected_virus,
        unseen_lost=state.lost_unseen,
        rocks_found=state.rocks_found,
        sector_cards=state.setup.sector_cards,
        command_cards=state.setup.command_cards,
    )


# ----------------------------------------------------------------------------
# Which card layouts fit: an exact counting problem
# ----------------------------------------------------------------------------

Constraint = tuple[SectorType | None, SectorType | None]
"""What is known of one card: (front or None, back or None)."""


def _rkey(r: dict[Pair, int]) -> tuple[int, ...]:
    return tuple(r.get((f, b), 0) for f in TYPES for b in TYPES)


def _compositions(n: int, caps: Sequence[int]):
    """Vectors ``a`` with ``0 <= a[i] <= caps[i]`` and ``sum(a) == n``."""
    if not caps:
        if n == 0:
            yield ()
        return
    head, rest = caps[0], caps[1:]
    room = sum(rest)
    for x in range(max(0, n - room), min(head, n) + 1):
        for tail in _compositions(n - x, rest):
            yield (x,) + tail


def _multinomial(n: int, parts: Sequence[int]) -> int:
    out = factorial(n)
    for p in parts:
        out //= factorial(p)
    return out


class PairProblem:
    """Fill cells with card pairs from a multiset so that each cell's constraint
    (known front and/or back) holds: count the fillings exactly and sample one
    uniformly.

    Cells group into classes by constraint: exact pairs, "front is X" (4),
    "back is Y" (4) and "unknown" (1). A class of ``n`` cells takes a vector of
    pairs from the remaining multiset; the number of ways to place it is the
    multinomial coefficient. ``count`` sums over all class vectors by dynamic
    programming over the remaining multiset (memoised, 16 small counters); ``sample``
    picks each class's vector with probability proportional to its exact number
    of completions, then shuffles it over the class's cells. Every filling is
    therefore equally likely: no rejection.

    Distinct cards of the same pair are interchangeable: each filling stands for
    the same number (the product of the pair multiplicities' factorials) of
    assignments of physical cards, so uniform over fillings is uniform over deals.
    """

    def __init__(self, constraints: Sequence[Constraint], pairs: Counter[Pair] | dict[Pair, int]):
        self.constraints = list(constraints)
        self.pairs = Counter({k: v for k, v in pairs.items() if v})
        groups: dict[Constraint, list[int]] = {}
        for i, c in enumerate(self.constraints):
            groups.setdefault(c, []).append(i)
        exact = [k for k in groups if k[0] is not None and k[1] is not None]
        fronts = [k for k in groups if k[0] is not None and k[1] is None]
        backs = [k for k in groups if k[0] is None and k[1] is not None]
        anys = [k for k in groups if k[0] is None and k[1] is None]
        self.classes: list[tuple[Constraint, list[int]]] = [
            (k, groups[k]) for k in exact + fronts + backs + anys
        ]
        self._count = lru_cache(maxsize=None)(self._count_from)

    # Options for one class given the remaining multiset: (pairs taken, ways).
    def _options(self, i: int, rem: tuple[int, ...]):
        (f, b), cells = self.classes[i]
        n = len(cells)
        if f is not None and b is not None:
            k = TYPES.index(f) * 4 + TYPES.index(b)
            if rem[k] >= n:
                yield ((k, n),), 1
            return
        if f is not None:
            keys = [TYPES.index(f) * 4 + j for j in range(4)]
        elif b is not None:
            keys = [j * 4 + TYPES.index(b) for j in range(4)]
        else:
            keys = list(range(16))
        if f is None and b is None:
            # The last class takes everything left: one vector.
            if sum(rem) == n:
                yield tuple((k, rem[k]) for k in keys if rem[k]), _multinomial(n, rem)
            return
        for vec in _compositions(n, [rem[k] for k in keys]):
            yield tuple((k, x) for k, x in zip(keys, vec, strict=True) if x), _multinomial(n, vec)

    @staticmethod
    def _take(rem: tuple[int, ...], taken) -> tuple[int, ...]:
        out = list(rem)
        for k, x in taken:
            out[k] -= x
        return tuple(out)

    def _count_from(self, i: int, rem: tuple[int, ...]) -> int:
        if i == len(self.classes):
            return 1 if not any(rem) else 0
        total = 0
        for taken, ways in self._options(i, rem):
            total += ways * self._count(i + 1, self._take(rem, taken))
        return total

    def _start(self) -> tuple[int, ...] | None:
        if sum(self.pairs.values()) != len(self.constraints):
            return None
        return _rkey(self.pairs)

    def count(self) -> int:
        """The number of fillings (0 when none fits)."""
        rem = self._start()
        return 0 if rem is None else self._count(0, rem)

    def sample(self, rng: random.Random) -> list[Pair]:
        """One filling, uniformly at random: the pair of each cell, in order."""
        rem = self._start()
        if rem is None or self._count(0, rem) == 0:
            raise ValueError("no filling fits")
        out: list[Pair | None] = [None] * len(self.constraints)
        for i, (_, cells) in enumerate(self.classes):
            options = [
                (taken, ways * self._count(i + 1, self._take(rem, taken)))
                for taken, ways in self._options(i, rem)
            ]
            pick = rng.randrange(sum(w for _, w in options))
            j = 0
            while pick >= options[j][1]:
                pick -= options[j][1]
                j += 1
            taken = options[j][0]
            rem = self._take(rem, taken)
            bag = [(TYPES[k // 4], TYPES[k % 4]) for k, x in taken for _ in range(x)]
            rng.shuffle(bag)
            for cell, pair in zip(cells, bag, strict=True):
                out[cell] = pair
        return out  # type: ignore[return-value]

    def marginals(self) -> list[dict[Pair, float]]:
        """For each cell, the exact probability of each pair under the uniform
        distribution over fillings (one DP per class and pair)."""
        total = self.count()
        if total == 0:
            raise ValueError("no filling fits")
        out: list[dict[Pair, float]] = [dict() for _ in self.constraints]
        full = _rkey(self.pairs)
        for (f, b), cells in self.classes:
            for pf, pb in product(TYPES, TYPES):
                if (f is not None and pf is not f) or (b is not None and pb is not b):
                    continue
                k = TYPES.index(pf) * 4 + TYPES.index(pb)
                if full[k] == 0:
                    continue
                # Fix one cell of this class to the pair: the rest is the same problem.
                cons = list(self.constraints)
                cons[cells[0]] = (pf, pb)
                sub = PairProblem(cons, self.pairs).count()
                if sub:
                    for cell in cells:
                        out[cell][(pf, pb)] = sub / total
        return out


def observation_constraints(obs: Observation) -> tuple[list[Pos], list[Constraint]]:
    """The non-start cells (gaps included: their cards are part of the set) and
    what the player knows of each card."""
    positions: list[Pos] = []
    cons: list[Constraint] = []
    for r in range(1, ROWS + 1):
        for c in range(1, COLS + 1):
            cell = obs.grid[r - 1][c - 1]
            if isinstance(cell, SeenGap):
                positions.append((r, c))
                cons.append((cell.front, None))
            elif not cell.start:
                positions.append((r, c))
                cons.append((cell.front, cell.back))
    return positions, cons


def pair_problem(obs: Observation) -> tuple[list[Pos], PairProblem]:
    positions, cons = observation_constraints(obs)
    return positions, PairProblem(cons, obs.sector_cards.pair_counts())


def _sector_card_problems(obs: Observation, out: list[str]) -> None:
    """The start cards, and the sector cards against the card set (an earlier problem
    in ``out`` skips the costly layout count)."""
    starts = [
        (r, c)
        for r in range(1, ROWS + 1)
        for c in range(1, COLS + 1)
        if isinstance(x := obs.grid[r - 1][c - 1], SeenCard) and x.start
    ]
    if len(starts) != 2:
        out.append(f"the grid shows {len(starts)} start card(s); there are 2 [D4]")
    elif any(p[0] != 1 for p in starts):
        out.append("start cards stay in row 1 (only a row shift moves them, along the row)")
    positions, cons = observation_constraints(obs)
    pairs = obs.sector_cards.pair_counts()
    if len(positions) == sum(pairs.values()):
        name = {t: ("a " if t is SectorType.BOOST else "an ") + t.value for t in TYPES}
        known = Counter((f, b) for f, b in cons if f is not None and b is not None)
        for (f, b), n in sorted(known.items(), key=lambda kv: (kv[0][0].value, kv[0][1].value)):
            if n > pairs[(f, b)]:
                out.append(
                    f"{n} cards are known as {f.value}/{b.value} "
                    f"but the card set holds {pairs[(f, b)]}"
                )
        for t in TYPES:
            nf = sum(1 for f, _ in cons if f is t)
            nb = sum(1 for _, b in cons if b is t)
            hf = sum(v for (f, _), v in pairs.items() if f is t)
            hb = sum(v for (_, b), v in pairs.items() if b is t)
            if nf > hf:
                out.append(f"{nf} cards have {name[t]} front but the card set holds {hf}")
            if nb > hb:
                out.append(f"{nb} cards have {name[t]} back but the card set holds {hb}")
        if not out and PairProblem(cons, pairs).count() == 0:
            out.append("no layout of the card set matches the known sides of the cards")
    else:
        out.append(
            f"the grid holds {len(positions)} sector cards and gaps; the card set has "
            f"{sum(pairs.values())}"
        )


def _token_problems(obs: Observation, out: list[str]) -> None:
    """The shields, the ship and the pod."""
    o = obs.options
    if not 0 <= obs.shields <= 2:
        out.append(f"shields are 0 to 2, not {obs.shields} [D9]")
    for what, pos in (("ship", obs.ship), ("escape pod", obs.pod)):
        if pos is None:
            continue
        if pos in (DOCK, EARTH) or obs.outcome.status is Status.LOST:
            continue  # a lost game may leave the ship or the pod where it died
        if not on_grid(pos):
            out.append(f"the {what} is off the grid at {pos}")
        elif isinstance(obs.cell(pos), SeenGap):
            out.append(f"the {what} cannot stand on the gap at {pos[0]},{pos[1]}")
    if o.escape_pod and obs.pod is None:
        out.append("the escape-pod variant is on but no pod position is given")
    if not o.escape_pod and obs.pod is not None:
        out.append("a pod position is given without the escape-pod variant")


def _sample_problems(obs: Observation, out: list[str]) -> None:
    """The sample tokens: held, found, lost and face down add up."""
    face_down = len(obs.face_down_samples())
    for what, n in (
        ("held", obs.held),
        ("rocks found", obs.rocks_found),
        ("lost", obs.unseen_lost),
    ):
        if n < 0:
            out.append(f"{what} samples cannot be negative")
    virus_hidden = obs.virus_face_down
    rock_hidden = face_down + obs.unseen_lost - virus_hidden
    if virus_hidden < 0:
        out.append(
            f"{obs.held + obs.spent} virus samples collected (held and spent); the game has "
            f"{TOTAL_VIRUS}"
        )
    elif obs.spent < 0:
        out.append("fewer virus samples are accounted for than held")
    if rock_hidden < 0:
        out.append(
            f"{face_down} face-down sample(s) and {obs.unseen_lost} lost unseen, but only "
            f"{virus_hidden} virus and {TOTAL_ROCK - obs.rocks_found} rock token(s) are unaccounted for"
        )
    elif rock_hidden + obs.rocks_found != TOTAL_ROCK and virus_hidden >= 0:
        out.append(
            f"{face_down} face-down sample(s) + {obs.unseen_lost} lost unseen do not match the "
            f"{virus_hidden} virus and {TOTAL_ROCK - obs.rocks_found} rock token(s) unaccounted for"
        )


def consistency_problems(obs: Observation) -> list[str]:
    """Every reason why no real game could show ``obs`` (empty if it is consistent)."""
    out: list[str] = []
    _sector_card_problems(obs, out)
    _token_problems(obs, out)
    _sample_problems(obs, out)
    # --- command cards ----------------------------------------------------
    out += _card_problems(obs)
    return out


def _card_problems(obs: Observation) -> list[str]:
    o = obs.options
    out: list[str] = []
    if not 0 <= obs.player < o.players:
        out.append(f"player {obs.player + 1} does not exist with {o.players} player(s)")
        return out
    if not 0 <= obs.active < o.players:
        out.append(f"active player {obs.active + 1} does not exist")
    if len(obs.hand_sizes) != o.players:
        out.append(f"{len(obs.hand_sizes)} hand sizes given for {o.players} player(s)")
        return out
    if obs.hand_sizes[obs.player] != len(obs.hand):
        out.append("the player's hand size does not match the hand")
    if any(n < 0 or n > o.hand_limit for n in obs.hand_sizes):
        out.append(f"a hand holds 0 to {o.hand_limit} cards")
    game = {c.id: c for c in obs.command_cards.game_cards(o.difficulty, o.players)}
    wild = obs.command_cards.wild.id
    visible = list(obs.hand) + [e.card for e in obs.discard]
    for cid, n in Counter(visible).items():
        if n > 1:
            out.append(f"card {cid} is seen {n} times (hand and discard pile)")
    for cid in visible:
        if cid not in game:
            out.append(f"card {cid} is not in this game's command deck ({o.difficulty.value})")
        elif cid == wild and not obs.second_pass:
            out.append(
                "the Wild joins only at the reshuffle: it cannot be out on the first pass [D6]"
            )
    for e in obs.discard:
        if e.arrow is not None and e.card in game and game[e.card].kind is not CommandKind.FLY:
            out.append(f"only a Fly card has an arrow on the discard pile ({e.card})")
    unknown = len(obs.unknown_commands())
    others = sum(obs.hand_sizes) - len(obs.hand)
    if obs.deck_size < 0:
        out.append("the deck size cannot be negative")
    elif unknown != obs.deck_size + others:
        where = "second" if obs.second_pass else "first"
        out.append(
            f"on the {where} pass {unknown} card(s) are neither in the hand nor on the discard "
            f"pile, but the deck ({obs.deck_size}) and the other hands ({others}) hold "
            f"{obs.deck_size + others}"
        )
    return out


def check_observation(obs: Observation) -> Observation:
    """Return ``obs`` if a real game could show it; else raise
    ``InconsistentObservationError`` with every reason."""
    problems = consistency_problems(obs)
    if problems:
        raise InconsistentObservationError(problems)
    return obs
