"""Notation: text and JSON forms of setups, states and turns (docs/NOTATION.md)."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from positions import SETUP_TEXT

from sensor_ghosts.rules.cards import START_CARDS, CommandCardSet, SectorCardSet, Side
from sensor_ghosts.rules.errors import NotationError
from sensor_ghosts.rules.geometry import DOCK, EARTH, Direction
from sensor_ghosts.rules.notation import (
    format_setup,
    format_state,
    format_turn,
    load,
    load_text,
    normalize_state,
    parse_setup,
    parse_state,
    parse_turn,
    setup_from_json,
    setup_to_json,
    state_from_json,
    state_to_json,
)
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.setup import Deal, Gap, Sample, Setup, Slot, replace_cell
from sensor_ghosts.rules.state import DiscardEntry, GameState, Outcome, Status, initial_state
from sensor_ghosts.rules.turns import (
    DECK_PLAYER,
    Action,
    ActionKind,
    Command,
    PlayedCard,
    Turn,
)

# The same setup as a person might type it: comments, no labels, single spaces.
TYPED_TEXT = """\
# hand-typed
sensor-ghosts setup

Ee Ab -Ea Ae*v Oo
Eb Aa Oe -Ae Ob*v
Ea Ao*r -Ba Oe Oa
Ea Be Ae Oo*v Ab
Eo*r Bb Aa Oa Ao
Eo Ba Ae Oe Eo
S S Ee Ea Bo
# keys in any order
cards: default
commands:default
players:   1
options: none
difficulty: standard
"""

STATE_TEXT = """\
sensor-ghosts state
7: Ee   Ab   -Ea Ae*v Oo
6: Eb   Aa   Oe  -Ae  oB*v!
5: Ea   Ao*r -Ba Oe   Oa
4: Ea   Be   Ae  Oo*v Ab
3: Eo   Bb   Aa  oA   Ao
2: Eo!@ Ba   Ae  Oe   Eo
1: S#-2 Ee   Ea  Bo   S&
players: 2
difficulty: standard
options: escape-pod
cards: default
commands: default
id: demo-1
turn: 7
active: 2
shields: 1
held: 1
hands: F3 F1 | -
deck: F5 D2
discard: F4 F2^ S1 F6 F8< D1
ranking: F1 F2 F3 F4 F5 F6 F7 F8 D1 D2 S1 S2 W
pass: 2
outcome: ongoing
"""


def _err(fn, *args, **kw) -> NotationError:
    with pytest.raises(NotationError) as info:
        fn(*args, **kw)
    return info.value


# ----------------------------------------------------------------- setups


def test_setup_text_round_trip_exact():
    s = parse_setup(SETUP_TEXT)
    assert format_setup(s) == SETUP_TEXT
    assert parse_setup(format_setup(s)) == s


def test_typed_text_parses_to_the_same_setup():
    assert parse_setup(TYPED_TEXT) == parse_setup(SETUP_TEXT)
    assert format_setup(parse_setup(TYPED_TEXT)) == SETUP_TEXT


def test_card_ids_follow_the_set_in_reading_order():
    s = parse_setup(SETUP_TEXT)
    # Row 7 is read first: its A/E card is the set's first A/E (id 16).
    assert s.cell((7, 4)).card.id == 16
    assert s.cell((6, 4)).card.id == 17  # a gap takes its card too [D26]
    assert s.cell((4, 3)).card.id == 18
    assert s.cell((1, 1)).card == START_CARDS[0] and s.cell((1, 2)).card == START_CARDS[1]
    assert isinstance(s.cell((7, 3)), Gap) and s.cell((7, 3)).card.pair == "E/A"
    # Samples are numbered in reading order from 1.
    assert [(p, smp.id, smp.virus) for p, smp in sorted(s.samples(), key=lambda x: x[1].id)] == [
        ((7, 4), 1, True),
        ((6, 5), 2, True),
        ((5, 2), 3, False),
        ((4, 4), 4, True),
        ((3, 1), 5, False),
    ]


def test_more_cards_of_a_pair_than_the_set_still_parse():
    # Six A/E cards (the set has 4): parsing checks form only; ids beyond the set.
    text = SETUP_TEXT.replace("2: Eo   Ba   Ae  Oe   Eo", "2: Ae   Ae   Ae  Oe   Eo")
    s = parse_setup(text)
    assert [s.cell((2, c)).card.id for c in (1, 2, 3)] == [19, 1001, 1002]
    assert format_setup(s) == text


def test_non_canonical_ids_round_trip_with_explicit_ids():
    s = parse_setup(SETUP_TEXT)
    # Swap the two A/E cards at (7,4) and (4,3): same layout, other ids.
    a, b = s.cell((7, 4)), s.cell((4, 3))
    grid = replace_cell(s.grid, (7, 4), Slot(b.card, a.up, a.sample))
    grid = replace_cell(grid, (4, 3), Slot(a.card, b.up, b.sample))
    s2 = replace(s, grid=grid)
    text = format_setup(s2)
    assert "Ae#18*v" in text
    assert parse_setup(text) == s2


def test_setup_with_deal_and_id_round_trips():
    s = parse_setup(SETUP_TEXT)
    deal = Deal(
        ("F3", "F1", "D1", "F2", "F4", "F5", "F6", "F7", "D2", "S1", "S2"),
        ("W", "F2", "F1", "F3", "F4", "F5", "F6", "F7", "D1", "D2", "S1", "S2"),
    )
    s = replace(
        s,
        deal=deal,
        id="sg1-abc",
        options=RuleOptions(1, "advanced").with_flags(["escape-pod", "flip-one"]),
    )
    text = format_setup(s)
    assert "deck: F3 F1 D1" in text and "ranking: W F2" in text and "id: sg1-abc\n" in text
    assert "options: escape-pod, flip-one\n" in text and "difficulty: advanced" in text
    assert parse_setup(text) == s
    assert format_setup(parse_setup(text)) == text
    assert setup_from_json(setup_to_json(s)) == s


def test_setup_json_round_trip():
    s = parse_setup(SETUP_TEXT)
    obj = setup_to_json(s)
    assert obj["format"] == "sensor-ghosts/setup" and obj["version"] == 1
    assert obj["grid"][0] == ["Ee", "Ab", "-Ea", "Ae*v", "Oo"]
    assert obj["options"] == {"players": 1, "difficulty": "standard", "flags": []}
    assert obj["deal"] is None and obj["id"] is None
    text = json.dumps(obj)
    assert setup_from_json(text) == s
    assert setup_to_json(setup_from_json(json.loads(text))) == obj


def test_custom_card_sets_must_be_passed():
    base = SectorCardSet.default()
    custom = SectorCardSet("mine", base.cards)
    s = replace(parse_setup(SETUP_TEXT), sector_cards=custom)
    text = format_setup(s)
    assert "cards: mine" in text
    e = _err(parse_setup, text)
    assert (e.line, e.column, e.token) == (12, 8, "mine")
    assert parse_setup(text, sector_cards=custom) == s
    e = _err(parse_setup, text, sector_cards=base)
    assert e.line == 12 and "default" in str(e)
    cmds = CommandCardSet("cmds", CommandCardSet.default().cards)
    s2 = replace(s, command_cards=cmds)
    assert parse_setup(format_setup(s2), sector_cards=custom, command_cards=cmds) == s2


# ----------------------------------------------------------------- states


def test_state_text_round_trip_exact():
    st8 = parse_state(STATE_TEXT)
    assert format_state(st8) == STATE_TEXT
    assert parse_state(format_state(st8)) == st8
    assert state_from_json(state_to_json(st8)) == st8
    assert state_to_json(state_from_json(json.dumps(state_to_json(st8)))) == state_to_json(st8)


def test_state_fields():
    s = parse_state(STATE_TEXT)
    assert s.ship == (2, 1) and s.pod == (1, 5)
    assert s.turn == 7 and s.active == 1 and s.shields == 1 and s.held == 1
    assert s.hands == (("F3", "F1"), ())
    assert s.deck == ("F5", "D2")
    assert s.discard[1] == DiscardEntry("F2", Direction.UP)
    assert s.discard[4] == DiscardEntry("F8", Direction.LEFT)
    assert s.heading is None  # D1 on top [D11]
    assert s.second_pass and s.outcome == Outcome()
    assert s.cell((6, 5)).up is Side.BACK and s.cell((6, 5)).face.value == "B"
    assert s.seen == frozenset({s.cell((6, 5)).card.id, s.cell((2, 1)).card.id})
    # Row 1 shifted by a Deep Scan [D16]: the start cards keep their identities.
    assert s.cell((1, 5)).card == START_CARDS[0] and s.cell((1, 1)).card == START_CARDS[1]
    # Samples keep their numbers: sample 5 was collected, sample 2 is on (6,5).
    assert sorted(smp.id for _, smp in s.setup.samples()) == [1, 2, 3, 4]
    # The parsed state's setup is rebuilt from the current grid (documented).
    assert s.setup.grid == s.grid and s.setup.deal is None and s.setup.id == "demo-1"


def test_initial_state_round_trips_after_normalize():
    setup = replace(parse_setup(SETUP_TEXT), options=RuleOptions(2).with_flags(["escape-pod"]))
    s = initial_state(setup, seed=5)
    text = format_state(s)
    assert "ship: dock\npod: dock\n" in text and "discard: -\n" in text
    assert parse_state(text) == normalize_state(s)
    assert state_from_json(state_to_json(s)) == normalize_state(s)


def test_lost_state_with_ship_on_a_gap_and_earth():
    s = parse_state(STATE_TEXT)
    lost = replace(
        s, ship=(7, 3), pod=EARTH, outcome=Outcome(Status.LOST, "the ship flew into a gap")
    )
    text = format_state(lost)
    assert "ship: 7,3\npod: earth\n" in text
    assert "outcome: lost: the ship flew into a gap\n" in text
    assert parse_state(text) == lost
    won = replace(s, ship=EARTH, pod=EARTH, outcome=Outcome(Status.WON))
    assert parse_state(format_state(won)) == won


def test_seen_card_not_on_grid_cannot_be_written():
    s = parse_state(STATE_TEXT)
    with pytest.raises(ValueError):
        format_state(replace(s, seen=s.seen | {17}))  # 17 lies in the gap at (6,4)


# ----------------------------------------------------------------- load


def test_load_sniffs_text_json_setup_state(tmp_path: Path):
    setup = parse_setup(SETUP_TEXT)
    state = parse_state(STATE_TEXT)
    assert load(SETUP_TEXT) == setup
    assert load(STATE_TEXT) == state
    assert load(json.dumps(setup_to_json(setup))) == setup
    assert load(json.dumps(state_to_json(state), indent=2)) == state
    p = tmp_path / "a.sgs"
    p.write_text(STATE_TEXT)
    assert load(p) == state and load(str(p)) == state
    pj = tmp_path / "a.json"
    pj.write_text(json.dumps(setup_to_json(setup)))
    assert load(pj) == setup


def test_load_unreadable_files(tmp_path: Path):
    e = _err(load, tmp_path / "missing.txt")
    assert e.source == str(tmp_path / "missing.txt") and "cannot read" in str(e)
    e = _err(load, str(tmp_path))  # a directory
    assert e.source == str(tmp_path)
    binary = tmp_path / "bin.dat"
    binary.write_bytes(b"sensor-ghosts setup\n\x89PNG\xff\xfe")
    e = _err(load, binary)
    assert (e.source, e.line, e.column) == (str(binary), 2, 1)
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"sensor-ghosts setup\n7: Ea\x00")
    e = _err(load, nul)
    assert (e.line, e.column, e.token) == (2, 6, "\x00")


# ----------------------------------------------------------------- errors


def _lines_replaced(old: str, new: str, text: str = SETUP_TEXT) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    "text, line, column, token, words",
    [
        ("", 1, 1, None, "empty input"),
        ("# only a comment\n\n", 1, 1, None, "empty input"),
        ("sensor ghosts setup\n", 1, 1, "sensor ghosts setup", "header"),
        (STATE_TEXT, 1, 1, "sensor-ghosts state", "this is a state"),
        # a 6-row grid: reported where row 1 was expected
        (_lines_replaced("1: S    S    Ee  Ea   Bo\n", ""), 8, 1, "players: 1", "6 rows"),
        (
            _lines_replaced("2: Eo   Ba   Ae  Oe   Eo", "2: Eo   Ba   Ae  Oe"),
            7,
            4,
            "Eo   Ba   Ae  Oe",
            "4 cells",
        ),
        (
            _lines_replaced("2: Eo   Ba   Ae  Oe   Eo", "2: Eo Ba Ae Oe Eo Ee"),
            7,
            19,
            "Ee",
            "6 cells",
        ),
        (_lines_replaced("7: Ee", "6: Ee"), 2, 1, "6", "row label"),
        (SETUP_TEXT + "7: Ee Ee Ee Ee Ee\n", 14, 1, "7: Ee Ee Ee Ee Ee", "expected 'key"),
        (_lines_replaced("-Ea Ae*v", "-Ea*v Ae*v"), 2, 17, "-Ea*v", "sample cannot lie on a gap"),
        (_lines_replaced("-Ae  Ob", "-Ae! Ob"), 3, 21, "-Ae!", "gap"),
        (_lines_replaced("-Ea", "-eA"), 2, 15, "-eA", "front in upper case"),
        (_lines_replaced("Ae*v", "AE*v"), 2, 18, "AE*v", "exactly one side"),
        (_lines_replaced("Ae*v", "Xe*v"), 2, 18, "Xe*v", "unknown cell"),
        (_lines_replaced("Ae*v", "Ae*x"), 2, 20, "Ae*x", "sample"),
        (_lines_replaced("Ae*v", "Ae*v*r"), 2, 22, "Ae*v*r", "at most one sample"),
        (_lines_replaced("Ae*v", "Ae*v@"), 2, 22, "Ae*v@", "belongs to a state"),
        (_lines_replaced("Ae*v", "Ae#x"), 2, 20, "Ae#x", "card id"),
        (
            _lines_replaced("options: none", "options: escape-pod, warp"),
            11,
            22,
            "warp",
            "unknown rule option",
        ),
        (
            _lines_replaced("options: none", "options: flip-one,flip-one"),
            11,
            19,
            "flip-one",
            "twice",
        ),
        (_lines_replaced("players: 1", "players: 5"), 9, 10, "5", "1 to 4"),
        (_lines_replaced("players: 1", "players: one"), 9, 10, "one", "whole number"),
        (_lines_replaced("difficulty: standard", "difficulty: hard"), 10, 13, "hard", "difficulty"),
        (_lines_replaced("cards: default\n", ""), 12, 18, None, "missing required key 'cards'"),
        (
            _lines_replaced("players: 1\n", "players: 1\nplayers: 2\n"),
            10,
            1,
            "players",
            "duplicate",
        ),
        (SETUP_TEXT + "turn: 3\n", 14, 1, "turn", "unknown key 'turn'"),
        (SETUP_TEXT + "colour: red\n", 14, 1, "colour", "unknown key"),
        (SETUP_TEXT + "deck: F1 F2\n", 14, 7, "deck", "give both"),
        (_lines_replaced("players: 1", "players:"), 9, 9, "", "missing value"),
    ],
)
def test_setup_text_errors(text, line, column, token, words):
    e = _err(parse_setup, text)
    assert (e.line, e.column, e.token) == (line, column, token), str(e)
    assert words in str(e)


def test_binary_garbage_errors():
    e = _err(parse_setup, b"\x00\x01\x02garbage")
    assert (e.line, e.column) == (1, 1) and "control character" in str(e)
    e = _err(parse_setup, b"sensor-ghosts setup\n7: Ee \xc3\x28")
    assert (e.line, e.column) == (2, 7) and "UTF-8" in str(e)
    e = _err(parse_setup, "sensor-ghosts setup\n7: \x07")
    assert (e.line, e.column) == (2, 4)


@pytest.mark.parametrize(
    "old, new, line, column, token, words",
    [
        ("Eo!@", "Eo!", None, None, None, "missing required key 'ship'"),
        ("Eo!@", "Eo!@@", 7, 8, "Eo!@@", "given twice"),
        ("Ao*r -Ba", "Ao*r@ -Ba", 7, 4, "Eo!@", "marked twice"),
        ("shields: 1\n", "ship: dock\nshields: 1\n", 17, 7, "dock", "already marked"),
        ("S&", "S", None, None, None, None),  # no pod at all parses (validation reports it)
        ("active: 2", "active: 0", 16, 9, "0", "1 or more"),
        ("shields: 1", "shields: -1", 17, 10, "-1", "0 or more"),
        ("pass: 2", "pass: 3", 23, 7, "3", "pass is 1 or 2"),
        ("outcome: ongoing", "outcome: drawn", 24, 10, "drawn", "outcome"),
        ("hands: F3 F1 | -", "hands: F3 F1 | | F5", 19, 8, "F3 F1 | | F5", "empty hand"),
        ("hands: F3 F1 | -", "hands: F3 - | F1", 19, 11, "-", "stands alone"),
        ("deck: F5 D2", "deck: F5 - D2", 20, 10, "-", "stands alone"),
        ("held: 1\n", "", None, None, None, "missing required key 'held'"),
    ],
)
def test_state_text_errors(old, new, line, column, token, words):
    text = _lines_replaced(old, new, STATE_TEXT)
    if words is None:
        assert parse_state(text).pod is None
        return
    e = _err(parse_state, text)
    if line is not None:
        assert (e.line, e.column, e.token) == (line, column, token), str(e)
    else:
        assert e.line == text.count("\n")  # the last line: where a missing key is noticed
    assert words in str(e)


def test_ship_on_a_card_must_use_the_marker():
    text = _lines_replaced("Eo!@", "Eo!", STATE_TEXT)
    text = _lines_replaced("shields: 1\n", "ship: 3,2\nshields: 1\n", text)
    e = _err(parse_state, text)
    assert (e.line, e.column, e.token) == (17, 7, "3,2") and "'@'" in str(e)


@pytest.mark.parametrize(
    "doc, words",
    [
        ('{"format": "sensor-ghosts/setup", "grid": [', "malformed JSON"),
        ("[1, 2]", "is an object"),
        ('{"format": "chess"}', "format"),
    ],
)
def test_json_errors_basic(doc, words):
    e = _err(setup_from_json, doc)
    assert words in str(e)


def test_json_truncated_has_line_and_column():
    doc = json.dumps(setup_to_json(parse_setup(SETUP_TEXT)), indent=1)
    e = _err(load, doc[:200])
    assert e.line == doc[:200].count("\n") + 1 and e.column is not None
    assert "malformed JSON" in str(e)


def test_json_errors_name_the_path():
    obj = setup_to_json(parse_setup(SETUP_TEXT))
    bad = json.loads(json.dumps(obj))
    bad["grid"][2][1] = "Ao*q"
    e = _err(setup_from_json, bad)
    assert "grid[2][1]" in str(e) and e.token == "Ao*q"
    bad = json.loads(json.dumps(obj))
    bad["grid"].pop()
    assert "6 rows" in str(_err(setup_from_json, bad))
    bad = json.loads(json.dumps(obj))
    bad["options"]["players"] = "1"
    assert "options.players" in str(_err(setup_from_json, bad))
    bad = json.loads(json.dumps(obj))
    bad["extra"] = 1
    assert "unknown key" in str(_err(setup_from_json, bad))
    bad = json.loads(json.dumps(obj))
    del bad["deal"]
    assert "missing required key 'deal'" in str(_err(setup_from_json, bad))
    bad = json.loads(json.dumps(obj))
    bad["options"]["flags"] = ["warp"]
    assert "options.flags[0]" in str(_err(setup_from_json, bad))
    e = _err(setup_from_json, '{"format": "sensor-ghosts/setup", "format": 1}')
    assert "duplicate" in str(e)
    st_obj = state_to_json(parse_state(STATE_TEXT))
    e = _err(setup_from_json, st_obj)
    assert "this is a state" in str(e)
    st_obj["hands"] = [["F3"], "F1"]
    assert "hands[1]" in str(_err(state_from_json, st_obj))


# ----------------------------------------------------------------- turns


def _two_player_state() -> GameState:
    return parse_state(_lines_replaced("hands: F3 F1 | -", "hands: F3 F1 | W S2", STATE_TEXT))


@pytest.mark.parametrize(
    "text",
    [
        "bolster 1; F1+F3 fly U; rescan 2,4",
        "W flip 3,2 pod L",
        "F3+S2+F1 shields arrow U",
        "F3+S2+deck:F5 fly R",
        "F1 peek D; rescan 3",
        "W shift 4",
        "skip",
        "skip; rescan 1,5",
        "F1 fly L; then F3 fly L; rescan 1,2",
        "S2 shields pod D",
    ],
)
def test_turn_round_trip(text):
    s = _two_player_state()
    t = parse_turn(text, s)
    assert format_turn(t) == text == str(t)
    assert parse_turn(str(t), s) == t


def test_turn_resolves_players_and_arrows():
    s = _two_player_state()
    t = parse_turn("bolster 1; F1+W fly U; rescan 4,2", s)
    assert t.bolster == 1 and t.rescan == frozenset({2, 4})
    assert t.command == Command(
        (PlayedCard("F1", 0), PlayedCard("W", 1)), Action(ActionKind.FLY, Direction.UP)
    )  # the Wild on top: no arrow [D11]
    t = parse_turn("W+F1 fly U", s)
    assert t.command.arrow is Direction.UP  # a Fly card on top points the action's way
    t = parse_turn("F3+S2+deck:F5 fly R", s)
    assert t.command.cards[-1] == PlayedCard("F5", DECK_PLAYER)  # [D18]
    assert parse_turn("skip", s) == Turn(None)
    c = Command((PlayedCard("S2", 1),), Action(ActionKind.SHIELDS), pod_direction=Direction.DOWN)
    assert parse_turn(str(Turn(c, rescan=frozenset({1}))), s) == Turn(c, rescan=frozenset({1}))


@pytest.mark.parametrize(
    "text, column, token, words",
    [
        ("F1+F9 fly U", 4, "F9", "no player holds"),
        ("F1 fly X", 8, "X", "direction"),
        ("F1 jump U", 4, "jump", "unknown action"),
        ("F1 fly", 7, None, "expected a direction"),
        ("F1 flip 9,9", 9, "9,9", "row,col"),
        ("F1 fly U arrow D", 10, "arrow", "already sets the arrow"),
        ("F1 fly U; rescan 2,2", 20, "2", "twice"),
        ("F1 fly U; rescan 2,6", 20, "6", "1 to 5"),
        ("rescan 2", 1, "rescan", "unexpected part"),
        ("F1 fly U;; rescan 2", 10, "", "empty part"),
        ("", 1, None, "needs a command"),
        ("F1+F1 fly U", 4, "F1", "twice"),
        ("F1 fly U; bolster 1", 11, "bolster", "unexpected part"),
        ("skip extra", 6, "extra", "stands alone"),
    ],
)
def test_turn_errors(text, column, token, words):
    e = _err(parse_turn, text, _two_player_state())
    assert (e.column, e.token) == (column, token), str(e)
    assert words in str(e)


# ----------------------------------------------------------------- hypothesis

_DEFAULT = SectorCardSet.default()


@st.composite
def _setups(draw) -> Setup:
    rng = random.Random(draw(st.integers(0, 2**32)))
    cards = list(_DEFAULT.cards)
    rng.shuffle(cards)
    positions = [(r, c) for r in range(1, 8) for c in range(1, 6)]
    start_at = rng.sample(positions, 2)
    rest = [p for p in positions if p not in start_at]
    n_gaps = draw(st.integers(0, 4))
    grid_cells: dict = {}
    for pos, card in zip(start_at, START_CARDS, strict=True):
        grid_cells[pos] = Slot(card)
    sample_id = rng.randint(1, 3)
    for i, (pos, card) in enumerate(zip(rest, cards, strict=True)):
        if i < n_gaps:
            grid_cells[pos] = Gap(card if rng.random() < 0.9 else None)
            continue
        sample = None
        if rng.random() < 0.2:
            sample = Sample(sample_id, rng.random() < 0.6)
            sample_id += rng.choice([1, 1, 2])
        up = Side.BACK if rng.random() < 0.3 else Side.FRONT
        grid_cells[pos] = Slot(card, up, sample)
    grid = tuple(tuple(grid_cells[(r, c)] for c in range(1, 6)) for r in range(1, 8))
    flags = [f for f in ("escape-pod", "low-memory", "two-samples") if rng.random() < 0.3]
    options = RuleOptions(rng.randint(1, 4), rng.choice(["introductory", "standard"])).with_flags(
        flags
    )
    return Setup(grid, options, id=rng.choice([None, "g-1"]))


@settings(max_examples=60, deadline=None)
@given(_setups())
def test_random_setup_round_trips(setup: Setup):
    text = format_setup(setup)
    assert parse_setup(text) == setup
    assert format_setup(parse_setup(text)) == text
    assert setup_from_json(json.dumps(setup_to_json(setup))) == setup


@settings(max_examples=40, deadline=None)
@given(_setups(), st.integers(0, 1000))
def test_random_state_round_trips(setup: Setup, seed: int):
    rng = random.Random(seed)
    s = initial_state(setup, seed=seed)
    slots = [
        (r, c)
        for r in range(1, 8)
        for c in range(1, 6)
        if isinstance(setup.grid[r - 1][c - 1], Slot)
    ]
    ship = rng.choice(slots + [DOCK, EARTH])
    pod = rng.choice(slots + [DOCK, EARTH]) if setup.options.escape_pod else None
    seen = frozenset(setup.grid[r - 1][c - 1].card.id for r, c in rng.sample(slots, 4))
    s = replace(
        s,
        ship=ship,
        pod=pod,
        seen=seen,
        discard=(DiscardEntry(s.deck[0], Direction.RIGHT), DiscardEntry(s.deck[1])),
        deck=s.deck[2:],
        turn=rng.randint(1, 30),
        shields=rng.randint(0, 2),
        held=rng.randint(0, 3),
        second_pass=rng.random() < 0.5,
        outcome=rng.choice([Outcome(), Outcome(Status.LOST, "out of cards")]),
    )
    text = format_state(s)
    assert parse_state(text) == normalize_state(s)
    assert format_state(parse_state(text)) == text
    assert state_from_json(json.dumps(state_to_json(s))) == normalize_state(s)


def test_load_text_never_reads_a_path():
    assert load_text(SETUP_TEXT, source="x.sgs") == parse_setup(SETUP_TEXT)
    assert load_text(STATE_TEXT.encode()) == parse_state(STATE_TEXT)
    e = _err(load_text, "/etc/hostname")
    assert "header" in str(e)


# ------------------------------------------------- the shared reader's caches


def test_a_cell_read_before_is_placed_where_it_now_stands():
    # Cells are remembered by their text: a remembered cell still reports the
    # line and column where it stands this time, and a state's mark is still
    # refused in a setup after a state used it.
    parse_state(STATE_TEXT.replace("7: Ee  ", "7: Ee! ", 1))
    twice = STATE_TEXT.replace("3: Eo   Bb", "3: Eo!@ Bb", 1)
    e = _err(parse_state, twice)
    assert "ship is marked twice" in str(e)
    assert (e.line, e.column, e.token) == (7, 4, "Eo!@")
    e = _err(parse_state, STATE_TEXT.replace("6: Eb  ", "6: Ab#x", 1))
    assert (e.line, e.column, e.token) == (3, 6, "Ab#x")
    setup_with_mark = SETUP_TEXT.replace("Ee ", "Ee!", 1)
    assert setup_with_mark != SETUP_TEXT
    e = _err(parse_setup, setup_with_mark)
    assert "belongs to a state, not a setup" in str(e)


def test_a_json_error_names_its_whole_path():
    obj = state_to_json(parse_state(STATE_TEXT))
    obj["grid"][2][3] = "Zz"
    e = _err(state_from_json, obj)
    assert e.reason.startswith("grid[2][3]: unknown cell 'Z'")
    obj = state_to_json(parse_state(STATE_TEXT))
    obj["hands"][1] = ["F1", 7]
    e = _err(state_from_json, obj)
    assert e.reason.startswith("hands[1][1]: expected a string")


def test_an_observation_with_a_grid_and_no_keys_says_so():
    from sensor_ghosts.rules.observation import observe
    from sensor_ghosts.rules.observation_notation import format_observation, parse_observation

    text = format_observation(observe(parse_state(STATE_TEXT), 0))
    grid_only = "\n".join(text.split("\n")[:8]) + "\n"
    e = _err(parse_observation, grid_only)
    assert e.reason == "expected 'key: value' lines after the grid"
    assert (e.line, e.column) == (8, len(text.split("\n")[7]) + 1)
