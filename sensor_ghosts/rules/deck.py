"""Drawing command cards, the reshuffle and the second pass (RULES.md §7, [D6],
[D15], [D22])."""

from __future__ import annotations

from .state import GameState, Outcome, Status

DECK_OUT = "the deck ran out on the second pass"


def reshuffle(state: GameState) -> GameState:
    """[D15] The Wild joins the discard pile, which becomes the new deck in the
    order of the deal's ranking [D22]; the heading is reset (the pile is empty)."""
    cards = [e.card for e in state.discard] + [state.setup.command_cards.wild.id]
    rank = {card: i for i, card in enumerate(state.ranking)}
    unranked = [c for c in cards if c not in rank]
    if unranked:
        from .errors import InvalidStateError
        from .validation import Violation

        raise InvalidStateError(
            [Violation("D22", f"the ranking leaves out {', '.join(unranked)}", key="ranking")]
        )
    cards.sort(key=lambda c: rank[c])
    return state.evolve(deck=tuple(cards), discard=(), second_pass=True)


def deck_top(state: GameState) -> tuple[GameState, str | None]:
    """The state with a card ready on top of the deck (reshuffling if the first
    pass ran out) and that card; None when no card can be drawn."""
    if not state.deck:
        if state.second_pass:
            return state, None
        state = reshuffle(state)
    return state, state.deck[0]


def draw_up(state: GameState) -> GameState:
    """Step 4: the active player draws one card at a time up to the hand limit.
    An empty deck on the second pass loses the game (§7)."""
    player = state.active
    limit = state.options.hand_limit
    while len(state.hands[player]) < limit:
        state, card = deck_top(state)
        if card is None:
            return state.evolve(outcome=Outcome(Status.LOST, DECK_OUT))
        hands = list(state.hands)
        hands[player] = hands[player] + (card,)
        state = state.evolve(deck=state.deck[1:], hands=tuple(hands))
    return state
