"""Validation of setups (RULES.md §3) and mid-game states: every violation reported."""

from __future__ import annotations

from dataclasses import replace

import pytest
from positions import SETUP_TEXT

from sensor_ghosts.rules.cards import START_CARDS
from sensor_ghosts.rules.errors import InvalidSetupError
from sensor_ghosts.rules.geometry import DOCK, EARTH, Direction
from sensor_ghosts.rules.notation import parse_setup, parse_state
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.setup import Deal, Gap, Slot, replace_cell
from sensor_ghosts.rules.state import DiscardEntry, Outcome, Status, initial_state
from sensor_ghosts.rules.validation import (
    Violation,
    check,
    check_state,
    validate,
    validate_state,
)

VALID = SETUP_TEXT

# Row 1 shifted one place left twice by Deep Scans [D16], a card flipped, samples
# collected, the second pass under way.
VALID_STATE = """\
sensor-ghosts state
7: Ee   Ab   -Ea Ae*v Oo
6: Eb   Aa   Oe  -Ae  oB*v!
5: Ea   Ao*r -Ba Oe   Oa
4: Ea   Be   Ae  Oo*v Ab
3: Eo   Bb   Aa  oA   Ao
2: Eo!@ Ba   Ae  Oe   Eo
1: Ee   Ea   Bo  S    S&
players: 2
difficulty: standard
options: escape-pod
cards: default
commands: default
turn: 7
active: 2
shields: 1
held: 0
hands: F3 F1 | W S2
deck: F5 F7 D2
discard: F4 F2^ S1 F6 F8< D1
ranking: F1 F2 F3 F4 F5 F6 F7 F8 D1 D2 S1 S2 W
pass: 2
outcome: ongoing
"""


def _setup(old: str = "", new: str = "", text: str = VALID):
    for o, n in zip(old.split("|"), new.split("|"), strict=True) if old else ():
        assert o in text, o
        text = text.replace(o, n, 1)
    return parse_setup(text)


def _rules(vs: list[Violation]) -> list[str]:
    return sorted(v.rule for v in vs)


def test_valid_setup_has_no_violation():
    s = parse_setup(VALID)
    assert validate(s) == []
    assert check(s) is s


def test_valid_setup_with_deal():
    s = parse_setup(VALID)
    st = initial_state(s, seed=1)
    assert validate(replace(s, deal=Deal(tuple(sum(st.hands, ())) + st.deck, st.ranking))) == []


def test_start_cards_misplaced():
    # [D4] step 1: the second start card moved to (1,3); (1,2) holds a sector card.
    s = _setup("1: S    S    Ee", "1: S    Ee   S ")
    vs = validate(s)
    assert [(v.rule, v.where) for v in vs] == [("step 1", (1, 2)), ("step 1", (1, 3))]


def test_start_cell_gap_and_too_many_gaps():
    # A gap on (1,2) [D8]; the start card is gone; and there are 4 gaps.
    s = _setup("1: S    S    Ee", "1: S    -Ee  S ")
    vs = validate(s)
    assert ("D8", (1, 2)) in [(v.rule, v.where) for v in vs]
    assert any(v.rule == "D8" and "exactly 3" in v.message for v in vs)
    assert any(v.rule == "D8" and "adjacent" in v.message and v.where == (1, 2) for v in vs)
    assert any(v.rule == "step 1" and v.where == (1, 3) for v in vs)


def test_card_count_mismatch_reported_per_pair():
    # One A/E replaced by an E/E: the set has 4 A/E and 2 E/E.
    s = _setup("2: Eo   Ba   Ae", "2: Eo   Ba   Ee")
    msgs = [v.message for v in validate(s) if v.rule == "cards"]
    assert msgs == [
        "the card set has 2 E/E, the grid has 3 (gaps' cards included)",
        "the card set has 4 A/E, the grid has 3 (gaps' cards included)",
    ]


def test_duplicate_ids_with_right_counts():
    s = parse_setup(VALID)
    a = s.cell((7, 4))
    b = s.cell((4, 3))
    grid = replace_cell(s.grid, (4, 3), Slot(a.card, b.up, b.sample))  # id 16 twice, 18 gone
    vs = validate(replace(s, grid=grid))
    # Counts still match (4 A/E), so identities are checked.
    assert [v.message for v in vs] == ["card id 16 appears 2 times"]


def test_many_rules_at_once():
    text = VALID
    s = _setup(
        # a card dealt back up; row 3 has no E/B front; a sample in row 2;
        # row 6 loses its sample; an O-front card removed, far from any sample.
        "7: Ee   Ab|6: Eb   Aa   Oe  -Ae  Ob*v|3: Eo*r Bb   Aa  Oa   Ao|2: Eo   Ba   Ae  Oe   Eo",
        "7: eE   Ab|6: Eb   Aa   Oe  -Ae  Ob  |3: Ao*r Ab   Aa  Oa   Ao|2: Eo*v Ba   Ae  -Oe  Eo",
        text,
    )
    vs = validate(s)
    found = {(v.rule, v.where) for v in vs}
    assert ("step 2", (7, 1)) in found
    assert ("step 4", None) in found
    assert ("step 9", (2, 1)) in found
    assert any(v.rule == "step 9" and "row 6 has 0" in v.message for v in vs)
    assert any(v.rule == "step 9" and "row 3 has 1" in v.message for v in vs) is False
    assert ("D8", (2, 4)) in found  # O-front removed; also not beside a sample
    assert sum(1 for v in vs if v.where == (2, 4)) == 2
    assert any(v.rule == "D8" and "found 4 gaps" in v.message for v in vs)
    assert any(v.rule == "cards" for v in vs)  # E/o and B/b swapped for A cards
    with pytest.raises(InvalidSetupError) as info:
        check(s)
    assert info.value.violations == vs
    assert "[step 2]" in str(info.value)


def test_sample_counts():
    # Swapping which token lies where keeps 3 virus + 2 rock: still valid.
    assert validate(_setup("Ae*v Oo|Ao*r -Ba", "Ae*r Oo|Ao*v -Ba")) == []
    s = _setup("Ae*v Oo|Ao*r -Ba|Oo*v Ab", "Ae*r Oo|Ao*r -Ba|Oo*r Ab")
    assert [v.message for v in validate(s)] == ["the samples are 3 virus and 2 rock, found 1 and 4"]
    # Two samples in row 7, none in row 4.
    s = _setup("Ee   Ab|Oo*v Ab", "Ee*v Ab|Oo   Ab")
    assert [v.message for v in validate(s)] == [
        "row 4 has 0 samples, expected exactly 1",
        "row 7 has 2 samples, expected exactly 1",
    ]


def test_gap_rules():
    # Move the sample of row 7 away: gaps (7,3) and (6,4) lose their neighbour.
    s = _setup("Ee   Ab   -Ea Ae*v Oo|Ob*v", "Ee*v Ab   -Ea Ae   Oo|Ob  ")
    vs = validate(s)
    assert [(v.rule, v.where) for v in vs] == [
        ("step 9", None),  # row 6 lost its sample
        ("step 9", None),  # so only 2 virus samples are left
        ("D8", (6, 4)),
        ("D8", (7, 3)),
    ]


def test_deal_violations():
    s = parse_setup(VALID)
    good = initial_state(s, seed=2)
    first = tuple(sum(good.hands, ())) + good.deck
    bad_first = first[:-1] + ("W",)
    vs = validate(replace(s, deal=Deal(bad_first, good.ranking[:-1])))
    assert [v.rule for v in vs] == ["D22", "D22"]
    assert "[D6]" in vs[0].message and "not in this game: W" in vs[0].message
    assert "missing: " + good.ranking[-1] in vs[1].message


# ----------------------------------------------------------------- states


def test_valid_states():
    s = parse_state(VALID_STATE)
    assert validate_state(s) == []
    assert check_state(s) is s
    # The start cards moved by Deep Scan shifts of row 1 [D16].
    assert s.cell((1, 4)).card == START_CARDS[0]
    init = initial_state(parse_setup(VALID), seed=4)
    assert validate_state(init) == []


def test_state_many_violations():
    s = parse_state(VALID_STATE)
    bad = replace(
        s,
        shields=3,  # [D9]
        hands=(("F3", "F1", "F9"), ("W", "S2", "F3")),  # over the limit, F3 twice, F9 not in game
        active=2,
        ranking=s.ranking[:-1],
        ship=(7, 3),  # a gap
        held=1,  # + 3 virus on the grid > 3
        discard=s.discard[:-1] + (DiscardEntry("D1", Direction.UP),),
        turn=0,
    )
    vs = validate_state(bad)
    rules = set(_rules(vs))
    assert {"D9", "hands", "commands", "active", "D22", "ship", "samples", "D11", "turn"} <= rules
    assert sum(1 for v in vs if v.rule == "hands") == 2
    cmd = next(v for v in vs if v.rule == "commands").message
    assert "repeated: F3" in cmd and "not in this game: F9" in cmd
    with pytest.raises(InvalidSetupError):
        check_state(bad)


def test_wild_aside_during_first_pass():
    s = parse_state(VALID_STATE.replace("pass: 2", "pass: 1"))
    vs = validate_state(s)
    assert [v.rule for v in vs] == ["D6"]
    # Wild aside and nowhere else: valid in pass 1.
    s2 = replace(s, hands=(("F3", "F1"), ("S2",)))
    assert validate_state(s2) == []


def test_pod_and_ship_positions():
    s = parse_state(VALID_STATE)
    no_pod = replace(s, pod=None)
    assert [v.rule for v in validate_state(no_pod)] == ["pod"]
    pod_no_option = replace(s, setup=replace(s.setup, options=RuleOptions(2)))
    assert [v.rule for v in validate_state(pod_no_option)] == ["pod"]
    assert [v.rule for v in validate_state(replace(s, pod=(6, 4)))] == ["pod"]
    assert [v.rule for v in validate_state(replace(s, ship=(8, 3)))] == ["ship"]
    assert validate_state(replace(s, ship=DOCK, pod=EARTH)) == []
    # A lost game may leave the ship where it died.
    lost = replace(s, ship=(7, 3), outcome=Outcome(Status.LOST, "flew into a gap"))
    assert validate_state(lost) == []
    solo = initial_state(parse_setup(VALID), seed=1)
    assert [v.rule for v in validate_state(replace(solo, ship=EARTH))] == ["D12"]


def test_state_cards_conserved():
    s = parse_state(VALID_STATE)
    # A start card leaves row 1; a sector card is lost (replaced by a gap of nothing).
    grid = replace_cell(s.grid, (2, 2), Slot(START_CARDS[1]))
    grid = replace_cell(grid, (1, 5), Gap(None))
    vs = validate_state(replace(s, grid=grid, pod=DOCK))
    rules = _rules(vs)
    assert "D16" in rules and "D26" in rules and "cards" in rules
    assert any("B/A" in v.message for v in vs)


def test_seen_must_be_on_grid():
    s = parse_state(VALID_STATE)
    vs = validate_state(replace(s, seen=s.seen | {17}))  # 17 is the gap at (6,4)
    assert [(v.rule, v.message) for v in vs] == [("seen", "seen card 17 is not on the grid")]


def test_violation_text():
    v = Violation("D8", "an O-front card cannot be removed", (2, 4))
    assert str(v) == "[D8] an O-front card cannot be removed (at 2,4)"
    assert str(Violation("step 4", "row 3 shows no E or B front")) == (
        "[step 4] row 3 shows no E or B front"
    )


def test_engine_play_keeps_states_valid_and_turns_round_trip():
    # Integration: random legal play from valid states stays valid, every turn's
    # text parses back to the same Turn, every state's text to the same state.
    import random

    from sensor_ghosts.rules.notation import format_state, parse_turn

    engine = pytest.importorskip("sensor_ghosts.rules.engine")
    rng = random.Random(7)
    starts = [parse_state(VALID_STATE)]
    for p, flags in ((1, []), (2, ["escape-pod"]), (4, ["second-action", "low-memory"])):
        setup = replace(parse_setup(VALID), options=RuleOptions(p).with_flags(flags))
        starts.append(initial_state(setup, seed=p))
    for s in starts:
        for _ in range(12):
            turns = engine.legal_turns(s)
            if s.is_over or not turns:
                break
            t = rng.choice(turns)
            assert parse_turn(str(t), s) == t
            s = engine.apply_turn(s, t)
            assert validate_state(s) == [], format_state(s)
            again = parse_state(format_state(s))
            assert again == replace(s, setup=again.setup)
