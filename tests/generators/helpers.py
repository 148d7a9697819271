"""Helpers for generator tests: hand-made card grids and card sets."""

from __future__ import annotations

from sensor_ghosts.generators.deal import CardGrid, cards_in_order
from sensor_ghosts.rules.cards import SectorCard, SectorCardSet, SectorType


def grid_from_rows(rows: list[str]) -> CardGrid:
    """``rows`` lists row 7 first, five front letters each (row 1 starts with two
    ``S`` for the start cards). Backs are all A."""
    assert len(rows) == 7
    fronts: list[str] = []
    for text in reversed(rows):
        letters = text.split()
        assert len(letters) == 5, text
        fronts.extend(letters)
    assert fronts[:2] == ["S", "S"]
    cards = [
        SectorCard(i + 1, SectorType(f), SectorType.ASTEROID) for i, f in enumerate(fronts[2:])
    ]
    return cards_in_order(cards)


def card_set(e: int, b: int, a: int, o: int, name: str = "test") -> SectorCardSet:
    """A 33-card set with the given front counts (backs alternate E/A)."""
    assert e + b + a + o == 33
    fronts = "E" * e + "B" * b + "A" * a + "O" * o
    lines = [f"{i + 1} {f}/{'EA'[i % 2]}" for i, f in enumerate(fronts)]
    return SectorCardSet.parse("\n".join(lines), name=name)
