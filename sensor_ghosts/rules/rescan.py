"""Row shifts and flips: the re-scan (RULES.md §8, [D16], [D17], [D23]) and the
Deep Scan effects that share them (§5)."""

from __future__ import annotations

from itertools import combinations

from .geometry import COLS, ROWS, Pos
from .log import Flipped, Shifted
from .setup import Slot, cell_at, replace_cell
from .state import GameState


def shift_row(state: GameState, row: int) -> GameState:
    """[D16] Every slot's content moves one column left; column 1's goes to column 5.
    [D17] Tokens on a card travel with it: samples are part of the cell, the pod is
    moved here."""
    cells = state.grid[row - 1]
    grid = state.grid[: row - 1] + (cells[1:] + cells[:1],) + state.grid[row:]
    pod = state.pod
    if pod is not None and pod[0] == row and 1 <= pod[1] <= COLS:
        pod = (row, COLS if pod[1] == 1 else pod[1] - 1)
    return state.evolve(grid=grid, pod=pod)


def flip_card(state: GameState, pos: Pos) -> GameState:
    """Flip one card by choice (Deep Scan or re-scan); players see both sides."""
    slot = cell_at(state.grid, pos)
    assert isinstance(slot, Slot) and slot.flippable, pos
    return state.evolve(
        grid=replace_cell(state.grid, pos, slot.flipped()),
        seen=state.seen | {slot.card.id},
    )


def shiftable_rows(state: GameState) -> list[int]:
    """[D14] Any row but the ship's (row 1 at the dock). A ship waiting at Earth
    (§10) stands in no row by default. Option 'earth-in-row-7', the other reading
    of that gap in RULES.md: Earth lies beside row 7, so the waiting ship counts
    as in row 7 and row 7 cannot be shifted (its re-scan still does nothing:
    there is no row ahead of row 7, [D2])."""
    if state.ship_at_earth and not state.options.earth_in_row_7:
        return list(range(1, ROWS + 1))
    return [r for r in range(1, ROWS + 1) if r != state.ship_row]


def can_flip(state: GameState, pos: Pos, flipped: frozenset[int]) -> bool:
    """Whether a Deep Scan may flip the card at ``pos``: a sector card, not a
    start card [D4], not one already flipped by choice this turn [D23]."""
    r, c = pos
    if not (1 <= r <= ROWS and 1 <= c <= COLS):
        return False
    cell = state.grid[r - 1][c - 1]
    return isinstance(cell, Slot) and cell.flippable and cell.card.id not in flipped


def flippable_cells(state: GameState, flipped: frozenset[int]) -> list[Pos]:
    """Every cell whose card a Deep Scan may flip (``can_flip``)."""
    return [(r, c) for r in range(1, ROWS + 1) for c in range(1, COLS + 1) if can_flip(state, (r, c), flipped)]


def rescan_row(state: GameState) -> int | None:
    """The row two ahead of the ship [D2], or None if it does not exist."""
    row = state.ship_row + 2
    return row if row <= ROWS and not state.ship_at_earth else None


def rescan_candidates(state: GameState, flipped: frozenset[int]) -> list[int]:
    """Columns of the row two ahead whose card this re-scan may flip: sector cards,
    not flipped by choice this turn [D23], front up only under 'reveal once' (§12)."""
    row = rescan_row(state)
    if row is None:
        return []
    out = []
    for c in range(1, COLS + 1):
        cell = state.grid[row - 1][c - 1]
        if not isinstance(cell, Slot) or not cell.flippable or cell.card.id in flipped:
            continue
        if state.options.reveal_once and cell.up.value != "front":
            continue
        out.append(c)
    return out


def rescan_choices(state: GameState, flipped: frozenset[int]) -> list[frozenset[int]]:
    """Every legal set of re-scan flips: exactly two different cards (one with
    'flip one'), or as many as the row allows (§8)."""
    cand = rescan_candidates(state, flipped)
    return [frozenset(c) for c in combinations(cand, rescan_count(state, cand))]


def rescan_allowed(state: GameState, columns: frozenset[int], flipped: frozenset[int]) -> bool:
    """Whether ``columns`` is one of ``rescan_choices(state, flipped)``,
    without listing them."""
    cand = rescan_candidates(state, flipped)
    return len(columns) == rescan_count(state, cand) and columns <= set(cand)


def rescan_count(state: GameState, cand: list[int]) -> int:
    """How many cards a re-scan flips, of candidates ``cand`` (§8)."""
    return min(state.options.rescan_flips, len(cand))


def rescan(state: GameState, columns: frozenset[int], flipped: frozenset[int],
           log: list | None = None) -> GameState:
    """Step 5: shift the row ahead, then flip the chosen cards of the row two ahead.
    The caller has checked ``columns`` against ``rescan_choices``; ``log`` gets
    the events (``rules/log.py``)."""
    ahead = state.ship_row + 1
    if ahead <= ROWS and not state.ship_at_earth:
        state = shift_row(state, ahead)
        if log is not None:
            log.append(Shifted(ahead, "re-scan"))
    row = rescan_row(state)
    for c in sorted(columns):
        assert row is not None
        state = flip_card(state, (row, c))
        if log is not None:
            slot = state.grid[row - 1][c - 1]
            assert isinstance(slot, Slot)  # a gap is never flipped (``rescan_allowed``)
            log.append(Flipped((row, c), slot.face, "re-scan"))
    return state
