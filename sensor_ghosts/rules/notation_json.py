"""The JSON form of setups and states. A JSON document is read into the same
``Document`` as a text one (each value as the text form spells it) and
assembled by the same code, so both forms take the same values."""

from __future__ import annotations

import json
import re
from typing import Any

from .cards import CommandCardSet, SectorCardSet
from .geometry import COLS, ROWS
from .notation_assemble import (
    JSON_VERSION,
    SETUP_FORMAT,
    STATE_FORMAT,
    assemble_setup,
    assemble_state,
    check_id,
    state_parts,
)
from .notation_cells import grid_tokens
from .notation_reader import MAX_DIGITS, At, Document, Tokens, Value, json_load, jtype
from .setup import Setup
from .state import GameState

_SETUP_JSON_KEYS = ("format", "version", "grid", "options", "cards", "commands", "deal", "id")
_STATE_JSON_KEYS = (
    "format", "version", "grid", "options", "cards", "commands", "id",
    "turn", "active", "ship", "pod", "shields", "held",
    "hands", "deck", "discard", "ranking", "pass", "outcome",
)  # fmt: skip
_STATE_JSON_OPTIONAL = ("rocks", "lost")  # 0 when left out (files of earlier versions)
_OPTION_KEYS = ("players", "difficulty", "flags")
_JWORD_RE = re.compile(r"[^\s|]+")


# ----------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------


def setup_to_json(setup: Setup) -> dict:
    """The JSON form of a setup (a dict ready for ``json.dumps``)."""
    o = setup.options
    return {
        "format": SETUP_FORMAT,
        "version": JSON_VERSION,
        "grid": grid_tokens(setup.grid, setup.sector_cards),
        "options": {"players": o.players, "difficulty": o.difficulty.value, "flags": o.flags()},
        "cards": setup.sector_cards.name,
        "commands": setup.command_cards.name,
        "deal": None
        if setup.deal is None
        else {"first_deck": list(setup.deal.first_deck), "ranking": list(setup.deal.ranking)},
        "id": setup.id,
    }


def state_to_json(state: GameState) -> dict:
    """The JSON form of a game state. ``ship``/``pod`` are null when marked in the
    grid (``@``/``&``) or, for the pod, absent from the game."""
    cells, parts = state_parts(state)
    base = setup_to_json(state.setup)
    out = {
        "format": STATE_FORMAT,
        "version": JSON_VERSION,
        "grid": cells,
        "options": base["options"],
        "cards": base["cards"],
        "commands": base["commands"],
        "id": base["id"],
    }
    out.update(parts)
    return out


# ----------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------


def _jint(val: Any, at: At) -> str:
    """A JSON whole number as the text notation writes it (checked there)."""
    jtype(val, at, int, "a whole number")
    if abs(val) >= 10**MAX_DIGITS:
        raise at.error("too large a number", str(val)[:40] if abs(val) < 10**1000 else "...")
    return str(val)


def _jword(val: Any, at: At, dash: bool) -> str:
    """A list item (a card id, a cell): one word the text notation can write back
    (a lone '-' is an empty list there, except in the grid: an unknown gap)."""
    jtype(val, at, str, "a string")
    if not _JWORD_RE.fullmatch(val) or (val == "-" and not dash):
        raise at.error("expected one word (no spaces, no '|', not a lone '-')", val[:40])
    return val


def _jlist(val: Any, at: At, what: str = "a list of strings", *, dash: bool = False) -> Tokens:
    jtype(val, at, list, what)
    out = []
    for i, x in enumerate(val):
        xat = at.child(i)
        out.append((_jword(x, xat, dash), xat))
    return out


def _head(obj: Any, root: At, want: str) -> str:
    """The document's kind, once its format, keys and version are checked."""
    if not isinstance(obj, dict):
        raise root.error("a setup or state in JSON is an object", json.dumps(obj)[:40])
    fmt = obj.get("format")
    if fmt not in (SETUP_FORMAT, STATE_FORMAT):
        raise root.child("format").error(
            f"expected {SETUP_FORMAT!r} or {STATE_FORMAT!r}", json.dumps(fmt)
        )
    kind = "setup" if fmt == SETUP_FORMAT else "state"
    if kind != want:
        raise root.child("format").error(f"this is a {kind}, not a {want}", fmt)
    keys = _SETUP_JSON_KEYS if kind == "setup" else _STATE_JSON_KEYS
    for k in obj:
        # "solution": a solver's answer that `generate --solve` attaches; not
        # part of the setup, so it is not read back.
        if k not in keys and not (kind == "setup" and k == "solution") and not (
            kind == "state" and k in _STATE_JSON_OPTIONAL
        ):
            raise root.child(k).error(f"unknown key in a {kind}", k)
    for k in keys:
        if k not in obj:
            raise root.error(f"missing required key {k!r}")
    if obj["version"] != JSON_VERSION or isinstance(obj["version"], bool):
        raise root.child("version").error(
            f"unsupported version (this library reads version {JSON_VERSION})",
            json.dumps(obj["version"]),
        )
    return kind


def _grid(rows: Any, gat: At) -> list[Tokens]:
    jtype(rows, gat, list, "a list of 7 rows")
    if len(rows) != ROWS:
        raise gat.error(f"the grid has {len(rows)} rows, expected {ROWS} (row 7 first)")
    grid = []
    for i, row in enumerate(rows):
        items = _jlist(row, gat.child(i), "a list of 5 cell strings", dash=True)
        if len(items) != COLS:
            raise gat.child(i).error(f"row {ROWS - i} has {len(items)} cells, expected {COLS}")
        grid.append(items)
    return grid


def _common(obj: dict, root: At, values: dict[str, Value]) -> None:
    """The options, card sets and id of a setup or a state."""
    oat = root.child("options")
    opts = jtype(obj["options"], oat, dict, "an object {players, difficulty, flags}")
    for k in opts:
        if k not in _OPTION_KEYS:
            raise oat.child(k).error("unknown key in options", k)
    for k in _OPTION_KEYS:
        if k not in opts:
            raise oat.error(f"missing required key {k!r}")
    pat, dat = oat.child("players"), oat.child("difficulty")
    values["players"] = Value(pat, _jint(opts["players"], pat))
    values["difficulty"] = Value(dat, jtype(opts["difficulty"], dat, str, "a string"))
    values["options"] = Value(oat.child("flags"), items=_jlist(opts["flags"], oat.child("flags")))
    for k in ("cards", "commands"):
        values[k] = Value(root.child(k), jtype(obj[k], root.child(k), str, "a card set name"))
    if obj["id"] is not None:
        iat = root.child("id")
        values["id"] = Value(iat, jtype(obj["id"], iat, str, "a string or null"))
        check_id(values["id"])


def _deal(obj: dict, root: At, values: dict[str, Value]) -> None:
    dat = root.child("deal")
    if obj["deal"] is None:
        return
    deal = jtype(obj["deal"], dat, dict, "an object {first_deck, ranking} or null")
    if set(deal) != {"first_deck", "ranking"}:
        raise dat.error("a deal has exactly the keys 'first_deck' and 'ranking'")
    for key, jkey in (("deck", "first_deck"), ("ranking", "ranking")):
        values[key] = Value(dat.child(jkey), items=_jlist(deal[jkey], dat.child(jkey)))


def _state_values(obj: dict, root: At, values: dict[str, Value]) -> None:
    for k in ("turn", "active", "shields", "held", "pass", *_STATE_JSON_OPTIONAL):
        if k in obj:
            values[k] = Value(root.child(k), _jint(obj[k], root.child(k)))
    for k in ("ship", "pod"):
        if obj[k] is not None:
            kat = root.child(k)
            values[k] = Value(kat, jtype(obj[k], kat, str, "a position string or null"))
    oat = root.child("outcome")
    values["outcome"] = Value(oat, jtype(obj["outcome"], oat, str, "a string"))
    if "\n" in obj["outcome"] or "\r" in obj["outcome"]:
        raise oat.error("the outcome is one line", obj["outcome"][:40])
    for k in ("deck", "discard", "ranking"):
        values[k] = Value(root.child(k), items=_jlist(obj[k], root.child(k)))
    hat = root.child("hands")
    hands = jtype(obj["hands"], hat, list, "a list of hands (lists of card ids)")
    values["hands"] = Value(hat, groups=[_jlist(h, hat.child(i)) for i, h in enumerate(hands)])


def read_json(obj: Any, source: str, want: str) -> Document:
    root = At(source, path="")
    if isinstance(obj, (str, bytes)):
        obj = json_load(obj, source)
    kind = _head(obj, root, want)
    grid = _grid(obj["grid"], root.child("grid"))
    values: dict[str, Value] = {}
    _common(obj, root, values)
    if kind == "setup":
        _deal(obj, root, values)
    else:
        _state_values(obj, root, values)
    return Document(kind, grid, values, root)


def setup_from_json(
    obj_or_text: dict | str | bytes,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    source: str = "<json>",
) -> Setup:
    """A setup from its JSON form (a parsed dict, or JSON text)."""
    return assemble_setup(read_json(obj_or_text, source, "setup"), sector_cards, command_cards)


def state_from_json(
    obj_or_text: dict | str | bytes,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    source: str = "<json>",
) -> GameState:
    """A game state from its JSON form (a parsed dict, or JSON text)."""
    return assemble_state(read_json(obj_or_text, source, "state"), sector_cards, command_cards)
