"""Which cards may be played for which action: single cards, two Fly cards, the
Wild and the three-card wild; the heading (inertia) rule; multi-player help
(RULES.md §4 step 2, §5, §9, [D10], [D11], [D18], [D24])."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from .cards import CommandKind
from .deck import deck_top
from .geometry import DIRECTIONS, EARTH, Direction
from .rescan import can_flip, flippable_cells, shiftable_rows
from .state import GameState
from .turns import DECK_PLAYER, Action, ActionKind, Command, PlayedCard

SINGLE, PAIR, TRIPLE = "single", "two Fly cards", "three-card wild"


@dataclass(frozen=True)
class Play:
    """A set of cards (before choosing the top) and how they are used."""

    cards: tuple[PlayedCard, ...]
    how: str


def _holder(state: GameState, card: str) -> int | None:
    for p, hand in enumerate(state.hands):
        if card in hand:
            return p
    return None


def card_plays(state: GameState, played: frozenset[int] = frozenset()) -> Iterator[Play]:
    """Every set of cards the active player may play, with help in multi-player.

    ``played``: the players who have already played a card this turn and may
    play no more (option 'helpers-once-per-turn', see ``spent_players``)."""
    me = state.active
    if me in played:
        # §9: every command holds a card of the active player.
        return
    hand = state.hands[me]
    kind = state.kind
    wild_id = state.setup.command_cards.wild.id
    mine = [PlayedCard(c, me) for c in hand]
    for pc in mine:
        yield Play((pc,), SINGLE)
    if state.options.players == 1:
        flies = [pc for pc in mine if kind(pc.card) is CommandKind.FLY]
        for pair in combinations(flies, 2):
            yield Play(pair, PAIR)
        # [D24] The three-card substitute only for a player without the Wild.
        if wild_id not in hand:
            for triple in combinations(mine, 3):
                yield Play(triple, TRIPLE)
        return
    # §9: one card per player; the active player always plays one.
    others = [p for p in range(state.options.players) if p != me and p not in played]
    for pc in mine:
        if kind(pc.card) is CommandKind.FLY:
            for p in others:
                for c in state.hands[p]:
                    if kind(c) is CommandKind.FLY:
                        yield Play((pc, PlayedCard(c, p)), PAIR)
    if wild_id in hand:
        return
    usable = [pc for pc in mine if pc.card != wild_id]
    if state.options.players == 2:
        # [D18] The deck's top card stands in for a third player.
        _, top = deck_top(state)
        if top is None or top == wild_id:
            return
        helper = others[0]
        for pc in usable:
            for c in state.hands[helper]:
                if c != wild_id:
                    yield Play((pc, PlayedCard(c, helper), PlayedCard(top, DECK_PLAYER)), TRIPLE)
        return
    for pc in usable:
        for p, q in combinations(others, 2):
            for a in state.hands[p]:
                for b in state.hands[q]:
                    if wild_id not in (a, b):
                        yield Play((pc, PlayedCard(a, p), PlayedCard(b, q)), TRIPLE)


# The action kinds of Fly/Peek, of a Deep Scan, of a Shields card, and all.
_MOVES = frozenset((ActionKind.FLY, ActionKind.PEEK))
_SCANS = frozenset((ActionKind.FLIP, ActionKind.SHIFT))
_SHIELDS = frozenset((ActionKind.SHIELDS,))
_ANY = frozenset(ActionKind)


def _scope(state: GameState, play: Play) -> tuple[frozenset[ActionKind], tuple[Direction, ...]]:
    """The action kinds a play allows, and the directions it may Fly or Peek
    in: [D11] one Fly card follows the heading; two Fly cards, three cards
    or the Wild go anywhere."""
    if play.how == PAIR:
        return _MOVES, DIRECTIONS
    if play.how == TRIPLE:
        return _ANY, DIRECTIONS
    kind = state.kind(play.cards[0].card)
    if kind is CommandKind.FLY:
        heading = state.heading
        return _MOVES, tuple(d for d in DIRECTIONS if heading is None or d is heading)
    if kind is CommandKind.DEEP_SCAN:
        return _SCANS, ()
    if kind is CommandKind.SHIELDS:
        return _SHIELDS, ()
    return _ANY, DIRECTIONS  # the Wild


def actions_for(state: GameState, play: Play, flipped: frozenset[int]) -> list[Action]:
    """The actions a play allows (``_scope``), with every argument they may
    take (any target of a Deep Scan: ``can_flip``, ``shiftable_rows``)."""
    kinds, dirs = _scope(state, play)
    out = [Action(k, d) for k in (ActionKind.FLY, ActionKind.PEEK) if k in kinds for d in dirs]
    if ActionKind.FLIP in kinds:
        out += [Action(ActionKind.FLIP, target=p) for p in flippable_cells(state, flipped)]
    if ActionKind.SHIFT in kinds:
        out += [Action(ActionKind.SHIFT, row=r) for r in shiftable_rows(state)]
    if ActionKind.SHIELDS in kinds:
        out.append(Action(ActionKind.SHIELDS))
    return out


def action_allowed(state: GameState, play: Play, action: Action, flipped: frozenset[int]) -> bool:
    """Whether ``action`` is one of ``actions_for(state, play, flipped)``,
    without listing them (the check of a replayed command)."""
    kinds, dirs = _scope(state, play)
    k = action.kind
    if k not in kinds:
        return False
    if k in _MOVES:
        return action.direction in dirs and action == Action(k, action.direction)
    if k is ActionKind.FLIP:
        return (action.target is not None and action == Action(k, target=action.target)
                and can_flip(state, action.target, flipped))
    if k is ActionKind.SHIFT:
        return action.row in shiftable_rows(state) and action == Action(k, row=action.row)
    return action == Action(k)


def arrow_choices(state: GameState, top: str, action: Action) -> list[Direction | None]:
    """[D11] A Fly card on top points in the action's direction, or any direction
    when the action has none; any other top card has no arrow."""
    if state.kind(top) is not CommandKind.FLY:
        return [None]
    if action.direction is not None:
        return [action.direction]
    return list(DIRECTIONS)


def pod_choices(state: GameState, top: str, pod_moves: bool = True) -> list[Direction | None]:
    """§10: the pod follows a Fly card on top; otherwise the player chooses.
    ``pod_moves`` False: the pod does not move after this command (the first
    action of a two-action turn under 'pod-once-per-turn'), so nothing to choose."""
    if not pod_moves or state.pod is None or state.pod == EARTH or state.kind(top) is CommandKind.FLY:
        return [None]
    return list(DIRECTIONS)


def spent_players(state: GameState, cmd: Command) -> frozenset[int]:
    """The players who may play no card in the second action after ``cmd``.

    Option 'helpers-once-per-turn' (§9 + §12), the alternative reading of a gap
    in RULES.md: "each player plays at most one card per turn" counts over the
    whole turn, so whoever played a card for the first action (the active player
    always does) plays none for the second. The deck's card of a two-player
    wild [D18] is no player's card. Solo play has no such limit (§9 is the
    multi-player rule), and by default the limit counts per action."""
    o = state.options
    if not o.helpers_once_per_turn or o.players == 1:
        return frozenset()
    return frozenset(pc.player for pc in cmd.cards if pc.player != DECK_PLAYER)


def legal_commands(
    state: GameState,
    flipped: frozenset[int] = frozenset(),
    *,
    played: frozenset[int] = frozenset(),
    pod_moves: bool = True,
) -> Iterator[Command]:
    """Every legal command of the active player; the last card is the top.
    ``played`` and ``pod_moves`` describe a second action (``spent_players``,
    ``pod_choices``)."""
    for play in card_plays(state, played):
        acts = actions_for(state, play, flipped)
        tops = [play.cards[-1]] if len(play.cards) == 1 else list(play.cards)
        for top in tops:
            rest = tuple(pc for pc in play.cards if pc is not top)
            cards = rest + (top,)
            for action in acts:
                for arrow in arrow_choices(state, top.card, action):
                    for pod in pod_choices(state, top.card, pod_moves):
                        yield Command(cards, action, arrow, pod)


def _holder_problem(state: GameState, cmd: Command, n_cards: int) -> str | None:
    """Why a card of ``cmd`` is not its player's to play (None when all are)."""
    multi = state.options.players > 1
    for pc in cmd.cards:
        if pc.player == DECK_PLAYER:
            if state.options.players != 2 or n_cards != 3:
                return "the deck's card stands in only for the third card of a two-player wild [D18]"
            _, top = deck_top(state)
            if top is None:
                return "no card can be drawn for the two-player wild [D18]"
            if top != pc.card:
                return f"the deck's top card is not {pc.card}"
        else:
            holder = _holder(state, pc.card)
            if holder is None or holder != pc.player:
                return f"card {pc.card} is not in player {pc.player + 1}'s hand"
            if not multi and holder != state.active:
                return f"card {pc.card} is not in the hand"
    return None


def _combination(
    state: GameState, ids: list[str], kinds: list, players: list[int]
) -> tuple[str, str | None]:
    """How the cards combine (SINGLE, PAIR or TRIPLE) and why they cannot (None if they can)."""
    wild_id = state.setup.command_cards.wild.id
    if len(ids) == 2:
        if any(k is not CommandKind.FLY for k in kinds):
            return PAIR, "two cards together must both be Fly cards"
        return PAIR, None
    if len(ids) == 3:
        if wild_id in ids:
            return TRIPLE, "the Wild is never part of a three-card wild [D24]"
        if wild_id in state.hands[state.active]:
            return TRIPLE, "a player holding the Wild cannot play three cards as a wild [D24]"
        if state.options.players == 2 and DECK_PLAYER not in players:
            return TRIPLE, "in a two-player game the third card of a wild is the deck's top card [D18]"
        if state.options.players > 2 and DECK_PLAYER in players:
            return TRIPLE, "with three or more players the wild takes one card from each of three players"
        return TRIPLE, None
    return SINGLE, None


def _refusal(state: GameState, cmd: Command, how: str, kinds: list, ids: list[str]) -> str:
    """Why the cards cannot be played for the command's action."""
    if how == SINGLE and kinds[0] is CommandKind.FLY and cmd.action.direction is not None:
        if cmd.action.kind in (ActionKind.FLY, ActionKind.PEEK):
            return (
                f"the heading is {state.heading.name.lower()}: one Fly card must follow it; "  # type: ignore[union-attr]
                "turn with two Fly cards or a wild [D11]"
            )
    if cmd.action.kind is ActionKind.SHIFT and cmd.action.row not in shiftable_rows(state):
        return f"row {cmd.action.row} cannot be shifted (the ship's row, [D14])"
    if cmd.action.kind is ActionKind.FLIP:
        return f"{cmd.action.target} is not a card that may be flipped now ([D4], [D23])"
    return f"{'+'.join(ids)} cannot be played for '{cmd.action}'"


def command_problem(
    state: GameState,
    cmd: Command,
    flipped: frozenset[int],
    *,
    played: frozenset[int] = frozenset(),
    pod_moves: bool = True,
) -> str | None:
    """Why ``cmd`` is illegal in ``state``, or None if it is legal (``played``,
    ``pod_moves``: as for ``legal_commands``)."""
    me = state.active
    ids = [pc.card for pc in cmd.cards]
    if not ids:
        return "a command needs at least one card"
    if len(set(ids)) != len(ids):
        return "a card is listed twice"
    if len(ids) > 3:
        return "at most three cards make one command"
    multi = state.options.players > 1
    problem = _holder_problem(state, cmd, len(ids))
    if problem is not None:
        return problem
    players = [pc.player for pc in cmd.cards]
    if me not in players:
        return "the active player must play one of the cards"
    again = sorted(p + 1 for p in set(players) & played)
    if again:
        return (
            f"with 'helpers-once-per-turn' each player plays at most one card in the whole turn; "
            f"player(s) {','.join(map(str, again))} played for the first action (§9, §12)"
        )
    if multi and len(set(players)) != len(players):
        return "in a multi-player game each player plays at most one card (§9)"
    kinds = [state.kind(c) for c in ids]
    how, problem = _combination(state, ids, kinds, players)
    if problem is not None:
        return problem
    play = Play(cmd.cards, how)
    if not action_allowed(state, play, cmd.action, flipped):
        return _refusal(state, cmd, how, kinds, ids)
    if cmd.arrow not in arrow_choices(state, cmd.top.card, cmd.action):
        return "the top card's arrow must be given for a Fly card on top of a directionless action, and match the action's direction otherwise [D11]"
    if cmd.pod_direction not in pod_choices(state, cmd.top.card, pod_moves):
        if cmd.pod_direction is None:
            return "choose a direction for the escape pod (§10)"
        if not pod_moves and state.pod not in (None, EARTH):
            return (
                "with 'pod-once-per-turn' the escape pod moves only after the turn's last "
                "action: its direction goes with the second command (§10, §12)"
            )
        return "the escape pod's direction is not chosen here (§10)"
    return None
