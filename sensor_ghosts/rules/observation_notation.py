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
from .geometry import COLS, DOCK, EARTH, ROWS, Pos, format_pos, on_grid
from .notation_json import setup_from_json, state_from_json
from .notation_reader import (
    LETTERS,
    At,
    Document,
    Value,
    card_letters,
    card_set,
    decode,
    difficulty,
    discard_entry,
    discard_text,
    header_of,
    json_load,
    jtype,
    named_pos,
    option_names,
    parse_outcome,
    read_document,
    read_input,
    require,
    rule_flags,
    whole_number,
    word_list,
)
from .notation_text import grid_lines, options_lines, parse_setup, parse_state
from .observation import (
    TOTAL_VIRUS,
    Observation,
    SeenCard,
    SeenGap,
    check_observation,
    observe,
)
from .options import RuleOptions
from .state import MAX_TURN, TOTAL_ROCK, GameState, Outcome

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
_JSON_KEYS = set(_KEYS) - {"hands"} | {"format", "version", "hand_sizes", "grid"}
_JSON_SCALARS = (
    ("cards", str, "a card set name"), ("commands", str, "a card set name"),
    ("player", int, "a whole number"), ("active", int, "a whole number"),
    ("turn", int, "a whole number"), ("shields", int, "a whole number"),
    ("held", int, "a whole number"), ("spent", int, "a whole number"),
    ("rocks", int, "a whole number"), ("lost", int, "a whole number"),
    ("deck", int, "a whole number"), ("pass", int, "1 or 2"),
    ("outcome", str, "a string"), ("ship", str, "a position string"),
    ("pod", str, "a position string"),
)  # fmt: skip
_POS_RE = re.compile(r"([0-9]{1,3}),([0-9]{1,3})")


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


def _parse_cell(tok: str, at: At) -> _Cell:
    if "#" in tok:
        raise at.error("card ids ('#') are not part of an observation", tok, tok.index("#"))
    if tok.startswith("-"):
        return _Cell(_parse_gap(tok, at))
    cell: SeenCard | SeenGap
    if tok.startswith("S"):
        cell = SeenCard(SectorType.EMPTY, Side.FRONT, SectorType.EMPTY, True)
        i = 1
    else:
        a, b = card_letters(tok, at, " or '?'", "'A?', 'Ae', 'eA'", more="?")
        up_front = a.isupper() and (b.islower() or b == "?")
        up_back = b.isupper() and (a.islower() or a == "?")
        if not (up_front or up_back):
            if a == "?" and b == "?":
                raise at.error("the face-up side is always visible: write it in upper case", tok)
            raise at.error(
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
    if _read_suffixes(tok, i, at, out):
        assert isinstance(cell, SeenCard)
        out.cell = SeenCard(cell.up, cell.side, cell.down, cell.start, True)
    return out


def _parse_gap(tok: str, at: At) -> SeenGap:
    body = tok[1:]
    if body in ("", "?", "??"):
        return SeenGap(None)
    if body[:1] == "S":
        raise at.error("a start card is never removed [D8]", tok, 1)
    if len(body) == 2 and body[0] in LETTERS and body[1] == "?":
        return SeenGap(SectorType(body[0]))
    if len(body) == 2 and body[0] in LETTERS and body[1].upper() in LETTERS:
        raise at.error(
            "a gap's back is never seen [D26]: write its front and '?' (e.g. '-E?')", tok, 2
        )
    if body[:1] in LETTERS and body[1:2] in ("", "*", "@", "&"):
        raise at.error("a gap is '-' with its card's front and '?' (e.g. '-E?')", tok)
    if body[:2] and body[2:]:
        raise at.error("a gap carries nothing: no sample, ship or pod", tok, 3)
    raise at.error("a gap is '-E?' (front E, back unseen) or '-??' (front forgotten)", tok)


def _read_suffixes(tok: str, i: int, at: At, out: _Cell) -> bool:
    """The marks after a card, from ``tok[i]`` on; whether it carries a sample."""
    sample = False
    while i < len(tok):
        ch = tok[i]
        if ch == "*":
            nxt = tok[i + 1 : i + 2]
            if nxt in ("v", "r"):
                raise at.error("a face-down sample's content is hidden: write '*?'", tok, i)
            if nxt != "?":
                raise at.error("a face-down sample is '*?'", tok, i)
            if sample:
                raise at.error("a card carries at most one sample", tok, i)
            sample = True
            i += 2
            continue
        if ch in "@&":
            if (ch == "@" and out.ship) or (ch == "&" and out.pod):
                raise at.error(f"{ch!r} given twice", tok, i)
            if ch == "@":
                out.ship = True
            else:
                out.pod = True
            i += 1
            continue
        if ch == "!":
            raise at.error(
                "'!' is not used in an observation: write the down side you saw in lower case",
                tok,
                i,
            )
        raise at.error(f"unexpected {ch!r} in a cell: suffixes are '*?', '@', '&'", tok, i)
    return sample


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


def _key_error(kind: str, key: str) -> str | None:
    return None if key in _KEYS else f"unknown key {key!r} in an observation"


def _text_value(key: str, text: str, at: At) -> Value:
    if key in ("hand", "discard", "hands"):
        return Value(at, text, word_list(text, at))
    if key == "options":
        return Value(at, text, option_names(text, at))
    return Value(at, text)


def _read_text(text: str, source: str) -> Document:
    def any_kind(kind: str, at: At, header: str) -> None:
        return None

    headers = {OBSERVATION_HEADER: "observation"}
    return read_document(text, source, headers, any_kind, _key_error, _text_value)


def _json_grid(rows: Any, gat: At) -> list[list[tuple[str, At]]]:
    if not isinstance(rows, list) or len(rows) != ROWS:
        raise gat.error(f"expected a list of {ROWS} rows (row 7 first)")
    grid = []
    for i, row in enumerate(rows):
        rat = gat.child(i)
        if (
            not isinstance(row, list)
            or len(row) != COLS
            or not all(isinstance(x, str) for x in row)
        ):
            raise rat.error(f"expected a list of {COLS} cell strings")
        grid.append([(x, rat.child(j)) for j, x in enumerate(row)])
    return grid


def _json_list(key: str, val: Any, at: At) -> Value:
    """A list of strings (hand sizes: of whole numbers too) as a word list."""
    if not isinstance(val, list):
        raise at.error("expected a list", json.dumps(val)[:40])
    items = []
    for i, x in enumerate(val):
        if isinstance(x, int) and not isinstance(x, bool) and key == "hands":
            x = str(x)
        if not isinstance(x, str):
            raise at.child(i).error("expected a string", json.dumps(x)[:40])
        items.append((x, at.child(i)))
    return Value(at, " ".join(t for t, _ in items) or "-", items)


def _json_head(obj: Any, root: At) -> None:
    if not isinstance(obj, dict):
        raise root.error("an observation in JSON is an object", json.dumps(obj)[:40])
    if obj.get("format") != OBSERVATION_FORMAT:
        raise root.child("format").error(
            f"expected {OBSERVATION_FORMAT!r}", json.dumps(obj.get("format"))
        )
    for k in obj:
        if k not in _JSON_KEYS:
            raise root.child(k).error("unknown key in an observation", k)
    if obj.get("version") != JSON_VERSION or isinstance(obj.get("version"), bool):
        raise root.child("version").error(
            f"unsupported version (this library reads version {JSON_VERSION})",
            json.dumps(obj.get("version")),
        )


def _json_options(opts: Any, oat: At, values: dict[str, Value]) -> None:
    if not isinstance(opts, dict):
        raise oat.error("expected an object {players, difficulty, flags}")
    for k in opts:
        if k not in ("players", "difficulty", "flags"):
            raise oat.child(k).error("unknown key in options", k)
    for k, kind, what in (("players", int, "a whole number"), ("difficulty", str, "a string")):
        if k in opts:
            kat = oat.child(k)
            values[k] = Value(kat, str(jtype(opts[k], kat, kind, what)))
    values["options"] = _json_list("options", opts.get("flags", []), oat.child("flags"))


def _read_json(obj: Any, source: str) -> Document:
    root = At(source, path="")
    if isinstance(obj, (str, bytes)):
        obj = json_load(obj, source)
    _json_head(obj, root)
    grid = _json_grid(obj.get("grid"), root.child("grid"))
    values: dict[str, Value] = {}
    _json_options(obj.get("options"), root.child("options"), values)
    for k, kind, what in _JSON_SCALARS:
        if obj.get(k) is not None:
            kat = root.child(k)
            values[k] = Value(kat, str(jtype(obj[k], kat, kind, what)))
    for k, jk in (("hand", "hand"), ("discard", "discard"), ("hands", "hand_sizes")):
        if obj.get(jk) is not None:
            values[k] = _json_list(k, obj[jk], root.child(jk))
    return Document("observation", grid, values, root)


# ----------------------------------------------------------------------------
# Assembling
# ----------------------------------------------------------------------------


def _int(v: Value, what: str, lo: int | None = None, hi: int | None = None) -> int:
    n = whole_number(v.text, v.at, what)
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        rng = f"{lo} to {hi}" if hi is not None else f"{lo} or more"
        raise v.at.error(f"{what} must be {rng}, got {n}", v.text)
    return n


def _pos(v: Value) -> Pos:
    pos = named_pos(v.text)
    if pos is not None:
        return pos
    m = _POS_RE.fullmatch(v.text)
    if not m or not on_grid((int(m.group(1)), int(m.group(2)))):
        raise v.at.error("a position is dock, earth or row,col (row 1..7, col 1..5)", v.text)
    return (int(m.group(1)), int(m.group(2)))


def _options(v: dict[str, Value]) -> RuleOptions:
    players = _int(v["players"], "players", 1, 4)
    level = difficulty(v["difficulty"].text, v["difficulty"].at)
    items = (v["options"].items if "options" in v else None) or []
    return RuleOptions(players, level).with_flags(rule_flags(items))


def _named_set(v: Value | None, given, default, what: str):
    if v is None:
        return card_set("default", None, given, default, what)
    return card_set(v.text, v.at, given, default, what)


def _marked(v: Value | None, cells: list[list[_Cell]], what: str, sym: str, end: At) -> Pos | None:
    marks = [
        (ROWS - i, j + 1)
        for i, row in enumerate(cells)
        for j, c in enumerate(row)
        if (c.ship if sym == "@" else c.pod)
    ]
    if len(marks) > 1:
        raise end.error(f"the {what} is marked {sym!r} twice in the grid")
    if marks and v is not None:
        raise v.at.error(f"the {what} is already marked with {sym!r} in the grid", v.text)
    if marks:
        return marks[0]
    if v is None or v.text == "-":
        return None
    return _pos(v)


def _cards(v: dict[str, Value], commands: CommandCardSet):
    """The hand and the discard pile, each card one of the set's."""
    ids = {c.id for c in commands.cards}
    hand = tuple(t for t, _ in v["hand"].items or [])
    for tok, tat in v["hand"].items or []:
        if tok not in ids:
            raise tat.error("not a command card of this card set", tok)
    discard = []
    for tok, tat in v["discard"].items or []:
        entry = discard_entry(tok, ids)
        if entry.card not in ids:
            raise tat.error("not a command card of this card set", tok)
        discard.append(entry)
    return hand, tuple(discard)


def _hand_sizes(v: dict[str, Value], players: int, hand: tuple[str, ...], end: At):
    if "hands" in v:
        sizes = tuple(_int(Value(at, t), "a hand size", 0) for t, at in v["hands"].items or [])
        if len(sizes) != players:
            raise v["hands"].at.error(
                f"give one hand size per player ({players})", v["hands"].text
            )
        return sizes
    if players == 1:
        return (len(hand),)
    raise end.error("missing required key 'hands' (every player's hand size)")


def _assemble(
    doc: Document, sector_cards: SectorCardSet | None, command_cards: CommandCardSet | None
) -> Observation:
    v = doc.values
    require(v, _REQUIRED, doc.end)
    options = _options(v)
    players = options.players
    sectors = _named_set(v.get("cards"), sector_cards, SectorCardSet.default, "sector")
    commands = _named_set(v.get("commands"), command_cards, CommandCardSet.default, "command")
    cells: list[list[_Cell]] = [[_parse_cell(t, at) for t, at in row] for row in doc.grid]
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
    hand, discard = _cards(v, commands)
    sizes = _hand_sizes(v, players, hand, doc.end)
    deck = _int(v["deck"], "deck", 0)
    pass_n = _int(v["pass"], "pass", 1, 2)
    outcome = parse_outcome(v["outcome"]) if "outcome" in v else Outcome()
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
        discard=discard,
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
    doc = _read_text(decode(text, source), source)
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


def format_observation(obs: Observation) -> str:
    """The canonical text form (ends with a newline); ``parse_observation`` reads it
    back equal."""
    lines = [OBSERVATION_HEADER] + grid_lines(_tokens_of(obs))
    # The set names as they are: an observation's formatter never refused one.
    lines += options_lines(obs.options, obs.sector_cards, obs.command_cards, checked=False)
    lines += [
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
        "discard: " + (" ".join(discard_text(e) for e in obs.discard) or "-"),
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
        "discard": [discard_text(e) for e in obs.discard],
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
    source, data = read_input(path_or_text, lambda s: "\n" in s or s.lstrip().startswith("{"))
    text = decode(data, source)
    kw: dict[str, Any] = {"sector_cards": sector_cards, "command_cards": command_cards}
    obs: Observation
    if text.lstrip().startswith("{"):
        obj = json_load(text, source)
        fmt = obj.get("format") if isinstance(obj, dict) else None
        if fmt == "sensor-ghosts/state":
            obs = _observe_state(state_from_json(obj, source=source, **kw))
        elif fmt == "sensor-ghosts/setup":
            obs = _observe_state(_opening(setup_from_json(obj, source=source, **kw)))
        else:
            obs = observation_from_json(obj, source=source, **kw)
    else:
        head = header_of(text)
        if head == "sensor-ghosts state":
            obs = _observe_state(parse_state(text, source=source, **kw))
        elif head == "sensor-ghosts setup":
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
