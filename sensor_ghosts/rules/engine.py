"""The turn loop: legal turns and applying one (RULES.md §4). The rules
themselves live in the modules this one calls:

- commands.py  which cards may be played for what (inertia, wilds, help)
- movement.py  Fly: boosts, asteroids, obstructions, gaps, Earth; the pod
- rescan.py    row shifts and flips (re-scan and Deep Scan)
- deck.py      drawing, the reshuffle, running out
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from .cards import CommandKind
from .commands import command_problem, legal_commands, spent_players
from .deck import deck_top, draw_up
from .errors import GameOverError, IllegalTurnError, TimeLimitError
from .geometry import Direction, peek_cells
from .log import Drew, Flipped, GameEnded, Peeked, PodMoved, ShieldsRaised, Shifted
from .movement import fly, move_pod
from .rescan import flip_card, rescan, rescan_allowed, rescan_choices, shift_row
from .setup import Slot
from .state import DiscardEntry, GameState
from .turns import DECK_PLAYER, ActionKind, Command, Turn
from .validation import check_shape


def execute(
    state: GameState, cmd: Command, flipped: frozenset[int], *, pod_moves: bool = True,
    log: list | None = None,
) -> tuple[GameState, frozenset[int]]:
    """Play ``cmd`` (already checked legal) and resolve its action and the pod's
    move (none with ``pod_moves`` False: see ``pod_moves_after_first``). Returns the
    new state and the cards flipped by choice so far [D23]; ``log`` gets the
    events (``rules/log.py``)."""
    hands = [list(h) for h in state.hands]
    for pc in cmd.cards:
        if pc.player == DECK_PLAYER:
            # [D18] drawn as in §7: may trigger the reshuffle.
            state, top = deck_top(state)
            assert top == pc.card
            state = state.evolve(deck=state.deck[1:])
        else:
            hands[pc.player].remove(pc.card)
    pile = tuple(DiscardEntry(pc.card) for pc in cmd.cards[:-1])
    pile += (DiscardEntry(cmd.top.card, cmd.arrow),)
    state = state.evolve(hands=tuple(tuple(h) for h in hands), discard=state.discard + pile)

    a = cmd.action
    if a.kind is ActionKind.FLY:
        assert a.direction is not None
        state = fly(state, a.direction, log)
    elif a.kind is ActionKind.FLIP:
        assert a.target is not None
        card = state.cell(a.target).card
        state = flip_card(state, a.target)
        flipped = flipped | {card.id}
        if log is not None:
            log.append(Flipped(a.target, state.cell(a.target).face, "deep scan"))
    elif a.kind is ActionKind.SHIFT:
        assert a.row is not None
        state = shift_row(state, a.row)
        if log is not None:
            log.append(Shifted(a.row, "deep scan"))
    elif a.kind is ActionKind.SHIELDS:
        state = state.evolve(shields=min(2, state.shields + 1))
        if log is not None:
            log.append(ShieldsRaised(state.shields))
    elif a.kind is ActionKind.PEEK:
        # Peek changes nothing but what the players know (§5).
        assert a.direction is not None
        state = _peek(state, a.direction)
        if log is not None:
            log.append(Peeked(tuple(peek_cells(state.ship, a.direction))))

    if state.is_over or state.pod is None or not pod_moves:
        return state, flipped
    # §10: the pod moves after the ship's action, by the top card's value, along
    # a Fly card's arrow or in the player's chosen direction.
    direction = cmd.arrow if state.kind(cmd.top.card) is CommandKind.FLY else cmd.pod_direction
    if direction is not None:
        start = state.pod
        state = move_pod(state, direction, state.card(cmd.top.card).pod_value)
        if log is not None and state.pod is not None and state.pod != start:
            log.append(PodMoved(start, state.pod))
    return state, flipped


def _peek(state: GameState, d: Direction) -> GameState:
    """§5 Peek: the players see the down sides of the three cells ahead."""
    seen = set(state.seen)
    for p in peek_cells(state.ship, d):
        cell = state.cell(p)
        if isinstance(cell, Slot) and not cell.card.start:
            seen.add(cell.card.id)
    return state.evolve(seen=frozenset(seen))


def pod_moves_after_first(state: GameState, two_actions: bool) -> bool:
    """Does the pod move after the first action of a turn?

    By default the pod moves after each action, by that action's top card (§10
    read with the §12 second action). Option 'pod-once-per-turn', the other
    reading of that gap in RULES.md: the pod moves once a turn, after the
    turn's last action, so not after the first of two."""
    o = state.options
    return not (two_actions and o.second_action and o.pod_once_per_turn)


def _check(state: GameState, cmd: Command, flipped: frozenset[int], **kw) -> None:
    problem = command_problem(state, cmd, flipped, **kw)
    if problem is not None:
        raise IllegalTurnError(problem)


def apply_turn(state: GameState, turn: Turn, trace: list | None = None, *,
               log: list | None = None) -> GameState:
    """Apply one whole turn; raises ``IllegalTurnError`` (state unchanged) with the
    reason when any part of it is illegal. ``trace``: gets (command, state before
    it, state after it, its events) for each command played, for figures read
    mid-turn (``solver.plan``: the shields a flight spent; ``advisor.continuation``:
    the cells a flight entered); the events are those of ``log`` (none when
    no log is asked for). ``log``: gets what happened,
    in order (``rules/log.py``: cells entered and the sides met, samples,
    flips, shifts, peeks, pod moves, draws, the end of the game)."""
    events: list | None = [] if log is not None else None
    after = _apply_turn(state, turn, trace, events)
    if log is not None and events is not None:
        if after.is_over:
            events.append(GameEnded(after.outcome))
        log.extend(events)  # only a turn that was legal as a whole is told
    return after


def _apply_turn(state: GameState, turn: Turn, trace: list | None, log: list | None) -> GameState:
    if state.is_over:
        raise GameOverError(f"the game is over ({state.outcome})")
    check_shape(state)  # an InvalidStateError, not an IndexError, on a hand-made state
    o = state.options
    has_cards = bool(state.hands[state.active])
    if turn.command is None:
        if has_cards:
            raise IllegalTurnError("a player holding a card must play a command; there is no pass [D10]")
        if turn.bolster or turn.second is not None:
            raise IllegalTurnError("a player with no card skips bolster and command (§9)")
    elif not has_cards:
        raise IllegalTurnError("the active player holds no card: the turn is 'skip' (§9)")
    if not 0 <= turn.bolster <= state.held:
        raise IllegalTurnError(f"cannot bolster with {turn.bolster} samples holding {state.held}")
    # Step 1, [D9]: each spent sample gives a shield, at most 2; spent samples are gone.
    state = state.evolve(shields=min(2, state.shields + turn.bolster), held=state.held - turn.bolster)
    flipped: frozenset[int] = frozenset()
    if turn.command is not None:
        pod1 = pod_moves_after_first(state, turn.second is not None)
        _check(state, turn.command, flipped, pod_moves=pod1)
        before, told = state, len(log) if log is not None else 0
        state, flipped = execute(state, turn.command, flipped, pod_moves=pod1, log=log)
        if trace is not None:
            trace.append((turn.command, before, state, tuple(log[told:]) if log is not None else ()))
    if turn.second is not None:
        assert turn.command is not None
        # §12 second action: once per turn, before drawing, for a held virus sample.
        if not o.second_action:
            raise IllegalTurnError("a second action needs the 'second-action' rule option (§12)")
        if state.is_over:
            raise IllegalTurnError("the game ended during the first action")
        if state.held < 1:
            raise IllegalTurnError("a second action costs a held virus sample (§12)")
        state = state.evolve(held=state.held - 1)
        _check(state, turn.second, flipped, played=spent_players(state, turn.command))
        before, told = state, len(log) if log is not None else 0
        state, flipped = execute(state, turn.second, flipped, log=log)
        if trace is not None:
            trace.append((turn.second, before, state, tuple(log[told:]) if log is not None else ()))
    return _finish_turn(state, turn.rescan, flipped, log)


def _finish_turn(state: GameState, columns: frozenset[int], flipped: frozenset[int],
                 log: list | None = None) -> GameState:
    """Steps 4-5 (draw, re-scan), then hand over to the next player."""
    if not state.is_over:
        before = state
        state = draw_up(state)
        if log is not None:
            hand = state.hands[before.active]
            drawn = hand[len(before.hands[before.active]):]
            if drawn:
                log.append(Drew(tuple(drawn), state.second_pass and not before.second_pass))
    if state.is_over:
        if columns:
            raise IllegalTurnError("the game ended before the re-scan")
        return state
    if not rescan_allowed(state, columns, flipped):
        raise IllegalTurnError(_rescan_problem(state, columns, flipped))
    state = rescan(state, columns, flipped, log)
    return state.evolve(turn=state.turn + 1, active=(state.active + 1) % state.options.players)


def _rescan_problem(state: GameState, columns: frozenset[int], flipped: frozenset[int]) -> str:
    from .rescan import rescan_candidates, rescan_count, rescan_row

    row = rescan_row(state)
    cand = rescan_candidates(state, flipped)
    k = rescan_count(state, cand)
    if row is None:
        return "no row two ahead: the re-scan flips nothing"
    bad = sorted(set(columns) - set(cand))
    if bad:
        return (
            f"the re-scan cannot flip column(s) {','.join(map(str, bad))} of row {row} "
            "(a gap, a card flipped by choice this turn [D23], or a back under 'reveal once')"
        )
    return f"the re-scan flips exactly {k} card(s) of row {row} (§8)"


def legal_turns(state: GameState, *, deadline: float | None = None) -> list[Turn]:
    """Every legal turn, each distinct (see ``Turn.key``); empty once the game is over.
    A state whose numbers no game reaches (``validation.check_shape``) raises
    ``InvalidStateError``; ``validation.check_playable`` checks all of it.
    ``deadline`` (``time.perf_counter()``): past it, ``TimeLimitError`` (a
    four-player state has some 70,000 turns: most of a second to list)."""
    if state.is_over:
        return []
    check_shape(state)
    out: list[Turn] = []
    if not state.hands[state.active]:
        after = draw_up(state)
        return [Turn(None, rescan=r) for r in _rescans(after, frozenset())]
    for bolster in range(state.held + 1):
        s0 = state.evolve(shields=min(2, state.shields + bolster), held=state.held - bolster)
        for i, (cmd, cmd2, s2, f2) in enumerate(command_phases(s0)):
            if deadline is not None and not i & 255 and time.perf_counter() > deadline:
                raise TimeLimitError(0.0, "listing the legal turns")
            out.extend(Turn(cmd, bolster, cmd2, r) for r in _rescans(_drawn(s2), f2))
    return out


def turn_starts(state: GameState, *, deadline: float | None = None) -> list[Turn]:
    """Every distinct start of a legal turn (bolster, command, second command)
    with no re-scan: what a player chooses before the draw, since the re-scan
    is chosen after it. Much shorter to list than ``legal_turns``, which
    multiplies each start by its re-scan choices. ``deadline`` as there."""
    if state.is_over:
        return []
    check_shape(state)
    if not state.hands[state.active]:
        return [Turn(None)]
    out: dict[tuple, Turn] = {}
    for bolster in range(state.held + 1):
        s0 = state.evolve(shields=min(2, state.shields + bolster), held=state.held - bolster)
        if not state.options.second_action:
            # One action a turn: the starts are the legal commands themselves,
            # and executing each (``command_phases``) would only cost time.
            for cmd in legal_commands(s0):
                turn = Turn(cmd, bolster)
                out.setdefault(turn.key(), turn)
            continue
        for i, (cmd, cmd2, _s2, _f2) in enumerate(command_phases(s0)):
            if deadline is not None and not i & 255 and time.perf_counter() > deadline:
                raise TimeLimitError(0.0, "listing the legal turns")
            turn = Turn(cmd, bolster, cmd2)
            out.setdefault(turn.key(), turn)
    return list(out.values())


def command_phases(
    state: GameState,
) -> Iterator[tuple[Command, Command | None, GameState, frozenset[int]]]:
    """Steps 2-3 of a turn, the §12 second action included, from ``state`` (the
    active player holds a card; the bolster is done): every (first command,
    second command or None, state after them, cards flipped by choice [D23])."""
    o = state.options
    # Under 'pod-once-per-turn' the first of two actions does not move the pod,
    # so two-action turns start from commands without a pod direction.
    split = o.second_action and o.pod_once_per_turn
    for cmd in legal_commands(state):
        s1, f1 = execute(state, cmd, frozenset())
        yield cmd, None, s1, f1
        if o.second_action and not split:
            yield from _second_actions(cmd, s1, f1)
    if split:
        for cmd in legal_commands(state, pod_moves=False):
            s1, f1 = execute(state, cmd, frozenset(), pod_moves=False)
            yield from _second_actions(cmd, s1, f1)


def _second_actions(
    cmd: Command, s1: GameState, f1: frozenset[int]
) -> Iterator[tuple[Command, Command | None, GameState, frozenset[int]]]:
    """§12: once per turn, before drawing, a held virus sample buys a second action."""
    if s1.is_over or s1.held < 1:
        return
    s1b = s1.evolve(held=s1.held - 1)
    for cmd2 in legal_commands(s1b, f1, played=spent_players(s1b, cmd)):
        s2, f2 = execute(s1b, cmd2, f1)
        yield cmd, cmd2, s2, f2


def _drawn(state: GameState) -> GameState:
    return state if state.is_over else draw_up(state)


def _rescans(state: GameState, flipped: frozenset[int]) -> list[frozenset[int]]:
    if state.is_over:
        return [frozenset()]
    return rescan_choices(state, flipped)


def perft(state: GameState, depth: int, *, timeout: float | None = None) -> int:
    """The number of legal turn sequences of length ``depth`` from ``state`` (a
    sequence that ends the game early is not extended, and does not count).
    Hand-made positions are welcome (the conformance tests use sparse grids);
    numbers no game reaches raise ``InvalidStateError`` (``legal_turns``), and
    ``validation.check_playable`` checks the whole state first where wanted.
    ``timeout`` (seconds): past it, ``TimeLimitError``."""
    deadline = None if timeout is None else time.perf_counter() + timeout
    return _perft(state, depth, deadline, timeout)


def _perft(state: GameState, depth: int, deadline: float | None = None, timeout: float | None = None) -> int:
    if depth == 0:
        return 1
    if deadline is not None and time.perf_counter() > deadline:
        raise TimeLimitError(timeout or 0.0, f"perft depth {depth} left")
    try:
        turns = legal_turns(state, deadline=deadline)
    except TimeLimitError:
        raise TimeLimitError(timeout or 0.0, f"perft depth {depth} left") from None
    if depth == 1:
        return len(turns)
    return sum(_perft(apply_turn(state, t), depth - 1, deadline, timeout) for t in turns)
