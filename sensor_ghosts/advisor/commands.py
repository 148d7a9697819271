"""Commands as a hint weighs them: grouped by effect (``command_key``), the
cheapest cards for each effect, and played in a sampled world up to the
re-scan (``after_command``, ``finish``)."""

from __future__ import annotations

from ..rules.cards import SectorType
from ..rules.commands import legal_commands
from ..rules.deck import draw_up
from ..rules.engine import command_phases, execute, pod_moves_after_first
from ..rules.rescan import rescan, rescan_choices
from ..rules.setup import Slot
from ..rules.state import GameState, Status
from ..rules.turns import DECK_PLAYER, Command, PlayedCard, Turn


def command_key(state: GameState, cmd: Command | None, by_player: bool = True) -> tuple | None:
    """What a command does, up to interchangeable cards: the kinds of the cards
    played (with pod values under the escape pod, whether one comes from the
    deck [D18], and with ``by_player`` whether the player holds it or a partner
    lends it), the top card's kind, the action, the heading it leaves [D11] and
    the pod's direction (§10). Cards of one kind are interchangeable to a
    player who cannot see the deck order: the reshuffle's ranking is uniformly
    random [D22]."""
    if cmd is None:
        return None
    pod = state.pod is not None

    def kind(pc: PlayedCard) -> tuple:
        card = state.card(pc.card)
        k = (card.kind.value, card.pod_value if pod else 0, pc.player == DECK_PLAYER)
        return k + (pc.player == state.active,) if by_player else k

    return (tuple(sorted(kind(pc) for pc in cmd.cards)), kind(cmd.top), cmd.action, cmd.arrow,
            cmd.pod_direction)


def turn_key(state: GameState, turn: Turn, by_player: bool = True) -> tuple:
    """A turn's command effect, its re-scan left out."""
    return (turn.bolster, command_key(state, turn.command, by_player),
            command_key(state, turn.second, by_player))


def commands(state: GameState) -> dict[tuple, Turn]:
    """Every command effect the active player can choose (bolster, command, a
    second action), each as a turn without its re-scan."""
    if not state.hands[state.active]:
        return {(0, None, None): Turn(None)}
    out: dict[tuple, Turn] = {}
    for bolster in range(state.held + 1):
        s0 = state.evolve(shields=min(2, state.shields + bolster), held=state.held - bolster)
        if s0.options.second_action:
            for cmd, cmd2, _s, _f in command_phases(s0):
                t = Turn(cmd, bolster, cmd2)
                out.setdefault(turn_key(state, t), t)
            continue
        for cmd in legal_commands(s0):  # (no need to play them out)
            t = Turn(cmd, bolster)
            out.setdefault(turn_key(state, t), t)
    return out


def in_world(world: GameState, turn: Turn) -> Turn | None:
    """``turn`` with the cards other players lend it taken from their hands in
    ``world`` (a card of the same kind and pod value), or None where a partner
    holds none there: the player cannot see the other hands (§14)."""
    if world.options.players == 1 or turn.command is None:
        return turn
    taken: set[str] = set()

    def remap(cmd: Command | None) -> Command | None | bool:
        if cmd is None:
            return None
        cards = []
        for pc in cmd.cards:
            if pc.player in (world.active, DECK_PLAYER):
                cards.append(pc)
                continue
            want = world.card(pc.card)
            pick = next((c for c in world.hands[pc.player] if c not in taken
                         and world.card(c).kind is want.kind
                         and world.card(c).pod_value == want.pod_value), None)
            if pick is None:
                return False
            taken.add(pick)
            cards.append(PlayedCard(pick, pc.player))
        return Command(tuple(cards), cmd.action, cmd.arrow, cmd.pod_direction)

    c1 = remap(turn.command)
    c2 = remap(turn.second)
    if c1 is False or c2 is False:
        return None
    return Turn(c1, turn.bolster, c2, turn.rescan)  # type: ignore[arg-type]


def after_command(state: GameState, turn: Turn) -> tuple[GameState, frozenset[int]]:
    """Steps 1-4 of ``turn`` (bolster, command(s), draw) in a world: the state the
    re-scan is chosen in, and the cards flipped by choice so far [D23]."""
    s = state.evolve(shields=min(2, state.shields + turn.bolster), held=state.held - turn.bolster)
    flipped: frozenset[int] = frozenset()
    if turn.command is not None:
        pod1 = pod_moves_after_first(s, turn.second is not None)
        s, flipped = execute(s, _deck_card(s, turn.command), flipped, pod_moves=pod1)
    if turn.second is not None and not s.is_over:
        s = s.evolve(held=s.held - 1)
        s, flipped = execute(s, _deck_card(s, turn.second), flipped)
    if not s.is_over:
        s = draw_up(s)
    return s, flipped


def _deck_card(state: GameState, cmd: Command) -> Command:
    """[D18] The deck's card in a two-player wild is whatever lies on top in this world."""
    if all(pc.player != DECK_PLAYER for pc in cmd.cards) or not state.deck:
        return cmd
    cards = tuple(PlayedCard(state.deck[0], DECK_PLAYER) if pc.player == DECK_PLAYER else pc
                  for pc in cmd.cards)
    return Command(cards, cmd.action, cmd.arrow, cmd.pod_direction)


def finish(state: GameState, flipped: frozenset[int], cols: frozenset[int]) -> GameState:
    """Step 5 (the re-scan) and the hand-over, as the engine does it."""
    if state.is_over:
        return state
    state = rescan(state, cols, flipped)
    return state.evolve(turn=state.turn + 1, active=(state.active + 1) % state.options.players)


def _meets_if_entered(state: GameState, pos: tuple[int, int]) -> float:
    """How good a card of the row two ahead is to enter as the players know it:
    1 safe, 0 deadly, 0.5 unknown (entering meets the down side)."""
    cell = state.cell(pos)
    if not isinstance(cell, Slot):
        return 0.0
    if not (cell.card.start or cell.card.id in state.seen):
        return 0.5
    d = cell.down
    return 1.0 if d in (SectorType.EMPTY, SectorType.BOOST) else 0.25 if d is SectorType.ASTEROID else 0.0


def quick_rescan(state: GameState, flipped: frozenset[int]) -> frozenset[int]:
    """A re-scan chosen from what the player knows, for the valuation of
    candidates: flip the cards that become better to enter (a flipped card's
    new down side is its face, which everyone saw), nearer the ship first."""
    choices = rescan_choices(state, flipped)
    if len(choices) <= 1:
        return choices[0] if choices else frozenset()
    from ..rules.rescan import rescan_row

    row = rescan_row(state)
    assert row is not None
    col = state.ship[1] if 1 <= state.ship[1] <= 5 else 1

    def gain(c: int) -> float:
        cell = state.cell((row, c))
        if not isinstance(cell, Slot):
            return -1.0
        f = cell.face
        after = 1.0 if f in (SectorType.EMPTY, SectorType.BOOST) else 0.25 if f is SectorType.ASTEROID else 0.0
        # Unseen cards are worth flipping for what they show, too.
        info = 0.3 if not (cell.card.start or cell.card.id in state.seen) else 0.0
        return after - _meets_if_entered(state, (row, c)) + info - 0.05 * abs(c - col)

    gains = {c: gain(c) for c in set().union(*choices)}
    return max(choices, key=lambda ch: (sum(gains[c] for c in ch), -min(ch, default=0)))



CARD_COST = {"fly": 1.0, "shields": 1.05, "deep-scan": 1.2, "wild": 3.0}


def _cost(state: GameState, turn: Turn) -> float:
    c = 0.1 * turn.bolster
    for cmd in (turn.command, turn.second):
        if cmd is not None:
            c += sum(CARD_COST.get(state.kind(pc.card).value, 1.0) for pc in cmd.cards)
    return c


def _effect(turn: Turn) -> tuple:
    def one(cmd: Command | None) -> tuple | None:
        return None if cmd is None else (cmd.action, cmd.pod_direction)

    return (turn.bolster, one(turn.command), one(turn.second))


def cheapest(state: GameState, options: dict[tuple, Turn]) -> dict[tuple, Turn]:
    """For each effect (bolster, actions, pod direction) the command with the
    cheapest cards (the Wild dearest; a heading left is part of the effect only
    through which cards are spent)."""
    best: dict[tuple, tuple[float, tuple, Turn]] = {}
    for k, t in options.items():
        e = _effect(t)
        c = _cost(state, t)
        if e not in best or c < best[e][0]:
            best[e] = (c, k, t)
    return {k: t for _c, k, t in best.values()}


def _unseen(state: GameState, pos: tuple[int, int]) -> bool:
    cell = state.cell(pos) if 1 <= pos[0] <= 7 and 1 <= pos[1] <= 5 else None
    return isinstance(cell, Slot) and not cell.card.start and cell.card.id not in state.seen


def surely_lost(world: GameState, turn: Turn) -> bool:
    """Does ``turn`` end the game in a loss at once however the hidden cards lie?
    Tried with every unseen down side Empty, the kindest world (a Boost could
    carry the ship into worse)."""
    from ..solver.worlds import with_unseen_down_sides

    kind = with_unseen_down_sides(world, SectorType.EMPTY)
    s, _ = after_command(kind, turn)
    return s.is_over and s.outcome.status is not Status.WON



class _PerWorld:
    """A command as played in each world (``in_world``)."""

    def __init__(self, ws: list[GameState]):
        self.ws = ws

    def turn(self, i: int, turn: Turn) -> Turn | None:
        return in_world(self.ws[i], turn)
