"""Setups and states from a read document, and the parts of a state both the
text and the JSON form write: what the two forms share above the reader."""

from __future__ import annotations

import functools
import re
from typing import Any

from .cards import CommandCardSet, SectorCardSet
from .geometry import Pos, format_pos, on_grid
from .notation_cells import CellSpec, build_grid, grid_tokens, parse_cell
from .notation_reader import (
    Document,
    Tokens,
    Value,
    card_set,
    difficulty,
    discard_entry,
    discard_text,
    named_pos,
    parse_int,
    parse_outcome,
    require,
    rule_flags,
)
from .options import Difficulty, RuleOptions
from .setup import Deal, Grid, Setup, Slot
from .state import MAX_SHIELDS, MAX_TURN, TOTAL_ROCK, TOTAL_VIRUS, GameState

SETUP_HEADER = "sensor-ghosts setup"
STATE_HEADER = "sensor-ghosts state"
SETUP_FORMAT = "sensor-ghosts/setup"
STATE_FORMAT = "sensor-ghosts/state"
JSON_VERSION = 1

SETUP_REQUIRED = ("players", "difficulty", "options", "cards", "commands")
STATE_REQUIRED = SETUP_REQUIRED + (
    "turn", "active", "shields", "held", "hands", "deck", "discard", "ranking", "pass", "outcome",
)  # fmt: skip

_POS_RE = re.compile(r"(-?[0-9]{1,3}),(-?[0-9]{1,3})")


def single(v: Value, what: str) -> str:
    words = v.text.split()
    if len(words) != 1:
        raise v.at.error(f"{what} is a single word", v.text)
    return words[0]


def _options(values: dict[str, Value]) -> RuleOptions:
    p = values["players"]
    players = parse_int(single(p, "players"), p.at, "players", lo=1, hi=4, rule="(§2)")
    d = values["difficulty"]
    level = difficulty(single(d, "difficulty"), d.at)
    return _rule_options(players, level, tuple(rule_flags(values["options"].items or [])))


@functools.lru_cache(maxsize=256)
def _rule_options(players: int, level: Difficulty, flags: tuple[str, ...]) -> RuleOptions:
    # A few combinations recur in every state of a game; RuleOptions is frozen.
    return RuleOptions(players, level).with_flags(list(flags))


def _ids(items: Tokens) -> tuple[str, ...]:
    return tuple(tok for tok, _ in items)


def _common(
    doc: Document,
    required: tuple[str, ...],
    sector_cards: SectorCardSet | None,
    command_cards: CommandCardSet | None,
    state: bool,
):
    """What setups and states share, read in this order: the required keys, the
    options, the two card sets, the grid (with seen cards and marks)."""
    v = doc.values
    require(v, required, doc.end)
    options = _options(v)
    cards, commands = v["cards"], v["commands"]
    sectors = card_set(cards.text, cards.at, sector_cards, SectorCardSet.default, "sector")
    command_set = card_set(
        commands.text, commands.at, command_cards, CommandCardSet.default, "command"
    )
    specs = [[parse_cell(tok, at, state=state) for tok, at in row] for row in doc.grid]
    return options, sectors, command_set, build_grid(specs, sectors)


def assemble_setup(
    doc: Document, sector_cards: SectorCardSet | None, command_cards: CommandCardSet | None
) -> Setup:
    v = doc.values
    options, sectors, commands, (grid, _, _, _) = _common(
        doc, SETUP_REQUIRED, sector_cards, command_cards, state=False
    )
    deal = None
    if ("deck" in v) != ("ranking" in v):
        present = "deck" if "deck" in v else "ranking"
        raise v[present].at.error("'deck' and 'ranking' go together: give both or neither", present)
    if "deck" in v:
        deal = Deal(_ids(v["deck"].items or []), _ids(v["ranking"].items or []))
    sid = v["id"].text if "id" in v else None
    return Setup(grid, options, sectors, commands, deal, sid)


def _parse_pos(v: Value) -> Pos:
    word = single(v, "a position")
    pos = named_pos(word)
    if pos is not None:
        return pos
    m = _POS_RE.fullmatch(word)
    if not m:
        raise v.at.error("a position is dock, earth or row,col (e.g. 3,2)", word)
    return (int(m.group(1)), int(m.group(2)))


def _marked_pos(
    v: Value | None, marks: list[tuple[Pos, CellSpec]], grid: Grid, what: str, sym: str
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


def _numbers(v: dict[str, Value], players: int) -> dict[str, int]:
    """The state's counts, in the ranges the rules allow: [D9] shields, the 3
    virus and 2 rock tokens (§6), the players; validation checks how the
    numbers fit together."""

    def number(key: str, lo: int, hi: int, rule: str) -> int:
        return parse_int(single(v[key], key), v[key].at, key, lo=lo, hi=hi, rule=rule)

    tokens_rule = f"[step 9] ({TOTAL_VIRUS} virus and {TOTAL_ROCK} rock samples)"
    return {
        "turn": number("turn", 1, MAX_TURN, "[turn]"),
        "active": number("active", 1, players, f"[active] (players: {players})"),
        "shields": number("shields", 0, MAX_SHIELDS, "[D9]"),
        "held": number("held", 0, TOTAL_VIRUS, tokens_rule),
        "rocks": number("rocks", 0, TOTAL_ROCK, tokens_rule) if "rocks" in v else 0,
        "lost": number("lost", 0, TOTAL_VIRUS + TOTAL_ROCK, tokens_rule) if "lost" in v else 0,
    }


def assemble_state(
    doc: Document, sector_cards: SectorCardSet | None, command_cards: CommandCardSet | None
) -> GameState:
    v = doc.values
    options, sectors, commands, (grid, seen, ships, pods) = _common(
        doc, STATE_REQUIRED, sector_cards, command_cards, state=True
    )
    ship = _marked_pos(v.get("ship"), ships, grid, "ship", "@")
    if ship is None:
        raise doc.end.error("missing required key 'ship' (or an '@' in the grid)")
    pod = _marked_pos(v.get("pod"), pods, grid, "pod", "&")
    n = _numbers(v, options.players)
    pass_word = single(v["pass"], "pass")
    if pass_word not in ("1", "2"):
        raise v["pass"].at.error("pass is 1 or 2", pass_word)
    command_ids = {c.id for c in commands.cards}
    sid = v["id"].text if "id" in v else None
    return GameState(
        setup=Setup(grid, options, sectors, commands, None, sid),
        grid=grid,
        hands=tuple(_ids(g) for g in v["hands"].groups or []),
        deck=_ids(v["deck"].items or []),
        ranking=_ids(v["ranking"].items or []),
        discard=tuple(discard_entry(t, command_ids) for t, _ in v["discard"].items or []),
        ship=ship,
        pod=pod,
        shields=n["shields"],
        held=n["held"],
        rocks_found=n["rocks"],
        lost_unseen=n["lost"],
        second_pass=pass_word == "2",
        active=n["active"] - 1,
        turn=n["turn"],
        seen=frozenset(seen),
        outcome=parse_outcome(v["outcome"]),
    )


# ----------------------------------------------------------------------------
# What both forms write
# ----------------------------------------------------------------------------


def check_name(name: str, what: str) -> str:
    if not name or name != name.strip() or "\n" in name:
        raise ValueError(f"{what} {name!r} cannot be written (empty, outer spaces or a newline)")
    return name


def check_id(v: Value) -> None:
    """A setup id the formatters can write back (``check_name``)."""
    try:
        check_name(v.text, "setup id")
    except ValueError as e:
        raise v.at.error(str(e).split(" cannot")[0] + " cannot be written back: "
                         "no empty id, outer spaces or line breaks", v.text[:40]) from None


def _on_card(grid: Grid, pos: Pos | None) -> bool:
    return pos is not None and on_grid(pos) and isinstance(grid[pos[0] - 1][pos[1] - 1], Slot)


def state_parts(state: GameState) -> tuple[list[list[str]], dict[str, Any]]:
    """Grid tokens and the state keys' values as text, shared by text and JSON."""
    grid = state.grid
    on_slots = {cell.card.id for row in grid for cell in row if isinstance(cell, Slot)}
    lost = sorted(set(state.seen) - on_slots)
    if lost:
        raise ValueError(f"seen cards {lost} are not on the grid: the notation cannot record them")
    ship = state.ship if _on_card(grid, state.ship) else None
    pod = state.pod if _on_card(grid, state.pod) else None
    cells = grid_tokens(grid, state.setup.sector_cards, state.seen, ship, pod)
    discard = [discard_text(e) for e in state.discard]
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
    return cells, parts

