"""Text and JSON notation for observations: the table as one player sees it
(RULES.md §14). The hint engine's input.

Text form (``#`` starts a comment line; keys may come in any order)::

    sensor-ghosts observation
    7: E?   A?*? -E?  Oe   B?
    6: ...                          (rows 7 down to 1, five cells each)
    1: S@   S    E?   aE   O?
    players: 1
    difficulty: standard
    options: none                   (or a comma list: escape-pod, low-memory, ...)
    cards: default                  (sector card set; optional, default 'default')
    commands: default               (command card set; optional)
    player: 1                       (whose view; optional, default 1)
    active: 1                       (optional, default: the player)
    turn: 4                         (optional, default 1)
    ship: dock                      (dock, earth or row,col; or '@' in the grid)
    pod: dock                       (escape-pod variant only; or '&' in the grid)
    shields: 1
    held: 0                         (virus samples the ship holds)
    spent: 0                        (virus samples spent; optional, default 0)
    rocks: 0                        (rock tokens found; optional, default 0)
    lost: 0                         (tokens lost unseen, §11; optional, default 0)
    hand: F1 F3 D2                  ('-' for an empty hand)
    hands: 3                        (every player's hand size; optional solo)
    discard: F2> S1                 (bottom first; '>' '<' '^' 'v' a Fly card's arrow)
    deck: 7                         (cards left in the deck)
    pass: 1
    outcome: ongoing                (optional)

Cells reuse the setup notation's tokens — front letter then back letter, the
face-up side in UPPER case, the down side in lower case — with ``?`` for a side
the player does not know:

- ``Ea``  front E face up, back A (seen: a peek, a watched flip);
- ``E?``  front E face up, back never seen;
- ``eA``  back A face up, front E; ``?A`` back A face up, front forgotten
  (with a perfect memory the front is always known: every flip shows it);
- ``S``   a start card (Empty both sides, [D4]);
- ``-E?`` a gap whose card's front was E (its back is never seen, [D26]);
  ``-??`` a gap whose front is forgotten;
- suffixes ``*?`` a face-down sample token (its content is hidden), ``@`` the
  ship, ``&`` the escape pod.

JSON form: ``{"format": "sensor-ghosts/observation", "version": 1, "grid": [7
lists of 5 cell strings, row 7 first], "options": {"players", "difficulty",
"flags"}, "cards", "commands", "player", "active", "turn", "ship", "pod",
"shields", "held", "spent", "rocks", "lost", "hand": [...], "hand_sizes":
[...], "discard": [...], "deck": int, "pass": 1|2, "outcome": str}``.

Parsing checks form (``NotationError`` with line, column and token; JSON errors
name the key path). ``load_observation`` then checks consistency and refuses an
observation no game could show (``InconsistentObservationError``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cards import CommandCardSet, SectorCardSet, SectorType, Side
from .errors import NotationError
from .geometry import COLS, DOCK, EARTH, ROWS, Pos, format_pos, on_grid
from .notation import (
    _ARROW_OF,
    _KEY_RE,
    MAX_DIGITS,
    _card_set,
    _decode,
    _json_load,
    _read_row,
    _tokens,
)
from .notation import _At as _Loc
from .observation import (
    TOTAL_VIRUS,
    Observation,
    SeenCard,
    SeenGap,
    check_observation,
    observe,
)
from .options import FLAG_NAMES, Difficulty, RuleOptions
from .state import MAX_TURN, TOTAL_ROCK, DiscardEntry, GameState, Outcome, Status

__all__ = [
    "OBSERVATION_FORMAT",
    "OBSERVATION_HEADER",
    "format_observation",
    "load_observation",
    "observation_from_json",
    "observation_to_json",
    "parse_observation",
]

OBSERVATION_HEADER = "sensor-ghosts observation"
OBSERVATION_FORMAT = "sensor-ghosts/observation"
JSON_VERSION = 1

_KEYS = (
    "players", "difficulty", "options", "cards", "commands", "player", "active", "turn",
    "ship", "pod", "shields", "held", "spent", "rocks", "lost", "hand", "hands", "discard",
    "deck", "pass", "outcome",
)  # fmt: skip
_REQUIRED = ("players", "difficulty", "shields", "held", "hand", "discard", "deck", "pass")
_LETTERS = "EBAO"


# ----------------------------------------------------------------------------
# Cells
# ----------------------------------------------------------------------------


@dataclass
class _Cell:
    cell: SeenCard | SeenGap
    ship: bool = False
    pod: bool = False


def _type(ch: str) -> SectorType | None:
    return None if ch == "?" else SectorType(ch.upper())


def _parse_cell(tok: str, loc: _Loc) -> _Cell:
    i: int
    if tok.startswith("#") or "#" in tok:
        raise loc.error("card ids ('#') are not part of an observation", tok, tok.index("#"))
    if tok.startswith("-"):
        body = tok[1:]
        if body in ("", "?", "??"):
            return _Cell(SeenGap(None))
        if body[:1] == "S":
            raise loc.error("a start card is never removed [D8]", tok, 1)
        if len(body) == 2 and body[0] in _LETTERS and body[1] == "?":
            return _Cell(SeenGap(SectorType(body[0])))
        if len(body) == 2 and body[0] in _LETTERS and body[1].upper() in _LETTERS:
            raise loc.error(
                "a gap's back is never seen [D26]: write its front and '?' (e.g. '-E?')", tok, 2
            )
        if body[:1] in _LETTERS and body[1:2] in ("", "*", "@", "&"):
            raise loc.error("a gap is '-' with its card's front and '?' (e.g. '-E?')", tok)
        if body[:2] and body[2:]:
            raise loc.error("a gap carries nothing: no sample, ship or pod", tok, 3)
        raise loc.error("a gap is '-E?' (front E, back unseen) or '-??' (front forgotten)", tok)
    if tok.startswith("S"):
        cell: SeenCard | SeenGap = SeenCard(SectorType.EMPTY, Side.FRONT, SectorType.EMPTY, True)
        i = 1
    else:
        pair = tok[:2]
        for k, ch in enumerate(pair):
            if ch != "?" and ch.upper() not in _LETTERS:
                raise loc.error(
                    f"unknown cell {ch!r}: a card is two of E, B, A, O or '?' (front then "
                    "back), 'S' a start card, '-' a gap",
                    tok,
                    k,
                )
        if len(pair) < 2:
            raise loc.error("a card is two letters, front then back (e.g. 'A?', 'Ae', 'eA')", tok)
        a, b = pair
        up_front = a.isupper() and (b.islower() or b == "?")
        up_back = b.isupper() and (a.islower() or a == "?")
        if not (up_front or up_back):
            if a == "?" and b == "?":
                raise loc.error("the face-up side is always visible: write it in upper case", tok)
            raise loc.error(
                "exactly one side is face up: write it in upper case and the down side in "
                "lower case, or '?' if unseen (e.g. 'A?', 'Ae', 'eA', '?A')",
                tok,
            )
        if up_front:
            cell = SeenCard(SectorType(a), Side.FRONT, _type(b))
        else:
            cell = SeenCard(SectorType(b), Side.BACK, _type(a))
        i = 2
    out = _Cell(cell)
    sample = False
    while i < len(tok):
        ch = tok[i]
        if ch == "*":
            nxt = tok[i + 1 : i + 2]
            if nxt in ("v", "r"):
                raise loc.error("a face-down sample's content is hidden: write '*?'", tok, i)
            if nxt != "?":
                raise loc.error("a face-down sample is '*?'", tok, i)
            if sample:
                raise loc.error("a card carries at most one sample", tok, i)
            sample = True
            i += 2
            continue
        if ch in "@&":
            if (ch == "@" and out.ship) or (ch == "&" and out.pod):
                raise loc.error(f"{ch!r} given twice", tok, i)
            if ch == "@":
                out.ship = True
            else:
                out.pod = True
            i += 1
            continue
        if ch == "!":
            raise loc.error(
                "'!' is not used in an observation: write the down side you saw in lower case",
                tok,
                i,
            )
        raise loc.error(f"unexpected {ch!r} in a cell: suffixes are '*?', '@', '&'", tok, i)
    if sample:
        assert isinstance(cell, SeenCard)
        out.cell = SeenCard(cell.up, cell.side, cell.down, cell.start, True)
    return out


def _cell_token(cell: SeenCard | SeenGap) -> str:
    if isinstance(cell, SeenGap):
        return "-" + (cell.front.value if cell.front else "?") + "?"
    if cell.start:
        tok = "S"
    else:
        down = cell.down.value.lower() if cell.down else "?"
        tok = cell.up.value + down if cell.side is Side.FRONT else down + cell.up.value
    return tok + ("*?" if cell.sample else "")


# ----------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------

@dataclass
class _Val:
    loc: _Loc
    text: str = ""
    items: list[tuple[str, _Loc]] | None = None


@dataclass
class _Doc:
    grid: list[list[tuple[str, _Loc]]]  # row 7 first
    values: dict[str, _Val]
    end: _Loc


def _read_text(text: str, source: str) -> _Doc:
    lines = [ln.removesuffix("\r") for ln in text.split("\n")]
    meaningful = [
        (n, ln) for n, ln in enumerate(lines, 1) if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not meaningful:
        raise NotationError(
            f"empty input: expected the header line '{OBSERVATION_HEADER}'",
            line=1, column=1, source=source,
        )  # fmt: skip
    n, ln = meaningful[0]
    if " ".join(ln.split()) != OBSERVATION_HEADER:
        raise NotationError(
            f"expected the header line '{OBSERVATION_HEADER}'",
            line=n, column=len(ln) - len(ln.lstrip()) + 1, token=ln.strip(), source=source,
        )  # fmt: skip
    last_n, last_ln = meaningful[-1]
    end = _Loc(source, last_n, len(last_ln) + 1)
    grid: list[list[tuple[str, _Loc]]] = []
    values: dict[str, _Val] = {}
    first: dict[str, int] = {}
    in_grid = True
    for n, ln in meaningful[1:]:
        loc = _Loc(source, n, 1)
        indent = len(ln) - len(ln.lstrip())
        km = _KEY_RE.fullmatch(ln)
        if km is None:
            if not in_grid:
                raise loc.error("expected 'key: value' (the grid comes right after the header)",
                                ln.strip(), indent)  # fmt: skip
            if len(grid) == ROWS:
                raise loc.error(f"the grid has more than {ROWS} rows", ln.strip(), indent)
            grid.append(_read_row(ln, loc, ROWS - len(grid)))
            continue
        if in_grid:
            in_grid = False
            if len(grid) != ROWS:
                raise loc.error(
                    f"the grid has {len(grid)} rows, expected {ROWS} (row 7 first, row 1 last)",
                    ln.strip(), indent,
                )  # fmt: skip
        key, kcol = km.group(2), len(km.group(1))
        if key not in _KEYS:
            raise loc.error(f"unknown key {key!r} in an observation", key, kcol)
        if key in values:
            raise loc.error(f"duplicate key {key!r} (first on line {first[key]})", key, kcol)
        first[key] = n
        raw = km.group(4)
        vloc = loc.shifted(km.end(3) + 1 + len(raw) - len(raw.lstrip()))
        text_v = raw.strip()
        if not text_v:
            raise vloc.error(f"missing value for {key!r}", "")
        val = _Val(vloc, text_v)
        if key in ("hand", "discard", "hands"):
            toks = _tokens(text_v, vloc)
            if len(toks) == 1 and toks[0][0] == "-":
                toks = []
            for tok, tloc in toks:
                if tok == "-":
                    raise tloc.error("'-' stands alone for an empty list", tok)
            val.items = toks
        elif key == "options":
            val.items = []
            if text_v != "none":
                off = 0
                for piece in text_v.split(","):
                    name = piece.strip()
                    nloc = vloc.shifted(off + len(piece) - len(piece.lstrip()))
                    if not name:
                        raise nloc.error("empty option name in the comma list", text_v)
                    val.items.append((name, nloc))
                    off += len(piece) + 1
        values[key] = val
    if in_grid:
        raise end.error(
            f"the grid has {len(grid)} rows, expected {ROWS}, and no 'key: value' lines follow"
        )
    return _Doc(grid, values, end)


def _read_json(obj: Any, source: str) -> _Doc:
    root = _Loc(source, path="")
    if isinstance(obj, (str, bytes)):
        obj = _json_load(obj, source)
    if not isinstance(obj, dict):
        raise root.error("an observation in JSON is an object", json.dumps(obj)[:40])
    if obj.get("format") != OBSERVATION_FORMAT:
        raise root.child("format").error(
            f"expected {OBSERVATION_FORMAT!r}", json.dumps(obj.get("format"))
        )
    json_keys = set(_KEYS) - {"hands", "rocks", "deck", "pass"} | {
        "format", "version", "hand_sizes", "rocks", "deck", "pass", "grid",
    }  # fmt: skip
    for k in obj:
        if k not in json_keys:
            raise root.child(k).error("unknown key in an observation", k)
    if obj.get("version") != JSON_VERSION or isinstance(obj.get("version"), bool):
        raise root.child("version").error(
            f"unsupported version (this library reads version {JSON_VERSION})",
            json.dumps(obj.get("version")),
        )
    gloc = root.child("grid")
    rows = obj.get("grid")
    if not isinstance(rows, list) or len(rows) != ROWS:
        raise gloc.error(f"expected a list of {ROWS} rows (row 7 first)")
    grid = []
    for i, row in enumerate(rows):
        rloc = gloc.child(i)
        if (
            not isinstance(row, list)
            or len(row) != COLS
            or not all(isinstance(x, str) for x in row)
        ):
            raise rloc.error(f"expected a list of {COLS} cell strings")
        grid.append([(x, rloc.child(j)) for j, x in enumerate(row)])
    values: dict[str, _Val] = {}

    def scalar(key: str, val: Any, kind: type, what: str, jkey: str | None = None) -> None:
        loc = root.child(jkey or key)
        if not isinstance(val, kind) or (kind is int and isinstance(val, bool)):
            raise loc.error(f"expected {what}", json.dumps(val)[:40])
        values[key] = _Val(loc, str(val))

    def strlist(key: str, val: Any, jkey: str | None = None) -> None:
        loc = root.child(jkey or key)
        if not isinstance(val, list):
            raise loc.error("expected a list", json.dumps(val)[:40])
        items = []
        for i, x in enumerate(val):
            if isinstance(x, int) and not isinstance(x, bool) and key == "hands":
                x = str(x)
            if not isinstance(x, str):
                raise loc.child(i).error("expected a string", json.dumps(x)[:40])
            items.append((x, loc.child(i)))
        values[key] = _Val(loc, " ".join(t for t, _ in items) or "-", items)

    opts = obj.get("options")
    oloc = root.child("options")
    if not isinstance(opts, dict):
        raise oloc.error("expected an object {players, difficulty, flags}")
    for k in opts:
        if k not in ("players", "difficulty", "flags"):
            raise oloc.child(k).error("unknown key in options", k)
    if "players" in opts:
        scalar("players", opts["players"], int, "a whole number", "options.players")
    if "difficulty" in opts:
        scalar("difficulty", opts["difficulty"], str, "a string", "options.difficulty")
    strlist("options", opts.get("flags", []), "options.flags")
    for k, kind, what in (
        ("cards", str, "a card set name"), ("commands", str, "a card set name"),
        ("player", int, "a whole number"), ("active", int, "a whole number"),
        ("turn", int, "a whole number"), ("shields", int, "a whole number"),
        ("held", int, "a whole number"), ("spent", int, "a whole number"),
        ("rocks", int, "a whole number"), ("lost", int, "a whole number"),
        ("deck", int, "a whole number"), ("pass", int, "1 or 2"),
        ("outcome", str, "a string"), ("ship", str, "a position string"),
        ("pod", str, "a position string"),
    ):  # fmt: skip
        if obj.get(k) is not None:
            scalar(k, obj[k], kind, what)
    for k, jk in (("hand", "hand"), ("discard", "discard"), ("hands", "hand_sizes")):
        if obj.get(jk) is not None:
            strlist(k, obj[jk], jk)
    return _Doc(grid, values, root)


# ----------------------------------------------------------------------------
# Assembling
# ----------------------------------------------------------------------------


def _int(v: _Val, what: str, lo: int | None = None, hi: int | None = None) -> int:
    # ASCII digits only, and few of them: the state notation's rule (MAX_DIGITS).
    if not re.fullmatch(r"-?[0-9]+", v.text):
        raise v.loc.error(f"{what} must be a whole number (digits 0-9)", v.text[:40])
    if len(v.text.lstrip("-")) > MAX_DIGITS:
        raise v.loc.error(f"{what} is too large ({len(v.text.lstrip('-'))} digits)", v.text[:40])
    n = int(v.text)
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        rng = f"{lo} to {hi}" if hi is not None else f"{lo} or more"
        raise v.loc.error(f"{what} must be {rng}, got {n}", v.text)
    return n


def _pos(v: _Val) -> Pos:
    if v.text == "dock":
        return DOCK
    if v.text == "earth":
        return EARTH
    m = re.fullmatch(r"([0-9]{1,3}),([0-9]{1,3})", v.text)
    if not m or not on_grid((int(m.group(1)), int(m.group(2)))):
        raise v.loc.error("a position is dock, earth or row,col (row 1..7, col 1..5)", v.text)
    return (int(m.group(1)), int(m.group(2)))


def _assemble(
    doc: _Doc, sector_cards: SectorCardSet | None, command_cards: CommandCardSet | None
) -> Observation:
    v = doc.values
    for k in _REQUIRED:
        if k not in v:
            raise doc.end.error(f"missing required key {k!r}")
    players = _int(v["players"], "players", 1, 4)
    try:
        difficulty = Difficulty(v["difficulty"].text)
    except ValueError:
        raise v["difficulty"].loc.error(
            "difficulty is introductory, standard or advanced", v["difficulty"].text
        ) from None
    flags: list[str] = []
    for name, nloc in (v["options"].items if "options" in v else None) or []:
        if name not in FLAG_NAMES:
            raise nloc.error(f"unknown rule option (known: {', '.join(FLAG_NAMES)}, or none)", name)
        if name in flags:
            raise nloc.error("rule option listed twice", name)
        flags.append(name)
    options = RuleOptions(players, difficulty).with_flags(flags)
    sectors = _named_set(v.get("cards"), sector_cards, SectorCardSet.default, "sector")
    commands = _named_set(v.get("commands"), command_cards, CommandCardSet.default, "command")

    cells: list[list[_Cell]] = [[_parse_cell(t, loc) for t, loc in row] for row in doc.grid]
    grid = tuple(tuple(c.cell for c in row) for row in reversed(cells))
    ship = _marked(v.get("ship"), cells, "ship", "@", doc.end)
    if ship is None:
        raise doc.end.error("missing required key 'ship' (or an '@' in the grid)")
    pod = _marked(v.get("pod"), cells, "pod", "&", doc.end)
    player = _int(v["player"], "player", 1, players) - 1 if "player" in v else 0
    active = _int(v["active"], "active", 1, players) - 1 if "active" in v else player
    turn = _int(v["turn"], "turn", 1, MAX_TURN) if "turn" in v else 1
    shields = _int(v["shields"], "shields", 0, 2)
    held = _int(v["held"], "held", 0, TOTAL_VIRUS)
    spent = _int(v["spent"], "spent", 0, TOTAL_VIRUS) if "spent" in v else 0
    rocks = _int(v["rocks"], "rocks", 0, TOTAL_ROCK) if "rocks" in v else 0
    lost = _int(v["lost"], "lost", 0, TOTAL_VIRUS + TOTAL_ROCK) if "lost" in v else 0
    hand = tuple(t for t, _ in v["hand"].items or [])
    ids = {c.id for c in commands.cards}
    for tok, tloc in v["hand"].items or []:
        if tok not in ids:
            raise tloc.error("not a command card of this card set", tok)
    discard = []
    for tok, tloc in v["discard"].items or []:
        if len(tok) > 1 and tok[-1] in _ARROW_OF and tok not in ids:
            card, arrow = tok[:-1], _ARROW_OF[tok[-1]]
        else:
            card, arrow = tok, None
        if card not in ids:
            raise tloc.error("not a command card of this card set", tok)
        discard.append(DiscardEntry(card, arrow))
    if "hands" in v:
        sizes = tuple(_int(_Val(loc, t), "a hand size", 0) for t, loc in v["hands"].items or [])
        if len(sizes) != players:
            raise v["hands"].loc.error(
                f"give one hand size per player ({players})", v["hands"].text
            )
    elif players == 1:
        sizes = (len(hand),)
    else:
        raise doc.end.error("missing required key 'hands' (every player's hand size)")
    deck = _int(v["deck"], "deck", 0)
    pass_n = _int(v["pass"], "pass", 1, 2)
    outcome = Outcome()
    if "outcome" in v:
        m = re.fullmatch(r"(ongoing|won|lost)(?:\s*:\s*(.*))?", v["outcome"].text, re.S)
        if not m:
            raise v["outcome"].loc.error("outcome is 'ongoing', 'won' or 'lost: reason'",
                                         v["outcome"].text)  # fmt: skip
        outcome = Outcome(Status(m.group(1)), (m.group(2) or "").strip())
    return Observation(
        player=player,
        options=options,
        grid=grid,
        ship=ship,
        pod=pod,
        shields=shields,
        held=held,
        hand=hand,
        hand_sizes=sizes,
        discard=tuple(discard),
        deck_size=deck,
        second_pass=pass_n == 2,
        active=active,
        turn=turn,
        outcome=outcome,
        virus_face_down=TOTAL_VIRUS - held - spent,
        unseen_lost=lost,
        rocks_found=rocks,
        sector_cards=sectors,
        command_cards=commands,
    )


def _named_set(v: _Val | None, given, default, what: str):
    if v is None:
        return _card_set("default", None, given, default, what)
    return _card_set(v.text, v.loc, given, default, what)


def _marked(v: _Val | None, cells: list[list[_Cell]], what: str, sym: str, end: _Loc) -> Pos | None:
    marks = [
        (ROWS - i, j + 1)
        for i, row in enumerate(cells)
        for j, c in enumerate(row)
        if (c.ship if sym == "@" else c.pod)
    ]
    if len(marks) > 1:
        raise end.error(f"the {what} is marked {sym!r} twice in the grid")
    if marks and v is not None:
        raise v.loc.error(f"the {what} is already marked with {sym!r} in the grid", v.text)
    if marks:
        return marks[0]
    if v is None or v.text == "-":
        return None
    return _pos(v)


# ----------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------


def parse_observation(
    text: str | bytes,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    source: str = "<text>",
) -> Observation:
    """Parse the text form. Form only: ``check_observation`` (or
    ``load_observation``) judges consistency."""
    doc = _read_text(_decode(text, source), source)
    return _assemble(doc, sector_cards, command_cards)


def observation_from_json(
    obj_or_text: dict | str | bytes,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    source: str = "<json>",
) -> Observation:
    """Parse the JSON form (a dict, or JSON text). Form only."""
    return _assemble(_read_json(obj_or_text, source), sector_cards, command_cards)


def _tokens_of(obs: Observation) -> list[list[str]]:
    out = []
    for r in range(ROWS, 0, -1):
        row = []
        for c in range(1, COLS + 1):
            tok = _cell_token(obs.grid[r - 1][c - 1])
            if obs.ship == (r, c):
                tok += "@"
            if obs.pod == (r, c):
                tok += "&"
            row.append(tok)
        out.append(row)
    return out


def _discard_text(e: DiscardEntry) -> str:
    return e.card + (e.arrow.arrow if e.arrow is not None else "")


def format_observation(obs: Observation) -> str:
    """The canonical text form (ends with a newline); ``parse_observation`` reads it
    back equal."""
    tokens = _tokens_of(obs)
    widths = [max(len(row[c]) for row in tokens) for c in range(COLS)]
    lines = [OBSERVATION_HEADER]
    for i, row in enumerate(tokens):
        lines.append(
            f"{ROWS - i}: " + " ".join(t.ljust(widths[c]) for c, t in enumerate(row)).rstrip()
        )
    o = obs.options
    lines += [
        f"players: {o.players}",
        f"difficulty: {o.difficulty.value}",
        "options: " + (", ".join(o.flags()) or "none"),
        f"cards: {obs.sector_cards.name}",
        f"commands: {obs.command_cards.name}",
        f"player: {obs.player + 1}",
        f"active: {obs.active + 1}",
        f"turn: {obs.turn}",
    ]
    if not (obs.ship != DOCK and obs.ship != EARTH):
        lines.append(f"ship: {format_pos(obs.ship)}")
    if obs.pod is not None and obs.pod in (DOCK, EARTH):
        lines.append(f"pod: {format_pos(obs.pod)}")
    lines += [
        f"shields: {obs.shields}",
        f"held: {obs.held}",
        f"spent: {obs.spent}",
        f"rocks: {obs.rocks_found}",
        f"lost: {obs.unseen_lost}",
        "hand: " + (" ".join(obs.hand) or "-"),
        "hands: " + " ".join(str(n) for n in obs.hand_sizes),
        "discard: " + (" ".join(_discard_text(e) for e in obs.discard) or "-"),
        f"deck: {obs.deck_size}",
        f"pass: {2 if obs.second_pass else 1}",
        f"outcome: {obs.outcome}",
    ]
    return "\n".join(lines) + "\n"


def observation_to_json(obs: Observation) -> dict:
    """The JSON form (a dict ready for ``json.dumps``)."""
    o = obs.options
    on_card = lambda p: p is not None and on_grid(p)  # noqa: E731
    return {
        "format": OBSERVATION_FORMAT,
        "version": JSON_VERSION,
        "grid": _tokens_of(obs),
        "options": {"players": o.players, "difficulty": o.difficulty.value, "flags": o.flags()},
        "cards": obs.sector_cards.name,
        "commands": obs.command_cards.name,
        "player": obs.player + 1,
        "active": obs.active + 1,
        "turn": obs.turn,
        "ship": None if on_card(obs.ship) else format_pos(obs.ship),
        "pod": None if (obs.pod is None or on_card(obs.pod)) else format_pos(obs.pod),
        "shields": obs.shields,
        "held": obs.held,
        "spent": obs.spent,
        "rocks": obs.rocks_found,
        "lost": obs.unseen_lost,
        "hand": list(obs.hand),
        "hand_sizes": list(obs.hand_sizes),
        "discard": [_discard_text(e) for e in obs.discard],
        "deck": obs.deck_size,
        "pass": 2 if obs.second_pass else 1,
        "outcome": str(obs.outcome),
    }


def load_observation(
    path_or_text: str | bytes | Path,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    check: bool = True,
) -> Observation:
    """An observation from a file or text: the observation notation (text or JSON),
    or a *state* (text or JSON) — then what its active player sees (§14) — or a
    *setup*: its opening position, dealt by its own deal (seed 0's without one).

    Bad form raises ``NotationError``; with ``check`` an observation no game could
    show raises ``InconsistentObservationError``."""
    if isinstance(path_or_text, Path) or (
        isinstance(path_or_text, str) and "\n" not in path_or_text
        and not path_or_text.lstrip().startswith("{")
    ):  # fmt: skip
        source = str(path_or_text)
        try:
            data: str | bytes = Path(path_or_text).read_bytes()
        except (OSError, ValueError) as e:
            raise NotationError(f"cannot read file: {getattr(e, 'strerror', None) or e}",
                                source=source) from None  # fmt: skip
    else:
        source, data = "<text>", path_or_text
    text = _decode(data, source)
    kw: dict[str, Any] = {"sector_cards": sector_cards, "command_cards": command_cards}
    obs: Observation
    if text.lstrip().startswith("{"):
        obj = _json_load(text, source)
        if isinstance(obj, dict) and obj.get("format") == "sensor-ghosts/state":
            from .notation import state_from_json

            obs = _observe_state(state_from_json(obj, source=source, **kw))
        elif isinstance(obj, dict) and obj.get("format") == "sensor-ghosts/setup":
            from .notation import setup_from_json

            obs = _observe_state(_opening(setup_from_json(obj, source=source, **kw)))
        else:
            obs = observation_from_json(obj, source=source, **kw)
    else:
        head = next(
            (" ".join(ln.split()) for ln in text.split("\n")
             if ln.strip() and not ln.lstrip().startswith("#")), "",
        )  # fmt: skip
        if head == "sensor-ghosts state":
            from .notation import parse_state

            obs = _observe_state(parse_state(text, source=source, **kw))
        elif head == "sensor-ghosts setup":
            from .notation import parse_setup

            obs = _observe_state(_opening(parse_setup(text, source=source, **kw)))
        else:
            obs = parse_observation(text, source=source, **kw)
    return check_observation(obs) if check else obs


def _opening(setup) -> GameState:
    from .state import initial_state
    from .validation import check_playable

    check_playable(setup)  # InvalidSetupError: no opening to observe
    return initial_state(setup, setup.deal, seed=0)


def _observe_state(state: GameState) -> Observation:
    from .validation import check_playable

    check_playable(state)  # InvalidStateError, not an IndexError, for a state no game reaches
    return observe(state, state.active)
