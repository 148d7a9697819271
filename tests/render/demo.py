"""Hand-made setups for the render tests (no generator, no solver needed)."""

from __future__ import annotations

from sensor_ghosts.rules.cards import START_CARDS, SectorCard, SectorCardSet
from sensor_ghosts.rules.cards import SectorType as T
from sensor_ghosts.rules.geometry import Direction
from sensor_ghosts.rules.setup import Deal, Gap, Sample, Setup, Slot
from sensor_ghosts.rules.turns import Action, ActionKind, Command, PlayedCard, Turn

# Row 1 (bottom) first; each token is front/back. "S" a start card, "-" a gap.
LAYOUT = [
    "S S O/E E/A -",
    "B/B B/B B/B B/B B/B",
    "B/B B/B B/B B/B B/B",
    "B/B B/B B/B B/B B/B",
    "B/B B/B B/B B/B B/B",
    "B/B B/B B/B B/B B/B",
    "E/E B/B B/B B/B B/B",
]


def boost_setup() -> Setup:
    """A made-up layout a three-turn plan wins: rows 2-6 and row 7's columns 2-5
    are boosts on both sides, so shifts and flips change nothing on the way."""
    cards: list[SectorCard] = []
    grid = []
    for line in LAYOUT:
        row = []
        for c, tok in enumerate(line.split(), 1):
            if tok == "S":
                row.append(Slot(START_CARDS[c - 1]))
                continue
            pair = tok if tok != "-" else "A/E"
            card = SectorCard(len(cards) + 1, T(pair[0]), T(pair[2]))
            cards.append(card)
            row.append(Gap(card) if tok == "-" else Slot(card))
        grid.append(row)
    grid[2][0] = Slot(grid[2][0].card, sample=Sample(1, True))  # virus on (3,1)
    grid[4][3] = Slot(grid[4][3].card, sample=Sample(4, False))  # rock on (5,4)
    while len(cards) < 33:  # the unused rest of the made-up set
        cards.append(SectorCard(len(cards) + 1, T.EMPTY, T.EMPTY))
    deck = ("F1", "F2", "F3", "F4", "F5", "F6", "F7", "D1", "D2", "S1", "S2")
    deal = Deal(deck, deck + ("W",))
    return Setup(
        tuple(tuple(r) for r in grid),
        sector_cards=SectorCardSet("boost-demo", tuple(cards)),
        deal=deal,
        id="boost-demo",
    )


def fly(cards: list[str], d: Direction, rescan: tuple[int, ...] = ()) -> Turn:
    return Turn(
        Command(tuple(PlayedCard(c) for c in cards), Action(ActionKind.FLY, direction=d), arrow=d),
        rescan=frozenset(rescan),
    )


def boost_plan() -> list[Turn]:
    """Dock -> (1,1); up through the boosts to (7,1) taking the virus; right
    through row 7's boosts to Earth."""
    return [
        fly(["F1"], Direction.RIGHT, (2, 4)),
        fly(["F2", "F3"], Direction.UP),
        fly(["F4", "F5"], Direction.RIGHT),
    ]
