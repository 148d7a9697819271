"""Route-following policies of the previous hint engine: ``fast_turn`` follows
the first step of ``route``, ``policy_turn`` scores every useful command by
``value``, ``rollout`` plays a world to its end with them (the greedy and
cheating bots, ``hint-old``'s playouts)."""

from __future__ import annotations

from collections.abc import Callable

from ..rules.cards import SectorType
from ..rules.commands import legal_commands
from ..rules.engine import legal_turns
from ..rules.geometry import EARTH, Pos, on_grid
from ..rules.rescan import rescan_choices, rescan_row
from ..rules.setup import Slot
from ..rules.state import GameState, Status
from ..rules.turns import Action, ActionKind, Command, Turn
from .commands import after_command as _after_command
from .commands import finish as _finish
from .route import BLIND, FIX, OK, SHIELD, Informed, route, value


def _safe(t: SectorType | None, shields: int) -> float:
    if t is None:
        return 0.5
    if t in (SectorType.EMPTY, SectorType.BOOST):
        return 1.0
    if t is SectorType.ASTEROID:
        return 0.5 if shields == 2 else 0.0
    return 0.0


def rescan_policy(
    state: GameState,
    flipped: frozenset[int],
    down: Callable[[Pos], SectorType | None] | None = None,
) -> frozenset[int]:
    """A re-scan choice: flip the cards of the row two ahead that become safer to
    enter (entering flips a card, so its *down* side is what the ship meets);
    nearer the ship's column first. ``down`` gives a card's down side as known
    (default: the true one, perfect information)."""
    choices = rescan_choices(state, flipped)
    if len(choices) <= 1:
        return choices[0] if choices else frozenset()
    row = rescan_row(state)
    assert row is not None
    col = state.ship[1] if on_grid(state.ship) else 1

    def gain(c: int) -> float:
        cell = state.grid[row - 1][c - 1]
        assert isinstance(cell, Slot)
        d = down((row, c)) if down is not None else cell.down
        # Flipping: the face becomes the old down side; the new down side is the face.
        return _safe(cell.face, 2) - _safe(d, 2) - 0.01 * abs(c - col)

    gains = {c: gain(c) for c in set().union(*choices)}
    return max(choices, key=lambda ch: (sum(gains[c] for c in ch), -min(ch, default=0)))


def seen_down(state: GameState) -> Callable[[Pos], SectorType | None]:
    """A card's down side if the player has seen it, else None (§14)."""

    def down(pos: Pos) -> SectorType | None:
        cell = state.cell(pos)
        if isinstance(cell, Slot) and (cell.card.start or cell.card.id in state.seen):
            return cell.down
        return None

    return down


def play(
    state: GameState, turn: Turn, cols: frozenset[int] | None = None, informed: Informed = True
) -> GameState:
    """``turn`` in ``state`` (a world); its re-scan if legal there, else ``cols``,
    else ``rescan_policy`` (on what the player has seen unless ``informed``)."""
    s, flipped = _after_command(state, turn)
    if s.is_over:
        return s
    choices = rescan_choices(s, flipped)
    for want in (turn.rescan, cols):
        if want is not None and want in choices:
            return _finish(s, flipped, want)
    return _finish(s, flipped, rescan_policy(s, flipped, None if informed else seen_down(s)))


def _useful(state: GameState, cmd: Command) -> bool:
    a = cmd.action
    if a.kind is ActionKind.PEEK:
        return False  # nothing to learn with perfect information
    if a.kind is ActionKind.SHIELDS:
        return state.shields < 2
    if a.kind is ActionKind.FLIP:
        assert a.target is not None
        if not on_grid(state.ship):
            return a.target[0] <= 2 and a.target[1] <= 2
        return abs(a.target[0] - state.ship[0]) + abs(a.target[1] - state.ship[1]) <= 2
    if a.kind is ActionKind.SHIFT:
        return a.row is not None and 0 < a.row - state.ship_row <= 2
    return True


def policy_turn(state: GameState, informed: Informed = True) -> Turn:
    """A greedy perfect-information turn: every distinct useful command (plus one
    cheapest 'wait') with the re-scan of ``rescan_policy``, scored by ``value``."""
    best: tuple[float, int] | None = None
    best_turn: Turn | None = None
    seen: set = set()
    wait: Command | None = None
    bolsters = [0]
    if state.held > state.options.samples_to_win and state.shields < 2:
        bolsters.append(min(state.held - state.options.samples_to_win, 2 - state.shields))
    if not state.hands[state.active]:
        s, f = _after_command(state, Turn(None))
        down = None if informed else seen_down(s)
        return Turn(None, rescan=rescan_policy(s, f, down) if not s.is_over else frozenset())
    for b in bolsters:
        s0 = state.evolve(shields=min(2, state.shields + b), held=state.held - b)
        for cmd in legal_commands(s0):
            if not _useful(s0, cmd):
                if cmd.action.kind is ActionKind.PEEK and (
                    wait is None or len(cmd.cards) < len(wait.cards)
                ):
                    wait = cmd
                continue
            # The cheapest cards for each effect (action and heading left).
            key = (b, cmd.action, cmd.arrow, cmd.pod_direction)
            if key in seen:
                continue
            seen.add(key)
            t = Turn(cmd, b)
            v = _score(state, t, informed)
            cand = (v, -len(cmd.cards))
            if best is None or cand > best:
                best, best_turn = cand, t
    if wait is not None:
        t = Turn(wait, 0)
        cand = (_score(state, t, informed), -len(wait.cards))
        if best is None or cand > best:
            best, best_turn = cand, t
    if best_turn is None:  # only peeks were legal and none kept: take any legal turn
        return legal_turns(state)[0]
    s, flipped = _after_command(state, best_turn)
    down = None if informed else seen_down(s)
    cols = rescan_policy(s, flipped, down) if not s.is_over else frozenset()
    return Turn(best_turn.command, best_turn.bolster, best_turn.second, cols)


def _score(state: GameState, turn: Turn, informed: Informed) -> float:
    return value(play(state, turn, informed=informed), informed)


def _card_cost(state: GameState, cmd: Command) -> float:
    wild = state.setup.command_cards.wild.id
    return len(cmd.cards) + sum(1.5 for pc in cmd.cards if pc.card == wild)


def fast_turn(state: GameState, informed: Informed = True) -> Turn:
    """A fast perfect-information turn: follow the first step of ``route`` — fly
    there, or first flip the card (Deep Scan), charge shields, or wait a turn
    (shift the row ahead, charge shields, peek) for the row ahead to bring the
    right card; cheapest cards; re-scan by ``rescan_policy``. Falls back to the
    slower ``policy_turn`` when no route is found."""
    if not state.hands[state.active]:
        return policy_turn(state, informed)
    _, _, step = route(state, informed)
    if step is None:
        return policy_turn(state, informed)
    d, k, cell, need = step
    # The cheapest command for each action; a peek also stands for "wait".
    cheapest: dict[Action | str, tuple[float, Command]] = {}
    for cmd in legal_commands(state):
        cost = _card_cost(state, cmd)
        a: Action | str = cmd.action
        if cmd.action.kind is ActionKind.PEEK:
            if a not in cheapest or cost < cheapest[a][0]:
                cheapest[a] = (cost, cmd)
            a = "wait"
        if a not in cheapest or cost < cheapest[a][0]:
            cheapest[a] = (cost, cmd)

    def get(action: Action | str) -> Command | None:
        got = cheapest.get(action)
        return got[1] if got else None

    chosen: Command | None = None
    bolster = 0
    if k == 0 and need == OK:
        chosen = get(Action(ActionKind.FLY, d))
    elif k == 0 and need == BLIND:
        # Look before leaping, when a cheap peek that way is at hand.
        peek = cheapest.get(Action(ActionKind.PEEK, d))
        if peek is not None and peek[0] > 2:
            peek = None
        chosen = peek[1] if peek is not None else get(Action(ActionKind.FLY, d))
    elif need == FIX and cell != EARTH:
        # Flip it now: a card of the row ahead then shifts into place while
        # the ship waits (``route`` counted the flip as one of the k turns).
        chosen = get(Action(ActionKind.FLIP, target=cell))
    elif need == SHIELD:
        spare = state.held - state.options.samples_to_win
        if spare > 0:
            bolster = min(spare, 2 - state.shields)
            chosen = get(Action(ActionKind.FLY, d)) if state.shields + bolster >= 2 else None
        if chosen is None:
            bolster = 0
            chosen = get(Action(ActionKind.SHIELDS))
    if chosen is None:
        # Wait: speed the row ahead up, or charge shields, or peek.
        for action in (
            Action(ActionKind.SHIFT, row=state.ship_row + 1) if k > 1 else None,
            Action(ActionKind.SHIELDS) if state.shields < 2 else None,
            "wait",
        ):
            if action is not None and get(action) is not None and cheapest[action][0] < 2.5:
                chosen = get(action)
                break
    if chosen is None:
        return policy_turn(state, informed)
    t = Turn(chosen, bolster)
    s, flipped = _after_command(state, t)
    down = None if informed else seen_down(s)
    cols = rescan_policy(s, flipped, down) if not s.is_over else frozenset()
    return Turn(chosen, bolster, None, cols)


def rollout(state: GameState, max_turns: int = 60, informed: Informed = True) -> bool:
    """Play ``state`` (a world) to the end with ``fast_turn``; True if won.
    ``informed=False``: the policy uses only what the player has seen so far in
    that world (peeks, flips, cards entered), never the world's hidden truth —
    the playout respects the information the real player would have."""
    for _ in range(max_turns):
        if state.is_over:
            break
        state = play(state, fast_turn(state, informed), informed=informed)
    return state.outcome.status is Status.WON
