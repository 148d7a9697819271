"""The reader shared by the notations of setups, states, turns and observations:
decoding, error positions, words, the document of a header, grid rows and
``key: value`` lines, numbers, lists, card letters and the values every
notation spells the same way. Each notation says which keys and cells it
takes; this module reads them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .cards import CommandCardSet, SectorCardSet
from .errors import NotationError
from .geometry import COLS, DOCK, EARTH, ROWS, Direction, Pos
from .options import FLAG_NAMES, Difficulty
from .state import DiscardEntry, Outcome, Status

MAX_DIGITS = 6  # also in the regular expressions of cells and row labels
"""The longest number the notations read: no count or index of the game comes
near it, and a longer one is refused before Python converts it (a number of
more than 4,300 digits would not convert at all)."""

ARROW_OF = {"^": Direction.UP, "v": Direction.DOWN, "<": Direction.LEFT, ">": Direction.RIGHT}
LETTERS = "EBAO"

KEY_RE = re.compile(r"(\s*)([a-z][a-z0-9-]*)(\s*):(.*)")
LABEL_RE = re.compile(r"(\s*)([0-9]{1,6})\s*:")  # 6: MAX_DIGITS
INT_RE = re.compile(r"-?[0-9]+")  # ASCII digits only: '٣' is not 3
OUTCOME_RE = re.compile(r"(ongoing|won|lost)(?:\s*:\s*(.*))?", re.S)
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


# ----------------------------------------------------------------------------
# Error locations: a text line/column, or a JSON path.
# ----------------------------------------------------------------------------


class At:
    """Where a value stands. A plain class with slots, not a dataclass: a
    document makes one per token, and ``dataclasses.replace`` is slow. A JSON
    path is kept as (parent, key) and spelt out only when an error names it."""

    __slots__ = ("source", "line", "column", "_path")

    def __init__(
        self, source: str, line: int | None = None, column: int | None = None,
        path: str | tuple[At, str | int] | None = None,
    ) -> None:  # fmt: skip
        self.source = source
        self.line = line
        self.column = column
        self._path = path

    @property
    def path(self) -> str | None:
        path = self._path
        if isinstance(path, tuple):
            up, key = path
            base = up.path or ""
            step = f"[{key}]" if isinstance(key, int) else (f".{key}" if base else key)
            path = self._path = base + step
        return path

    def error(self, message: str, token: str | None = None, offset: int = 0) -> NotationError:
        path = self.path
        if path is not None:
            message = f"{path}: {message}"
        col = None if self.column is None else self.column + offset
        return NotationError(message, line=self.line, column=col, token=token, source=self.source)

    def shifted(self, offset: int) -> At:
        if self.column is None:
            return self
        return At(self.source, self.line, self.column + offset, self._path)

    def child(self, key: str | int) -> At:
        return At(self.source, self.line, self.column, (self, key))


Tokens = list[tuple[str, At]]


@dataclass(slots=True)
class Value:
    """One key's value: ``text`` for scalars, ``items`` for lists, ``groups`` for hands."""

    at: At
    text: str = ""
    items: Tokens | None = None
    groups: list[Tokens] | None = None


@dataclass
class Document:
    kind: str  # what the header says: "setup", "state", "observation"
    grid: list[Tokens]  # row 7 first
    values: dict[str, Value]
    end: At  # where a missing key is reported


# ----------------------------------------------------------------------------
# Decoding input
# ----------------------------------------------------------------------------


def line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def decode(data: str | bytes, source: str) -> str:
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            prefix = data[: e.start].decode("utf-8", errors="replace")
            line, col = line_col(prefix, len(prefix))
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
    m = CONTROL.search(text)
    if m:
        line, col = line_col(text, m.start())
        raise NotationError(
            f"binary data: control character U+{ord(m.group()):04X}",
            line=line,
            column=col,
            token=m.group(),
            source=source,
        )
    return text


def read_input(path_or_text: str | bytes | Path, is_text: Callable[[str], bool]) -> tuple[str, str | bytes]:
    """(source, data): a ``Path``, or a ``str`` that ``is_text`` does not take
    for text, is a file to read (every failure a ``NotationError``)."""
    if isinstance(path_or_text, Path) or (
        isinstance(path_or_text, str) and not is_text(path_or_text)
    ):
        source = str(path_or_text)
        try:
            return source, Path(path_or_text).read_bytes()
        except (OSError, ValueError) as e:
            why = getattr(e, "strerror", None) or e
            raise NotationError(f"cannot read file: {why}", source=source) from None
    return "<text>", path_or_text


def meaningful_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the lines that are neither blank nor comments."""
    return [
        (n, ln) for n, ln in enumerate(text.split("\n"), 1)
        if ln.strip() and not ln.lstrip().startswith("#")
    ]  # fmt: skip


def header_of(text: str) -> str:
    """The first meaningful line with its spaces folded ('' when there is none)."""
    for ln in text.split("\n"):
        if ln.strip() and not ln.lstrip().startswith("#"):
            return " ".join(ln.split())
    return ""


# ----------------------------------------------------------------------------
# Words, rows and lists
# ----------------------------------------------------------------------------


def words(text: str) -> list[tuple[str, int]]:
    """The words of ``text`` (runs of non-space, as ``\\S+``) with their offsets;
    ``str.split`` and ``find`` are several times faster than a regular expression."""
    out = []
    i = 0
    find = text.find
    for w in text.split():
        i = find(w, i)
        out.append((w, i))
        i += len(w)
    return out


def tokens(text: str, at: At) -> Tokens:
    if at.column is None:
        return [(w, at) for w in text.split()]
    src, line, col, path = at.source, at.line, at.column, at._path
    return [(w, At(src, line, col + i, path)) for w, i in words(text)]


def split_offsets(text: str, sep: str) -> list[tuple[str, int]]:
    """``text.split(sep)`` with each piece's offset in ``text``."""
    out, off = [], 0
    for piece in text.split(sep):
        out.append((piece, off))
        off += len(piece) + len(sep)
    return out


def read_row(ln: str, at: At, expected: int) -> Tokens:
    """A grid row's five cell tokens, after an optional ``N:`` label."""
    body_start = 0
    lm = LABEL_RE.match(ln)
    if lm:
        label = int(lm.group(2))
        if label != expected:
            raise at.error(
                f"row label {label} where row {expected} was expected (row 7 first)",
                lm.group(2),
                len(lm.group(1)),
            )
        body_start = lm.end()
    toks = tokens(ln[body_start:], at.shifted(body_start))
    if len(toks) != COLS:
        if len(toks) > COLS:
            tok, tat = toks[COLS]
            raise tat.error(f"row {expected} has {len(toks)} cells, expected {COLS}", tok)
        col0 = toks[0][1] if toks else at.shifted(len(ln))
        raise col0.error(
            f"row {expected} has {len(toks)} cells, expected {COLS}", ln[body_start:].strip()
        )
    return toks


def word_list(raw: str, at: At, empty: str = "list") -> Tokens:
    """Words; a lone '-' is the empty list (``empty`` names it in the message)."""
    toks = tokens(raw, at)
    if len(toks) == 1 and toks[0][0] == "-":
        return []
    for tok, tat in toks:
        if tok == "-":
            raise tat.error(f"'-' stands alone for an empty {empty}", tok)
    return toks


def option_names(text: str, at: At) -> Tokens:
    """The rule options' comma list ('none': no option)."""
    items: Tokens = []
    if text == "none":
        return items
    for piece, off in split_offsets(text, ","):
        name = piece.strip()
        nat = at.shifted(off + len(piece) - len(piece.lstrip()))
        if not name:
            raise nat.error("empty option name in the comma list", text)
        items.append((name, nat))
    return items


# ----------------------------------------------------------------------------
# The document: a header, the grid (row 7 first), then 'key: value' lines
# ----------------------------------------------------------------------------


def _header(meaningful: list[tuple[int, str]], source: str, headers: dict[str, str]) -> str:
    expected = " or ".join(f"'{h}'" for h in headers)
    if not meaningful:
        raise NotationError(
            f"empty input: expected the header line {expected}", line=1, column=1, source=source
        )
    n, ln = meaningful[0]
    head = " ".join(ln.split())
    if head not in headers:
        raise NotationError(
            f"expected the header line {expected}",
            line=n, column=len(ln) - len(ln.lstrip()) + 1, token=ln.strip(), source=source,
        )  # fmt: skip
    return headers[head]


def read_document(
    text: str,
    source: str,
    headers: dict[str, str],
    check_kind: Callable[[str, At, str], None],
    key_error: Callable[[str, str], str | None],
    value: Callable[[str, str, At], Value],
) -> Document:
    """Read a notation's text: ``headers`` maps each header line to its kind,
    ``check_kind(kind, header_at, header)`` may refuse the kind, ``key_error(kind,
    key)`` says why a key is not taken (None: taken) and ``value(key, text, at)``
    reads a key's value (never empty)."""
    meaningful = [(n, ln.removesuffix("\r")) for n, ln in meaningful_lines(text)]
    kind = _header(meaningful, source, headers)
    n, ln = meaningful[0]
    check_kind(kind, At(source, n, len(ln) - len(ln.lstrip()) + 1), ln.strip())
    last_n, last_ln = meaningful[-1]
    end = At(source, last_n, len(last_ln) + 1)
    grid: list[Tokens] = []
    values: dict[str, Value] = {}
    first_line: dict[str, int] = {}
    for n, ln in meaningful[1:]:
        at = At(source, n, 1)
        km = KEY_RE.fullmatch(ln)
        if km is None:
            if values or len(grid) == ROWS:
                what = "expected 'key: value' (the grid comes right after the header)"
                raise at.error(
                    what if values else f"the grid has more than {ROWS} rows",
                    ln.strip(), len(ln) - len(ln.lstrip()),
                )  # fmt: skip
            grid.append(read_row(ln, at, ROWS - len(grid)))
            continue
        if len(grid) != ROWS:
            raise at.error(
                f"the grid has {len(grid)} rows, expected {ROWS} (row 7 first, row 1 last)",
                ln.strip(), len(ln) - len(ln.lstrip()),
            )  # fmt: skip
        key, kcol = km.group(2), len(km.group(1))
        why = key_error(kind, key)
        if why is not None:
            raise at.error(why, key, kcol)
        if key in values:
            raise at.error(f"duplicate key {key!r} (first on line {first_line[key]})", key, kcol)
        first_line[key] = n
        raw = km.group(4)
        vat = at.shifted(km.end(3) + 1 + len(raw) - len(raw.lstrip()))
        if not raw.strip():
            raise vat.error(f"missing value for {key!r}", "")
        values[key] = value(key, raw.strip(), vat)
    if not values:
        raise end.error(
            f"the grid has {len(grid)} rows, expected {ROWS}, and no 'key: value' lines follow"
            if len(grid) != ROWS
            else "expected 'key: value' lines after the grid"
        )
    return Document(kind, grid, values, end)


# ----------------------------------------------------------------------------
# Numbers and the values every notation spells the same way
# ----------------------------------------------------------------------------


def whole_number(text: str, at: At, what: str, too_large: str = ")") -> int:
    """ASCII digits, at most MAX_DIGITS of them; ``too_large`` ends that message."""
    if not INT_RE.fullmatch(text):
        raise at.error(f"{what} must be a whole number (digits 0-9)", text[:40])
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise at.error(f"{what} is too large ({digits} digits{too_large}", text[:40])
    return int(text)


def parse_int(
    text: str, at: At, what: str, *, lo: int | None = None, hi: int | None = None, rule: str = ""
) -> int:
    """A whole number in [lo, hi]; ``rule`` (e.g. '[D9]') ends each message."""
    why = f" {rule}" if rule else ""
    rng = "" if hi is None else f"; it is {lo} to {hi}" if lo is not None else f"; at most {hi}"
    n = whole_number(text, at, what, f"{rng}){why}")
    if lo is not None and n < lo:
        more = f" and at most {hi}" if hi is not None else ""
        raise at.error(f"{what} must be {lo} or more{more}, got {n}{why}", text)
    if hi is not None and n > hi:
        rng = f"at most {hi}" if lo is None else (f"{lo} to {hi}" if lo != hi else f"{lo}")
        raise at.error(f"{what} must be {rng}, got {n}{why}", text)
    return n


def require(values: dict[str, Value], keys: tuple[str, ...], end: At) -> None:
    for k in keys:
        if k not in values:
            raise end.error(f"missing required key {k!r}")


def difficulty(word: str, at: At) -> Difficulty:
    try:
        return Difficulty(word)
    except ValueError:
        raise at.error("difficulty is introductory, standard or advanced", word) from None


def rule_flags(items: Tokens) -> list[str]:
    flags: list[str] = []
    for name, nat in items:
        if name not in FLAG_NAMES:
            raise nat.error(f"unknown rule option (known: {', '.join(FLAG_NAMES)}, or none)", name)
        if name in flags:
            raise nat.error("rule option listed twice", name)
        flags.append(name)
    return flags


def named_pos(word: str) -> Pos | None:
    """DOCK or EARTH by name, else None."""
    return DOCK if word == "dock" else EARTH if word == "earth" else None


def discard_entry(tok: str, ids: set[str]) -> DiscardEntry:
    # A trailing arrow is the Fly card's orientation, unless the whole token is
    # itself a card id of the set.
    if len(tok) > 1 and tok[-1] in ARROW_OF and tok not in ids:
        return DiscardEntry(tok[:-1], ARROW_OF[tok[-1]])
    return DiscardEntry(tok)


def discard_text(e: DiscardEntry) -> str:
    return e.card + (e.arrow.arrow if e.arrow is not None else "")


def parse_outcome(v: Value) -> Outcome:
    m = OUTCOME_RE.fullmatch(v.text)
    if not m:
        raise v.at.error("outcome is 'ongoing', 'won' or 'lost: reason'", v.text)
    return Outcome(Status(m.group(1)), (m.group(2) or "").strip())


def card_letters(tok: str, at: At, unknown: str, short: str, more: str = "") -> tuple[str, str]:
    """A cell's two card letters, front then back: each one of E, B, A, O (any
    case) or of ``more``; ``unknown`` and ``short`` end the two messages."""
    pair = tok[:2]
    for k, ch in enumerate(pair):
        if ch not in more and ch.upper() not in LETTERS:
            raise at.error(
                f"unknown cell {ch!r}: a card is two of E, B, A, O{unknown} (front then back), "
                "'S' a start card, '-' a gap",
                tok,
                k,
            )
    if len(pair) < 2:
        raise at.error(f"a card is two letters, front then back (e.g. {short})", tok)
    return pair[0], pair[1]


SetT = TypeVar("SetT", SectorCardSet, CommandCardSet)


def card_set(name: str, at: At | None, given: SetT | None, default: Callable[[], SetT],
             what: str) -> SetT:  # fmt: skip
    """The card set a text names: the one passed in (its name must match), or the
    built-in default. ``at`` None: the text leaves the key out, any set passed in
    is taken."""
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


# ----------------------------------------------------------------------------
# JSON
# ----------------------------------------------------------------------------


def _no_dup_pairs(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, val in pairs:
        if k in out:
            raise NotationError(f"duplicate JSON key {k!r}", token=k)
        out[k] = val
    return out


def json_load(text: str | bytes, source: str) -> Any:
    doc = decode(text, source)
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


def jtype(val: Any, at: At, kind: type | tuple, what: str) -> Any:
    """``val`` when it is of ``kind`` (a bool is not an int), else an error."""
    ok = isinstance(val, kind) and not (isinstance(val, bool) and kind is int)
    if not ok:
        raise at.error(f"expected {what}", json.dumps(val)[:40])
    return val
