"""Card sets as data ([D3], [D5]): the defaults load; a malformed or inconsistent
file is refused with a message naming the file and the line."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sensor_ghosts.cli.main import main
from sensor_ghosts.rules.cards import CommandCardSet, SectorCardSet
from sensor_ghosts.rules.errors import CardSetError


def _sector_text(lines: list[str]) -> str:
    return "# a custom set\n" + "\n".join(lines) + "\n"


GOOD_SECTORS = [f"{c.id} {c.pair}" for c in SectorCardSet.default().cards]
GOOD_COMMANDS = [f"{c.id} {c.kind.value} {c.pod_value}" for c in CommandCardSet.default().cards]


def test_a_custom_sector_set_loads_from_a_file(tmp_path):
    lines = list(GOOD_SECTORS)
    lines[0] = "1 O/O"  # any mix is allowed; only the count is fixed
    path = tmp_path / "mine.txt"
    path.write_text(_sector_text(lines))
    cards = SectorCardSet.load(path)
    assert cards.name == "mine"
    assert cards.by_id(1).pair == "O/O"


@pytest.mark.parametrize(
    "change, line, words",
    [
        (lambda ls: ls.__setitem__(4, "5 E/X"), 6, "unknown sector type 'X'"),
        (lambda ls: ls.__setitem__(7, "3 A/A"), 9, "duplicate card id 3 (first on line 4)"),
        (lambda ls: ls.__setitem__(2, "three E/E"), 4, "whole number"),
        (lambda ls: ls.__setitem__(2, "3 E-E"), 4, "expected 'id front/back'"),
        (lambda ls: ls.pop(), None, "33 cards, this one has 32"),
    ],
)
def test_malformed_sector_sets_name_the_line(tmp_path, change, line, words):
    lines = list(GOOD_SECTORS)
    change(lines)
    path = tmp_path / "bad.txt"
    path.write_text(_sector_text(lines))
    with pytest.raises(CardSetError) as info:
        SectorCardSet.load(path)
    assert info.value.line == line
    assert words in str(info.value)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda ls: ls.__setitem__(0, "F1 fly 4"), "pod value must be 1, 2 or 3"),
        (lambda ls: ls.__setitem__(0, "F1 jump 1"), "unknown command kind 'jump'"),
        (lambda ls: ls.__setitem__(1, "F1 fly 2"), "duplicate card id 'F1'"),
        (lambda ls: ls.pop(15), "1 wild card(s), this one has 0"),
    ],
)
def test_malformed_command_sets(change, words):
    lines = list(GOOD_COMMANDS)
    change(lines)
    with pytest.raises(CardSetError) as info:
        CommandCardSet.parse("\n".join(lines), source="cmds.txt")
    assert words in str(info.value)


def test_unreadable_card_file_is_a_card_set_error(tmp_path):
    path = tmp_path / "bin.txt"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CardSetError):
        SectorCardSet.load(path)
    with pytest.raises(CardSetError):
        SectorCardSet.load(tmp_path / "missing.txt")


def test_cli_bad_cards_file_exits_2_with_the_line(tmp_path):
    lines = list(GOOD_SECTORS)
    lines[4] = "5 E/X"
    cards = tmp_path / "bad.txt"
    cards.write_text(_sector_text(lines))
    setup = tmp_path / "s.txt"
    setup.write_text(CliRunner().invoke(main, ["generate", "--seed", "1"]).output)
    r = CliRunner().invoke(main, ["validate", str(setup), "--cards", str(cards)])
    assert r.exit_code == 2
    assert f"{cards}:6:" in r.stderr
