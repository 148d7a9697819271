"""The three gaps of RULES.md that are named rule options (RULES.md asks for the
other plausible reading of a silent rule to be an option, the project's own
reading staying the default):

- ``pod-once-per-turn`` (§10 + §12): the escape pod moves once a turn, after the
  turn's last action, instead of after each action.
- ``helpers-once-per-turn`` (§9 + §12): in a multi-player game each player plays
  at most one card in the whole turn, instead of one per action.
- ``earth-in-row-7`` (§10 + [D14]): a ship waiting at Earth counts as in row 7,
  instead of in no row.

Each test builds one position and checks both readings on it: the legal turns
or the outcome differ, so an implementation of either reading that is wrong
fails. Positions come from the builder of ``test_conformance``.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from test_conformance import (
    SHIELDS,
    D,
    R,
    U,
    cmd,
    do,
    fly,
    keys,
    make,
    refuse,
    refuse_cmd,
    rescans_for,
    shift,
)

from sensor_ghosts.rules.commands import spent_players
from sensor_ghosts.rules.engine import apply_turn, legal_turns
from sensor_ghosts.rules.geometry import EARTH
from sensor_ghosts.rules.options import FLAG_NAMES, RuleOptions
from sensor_ghosts.rules.state import Status
from sensor_ghosts.rules.turns import DECK_PLAYER, ActionKind, Turn

NEW_FLAGS = ("pod-once-per-turn", "helpers-once-per-turn", "earth-in-row-7")


# --------------------------------------------------------------------------
# pod-once-per-turn (§10 escape pod + §12 second action)
# --------------------------------------------------------------------------


# Sparse grids (gaps but for the cards named) keep the turn lists short: with
# a second action, and in multi-player games every helper's card (and the
# deck's for a two-player wild), multiply them.
GAPS = ". . . . ."
POD_ROWS = {1: "S S . . .", 2: GAPS, 3: ". . E/E E/E E/E", 4: ". . E/E E/E E/E",
            5: ". E/E E/E . .", 6: ". E/E E/E . .", 7: GAPS}


def _pod_position(pod_once: bool, row4: str = ". . E/E E/E E/E"):
    # Solo, escape pod, second action; one virus held to pay for it. F1 has pod
    # value 1, S2 value 2 ([D5]). The ship flies from row 5 to row 6, so the
    # re-scan shifts row 7, not a row the pod is in.
    return make({**POD_ROWS, 4: row4}, hand=("F1", "S2", "D1"), escape_pod=True,
                second_action=True, held=1, ship=(5, 2), pod=(3, 3), pod_once_per_turn=pod_once)


def test_s10_s12_pod_moves_after_each_action_by_default():
    s = _pod_position(False)
    after = do(s, cmd(s, "F1", fly(U)), second=cmd(s, "S2", SHIELDS, pod=R))
    # Up 1 along F1's arrow after the first action, then right 2 after the second.
    assert after.pod == (4, 5) and after.ship == (6, 2) and after.held == 0


def test_s10_s12_pod_once_per_turn_moves_after_the_last_action_only():
    s = _pod_position(True)
    after = do(s, cmd(s, "F1", fly(U)), second=cmd(s, "S2", SHIELDS, pod=R))
    # Only the second command's top card (S2, value 2) moves the pod.
    assert after.pod == (3, 5) and after.ship == (6, 2) and after.held == 0
    # A turn with one action: the pod moves after it, as by default.
    one = do(s, cmd(s, "F1", fly(U)))
    assert one.pod == (4, 3) == do(_pod_position(False), cmd(s, "F1", fly(U))).pod


def test_s10_s12_pod_once_per_turn_first_of_two_commands_has_no_pod_direction():
    d, o = _pod_position(False), _pod_position(True)
    # Default: S2 on top of the first action chooses the pod's direction.
    after = do(d, cmd(d, "S2", SHIELDS, pod=U), second=cmd(d, "F1", fly(U)))
    assert after.pod == (6, 3) and after.ship == (6, 2)  # up 2, then up 1
    # Option: that choice does not exist, the pod moves once (F1: up 1).
    refuse(o, Turn(cmd(o, "S2", SHIELDS, pod=U), second=cmd(o, "F1", fly(U))), "pod-once-per-turn")
    assert do(o, cmd(o, "S2", SHIELDS), second=cmd(o, "F1", fly(U))).pod == (4, 3)
    # By default the same turn without a pod direction is refused.
    refuse(d, Turn(cmd(d, "S2", SHIELDS), second=cmd(d, "F1", fly(U))), "choose a direction")

    turns = [legal_turns(s) for s in (d, o)]
    firsts = [{t.command.pod_direction for t in ts if t.second is not None} for ts in turns]
    # (Down or left the pod meets a gap: lost, no second action follows.)
    assert firsts == [{None, U, R}, {None}]
    # Turns with one action are the same under both readings.
    single = [{t.key() for t in ts if t.second is None} for ts in turns]
    assert single[0] == single[1]


def test_s10_s12_pod_once_per_turn_first_action_cannot_destroy_the_pod():
    row4 = ". . O/E E/E E/E"  # a face-up O above the pod
    d, o = _pod_position(False, row4), _pod_position(True, row4)
    # Default: F1 moves the pod up into the O after the first action: lost, so
    # no second action follows.
    lost = do(d, cmd(d, "F1", fly(U)))
    assert lost.outcome.status is Status.LOST and "escape pod" in lost.outcome.reason
    refuse(d, Turn(cmd(d, "F1", fly(U)), second=cmd(d, "S2", SHIELDS, pod=R)), "ended during the first action")
    # Option: the pod waits for the second action and goes right instead.
    after = do(o, cmd(o, "F1", fly(U)), second=cmd(o, "S2", SHIELDS, pod=R))
    assert after.outcome.status is Status.ONGOING and after.pod == (3, 5)


def test_s10_s12_pod_once_per_turn_without_second_action_changes_nothing():
    plain = make(POD_ROWS, hand=("F1", "S2", "D1"), escape_pod=True, held=1, ship=(5, 2), pod=(3, 3))
    once = make(POD_ROWS, hand=("F1", "S2", "D1"), escape_pod=True, held=1, ship=(5, 2), pod=(3, 3),
                pod_once_per_turn=True)
    assert keys(plain) == keys(once)


# --------------------------------------------------------------------------
# helpers-once-per-turn (§9 multi-player + §12 second action)
# --------------------------------------------------------------------------


SPARSE = {1: "S S . . .", 2: GAPS, 3: GAPS, 4: GAPS, 5: GAPS,
          6: ". E/E E/E . .", 7: ". E/E E/E . ."}


def _helpers_position(once: bool, hands=(("F1", "S1"), ("F2", "D1"))):
    return make(SPARSE, hands=hands, discard=[("F4", U)], deck=("F5", "F6", "F7", "S2"),
                ship=(6, 2), held=1, second_action=True, helpers_once_per_turn=once)


def _three_players(once: bool):
    return make(SPARSE, hands=(("F1", "S1"), ("F2", "D1"), ("F3", "S2")), discard=[("F4", U)],
                deck=("F5", "F6", "F7"), ship=(6, 2), held=1, second_action=True,
                helpers_once_per_turn=once)


def test_s9_s12_by_default_each_action_may_take_one_card_of_each_player():
    s = _helpers_position(False)
    after = do(s, cmd(s, "F1", fly(U)), second=cmd(s, "S1", SHIELDS))
    assert after.ship == (7, 2) and after.shields == 1 and after.held == 0
    assert any(t.second is not None for t in legal_turns(s))
    # The helper who played for the first action may help again.
    s3 = _three_players(False)
    after = do(s3, cmd(s3, "F1 F2", fly(R)), second=cmd(s3, "D1 F3 S1", fly(U)))
    assert after.ship == (7, 3) and after.hands == (("F5", "F6"), (), ("S2",))


def test_s9_s12_helpers_once_per_turn_leaves_no_second_action_in_multiplayer():
    # Every command holds one card of the active player (§9), who has played it
    # for the first action: no second action can be made.
    s = _helpers_position(True)
    refuse(s, Turn(cmd(s, "F1", fly(U)), second=cmd(s, "S1", SHIELDS)), "helpers-once-per-turn")
    assert not any(t.second is not None for t in legal_turns(s))
    # The first action alone is as by default.
    first = {t.key() for t in legal_turns(_helpers_position(False)) if t.second is None}
    assert {t.key() for t in legal_turns(s)} == first
    s3 = _three_players(True)
    refuse(s3, Turn(cmd(s3, "F1 F2", fly(R)), second=cmd(s3, "S1", SHIELDS)), "helpers-once-per-turn")
    # Nor may the third player, who has not played yet, make the second action.
    refuse(s3, Turn(cmd(s3, "F1 F2", fly(R)), second=cmd(s3, "S2", SHIELDS)), "active player")
    assert not any(t.second is not None for t in legal_turns(s3))


def test_s9_s12_helpers_once_per_turn_counts_players_not_the_deck_card_D18():
    s = make(hands=(("S1", "F1"), ("D1", "F2")), deck=("S2", "F5", "F6"), ship=(2, 2),
             held=1, second_action=True, helpers_once_per_turn=True)
    wild = cmd(s, "S1 D1 deck:S2", fly(U))
    assert any(pc.player == DECK_PLAYER for pc in wild.cards)
    assert spent_players(s, wild) == frozenset({0, 1})
    assert spent_players(s, cmd(s, "F1", fly(U))) == frozenset({0})
    off = replace(s, setup=replace(s.setup, options=replace(s.options, helpers_once_per_turn=False)))
    assert spent_players(off, wild) == frozenset()


def test_s9_s12_helpers_once_per_turn_does_not_touch_solo_play():
    plain = make(hand=("F1", "S1", "F2"), ship=(2, 2), held=1, second_action=True)
    once = make(hand=("F1", "S1", "F2"), ship=(2, 2), held=1, second_action=True,
                helpers_once_per_turn=True)
    assert keys(plain) == keys(once)
    assert do(once, cmd(once, "F1", fly(U)), second=cmd(once, "S1", SHIELDS)).shields == 1


# --------------------------------------------------------------------------
# earth-in-row-7 (§10 a ship waiting at Earth + [D14])
# --------------------------------------------------------------------------


def _earth_position(row7: bool, pod=(3, 3)):
    return make(hand=("D1", "S1", "F1"), escape_pod=True, ship=EARTH, pod=pod, held=1,
                earth_in_row_7=row7)


def _shift_rows(s) -> set:
    return {t.command.action.row for t in legal_turns(s) if t.command.action.kind is ActionKind.SHIFT}


def test_s10_D14_ship_at_earth_stands_in_no_row_by_default():
    s = _earth_position(False)
    assert _shift_rows(s) == {1, 2, 3, 4, 5, 6, 7}
    after = do(s, cmd(s, "D1", shift(7), pod=D))
    assert [c.card.id for c in after.grid[6]] == [72, 73, 74, 75, 71]


def test_s10_D14_earth_in_row_7_row_7_cannot_be_shifted():
    s = _earth_position(True)
    assert _shift_rows(s) == {1, 2, 3, 4, 5, 6}
    refuse_cmd(s, cmd(s, "D1", shift(7), pod=D), r"row 7 cannot be shifted.*\[D14\]")
    assert do(s, cmd(s, "D1", shift(6), pod=D)).grid[5] != s.grid[5]
    assert keys(s) < keys(_earth_position(False))


@pytest.mark.parametrize("row7", [False, True])
def test_s10_D2_ship_at_earth_rescan_does_nothing_either_way(row7):
    s = _earth_position(row7)
    c = cmd(s, "S1", SHIELDS, pod=D)
    assert rescans_for(s, c) == {frozenset()}
    after = do(s, c)
    assert after.grid == s.grid and after.pod == (2, 3)


def test_s10_earth_in_row_7_changes_the_outcome_of_a_row_7_shift():
    # The pod on (7,1): shifting row 7 carries it to (7,5) ([D16], [D17]); D1's
    # value 1 to the right then lands it on Earth, where the ship waits.
    d, o = _earth_position(False, pod=(7, 1)), _earth_position(True, pod=(7, 1))
    won = do(d, cmd(d, "D1", shift(7), pod=R))
    assert won.outcome.status is Status.WON and won.pod == EARTH
    assert not any(apply_turn(o, t).outcome.status is Status.WON for t in legal_turns(o))


def test_earth_in_row_7_before_the_ship_arrives_changes_nothing():
    for ship in ((7, 3), (5, 2)):
        a = make(hand=("D1", "S1", "F1"), escape_pod=True, ship=ship, pod=(3, 3))
        b = make(hand=("D1", "S1", "F1"), escape_pod=True, ship=ship, pod=(3, 3), earth_in_row_7=True)
        assert keys(a) == keys(b)


# --------------------------------------------------------------------------
# The flags in options, notation and game ids
# --------------------------------------------------------------------------


def test_gap_options_are_named_flags_off_by_default():
    o = RuleOptions()
    for name in NEW_FLAGS:
        attr = FLAG_NAMES[name]
        assert getattr(o, attr) is False
        assert getattr(o.with_flags([name]), attr) is True
        assert o.with_flags([name]).flags() == [name]


def _setup_with_all_flags(players=2):
    from positions import SETUP_TEXT

    from sensor_ghosts.rules.notation import parse_setup

    flags = ["escape-pod", "second-action", *NEW_FLAGS]
    return replace(parse_setup(SETUP_TEXT), options=RuleOptions(players).with_flags(flags))


def test_gap_options_round_trip_through_setup_text_and_json():
    from sensor_ghosts.rules.notation import (
        format_setup,
        parse_setup,
        setup_from_json,
        setup_to_json,
    )

    s = _setup_with_all_flags()
    text = format_setup(s)
    assert ("options: escape-pod, second-action, pod-once-per-turn, helpers-once-per-turn, "
            "earth-in-row-7\n") in text
    assert parse_setup(text) == s and format_setup(parse_setup(text)) == text
    obj = setup_to_json(s)
    assert obj["options"]["flags"] == ["escape-pod", "second-action", *NEW_FLAGS]
    assert setup_from_json(json.dumps(obj)) == s
    for name in NEW_FLAGS:  # each alone
        one = replace(s, options=RuleOptions(1).with_flags([name]))
        assert parse_setup(format_setup(one)) == one
        assert setup_from_json(json.dumps(setup_to_json(one))) == one


def test_gap_options_round_trip_through_state_text_and_json():
    from sensor_ghosts.rules.notation import (
        format_state,
        normalize_state,
        parse_state,
        state_from_json,
        state_to_json,
    )
    from sensor_ghosts.rules.state import initial_state

    s = initial_state(_setup_with_all_flags(), seed=3).evolve(ship=EARTH, held=1)
    text = format_state(s)
    assert "earth-in-row-7" in text
    back = parse_state(text)
    assert back == normalize_state(s) and back.options == s.options
    assert state_from_json(json.dumps(state_to_json(s))) == normalize_state(s)


def test_gap_options_in_game_ids_and_on_the_command_line():
    from click.testing import CliRunner

    from sensor_ghosts.cli.generate_cmd import generate
    from sensor_ghosts.generators.game_id import GameId, format_game_id, parse_game_id
    from sensor_ghosts.rules.notation import parse_setup

    o = RuleOptions(2).with_flags(["escape-pod", "second-action", *NEW_FLAGS])
    gid = GameId(7, o)
    text = format_game_id(gid)
    assert text == "2p-standard-pod-second-podonce-helpersonce-earthrow7#7"
    assert parse_game_id(text) == gid
    assert parse_game_id("2p-standard-pod-second-pod-once-per-turn-helpers-once-per-turn"
                         "-earth-in-row-7#7") == gid
    args = ["--seed", "3", "--players", "2", "--escape-pod", "--option", "second-action"]
    for name in NEW_FLAGS:
        args += ["--option", name]
    r = CliRunner().invoke(generate, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    setup = parse_setup(r.output)
    assert setup.options == o and setup.id == "2p-standard-pod-second-podonce-helpersonce-earthrow7#3"
