"""Cells of the setup and state notations: reading a cell token, card ids
(the implicit rule and ``#id``), the grid a document's cells make and the
tokens a grid is written with."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .cards import START_CARDS, SectorCard, SectorCardSet, SectorType, Side
from .geometry import COLS, ROWS, Pos
from .notation_reader import LETTERS, At, card_letters
from .setup import Cell, Gap, Grid, Sample, Slot

_CARD_ID_RE = re.compile(r"#(-?[0-9]{1,6})(?![0-9])")  # 6: MAX_DIGITS
_SAMPLE_RE = re.compile(r"\*([vr])([0-9]{0,6})(?![0-9])")
_E = SectorType.EMPTY


@dataclass(slots=True)
class CellSpec:
    kind: str  # "start" | "card" | "gap"
    at: At
    token: str
    pair: tuple[SectorType, SectorType] | None = None  # None: start card, or unknown gap
    up: Side = Side.FRONT
    card_id: int | None = None  # explicit '#id'
    gap_start: bool = False  # '-S': a gap that held a start card
    sample: tuple[bool, int | None] | None = None  # (virus, explicit id)
    seen: bool = False
    ship: bool = False
    pod: bool = False



# What a well-formed cell token says, by (token, state): a grid repeats few
# tokens, and reading one letter by letter is most of a parse. Bounded, since
# ids make the tokens of odd input unbounded in number.
_CELL_CACHE: dict[tuple[str, bool], tuple[Any, ...]] = {}
_CELL_CACHE_SIZE = 4096


def parse_cell(tok: str, at: At, *, state: bool) -> CellSpec:
    hit = _CELL_CACHE.get((tok, state))
    if hit is not None:
        return CellSpec(hit[0], at, tok, *hit[1:])
    spec = _read_cell(tok, at, state=state)  # raises on bad form: nothing cached
    if len(_CELL_CACHE) >= _CELL_CACHE_SIZE:
        _CELL_CACHE.clear()
    _CELL_CACHE[tok, state] = (
        spec.kind, spec.pair, spec.up, spec.card_id, spec.gap_start, spec.sample,
        spec.seen, spec.ship, spec.pod,
    )  # fmt: skip
    return spec


def _read_cell(tok: str, at: At, *, state: bool) -> CellSpec:
    spec = CellSpec("card", at, tok)
    if tok.startswith("S"):
        spec.kind, i = "start", 1
    elif tok.startswith("-"):
        spec.kind, i = "gap", _read_gap(tok, at, spec)
    else:
        front, back = card_letters(tok, at, "", "'Ae'")
        if front.isupper() == back.isupper():
            raise at.error(
                "exactly one side is face up: write it in upper case and the other in "
                "lower case (e.g. 'Ae' front up, 'aE' back up)",
                tok,
            )
        spec.pair = (SectorType(front.upper()), SectorType(back.upper()))
        spec.up = Side.FRONT if front.isupper() else Side.BACK
        i = 2
    if tok[i : i + 1] == "#":
        if spec.kind == "gap" and spec.pair is None and not spec.gap_start:
            raise at.error("a gap's card id follows its card letters (e.g. '-Ea#17')", tok, i)
        m = _CARD_ID_RE.match(tok, i)
        if not m:
            raise at.error("'#' is followed by a card id (a whole number)", tok, i)
        spec.card_id = int(m.group(1))
        i = m.end()
    _read_suffixes(tok, i, spec, state)
    return spec


def _read_gap(tok: str, at: At, spec: CellSpec) -> int:
    """A gap's card after its '-' (none: an unknown gap); where its id may start."""
    if tok[1:2] == "S":
        spec.gap_start = True
        return 2
    if len(tok) == 1 or tok[1] == "#":
        return 1
    pair = tok[1:3]
    if len(pair) < 2 or pair[0].upper() not in LETTERS or pair[1].upper() not in LETTERS:
        raise at.error("a gap is '-' followed by the card it held, front then back (e.g. '-Ea')", tok)
    if not (pair[0].isupper() and pair[1].islower()):
        raise at.error(
            "a gap's card is written front in upper case, back in lower case (e.g. '-Ea')", tok, 1
        )
    spec.pair = (SectorType(pair[0]), SectorType(pair[1].upper()))
    return 3


def _read_suffixes(tok: str, i: int, spec: CellSpec, state: bool) -> None:
    """A card's sample and marks, from ``tok[i]`` on; a gap takes none."""
    at = spec.at
    seen_suffix: set[str] = set()
    while i < len(tok):
        ch = tok[i]
        if spec.kind == "gap":
            if ch == "*":
                raise at.error("a sample cannot lie on a gap ([D8])", tok, i)
            raise at.error("a gap carries nothing: no sample, '!', '@' or '&'", tok, i)
        if ch in seen_suffix:
            what = "a card carries at most one sample" if ch == "*" else f"{ch!r} given twice"
            raise at.error(what, tok, i)
        seen_suffix.add(ch)
        if ch == "*":
            m = _SAMPLE_RE.match(tok, i)
            if not m:
                raise at.error("a sample is '*v' (virus) or '*r' (rock)", tok, i)
            spec.sample = (m.group(1) == "v", int(m.group(2)) if m.group(2) else None)
            i = m.end()
            continue
        if ch not in "!@&":
            raise at.error(
                f"unexpected {ch!r} in a cell: suffixes are '*v', '*r', '!', '@', '&'", tok, i
            )
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


class Ids:
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


def canonical_ids(grid: Grid, sectors: SectorCardSet) -> Grid:
    """The same grid with card and sample ids given by the notation's implicit
    rule (reading order, row 7 first), so that its text needs no ``#id`` and no
    sample numbers. Which physical card of a pair sits where changes nothing in
    the game; a generator calls this before it hands a setup out."""
    ids = Ids(sectors)
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


# Cells without a sample, by their card object and face: one state's grid
# shares them with the states read before it (they are frozen). The entry
# holds its card, so the card's id cannot be reused while it is cached.
# Keyed by a bool, not the Side: an Enum's hash is a Python-level call.
_SLOTS: dict[tuple[int, bool], Slot] = {}


def _slot(card: SectorCard, up: Side) -> Slot:
    key = (id(card), up is Side.FRONT)
    slot = _SLOTS.get(key)
    if slot is None:
        if len(_SLOTS) >= 4096:
            _SLOTS.clear()
        slot = _SLOTS[key] = Slot(card, up)
    return slot


def build_grid(
    specs: list[list[CellSpec]], sectors: SectorCardSet
) -> tuple[Grid, set[int], list[tuple[Pos, CellSpec]], list[tuple[Pos, CellSpec]]]:
    """Cells in reading order (row 7 first) -> grid (row 1 first), seen ids, ship and
    pod marks."""
    ids = Ids(sectors)
    prev_sample = 0
    seen: set[int] = set()
    ships: list[tuple[Pos, CellSpec]] = []
    pods: list[tuple[Pos, CellSpec]] = []
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
            if spec.sample is None:
                cells.append(_slot(card, spec.up))
            else:
                virus, sid = spec.sample
                sid = prev_sample + 1 if sid is None else sid
                prev_sample = sid
                cells.append(Slot(card, spec.up, Sample(sid, virus)))
            if spec.seen:
                seen.add(cid)
            if spec.ship:
                ships.append((pos, spec))
            if spec.pod:
                pods.append((pos, spec))
        rows.append(tuple(cells))
    grid = tuple(reversed(rows))
    return grid, seen, ships, pods


def grid_tokens(
    grid: Grid,
    sectors: SectorCardSet,
    seen: frozenset[int] = frozenset(),
    ship: Pos | None = None,
    pod: Pos | None = None,
) -> list[list[str]]:
    """Cell tokens in reading order (row 7 first); the inverse of ``build_grid``."""
    ids = Ids(sectors)
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
