"""Text (FEN-like) and JSON notation for setups, game states and turns.

The grammar is documented in ``docs/NOTATION.md``. Parsing checks *form* only:
a text that parses may still break the rules of the game; ``validation`` says
which (as python-chess separates a FEN that parses from a valid position).

Both forms round-trip exactly: ``format_setup(parse_setup(t)) == t`` for
canonical text and ``parse_setup(format_setup(s)) == s`` for any setup whose
cards belong to the card sets passed in; the same for JSON. A parsed state's
``setup`` is rebuilt from the state's own keys and its *current* grid (the
original deal is not stored), so ``parse_state(format_state(s)) ==
normalize_state(s)``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from .cards import CommandCardSet, SectorCardSet
from .notation_assemble import JSON_VERSION, SETUP_FORMAT, SETUP_HEADER, STATE_FORMAT, STATE_HEADER
from .notation_cells import canonical_ids
from .notation_json import setup_from_json, setup_to_json, state_from_json, state_to_json
from .notation_reader import CONTROL, MAX_DIGITS, decode, header_of, json_load, read_input
from .notation_text import format_setup, format_state, locate, parse_setup, parse_state
from .notation_turns import format_turn, parse_turn
from .setup import Setup
from .state import GameState

__all__ = [
    "JSON_VERSION",
    "MAX_DIGITS",
    "SETUP_FORMAT",
    "SETUP_HEADER",
    "STATE_FORMAT",
    "STATE_HEADER",
    "format_setup",
    "format_state",
    "canonical_ids",
    "format_turn",
    "load",
    "load_text",
    "locate",
    "normalize_state",
    "parse_setup",
    "parse_state",
    "parse_turn",
    "setup_from_json",
    "setup_to_json",
    "state_from_json",
    "state_to_json",
]


def normalize_state(state: GameState) -> GameState:
    """The state as a parsed one carries it: ``setup`` rebuilt from the state's
    options, card sets and id with the *current* grid and no deal. Then
    ``parse_state(format_state(s)) == normalize_state(s)`` for every state."""
    s = state.setup
    return replace(
        state, setup=Setup(state.grid, s.options, s.sector_cards, s.command_cards, None, s.id)
    )


# ----------------------------------------------------------------------------
# load: sniff text vs JSON, setup vs state
# ----------------------------------------------------------------------------


def _looks_like_text(s: str) -> bool:
    head = s.lstrip("\ufeff \t\r\n")
    return (
        "\n" in s
        or head.startswith(("{", "#", "sensor-ghosts"))
        or not s.strip()
        or CONTROL.search(s) is not None
    )


def load(
    path_or_text: str | bytes | Path,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
) -> Setup | GameState:
    """Load a setup or a state from a file path, or from text/JSON given directly.

    A ``Path`` is always a file; a ``str`` is text when it contains a newline or
    starts with ``{``, ``#`` or the header, else a file path. Every failure,
    unreadable files included, is a ``NotationError``."""
    source, data = read_input(path_or_text, _looks_like_text)
    return load_text(data, source=source, sector_cards=sector_cards, command_cards=command_cards)


def load_text(
    text: str | bytes,
    *,
    source: str = "<text>",
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
) -> Setup | GameState:
    """A setup or a state from text or JSON already read (never a path): JSON when
    it starts with ``{``, else text; setup or state by its header/format."""
    text = decode(text, source)
    kw: dict[str, Any] = {
        "sector_cards": sector_cards, "command_cards": command_cards, "source": source
    }
    if text.lstrip().startswith("{"):
        obj = json_load(text, source)
        if isinstance(obj, dict) and obj.get("format") == STATE_FORMAT:
            return state_from_json(obj, **kw)
        return setup_from_json(obj, **kw)
    if header_of(text) == STATE_HEADER:
        return parse_state(text, **kw)
    return parse_setup(text, **kw)
