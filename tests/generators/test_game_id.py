"""Game IDs: ``params#seed`` regenerates a setup exactly; bad IDs name the bad part."""

from __future__ import annotations

import pytest

from sensor_ghosts.generators import GameIdError, generate_setup, parse_game_id, setup_from_id
from sensor_ghosts.generators.game_id import GameId, format_game_id
from sensor_ghosts.rules.options import Difficulty, RuleOptions

from .helpers import card_set


@pytest.mark.parametrize(
    "text, options",
    [
        ("1p-standard#12345", RuleOptions()),
        ("1p-standard-pod#12345", RuleOptions(escape_pod=True)),
        ("2p-advanced-pod-lowmem#7", RuleOptions(players=2, difficulty=Difficulty.ADVANCED,
                                                 escape_pod=True, low_memory=True)),
        ("4p-introductory-second-reveal-nocubes-twosamples-flipone#0",
         RuleOptions(players=4, difficulty=Difficulty.INTRODUCTORY, second_action=True,
                     reveal_once=True, no_memory_cubes=True, two_samples=True, flip_one=True)),
    ],
)  # fmt: skip
def test_round_trip(text, options):
    gid = parse_game_id(text)
    assert gid.options == options
    assert format_game_id(gid) == text
    s = setup_from_id(text)
    assert s.id == text
    assert s == generate_setup(gid.seed, options)


def test_long_flag_names_accepted_canonical_form_written():
    gid = parse_game_id("1p-standard-escape-pod-flip-one#3")
    assert gid.options == RuleOptions(escape_pod=True, flip_one=True)
    assert str(gid) == "1p-standard-pod-flipone#3"


def test_constraints_sorted():
    assert (
        str(GameId(1, RuleOptions(), ("reachable", "no-o-sample")))
        == "1p-standard+no-o-sample+reachable#1"
    )


@pytest.mark.parametrize(
    "text, part",
    [
        ("1p-standard", "1p-standard"),
        ("1p-standard#1#2", "#2"),
        ("1p-standard#abc", "abc"),
        ("1p-standard#-5", "-5"),
        ("5p-standard#1", "5p"),
        ("xp-standard#1", "xp"),
        ("1p-hard#1", "hard"),
        ("1p-standard-turbo#1", "turbo"),
        ("1p-standard-pod-pod#1", "pod"),
        ("1p-standard+nope#1", "nope"),
        ("1p#1", "1p"),
        ("1p-standard-cards.XYZ#1", "cards.XYZ"),
    ],
)
def test_bad_ids_name_the_part(text, part):
    with pytest.raises(GameIdError) as ei:
        parse_game_id(text)
    assert ei.value.part == part
    assert repr(part) in str(ei.value)


def test_card_set_fingerprint_checked():
    cards = card_set(8, 4, 11, 10)
    s = generate_setup(9, sector_cards=cards)
    with pytest.raises(GameIdError, match="needs its custom sector card set"):
        setup_from_id(s.id)
    with pytest.raises(GameIdError, match="fingerprint"):
        setup_from_id(s.id, sector_cards=card_set(9, 4, 10, 10))
    with pytest.raises(GameIdError, match="default sector card set"):
        setup_from_id("1p-standard#9", sector_cards=cards)
