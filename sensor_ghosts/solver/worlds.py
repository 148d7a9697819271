"""Hidden worlds consistent with an observation (RULES.md §14), sampled exactly.

A *world* is a full ``GameState``: both sides of every card (removed cards
included), the content of every face-down sample token, the other players'
hands, the deck order and the reshuffle ranking [D22] — everything the
observation hides, filled in so that it agrees with what the player sees.

Why uniform is right: the deal shuffles the 33 cards; the setter's choices
(row-safety swaps, sample cells, removals) look only at fronts, so given the
fronts every assignment of the card set's pairs is equally likely, and every
later observation (peeks, flips) only rules assignments out. Tokens are
shuffled face down, the deck is shuffled, and the reshuffle is a uniformly
random ranking (``random_deal``'s argument). So the player's belief is the
uniform distribution over the completions consistent with the observation.

Cards are sampled with ``PairProblem`` (rules/observation.py): exact counts of
completions by dynamic programming over pair types, then sequential sampling
with those counts — no rejection. Tokens and command cards are plain shuffles.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..rules.cards import START_CARDS, SectorCard, SectorType, Side
from ..rules.geometry import Pos
from ..rules.observation import (
    InconsistentObservationError,
    Observation,
    Pair,
    SeenCard,
    SeenGap,
    check_observation,
    pair_problem,
)
from ..rules.setup import Gap, Sample, Setup, Slot
from ..rules.state import GameState

__all__ = ["WorldSampler", "down_side_marginals", "sample_worlds", "with_unseen_down_sides", "worst_case"]


@dataclass
class WorldSampler:
    """Samples full game states uniformly among those consistent with ``obs``.

    Raises ``InconsistentObservationError`` (with every reason) when no world fits.
    """

    obs: Observation
    checked: bool = False
    """The caller vouches that ``obs`` is consistent (it was observed in a world):
    the full check, a few milliseconds, is skipped."""

    def __post_init__(self) -> None:
        if not self.checked:
            check_observation(self.obs)
        self.positions, self.problem = pair_problem(self.obs)
        self.layouts = self.problem.count()
        if self.layouts == 0:  # check_observation already says why; belt and braces
            raise InconsistentObservationError(["no layout of the card set fits"])
        self._ids: dict[Pair, list[int]] = {}
        for c in self.obs.sector_cards.cards:
            self._ids.setdefault((c.front, c.back), []).append(c.id)
        self._samples = self.obs.face_down_samples()

    def sample(self, rng: random.Random) -> GameState:
        obs = self.obs
        pairs = self.problem.sample(rng)
        # Physical card ids: the cards of each pair in a random order.
        pools = {k: rng.sample(v, len(v)) for k, v in self._ids.items()}
        at: dict[Pos, SectorCard] = {}
        for pos, (f, b) in zip(self.positions, pairs, strict=True):
            at[pos] = SectorCard(pools[(f, b)].pop(), f, b)
        # Tokens: the hidden virus and rock tokens shuffled over the face-down
        # tokens and those lost unseen (§11); the latter are gone either way.
        n_hidden = len(self._samples) + obs.unseen_lost
        tokens = [True] * obs.virus_face_down + [False] * (n_hidden - obs.virus_face_down)
        rng.shuffle(tokens)
        token_at = dict(zip(self._samples, tokens[: len(self._samples)], strict=True))
        grid = []
        seen: set[int] = set()
        starts = iter(START_CARDS)
        sample_id = 0
        for r, row in enumerate(obs.grid, 1):
            cells: list[Gap | Slot] = []
            for c, cell in enumerate(row, 1):
                if isinstance(cell, SeenGap):
                    cells.append(Gap(at[(r, c)]))
                    continue
                assert isinstance(cell, SeenCard)
                card = next(starts) if cell.start else at[(r, c)]
                sample = None
                if cell.sample:
                    sample_id += 1
                    sample = Sample(sample_id, token_at[(r, c)])
                if cell.down is not None and not cell.start:
                    seen.add(card.id)
                cells.append(Slot(card, cell.side, sample))
            grid.append(tuple(cells))
        grid_t = tuple(grid)
        hands, deck, ranking = self._commands(rng)
        setup = Setup(grid_t, obs.options, obs.sector_cards, obs.command_cards, None, None)
        return GameState(
            setup=setup,
            grid=grid_t,
            hands=hands,
            deck=deck,
            ranking=ranking,
            discard=obs.discard,
            ship=obs.ship,
            pod=obs.pod,
            shields=obs.shields,
            held=obs.held,
            rocks_found=obs.rocks_found,
            lost_unseen=obs.unseen_lost,
            second_pass=obs.second_pass,
            active=obs.active,
            turn=obs.turn,
            seen=frozenset(seen),
            outcome=obs.outcome,
        )

    def _commands(self, rng: random.Random):
        obs = self.obs
        o = obs.options
        unknown = obs.unknown_commands()
        rng.shuffle(unknown)
        hands = []
        for p, n in enumerate(obs.hand_sizes):
            if p == obs.player:
                hands.append(tuple(obs.hand))
            else:
                hands.append(tuple(unknown[:n]))
                unknown = unknown[n:]
        # [D22] a uniformly random ranking is a uniformly random reshuffle.
        ranking = [c.id for c in obs.command_cards.game_cards(o.difficulty, o.players)]
        rng.shuffle(ranking)
        return tuple(hands), tuple(unknown), tuple(ranking)


def sample_worlds(obs: Observation, n: int, *, seed: int = 0) -> list[GameState]:
    """``n`` worlds drawn independently and uniformly (deterministic for ``seed``)."""
    sampler = WorldSampler(obs)
    rng = random.Random(seed)
    return [sampler.sample(rng) for _ in range(n)]


def down_side_marginals(obs: Observation) -> dict[Pos, dict[str, float]]:
    """For each card whose down side is unknown, the exact probability of each
    down type (``'E'``, ``'B'``, ``'A'``, ``'O'``) under the player's belief."""
    check_observation(obs)
    positions, problem = pair_problem(obs)
    margs = problem.marginals()
    out: dict[Pos, dict[str, float]] = {}
    for pos, m in zip(positions, margs, strict=True):
        cell = obs.cell(pos)
        if not isinstance(cell, SeenCard) or cell.down is not None:
            continue
        dist: dict[str, float] = {}
        for (f, b), p in m.items():
            down = b if cell.side is Side.FRONT else f
            dist[down.value] = dist.get(down.value, 0.0) + p
        out[pos] = dist
    return out


def worst_case(world: GameState) -> GameState:
    """``world`` with the down side of every card the players have not seen
    (``world.seen``) turned Obstructed: the worst a card can be to enter (§5).
    A plan that wins here never relies on a hidden down side: entering a card
    meets its down side, and an unseen one is fatal here; a card flipped shows
    its old face, which was seen, as its new down side. So it plays out the
    same whatever the hidden sides are (given the world's deck and samples)."""
    return with_unseen_down_sides(world, SectorType.OBSTRUCTED)


def with_unseen_down_sides(world: GameState, kind: SectorType) -> GameState:
    """``world`` with every down side the players have not seen set to ``kind``."""
    grid = []
    for row in world.grid:
        cells = []
        for cell in row:
            if isinstance(cell, Slot) and not cell.card.start and cell.card.id not in world.seen:
                c = cell.card
                card = SectorCard(c.id, c.front, kind) if cell.up is Side.FRONT else SectorCard(c.id, kind, c.back)
                cell = Slot(card, cell.up, cell.sample)
            cells.append(cell)
        grid.append(tuple(cells))
    return world.evolve(grid=tuple(grid))
