"""An independent reference solver for cross-checking (deal mode, short horizons).

It shares no search code with ``search``/``model``: it expands every legal turn
with the rules engine itself (``legal_turns`` / ``apply_turn``, explicit re-scan
flips, every Deep Scan target), breadth first, deduplicating only *identical*
engine states (all fields that influence play). It returns the same objective:
fewest turns, then fewest cards played, then most cards left in hand and deck,
or None when no win exists within ``horizon`` turns.
"""

from __future__ import annotations

from ..rules.commands import legal_commands
from ..rules.engine import apply_turn, command_phases, execute, legal_turns
from ..rules.state import GameState, Status
from ..rules.turns import ActionKind


def _key(s: GameState) -> tuple:
    return (s.grid, s.hands, s.deck, s.ranking, s.discard, s.ship, s.pod, s.shields, s.held,
            s.second_pass, s.active)


def _cards(t) -> int:
    return sum(len(c.cards) for c in (t.command, t.second) if c is not None)


def reference_solve(
    state: GameState, horizon: int, *, max_states: int = 2_000_000
) -> tuple[int, int, int] | None:
    """(turns, cards played, cards left) of the best win within ``horizon`` turns,
    or None. Raises ``MemoryError`` when a layer exceeds ``max_states``."""
    layer: dict[tuple, tuple[int, GameState]] = {_key(state): (0, state)}
    seen: set[tuple] = set(layer)
    for depth in range(1, horizon + 1):
        nxt: dict[tuple, tuple[int, GameState]] = {}
        wins: list[tuple[int, int]] = []
        for cards, s in layer.values():
            if depth == horizon:
                # Last turn: only a win counts, and a won game has no draw or
                # re-scan, so the commands alone decide it.
                wins += _winning_commands(s, cards)
                continue
            for t in legal_turns(s):
                s2 = apply_turn(s, t)
                c2 = cards + _cards(t)
                st = s2.outcome.status
                if st is Status.WON:
                    wins.append((c2, -(sum(len(h) for h in s2.hands) + len(s2.deck))))
                    continue
                if st is Status.LOST:
                    continue
                k = _key(s2)
                if k in seen and k not in nxt:
                    continue
                old = nxt.get(k)
                if old is None or c2 < old[0]:
                    nxt[k] = (c2, s2)
        if wins:
            c, left = min(wins)
            return (depth, c, -left)
        seen.update(nxt)
        layer = nxt
        if len(layer) > max_states:
            raise MemoryError(f"reference search: {len(layer)} states at depth {depth}")
        if not layer:
            return None
    return None


def _winning_commands(s: GameState, cards: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    if not s.hands[s.active]:
        return out
    for bolster in range(s.held + 1):
        s0 = s.evolve(shields=min(2, s.shields + bolster), held=s.held - bolster)
        if s.options.second_action:
            # Every command pair, as the engine lists them (rule options included).
            for cmd, cmd2, s2, _ in command_phases(s0):
                if s2.outcome.status is Status.WON:
                    n = len(cmd.cards) + (len(cmd2.cards) if cmd2 is not None else 0)
                    out.append((cards + n, -(sum(len(h) for h in s2.hands) + len(s2.deck))))
            continue
        for cmd in legal_commands(s0):
            # Without the pod only a Fly reaches Earth in a single action.
            if s.pod is None and cmd.action.kind is not ActionKind.FLY:
                continue
            s1, _ = execute(s0, cmd, frozenset())
            if s1.outcome.status is Status.WON:
                out.append((cards + len(cmd.cards), -(sum(len(h) for h in s1.hands) + len(s1.deck))))
    return out
