"""Setup and state validation: which rules does a parsed position break?

Two levels, as in python-chess: ``notation`` checks that a text *parses*; this
module checks that what parsed obeys RULES.md. ``validate`` and
``validate_state`` return every violation, not only the first; ``check`` and
``check_state`` raise ``InvalidSetupError`` listing them all. A state that
validates has the shape the engine relies on (conserved cards, sizes in range,
tokens on real cells), so playing on from it cannot crash the engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .cards import START_CARDS, CommandKind, SectorCard, SectorCardSet, SectorType, Side
from .errors import InvalidSetupError, InvalidStateError
from .geometry import (
    COLS,
    DOCK,
    EARTH,
    ROWS,
    Pos,
    cells,
    format_pos,
    on_grid,
    orthogonal_neighbours,
)
from .setup import Deal, Gap, Grid, Setup, Slot, cell_at
from .state import (
    MAX_SHIELDS,
    MAX_TURN,
    TOTAL_ROCK,
    TOTAL_VIRUS,
    GameState,
    Status,
    initial_state,
)

__all__ = [
    "LAYOUT_RULES",
    "START_CELLS",
    "Violation",
    "check",
    "check_playable",
    "check_shape",
    "check_state",
    "layout_violations",
    "playable_violations",
    "validate",
    "validate_state",
]

START_CELLS: tuple[Pos, Pos] = ((1, 1), (1, 2))
"""Setup step 1: the start cards' cells."""

_TYPE_ORDER = {t: i for i, t in enumerate(SectorType)}


@dataclass(frozen=True)
class Violation:
    """One broken rule. ``rule`` is a short tag: a decision ("D8") or a setup step
    ("step 9") of RULES.md, or a topic ("cards", "commands") for conservation."""

    rule: str
    message: str
    where: Pos | None = None
    key: str | None = field(default=None, compare=False)
    """The notation key the problem is about ('deck', 'hands', ...), when one is:
    a command names its line in the file."""

    def __str__(self) -> str:
        at = f" (at {format_pos(self.where)})" if self.where is not None else ""
        return f"[{self.rule}] {self.message}{at}"


def _pair_text(pair: tuple[SectorType, SectorType]) -> str:
    return f"{pair[0].value}/{pair[1].value}"


def _grid_cards(grid: Grid) -> Iterable[tuple[Pos, Slot | Gap]]:
    for pos in cells():
        yield pos, cell_at(grid, pos)


# ----------------------------------------------------------------------------
# Checks shared by setups and states
# ----------------------------------------------------------------------------


def _check_sector_cards(grid: Grid, sectors: SectorCardSet, out: list[Violation]) -> None:
    """The cards on the grid plus the gaps' cards are exactly the card set [D26]."""
    found: list[tuple[Pos, SectorCard]] = []
    unknown_gaps = False
    for pos, cell in _grid_cards(grid):
        card = cell.card
        if card is None:
            out.append(Violation("D26", "the gap does not record which card it held", pos))
            unknown_gaps = True
        elif not card.start:
            found.append((pos, card))
    want = sectors.pair_counts()
    have = Counter((c.front, c.back) for _, c in found)
    pairs = sorted(set(want) | set(have), key=lambda p: (_TYPE_ORDER[p[0]], _TYPE_ORDER[p[1]]))
    mismatch = False
    for pair in pairs:
        if want[pair] != have[pair]:
            mismatch = True
            out.append(
                Violation(
                    "cards",
                    f"the card set has {want[pair]} {_pair_text(pair)}, the grid has "
                    f"{have[pair]} (gaps' cards included)",
                )
            )
    if mismatch or unknown_gaps:
        return  # the ids cannot all match; the counts already say what is wrong
    # Same counts: check identities too (a hand-built grid may reuse an id).
    by_id = {c.id: c for c in sectors.cards}
    counts = Counter(c.id for _, c in found)
    reported: set[int] = set()
    for pos, card in found:
        if counts[card.id] > 1 and card.id not in reported:
            reported.add(card.id)
            out.append(
                Violation("cards", f"card id {card.id} appears {counts[card.id]} times", pos)
            )
        ref = by_id.get(card.id)
        if ref is None:
            out.append(
                Violation("cards", f"card id {card.id} is not in card set {sectors.name!r}", pos)
            )
        elif (ref.front, ref.back) != (card.front, card.back):
            out.append(
                Violation(
                    "cards",
                    f"card {card.id} is {ref.pair} in the set but {card.pair} on the grid",
                    pos,
                )
            )


def _check_start_identity(grid: Grid, out: list[Violation]) -> list[Pos]:
    """[D4] The two start cards, each exactly once; none removed ([D8]). Returns
    where the start cards lie."""
    where: list[Pos] = []
    found: list[SectorCard] = []
    for pos, cell in _grid_cards(grid):
        card = cell.card
        if card is None or not card.start:
            continue
        if isinstance(cell, Gap):
            out.append(Violation("D8", "a start card cannot be removed", pos))
            continue
        where.append(pos)
        found.append(card)
    if sorted(found, key=lambda c: c.id) != sorted(START_CARDS, key=lambda c: c.id):
        ids = ", ".join(str(c.id) for c in found) or "none"
        out.append(
            Violation(
                "D4",
                f"the grid holds start cards with ids [{ids}]; expected the two start cards "
                "(ids -1 and -2, Empty both sides)",
            )
        )
    return where


def _perm_problems(got: Iterable[str], want: Iterable[str]) -> list[str]:
    g, w = Counter(got), Counter(want)
    probs = []
    dup = sorted(k for k, n in g.items() if n > 1 and k in w)
    missing = [k for k in w if g[k] < w[k]]
    extra = [k for k in g if k not in w]
    if dup:
        probs.append("repeated: " + ", ".join(dup))
    if missing:
        probs.append("missing: " + ", ".join(missing))
    if extra:
        probs.append("not in this game: " + ", ".join(extra))
    return probs


def _check_ranking(ranking: Iterable[str], game: list[str], out: list[Violation]) -> None:
    probs = _perm_problems(ranking, game)
    if probs:
        out.append(
            Violation(
                "D22",
                "the ranking must list every command card of the game once ("
                + "; ".join(probs)
                + ")",
                key="ranking",
            )
        )


def _game_ids(setup: Setup) -> tuple[list[str], list[str]]:
    o = setup.options
    cc = setup.command_cards
    return (
        [c.id for c in cc.deck_for(o.difficulty, o.players)],
        [c.id for c in cc.game_cards(o.difficulty, o.players)],
    )


# ----------------------------------------------------------------------------
# Setups
# ----------------------------------------------------------------------------


def validate(setup: Setup) -> list[Violation]:
    """Every rule of RULES.md §3 the setup breaks (an empty list when valid)."""
    out: list[Violation] = []
    grid = setup.grid

    # Step 1 / [D4]: start cards at (1,1) and (1,2) and nowhere else.
    for pos, cell in _grid_cards(grid):
        if pos in START_CELLS:
            if isinstance(cell, Gap):
                out.append(Violation("D8", "a start card's cell cannot be a gap", pos))
            elif not cell.card.start:
                out.append(Violation("step 1", "a start card belongs here", pos))
        elif isinstance(cell, Slot) and cell.card.start:
            out.append(Violation("step 1", "start cards lie only at 1,1 and 1,2", pos))
    _check_start_identity(grid, out)

    # Step 2: the 33 cards of the set, every one front up.
    _check_sector_cards(grid, setup.sector_cards, out)
    for pos, cell in _grid_cards(grid):
        if isinstance(cell, Slot) and not cell.card.start and cell.up is not Side.FRONT:
            out.append(
                Violation("step 2", "a setup is dealt front up; this card shows its back", pos)
            )

    # Step 4 / [D26]: row safety is a property of the deal before the removals,
    # so a gap's card counts in place.
    for r in range(2, ROWS + 1):
        row = [cell_at(grid, (r, c)) for c in range(1, COLS + 1)]
        if not any(cell.card is not None and cell.card.front.safe_front for cell in row):
            out.append(
                Violation(
                    "step 4",
                    f"row {r} shows no E or B front (gaps' cards counted in place, [D26])",
                )
            )

    # Step 9: one sample in each of rows 3..7, none below; 3 virus + 2 rock.
    samples = setup.samples()
    for pos, _ in samples:
        if pos[0] < 3:
            out.append(Violation("step 9", "samples lie only in rows 3 to 7", pos))
    for r in range(3, ROWS + 1):
        n = sum(1 for pos, _ in samples if pos[0] == r)
        if n != 1:
            out.append(Violation("step 9", f"row {r} has {n} samples, expected exactly 1"))
    virus = sum(1 for _, s in samples if s.virus)
    rock = len(samples) - virus
    if (virus, rock) != (3, 2):
        out.append(
            Violation("step 9", f"the samples are 3 virus and 2 rock, found {virus} and {rock}")
        )
    _check_sample_ids(samples, out)

    # Step 10 / [D8]: three gaps, each beside a sample, none an O-front card.
    gaps = setup.gaps()
    if len(gaps) != 3:
        out.append(Violation("D8", f"setup removes exactly 3 cards, found {len(gaps)} gaps"))
    sample_cells = {pos for pos, _ in samples}
    for pos in gaps:
        if not any(n in sample_cells for n in orthogonal_neighbours(pos)):
            out.append(
                Violation("D8", "a removed card must be orthogonally adjacent to a sample", pos)
            )
        card = cell_at(grid, pos).card
        if card is not None and card.front is SectorType.OBSTRUCTED:
            out.append(Violation("D8", "an O-front card cannot be removed", pos))

    # [D22] / [D6]: the deal, when fixed.
    if setup.deal is not None:
        out += _deal_violations(setup, setup.deal)
    return out


def _deal_violations(setup: Setup, deal: Deal) -> list[Violation]:
    """[D22] / [D6]: ``deal`` fits the setup's difficulty and players."""
    out: list[Violation] = []
    deck, game = _game_ids(setup)
    probs = _perm_problems(deal.first_deck, deck)
    if probs:
        hint = ""
        if setup.command_cards.wild.id in deal.first_deck:
            hint = " (the Wild lies beside the first deck, [D6])"
        out.append(
            Violation(
                "D22",
                "the first deck must hold exactly this difficulty's cards ("
                + "; ".join(probs)
                + ")"
                + hint,
                key="deck",
            )
        )
    _check_ranking(deal.ranking, game, out)
    return out


def _check_sample_ids(samples: list, out: list[Violation]) -> None:
    counts = Counter(s.id for _, s in samples)
    for sid, n in sorted(counts.items()):
        if n > 1:
            out.append(Violation("samples", f"sample id {sid} appears {n} times"))


def check(setup: Setup) -> Setup:
    """Raise ``InvalidSetupError`` listing every violation; return the setup if valid."""
    violations = validate(setup)
    if violations:
        raise InvalidSetupError(violations)
    return setup


# ----------------------------------------------------------------------------
# States
# ----------------------------------------------------------------------------


def _token_pos(pos: Pos, grid: Grid, what: str, lost: bool, out: list[Violation]) -> None:
    """The ship and the pod stand on a card, the dock or Earth. A lost game may
    leave them where they died (a gap, off the grid)."""
    if pos in (DOCK, EARTH) or lost:
        return
    if not on_grid(pos):
        out.append(Violation(what, f"the {what} is off the grid at {pos[0]},{pos[1]}"))
    elif isinstance(cell_at(grid, pos), Gap):
        out.append(Violation(what, f"the {what} cannot stand on a gap", pos))


def _check_hands(state: GameState, out: list[Violation]) -> None:
    """One hand per player, each within the hand limit."""
    o = state.setup.options
    if len(state.hands) != o.players:
        out.append(
            Violation("hands", f"{len(state.hands)} hands for {o.players} player(s)", key="hands")
        )
    for i, h in enumerate(state.hands):
        if len(h) > o.hand_limit:
            out.append(
                Violation(
                    "hands",
                    f"player {i + 1} holds {len(h)} cards; the hand limit is {o.hand_limit}",
                    key="hands",
                )
            )


def _check_command_cards(state: GameState, out: list[Violation]) -> None:
    """Command cards are conserved and ranked ([D6])."""
    setup = state.setup
    # Command cards are conserved: hands + deck + discard (+ the Wild aside during
    # the first pass, [D6]) are the game's cards, each once.
    _, game = _game_ids(setup)
    wild = setup.command_cards.wild.id
    present = [c for h in state.hands for c in h] + list(state.deck)
    present += [e.card for e in state.discard]
    if not state.second_pass:
        if wild in present:
            out.append(
                Violation("D6", "the Wild lies beside the deck until the reshuffle (pass 1)")
            )
        else:
            present.append(wild)
    probs = _perm_problems(present, game)
    if probs:
        out.append(
            Violation(
                "commands",
                "hands, deck and discard must hold every command card of the game once ("
                + "; ".join(probs)
                + ")",
                key="hands",
            )
        )
    _check_ranking(state.ranking, game, out)


def _check_turn_order(state: GameState, out: list[Violation]) -> None:
    """The active player and the turn number are in range."""
    o = state.setup.options
    if not 0 <= state.active < o.players:
        out.append(
            Violation("active", f"active player {state.active + 1} of {o.players}", key="active")
        )
    if not 1 <= state.turn <= MAX_TURN:
        out.append(
            Violation("turn", f"turn {state.turn}: turns count from 1 (to {MAX_TURN})", key="turn")
        )


def _check_discard_arrows(state: GameState, out: list[Violation]) -> None:
    """[D11] Only a Fly card has an orientation on the discard pile."""
    setup = state.setup
    for e in state.discard:
        if e.arrow is None:
            continue
        try:
            kind = setup.command_cards.by_id(e.card).kind
        except KeyError:
            continue  # already reported as a card not in the game
        if kind is not CommandKind.FLY:
            out.append(
                Violation(
                    "D11", f"{e.card} lies with an arrow but is not a Fly card", key="discard"
                )
            )


def _check_samples(state: GameState, out: list[Violation]) -> None:
    """[D9] shields and the sample tokens, wherever they are."""
    o = state.setup.options
    grid = state.grid
    # [D9] shields; samples: held + on board within the 3 virus / 2 rock tokens.
    if not 0 <= state.shields <= MAX_SHIELDS:
        out.append(
            Violation("D9", f"shields are 0 to {MAX_SHIELDS}, found {state.shields}", key="shields")
        )
    samples = [
        (pos, cell.sample)
        for pos, cell in _grid_cards(grid)
        if isinstance(cell, Slot) and cell.sample is not None
    ]
    virus = sum(1 for _, s in samples if s.virus)
    rock = len(samples) - virus
    if state.held < 0:
        out.append(
            Violation("samples", f"held samples cannot be negative ({state.held})", key="held")
        )
    if state.held + virus > TOTAL_VIRUS:
        out.append(
            Violation(
                "samples",
                f"{state.held} held + {virus} on the grid exceed the {TOTAL_VIRUS} virus samples",
                key="held",
            )
        )
    if rock > TOTAL_ROCK:
        out.append(
            Violation("samples", f"{rock} rock samples on the grid; the game has {TOTAL_ROCK}")
        )
    # §6 rocks found, §11 tokens lost unseen: every token is on the grid, held,
    # found, lost or (a virus) spent.
    if not 0 <= state.rocks_found <= TOTAL_ROCK - min(rock, TOTAL_ROCK):
        out.append(
            Violation(
                "samples",
                f"{state.rocks_found} rock(s) found + {rock} on the grid exceed the "
                f"{TOTAL_ROCK} rock samples",
                key="rocks",
            )
        )
    if state.lost_unseen < 0 or (state.lost_unseen and not o.low_memory):
        out.append(
            Violation(
                "samples",
                f"{state.lost_unseen} token(s) lost unseen: only low memory mode loses them (§11)",
                key="lost",
            )
        )
    elif state.held >= 0 and state.rocks_found >= 0 and (
        state.held + len(samples) + state.rocks_found + state.lost_unseen
        > TOTAL_VIRUS + TOTAL_ROCK
    ):
        out.append(
            Violation(
                "samples",
                f"{state.held} held + {len(samples)} on the grid + {state.rocks_found} rock(s) "
                f"found + {state.lost_unseen} lost exceed the {TOTAL_VIRUS + TOTAL_ROCK} tokens",
                key="lost" if state.lost_unseen else "held",
            )
        )
    _check_sample_ids(samples, out)


def _check_tokens(state: GameState, out: list[Violation]) -> None:
    """The ship and the pod."""
    o = state.setup.options
    grid = state.grid
    lost = state.outcome.status is Status.LOST
    _token_pos(state.ship, grid, "ship", lost, out)
    if state.ship == EARTH and not o.escape_pod and state.outcome.status is Status.ONGOING:
        out.append(
            Violation("D12", "the ship is at Earth but the game is still on (no escape pod)")
        )
    if o.escape_pod and state.pod is None:
        out.append(Violation("pod", "the escape-pod option is on but the pod is nowhere"))
    elif not o.escape_pod and state.pod is not None:
        out.append(Violation("pod", "a pod is on the board without the escape-pod option"))
    elif state.pod is not None:
        _token_pos(state.pod, grid, "pod", lost, out)


def validate_state(state: GameState) -> list[Violation]:
    """Every invariant of a mid-game state the state breaks (empty when valid)."""
    out: list[Violation] = []
    setup = state.setup
    grid = state.grid

    # Sector cards are conserved; cards move only within their row ([D16]), so the
    # start cards stay in row 1, wherever a Deep Scan shifted them.
    _check_sector_cards(grid, setup.sector_cards, out)
    for pos in _check_start_identity(grid, out):
        if pos[0] != 1:
            out.append(Violation("D16", "start cards stay in row 1", pos))

    _check_hands(state, out)
    _check_command_cards(state, out)
    _check_turn_order(state, out)
    _check_discard_arrows(state, out)
    _check_samples(state, out)
    _check_tokens(state, out)

    # What the players have seen is a card on the grid.
    on_slots = {cell.card.id for _, cell in _grid_cards(grid) if isinstance(cell, Slot)}
    for cid in sorted(set(state.seen) - on_slots):
        out.append(Violation("seen", f"seen card {cid} is not on the grid"))
    return out


def check_state(state: GameState) -> GameState:
    """Raise ``InvalidSetupError`` listing every violation; return the state if valid."""
    violations = validate_state(state)
    if violations:
        raise InvalidSetupError(violations)
    return state


# ----------------------------------------------------------------------------
# Before use: what the engine, the solver and the hints rely on
# ----------------------------------------------------------------------------

LAYOUT_RULES = frozenset({"step 1", "step 2", "step 4", "step 9", "D8"})
"""Setup rules about how a fair table is dealt (where the start cards, samples
and gaps lie, row safety, cards front up). A setup that breaks only these is
still a game the engine can play to the end (a hand-made puzzle): the
commands answer for it, and say that it is not a legal setup."""


def layout_violations(setup: Setup) -> list[Violation]:
    """The violations of ``validate(setup)`` that do not stop play
    (``LAYOUT_RULES``)."""
    return [v for v in validate(setup) if v.rule in LAYOUT_RULES]


SECTOR_IDENTITY_RULES = frozenset({"cards", "D26", "D4", "D16", "seen"})
"""The rules about which sector card lies where. The engine plays any grid of
cards; a hint's imagined worlds (``solver.worlds``) deal card types, not the
set's own cards, and are solved as they are."""


def playable_violations(
    instance: Setup | GameState, deal: Deal | None = None, *, sector_cards: bool = True
) -> list[Violation]:
    """Every problem that stops ``instance`` from being played, solved, counted
    or hinted: for a state ``validate_state``; for a setup the deal's ([D22],
    ``deal`` or the setup's own) and then the invariants of its opening state.
    Empty when the engine can play from it. ``sector_cards`` False leaves out
    ``SECTOR_IDENTITY_RULES`` (the solver's check)."""
    if isinstance(instance, GameState):
        out = validate_state(instance)
        if not sector_cards:
            out = [v for v in out if v.rule not in SECTOR_IDENTITY_RULES]
        return out
    if not isinstance(instance, Setup):
        raise TypeError(f"expected a Setup or a GameState, got {type(instance).__name__}")
    d = deal or instance.deal
    if d is not None:
        out = _deal_violations(instance, d)
        if out:
            return out
    try:
        opening = initial_state(instance, d, seed=0)
    except InvalidSetupError as e:  # a custom command set too small to deal the hands
        return list(e.violations)
    return validate_state(opening)


def check_playable(
    instance: Setup | GameState, deal: Deal | None = None, *, sector_cards: bool = True
) -> Setup | GameState:
    """Raise ``InvalidStateError`` (a state) or ``InvalidSetupError`` (a setup)
    listing ``playable_violations``; return ``instance`` when it can be played."""
    violations = playable_violations(instance, deal, sector_cards=sector_cards)
    if violations:
        if isinstance(instance, GameState):
            raise InvalidStateError(violations)
        raise InvalidSetupError(violations)
    return instance


def check_shape(state: GameState) -> None:
    """The cheap part of ``check_state``, for the engine's entry points
    (``legal_turns``, ``apply_turn``): the numbers that index lists or bound
    loops. Raises ``InvalidStateError``."""
    o = state.options
    out: list[Violation] = []
    if len(state.hands) != o.players:
        out.append(
            Violation("hands", f"{len(state.hands)} hands for {o.players} player(s)", key="hands")
        )
    if not 0 <= state.active < o.players:
        out.append(
            Violation("active", f"active player {state.active + 1} of {o.players}", key="active")
        )
    if not 0 <= state.shields <= MAX_SHIELDS:
        out.append(
            Violation("D9", f"shields are 0 to {MAX_SHIELDS}, found {state.shields}", key="shields")
        )
    if not 0 <= state.held <= TOTAL_VIRUS:
        out.append(
            Violation("samples", f"held samples are 0 to {TOTAL_VIRUS}, found {state.held}",
                      key="held")  # fmt: skip
        )
    if out:
        raise InvalidStateError(out)
