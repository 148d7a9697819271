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
from dataclasses import dataclass, field

from ..rules.geometry import peek_cells
from ..rules.observation import Observation
from ..rules.state import GameState
from ..rules.turns import ActionKind, Turn
from ..solver import compiled
from ..solver.api import solve
from ..solver.worlds import WorldSampler, down_side_marginals
from .answer import GameOverObservation, Hint, HintError, check_askable, wilson
from .calibration import calibrated
from .careful import CAREFUL_SECONDS, CAREFUL_SHARE, CAREFUL_WORLDS, certain_win
from .careful import careful_hint as _careful_hint
from .careful import careful_plans as _careful_plans
from .commands import (
    CARD_COST,
    _cost,
    _effect,
    _PerWorld,
    _unseen,
    after_command,
    cheapest,
    command_key,
    commands,
    finish,
    in_world,
    quick_rescan,
    surely_lost,
    turn_key,
)
from .continuation import (
    CONTINUATION_ROWS,
    NEAR_ROWS,
    SOLVE_NODES,
    SOLVE_SECONDS,
    TURN_WEIGHT,
    SafeOdds,
    _timeout,
    continuation,
    near_careful,
    plan_survival,
    world_odds,
)
from .rescan_choice import choose_rescan, flipped_positions, rescan_hint, rescans_by_outcome
from .rescan_choice import signature as _signature

# The names above that this module no longer defines stay importable from it
# (``advisor.search`` was the whole engine): the CLI, the benchmarks, the
# endgame solver and the tests import them from here.
__all__ = [
    "CARD_COST",
    "CAREFUL_SECONDS",
    "CAREFUL_SHARE",
    "CAREFUL_WORLDS",
    "CONTINUATION_ROWS",
    "NEAR_ROWS",
    "SOLVE_NODES",
    "SOLVE_SECONDS",
    "TURN_WEIGHT",
    "Candidate",
    "GameOverObservation",
    "Hint",
    "HintError",
    "SafeOdds",
    "after_command",
    "certain_win",
    "cheapest",
    "choose_rescan",
    "command_key",
    "commands",
    "continuation",
    "finish",
    "flipped_positions",
    "hint",
    "in_world",
    "near_careful",
    "plan_survival",
    "quick_rescan",
    "rescan_hint",
    "surely_lost",
    "turn_key",
    "wilson",
    "world_odds",
]


# ----------------------------------------------------------------------------
# Candidates
# ----------------------------------------------------------------------------


@dataclass
class Candidate:
    """One command effect under evaluation, with its scores world by world."""

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
    check_askable(observation)
    sampler = WorldSampler(observation)
    rng = random.Random(seed)
    n_worlds = max(worlds, 8)
    ws = [sampler.sample(rng) for _ in range(n_worlds)]
    t0 += compiled.load_for(ws[0])  # outside the budget (``compiled``)
    deadline = math.inf if budget is None else t0 + budget

    base = ws[0]
    options = commands(base)
    n_commands = len(options)
    pool = cheapest(base, options)
    alive_pool = {k: t for k, t in pool.items() if not surely_lost(base, t)} or pool

    # --- careful plans: a route that never enters an unseen card ------------
    careful = _careful_plans(ws, alive_pool, t0, deadline, budget)
    tried = len(careful)
    found = [(i, p) for i, p in careful if p is not None]
    if found and len(found) * 2 >= tried:
        return _careful_hint(observation, ws, found, tried, alive_pool, n_commands, t0)

    cand_list = _propose(observation, ws, alive_pool, t0, deadline, budget)
    table = _Table(observation, ws, sampler, rng, deadline)
    _halve(table, cand_list, budget)
    return _answer(observation, table, cand_list, budget, n_commands, t0)


def _propose(
    observation: Observation,
    ws: list[GameState],
    alive_pool: dict[tuple, Turn],
    t0: float,
    deadline: float,
    budget: float | None,
) -> list[Candidate]:
    """The candidates (module docstring, step 2): the first commands of
    near-careful plans in a few worlds, then the gambles, looks and shields
    those plans never take; the cheapest commands when nothing came in time."""
    base = ws[0]
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
        # At most a quarter of what is left: the careful plans may have used
        # half the budget, and the candidates still have to be valued.
        cap = SOLVE_SECONDS if budget is None else min(SOLVE_SECONDS, 0.25 * (deadline - time.perf_counter()))
        res = solve(near_careful(w), mode="deal", objective="turns-only", max_nodes=SOLVE_NODES,
                    timeout=_timeout(deadline, cap))
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
    return list(cands.values())


class _Table:
    """The sampled worlds a hint values its candidates in, grown while time is
    left, with the odds of each world's unseen cards."""

    def __init__(self, observation: Observation, ws: list[GameState], sampler: WorldSampler,
                 rng: random.Random, deadline: float):
        self.ws = ws
        self.sampler = sampler
        self.rng = rng
        self.deadline = deadline
        self.player = observation.player
        self.marginals = down_side_marginals(observation)
        self.odds = [world_odds(w, self.marginals) for w in ws]
        # With more players a partner's cards are sampled like the deck: a
        # command they lend cards to is played in each world with that world's
        # cards of the same kind, and counts as lost where the partner has none.
        self.per_world = _PerWorld(ws)

    def value(self, c: Candidate, i: int) -> None:
        """Score ``c`` in world ``i`` (module docstring, step 3)."""
        w = self.ws[i]
        t = self.per_world.turn(i, c.turn)
        if t is None:
            c.scores.append(0.0)
            c.chances.append(0.0)
            return
        s, flipped = after_command(w, t)
        c.outcomes.setdefault(_signature(s, self.player), []).append(i)
        if not s.is_over:
            s = finish(s, flipped, quick_rescan(s, flipped))
        out = continuation(s, self.odds[i], deadline=self.deadline)
        c.scores.append(out.score)
        c.chances.append(out.chance)
        if out.won and out.turns is not None:
            c.turns.append(out.turns + 1)

    def grow(self) -> None:
        """One more world (and its odds)."""
        self.ws.append(self.sampler.sample(self.rng))
        self.odds.append(world_odds(self.ws[-1], self.marginals))


HALVING = ((4, 8), (10, 4), (16, 2))
"""Successive halving: after this many worlds, keep this many candidates."""


def _halve(table: _Table, cand_list: list[Candidate], budget: float | None) -> None:
    """Value the candidates world after world, keeping the better ones at each
    step of ``HALVING`` (module docstring, step 4)."""
    ws, deadline = table.ws, table.deadline
    alive = cand_list
    i = 0
    schedule = list(HALVING)
    stage = 0
    while i < len(ws):
        if time.perf_counter() > deadline and any(c.n for c in alive):
            break
        for c in alive:
            if time.perf_counter() > deadline and any(x.n for x in alive):
                break  # out of time: the candidates not valued yet drop out (``_answer``)
            if c.n == i:
                table.value(c, i)
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
            table.grow()
        if len(ws) > 400:
            break


def _answer(
    observation: Observation,
    table: _Table,
    cand_list: list[Candidate],
    budget: float | None,
    n_commands: int,
    t0: float,
) -> Hint:
    """The hint: the best candidate by mean score, its re-scans by outcome, its
    chance calibrated (module docstring, steps 4-6)."""
    ranked = sorted(cand_list, key=lambda c: (c.n > 0, c.mean if c.n else -1.0), reverse=True)
    # Compare on the worlds both were valued in: the finalists have the most.
    best = ranked[0]
    runner = ranked[1] if len(ranked) > 1 else None

    # The re-scan for each outcome, chosen on the worlds that produced it.
    rescans = rescans_by_outcome(best.turn, best.outcomes, table.ws, table.odds, table.per_world,
                                 table.deadline + 0.1 * (budget or 0))
    best_turn = best.turn
    world = None
    if rescans:
        best_turn = Turn(best.turn.command, best.turn.bolster, best.turn.second, rescans[0][2])
        # A world of the likeliest outcome, the one ``rescans[0]`` was chosen for.
        world = table.ws[max(best.outcomes.values(), key=len)[0]]
    raw = best.chance
    low, high = wilson(raw * best.n, best.n)
    from .explain import explain

    return Hint(
        best=best_turn,
        win=calibrated(raw, False),
        low=calibrated(low, False),
        high=calibrated(high, False),
        worlds=best.n,
        reason=explain(observation, best_turn, runner.turn if runner else None, world=world),
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
