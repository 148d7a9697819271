"""The reasons the previous hint engine (``advisor.legacy``) gives: one line,
in the player's terms."""

from __future__ import annotations

from ..rules.cards import Side
from ..rules.geometry import EARTH, Pos, format_pos, on_grid
from ..rules.observation import Observation, SeenCard, SeenGap
from ..rules.turns import ActionKind, Turn
from ..solver.worlds import down_side_marginals
from .explain import _DIRS, _NAMES


def _known_down(obs: Observation, pos: Pos) -> str | None:
    cell = obs.cell(pos)
    if isinstance(cell, SeenCard) and cell.down is not None:
        return cell.down.value
    return None


def explain(obs: Observation, turn: Turn, runner: Turn | None = None) -> str:
    """One line: what the best turn does and why, in the player's terms."""
    cmd = turn.command
    parts: list[str] = []
    if turn.bolster:
        parts.append(f"spends {turn.bolster} sample(s) on shields")
    if cmd is None:
        parts.append("no card to play: draw and re-scan")
        return "; ".join(parts)
    a = cmd.action
    margs: dict[Pos, dict[str, float]] | None = None

    def danger(pos: Pos) -> str:
        nonlocal margs
        cell = obs.cell(pos)
        if isinstance(cell, SeenGap):
            return "a gap"
        assert isinstance(cell, SeenCard)
        if cell.start:
            return "the start card (always Empty)"
        known = _known_down(obs, pos)
        if known is not None:
            how = "you peeked" if cell.side is Side.FRONT else "you saw"
            return f"the card {how} as {_NAMES[known]}"
        if margs is None:
            margs = down_side_marginals(obs)
        m = margs.get(pos, {})
        safe = m.get("E", 0) + m.get("B", 0) + (m.get("A", 0) if obs.shields == 2 else 0)
        return f"an unseen card ({safe:.0%} safe to enter)"

    if a.kind is ActionKind.FLY:
        assert a.direction is not None
        target = a.direction.step(obs.ship)
        if target == EARTH:
            parts.append("flies to Earth with the virus sample")
        elif not on_grid(target):
            parts.append(f"flies {_DIRS[a.direction]} off the grid")
        else:
            parts.append(
                f"flies {_DIRS[a.direction]} onto {danger(target)} at {format_pos(target)}"
            )
            cell = obs.cell(target)
            if isinstance(cell, SeenCard) and cell.sample:
                parts.append("picks up the sample there")
    elif a.kind is ActionKind.PEEK:
        assert a.direction is not None
        parts.append(f"peeks {_DIRS[a.direction]} to learn the cards ahead before moving")
    elif a.kind is ActionKind.SHIELDS:
        parts.append(f"charges shields to {min(2, obs.shields + 1)} (an asteroid needs 2)")
    elif a.kind is ActionKind.FLIP:
        assert a.target is not None
        parts.append(f"flips {format_pos(a.target)}: its other side is {danger(a.target)[0:]}")
    elif a.kind is ActionKind.SHIFT:
        parts.append(f"shifts row {a.row} to line up a safer card")
    if len(cmd.cards) == 2:
        parts.append("two Fly cards to turn")
    elif len(cmd.cards) == 3:
        parts.append("three cards as a wild")
    ahead = _threat_ahead(obs)
    if ahead:
        parts.append(ahead)
    if turn.rescan:
        parts.append("re-scan flips column(s) " + ",".join(str(c) for c in sorted(turn.rescan)))
    return "; ".join(parts)


def _threat_ahead(obs: Observation) -> str:
    """The nearest known danger straight ahead of the ship, if any."""
    if not on_grid(obs.ship):
        return ""
    r, c = obs.ship
    for k in (1, 2):
        pos = (r + k, c)
        if not on_grid(pos):
            return ""
        cell = obs.cell(pos)
        if isinstance(cell, SeenGap):
            return f"the gap {'two ' if k == 2 else ''}ahead must be flown around"
        down = _known_down(obs, pos)
        if down == "A" and obs.shields < 2:
            return f"the asteroid {'two ' if k == 2 else ''}ahead needs shields first"
        if down == "O":
            return f"the obstruction {'two ' if k == 2 else ''}ahead must be flown around"
    return ""
