"""The table as the page edits it (a plain JSON "form") and the library's
``Observation``, both ways, and the library's verdict on it, each problem placed
next to the part of the form at fault.

The form holds only what a player sees (RULES.md §14); every rule (what is
consistent, what the notation says) stays in ``rules.observation`` and
``rules.observation_notation``: this module only moves fields.

Form (row index 0 is row 1, column index 0 is column 1)::

    {"cells": [[{"kind": "card"|"gap"|"start", "up": "E", "side": "front"|"back",
                 "down": "A"|null, "sample": bool, "front": "E"|null}, ...5], ...7],
     "ship": "dock"|"earth"|[row, col], "pod": null|"dock"|"earth"|[row, col],
     "players": 1, "difficulty": "standard", "flags": [], "player": 1, "active": 1,
     "turn": 1, "shields": 0, "held": 0, "spent": 0, "rocks": 0, "lost": 0,
     "hand": ["F1"], "hand_sizes": [3], "discard": [{"card": "F2", "arrow": "R"|null}],
     "deck": 8, "pass": 1}
"""

from __future__ import annotations

import re
from typing import Any

from ..rules.cards import CommandCardSet, SectorCardSet, SectorType, Side
from ..rules.errors import NotationError, SensorGhostsError
from ..rules.geometry import COLS, DOCK, EARTH, ROWS, Direction, Pos, on_grid
from ..rules.observation import TOTAL_VIRUS, Observation, SeenCard, SeenGap, problems_by_part
from ..rules.options import Difficulty, RuleOptions
from ..rules.state import DiscardEntry, Outcome

__all__ = ["FormError", "check_table", "form_from_observation", "notation_problem",
           "observation_from_form"]


class FormError(SensorGhostsError):
    """A form the page should never send (a missing field, a letter that is no
    sector type): the request is bad, ``field`` names where."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


# ----------------------------------------------------------------------------
# form -> Observation
# ----------------------------------------------------------------------------


def _get(form: dict[str, Any], key: str, kind: type, default: Any = None) -> Any:
    value = form.get(key, default)
    if value is None and default is None:
        raise FormError(key, "missing")
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise FormError(key, f"expected a whole number, got {value!r}")
    if kind is not int and not isinstance(value, kind):
        raise FormError(key, f"expected {kind.__name__}, got {value!r}")
    return value


def _sector(letter: Any, field: str, unknown_ok: bool) -> SectorType | None:
    if letter is None and unknown_ok:
        return None
    try:
        return SectorType(letter)
    except ValueError:
        raise FormError(field, f"not a sector type (E, B, A, O): {letter!r}") from None


def _cell(data: Any, field: str) -> SeenCard | SeenGap:
    if not isinstance(data, dict):
        raise FormError(field, "expected an object")
    kind = data.get("kind")
    if kind == "start":
        return SeenCard(SectorType.EMPTY, Side.FRONT, SectorType.EMPTY, start=True)
    if kind == "gap":
        return SeenGap(_sector(data.get("front"), field + ".front", True))
    if kind != "card":
        raise FormError(field + ".kind", f"expected card, gap or start, got {kind!r}")
    up = _sector(data.get("up"), field + ".up", False)
    assert up is not None
    side = data.get("side")
    if side not in ("front", "back"):
        raise FormError(field + ".side", f"expected front or back, got {side!r}")
    down = _sector(data.get("down"), field + ".down", True)
    return SeenCard(up, Side(side), down, sample=bool(data.get("sample")))


def _place(value: Any, field: str, optional: bool) -> Pos | None:
    if value is None and optional:
        return None
    if value == "dock":
        return DOCK
    if value == "earth":
        return EARTH
    if (isinstance(value, list) and len(value) == 2 and all(isinstance(x, int) for x in value)
            and on_grid((value[0], value[1]))):
        return (value[0], value[1])
    raise FormError(field, f"expected dock, earth or [row, col] on the grid, got {value!r}")


def _discard(items: Any) -> tuple[DiscardEntry, ...]:
    if not isinstance(items, list):
        raise FormError("discard", "expected a list")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("card"), str):
            raise FormError(f"discard.{i}", "expected {card, arrow}")
        arrow = item.get("arrow")
        try:
            direction = None if arrow is None else Direction.parse(str(arrow))
        except SensorGhostsError:
            raise FormError(f"discard.{i}.arrow", f"not a direction: {arrow!r}") from None
        out.append(DiscardEntry(item["card"], direction))
    return tuple(out)


def _options(form: dict[str, Any]) -> RuleOptions:
    players = _get(form, "players", int, 1)
    if not 1 <= players <= 4:
        raise FormError("players", f"1 to 4 players, not {players}")
    try:
        level = Difficulty(_get(form, "difficulty", str, "standard"))
        return RuleOptions(players, level).with_flags(list(_get(form, "flags", list, [])))
    except ValueError as e:
        raise FormError("options", str(e)) from None


def observation_from_form(form: Any) -> Observation:
    """The observation a form describes. Form only (``FormError``); whether a
    game could show it is ``check_table``'s question."""
    if not isinstance(form, dict):
        raise FormError("table", "expected an object")
    rows = form.get("cells")
    if not (isinstance(rows, list) and len(rows) == ROWS
            and all(isinstance(r, list) and len(r) == COLS for r in rows)):
        raise FormError("cells", f"expected {ROWS} rows of {COLS} cells")
    grid = tuple(
        tuple(_cell(rows[r][c], f"cells.{r + 1}.{c + 1}") for c in range(COLS)) for r in range(ROWS)
    )
    options = _options(form)
    hand = tuple(_get(form, "hand", list, []))
    if not all(isinstance(x, str) for x in hand):
        raise FormError("hand", "expected card ids")
    sizes = form.get("hand_sizes") or [len(hand)] * options.players
    if not isinstance(sizes, list) or not all(isinstance(x, int) for x in sizes):
        raise FormError("hand_sizes", "expected whole numbers")
    player = _get(form, "player", int, 1) - 1
    if 0 <= player < len(sizes):
        sizes[player] = len(hand)  # the player's own hand is the one on the form
    held, spent = _get(form, "held", int, 0), _get(form, "spent", int, 0)
    pass_number = _get(form, "pass", int, 1)
    if pass_number not in (1, 2):
        raise FormError("pass", f"1 or 2, not {pass_number}")
    return Observation(
        player=player,
        options=options,
        grid=grid,
        ship=_place(form.get("ship", "dock"), "ship", False) or DOCK,
        pod=_place(form.get("pod"), "pod", True),
        shields=_get(form, "shields", int, 0),
        held=held,
        hand=hand,
        hand_sizes=tuple(sizes),
        discard=_discard(form.get("discard", [])),
        deck_size=_get(form, "deck", int),
        second_pass=pass_number == 2,
        active=_get(form, "active", int, player + 1) - 1,
        turn=_get(form, "turn", int, 1),
        outcome=Outcome(),
        virus_face_down=TOTAL_VIRUS - held - spent,
        unseen_lost=_get(form, "lost", int, 0),
        rocks_found=_get(form, "rocks", int, 0),
        sector_cards=SectorCardSet.default(),
        command_cards=CommandCardSet.default(),
    )


# ----------------------------------------------------------------------------
# Observation -> form
# ----------------------------------------------------------------------------


def _cell_form(cell: SeenCard | SeenGap) -> dict[str, Any]:
    if isinstance(cell, SeenGap):
        return {"kind": "gap", "front": cell.front.value if cell.front else None}
    if cell.start:
        return {"kind": "start"}
    return {"kind": "card", "up": cell.up.value, "side": cell.side.value,
            "down": cell.down.value if cell.down else None, "sample": cell.sample}


def _place_form(pos: Pos | None) -> Any:
    if pos is None:
        return None
    return "dock" if pos == DOCK else "earth" if pos == EARTH else list(pos)


def form_from_observation(obs: Observation) -> dict[str, Any]:
    """The form of an observation (``observation_from_form`` reads it back)."""
    if obs.sector_cards.name != "default" or obs.command_cards.name != "default":
        raise FormError("cards", "the page knows the default card sets only")
    return {
        "cells": [[_cell_form(c) for c in row] for row in obs.grid],
        "ship": _place_form(obs.ship),
        "pod": _place_form(obs.pod),
        "players": obs.options.players,
        "difficulty": obs.options.difficulty.value,
        "flags": obs.options.flags(),
        "player": obs.player + 1,
        "active": obs.active + 1,
        "turn": obs.turn,
        "shields": obs.shields,
        "held": obs.held,
        "spent": obs.spent,
        "rocks": obs.rocks_found,
        "lost": obs.unseen_lost,
        "hand": list(obs.hand),
        "hand_sizes": list(obs.hand_sizes),
        "discard": [{"card": e.card, "arrow": e.arrow.letter if e.arrow else None}
                    for e in obs.discard],
        "deck": obs.deck_size,
        "pass": 2 if obs.second_pass else 1,
    }


# ----------------------------------------------------------------------------
# the verdict, placed
# ----------------------------------------------------------------------------

_AT_CELL = re.compile(r"\bat ([1-7]),([1-5])\b")


def check_table(obs: Observation, focus: Pos | None = None) -> list[dict[str, Any]]:
    """The library's reasons why no game could show ``obs``, each with where
    the page shows it: a cell named in the reason; for a problem of the grid as
    a whole (the card counts), the cell last edited (``focus``: the edit that
    broke it), else the grid; for the others, their part of the form."""
    out: list[dict[str, Any]] = []
    for part, reasons in problems_by_part(obs).items():
        for reason in reasons:
            item: dict[str, Any] = {"part": part, "message": reason, "cell": None}
            m = _AT_CELL.search(reason)
            if m:
                item["cell"] = [int(m.group(1)), int(m.group(2))]
            elif part == "grid" and focus is not None:
                item["cell"] = list(focus)
            out.append(item)
    return out


def notation_problem(e: NotationError, text: str) -> dict[str, Any]:
    """A ``NotationError`` of pasted text, with the line quoted and, when the line
    is a grid row, the cell at fault (its row label and the token's place)."""
    item: dict[str, Any] = {"part": "text", "message": e.reason, "cell": None,
                            "line": e.line, "column": e.column, "token": e.token}
    lines = text.splitlines()
    if e.line is not None and 1 <= e.line <= len(lines):
        line = lines[e.line - 1]
        item["text"] = line
        m = re.match(r"\s*([1-7]):", line)
        if m and e.column is not None and e.token is not None:
            before = line[m.end():max(m.end(), e.column - 1)]
            # The tokens started before the column; one more if it starts a token.
            index = len(before.split()) + (1 if not before or before[-1].isspace() else 0)
            item["cell"] = [int(m.group(1)), max(1, min(COLS, index))]
    return item
