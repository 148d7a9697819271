"""Entering cells: the ship's Fly with boosts, asteroids, obstructions, gaps,
edges, Earth and samples (RULES.md §5 Fly, §11), and the escape pod (§10)."""

from __future__ import annotations

from .cards import SectorType
from .geometry import EARTH, Direction, Pos, on_grid
from .log import Entered, Flew, SampleLost, SampleTaken
from .setup import Gap, Grid, Slot, cell_at, replace_cell
from .state import GameState, Outcome, Status


def _lost(state: GameState, reason: str, **changes) -> GameState:
    return state.evolve(outcome=Outcome(Status.LOST, reason), **changes)


def _arrive_at_earth(state: GameState) -> GameState:
    """[D12] Earth lets the ship land only with enough virus samples. With the
    escape pod the game is won once both have arrived (§10)."""
    need = state.options.samples_to_win
    if state.held < need:
        return _lost(
            state,
            f"Earth refused the landing: {state.held} virus sample(s) held, {need} needed",
            ship=EARTH,
        )
    state = state.evolve(ship=EARTH)
    if state.pod is None or state.pod == EARTH:
        return state.evolve(outcome=Outcome(Status.WON, "the ship reached Earth with its samples"))
    return state


def _nearest_sample_to_earth(state: GameState) -> Pos | None:
    """§11: the face-down token nearest Earth (Manhattan); ties to the higher row,
    then the right column."""
    best: tuple | None = None
    for r, row in enumerate(state.grid, 1):
        for c, cell in enumerate(row, 1):
            if isinstance(cell, Slot) and cell.sample is not None:
                dist = abs(EARTH[0] - r) + abs(EARTH[1] - c)
                key = (dist, -r, -c)
                if best is None or key < best[0]:
                    best = (key, (r, c))
    return best[1] if best else None


def _lose_unseen_sample(state: GameState, log: list | None) -> tuple[Grid, bool]:
    """§11 low memory, no virus held: the face-down token nearest Earth is lost
    instead. Returns the grid and whether a token was there to lose."""
    gone = _nearest_sample_to_earth(state)
    if gone is None:
        return state.grid, False
    g = cell_at(state.grid, gone)
    assert isinstance(g, Slot)
    if log is not None:
        log.append(SampleLost(gone))
    return replace_cell(state.grid, gone, Slot(g.card, g.up, None)), True


def fly(state: GameState, d: Direction, log: list | None = None) -> GameState:
    """Move the ship one cell in ``d`` and resolve what it enters; boosts chain.
    ``log`` gets the events (``rules/log.py``)."""
    if state.ship == EARTH:
        # §10: a ship waiting at Earth for the pod no longer moves.
        return state
    if log is not None:
        log.append(Flew(d))
    o = state.options
    grid, shields, held, seen = state.grid, state.shields, state.held, set(state.seen)
    rocks, unseen = state.rocks_found, state.lost_unseen
    pos = state.ship

    def now(**changes) -> GameState:
        return state.evolve(
            grid=grid, shields=shields, held=held, seen=frozenset(seen),
            rocks_found=rocks, lost_unseen=unseen, ship=pos, **changes,
        )

    while True:
        nxt = d.step(pos)
        if nxt == EARTH:
            if log is not None:
                log.append(Entered(nxt, None))
            return _arrive_at_earth(now())
        if not on_grid(nxt):
            if log is not None:
                log.append(Entered(nxt, None))
            # §5, [D25]: off the grid, the dock included once left, is a loss;
            # [D20] also in low memory mode, where only O cards can be survived.
            return _lost(now(), f"flew off the grid moving {d.name.lower()}")
        cell = cell_at(grid, nxt)
        if isinstance(cell, Gap):  # [D20] fatal in every mode
            if log is not None:
                log.append(Entered(nxt, None))
            return _lost(now(), f"flew into the gap at {nxt[0]},{nxt[1]}")
        # Entering flips the card (start cards never flip, [D4]); players see it.
        slot = cell.flipped()
        if not slot.card.start:
            seen.add(slot.card.id)
        face = slot.face
        if log is not None:
            log.append(Entered(nxt, face))
        pos = nxt
        grid = replace_cell(grid, nxt, slot)
        if face is SectorType.ASTEROID:
            if shields < 2:
                lost = f"hit an asteroid at {nxt[0]},{nxt[1]} with shields at {shields}"
                shields = 0
                return _lost(now(), lost)
            shields = 0
        elif face is SectorType.OBSTRUCTED:
            if not (o.low_memory and shields == 2):
                shields = 0
                return _lost(now(), f"entered the obstructed sector at {nxt[0]},{nxt[1]}")
            # §11 low memory: survive on full shields, lose a virus sample.
            shields = 0
            if held:
                held -= 1
            else:
                grid, lost_one = _lose_unseen_sample(now(), log)
                if lost_one:
                    unseen += 1
                    slot = cell_at(grid, nxt)  # type: ignore[assignment]
        # [D13] After surviving a card, take its sample (boosts included).
        if slot.sample is not None:
            if log is not None:
                log.append(SampleTaken(nxt, slot.sample.virus))
            if slot.sample.virus:
                held += 1
            else:
                rocks += 1
            slot = Slot(slot.card, slot.up, None)
            grid = replace_cell(grid, nxt, slot)
        if face is not SectorType.BOOST:
            return now()


def move_pod(state: GameState, d: Direction, steps: int) -> GameState:
    """§10: the pod moves ``steps`` cells one at a time, meets only face-up sides,
    never flips. [D19] A step off the grid ends its move; [D25] the dock counts as
    off the grid. A gap or a face-up O destroys it; Earth ends its journey."""
    pos = state.pod
    if pos is None or pos == EARTH:
        return state
    for _ in range(steps):
        nxt = d.step(pos)
        if nxt == EARTH:
            pos = EARTH
            break
        if not on_grid(nxt):
            break
        cell = cell_at(state.grid, nxt)
        if isinstance(cell, Gap) or cell.face is SectorType.OBSTRUCTED:
            what = "a gap" if isinstance(cell, Gap) else "an obstructed sector"
            return _lost(state, f"the escape pod was destroyed entering {what} at {nxt[0]},{nxt[1]}", pod=nxt)
        pos = nxt
    state = state.evolve(pod=pos)
    if pos == EARTH and state.ship == EARTH:
        return state.evolve(outcome=Outcome(Status.WON, "the ship and the escape pod reached Earth"))
    return state
