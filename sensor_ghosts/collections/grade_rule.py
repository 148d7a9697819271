"""The difficulty grade of a puzzle from three of its stored features.

Kept apart from ``grades`` (which measures the features with the solver) so
that a collection can be graded again from its stored features without
loading the solver (``schema.open_collection`` does this when a file was
graded by an older rule).

The rule (``GRADE_RULE`` 2): one point per turn of the optimum over 10 (at
most 3), one when the optimal plan plays 14 cards or more, and one when no
careful route was found (no fewest-turns plan that never enters a card
whose down side is unseen, within the careful solve's budget). 0 points is
easy, 1 medium, 2 hard, 3 or more fiendish. It was fitted on the bots' games
on seeds 5000-5409 and checked on seeds 6000-6479, which it had not seen
(docs/COLLECTIONS.md, "Do the grades order difficulty?"). Of the other
features measured, a Deep Scan and the second pass are in nearly every plan
and the techniques (three-card wild, the Wild, bolster, boost chain) did
not separate the bots' win rates there, so they are stored and can be
queried but earn no points.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

GRADES = ("easy", "medium", "hard", "fiendish")
"""The grades, easy to hard (``grade_rank`` is the index)."""
GRADE_RULE = 2
"""Which rule made a collection's grades (kept in its ``meta`` table). Rule 1
was the provisional one of the first collections (judged, not fitted)."""
LONG_AFTER_TURNS = 10
MANY_CARDS = 14


def points(turns: int, cards: int, careful_found: bool) -> int:
    """The grade's points (above)."""
    return min(3, max(0, turns - LONG_AFTER_TURNS)) + (cards >= MANY_CARDS) + (not careful_found)


def grade_of(features: Mapping[str, Any]) -> tuple[str, int]:
    """(grade, points) of a puzzle from its features as stored (the JSON of
    ``grades.Features``: ``turns``, ``cards``, ``careful_turns``)."""
    p = points(int(features["turns"]), int(features["cards"]), features.get("careful_turns") is not None)
    return GRADES[min(p, len(GRADES) - 1)], p
