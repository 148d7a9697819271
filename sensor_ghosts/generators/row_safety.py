"""Setup step 4, row safety, with the fewest swaps ([D7]).

The rule, as modelled. A row 2..7 is *unsafe* while none of its cards shows an
E or B front. A *swap* exchanges one card of an unsafe row ``r`` (it is A/O:
the row has no E/B) at column ``c`` with an E/B-front *donor* card of another
row, start cards never taking part:

* the donor is in column ``c``; or
* the donor is in column ``c-1`` or ``c+1``, allowed only when column ``c`` has
  no E/B donor at all (no non-start E/B-front card in a row other than ``r``).

The condition is judged on the grid as it stands when the swap is made (swaps
are made one at a time). A donor may come from any row, row 1 included. [D7]
asks for as few swaps as possible; *which* optimal swaps is the setter's choice,
so this module lists every optimal *plan* (the set of swaps; its cells are
disjoint, so the result does not depend on their order) and a policy picks one.

Facts the code relies on, with a proof sketch (the tests check them against a
brute-force search): a swap makes at most one row safe (only the unsafe row
gains an E/B front), so ``k`` unsafe rows need at least ``k`` swaps. When the
grid holds at least 6 E/B fronts outside the start cards, ``k`` swaps suffice:
some row other than the unsafe ones (row 1, or a row with two E/B fronts) can
always give a card without becoming unsafe, and the same-column swap is always
allowed. With fewer than 6 the rule cannot be satisfied: :class:`UnsafeDealError`.

Backends: ``"python"`` (default; an exact depth-``k`` search, fast) and
``"cpsat"`` (an OR-Tools CP-SAT model of the swap sequence that *minimises* the
number of swaps and then enumerates every optimal solution). Both return the
same sorted list of plans; :func:`brute_force_plans` is the independent check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rules.errors import InvalidArgumentError
from ..rules.geometry import COLS, ROWS, Pos
from .deal import CardGrid, index_of, pos_of
from .errors import UnsafeDealError

SAFE_ROWS: tuple[int, ...] = tuple(range(2, ROWS + 1))
"""Rows that must show an E/B front (step 4)."""

CP_SAT_SEED = 20240601
"""Fixed CP-SAT ``random_seed``: with one worker the answer is reproducible."""


@dataclass(frozen=True, order=True)
class Swap:
    """Exchange the A/O card at ``receiver`` (in an unsafe row) with the E/B card
    at ``donor``."""

    receiver: Pos
    donor: Pos

    def __str__(self) -> str:
        return f"{self.receiver[0]},{self.receiver[1]}<->{self.donor[0]},{self.donor[1]}"


SwapPlan = tuple[Swap, ...]
"""A set of swaps, sorted."""


# ----- the rule on safe bits ----------------------------------------------------


def safe_bits(grid: CardGrid) -> list[bool]:
    """For each of the 35 cells: does a non-start card there show an E/B front?"""
    return [(not card.start) and card.front.safe_front for card in grid]


def unsafe_rows(safe: Sequence[bool]) -> list[int]:
    return [r for r in SAFE_ROWS if not any(safe[(r - 1) * COLS : r * COLS])]


def legal_swaps(safe: Sequence[bool]) -> list[Swap]:
    """Every swap the rule allows in the grid as it stands (any unsafe row)."""
    out: list[Swap] = []
    for r in unsafe_rows(safe):
        for c in range(1, COLS + 1):
            same = [(r2, c) for r2 in range(1, ROWS + 1) if r2 != r and safe[index_of((r2, c))]]
            if same:
                donors = same
            else:
                donors = [
                    (r2, c2)
                    for c2 in (c - 1, c + 1)
                    if 1 <= c2 <= COLS
                    for r2 in range(1, ROWS + 1)
                    if r2 != r and safe[index_of((r2, c2))]
                ]
            out.extend(Swap((r, c), d) for d in donors)
    return out


def apply_plan(grid: CardGrid, plan: Sequence[Swap]) -> CardGrid:
    """A new card grid with the plan's swaps made."""
    out = list(grid)
    for s in plan:
        a, b = index_of(s.receiver), index_of(s.donor)
        out[a], out[b] = out[b], out[a]
    return out


def check_makeable_safe(grid: CardGrid) -> list[int]:
    """The unsafe rows as dealt; raises :class:`UnsafeDealError` if the deal cannot
    be made safe ([D7])."""
    safe = safe_bits(grid)
    bad = unsafe_rows(safe)
    if bad:
        total = sum(safe)
        if total < len(SAFE_ROWS):
            raise UnsafeDealError(total, tuple(bad))
    return bad


# ----- python backend -----------------------------------------------------------


def _plans_python(safe: list[bool], k: int) -> list[SwapPlan]:
    plans: set[SwapPlan] = set()
    visited: set[SwapPlan] = set()

    def dfs(done: tuple[Swap, ...]) -> None:
        key = tuple(sorted(done))
        if key in visited:
            return
        visited.add(key)
        bad = unsafe_rows(safe)
        if not bad:
            plans.add(key)
            return
        if len(bad) > k - len(done):
            return
        for s in legal_swaps(safe):
            a, b = index_of(s.receiver), index_of(s.donor)
            safe[a], safe[b] = safe[b], safe[a]
            if len(unsafe_rows(safe)) == len(bad) - 1:
                dfs(done + (s,))
            safe[a], safe[b] = safe[b], safe[a]

    dfs(())
    return sorted(plans)


# ----- CP-SAT backend -----------------------------------------------------------


def _cpsat_candidates(cells: list[int]) -> list[tuple[int, int]]:
    """Candidate swaps: receiver in rows 2..7, donor in another row, column at most 1 apart."""
    cands: list[tuple[int, int]] = []
    for a in cells:
        ra, ca = pos_of(a)
        if ra < 2:
            continue
        for b in cells:
            rb, cb = pos_of(b)
            if rb != ra and abs(cb - ca) <= 1:
                cands.append((a, b))
    return cands


def _cpsat_step(m, t: int, cells: list[int], st: dict, sn: dict, xt: dict, used) -> None:
    """Step ``t``, cells ``st`` -> ``sn``: one legal swap from ``xt`` if ``used``, else none."""
    m.add(sum(xt.values()) == used)
    row_sum = {r: sum(st[index_of((r, c))] for c in range(1, COLS + 1)) for r in SAFE_ROWS}
    touching: dict[int, list] = {i: [] for i in cells}
    for (a, b), v in xt.items():
        ra, ca = pos_of(a)
        rb, cb = pos_of(b)
        touching[a].append(v)
        touching[b].append(v)
        m.add(row_sum[ra] == 0).only_enforce_if(v)  # receiver's row unsafe
        m.add(st[b] == 1).only_enforce_if(v)  # donor shows E/B
        if cb != ca:  # adjacent column: receiver's column has no E/B donor
            col = [
                st[index_of((r, ca))]
                for r in range(1, ROWS + 1)
                if r != ra and index_of((r, ca)) in cells
            ]
            m.add(sum(col) == 0).only_enforce_if(v)
        m.add(sn[a] == st[b]).only_enforce_if(v)
        m.add(sn[b] == st[a]).only_enforce_if(v)
    for i in cells:
        moved = touching[i]
        if moved:
            keep = m.new_bool_var(f"keep{t}_{i}")
            m.add(sum(moved) == 0).only_enforce_if(keep)
            m.add(sum(moved) >= 1).only_enforce_if(keep.Not())
            m.add(sn[i] == st[i]).only_enforce_if(keep)
        else:
            m.add(sn[i] == st[i])


def _cpsat_model(cp_model, safe0: list[bool], cells: list[int], cands: list[tuple[int, int]],
                 horizon: int) -> tuple:
    """The model of up to ``horizon`` swaps that leave every row 2..7 safe."""
    m = cp_model.CpModel()
    # Cell variables by grid index; the start cards have none.
    s = [{i: m.new_bool_var(f"s{t}_{i}") for i in cells} for t in range(horizon + 1)]
    for i in cells:
        m.add(s[0][i] == int(safe0[i]))
    use = [m.new_bool_var(f"use{t}") for t in range(horizon)]
    for t in range(horizon - 1):
        m.add_implication(use[t + 1], use[t])  # used steps form a prefix
    x = [{ab: m.new_bool_var(f"x{t}_{ab[0]}_{ab[1]}") for ab in cands} for t in range(horizon)]
    for t in range(horizon):
        _cpsat_step(m, t, cells, s[t], s[t + 1], x[t], use[t])
    for r in SAFE_ROWS:
        m.add(sum(s[horizon][index_of((r, c))] for c in range(1, COLS + 1)) >= 1)
    return m, x, use


def _cpsat_solver(cp_model):
    sv = cp_model.CpSolver()
    sv.parameters.num_workers = 1
    sv.parameters.random_seed = CP_SAT_SEED
    return sv


def _plans_cpsat(safe0: list[bool], k: int, slack: int = 1) -> list[SwapPlan]:
    from ortools.sat.python import cp_model

    horizon = k + slack
    cells = [i for i in range(ROWS * COLS) if i not in (0, 1)]  # no start cards
    cands = _cpsat_candidates(cells)

    model, x, use = _cpsat_model(cp_model, safe0, cells, cands, horizon)
    model.minimize(sum(use))
    sv = _cpsat_solver(cp_model)
    status = sv.solve(model)
    if status != cp_model.OPTIMAL:
        raise RuntimeError(f"CP-SAT row-safety model: {sv.status_name(status)}")
    best = round(sv.objective_value)

    model, x, use = _cpsat_model(cp_model, safe0, cells, cands, horizon)
    model.add(sum(use) == best)
    found: set[SwapPlan] = set()

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            plan = []
            for t in range(best):
                for (a, b), v in x[t].items():
                    if self.value(v):
                        plan.append(Swap(pos_of(a), pos_of(b)))
            found.add(tuple(sorted(plan)))

    sv = _cpsat_solver(cp_model)
    sv.parameters.enumerate_all_solutions = True
    sv.solve(model, Collect())
    return sorted(found)


# ----- public -------------------------------------------------------------------


def optimal_swap_plans(grid: CardGrid, *, backend: str = "python") -> list[SwapPlan]:
    """Every plan of fewest swaps making rows 2..7 safe ([D7]), sorted.

    ``[()]`` when the deal is already safe. Raises :class:`UnsafeDealError` for a
    deal that cannot be made safe."""
    bad = check_makeable_safe(grid)
    if not bad:
        return [()]
    safe = safe_bits(grid)
    if backend == "python":
        return _plans_python(safe, len(bad))
    if backend == "cpsat":
        return _plans_cpsat(safe, len(bad))
    raise InvalidArgumentError(f"unknown row-safety backend {backend!r} (use python or cpsat)")


def min_swaps(grid: CardGrid) -> int:
    """The fewest swaps step 4 needs for this deal."""
    return len(check_makeable_safe(grid))


def brute_force_plans(grid: CardGrid, max_depth: int = 4) -> tuple[int, set[tuple[int, ...]]]:
    """Breadth-first search over swap *sequences* on the full card grid, with no
    assumption about the answer: the fewest swaps and the set of resulting grids
    (as tuples of card ids). For tests; exponential in the depth."""
    start = tuple(range(ROWS * COLS))
    fronts = [(not c.start) and c.front.safe_front for c in grid]

    def bits(state: tuple[int, ...]) -> list[bool]:
        return [fronts[j] for j in state]

    frontier = {start}
    for depth in range(max_depth + 1):
        done = {st for st in frontier if not unsafe_rows(bits(st))}
        if done:
            return depth, {tuple(grid[j].id for j in st) for st in done}
        nxt: set[tuple[int, ...]] = set()
        for st in frontier:
            for s in legal_swaps(bits(st)):
                a, b = index_of(s.receiver), index_of(s.donor)
                lst = list(st)
                lst[a], lst[b] = lst[b], lst[a]
                nxt.add(tuple(lst))
        frontier = nxt
    raise UnsafeDealError(sum(fronts), tuple(unsafe_rows(fronts)))
