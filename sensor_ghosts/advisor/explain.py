"""What a hint says to a player: what the command does, which unseen cards it
risks or avoids with the odds of their down sides (exact, from the card set
and what was seen: ``solver.worlds.down_side_marginals``), and what the
re-scan is for."""

from __future__ import annotations

from ..rules.cards import SectorType, Side
from ..rules.geometry import EARTH, Direction, Pos, format_pos, on_grid, peek_cells
from ..rules.log import Event, Flipped
from ..rules.observation import Observation, SeenCard, SeenGap
from ..rules.rescan import rescan, rescan_allowed
from ..rules.setup import Slot
from ..rules.state import GameState
from ..rules.turns import ActionKind, Turn
from ..solver.worlds import down_side_marginals
from .commands import after_command, in_world

_NAMES = {"E": "Empty", "B": "Boost", "A": "Asteroid", "O": "Obstructed"}
_DIRS = {Direction.UP: "up", Direction.DOWN: "down", Direction.LEFT: "left", Direction.RIGHT: "right"}


class _Odds:
    """The down-side odds of the unseen cards, worked out once when first asked."""

    def __init__(self, obs: Observation):
        self.obs = obs
        self._m: dict[Pos, dict[str, float]] | None = None

    def of(self, pos: Pos) -> dict[str, float]:
        if self._m is None:
            self._m = down_side_marginals(self.obs)
        return self._m.get(pos, {})

    def danger(self, pos: Pos) -> float:
        """The chance that entering ``pos`` now destroys the ship."""
        m = self.of(pos)
        bad = m.get("O", 0.0) + (m.get("A", 0.0) if self.obs.shields < 2 else 0.0)
        return bad

    def describe(self, pos: Pos) -> str:
        """'2,3 (an A front: its back is Obstructed 2 times in 10, Asteroid 2 ...)'."""
        cell = self.obs.cell(pos)
        if isinstance(cell, SeenGap):
            return f"the gap at {format_pos(pos)}"
        assert isinstance(cell, SeenCard)
        if cell.start:
            return f"the start card at {format_pos(pos)} (Empty both sides)"
        side = "front" if cell.side is Side.FRONT else "back"
        other = "back" if cell.side is Side.FRONT else "front"
        if cell.down is not None:
            return f"{format_pos(pos)} ({cell.up.value} {side}, {other} {_NAMES[cell.down.value]}, seen)"
        m = self.of(pos)
        odds = ", ".join(f"{_NAMES[k]} {round(10 * v)}" for k, v in sorted(m.items(), key=lambda kv: -kv[1])
                         if round(10 * v) > 0)
        return f"{format_pos(pos)} (an {cell.up.value} {side}; its {other} in 10: {odds})"


def _unseen(obs: Observation, pos: Pos) -> bool:
    if not on_grid(pos):
        return False
    cell = obs.cell(pos)
    return isinstance(cell, SeenCard) and not cell.start and cell.down is None


def explain(obs: Observation, turn: Turn, runner: Turn | None = None, *,
            world: GameState | None = None) -> str:
    """One paragraph: what the hinted turn does and why, in the player's terms.
    ``world``: a world consistent with ``obs`` that shows the outcome the
    turn's re-scan was chosen for; the re-scan is described as the engine
    plays it there (without one, only its columns are named)."""
    odds = _Odds(obs)
    parts: list[str] = []
    if turn.bolster:
        parts.append(f"spend {turn.bolster} virus sample(s) on shields first")
    cmd = turn.command
    if cmd is None:
        return "no card in hand: draw and re-scan"
    a = cmd.action
    ship = obs.ship
    entered: Pos | None = None
    if a.kind is ActionKind.FLY and a.direction is not None:
        to = a.direction.step(ship)
        entered = to
        if to == EARTH:
            parts.append("fly to Earth")
        elif not on_grid(to):
            parts.append(f"fly {_DIRS[a.direction]} off the grid (a loss)")
        elif _unseen(obs, to):
            risk = odds.danger(to)
            parts.append(f"fly {_DIRS[a.direction]} and risk {odds.describe(to)}: "
                         f"{risk:.0%} to lose the ship there")
        else:
            parts.append(f"fly {_DIRS[a.direction]} onto {odds.describe(to)}")
    elif a.kind is ActionKind.PEEK and a.direction is not None:
        look = [p for p in peek_cells(ship, a.direction) if _unseen(obs, p)]
        parts.append(f"peek {_DIRS[a.direction]} to see the backs of "
                     + (", ".join(format_pos(p) for p in look) or "the cards ahead")
                     + " before moving")
    elif a.kind is ActionKind.SHIELDS:
        parts.append(f"charge shields to {min(2, obs.shields + 1)} (an Asteroid needs 2)")
    elif a.kind is ActionKind.FLIP and a.target is not None:
        parts.append(f"Deep Scan: flip {odds.describe(a.target)}")
    elif a.kind is ActionKind.SHIFT and a.row is not None:
        parts.append(f"Deep Scan: shift row {a.row} one place left")
    if len(cmd.cards) == 2:
        parts.append("two Fly cards to turn")
    elif len(cmd.cards) == 3:
        parts.append("three cards as a wild")
    # The unseen neighbours the command does not enter, with their danger.
    if on_grid(ship) or ship[1] == 0:
        avoided = []
        for d in Direction:
            p = d.step(ship)
            if p != entered and _unseen(obs, p):
                avoided.append((odds.danger(p), p))
        avoided.sort(reverse=True)
        if avoided and (a.kind is not ActionKind.FLY or entered not in {p for _, p in avoided}):
            risk, p = avoided[0]
            if risk > 0:
                parts.append(f"it avoids {odds.describe(p)}: {risk:.0%} deadly now")
    if turn.rescan:
        parts.append(_rescan_text(turn, world))
    if runner is not None and runner.command is not None:
        parts.append(f"next best: {runner.command}")
    return "; ".join(parts)


def _rescan_text(turn: Turn, world: GameState | None) -> str:
    """What the hinted re-scan flips and what for, for the likeliest outcome:
    the turn played in ``world`` (one of the worlds that show it), the
    flips read from the engine's log of its re-scan ([D2]: the row two ahead
    of where the command left the ship, Boosts and shifts included)."""
    cols = sorted(turn.rescan)
    plain = "re-scan: flip columns " + ",".join(map(str, cols))
    played = in_world(world, turn) if world is not None else None
    if world is None or played is None:
        return plain
    mid, flipped = after_command(world, played)
    if mid.is_over or not rescan_allowed(mid, turn.rescan, flipped):
        return plain  # (a world whose outcome is not the likeliest one)
    log: list[Event] = []
    after = rescan(mid, turn.rescan, flipped, log)
    bits = []
    for e in log:
        if isinstance(e, Flipped) and e.cause == "re-scan":
            slot = after.cell(e.pos)
            assert isinstance(slot, Slot)
            # Entering the card flips it back: the ship meets the side up now.
            meets = slot.down
            why = "safe to enter" if meets in (SectorType.EMPTY, SectorType.BOOST) else "to see its other side"
            bits.append(f"{format_pos(e.pos)} (once flipped, entering it meets this {_NAMES[meets.value]}: {why})")
    if not bits:
        return plain
    return "re-scan flips " + "; ".join(bits)
