"""Expected mode (RULES.md §15): draws are random; maximise the win probability.

Expectimax over model states with explicit flips (``Model(mode='expected')``):
a turn is a decision (bolster, command(s)), then the draw (chance: the deck is
a uniformly random order of its cards, [D22], so each draw of k cards is a
multivariate hypergeometric outcome over card types, a reshuffle starting a new
pool), then the re-scan decision, taken after that draw but before any later one.
Values are memoised per state (transpositions). Exactness: every decision and
every chance outcome is enumerated; a state whose admissible lower bound on the
turns left is infinite (no virus reachable) is worth 0.

Under a budget the recursion returns an interval: unexplored states count as
[0, 1]; the maximum and the expectation of intervals are intervals, so the
result brackets the true value (``lower`` / ``upper``).

Not covered: the two-player three-card wild ([D18]) uses the deck's top card,
a chance event inside a decision; this mode refuses two-player games.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from math import comb

from ..rules.state import GameState
from .model import DECK, DISC, Model
from .search import INF, Heuristic


class _Budget(Exception):
    pass


def _draw_probability(pool: tuple, drawn: tuple, disc_after_play: tuple, wild: int) -> float:
    p = 1.0
    cur = Counter(pool)
    seg: list[int] = []
    segments = []
    for t in drawn:
        if t == "R":
            segments.append((cur, seg))
            cur = Counter(disc_after_play + (wild,))
            seg = []
        else:
            seg.append(t)
    segments.append((cur, seg))
    for pool_c, seg in segments:
        if not seg:
            continue
        n = sum(pool_c.values())
        k = len(seg)
        num = 1
        for t, kt in Counter(seg).items():
            num *= comb(pool_c[t], kt)
        p *= num / comb(n, k)
    return p


def solve_expected(
    start: GameState,
    fresh: bool,
    *,
    max_nodes: int | None = None,
    timeout: float | None = None,
    progress: Callable[[dict], None] | None = None,
    t0: float | None = None,
):
    from .api import SolveResult, SolverInputError

    t0 = time.perf_counter() if t0 is None else t0
    if start.options.players == 2:
        raise SolverInputError("expected mode does not cover two-player games (the [D18] wild draws mid-command)")
    model = Model(start, "expected")
    h = Heuristic(model)
    memo: dict[tuple, float] = {}
    nodes = 0
    exhausted = False

    def value(st: tuple) -> tuple[float, float]:
        nonlocal nodes, exhausted
        got = memo.get(st)
        if got is not None:
            return got, got
        if h.actions(st) >= INF:
            memo[st] = 0.0
            return 0.0, 0.0
        if exhausted:
            return 0.0, 1.0
        nodes += 1
        if (max_nodes is not None and nodes > max_nodes) or (
            timeout is not None and nodes & 63 == 0 and time.perf_counter() - t0 > timeout
        ):
            exhausted = True
            return 0.0, 1.0
        if progress is not None and nodes % 5000 == 0:
            progress({"nodes": nodes, "states": len(memo), "open": 0, "bound": 0,
                      "seconds": time.perf_counter() - t0})
        # group: command -> draw -> best re-scan
        groups: dict[tuple, dict[tuple, list]] = {}
        for st2, rec, _ncards, won in model.successors(st):
            bolster, r1, r2, drawn, _cols, _ops = rec
            key = (bolster, r1, r2)
            groups.setdefault(key, {}).setdefault((drawn, st2[DISC] if won else None), []).append((st2, won))
        best_lo = best_hi = 0.0
        for key, by_draw in groups.items():
            lo = hi = 0.0
            for (drawn, _), outs in by_draw.items():
                if outs[0][1]:
                    lo, hi = 1.0, 1.0
                    break
                pr = _draw_probability(st[DECK], drawn, _disc_after(key, st, model), model.wild_tok)
                blo = bhi = 0.0
                for st2, _ in outs:
                    a, b = value(st2)
                    blo, bhi = max(blo, a), max(bhi, b)
                    if blo >= 1.0:
                        break
                lo += pr * blo
                hi += pr * bhi
            best_lo, best_hi = max(best_lo, lo), max(best_hi, hi)
            if best_lo >= 1.0 - 1e-12:
                break
        if best_lo == best_hi:
            memo[st] = best_lo
        return best_lo, best_hi

    if fresh:
        # The opening hands are dealt at random too.
        roots = model.open_roots()
        total_lo = total_hi = 0.0
        full = roots[0][0][DECK] + tuple(t for h_ in roots[0][1] for t in h_)
        for st, dealt in roots:
            pr = _hands_probability(full, dealt)
            a, b = value(st)
            total_lo += pr * a
            total_hi += pr * b
        lo, hi = total_lo, total_hi
    else:
        lo, hi = value(model.root_state())
    seconds = time.perf_counter() - t0
    exact = abs(hi - lo) < 1e-12
    status = ("solved" if lo > 0 else "unsolvable") if exact else "unknown"
    return SolveResult(
        status=status, plan=None, turns=None, bound=None, nodes=nodes, seconds=seconds,
        mode="expected", objective="probability", win_probability=lo if exact else None,
        lower=lo, upper=hi, stopped="" if exact else "budget",
    )


def _disc_after(key: tuple, st: tuple, model: Model) -> tuple:
    """The discard pile after this turn's commands (reshuffle pool)."""
    disc = list(st[DISC])
    for rec in key[1:]:
        if rec is not None:
            disc += [t for t, _ in rec[0]]
    return tuple(sorted(disc))


def _hands_probability(full: tuple, dealt: tuple) -> float:
    """Probability that the players' opening hands are these multisets."""
    pool = Counter(full)
    n = len(full)
    p = 1.0
    for hand in dealt:
        k = len(hand)
        num = 1
        for t, kt in Counter(hand).items():
            num *= comb(pool[t], kt)
        p *= num / comb(n, k)
        pool.subtract(hand)
        n -= k
    return p
