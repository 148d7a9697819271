"""What a player can see of the true state (RULES.md §14), kept apart from the
state itself as in OpenSpiel. The hint engine works only from an Observation."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import SectorType, Side
from .geometry import Pos
from .options import RuleOptions
from .setup import Gap, Slot
from .state import DiscardEntry, GameState, Outcome

TOTAL_VIRUS, TOTAL_ROCK = 3, 2


@dataclass(frozen=True)
class SeenCard:
    """A card as the players see it: the face-up type, whether that side is the
    front (the ring shows it), the down side if they have seen it, and whether a
    face-down sample token lies on it."""

    up: SectorType
    side: Side
    down: SectorType | None
    start: bool = False
    sample: bool = False


@dataclass(frozen=True)
class SeenGap:
    """A gap. [D26] Its card's front was seen at setup, its back never."""

    front: SectorType | None


@dataclass(frozen=True)
class Observation:
    player: int
    options: RuleOptions
    grid: tuple[tuple[SeenCard | SeenGap, ...], ...]
    ship: Pos
    pod: Pos | None
    shields: int
    held: int
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    discard: tuple[DiscardEntry, ...]
    deck_size: int
    second_pass: bool
    active: int
    turn: int
    outcome: Outcome
    virus_face_down: int
    """How many face-down tokens are virus, as far as the players can tell; None-free
    because every collected token is revealed — except tokens lost unseen (§11),
    for which ``unseen_lost`` counts the uncertainty."""
    unseen_lost: int


def observe(state: GameState, player: int = 0) -> Observation:
    """The view of ``player`` (0-based): §14's visible facts only."""
    rows = []
    for row in state.grid:
        cells: list[SeenCard | SeenGap] = []
        for cell in row:
            if isinstance(cell, Gap):
                cells.append(SeenGap(cell.card.front if cell.card else None))
                continue
            assert isinstance(cell, Slot)
            known = cell.card.start or cell.card.id in state.seen
            cells.append(
                SeenCard(
                    up=cell.face,
                    side=cell.up,
                    down=cell.down if known else None,
                    start=cell.card.start,
                    sample=cell.sample is not None,
                )
            )
        rows.append(tuple(cells))
    on_board = sum(1 for row in state.grid for c in row if isinstance(c, Slot) and c.sample)
    # Revealed tokens: the rocks found and every virus collected (held or spent).
    revealed_virus = TOTAL_VIRUS + TOTAL_ROCK - on_board - state.rocks_found - state.lost_unseen
    return Observation(
        player=player,
        options=state.options,
        grid=tuple(rows),
        ship=state.ship,
        pod=state.pod,
        shields=state.shields,
        held=state.held,
        hand=state.hands[player],
        hand_sizes=tuple(len(h) for h in state.hands),
        discard=state.discard,
        deck_size=len(state.deck),
        second_pass=state.second_pass,
        active=state.active,
        turn=state.turn,
        outcome=state.outcome,
        virus_face_down=TOTAL_VIRUS - revealed_virus - 0,
        unseen_lost=state.lost_unseen,
    )
