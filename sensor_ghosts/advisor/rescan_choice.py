"""The re-scan, chosen after the command's outcome is seen: one choice per
outcome the sampled worlds show, each valued by the continuation."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from ..rules.geometry import EARTH, Pos
from ..rules.observation import Observation, observe
from ..rules.rescan import rescan_choices
from ..rules.setup import Slot
from ..rules.state import GameState
from ..rules.turns import Turn
from ..solver.worlds import WorldSampler, down_side_marginals
from .commands import _PerWorld, after_command, finish, quick_rescan
from .continuation import SafeOdds, continuation, world_odds


def signature(s: GameState, player: int) -> tuple:
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



def rescans_by_outcome(
    turn: Turn,
    outcomes: dict[tuple, list[int]],
    ws: Sequence[GameState],
    odds: Sequence[SafeOdds],
    per_world: _PerWorld,
    deadline: float,
) -> list[tuple[str, float, frozenset[int]]]:
    """A re-scan for each of the three likeliest ``outcomes`` of ``turn``
    (outcome signature -> the worlds that produced it), chosen on up to eight
    of its worlds: (the outcome described, its share, the columns)."""
    out: list[tuple[str, float, frozenset[int]]] = []
    total = sum(len(v) for v in outcomes.values())
    for _sig, idx in sorted(outcomes.items(), key=lambda kv: -len(kv[1]))[:3]:
        mids = []
        for i in idx[:8]:
            t = per_world.turn(i, turn)
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


def flipped_positions(state: GameState, flipped: frozenset[int]) -> frozenset[Pos]:
    """Where the cards flipped by choice this turn [D23] lie in ``state``.
    The engine names them by card id (``after_command``); a player, and a
    sampled world, can only name them by where they are: two cards of the
    same pair are told apart by nothing the player sees, so a sampled world
    may give the card at a cell another id than the true one."""
    return frozenset((r, c) for r, row in enumerate(state.grid, 1) for c, cell in enumerate(row, 1)
                     if isinstance(cell, Slot) and cell.card.id in flipped)


def rescan_hint(
    observation: Observation,
    flipped_at: frozenset[Pos] = frozenset(),
    *,
    budget: float | None = 0.5,
    seed: int = 0,
    worlds: int = 6,
) -> frozenset[int]:
    """The re-scan for a turn whose command has been played and its result seen:
    ``observation`` is the player's view after the command and the draw, before
    the re-scan; ``flipped_at``, the cells (row, column) of the cards flipped
    by choice this turn [D23], where they lie now (``flipped_positions``)."""
    t0 = time.perf_counter()
    sampler = WorldSampler(observation)
    rng = random.Random(seed)
    marginals = down_side_marginals(observation)
    mids = []
    for _ in range(worlds):
        w = sampler.sample(rng)
        # The world's own ids of the cards at those cells (see flipped_positions).
        ids = frozenset(cell.card.id for cell in map(w.cell, flipped_at) if isinstance(cell, Slot))
        mids.append((w, ids, world_odds(w, marginals)))
    deadline = math.inf if budget is None else t0 + budget
    return choose_rescan(mids, deadline)
