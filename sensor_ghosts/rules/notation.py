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

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .cards import (
    START_CARDS,
    CommandCardSet,
    CommandKind,
    SectorCard,
    SectorCardSet,
    SectorType,
    Side,
)
from .errors import NotationError
from .geometry import COLS, DOCK, EARTH, ROWS, Direction, Pos, format_pos, on_grid
from .options import FLAG_NAMES, Difficulty, RuleOptions
from .setup import Cell, Deal, Gap, Grid, Sample, Setup, Slot
from .state import (
    MAX_SHIELDS,
    MAX_TURN,
    TOTAL_ROCK,
    TOTAL_VIRUS,
    DiscardEntry,
    GameState,
    Outcome,
    Status,
)
from .turns import DECK_PLAYER, Action, ActionKind, Command, PlayedCard, Turn

__all__ = [
    "JSON_VERSION",
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

SETUP_HEADER = "sensor-ghosts setup"
STATE_HEADER = "sensor-ghosts state"
SETUP_FORMAT = "sensor-ghosts/setup"
STATE_FORMAT = "sensor-ghosts/state"
JSON_VERSION = 1

_SETUP_KEYS = ("players", "difficulty", "options", "cards", "commands", "deck", "ranking", "id")
_SETUP_REQUIRED = ("players", "difficulty", "options", "cards", "commands")
_STATE_KEYS = (
    "players", "difficulty", "options", "cards", "commands", "id",
    "turn", "active", "ship", "pod", "shields", "held", "rocks", "lost",
    "hands", "deck", "discard", "ranking", "pass", "outcome",
)  # fmt: skip
_STATE_REQUIRED = _SETUP_REQUIRED + (
    "turn", "active", "shields", "held", "hands", "deck", "discard", "ranking", "pass", "outcome",
)  # fmt: skip

_ARROW_OF = {"^": Direction.UP, "v": Direction.DOWN, "<": Direction.LEFT, ">": Direction.RIGHT}
_LETTERS = "EBAO"


# ----------------------------------------------------------------------------
# Error locations: a text line/column, or a JSON path.
# ----------------------------------------------------------------------------


class _At:
    """Where a value stands. A plain class with slots, not a dataclass: a
    document makes one per token, and ``dataclasses.replace`` is slow. A JSON
    path is spelt out only when an error names it."""

    __slots__ = ("source", "line", "column", "_path", "_up", "_key")

    def __init__(
        self, source: str, line: int | None = None, column: int | None = None,
        path: str | None = None,
    ) -> None:  # fmt: skip
        self.source = source
        self.line = line
        self.column = column
        self._path = path
        self._up: _At | None = None
        self._key: str | int = ""

    @property
    def path(self) -> str | None:
        if self._up is not None:
            base = self._up.path or ""
            key = self._key
            step = f"[{key}]" if isinstance(key, int) else (f".{key}" if base else key)
            self._path, self._up = base + step, None
        return self._path

    def error(self, message: str, token: str | None = None, offset: int = 0) -> NotationError:
        path = self.path
        if path is not None:
            message = f"{path}: {message}"
        col = None if self.column is None else self.column + offset
        return NotationError(message, line=self.line, column=col, token=token, source=self.source)

    def shifted(self, offset: int) -> _At:
        if self.column is None:
            return self
        return _At(self.source, self.line, self.column + offset, self.path)

    def child(self, key: str | int) -> _At:
        at = _At(self.source, self.line, self.column)
        at._up, at._key = self, key
        return at


@dataclass(slots=True)
class _V:
    """One key's value: ``text`` for scalars, ``items`` for lists, ``groups`` for hands."""

    at: _At
    text: str = ""
    items: list[tuple[str, _At]] | None = None
    groups: list[list[tuple[str, _At]]] | None = None


# ----------------------------------------------------------------------------
# Cells
# ----------------------------------------------------------------------------


@dataclass(slots=True)
class _CellSpec:
    kind: str  # "start" | "card" | "gap"
    at: _At
    token: str
    pair: tuple[SectorType, SectorType] | None = None  # None: start card, or unknown gap
    up: Side = Side.FRONT
    card_id: int | None = None  # explicit '#id'
    gap_start: bool = False  # '-S': a gap that held a start card
    sample: tuple[bool, int | None] | None = None  # (virus, explicit id)
    seen: bool = False
    ship: bool = False
    pod: bool = False


MAX_DIGITS = 6  # also in the regular expressions of cells and row labels
"""The longest number the notations read: no count or index of the game comes
near it, and a longer one is refused before Python converts it (a number of
more than 4,300 digits would not convert at all)."""

_INT_RE = re.compile(r"-?[0-9]+")  # ASCII digits only: '٣' is not 3


def _parse_int(
    text: str, at: _At, what: str, *, lo: int | None = None, hi: int | None = None, rule: str = ""
) -> int:
    if not _INT_RE.fullmatch(text):
        raise at.error(f"{what} must be a whole number (digits 0-9)", text[:40])
    why = f" {rule}" if rule else ""
    if len(text.lstrip("-")) > MAX_DIGITS:
        rng = "" if hi is None else f"; it is {lo} to {hi}" if lo is not None else f"; at most {hi}"
        raise at.error(f"{what} is too large ({len(text.lstrip('-'))} digits{rng}){why}", text[:40])
    n = int(text)
    if lo is not None and n < lo:
        more = f" and at most {hi}" if hi is not None else ""
        raise at.error(f"{what} must be {lo} or more{more}, got {n}{why}", text)
    if hi is not None and n > hi:
        rng = f"at most {hi}" if lo is None else (f"{lo} to {hi}" if lo != hi else f"{lo}")
        raise at.error(f"{what} must be {rng}, got {n}{why}", text)
    return n


# What a well-formed cell token says, by (token, state): a grid repeats few
# tokens, and reading one letter by letter is most of a parse. Bounded, since
# ids make the tokens of odd input unbounded in number.
_CELL_CACHE: dict[tuple[str, bool], tuple[Any, ...]] = {}
_CELL_CACHE_SIZE = 4096


def _parse_cell(tok: str, at: _At, *, state: bool) -> _CellSpec:
    hit = _CELL_CACHE.get((tok, state))
    if hit is not None:
        return _CellSpec(hit[0], at, tok, *hit[1:])
    spec = _read_cell(tok, at, state=state)  # raises on bad form: nothing cached
    if len(_CELL_CACHE) >= _CELL_CACHE_SIZE:
        _CELL_CACHE.clear()
    _CELL_CACHE[tok, state] = (
        spec.kind, spec.pair, spec.up, spec.card_id, spec.gap_start, spec.sample,
        spec.seen, spec.ship, spec.pod,
    )  # fmt: skip
    return spec


def _read_cell(tok: str, at: _At, *, state: bool) -> _CellSpec:
    spec = _CellSpec("card", at, tok)
    i = 0
    if tok.startswith("S"):
        spec.kind, i = "start", 1
    elif tok.startswith("-"):
        spec.kind, i = "gap", 1
        if tok[1:2] == "S":
            spec.gap_start, i = True, 2
        elif len(tok) > 1 and tok[1] != "#":
            pair = tok[1:3]
            if len(pair) < 2 or pair[0].upper() not in _LETTERS or pair[1].upper() not in _LETTERS:
                raise at.error(
                    "a gap is '-' followed by the card it held, front then back (e.g. '-Ea')",
                    tok,
                )
            if not (pair[0].isupper() and pair[1].islower()):
                raise at.error(
                    "a gap's card is written front in upper case, back in lower case (e.g. '-Ea')",
                    tok,
                    1,
                )
            spec.pair = (SectorType(pair[0]), SectorType(pair[1].upper()))
            i = 3
    else:
        pair = tok[:2]
        for k, ch in enumerate(pair):
            if ch.upper() not in _LETTERS:
                raise at.error(
                    f"unknown cell {ch!r}: a card is two of E, B, A, O (front then back), "
                    "'S' a start card, '-' a gap",
                    tok,
                    k,
                )
        if len(pair) < 2:
            raise at.error("a card is two letters, front then back (e.g. 'Ae')", tok)
        if pair[0].isupper() == pair[1].isupper():
            raise at.error(
                "exactly one side is face up: write it in upper case and the other in "
                "lower case (e.g. 'Ae' front up, 'aE' back up)",
                tok,
            )
        spec.pair = (SectorType(pair[0].upper()), SectorType(pair[1].upper()))
        spec.up = Side.FRONT if pair[0].isupper() else Side.BACK
        i = 2
    if tok[i : i + 1] == "#":
        if spec.kind == "gap" and spec.pair is None and not spec.gap_start:
            raise at.error("a gap's card id follows its card letters (e.g. '-Ea#17')", tok, i)
        m = re.match(r"#(-?[0-9]{1,6})(?![0-9])", tok[i:])
        if not m:
            raise at.error("'#' is followed by a card id (a whole number)", tok, i)
        spec.card_id = int(m.group(1))
        i += m.end()
    seen_suffix: set[str] = set()
    while i < len(tok):
        ch = tok[i]
        if spec.kind == "gap":
            if ch == "*":
                raise at.error("a sample cannot lie on a gap ([D8])", tok, i)
            raise at.error("a gap carries nothing: no sample, '!', '@' or '&'", tok, i)
        key = "*" if ch == "*" else ch
        if key in seen_suffix:
            what = "a card carries at most one sample" if ch == "*" else f"{ch!r} given twice"
            raise at.error(what, tok, i)
        seen_suffix.add(key)
        if ch == "*":
            m = re.match(r"\*([vr])([0-9]{0,6})(?![0-9])", tok[i:])
            if not m:
                raise at.error("a sample is '*v' (virus) or '*r' (rock)", tok, i)
            spec.sample = (m.group(1) == "v", int(m.group(2)) if m.group(2) else None)
            i += m.end()
            continue
        if ch in "!@&":
            if not state:
                what = {"!": "'!' (seen)", "@": "'@' (the ship)", "&": "'&' (the pod)"}[ch]
                raise at.error(f"{what} belongs to a state, not a setup", tok, i)
            if ch == "!":
                spec.seen = True
            elif ch == "@":
                spec.ship = True
            else:
                spec.pod = True
            i += 1
            continue
        raise at.error(
            f"unexpected {ch!r} in a cell: suffixes are '*v', '*r', '!', '@', '&'", tok, i
        )
    return spec


def _index_set(sectors: SectorCardSet) -> tuple[dict, set[int], dict[int, SectorCard]]:
    by_pair: dict[tuple[SectorType, SectorType], list[int]] = {}
    for c in sectors.cards:
        by_pair.setdefault((c.front, c.back), []).append(c.id)
    # The set's own card objects, reused where a cell names one of them.
    cards = {c.id: c for c in sectors.cards}
    for c in START_CARDS:
        cards.setdefault(c.id, c)
    return by_pair, {c.id for c in sectors.cards}, cards


# A card set's index by the set's identity (the entry keeps the set alive, so
# the id is not reused); a game reads many states of one set.
_SET_INDEX: dict[int, tuple[SectorCardSet, dict, set[int], dict[int, SectorCard]]] = {}


class _Ids:
    """Card-id assignment shared by the parser and the formatter, so that an
    explicit ``#id`` is written exactly where the implicit rule would differ."""

    def __init__(self, sectors: SectorCardSet):
        index = _SET_INDEX.get(id(sectors))
        if index is None or index[0] is not sectors:
            index = (sectors, *_index_set(sectors))
            if len(_SET_INDEX) >= 64:
                _SET_INDEX.clear()
            _SET_INDEX[id(sectors)] = index
        _, self.by_pair, self.set_ids, self.cards = index
        self.taken: set[int] = set()

    def card(self, cid: int, front: SectorType, back: SectorType, start: bool) -> SectorCard:
        c = self.cards.get(cid)
        if c is not None and c.front is front and c.back is back and c.start is start:
            return c
        return SectorCard(cid, front, back, start=start)

    def implicit(self, start: bool, pair: tuple[SectorType, SectorType] | None) -> int:
        # [D4] start cards are -1, -2; more of them (an invalid grid) get -3, -4...
        if start:
            n = -1
            while n in self.taken:
                n -= 1
            return n
        for cid in self.by_pair.get(pair, ()):  # type: ignore[arg-type]
            if cid not in self.taken:
                return cid
        # More cards of a pair than the set has: an id outside the set, so that
        # validation reports the mismatch rather than the parser.
        n = 1001
        while n in self.taken or n in self.set_ids:
            n += 1
        return n


_E = SectorType.EMPTY


def canonical_ids(grid: Grid, sectors: SectorCardSet) -> Grid:
    """The same grid with card and sample ids given by the notation's implicit
    rule (reading order, row 7 first), so that its text needs no ``#id`` and no
    sample numbers. Which physical card of a pair sits where changes nothing in
    the game; a generator calls this before it hands a setup out."""
    ids = _Ids(sectors)
    next_sample = 1
    rows: list[tuple[Cell, ...]] = []
    for row in reversed(grid):
        cells: list[Cell] = []
        for cell in row:
            card = cell.card
            if card is None:
                cells.append(cell)
                continue
            cid = ids.implicit(card.start, (card.front, card.back))
            ids.taken.add(cid)
            card = SectorCard(cid, card.front, card.back, start=card.start)
            if isinstance(cell, Gap):
                cells.append(Gap(card))
                continue
            sample = cell.sample
            if sample is not None:
                sample = Sample(next_sample, sample.virus)
                next_sample += 1
            cells.append(Slot(card, cell.up, sample))
        rows.append(tuple(cells))
    return tuple(reversed(rows))


def _build_grid(
    specs: list[list[_CellSpec]], sectors: SectorCardSet
) -> tuple[Grid, set[int], list[tuple[Pos, _CellSpec]], list[tuple[Pos, _CellSpec]]]:
    """Cells in reading order (row 7 first) -> grid (row 1 first), seen ids, ship and
    pod marks."""
    ids = _Ids(sectors)
    prev_sample = 0
    seen: set[int] = set()
    ships: list[tuple[Pos, _CellSpec]] = []
    pods: list[tuple[Pos, _CellSpec]] = []
    rows: list[tuple[Cell, ...]] = []
    for r_index, row in enumerate(specs):
        r = ROWS - r_index
        cells: list[Cell] = []
        for c_index, spec in enumerate(row):
            pos = (r, c_index + 1)
            if spec.kind == "gap" and spec.pair is None and not spec.gap_start:
                cells.append(Gap(None))
                continue
            start = spec.kind == "start" or spec.gap_start
            pair = (_E, _E) if start else spec.pair
            assert pair is not None
            cid = spec.card_id if spec.card_id is not None else ids.implicit(start, pair)
            ids.taken.add(cid)
            card = ids.card(cid, pair[0], pair[1], start)
            if spec.kind == "gap":
                cells.append(Gap(card))
                continue
            sample = None
            if spec.sample is not None:
                virus, sid = spec.sample
                sid = prev_sample + 1 if sid is None else sid
                prev_sample = sid
                sample = Sample(sid, virus)
            cells.append(Slot(card, spec.up, sample))
            if spec.seen:
                seen.add(cid)
            if spec.ship:
                ships.append((pos, spec))
            if spec.pod:
                pods.append((pos, spec))
        rows.append(tuple(cells))
    grid = tuple(reversed(rows))
    return grid, seen, ships, pods


def _grid_tokens(
    grid: Grid,
    sectors: SectorCardSet,
    seen: frozenset[int] = frozenset(),
    ship: Pos | None = None,
    pod: Pos | None = None,
) -> list[list[str]]:
    """Cell tokens in reading order (row 7 first); the inverse of ``_build_grid``."""
    ids = _Ids(sectors)
    prev_sample = 0
    out: list[list[str]] = []
    for r in range(ROWS, 0, -1):
        row: list[str] = []
        for c in range(1, COLS + 1):
            cell = grid[r - 1][c - 1]
            card = cell.card
            if card is None:
                row.append("-")
                continue
            pair = (_E, _E) if card.start else (card.front, card.back)
            if card.start:
                letters = "S"
            elif isinstance(cell, Gap) or cell.up is Side.FRONT:
                letters = card.front.value + card.back.value.lower()
            else:
                letters = card.front.value.lower() + card.back.value
            tok = ("-" if isinstance(cell, Gap) else "") + letters
            if card.id != ids.implicit(card.start, pair):
                tok += f"#{card.id}"
            ids.taken.add(card.id)
            if isinstance(cell, Slot):
                if cell.sample is not None:
                    s = cell.sample
                    tok += "*" + s.letter + ("" if s.id == prev_sample + 1 else str(s.id))
                    prev_sample = s.id
                if card.id in seen:
                    tok += "!"
                if ship == (r, c):
                    tok += "@"
                if pod == (r, c):
                    tok += "&"
            row.append(tok)
        out.append(row)
    return out


# ----------------------------------------------------------------------------
# Decoding input
# ----------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _decode(data: str | bytes, source: str) -> str:
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            prefix = data[: e.start].decode("utf-8", errors="replace")
            line, col = _line_col(prefix, len(prefix))
            raise NotationError(
                "not UTF-8 text (binary data?)",
                line=line,
                column=col,
                token=repr(data[e.start : e.end]),
                source=source,
            ) from None
    else:
        text = data
    text = text.removeprefix("\ufeff")
    m = _CONTROL.search(text)
    if m:
        line, col = _line_col(text, m.start())
        raise NotationError(
            f"binary data: control character U+{ord(m.group()):04X}",
            line=line,
            column=col,
            token=m.group(),
            source=source,
        )
    return text


# ----------------------------------------------------------------------------
# Text reading
# ----------------------------------------------------------------------------

_KEY_RE = re.compile(r"(\s*)([a-z][a-z0-9-]*)(\s*):(.*)")
_LABEL_RE = re.compile(r"(\s*)([0-9]{1,6})\s*:")  # 6: MAX_DIGITS


def _words(text: str) -> list[tuple[str, int]]:
    """The words of ``text`` (runs of non-space, as ``\\S+``) with their offsets.
    ``str.split`` and ``find``: several times faster than a regular expression."""
    out = []
    i = 0
    find = text.find
    for w in text.split():
        i = find(w, i)
        out.append((w, i))
        i += len(w)
    return out


def _tokens(text: str, at: _At) -> list[tuple[str, _At]]:
    if at.column is None:
        return [(w, at) for w in text.split()]
    src, line, col, path = at.source, at.line, at.column, at.path
    return [(w, _At(src, line, col + i, path)) for w, i in _words(text)]


@dataclass
class _Doc:
    kind: str  # "setup" | "state"
    grid: list[list[tuple[str, _At]]]  # row 7 first
    values: dict[str, _V]
    end: _At  # where a missing key is reported


def _read_text(text: str, source: str, want: str) -> _Doc:
    lines = [ln.removesuffix("\r") for ln in text.split("\n")]
    meaningful = [
        (n, ln) for n, ln in enumerate(lines, 1) if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not meaningful:
        raise NotationError(
            f"empty input: expected the header line '{SETUP_HEADER}' or '{STATE_HEADER}'",
            line=1,
            column=1,
            source=source,
        )
    last_n, last_ln = meaningful[-1]
    end = _At(source, last_n, len(last_ln) + 1)
    n, ln = meaningful[0]
    head = " ".join(ln.split())
    hcol = len(ln) - len(ln.lstrip()) + 1
    if head not in (SETUP_HEADER, STATE_HEADER):
        raise NotationError(
            f"expected the header line '{SETUP_HEADER}' or '{STATE_HEADER}'",
            line=n,
            column=hcol,
            token=ln.strip(),
            source=source,
        )
    kind = "setup" if head == SETUP_HEADER else "state"
    if kind != want:
        other = "parse_setup" if kind == "setup" else "parse_state"
        raise NotationError(
            f"this is a {kind}, not a {want} (use {other} or load)",
            line=n,
            column=hcol,
            token=ln.strip(),
            source=source,
        )
    grid: list[list[tuple[str, _At]]] = []
    values: dict[str, _V] = {}
    first_line: dict[str, int] = {}
    allowed = _SETUP_KEYS if kind == "setup" else _STATE_KEYS
    in_grid = True
    for n, ln in meaningful[1:]:
        at = _At(source, n, 1)
        km = _KEY_RE.fullmatch(ln)
        if km is None:
            if not in_grid:
                raise at.error(
                    "expected 'key: value' (the grid comes right after the header)",
                    ln.strip(),
                    len(ln) - len(ln.lstrip()),
                )
            if len(grid) == ROWS:
                raise at.error(
                    f"the grid has more than {ROWS} rows", ln.strip(), len(ln) - len(ln.lstrip())
                )
            grid.append(_read_row(ln, at, ROWS - len(grid)))
            continue
        if in_grid:
            in_grid = False
            if len(grid) != ROWS:
                raise at.error(
                    f"the grid has {len(grid)} rows, expected {ROWS} (row 7 first, row 1 last)",
                    ln.strip(),
                    len(ln) - len(ln.lstrip()),
                )
        key = km.group(2)
        kcol = len(km.group(1))
        if key not in allowed:
            hint = ""
            if key in _STATE_KEYS and kind == "setup":
                hint = " (it belongs to a state)"
            raise at.error(f"unknown key {key!r} in a {kind}{hint}", key, kcol)
        if key in values:
            raise at.error(f"duplicate key {key!r} (first on line {first_line[key]})", key, kcol)
        first_line[key] = n
        raw = km.group(4)
        vstart = km.end(3) + 1
        vat = at.shifted(vstart + len(raw) - len(raw.lstrip()))
        values[key] = _text_value(key, raw.strip(), vat, at.shifted(vstart))
    if in_grid:
        raise end.error(
            f"the grid has {len(grid)} rows, expected {ROWS}, and no 'key: value' lines follow"
            if len(grid) != ROWS
            else "expected 'key: value' lines after the grid"
        )
    return _Doc(kind, grid, values, end)


def _read_row(ln: str, at: _At, expected: int) -> list[tuple[str, _At]]:
    body_start = 0
    lm = _LABEL_RE.match(ln)
    if lm:
        label = int(lm.group(2))
        if label != expected:
            raise at.error(
                f"row label {label} where row {expected} was expected (row 7 first)",
                lm.group(2),
                len(lm.group(1)),
            )
        body_start = lm.end()
    toks = _tokens(ln[body_start:], at.shifted(body_start))
    if len(toks) != COLS:
        if len(toks) > COLS:
            tok, tat = toks[COLS]
            raise tat.error(f"row {expected} has {len(toks)} cells, expected {COLS}", tok)
        col0 = toks[0][1] if toks else at.shifted(len(ln))
        raise col0.error(
            f"row {expected} has {len(toks)} cells, expected {COLS}", ln[body_start:].strip()
        )
    return toks


def _split_list(raw: str, at: _At) -> list[tuple[str, _At]]:
    toks = _tokens(raw, at)
    if len(toks) == 1 and toks[0][0] == "-":
        return []
    for tok, tat in toks:
        if tok == "-":
            raise tat.error("'-' stands alone for an empty list", tok)
    return toks


def _split_offsets(text: str, sep: str) -> list[tuple[str, int]]:
    """``text.split(sep)`` with each piece's offset in ``text``."""
    out, off = [], 0
    for piece in text.split(sep):
        out.append((piece, off))
        off += len(piece) + len(sep)
    return out


_HAND_RE = re.compile(r"\||[^\s|]+")


def _text_value(key: str, text: str, vat: _At, raw_at: _At) -> _V:
    v = _V(vat, text)
    if not text:
        raise vat.error(f"missing value for {key!r}", "")
    if key in ("deck", "ranking", "discard"):
        v.items = _split_list(text, vat)
    elif key == "options":
        if text == "none":
            v.items = []
        else:
            v.items = []
            for piece, off in _split_offsets(text, ","):
                name = piece.strip()
                nat = vat.shifted(off + len(piece) - len(piece.lstrip()))
                if not name:
                    raise nat.error("empty option name in the comma list", text)
                v.items.append((name, nat))
    elif key == "hands":
        groups: list[list[tuple[str, _At]]] = [[]]
        for m in _HAND_RE.finditer(text):
            if m.group() == "|":
                groups.append([])
            else:
                groups[-1].append((m.group(), vat.shifted(m.start())))
        v.groups = []
        for g in groups:
            if not g:
                raise vat.error("an empty hand is written '-'", text)
            if len(g) == 1 and g[0][0] == "-":
                v.groups.append([])
                continue
            for tok, tat in g:
                if tok == "-":
                    raise tat.error("'-' stands alone for an empty hand", tok)
            v.groups.append(g)
    return v


# ----------------------------------------------------------------------------
# Assembling setups and states (shared by text and JSON)
# ----------------------------------------------------------------------------


def _single(v: _V, what: str) -> str:
    toks = _tokens(v.text, v.at)
    if len(toks) != 1:
        raise v.at.error(f"{what} is a single word", v.text)
    return toks[0][0]


def _options(values: dict[str, _V]) -> RuleOptions:
    p = values["players"]
    players = _parse_int(_single(p, "players"), p.at, "players", lo=1, hi=4, rule="(§2)")
    d = values["difficulty"]
    word = _single(d, "difficulty")
    try:
        difficulty = Difficulty(word)
    except ValueError:
        raise d.at.error("difficulty is introductory, standard or advanced", word) from None
    flags: list[str] = []
    for name, nat in values["options"].items or []:
        if name not in FLAG_NAMES:
            raise nat.error(f"unknown rule option (known: {', '.join(FLAG_NAMES)}, or none)", name)
        if name in flags:
            raise nat.error("rule option listed twice", name)
        flags.append(name)
    return RuleOptions(players, difficulty).with_flags(flags)


def _card_set(name: str, at: _At | None, given, default, what: str):
    """The card set a text names: the one passed in (its name must match), or the
    built-in default. ``at`` None: the text leaves the key out, any set passed in
    is taken. Shared with the observation notation."""
    if given is not None:
        if at is not None and given.name != name:
            raise at.error(
                f"the text names {what} card set {name!r} but the set passed is {given.name!r}",
                name,
            )
        return given
    if name == "default":
        return default()
    assert at is not None
    raise at.error(f"{what} card set is not built in: pass it as {what}_cards=", name)


def _require(values: dict[str, _V], keys: tuple[str, ...], end: _At) -> None:
    for k in keys:
        if k not in values:
            raise end.error(f"missing required key {k!r}")


def _ids(items: list[tuple[str, _At]]) -> tuple[str, ...]:
    return tuple(tok for tok, _ in items)


def _grid_specs(doc: _Doc, state: bool) -> list[list[_CellSpec]]:
    return [[_parse_cell(tok, at, state=state) for tok, at in row] for row in doc.grid]


def _assemble_setup(
    doc: _Doc, sector_cards: SectorCardSet | None, command_cards: CommandCardSet | None
) -> Setup:
    v = doc.values
    _require(v, _SETUP_REQUIRED, doc.end)
    options = _options(v)
    sectors = _card_set(
        v["cards"].text, v["cards"].at, sector_cards, SectorCardSet.default, "sector"
    )
    commands = _card_set(
        v["commands"].text, v["commands"].at, command_cards, CommandCardSet.default, "command"
    )
    grid, _, _, _ = _build_grid(_grid_specs(doc, state=False), sectors)
    deal = None
    if ("deck" in v) != ("ranking" in v):
        present = "deck" if "deck" in v else "ranking"
        raise v[present].at.error("'deck' and 'ranking' go together: give both or neither", present)
    if "deck" in v:
        deal = Deal(_ids(v["deck"].items or []), _ids(v["ranking"].items or []))
    sid = v["id"].text if "id" in v else None
    return Setup(grid, options, sectors, commands, deal, sid)


def _parse_pos(v: _V) -> Pos:
    word = _single(v, "a position")
    if word == "dock":
        return DOCK
    if word == "earth":
        return EARTH
    m = re.fullmatch(r"(-?[0-9]{1,3}),(-?[0-9]{1,3})", word)
    if not m:
        raise v.at.error("a position is dock, earth or row,col (e.g. 3,2)", word)
    return (int(m.group(1)), int(m.group(2)))


def _marked_pos(
    v: _V | None, marks: list[tuple[Pos, _CellSpec]], grid: Grid, what: str, sym: str, end: _At
) -> Pos | None:
    if len(marks) > 1:
        spec = marks[1][1]
        raise spec.at.error(f"the {what} is marked twice in the grid", spec.token)
    if marks and v is not None:
        raise v.at.error(f"the {what} is already marked with {sym!r} in the grid", v.text)
    if marks:
        return marks[0][0]
    if v is None:
        return None
    pos = _parse_pos(v)
    if on_grid(pos) and isinstance(grid[pos[0] - 1][pos[1] - 1], Slot):
        raise v.at.error(
            f"the {what} stands on a card at {pos[0]},{pos[1]}: mark it with {sym!r} in the grid",
            v.text,
        )
    return pos


def _discard_entry(tok: str, ids: set[str]) -> DiscardEntry:
    # A trailing arrow is the Fly card's orientation, unless the whole token is
    # itself a card id of the set.
    if len(tok) > 1 and tok[-1] in _ARROW_OF and tok not in ids:
        return DiscardEntry(tok[:-1], _ARROW_OF[tok[-1]])
    return DiscardEntry(tok)


def _parse_outcome(v: _V) -> Outcome:
    m = re.fullmatch(r"(ongoing|won|lost)(?:\s*:\s*(.*))?", v.text, re.S)
    if not m:
        raise v.at.error("outcome is 'ongoing', 'won' or 'lost: reason'", v.text)
    return Outcome(Status(m.group(1)), (m.group(2) or "").strip())


def _assemble_state(
    doc: _Doc, sector_cards: SectorCardSet | None, command_cards: CommandCardSet | None
) -> GameState:
    v = doc.values
    _require(v, _STATE_REQUIRED, doc.end)
    options = _options(v)
    sectors = _card_set(
        v["cards"].text, v["cards"].at, sector_cards, SectorCardSet.default, "sector"
    )
    commands = _card_set(
        v["commands"].text, v["commands"].at, command_cards, CommandCardSet.default, "command"
    )
    grid, seen, ships, pods = _build_grid(_grid_specs(doc, state=True), sectors)
    ship = _marked_pos(v.get("ship"), ships, grid, "ship", "@", doc.end)
    if ship is None:
        raise doc.end.error("missing required key 'ship' (or an '@' in the grid)")
    pod = _marked_pos(v.get("pod"), pods, grid, "pod", "&", doc.end)
    def number(key: str, lo: int, hi: int, rule: str) -> int:
        return _parse_int(_single(v[key], key), v[key].at, key, lo=lo, hi=hi, rule=rule)

    # The ranges the rules allow: [D9] shields, the 3 virus and 2 rock tokens
    # (§6), the players; validation checks how the numbers fit together.
    tokens = f"[step 9] ({TOTAL_VIRUS} virus and {TOTAL_ROCK} rock samples)"
    turn = number("turn", 1, MAX_TURN, "[turn]")
    active = number("active", 1, options.players, f"[active] (players: {options.players})")
    shields = number("shields", 0, MAX_SHIELDS, "[D9]")
    held = number("held", 0, TOTAL_VIRUS, tokens)
    rocks = number("rocks", 0, TOTAL_ROCK, tokens) if "rocks" in v else 0
    lost = number("lost", 0, TOTAL_VIRUS + TOTAL_ROCK, tokens) if "lost" in v else 0
    pass_word = _single(v["pass"], "pass")
    if pass_word not in ("1", "2"):
        raise v["pass"].at.error("pass is 1 or 2", pass_word)
    hands = tuple(_ids(g) for g in v["hands"].groups or [])
    command_ids = {c.id for c in commands.cards}
    discard = tuple(_discard_entry(t, command_ids) for t, _ in v["discard"].items or [])
    sid = v["id"].text if "id" in v else None
    setup = Setup(grid, options, sectors, commands, None, sid)
    return GameState(
        setup=setup,
        grid=grid,
        hands=hands,
        deck=_ids(v["deck"].items or []),
        ranking=_ids(v["ranking"].items or []),
        discard=discard,
        ship=ship,
        pod=pod,
        shields=shields,
        held=held,
        rocks_found=rocks,
        lost_unseen=lost,
        second_pass=pass_word == "2",
        active=active - 1,
        turn=turn,
        seen=frozenset(seen),
        outcome=_parse_outcome(v["outcome"]),
    )


# ----------------------------------------------------------------------------
# Text API
# ----------------------------------------------------------------------------


def parse_setup(
    text: str | bytes,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    source: str = "<text>",
) -> Setup:
    """Parse the text form of a setup. Raises ``NotationError`` on bad form; rules
    are checked by ``validation.validate``."""
    doc = _read_text(_decode(text, source), source, "setup")
    return _assemble_setup(doc, sector_cards, command_cards)


def parse_state(
    text: str | bytes,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    source: str = "<text>",
) -> GameState:
    """Parse the text form of a game state. ``state.setup`` is rebuilt from the
    state's keys and its current grid (see ``normalize_state``)."""
    doc = _read_text(_decode(text, source), source, "state")
    return _assemble_state(doc, sector_cards, command_cards)


def _grid_lines(tokens: list[list[str]]) -> list[str]:
    # Columns padded to a common width so the grid reads as a grid.
    widths = [max(len(row[c]) for row in tokens) for c in range(COLS)]
    out = []
    for i, row in enumerate(tokens):
        cells = [t.ljust(widths[c]) for c, t in enumerate(row)]
        out.append(f"{ROWS - i}: " + " ".join(cells).rstrip())
    return out


def _check_name(name: str, what: str) -> str:
    if not name or name != name.strip() or "\n" in name:
        raise ValueError(f"{what} {name!r} cannot be written (empty, outer spaces or a newline)")
    return name


def _check_id(v: _V) -> None:
    """A setup id the formatters can write back (``_check_name``)."""
    try:
        _check_name(v.text, "setup id")
    except ValueError as e:
        raise v.at.error(str(e).split(" cannot")[0] + " cannot be written back: "
                         "no empty id, outer spaces or line breaks", v.text[:40]) from None


def _common_lines(setup: Setup) -> list[str]:
    o = setup.options
    return [
        f"players: {o.players}",
        f"difficulty: {o.difficulty.value}",
        "options: " + (", ".join(o.flags()) or "none"),
        f"cards: {_check_name(setup.sector_cards.name, 'card set name')}",
        f"commands: {_check_name(setup.command_cards.name, 'command set name')}",
    ]


def _list_text(ids: tuple[str, ...] | list[str]) -> str:
    return " ".join(ids) if ids else "-"


def format_setup(setup: Setup) -> str:
    """The canonical text form of a setup (ends with a newline)."""
    lines = [SETUP_HEADER] + _grid_lines(_grid_tokens(setup.grid, setup.sector_cards))
    lines += _common_lines(setup)
    if setup.deal is not None:
        lines.append(f"deck: {_list_text(setup.deal.first_deck)}")
        lines.append(f"ranking: {_list_text(setup.deal.ranking)}")
    if setup.id is not None:
        lines.append(f"id: {_check_name(setup.id, 'setup id')}")
    return "\n".join(lines) + "\n"


def _on_card(grid: Grid, pos: Pos | None) -> bool:
    return pos is not None and on_grid(pos) and isinstance(grid[pos[0] - 1][pos[1] - 1], Slot)


def _state_parts(state: GameState) -> tuple[list[list[str]], dict[str, Any]]:
    """Grid tokens and the state keys' values as text, shared by text and JSON."""
    grid = state.grid
    on_slots = {cell.card.id for row in grid for cell in row if isinstance(cell, Slot)}
    lost = sorted(set(state.seen) - on_slots)
    if lost:
        raise ValueError(f"seen cards {lost} are not on the grid: the notation cannot record them")
    ship = state.ship if _on_card(grid, state.ship) else None
    pod = state.pod if _on_card(grid, state.pod) else None
    tokens = _grid_tokens(grid, state.setup.sector_cards, state.seen, ship, pod)
    discard = []
    for e in state.discard:
        discard.append(e.card + (e.arrow.arrow if e.arrow is not None else ""))
    parts: dict[str, Any] = {
        "turn": state.turn,
        "active": state.active + 1,
        "ship": None if ship is not None else format_pos(state.ship),
        "pod": None if (pod is not None or state.pod is None) else format_pos(state.pod),
        "shields": state.shields,
        "held": state.held,
        "rocks": state.rocks_found,
        "lost": state.lost_unseen,
        "hands": [list(h) for h in state.hands],
        "deck": list(state.deck),
        "discard": discard,
        "ranking": list(state.ranking),
        "pass": 2 if state.second_pass else 1,
        "outcome": str(state.outcome),
    }
    return tokens, parts


def format_state(state: GameState) -> str:
    """The canonical text form of a game state (ends with a newline)."""
    tokens, p = _state_parts(state)
    lines = [STATE_HEADER] + _grid_lines(tokens) + _common_lines(state.setup)
    if state.setup.id is not None:
        lines.append(f"id: {_check_name(state.setup.id, 'setup id')}")
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


def normalize_state(state: GameState) -> GameState:
    """The state as a parsed one carries it: ``setup`` rebuilt from the state's
    options, card sets and id with the *current* grid and no deal. Then
    ``parse_state(format_state(s)) == normalize_state(s)`` for every state."""
    s = state.setup
    return replace(
        state, setup=Setup(state.grid, s.options, s.sector_cards, s.command_cards, None, s.id)
    )


# ----------------------------------------------------------------------------
# JSON
# ----------------------------------------------------------------------------


def setup_to_json(setup: Setup) -> dict:
    """The JSON form of a setup (a dict ready for ``json.dumps``)."""
    o = setup.options
    return {
        "format": SETUP_FORMAT,
        "version": JSON_VERSION,
        "grid": _grid_tokens(setup.grid, setup.sector_cards),
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
    tokens, parts = _state_parts(state)
    base = setup_to_json(state.setup)
    out = {
        "format": STATE_FORMAT,
        "version": JSON_VERSION,
        "grid": tokens,
        "options": base["options"],
        "cards": base["cards"],
        "commands": base["commands"],
        "id": base["id"],
    }
    out.update(parts)
    return out


_SETUP_JSON_KEYS = ("format", "version", "grid", "options", "cards", "commands", "deal", "id")
_STATE_JSON_KEYS = (
    "format", "version", "grid", "options", "cards", "commands", "id",
    "turn", "active", "ship", "pod", "shields", "held",
    "hands", "deck", "discard", "ranking", "pass", "outcome",
)  # fmt: skip
_STATE_JSON_OPTIONAL = ("rocks", "lost")  # 0 when left out (files of earlier versions)


def _no_dup_pairs(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, val in pairs:
        if k in out:
            raise NotationError(f"duplicate JSON key {k!r}", token=k)
        out[k] = val
    return out


def _json_load(text: str | bytes, source: str) -> Any:
    doc = _decode(text, source)
    try:
        return json.loads(doc, object_pairs_hook=_no_dup_pairs)
    except json.JSONDecodeError as e:
        raise NotationError(
            f"malformed JSON: {e.msg}",
            line=e.lineno,
            column=e.colno,
            token=doc[e.pos : e.pos + 10],
            source=source,
        ) from None
    except (ValueError, RecursionError) as e:  # a number of over 4,300 digits, deep nesting
        why = "too deeply nested" if isinstance(e, RecursionError) else str(e).split(";")[0]
        raise NotationError(f"unreadable JSON: {why}", source=source) from None
    except NotationError as e:
        raise NotationError(e.reason, token=e.token, source=source) from None


def _jtype(val: Any, at: _At, kind: type | tuple, what: str) -> Any:
    ok = isinstance(val, kind) and not (isinstance(val, bool) and kind is int)
    if not ok:
        raise at.error(f"expected {what}", json.dumps(val)[:40])
    return val


def _jint(val: Any, at: _At) -> str:
    """A JSON whole number as the text notation writes it (checked there)."""
    _jtype(val, at, int, "a whole number")
    if abs(val) >= 10**MAX_DIGITS:
        raise at.error("too large a number", str(val)[:40] if abs(val) < 10**1000 else "...")
    return str(val)


_JWORD_RE = re.compile(r"[^\s|]+")


def _jword(val: Any, at: _At, dash: bool) -> str:
    """A list item (a card id, a cell): one word the text notation can write back
    (a lone '-' is an empty list there, except in the grid: an unknown gap)."""
    _jtype(val, at, str, "a string")
    if not _JWORD_RE.fullmatch(val) or (val == "-" and not dash):
        raise at.error("expected one word (no spaces, no '|', not a lone '-')", val[:40])
    return val


def _jlist(
    val: Any, at: _At, what: str = "a list of strings", *, dash: bool = False
) -> list[tuple[str, _At]]:
    _jtype(val, at, list, what)
    out = []
    for i, x in enumerate(val):
        xat = at.child(i)
        out.append((_jword(x, xat, dash), xat))
    return out


def _read_json(obj: Any, source: str, want: str) -> _Doc:
    root = _At(source, path="")
    if isinstance(obj, (str, bytes)):
        obj = _json_load(obj, source)
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
    gat = root.child("grid")
    rows = _jtype(obj["grid"], gat, list, "a list of 7 rows")
    if len(rows) != ROWS:
        raise gat.error(f"the grid has {len(rows)} rows, expected {ROWS} (row 7 first)")
    grid = []
    for i, row in enumerate(rows):
        items = _jlist(row, gat.child(i), "a list of 5 cell strings", dash=True)
        if len(items) != COLS:
            raise gat.child(i).error(f"row {ROWS - i} has {len(items)} cells, expected {COLS}")
        grid.append(items)
    values: dict[str, _V] = {}
    oat = root.child("options")
    opts = _jtype(obj["options"], oat, dict, "an object {players, difficulty, flags}")
    for k in opts:
        if k not in ("players", "difficulty", "flags"):
            raise oat.child(k).error("unknown key in options", k)
    for k in ("players", "difficulty", "flags"):
        if k not in opts:
            raise oat.error(f"missing required key {k!r}")
    values["players"] = _V(oat.child("players"), _jint(opts["players"], oat.child("players")))
    values["difficulty"] = _V(
        oat.child("difficulty"),
        _jtype(opts["difficulty"], oat.child("difficulty"), str, "a string"),
    )
    values["options"] = _V(oat.child("flags"), items=_jlist(opts["flags"], oat.child("flags")))
    for k in ("cards", "commands"):
        values[k] = _V(root.child(k), _jtype(obj[k], root.child(k), str, "a card set name"))
    if obj["id"] is not None:
        values["id"] = _V(
            root.child("id"), _jtype(obj["id"], root.child("id"), str, "a string or null")
        )
        _check_id(values["id"])
    if kind == "setup":
        dat = root.child("deal")
        if obj["deal"] is not None:
            deal = _jtype(obj["deal"], dat, dict, "an object {first_deck, ranking} or null")
            if set(deal) != {"first_deck", "ranking"}:
                raise dat.error("a deal has exactly the keys 'first_deck' and 'ranking'")
            values["deck"] = _V(
                dat.child("first_deck"), items=_jlist(deal["first_deck"], dat.child("first_deck"))
            )
            values["ranking"] = _V(
                dat.child("ranking"), items=_jlist(deal["ranking"], dat.child("ranking"))
            )
    else:
        for k in ("turn", "active", "shields", "held", "pass", *_STATE_JSON_OPTIONAL):
            if k in obj:
                values[k] = _V(root.child(k), _jint(obj[k], root.child(k)))
        for k in ("ship", "pod"):
            if obj[k] is not None:
                values[k] = _V(
                    root.child(k), _jtype(obj[k], root.child(k), str, "a position string or null")
                )
        values["outcome"] = _V(
            root.child("outcome"), _jtype(obj["outcome"], root.child("outcome"), str, "a string")
        )
        if "\n" in obj["outcome"] or "\r" in obj["outcome"]:
            raise root.child("outcome").error("the outcome is one line", obj["outcome"][:40])
        for k in ("deck", "discard", "ranking"):
            values[k] = _V(root.child(k), items=_jlist(obj[k], root.child(k)))
        hat = root.child("hands")
        hands = _jtype(obj["hands"], hat, list, "a list of hands (lists of card ids)")
        values["hands"] = _V(hat, groups=[_jlist(h, hat.child(i)) for i, h in enumerate(hands)])
    return _Doc(kind, grid, values, root)


def setup_from_json(
    obj_or_text: dict | str | bytes,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    source: str = "<json>",
) -> Setup:
    """A setup from its JSON form (a parsed dict, or JSON text)."""
    return _assemble_setup(_read_json(obj_or_text, source, "setup"), sector_cards, command_cards)


def state_from_json(
    obj_or_text: dict | str | bytes,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    source: str = "<json>",
) -> GameState:
    """A game state from its JSON form (a parsed dict, or JSON text)."""
    return _assemble_state(_read_json(obj_or_text, source, "state"), sector_cards, command_cards)


# ----------------------------------------------------------------------------
# load: sniff text vs JSON, setup vs state
# ----------------------------------------------------------------------------


def _looks_like_text(s: str) -> bool:
    head = s.lstrip("\ufeff \t\r\n")
    return (
        "\n" in s
        or head.startswith(("{", "#", "sensor-ghosts"))
        or not s.strip()
        or _CONTROL.search(s) is not None
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
    if isinstance(path_or_text, Path) or (
        isinstance(path_or_text, str) and not _looks_like_text(path_or_text)
    ):
        source = str(path_or_text)
        try:
            data: str | bytes = Path(path_or_text).read_bytes()
        except (OSError, ValueError) as e:
            why = getattr(e, "strerror", None) or e
            raise NotationError(f"cannot read file: {why}", source=source) from None
    else:
        source = "<text>"
        data = path_or_text
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
    text = _decode(text, source)
    kw = {"sector_cards": sector_cards, "command_cards": command_cards, "source": source}
    if text.lstrip().startswith("{"):
        obj = _json_load(text, source)
        if isinstance(obj, dict) and obj.get("format") == STATE_FORMAT:
            return state_from_json(obj, **kw)
        return setup_from_json(obj, **kw)
    for ln in text.split("\n"):
        if ln.strip() and not ln.lstrip().startswith("#"):
            if " ".join(ln.split()) == STATE_HEADER:
                return parse_state(text, **kw)
            break
    return parse_setup(text, **kw)


def locate(text: str, *, key: str | None = None, row: int | None = None) -> int | None:
    """The 1-based line of a text setup or state where ``key`` is given, or where
    grid row ``row`` is written; None when it is not there (or the text is
    JSON). For messages that name the place of a problem ("file:line: ...")."""
    if text.lstrip("\ufeff \t\r\n").startswith("{"):
        return None
    meaningful = [
        (n, ln) for n, ln in enumerate(text.split("\n"), 1)
        if ln.strip() and not ln.lstrip().startswith("#")
    ]  # fmt: skip
    if key is not None:
        for n, ln in meaningful:
            km = _KEY_RE.fullmatch(ln.removesuffix("\r"))
            if km is not None and km.group(2) == key:
                return n
        return None
    if row is not None and 1 <= row <= ROWS and len(meaningful) > ROWS:
        return meaningful[1 + ROWS - row][0]  # the header, then row 7 first
    return None


# ----------------------------------------------------------------------------
# Turns
# ----------------------------------------------------------------------------


def format_turn(turn: Turn) -> str:
    """The text of a turn; the same as ``str(turn)``."""
    return str(turn)


def _direction(tok: str, at: _At) -> Direction:
    try:
        return Direction.parse(tok)
    except ValueError:
        raise at.error("a direction is U, D, L or R", tok) from None


def _expect(toks: list[tuple[str, _At]], i: int, what: str, end: _At) -> tuple[str, _At]:
    if i >= len(toks):
        raise end.error(f"expected {what}")
    return toks[i]


def _parse_command(toks: list[tuple[str, _At]], state: GameState, end: _At) -> Command:
    cards_tok, cat = toks[0]
    played: list[PlayedCard] = []
    offset = 0
    for piece in cards_tok.split("+"):
        pat = cat.shifted(offset)
        offset += len(piece) + 1
        if not piece:
            raise pat.error("empty card in a '+' list", cards_tok)
        if piece.startswith("deck:"):
            cid, player = piece[5:], DECK_PLAYER
            if not cid:
                raise pat.error("'deck:' is followed by the card id", piece)
        else:
            cid = piece
            holders = [p for p, h in enumerate(state.hands) if cid in h]
            if not holders:
                raise pat.error("no player holds this card", piece)
            player = holders[0]
        if any(pc.card == cid for pc in played):
            raise pat.error("card listed twice", piece)
        played.append(PlayedCard(cid, player))
    word, wat = _expect(toks, 1, "an action (fly, peek, flip, shift or shields)", end)
    i = 2
    if word in ("fly", "peek"):
        dtok, dat = _expect(toks, i, "a direction (U, D, L or R)", end)
        action = Action(ActionKind(word), direction=_direction(dtok, dat))
        i += 1
    elif word == "flip":
        ptok, pat = _expect(toks, i, "a card position row,col", end)
        m = re.fullmatch(r"([0-9]{1,3}),([0-9]{1,3})", ptok)
        if not m or not on_grid((int(m.group(1)), int(m.group(2)))):
            raise pat.error("a card position is row,col with row 1..7 and col 1..5", ptok)
        action = Action(ActionKind.FLIP, target=(int(m.group(1)), int(m.group(2))))
        i += 1
    elif word == "shift":
        rtok, rat = _expect(toks, i, "a row number", end)
        action = Action(ActionKind.SHIFT, row=_parse_int(rtok, rat, "a row", lo=1, hi=ROWS))
        i += 1
    elif word == "shields":
        action = Action(ActionKind.SHIELDS)
    else:
        raise wat.error("unknown action (fly, peek, flip, shift or shields)", word)
    arrow = pod_direction = None
    top = played[-1].card
    try:
        top_is_fly = state.setup.command_cards.by_id(top).kind is CommandKind.FLY
    except KeyError:
        top_is_fly = False
    if action.direction is not None and top_is_fly:
        arrow = action.direction  # [D11] a Fly card on top points the action's way
    while i < len(toks):
        tok, tat = toks[i]
        if tok == "arrow" and arrow is None and action.direction is None:
            atok, aat = _expect(toks, i + 1, "a direction after 'arrow'", end)
            arrow = _direction(atok, aat)
        elif tok == "pod" and pod_direction is None:
            ptok, pat = _expect(toks, i + 1, "a direction after 'pod'", end)
            pod_direction = _direction(ptok, pat)
        elif tok == "arrow" and action.direction is not None:
            raise tat.error("a fly/peek action's direction already sets the arrow", tok)
        else:
            raise tat.error("unexpected word (expected 'arrow D', 'pod D' or ';')", tok)
        i += 2
    return Command(tuple(played), action, arrow, pod_direction)


def parse_turn(text: str, state: GameState, *, source: str = "<turn>") -> Turn:
    """Parse a turn as ``str(Turn)`` writes it, e.g. ``bolster 1; F1+F2 fly U;
    rescan 2,4``. Each bare card id names the player holding it in ``state.hands``;
    ``deck:ID`` is the deck's top card in a two-player wild ([D18]). Form only: the
    engine judges legality."""
    text = _decode(text, source)
    if "\n" in text.strip():
        raise NotationError("a turn is one line", line=1, source=source)
    base = _At(source, 1, 1)
    parts: list[list[tuple[str, _At]]] = []
    end = base.shifted(len(text))
    if not text.strip():
        raise base.error("empty turn: a turn needs a command or 'skip'")
    for piece, off in _split_offsets(text, ";"):
        toks = _tokens(piece, base.shifted(off))
        if not toks:
            raise base.shifted(off).error("empty part (between ';')", piece)
        parts.append(toks)
    bolster = 0
    command: Command | None = None
    second: Command | None = None
    rescan: frozenset[int] = frozenset()
    stage = 0  # 0 before bolster, 1 before the command, 2 after it, 3 after 'then', 4 done
    for toks in parts:
        word, wat = toks[0]
        pend = toks[-1][1].shifted(len(toks[-1][0]))
        if word == "bolster" and stage == 0:
            if len(toks) != 2:
                raise wat.error("bolster takes one number", " ".join(t for t, _ in toks))
            bolster = _parse_int(toks[1][0], toks[1][1], "bolster", lo=0, hi=TOTAL_VIRUS, rule="[D9]")
            stage = 1
        elif stage <= 1 and word == "skip":
            if len(toks) != 1:
                raise toks[1][1].error("'skip' stands alone", toks[1][0])
            stage = 3
        elif stage <= 1 and word not in ("then", "rescan", "bolster"):
            command = _parse_command(toks, state, pend)
            stage = 2
        elif stage == 2 and word == "then":
            if len(toks) < 2:
                raise pend.error("expected a command after 'then'")
            second = _parse_command(toks[1:], state, pend)
            stage = 3
        elif stage in (2, 3) and word == "rescan":
            cols_text = "".join(t for t, _ in toks[1:])
            if not cols_text:
                raise pend.error("expected columns after 'rescan' (e.g. 2,4)")
            cols: list[int] = []
            cat = toks[1][1]
            offset = 0
            for piece in cols_text.split(","):
                c = _parse_int(piece, cat.shifted(offset), "a rescan column", lo=1, hi=COLS)
                offset += len(piece) + 1
                if c in cols:
                    raise cat.shifted(offset - len(piece) - 1).error("column listed twice", piece)
                cols.append(c)
            rescan = frozenset(cols)
            stage = 4
        else:
            raise wat.error(
                "unexpected part here (order: bolster; command or skip; then; rescan)", word
            )
    if stage < 2:
        raise end.error("a turn needs a command or 'skip'")
    return Turn(command, bolster, second, rescan)
