"""The text form of setups and states: reading (through the shared reader) and
writing; the grammar is in ``docs/NOTATION.md``."""

from __future__ import annotations

import re

from .cards import CommandCardSet, SectorCardSet
from .geometry import COLS, ROWS
from .notation_assemble import (
    SETUP_HEADER,
    STATE_HEADER,
    assemble_setup,
    assemble_state,
    check_name,
    state_parts,
)
from .notation_cells import grid_tokens
from .notation_reader import (
    KEY_RE,
    At,
    Document,
    Tokens,
    Value,
    decode,
    meaningful_lines,
    option_names,
    read_document,
    word_list,
)
from .options import RuleOptions
from .setup import Setup
from .state import GameState

SETUP_KEYS = ("players", "difficulty", "options", "cards", "commands", "deck", "ranking", "id")
STATE_KEYS = (
    "players", "difficulty", "options", "cards", "commands", "id",
    "turn", "active", "ship", "pod", "shields", "held", "rocks", "lost",
    "hands", "deck", "discard", "ranking", "pass", "outcome",
)  # fmt: skip

_HAND_RE = re.compile(r"\||[^\s|]+")


# ----------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------


def _key_error(kind: str, key: str) -> str | None:
    if key in (SETUP_KEYS if kind == "setup" else STATE_KEYS):
        return None
    hint = " (it belongs to a state)" if key in STATE_KEYS and kind == "setup" else ""
    return f"unknown key {key!r} in a {kind}{hint}"


def _hands(text: str, vat: At) -> list[Tokens]:
    """Hands split at '|', each a word list ('-': an empty hand)."""
    groups: list[Tokens] = [[]]
    for m in _HAND_RE.finditer(text):
        if m.group() == "|":
            groups.append([])
        else:
            groups[-1].append((m.group(), vat.shifted(m.start())))
    out: list[Tokens] = []
    for g in groups:
        if not g:
            raise vat.error("an empty hand is written '-'", text)
        if len(g) == 1 and g[0][0] == "-":
            out.append([])
            continue
        for tok, tat in g:
            if tok == "-":
                raise tat.error("'-' stands alone for an empty hand", tok)
        out.append(g)
    return out


def _text_value(key: str, text: str, vat: At) -> Value:
    v = Value(vat, text)
    if key in ("deck", "ranking", "discard"):
        v.items = word_list(text, vat)
    elif key == "options":
        v.items = option_names(text, vat)
    elif key == "hands":
        v.groups = _hands(text, vat)
    return v


def read_text(text: str, source: str, want: str) -> Document:
    def check_kind(kind: str, at: At, header: str) -> None:
        if kind != want:
            other = "parse_setup" if kind == "setup" else "parse_state"
            raise at.error(f"this is a {kind}, not a {want} (use {other} or load)", header)

    headers = {SETUP_HEADER: "setup", STATE_HEADER: "state"}
    return read_document(text, source, headers, check_kind, _key_error, _text_value)


def parse_setup(
    text: str | bytes,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    source: str = "<text>",
) -> Setup:
    """Parse the text form of a setup. Raises ``NotationError`` on bad form; rules
    are checked by ``validation.validate``."""
    doc = read_text(decode(text, source), source, "setup")
    return assemble_setup(doc, sector_cards, command_cards)


def parse_state(
    text: str | bytes,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    source: str = "<text>",
) -> GameState:
    """Parse the text form of a game state. ``state.setup`` is rebuilt from the
    state's keys and its current grid (see ``normalize_state``)."""
    doc = read_text(decode(text, source), source, "state")
    return assemble_state(doc, sector_cards, command_cards)


def locate(text: str, *, key: str | None = None, row: int | None = None) -> int | None:
    """The 1-based line of a text setup or state where ``key`` is given, or where
    grid row ``row`` is written; None when it is not there (or the text is
    JSON). For messages that name the place of a problem ("file:line: ...")."""
    if text.lstrip("\ufeff \t\r\n").startswith("{"):
        return None
    meaningful = meaningful_lines(text)
    if key is not None:
        for n, ln in meaningful:
            km = KEY_RE.fullmatch(ln.removesuffix("\r"))
            if km is not None and km.group(2) == key:
                return n
        return None
    if row is not None and 1 <= row <= ROWS and len(meaningful) > ROWS:
        return meaningful[1 + ROWS - row][0]  # the header, then row 7 first
    return None


# ----------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------


def grid_lines(cells: list[list[str]]) -> list[str]:
    # Columns padded to a common width so the grid reads as a grid.
    widths = [max(len(row[c]) for row in cells) for c in range(COLS)]
    out = []
    for i, row in enumerate(cells):
        padded = [t.ljust(widths[c]) for c, t in enumerate(row)]
        out.append(f"{ROWS - i}: " + " ".join(padded).rstrip())
    return out


def options_lines(
    options: RuleOptions, sectors: SectorCardSet, commands: CommandCardSet, *, checked: bool = True
) -> list[str]:
    """The rule options' and card sets' lines, as every text form writes them;
    ``checked``: refuse a set name that would not read back (``check_name``)."""

    def name(n: str, what: str) -> str:
        return check_name(n, what) if checked else n

    return [
        f"players: {options.players}",
        f"difficulty: {options.difficulty.value}",
        "options: " + (", ".join(options.flags()) or "none"),
        f"cards: {name(sectors.name, 'card set name')}",
        f"commands: {name(commands.name, 'command set name')}",
    ]


def _list_text(ids: tuple[str, ...] | list[str]) -> str:
    return " ".join(ids) if ids else "-"


def format_setup(setup: Setup) -> str:
    """The canonical text form of a setup (ends with a newline)."""
    lines = [SETUP_HEADER] + grid_lines(grid_tokens(setup.grid, setup.sector_cards))
    lines += options_lines(setup.options, setup.sector_cards, setup.command_cards)
    if setup.deal is not None:
        lines.append(f"deck: {_list_text(setup.deal.first_deck)}")
        lines.append(f"ranking: {_list_text(setup.deal.ranking)}")
    if setup.id is not None:
        lines.append(f"id: {check_name(setup.id, 'setup id')}")
    return "\n".join(lines) + "\n"


def format_state(state: GameState) -> str:
    """The canonical text form of a game state (ends with a newline)."""
    cells, p = state_parts(state)
    s = state.setup
    lines = [STATE_HEADER] + grid_lines(cells)
    lines += options_lines(s.options, s.sector_cards, s.command_cards)
    if state.setup.id is not None:
        lines.append(f"id: {check_name(state.setup.id, 'setup id')}")
    lines.append(f"turn: {p['turn']}")
    lines.append(f"active: {p['active']}")
    if p["ship"] is not None:
        lines.append(f"ship: {p['ship']}")
    if p["pod"] is not None:
        lines.append(f"pod: {p['pod']}")
    lines.append(f"shields: {p['shields']}")
    lines.append(f"held: {p['held']}")
    # Written when not 0, so that the states of earlier versions read the same.
    if p["rocks"]:
        lines.append(f"rocks: {p['rocks']}")
    if p["lost"]:
        lines.append(f"lost: {p['lost']}")
    lines.append("hands: " + (" | ".join(_list_text(h) for h in p["hands"]) or "-"))
    lines.append(f"deck: {_list_text(p['deck'])}")
    lines.append(f"discard: {_list_text(p['discard'])}")
    lines.append(f"ranking: {_list_text(p['ranking'])}")
    lines.append(f"pass: {p['pass']}")
    lines.append(f"outcome: {p['outcome']}")
    return "\n".join(lines) + "\n"

