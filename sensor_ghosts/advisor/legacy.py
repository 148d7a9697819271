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

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..rules.cards import CommandKind
from ..rules.engine import legal_turns
from ..rules.geometry import DOCK
from ..rules.observation import Observation
from ..rules.rescan import rescan_choices
from ..rules.state import GameState, Status
from ..rules.turns import ActionKind, Command, Turn
from ..solver import compiled
from ..solver.worlds import WorldSampler
from .answer import GameOverObservation, answer_head, check_askable, wilson
from .commands import after_command as _after_command
from .commands import command_key as _command_key
from .commands import finish as _finish
from .commands import turn_key as _turn_key
from .legacy_explain import explain
from .policies import (
    fast_turn,
    play,
    policy_turn,
    rescan_policy,
    rollout,
    seen_down,
)
from .route import (
    BLIND,
    CAL_A,
    CAL_B,
    CAL_C,
    FAR_RISK,
    FIX,
    FIX_COST,
    OK,
    PARTIAL,
    RISK_WEIGHT,
    SHIELD,
    WAIT_COST,
    Informed,
    cards_left,
    route,
    route_cost,
    value,
)

# The route estimate, the policies and the reasons moved to their own modules
# (route.py, policies.py, legacy_explain.py); their names stay importable from
# here, where the bots, the benchmarks and the tests found them.
__all__ = [
    "BLIND",
    "CAL_A",
    "CAL_B",
    "CAL_C",
    "CAREFUL_NODES",
    "CAREFUL_SHARE",
    "CARD_WEIGHT",
    "FAR_RISK",
    "FIX",
    "FIX_COST",
    "OK",
    "PARTIAL",
    "RISK_WEIGHT",
    "SHIELD",
    "WAIT_COST",
    "Candidate",
    "GameOverObservation",
    "Hint",
    "careful_turn",
    "cards_left",
    "command_key",
    "explain",
    "fast_turn",
    "hint",
    "play",
    "policy_turn",
    "rescan_policy",
    "rollout",
    "route",
    "route_cost",
    "seen_down",
    "turn_key",
    "value",
    "wilson",
]


def command_key(state: GameState, cmd: Command | None) -> tuple | None:
    """``commands.command_key`` without who lends each card: this engine groups
    a partner's card with the player's own (as it always did)."""
    return _command_key(state, cmd, by_player=False)


def turn_key(state: GameState, turn: Turn) -> tuple:
    """A turn's command effect (``command_key``), re-scan left out."""
    return _turn_key(state, turn, by_player=False)




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
            **answer_head(self.best, self.win, self.low, self.high),
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
    check_askable(observation)
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
    know: Informed = PARTIAL if honest == PARTIAL else (not honest)

    groups = _Groups(observation, ws, prune, planned)
    n1 = min(screen_worlds, len(ws))
    top = _screen(groups.cands, ws, n1, finalists, know, deadline - reserve)
    top = _rank(top, ws, know, rank_until=t0 + 0.6 * (deadline - t0) if budget is not None else math.inf,
                fixed=max(n1, rollouts or 0) if budget is None else None)
    plan_cand = groups.plan_cand
    contenders = top[:2]
    if plan_cand is not None:
        contenders = [plan_cand] + [c for c in top if c is not plan_cand][:1]
    if playouts:
        want = rollouts if rollouts is not None else len(ws)
        _playouts(contenders, ws, know, solver_nodes, deadline - reserve, want if budget is None else None)
    ranked = sorted(top, key=lambda c: c.rank(), reverse=True)
    if plan_cand is not None:
        ranked = [plan_cand] + [c for c in ranked if c is not plan_cand]
    # The re-scan: the careful plan's own, or the best fixed choice for the best command.
    rescan_of = planned if plan_cand is not None else None
    return _answer(observation, ranked, groups, ws, rescan_of=rescan_of,
                   rescan_worlds=ws[: min(4, n1)], until=deadline + reserve, know=know, t0=t0,
                   method=_method(plan_cand is not None, playouts, solver_nodes, know))


def _answer(observation: Observation, ranked: list[Candidate], groups: _Groups, ws: list[GameState],
            *, rescan_of: Turn | None, rescan_worlds: list[GameState], until: float, know: Informed,
            t0: float, method: str) -> Hint:
    """The hint: the first of ``ranked``, with ``rescan_of``'s re-scan or the
    best fixed one (``_best_rescan``), and the runner-up."""
    best = ranked[0]
    runner = ranked[1] if len(ranked) > 1 else None
    best_turn = rescan_of if rescan_of is not None else _best_rescan(best.turn, rescan_worlds, until, know)
    low, high = wilson(best.wins, best.n)
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
        candidates=groups.groups,
        legal=len(groups.legal),
        seconds=time.perf_counter() - t0,
        method=method,
    )


class _Groups:
    """The candidates: legal turns grouped by command effect (``turn_key``),
    pruned (``_prune``), with the careful plan's group added when pruning left
    it out."""

    def __init__(self, observation: Observation, ws: list[GameState], prune: bool,
                 planned: Turn | None):
        base = ws[0]
        by_key: dict[tuple, Candidate] = {}
        self.legal = legal_turns(base)
        for t in self.legal:
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
        self.groups = len(by_key)
        self.cands = _prune(base, list(by_key.values()), prune)
        if not self.cands:
            raise ValueError("no legal turn")
        self.plan_cand: Candidate | None = None
        if planned is not None:
            pk = turn_key(base, planned)
            self.plan_cand = next((c for c in self.cands if c.key == pk), None)
            if self.plan_cand is None:
                self.plan_cand = by_key.get(pk) or Candidate(
                    Turn(planned.command, planned.bolster, planned.second), pk)
                self.cands.append(self.plan_cand)


def _screen(cands: list[Candidate], ws: list[GameState], n1: int, finalists: int, know: Informed,
            until: float) -> list[Candidate]:
    """Stage 1, heuristic screening by successive halving: every candidate in
    one world, the best 40 in three, the best 12 in ``n1``; the ``finalists``
    best are returned."""
    # A cheap prior order, so that a budget cut keeps the likelier turns: moves
    # first, then shields, peeks, shifts, flips; fewer cards first.
    order = {ActionKind.FLY: 0, ActionKind.SHIELDS: 1, ActionKind.PEEK: 2, ActionKind.SHIFT: 3}
    cands.sort(key=lambda c: _prior(c.turn, order))
    alive = list(cands)
    lo = 0
    for hi, keep in ((1, 40), (min(3, n1), 12), (n1, finalists)):
        for w in ws[lo:hi]:
            for c in alive:
                if time.perf_counter() > until and any(x.values for x in alive):
                    break
                c.values.append(value(play(w, c.turn, informed=know), know))
        lo = hi
        alive.sort(key=lambda c: c.mean, reverse=True)
        alive = alive[: max(1, keep)]
        if time.perf_counter() > until:
            break
    return alive[: max(1, finalists)]


def _rank(top: list[Candidate], ws: list[GameState], know: Informed, *, rank_until: float,
          fixed: int | None) -> list[Candidate]:
    """Stage 2, the ranking: the finalists in more worlds (``fixed`` of them
    without a time budget), best first."""
    # Screening values vary far less than win/loss playouts, so the ranking
    # rests on them; playouts are for the win estimate (stage 3).
    # Each finalist is re-scored with the re-scan chosen after its outcome
    # (the best choice by value in each world: the re-scan follows the result,
    # which the player sees), since the re-scan moves the value a lot.
    for c in top:
        c.values = []
    w_index = 0
    while w_index < len(ws) and time.perf_counter() < rank_until:
        w = ws[w_index]
        w_index += 1
        for c in top:
            c.values.append(_after_best_rescan(w, c.turn, know))
        if fixed is not None and w_index >= fixed:
            break
    top = [c for c in top if c.values] or top
    top.sort(key=lambda c: c.mean, reverse=True)
    return top


def _playouts(contenders: list[Candidate], ws: list[GameState], know: Informed, solver_nodes: int,
              until: float, want: int | None) -> None:
    """Stage 3, the win estimate: playouts of the first contender in every
    world, of both in every third, until ``until`` (or ``want`` playouts of the
    first without a time budget)."""
    k = 0
    while time.perf_counter() < until:
        w = ws[k % len(ws)]
        k += 1
        for c in contenders if k % 3 == 0 else contenders[:1]:
            if time.perf_counter() > until:
                break
            c.wins += _playout(play(w, c.turn, informed=know), solver_nodes, know)
            c.n += 1
        if want is not None and contenders[0].n >= want:
            break


def _method(planned: bool, playouts: bool, solver_nodes: int, know: Informed) -> str:
    """How the hint was found, in one line."""
    method = "exact world sampling, staged heuristic screening"
    if planned:
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
    return method


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
    turn: Turn, ws: Sequence[GameState], deadline: float, informed: Informed = True
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


def _playout(state: GameState, solver_nodes: int, informed: Informed = True) -> int:
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
