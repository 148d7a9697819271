"""Rule conformance: every [Dn] decision and every rule sentence of RULES.md §§4-12,
each checked on a hand-made position (see the test names).

Positions are built straight from the dataclasses with the small builder below
(``grid``/``make``), so these tests do not depend on notation.py.

Grid tokens, one per column, rows given as {row: "c1 c2 c3 c4 c5"}:
    ``E/A``   a sector card, front E, back A, front up (entering it flips it: A!)
    ``E/A!``  the same card with its back up (shows A)
    ``+v``    suffix: a virus sample on it; ``+r`` a rock
    ``.``     a gap (its card is E/E)     ``S``  a start card
Unlisted rows are ``E/E`` filler (row 1: ``S S E/E E/E E/E``). The card at the
cell (r, c) of the position as built gets the id ``10*r + c``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections import Counter
from itertools import combinations

import pytest

from sensor_ghosts.rules.cards import (
    DECK_COMPOSITION,
    START_CARDS,
    CommandCardSet,
    SectorCard,
    SectorCardSet,
    SectorType,
    Side,
)
from sensor_ghosts.rules.engine import apply_turn, legal_turns
from sensor_ghosts.rules.errors import GameOverError, IllegalTurnError
from sensor_ghosts.rules.geometry import DOCK, EARTH, Direction
from sensor_ghosts.rules.observation import SeenGap, observe
from sensor_ghosts.rules.options import Difficulty, RuleOptions
from sensor_ghosts.rules.setup import Deal, Gap, Sample, Setup, Slot
from sensor_ghosts.rules.state import DiscardEntry, GameState, Status, initial_state
from sensor_ghosts.rules.turns import DECK_PLAYER, Action, ActionKind, Command, PlayedCard, Turn

U, D, L, R = Direction.UP, Direction.DOWN, Direction.LEFT, Direction.RIGHT
T = SectorType
ALL_CARDS = tuple(c.id for c in CommandCardSet.default().cards)  # F1..F10 D1..D3 S1 S2 W

# --------------------------------------------------------------------------
# Builder
# --------------------------------------------------------------------------

_sample_ids = iter(range(100, 10**6))


def _cell(tok: str, r: int, c: int, starts):
    if tok == "S":
        return Slot(starts.pop(0))
    if tok == ".":
        return Gap(SectorCard(10 * r + c, T.EMPTY, T.EMPTY))
    sample = None
    if "+" in tok:
        tok, s = tok.split("+")
        sample = Sample(next(_sample_ids), s == "v")
    up = Side.FRONT
    if tok.endswith("!"):
        tok, up = tok[:-1], Side.BACK
    f, b = tok.split("/")
    return Slot(SectorCard(10 * r + c, T(f), T(b)), up, sample)


def grid(rows: dict[int, str] | None = None):
    rows = rows or {}
    starts = list(START_CARDS)
    out = []
    for r in range(1, 8):
        text = rows.get(r, "S S E/E E/E E/E" if r == 1 else "E/E E/E E/E E/E E/E")
        toks = text.split()
        assert len(toks) == 5, text
        out.append(tuple(_cell(t, r, c, starts) for c, t in enumerate(toks, 1)))
    return tuple(out)


def _entry(e):
    if isinstance(e, DiscardEntry):
        return e
    if isinstance(e, tuple):
        return DiscardEntry(e[0], e[1])
    return DiscardEntry(e)


def make(
    rows=None,
    *,
    hand=("F1", "F2", "F3"),
    hands=None,
    deck=None,
    discard=(),
    ship=DOCK,
    pod=None,
    shields=0,
    held=0,
    second_pass=False,
    active=0,
    ranking=ALL_CARDS,
    seen=(),
    **opts,
) -> GameState:
    """A state from parts; ``opts`` are RuleOptions fields (players is inferred)."""
    hands = tuple(tuple(h) for h in (hands if hands is not None else (hand,)))
    opts.setdefault("players", len(hands))
    options = RuleOptions(**opts)
    discard = tuple(_entry(e) for e in discard)
    if deck is None:
        used = {c for h in hands for c in h} | {e.card for e in discard} | {"W"}
        deck = tuple(c for c in ("F4", "F5", "F6", "F7", "F8", "F9", "F10", "D1", "D2", "D3", "S1", "S2") if c not in used)
    if options.escape_pod and pod is None:
        pod = DOCK
    g = grid(rows)
    return GameState(
        setup=Setup(g, options),
        grid=g,
        hands=hands,
        deck=tuple(deck),
        ranking=tuple(ranking),
        discard=discard,
        ship=ship,
        pod=pod,
        shields=shields,
        held=held,
        second_pass=second_pass,
        active=active,
        seen=frozenset(seen),
    )


def fly(d):
    return Action(ActionKind.FLY, d)


def peek(d):
    return Action(ActionKind.PEEK, d)


def flip(pos):
    return Action(ActionKind.FLIP, target=pos)


def shift(row):
    return Action(ActionKind.SHIFT, row=row)


SHIELDS = Action(ActionKind.SHIELDS)


def cmd(state: GameState, cards: str, action: Action, arrow=..., pod=None) -> Command:
    """``cards`` like ``"F2 F1"`` (last on top); ``deck:X`` is the deck's card
    [D18]; ``X@p`` forces the player index. The holder is looked up otherwise.
    The arrow defaults to the action's direction when a Fly card is on top."""
    played = []
    for tok in cards.split():
        if tok.startswith("deck:"):
            played.append(PlayedCard(tok[5:], DECK_PLAYER))
        elif "@" in tok:
            c, p = tok.split("@")
            played.append(PlayedCard(c, int(p)))
        else:
            holder = next((p for p, h in enumerate(state.hands) if tok in h), state.active)
            played.append(PlayedCard(tok, holder))
    if arrow is ...:
        arrow = action.direction if state.kind(played[-1].card).value == "fly" else None
    return Command(tuple(played), action, arrow, pod)


def keys(state: GameState) -> set:
    return {t.key() for t in legal_turns(state)}


def command_keys(state: GameState) -> set:
    return {(t.bolster, t.command.key() if t.command else None) for t in legal_turns(state)}


def rescans_for(state: GameState, command: Command) -> set:
    """The re-scan choices enumerated after ``command`` (no bolster, no second action)."""
    return {
        t.rescan
        for t in legal_turns(state)
        if t.bolster == 0 and t.second is None and t.command is not None and t.command.key() == command.key()
    }


def do(state: GameState, command: Command | None, *, bolster=0, second=None, rescan=None) -> GameState:
    """Apply a turn that must be legal and enumerated by ``legal_turns``. Without
    ``rescan`` the smallest legal re-scan choice is taken."""
    turns = legal_turns(state)
    ck = command.key() if command else None
    sk = second.key() if second else None
    match = [
        t
        for t in turns
        if t.bolster == bolster
        and (t.command.key() if t.command else None) == ck
        and (t.second.key() if t.second else None) == sk
    ]
    assert match, f"turn not enumerated by legal_turns: {command} / {second}"
    if rescan is None:
        turn = min(match, key=lambda t: sorted(t.rescan))
    else:
        turn = Turn(command, bolster, second, frozenset(rescan))
        assert turn.key() in {t.key() for t in match}, "re-scan choice not enumerated"
    return apply_turn(state, turn)


def refuse(state: GameState, turn: Turn, match: str) -> IllegalTurnError:
    """The turn is refused with a reason matching ``match``, the state is unchanged,
    and no enumerated turn has the same key."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalTurnError, match=match) as e:
        apply_turn(state, turn)
    assert state == before
    dup = turn.command is not None and len({pc.card for pc in turn.command.cards}) < len(turn.command.cards)
    if not dup:  # a key cannot tell a card listed twice from once
        assert turn.key() not in keys(state)
    return e.value


def refuse_cmd(state: GameState, command: Command, match: str, **kw) -> None:
    """A command refused whatever the re-scan, and never enumerated."""
    refuse(state, Turn(command, **kw), match)
    k = (kw.get("bolster", 0), command.key())
    if len({pc.card for pc in command.cards}) == len(command.cards):
        assert k not in command_keys(state)


def cid(state: GameState, pos) -> int:
    return state.cell(pos).card.id


def row_ids(state: GameState, r: int) -> list:
    return [c.card.id if c.card else None for c in state.grid[r - 1]]


# --------------------------------------------------------------------------
# §1 Geometry: [D1] [D2] [D25]
# --------------------------------------------------------------------------


def _quick_setup(seed, options):
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "factories.py"
    spec = importlib.util.spec_from_file_location("_sg_factories", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.quick_setup(seed, options)


def test_D1_ship_and_pod_start_at_dock_with_shields_zero():
    s = initial_state(_quick_setup(3, RuleOptions(escape_pod=True)), seed=3)
    assert s.ship == DOCK == (1, 0) and s.pod == DOCK
    assert s.shields == 0 and s.held == 0 and s.discard == () and s.heading is None
    assert s.outcome.status is Status.ONGOING
    # Without the variant there is no pod.
    assert initial_state(_quick_setup(3, RuleOptions()), seed=3).pod is None


def test_D1_earth_is_right_of_top_right_card():
    s = make(ship=(7, 5), held=1, hand=("F1", "F2", "F3"))
    won = do(s, cmd(s, "F1", fly(R)))
    assert won.outcome.status is Status.WON and won.ship == EARTH == (7, 6)
    # Up from the top-right card is off the grid, not Earth.
    lost = do(s, cmd(s, "F1", fly(U)))
    assert lost.outcome.status is Status.LOST and "off the grid" in lost.outcome.reason


def test_D1_only_four_orthogonal_directions():
    s = make()
    dirs = {t.command.action.direction for t in legal_turns(s) if t.command.action.kind is ActionKind.FLY}
    assert dirs == {U, D, L, R}


def test_D2_at_dock_rescan_shifts_row2_and_flips_row3():
    s = make({3: "E/A E/A E/A E/A E/A"}, hand=("S1", "F1", "F2"))
    row2 = row_ids(s, 2)
    after = do(s, cmd(s, "S1", SHIELDS), rescan={1, 2})
    assert row_ids(after, 2) == row2[1:] + row2[:1]
    assert [c.face for c in after.grid[2]] == [T.ASTEROID, T.ASTEROID, T.EMPTY, T.EMPTY, T.EMPTY]
    # 5 cards in row 3: C(5,2) = 10 re-scan choices.
    assert sum(1 for t in legal_turns(s) if t.command.key() == cmd(s, "S1", SHIELDS).key()) == 10


def test_D2_ahead_is_towards_row7_whatever_heading():
    # Heading down, the ship flies down from (4,3) to (3,3): "ahead" is still up.
    s = make({5: "E/A E/A E/A E/A E/A"}, ship=(4, 3), discard=[("F4", D)], hand=("F1", "F2", "F3"))
    row4 = row_ids(s, 4)
    row3 = row_ids(s, 3)
    after = do(s, cmd(s, "F1", fly(D)), rescan={4, 5})
    assert after.ship == (3, 3)
    assert row_ids(after, 4) == row4[1:] + row4[:1]  # the row ahead (3+1) shifted
    assert row_ids(after, 3) == row3  # not the row "in front" of a down heading
    assert [c.face for c in after.grid[4]] == [T.EMPTY, T.EMPTY, T.EMPTY, T.ASTEROID, T.ASTEROID]


def test_D2_row_beyond_7_does_not_exist():
    s = make(ship=(6, 2), hand=("S1", "F1", "F2"))
    row7 = row_ids(s, 7)
    after = do(s, cmd(s, "S1", SHIELDS))
    assert row_ids(after, 7) == row7[1:] + row7[:1]  # row ahead shifts
    assert all(c.up is Side.FRONT for row in after.grid for c in row if isinstance(c, Slot))  # no flips
    refuse(s, Turn(cmd(s, "S1", SHIELDS), rescan=frozenset({1})), "no row two ahead")
    s7 = make(ship=(7, 2), hand=("S1", "F1", "F2"))
    assert do(s7, cmd(s7, "S1", SHIELDS)).grid == s7.grid  # nothing ahead at all


def test_D25_fly_into_dock_after_leaving_is_loss():
    s = make(ship=(1, 1))
    after = do(s, cmd(s, "F1", fly(L)))
    assert after.outcome.status is Status.LOST and after.ship != DOCK


def test_D25_boost_into_dock_is_loss():
    s = make({1: "E/B S S E/E E/E"}, ship=(1, 2))
    after = do(s, cmd(s, "F1", fly(L)))
    assert after.outcome.status is Status.LOST and "off the grid" in after.outcome.reason


def test_D25_pod_stays_on_1_1_instead_of_entering_dock():
    s = make(hand=("S2", "F1", "F2"), pod=(1, 1), escape_pod=True)
    after = do(s, cmd(s, "S2", SHIELDS, pod=L))
    assert after.pod == (1, 1) and after.outcome.status is Status.ONGOING


# --------------------------------------------------------------------------
# §2 Components: [D3] [D4] [D5] [D6], deck composition, hand limit
# --------------------------------------------------------------------------


def test_D3_default_sector_set_counts_and_pairs():
    cards = SectorCardSet.default().cards
    assert len(cards) == 33 and len({c.id for c in cards}) == 33
    want = {T.EMPTY: 10, T.BOOST: 5, T.ASTEROID: 10, T.OBSTRUCTED: 8}
    assert Counter(c.front for c in cards) == want
    assert Counter(c.back for c in cards) == want
    table = {
        "E": {"E": 2, "B": 1, "A": 4, "O": 3},
        "B": {"E": 1, "B": 1, "A": 2, "O": 1},
        "A": {"E": 4, "B": 2, "A": 2, "O": 2},
        "O": {"E": 3, "B": 1, "A": 2, "O": 2},
    }
    pairs = SectorCardSet.default().pair_counts()
    for f, row in table.items():
        for b, n in row.items():
            assert pairs[(T(f), T(b))] == n, (f, b)
    assert not any(c.start for c in cards)


def test_D4_start_cards_are_empty_both_sides_and_never_flip():
    assert all(c.start and c.front is T.EMPTY and c.back is T.EMPTY for c in START_CARDS)
    s = make()
    after = do(s, cmd(s, "F1", fly(R)))  # the ship enters the start card (1,1)
    assert after.ship == (1, 1) and after.cell((1, 1)).up is Side.FRONT
    s = make(hand=("D1", "F1", "F2"))
    targets = {t.command.action.target for t in legal_turns(s) if t.command.action.kind is ActionKind.FLIP}
    assert (1, 1) not in targets and (1, 2) not in targets and (1, 3) in targets
    refuse_cmd(s, cmd(s, "D1", flip((1, 2))), r"\[D4\]")


def test_s8_rescan_flips_none_when_the_row_holds_no_card():
    s = make({3: ". . . . ."}, hand=("S1", "F1", "F2"))
    assert rescans_for(s, cmd(s, "S1", SHIELDS)) == {frozenset()}


def test_D5_default_pod_values():
    cards = {c.id: c.pod_value for c in CommandCardSet.default().cards}
    assert [cards[f"F{i}"] for i in range(1, 11)] == [1, 2, 3, 1, 2, 3, 1, 2, 3, 2]
    assert [cards[f"D{i}"] for i in range(1, 4)] == [1, 2, 3]
    assert [cards["S1"], cards["S2"], cards["W"]] == [1, 2, 3]
    kinds = Counter(c.kind.value for c in CommandCardSet.default().cards)
    assert kinds == {"fly": 10, "deep-scan": 3, "shields": 2, "wild": 1}


@pytest.mark.parametrize("difficulty", list(Difficulty))
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_D6_wild_lies_beside_the_first_deck_and_composition_table(difficulty, players):
    table = {
        Difficulty.INTRODUCTORY: [(8, 2, 2), (9, 2, 2), (9, 3, 2), (10, 3, 2)],
        Difficulty.STANDARD: [(7, 2, 2), (8, 2, 2), (8, 3, 2), (9, 3, 2)],
        Difficulty.ADVANCED: [(6, 2, 2), (7, 2, 2), (8, 2, 2), (9, 2, 2)],
    }
    assert DECK_COMPOSITION[difficulty][players - 1] == table[difficulty][players - 1]
    o = RuleOptions(players=players, difficulty=difficulty)
    s = initial_state(_quick_setup(1, o), seed=players)
    cards = [c for h in s.hands for c in h] + list(s.deck)
    assert "W" not in cards and s.wild_aside
    fly_n, deep_n, shields_n = table[difficulty][players - 1]
    kinds = Counter(s.kind(c).value for c in cards)
    assert kinds == {"fly": fly_n, "deep-scan": deep_n, "shields": shields_n}
    # Hand limit 3 solo, 2 otherwise, every hand dealt full.
    assert all(len(h) == (3 if players == 1 else 2) for h in s.hands)
    assert o.hand_limit == (3 if players == 1 else 2)
    # [D5] a difficulty with fewer cards takes them in file order.
    assert sorted((c for c in cards if c.startswith("F")), key=lambda c: int(c[1:])) == [
        f"F{i}" for i in range(1, fly_n + 1)
    ]


def test_D22_hands_dealt_one_at_a_time_from_top_first_player_first():
    o = RuleOptions(players=2)
    setup = _quick_setup(2, o)
    first = ("F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "D1", "D2", "S1", "S2")
    s = initial_state(setup, Deal(first, first + ("W",)))
    assert s.hands == (("F1", "F3"), ("F2", "F4"))
    assert s.deck == first[4:]
    solo = initial_state(_quick_setup(2, RuleOptions()), Deal(first[:7] + first[8:], first + ("W",)))
    assert solo.hands == (("F1", "F2", "F3"),)


# --------------------------------------------------------------------------
# [D26] gaps
# --------------------------------------------------------------------------


def test_D26_gap_remembers_its_card_front_seen_back_not():
    s = make({4: "E/E O/A . E/E E/E"})
    s = s.evolve(grid=tuple(
        tuple(Gap(SectorCard(43, T.BOOST, T.OBSTRUCTED)) if (r, c) == (4, 3) else cell for c, cell in enumerate(row, 1))
        for r, row in enumerate(s.grid, 1)
    ))
    ob = observe(s, 0)
    assert ob.grid[3][2] == SeenGap(T.BOOST)  # the front only: SeenGap has no back
    assert [f.name for f in dataclasses.fields(SeenGap)] == ["front"]


def test_s5_fly_into_gap_is_loss():
    s = make({4: "E/E E/E . E/E E/E"}, ship=(3, 3))
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.outcome.status is Status.LOST and "gap" in after.outcome.reason


# --------------------------------------------------------------------------
# §4 A turn: [D9] [D10], step order
# --------------------------------------------------------------------------


def test_D9_bolster_each_sample_one_shield_capped_at_two_spent_gone():
    s = make(shields=1, held=2, hand=("S1", "F1", "F2"), ship=(2, 1))
    after = do(s, cmd(s, "F1", fly(U)), bolster=2)
    assert after.shields == 2 and after.held == 0  # 1+2 capped at 2, both samples gone
    after1 = do(s, cmd(s, "F1", fly(U)), bolster=1)
    assert after1.shields == 2 and after1.held == 1
    refuse(s, Turn(cmd(s, "F1", fly(U)), bolster=3), "cannot bolster with 3")
    refuse(s, Turn(cmd(s, "F1", fly(U)), bolster=-1), "cannot bolster")
    # Bolster amounts 0..held are all offered.
    assert {t.bolster for t in legal_turns(s)} == {0, 1, 2}


def test_s4_bolster_happens_before_the_command():
    s = make({3: "E/A E/E E/E E/E E/E"}, ship=(2, 1), shields=1, held=1)
    survived = do(s, cmd(s, "F1", fly(U)), bolster=1)
    assert survived.outcome.status is Status.ONGOING and survived.shields == 0 and survived.held == 0
    assert do(s, cmd(s, "F1", fly(U))).outcome.status is Status.LOST


def test_D10_no_pass_while_holding_a_card():
    s = make()
    refuse(s, Turn(None), "no pass")
    assert all(t.command is not None for t in legal_turns(s))


def test_s4_one_card_for_its_own_action():
    s = make(hand=("S1", "D1", "F1"))
    kinds = {(t.command.cards[0].card, t.command.action.kind) for t in legal_turns(s) if len(t.command.cards) == 1}
    assert kinds == {
        ("S1", ActionKind.SHIELDS),
        ("D1", ActionKind.FLIP),
        ("D1", ActionKind.SHIFT),
        ("F1", ActionKind.FLY),
        ("F1", ActionKind.PEEK),
    }
    refuse_cmd(s, cmd(s, "S1", fly(U)), "cannot be played")
    refuse_cmd(s, cmd(s, "D1", SHIELDS), "cannot be played")
    refuse_cmd(s, cmd(s, "F1", SHIELDS, arrow=U), "cannot be played")
    refuse_cmd(s, cmd(s, "D1", fly(U)), "cannot be played")


def test_s4_two_cards_must_be_two_fly_cards():
    s = make(hand=("S1", "F2", "F1"), discard=[("F4", U)])
    refuse_cmd(s, cmd(s, "S1 F1", fly(R)), "both be Fly")
    after = do(s, cmd(s, "F2 F1", fly(R)))
    assert after.ship == (1, 1) and after.heading is R


def test_s4_card_not_in_hand_or_listed_twice_is_refused():
    s = make(hand=("F1", "F2", "F3"))
    refuse_cmd(s, cmd(s, "F4", fly(U)), "not in")
    refuse_cmd(s, cmd(s, "F1 F1", fly(U)), "twice")
    refuse_cmd(s, cmd(s, "deck:F4", fly(U)), r"\[D18\]")


def test_s4_draw_then_rescan_deck_out_loss_has_no_rescan():
    s = make(hand=("S1", "F1", "F2"), deck=(), second_pass=True)
    after = do(s, cmd(s, "S1", SHIELDS))
    assert after.outcome.status is Status.LOST and after.grid == s.grid  # no re-scan happened
    refuse(s, Turn(cmd(s, "S1", SHIELDS), rescan=frozenset({1, 2})), "ended before the re-scan")


# --------------------------------------------------------------------------
# §5 Heading: [D11] [D24]
# --------------------------------------------------------------------------


def _single_fly_dirs(s, card="F1"):
    return {
        (t.command.action.kind, t.command.action.direction)
        for t in legal_turns(s)
        if [pc.card for pc in t.command.cards] == [card]
    }


def test_D11_heading_none_at_start_one_fly_any_direction():
    s = make()
    assert s.heading is None
    assert _single_fly_dirs(s) == {(k, d) for k in (ActionKind.FLY, ActionKind.PEEK) for d in (U, D, L, R)}


def test_D11_one_fly_card_must_follow_heading():
    s = make(discard=[("F4", U)], ship=(2, 2))
    assert s.heading is U
    assert _single_fly_dirs(s) == {(ActionKind.FLY, U), (ActionKind.PEEK, U)}
    e = refuse(s, Turn(cmd(s, "F1", fly(R))), "heading")
    assert "[D11]" in e.reason
    refuse(s, Turn(cmd(s, "F1", peek(L))), "heading")
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.ship == (3, 2) and after.heading is U
    assert after.discard[-1] == DiscardEntry("F1", U)


def test_D11_one_fly_sets_heading_when_none():
    s = make(ship=(3, 3))
    after = do(s, cmd(s, "F1", peek(L)))
    assert after.heading is L and after.ship == (3, 3)


def test_D11_two_fly_cards_any_direction_then_heading_is_it():
    s = make(discard=[("F4", U)], ship=(2, 2))
    after = do(s, cmd(s, "F1 F2", fly(D)))
    assert after.ship == (1, 2) and after.heading is D
    assert [e.card for e in after.discard[-2:]] == ["F1", "F2"] and after.discard[-1].arrow is D
    # Both orders are distinct turns (which card lands on top).
    tops = {
        t.command.top.card
        for t in legal_turns(s)
        if {pc.card for pc in t.command.cards} == {"F1", "F2"} and t.command.action == fly(D)
    }
    assert tops == {"F1", "F2"}


def test_D11_non_fly_top_discard_means_no_heading():
    s = make(discard=[("F4", U), "S1"], ship=(2, 2), hand=("F1", "F2", "F3"))
    assert s.heading is None
    assert len(_single_fly_dirs(s)) == 8


@pytest.mark.parametrize("card,action", [("S1", SHIELDS), ("D1", flip((5, 5))), ("D1", shift(4))])
def test_D11_shields_or_deep_scan_clears_heading(card, action):
    s = make(discard=[("F4", U)], hand=(card, "F1", "F2"), ship=(2, 2))
    after = do(s, cmd(s, card, action))
    assert after.heading is None and after.discard[-1] == DiscardEntry(card)


def test_D11_wild_any_action_any_direction_then_no_heading():
    s = make(discard=[("F4", U)], hand=("W", "F1", "F2"), ship=(2, 2), second_pass=True, deck=("D1", "S1"))
    acts = {t.command.action for t in legal_turns(s) if [pc.card for pc in t.command.cards] == ["W"]}
    assert fly(L) in acts and peek(D) in acts and SHIELDS in acts and shift(5) in acts and flip((7, 5)) in acts
    after = do(s, cmd(s, "W", fly(L)))
    assert after.ship == (2, 1) and after.heading is None


def test_D11_three_card_wild_top_card_sets_arrow():
    s = make(discard=[("F4", U)], hand=("F1", "D1", "S1"), ship=(2, 2))
    # Fly card on top of a directional action points that way...
    after = do(s, cmd(s, "D1 S1 F1", fly(L)))
    assert after.ship == (2, 1) and after.heading is L
    refuse_cmd(s, cmd(s, "D1 S1 F1", fly(L), arrow=U), r"arrow.*\[D11\]")
    # ...on top of a directionless action it may point any way (4 distinct turns).
    arrows = {t.command.arrow for t in legal_turns(s) if t.command.top.card == "F1" and t.command.action == SHIELDS}
    assert arrows == {U, D, L, R}
    after = do(s, cmd(s, "D1 S1 F1", SHIELDS, arrow=D))
    assert after.heading is D and after.shields == 1
    refuse_cmd(s, cmd(s, "D1 S1 F1", SHIELDS, arrow=None), r"\[D11\]")
    # Any other card on top: no heading, and no arrow may be given.
    after = do(s, cmd(s, "F1 D1 S1", fly(R)))
    assert after.heading is None and after.ship == (2, 3)
    refuse_cmd(s, cmd(s, "F1 D1 S1", fly(R), arrow=R), r"\[D11\]")


def test_D24_no_three_card_wild_while_holding_wild_multiplayer():
    hands = (("W", "F1"), ("F2", "D1"), ("S1", "F3"))
    s = make(hands=hands, second_pass=True, deck=("F4",), ship=(2, 2))
    assert not any(len(t.command.cards) == 3 for t in legal_turns(s))
    refuse_cmd(s, cmd(s, "F1 D1 S1", SHIELDS, arrow=None), r"holding the Wild.*\[D24\]")


def test_D24_three_card_wild_never_includes_the_wild():
    hands = (("D2", "F1"), ("W", "D1"), ("S1", "F3"))
    s = make(hands=hands, second_pass=True, deck=("F4",), ship=(2, 2))
    triples = [t for t in legal_turns(s) if len(t.command.cards) == 3]
    assert triples and not any("W" in {pc.card for pc in t.command.cards} for t in triples)
    refuse_cmd(s, cmd(s, "D2 W S1", SHIELDS), r"never part.*\[D24\]")


def test_D24_solo_three_card_wild_allowed_without_wild():
    s = make(hand=("D1", "S1", "S2"))
    assert any(len(t.command.cards) == 3 for t in legal_turns(s))
    w = make(hand=("D1", "S1", "W"), second_pass=True, deck=("S2", "F1"))
    assert not any(len(t.command.cards) == 3 for t in legal_turns(w))
    refuse_cmd(w, cmd(w, "D1 S1 W", fly(R)), r"\[D24\]")


# --------------------------------------------------------------------------
# §5 Fly: edges, Earth [D12], flips, A/O/B, samples [D13]
# --------------------------------------------------------------------------


@pytest.mark.parametrize("ship,d", [((3, 5), R), ((3, 1), L), ((7, 3), U), ((1, 4), D), (DOCK, U), (DOCK, D)])
def test_s5_fly_off_grid_is_loss(ship, d):
    s = make(ship=ship)
    after = do(s, cmd(s, "F1", fly(d)))
    assert after.outcome.status is Status.LOST and "off the grid" in after.outcome.reason


def test_D12_earth_refuses_without_virus_sample():
    s = make(ship=(7, 5), held=0, rows={7: "E/E E/E E/E E/E E/E"})
    s = s.evolve(rocks_found=1)
    after = do(s, cmd(s, "F1", fly(R)))
    assert after.outcome.status is Status.LOST and "Earth refused" in after.outcome.reason


def test_D12_two_samples_variant_needs_two():
    s = make(ship=(7, 5), held=1, two_samples=True)
    assert do(s, cmd(s, "F1", fly(R))).outcome.status is Status.LOST
    s2 = make(ship=(7, 5), held=2, two_samples=True)
    assert do(s2, cmd(s2, "F1", fly(R))).outcome.status is Status.WON


def test_s5_entering_flips_card_then_resolves_new_face():
    s = make({3: "A/E E/E E/E E/E E/E"}, ship=(2, 1))
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.outcome.status is Status.ONGOING and after.ship == (3, 1)
    assert after.cell((3, 1)).up is Side.BACK and after.cell((3, 1)).face is T.EMPTY
    assert 31 in after.seen
    # A front-E card with an A back hurts: it is the back that is met.
    s = make({3: "E/A E/E E/E E/E E/E"}, ship=(2, 1))
    assert do(s, cmd(s, "F1", fly(U))).outcome.status is Status.LOST
    # A back-up card flips back to its front.
    s = make({3: "A/E! E/E E/E E/E E/E"}, ship=(2, 1))
    assert do(s, cmd(s, "F1", fly(U))).outcome.status is Status.LOST


def test_s5_asteroid_with_two_shields_survives_shields_drop_to_zero():
    s = make({3: "E/A E/E E/E E/E E/E"}, ship=(2, 1), shields=2)
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.outcome.status is Status.ONGOING and after.ship == (3, 1) and after.shields == 0


def test_s5_asteroid_with_one_shield_is_loss():
    s = make({3: "E/A E/E E/E E/E E/E"}, ship=(2, 1), shields=1)
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.outcome.status is Status.LOST and "asteroid" in after.outcome.reason


def test_s5_obstructed_is_loss_even_with_full_shields():
    s = make({3: "E/O E/E E/E E/E E/E"}, ship=(2, 1), shields=2)
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.outcome.status is Status.LOST and "obstructed" in after.outcome.reason


def test_s5_empty_does_nothing():
    s = make({3: "O/E+r E/E E/E E/E E/E"}, ship=(2, 1), shields=1, held=1)
    after = do(s, cmd(s, "F1", fly(U)))
    assert (after.ship, after.shields, after.held, after.rocks_found) == ((3, 1), 1, 1, 1)


def test_s5_boost_chains_and_takes_sample_on_boost_D13():
    s = make({3: "E/B+v E/E E/E E/E E/E", 4: "A/B E/E E/E E/E E/E", 5: "B/E+r E/E E/E E/E E/E"}, ship=(2, 1))
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.outcome.status is Status.ONGOING
    assert after.ship == (5, 1)  # the last cell entered
    assert after.held == 1 and after.rocks_found == 1  # virus taken on the boost card, rock out
    assert all(after.cell((r, 1)).up is Side.BACK for r in (3, 4, 5))
    assert after.cell((3, 1)).sample is None and after.cell((5, 1)).sample is None
    assert {31, 41, 51} <= after.seen


def test_s5_boost_into_asteroid_and_off_grid():
    s = make({3: "E/B E/E E/E E/E E/E", 4: "E/A E/E E/E E/E E/E"}, ship=(2, 1), shields=2)
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.ship == (4, 1) and after.shields == 0 and after.outcome.status is Status.ONGOING
    s = make({3: "E/E E/E E/E E/E E/B"}, ship=(3, 4))
    after = do(s, cmd(s, "F1", fly(R)))
    assert after.outcome.status is Status.LOST and "off the grid" in after.outcome.reason


def test_s5_boost_chain_into_earth_wins_with_sample_picked_on_the_way():
    s = make({7: "E/E E/E E/E E/B+v E/B"}, ship=(7, 3), held=0)
    after = do(s, cmd(s, "F1", fly(R)))
    assert after.outcome.status is Status.WON and after.ship == EARTH and after.held == 1


def test_D13_no_sample_taken_when_destroyed():
    s = make({3: "E/A+v E/E E/E E/E E/E"}, ship=(2, 1), shields=0)
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.outcome.status is Status.LOST and after.held == 0


def test_D13_virus_held_rock_out_of_game():
    s = make({3: "E/E+v E/E+r E/E E/E E/E"}, ship=(2, 1))
    a = do(s, cmd(s, "F1", fly(U)))
    assert a.held == 1 and a.rocks_found == 0 and a.cell((3, 1)).sample is None
    s = make({3: "E/E+v E/E+r E/E E/E E/E"}, ship=(2, 2))
    b = do(s, cmd(s, "F1", fly(U)))
    assert b.held == 0 and b.rocks_found == 1 and b.cell((3, 2)).sample is None


# --------------------------------------------------------------------------
# §5 Peek, Deep Scan [D14], Shields
# --------------------------------------------------------------------------


def test_s5_peek_sees_three_cells_ahead_and_changes_nothing_else():
    s = make(ship=(3, 3), hand=("F1", "F2", "F3"))
    after = do(s, cmd(s, "F1", peek(U)), rescan={1, 2})
    rescanned = {cid(s, (5, 1)), cid(s, (5, 2))}
    assert after.seen - rescanned == {42, 43, 44}
    assert after.ship == (3, 3) and after.shields == 0 and after.heading is U
    assert after.cell((4, 3)).up is Side.FRONT  # nothing flipped
    # At an edge fewer cells exist; from column 1 looking left: none.
    s = make(ship=(3, 1))
    assert do(s, cmd(s, "F1", peek(L)), rescan={1, 2}).seen == {51, 52}
    s = make(ship=(3, 1))
    assert do(s, cmd(s, "F1", peek(U)), rescan={1, 2}).seen - {51, 52} == {41, 42}


def test_s5_deep_scan_flips_any_card_far_from_the_ship():
    s = make({7: "E/E E/E E/E E/E O/A"}, hand=("D1", "F1", "F2"))
    after = do(s, cmd(s, "D1", flip((7, 5))))
    assert after.cell((7, 5)).face is T.ASTEROID and 75 in after.seen and after.ship == DOCK


def test_s5_deep_scan_flip_under_the_ship_does_not_resolve():
    s = make({3: "E/E E/E E/O E/E E/E"}, ship=(3, 3), hand=("D1", "F1", "F2"))
    after = do(s, cmd(s, "D1", flip((3, 3))))
    assert after.outcome.status is Status.ONGOING and after.cell((3, 3)).face is T.OBSTRUCTED
    assert after.ship == (3, 3)


def test_s5_deep_scan_flip_can_flip_a_card_back_to_front():
    s = make({6: "E/A! E/E E/E E/E E/E"}, hand=("D1", "F1", "F2"))
    after = do(s, cmd(s, "D1", flip((6, 1))))
    assert after.cell((6, 1)).up is Side.FRONT


def test_s5_deep_scan_shifts_any_other_row_left():
    s = make({6: "A/A . E/E+v B/B O/O"}, hand=("D1", "F1", "F2"), ship=(3, 2))
    after = do(s, cmd(s, "D1", shift(6)))
    assert row_ids(after, 6) == [62, 63, 64, 65, 61]
    assert isinstance(after.cell((6, 1)), Gap) and after.cell((6, 2)).sample is not None
    assert after.ship == (3, 2)


def test_D14_cannot_shift_the_ship_row():
    s = make(hand=("D1", "F1", "F2"), ship=(3, 3))
    rows = {t.command.action.row for t in legal_turns(s) if t.command.action.kind is ActionKind.SHIFT}
    assert rows == {1, 2, 4, 5, 6, 7}
    refuse_cmd(s, cmd(s, "D1", shift(3)), r"\[D14\]")


def test_D14_at_the_dock_row_1_cannot_be_shifted():
    s = make(hand=("D1", "F1", "F2"))
    rows = {t.command.action.row for t in legal_turns(s) if t.command.action.kind is ActionKind.SHIFT}
    assert rows == {2, 3, 4, 5, 6, 7}
    refuse_cmd(s, cmd(s, "D1", shift(1)), r"\[D14\]")


def test_D16_start_cards_travel_when_row_1_is_shifted():
    s = make(hand=("D1", "F1", "F2"), ship=(3, 3))
    after = do(s, cmd(s, "D1", shift(1)))
    assert row_ids(after, 1) == [-2, 13, 14, 15, -1]


def test_s5_deep_scan_has_only_the_two_listed_effects():
    s = make(hand=("D1", "F1", "F2"))
    kinds = {t.command.action.kind for t in legal_turns(s) if t.command.cards[0].card == "D1" and len(t.command.cards) == 1}
    assert kinds == {ActionKind.FLIP, ActionKind.SHIFT}


def test_s5_shields_plus_one_at_most_two():
    s = make(hand=("S1", "S2", "F1"))
    a = do(s, cmd(s, "S1", SHIELDS))
    assert a.shields == 1
    b = do(a, cmd(a, "S2", SHIELDS))
    assert b.shields == 2
    s2 = make(hand=("S1", "S2", "F1"), shields=2)
    assert do(s2, cmd(s2, "S1", SHIELDS)).shields == 2


# --------------------------------------------------------------------------
# §6 Samples and bolster
# --------------------------------------------------------------------------


def test_s6_spent_sample_no_longer_counts_for_the_win():
    s = make(ship=(7, 5), held=1)
    after = do(s, cmd(s, "F1", fly(R)), bolster=1)
    assert after.outcome.status is Status.LOST and after.shields == 1


def test_s6_rock_tokens_do_nothing():
    s = make({3: "E/E+r E/E E/E E/E E/E"}, ship=(2, 1))
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.held == 0 and after.shields == 0 and after.rocks_found == 1
    assert not any(t.bolster for t in legal_turns(after))


# --------------------------------------------------------------------------
# §7 Drawing and the second pass [D15] [D22] [D6]
# --------------------------------------------------------------------------


def test_s7_draw_one_at_a_time_from_the_top_up_to_the_limit():
    s = make(hand=("F1", "F2", "F3"), deck=("F4", "F5", "S1"), ship=(2, 2))
    a = do(s, cmd(s, "F1", fly(U)))
    assert a.hands == (("F2", "F3", "F4"),) and a.deck == ("F5", "S1")
    b = do(s, cmd(s, "F1 F2", fly(R)))
    assert b.hands == (("F3", "F4", "F5"),) and b.deck == ("S1",)


def test_D15_reshuffle_orders_by_ranking_D22():
    ranking = ("S1", "W", "F1", "D1", "F5", "F2", "F3", "F4", "F6", "F7", "F8", "F9", "F10", "D2", "D3", "S2")
    s = make(
        hand=("F1", "F2", "F3"),
        deck=(),
        discard=[("F5", U), "D1", "S1"],
        ranking=ranking,
        ship=(2, 2),
    )
    after = do(s, cmd(s, "F1", fly(U)))
    # The pile F5 D1 S1 F1 and the Wild [D6], ordered by the ranking [D22]:
    # S1 W F1 D1 F5; S1 is drawn at once.
    assert after.second_pass and not after.wild_aside
    assert after.hands == (("F2", "F3", "S1"),)
    assert after.deck == ("W", "F1", "D1", "F5")
    assert after.discard == () and after.heading is None  # [D11] heading none after a reshuffle


def test_D15_reshuffle_mid_draw_goes_on_drawing():
    ranking = ("F9", "W") + tuple(c for c in ALL_CARDS if c not in ("F9", "W"))
    s = make(hand=("F1", "F2", "F3"), deck=("F4",), discard=["F9"], ranking=ranking, ship=(2, 2))
    after = do(s, cmd(s, "F1 F2", fly(U)))
    # F4 is drawn, then the pile (F9 F1 F2) + W is reshuffled: F9 W F1 F2 by rank.
    assert after.hands == (("F3", "F4", "F9"),)
    assert after.deck == ("W", "F1", "F2") and after.second_pass


def test_s7_first_pass_empty_deck_is_not_a_loss():
    s = make(hand=("F1", "F2", "F3"), deck=(), discard=["S1"], ship=(2, 2))
    assert do(s, cmd(s, "F1", fly(U))).outcome.status is Status.ONGOING


def test_s7_deck_out_on_second_pass_loses():
    s = make(hand=("F1", "F2", "F3"), deck=(), discard=["S1"], second_pass=True, ship=(2, 2))
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.outcome.status is Status.LOST and "deck ran out" in after.outcome.reason
    assert legal_turns(after) == []
    with pytest.raises(GameOverError):
        apply_turn(after, Turn(cmd(after, "F2", fly(U))))


def test_s7_deck_out_needs_only_as_many_cards_as_the_hand_misses():
    s = make(hand=("F1", "F2", "F3"), deck=("F4",), second_pass=True, ship=(2, 2))
    assert do(s, cmd(s, "F1", fly(U))).outcome.status is Status.ONGOING
    assert do(s, cmd(s, "F1 F2", fly(U))).outcome.status is Status.LOST


def test_s7_no_deck_out_when_the_game_is_won():
    s = make(hand=("F1", "F2", "F3"), deck=(), second_pass=True, ship=(7, 5), held=1)
    assert do(s, cmd(s, "F1", fly(R))).outcome.status is Status.WON


# --------------------------------------------------------------------------
# §8 Re-scan [D16] [D17] [D23]
# --------------------------------------------------------------------------


def test_D16_rescan_shifts_row_ahead_left_wrapping_gaps_travel_D17_samples_travel():
    s = make({3: "A/A . E/E+v B/B O/O"}, ship=(2, 2), hand=("S1", "F1", "F2"))
    after = do(s, cmd(s, "S1", SHIELDS))
    assert row_ids(after, 3) == [32, 33, 34, 35, 31]
    assert isinstance(after.cell((3, 1)), Gap)
    assert after.cell((3, 2)).sample is not None and after.cell((3, 3)).sample is None
    assert after.cell((3, 5)).face is T.ASTEROID


def test_s8_rescan_flips_exactly_two_different_cards():
    s = make({4: "E/A E/A E/A E/A E/A"}, ship=(2, 2), hand=("S1", "F1", "F2"))
    c = cmd(s, "S1", SHIELDS)
    assert rescans_for(s, c) == {frozenset(p) for p in combinations(range(1, 6), 2)}
    refuse(s, Turn(c, rescan=frozenset({1})), r"exactly 2")
    refuse(s, Turn(c, rescan=frozenset({1, 2, 3})), r"exactly 2")
    refuse(s, Turn(c), r"exactly 2")
    refuse(s, Turn(c, rescan=frozenset({1, 6})), r"cannot flip column")
    after = do(s, c, rescan={2, 5})
    assert [x.face for x in after.grid[3]] == [T.EMPTY, T.ASTEROID, T.EMPTY, T.EMPTY, T.ASTEROID]
    assert {42, 45} <= after.seen


def test_s8_rescan_flips_fewer_when_row_holds_fewer():
    s = make({4: ". E/A . . ."}, ship=(2, 2), hand=("S1", "F1", "F2"))
    assert rescans_for(s, cmd(s, "S1", SHIELDS)) == {frozenset({2})}
    refuse(s, Turn(cmd(s, "S1", SHIELDS)), r"exactly 1")
    s = make({4: ". E/A . E/A ."}, ship=(2, 2), hand=("S1", "F1", "F2"))
    assert rescans_for(s, cmd(s, "S1", SHIELDS)) == {frozenset({2, 4})}


def test_s12_flip_one_variant_rescan_flips_exactly_one():
    s = make(ship=(2, 2), hand=("S1", "F1", "F2"), flip_one=True)
    assert rescans_for(s, cmd(s, "S1", SHIELDS)) == {frozenset({c}) for c in range(1, 6)}
    refuse(s, Turn(cmd(s, "S1", SHIELDS), rescan=frozenset({1, 2})), r"exactly 1")


def test_D17_pod_moves_with_its_card_when_the_row_shifts():
    s = make(ship=(2, 2), pod=(3, 2), hand=("S1", "F1", "F2"), escape_pod=True)
    after = do(s, cmd(s, "S1", SHIELDS, pod=D))  # pod steps down to (2,2), row 2 is not shifted
    assert after.pod == (2, 2)
    s = make(ship=(2, 2), pod=(3, 1), hand=("S1", "F1", "F2"), escape_pod=True)
    after = do(s, cmd(s, "S1", SHIELDS, pod=L))  # stays at (3,1) [D19], then row 3 shifts
    assert after.pod == (3, 5) and after.cell((3, 5)).card.id == 31


def test_D23_rescan_cannot_reflip_deep_scanned_card():
    s = make({3: "E/A E/A E/A E/A E/A"}, hand=("D1", "F1", "F2"))
    c = cmd(s, "D1", flip((3, 2)))
    choices = {t.rescan for t in legal_turns(s) if t.command.key() == c.key()}
    assert choices == {frozenset(p) for p in combinations((1, 3, 4, 5), 2)}
    e = refuse(s, Turn(c, rescan=frozenset({2, 3})), r"\[D23\]")
    assert "column(s) 2" in e.reason
    after = do(s, c, rescan={1, 3})
    assert [x.face for x in after.grid[2]] == [T.ASTEROID, T.ASTEROID, T.ASTEROID, T.EMPTY, T.EMPTY]


def test_D23_rescan_flips_as_many_as_remain_after_deep_scan():
    s = make({3: "E/A . E/A . ."}, hand=("D1", "F1", "F2"))
    c = cmd(s, "D1", flip((3, 3)))
    assert {t.rescan for t in legal_turns(s) if t.command.key() == c.key()} == {frozenset({1})}


def test_D23_deep_scanned_card_may_be_flipped_on_a_later_turn():
    s = make({3: "E/A E/A E/A E/A E/A"}, hand=("D1", "S1", "F2"))
    a = do(s, cmd(s, "D1", flip((3, 2))), rescan={1, 3})
    b = do(a, cmd(a, "S1", SHIELDS), rescan={2, 4})
    assert b.cell((3, 2)).up is Side.FRONT


def test_D23_second_deep_scan_cannot_reflip_first_ones_card():
    s = make(hand=("D1", "D2", "F1"), held=1, second_action=True)
    first = cmd(s, "D1", flip((5, 5)))
    second_ok = Command((PlayedCard("D2", 0),), flip((5, 4)))
    second_bad = Command((PlayedCard("D2", 0),), flip((5, 5)))
    after = do(s, first, second=second_ok)
    assert after.cell((5, 5)).up is Side.BACK and after.cell((5, 4)).up is Side.BACK and after.held == 0
    refuse(s, Turn(first, second=second_bad), r"\[D23\]")


def test_D23_card_entered_by_the_ship_can_be_rescanned_same_turn():
    # First action: one Fly up from (4,3) into (5,3), an A/E card (flipped to E by
    # entering). Second action: two Fly cards down into (4,3), a boost, which carries
    # the ship on to (3,3). The re-scan row is then row 5 and (5,3) may be flipped:
    # a flip caused by entering is not a choice.
    s = make(
        {4: "E/E E/E B/B E/E E/E", 5: "A/E A/E A/E A/E A/E"},
        hand=("F1", "F2", "F3"),
        ship=(4, 3),
        held=1,
        discard=[("F4", U)],
        second_action=True,
        deck=("S1", "S2", "D1"),
    )
    after = do(s, cmd(s, "F1", fly(U)), second=cmd(s, "F2 F3", fly(D)), rescan={3, 5})
    assert after.ship == (3, 3) and after.held == 0 and after.outcome.status is Status.ONGOING
    assert after.cell((5, 3)).up is Side.FRONT  # flipped twice: by entering, then by the re-scan
    assert after.cell((5, 3)).face is T.ASTEROID and after.cell((5, 5)).up is Side.BACK


# --------------------------------------------------------------------------
# §9 Multi-player [D18]
# --------------------------------------------------------------------------


def test_s9_one_fly_pair_from_active_and_another_only_active_draws():
    s = make(hands=(("F1", "S1"), ("F2", "D1")), deck=("F5", "F6"), discard=[("F4", U)], ship=(2, 2))
    after = do(s, cmd(s, "F1 F2", fly(R)))
    assert after.ship == (2, 3) and after.heading is R
    assert after.hands == (("S1", "F5"), ("D1",))
    assert after.active == 1 and after.turn == 2 and after.deck == ("F6",)


def test_s9_each_player_plays_at_most_one_card():
    s = make(hands=(("F1", "F3"), ("F2", "D1")), deck=("F5", "F6"), discard=[("F4", U)], ship=(2, 2))
    refuse_cmd(s, cmd(s, "F1 F3", fly(R)), r"at most one card")
    assert not any(
        {pc.card for pc in t.command.cards} == {"F1", "F3"} for t in legal_turns(s)
    )


def test_s9_one_card_action_is_the_active_players_card():
    s = make(hands=(("F1", "F3"), ("S1", "D1")), deck=("F5", "F6"), ship=(2, 2))
    refuse_cmd(s, cmd(s, "S1", SHIELDS), r"active player must play")
    s1 = s.evolve(active=1)
    assert do(s1, cmd(s1, "S1", SHIELDS)).hands == (("F1", "F3"), ("D1", "F5"))


def test_s9_hand_limit_two_in_multiplayer():
    s = make(hands=(("F1", "F3"), ("S1", "D1")), deck=("F5", "F6"), ship=(2, 2))
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.hands[0] == ("F3", "F5")


def test_s9_three_player_wild_takes_one_card_from_each_of_three():
    hands = (("S1", "F1"), ("D1", "F2"), ("S2", "F3"), ("D2", "F5"))
    s = make(hands=hands, deck=("F6", "F7"), ship=(2, 2), discard=[("F4", U)])
    after = do(s, cmd(s, "F2 F5 S1", fly(L)))
    assert after.ship == (2, 1) and after.heading is None
    assert after.hands == (("F1", "F6"), ("D1",), ("S2", "F3"), ("D2",))
    triples = {frozenset(pc.player for pc in t.command.cards) for t in legal_turns(s) if len(t.command.cards) == 3}
    assert triples == {frozenset({0, 1, 2}), frozenset({0, 1, 3}), frozenset({0, 2, 3})}
    refuse_cmd(s, cmd(s, "S1 F1 F2", fly(L)), r"at most one card")
    refuse_cmd(s, cmd(s, "S1 F2 deck:F6", fly(L)), r"three or more|\[D18\]")


def test_s9_two_player_wild_uses_deck_top_D18():
    s = make(hands=(("S1", "F1"), ("D1", "F2")), deck=("S2", "F5", "F6"), ship=(2, 2), discard=[("F4", U)])
    after = do(s, cmd(s, "S1 D1 deck:S2", fly(L)))
    assert after.ship == (2, 1)
    assert [e.card for e in after.discard] == ["F4", "S1", "D1", "S2"] and after.heading is None
    assert after.hands == (("F1", "F5"), ("F2",)) and after.deck == ("F6",)
    # Only the deck's top card may stand in; a 2-player wild needs it.
    refuse_cmd(s, cmd(s, "S1 D1 deck:F5", fly(L)), "top card is not F5")
    refuse_cmd(s, cmd(s, "S1 D1", fly(L)), "both be Fly")
    tops = {pc.card for t in legal_turns(s) for pc in t.command.cards if pc.player == DECK_PLAYER}
    assert tops == {"S2"}


def test_D18_two_player_wild_draw_triggers_the_reshuffle():
    ranking = ("S2", "F5", "W") + tuple(c for c in ALL_CARDS if c not in ("S2", "F5", "W"))
    s = make(hands=(("S1", "F1"), ("D1", "F2")), deck=(), discard=["F5", "S2"], ranking=ranking, ship=(2, 2))
    after = do(s, cmd(s, "S1 D1 deck:S2", SHIELDS))
    # Reshuffle of F5 S2 + W by rank: S2 F5 W; S2 played; active draws F5.
    assert after.second_pass and after.shields == 1
    assert [e.card for e in after.discard] == ["S1", "D1", "S2"]
    assert after.hands == (("F1", "F5"), ("F2",)) and after.deck == ("W",)


def test_D18_two_player_wild_impossible_when_no_card_can_be_drawn():
    s = make(hands=(("S1", "F1"), ("D1", "F2")), deck=(), second_pass=True, ship=(2, 2))
    assert not any(len(t.command.cards) == 3 for t in legal_turns(s))
    refuse_cmd(s, cmd(s, "S1 D1 deck:S2", SHIELDS), r"no card can be drawn.*\[D18\]")


def test_s9_player_without_cards_skips_to_draw_and_rescan():
    s = make(hands=((), ("D1", "F2")), deck=("S1", "F5", "F6"), ship=(2, 2), held=1, shields=0)
    turns = legal_turns(s)
    assert turns and all(t.command is None and t.bolster == 0 for t in turns)
    assert len(turns) == 10  # C(5,2) re-scan choices for row 4
    refuse(s, Turn(None, bolster=1), r"skips bolster")
    refuse(s, Turn(cmd(s, "D1@1", SHIELDS)), r"holds no card")
    after = do(s, None)
    assert after.hands == (("S1", "F5"), ("D1", "F2")) and after.active == 1 and after.held == 1


def test_s9_players_take_turns_in_order():
    s = make(hands=(("S1", "F1"), ("D1", "F2"), ("S2", "F3")), deck=("F5", "F6", "F7"))
    a = do(s, cmd(s, "S1", SHIELDS))
    assert a.active == 1
    b = do(a, cmd(a, "D1", shift(7)))
    assert b.active == 2
    c = do(b, cmd(b, "S2", SHIELDS))
    assert c.active == 0 and c.turn == 4


# --------------------------------------------------------------------------
# §10 Escape pod [D19]
# --------------------------------------------------------------------------


def test_s10_pod_moves_by_top_card_value_along_fly_arrow():
    s = make(hand=("F2", "F1", "F3"), escape_pod=True)
    after = do(s, cmd(s, "F2", fly(R)))  # F2 has value 2
    assert after.ship == (1, 1) and after.pod == (1, 2)
    after = do(s, cmd(s, "F1 F3", fly(R)))  # F3 on top: value 3
    assert after.pod == (1, 3)


def test_s10_pod_direction_chosen_when_top_is_not_fly():
    s = make(hand=("S2", "F1", "F3"), escape_pod=True)
    pods = {t.command.pod_direction for t in legal_turns(s) if t.command.top.card == "S2"}
    assert pods == {U, D, L, R}
    assert do(s, cmd(s, "S2", SHIELDS, pod=R)).pod == (1, 2)
    refuse_cmd(s, cmd(s, "S2", SHIELDS), "choose a direction")
    refuse_cmd(s, cmd(s, "F1", fly(R), pod=U), "not chosen here")


def test_s10_pod_moves_after_ship_action_and_the_three_card_wild_top_fixes_value():
    s = make(hand=("D3", "S1", "F4"), escape_pod=True, pod=(2, 1), ship=(3, 3))
    # Fly F4 (value 1) on top of a Shields action: the pod follows the chosen arrow.
    a = do(s, cmd(s, "D3 S1 F4", SHIELDS, arrow=R))
    assert a.pod == (2, 2) and a.heading is R
    b = do(s, cmd(s, "F4 S1 D3", SHIELDS, pod=U))  # D3 on top: value 3
    assert b.pod == (5, 1)


@pytest.mark.parametrize("start,d,value,end", [((1, 4), R, 3, (1, 5)), (DOCK, U, 3, DOCK), (DOCK, L, 3, DOCK), ((6, 2), U, 3, (7, 2))])
def test_s10_pod_stops_at_edge_D19(start, d, value, end):
    card = {1: "S1", 2: "S2", 3: "D3"}[value]
    s = make(hand=(card, "F1", "F2"), escape_pod=True, pod=start, ship=(3, 3))
    after = do(s, cmd(s, card, flip((7, 5)) if card.startswith("D") else SHIELDS, pod=d))
    assert after.pod == end and after.outcome.status is Status.ONGOING


def test_s10_pod_never_flips_meets_face_up_side():
    s = make({1: "S S A/O E/O E/E"}, hand=("D3", "F1", "F2"), escape_pod=True, ship=(3, 3))
    after = do(s, cmd(s, "D3", flip((7, 5)), pod=R))  # (1,1) (1,2) (1,3): fronts E E A
    assert after.pod == (1, 3) and after.outcome.status is Status.ONGOING
    assert after.cell((1, 3)).up is Side.FRONT and 13 not in after.seen


@pytest.mark.parametrize("row1,what", [("S S E/E O/E E/E", "obstructed"), ("S S E/E . E/E", "gap"), ("S S E/O! E/E E/E", "obstructed")])
def test_s10_pod_destroyed_by_gap_or_face_up_obstructed(row1, what):
    s = make({1: row1}, hand=("D3", "F1", "F2"), escape_pod=True, pod=(1, 2), ship=(3, 3))
    after = do(s, cmd(s, "D3", flip((7, 5)), pod=R))
    assert after.outcome.status is Status.LOST and "escape pod" in after.outcome.reason and what in after.outcome.reason


def test_s10_pod_arrives_at_earth_and_moves_no_more():
    s = make(hand=("D3", "F1", "F2"), escape_pod=True, pod=(7, 4), ship=(3, 3))
    a = do(s, cmd(s, "D3", flip((6, 5)), pod=R))
    assert a.pod == EARTH and a.pod_arrived and a.outcome.status is Status.ONGOING
    assert {t.command.pod_direction for t in legal_turns(a)} == {None}


def test_s10_win_needs_ship_and_pod_ship_first_waits():
    s = make(hand=("F1", "S1", "F2"), escape_pod=True, pod=(3, 3), ship=(7, 5), held=1, deck=("F5", "F6", "S2", "D1"))
    a = do(s, cmd(s, "F1", fly(R)))  # ship lands; the pod follows F1's arrow by 1: (3,4)
    assert a.ship == EARTH and a.outcome.status is Status.ONGOING and a.pod == (3, 4)
    assert a.hands == (("S1", "F2", "F5"),)
    b = do(a, cmd(a, "F2 F5", fly(U)))  # Fly no longer moves the ship; pod U by F5's 2
    assert b.ship == EARTH and b.pod == (5, 4) and b.outcome.status is Status.ONGOING
    c = do(b, cmd(b, "S1", SHIELDS, pod=R))  # S1 value 1
    assert c.pod == (5, 5) and c.shields == 1
    d = c.evolve(pod=(7, 5))
    won = do(d, cmd(d, "F6", fly(R)))  # F6 value 3: the first step reaches Earth
    assert won.outcome.status is Status.WON and won.pod == EARTH and won.ship == EARTH


def test_s10_win_pod_first_then_ship():
    s = make(hand=("F1", "S1", "F2"), escape_pod=True, pod=EARTH, ship=(7, 5), held=1)
    assert do(s, cmd(s, "F1", fly(R))).outcome.status is Status.WON
    s0 = make(hand=("F1", "S1", "F2"), escape_pod=True, pod=EARTH, ship=(7, 5), held=0)
    assert do(s0, cmd(s0, "F1", fly(R))).outcome.status is Status.LOST


def test_s10_pod_and_ship_arrive_in_the_same_action():
    s = make(hand=("F1", "S1", "F2"), escape_pod=True, pod=(7, 5), ship=(7, 4), held=1, rows={7: "E/E E/E E/E E/E E/B"})
    after = do(s, cmd(s, "F1", fly(R)))
    assert after.outcome.status is Status.WON and after.ship == EARTH and after.pod == EARTH


def test_s10_deck_out_still_applies_while_the_ship_waits():
    s = make(hand=("F1", "S1", "F2"), escape_pod=True, pod=(3, 3), ship=EARTH, held=1, deck=(), second_pass=True)
    assert do(s, cmd(s, "S1", SHIELDS, pod=L)).outcome.status is Status.LOST


def test_s10_pod_does_not_move_on_a_turn_without_a_card():
    s = make(hands=((), ("D1", "F2")), deck=("S1", "F5"), escape_pod=True, pod=(2, 2), ship=(2, 3))
    assert do(s, None).pod == (2, 2)


# --------------------------------------------------------------------------
# §11 Low memory mode [D20]
# --------------------------------------------------------------------------


def test_s11_low_memory_obstructed_full_shields_survives_loses_held_virus():
    s = make({3: "E/O+v E/E E/E E/E E/E"}, ship=(2, 1), shields=2, held=2, low_memory=True)
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.outcome.status is Status.ONGOING and after.ship == (3, 1) and after.shields == 0
    assert after.held == 2  # one lost, then the card's virus taken [D13]
    assert after.cell((3, 1)).face is T.OBSTRUCTED


def test_s11_low_memory_obstructed_loses_nearest_sample():
    rows = {
        3: "E/O E/E E/E E/E E/E",
        5: "E/E E/E E/E E/E E/E+v",  # distance 2 + 1 = 3
        6: "E/E E/E E/E E/E+r E/E",  # distance 1 + 2 = 3: tie, the higher row goes
        7: "E/E+v E/E E/E E/E E/E",  # distance 5
    }
    s = make(rows, ship=(2, 1), shields=2, held=0, low_memory=True)
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.outcome.status is Status.ONGOING and after.ship == (3, 1)
    assert after.cell((6, 4)).sample is None and after.lost_unseen == 1
    assert after.cell((5, 5)).sample is not None and after.cell((7, 1)).sample is not None
    assert after.held == 0 and after.rocks_found == 0 and after.shields == 0


def test_s11_low_memory_obstructed_without_full_shields_is_loss():
    s = make({3: "E/O E/E E/E E/E E/E"}, ship=(2, 1), shields=1, held=1, low_memory=True)
    assert do(s, cmd(s, "F1", fly(U))).outcome.status is Status.LOST


def test_s11_low_memory_boost_chain_stops_on_obstructed():
    s = make({3: "E/B E/E E/E E/E E/E", 4: "E/O E/E E/E E/E E/E"}, ship=(2, 1), shields=2, held=1, low_memory=True)
    after = do(s, cmd(s, "F1", fly(U)))
    assert after.ship == (4, 1) and after.held == 0 and after.outcome.status is Status.ONGOING


@pytest.mark.parametrize("rows,ship,d", [({4: "E/E E/E . E/E E/E"}, (3, 3), U), ({}, (3, 5), R)])
def test_D20_gaps_and_off_grid_stay_fatal_in_low_memory(rows, ship, d):
    s = make(rows, ship=ship, shields=2, held=2, low_memory=True)
    assert do(s, cmd(s, "F1", fly(d))).outcome.status is Status.LOST


def test_s11_low_memory_asteroid_unchanged():
    s = make({3: "E/A E/E E/E E/E E/E"}, ship=(2, 1), shields=1, held=1, low_memory=True)
    assert do(s, cmd(s, "F1", fly(U))).outcome.status is Status.LOST


# --------------------------------------------------------------------------
# §12 Difficulty adjustments
# --------------------------------------------------------------------------


def test_s12_second_action_costs_a_held_virus_sample():
    s = make(hand=("F1", "S1", "D1"), held=1, ship=(2, 2), second_action=True)
    after = do(s, cmd(s, "F1", fly(U)), second=cmd(s, "S1", SHIELDS))
    assert after.ship == (3, 2) and after.shields == 1 and after.held == 0
    assert after.hands == (("D1", "F4", "F5"),)  # drawing happens after both actions
    assert after.discard[-1] == DiscardEntry("S1")
    # Heading carries into the second action [D11]: one Fly card must follow it.
    s2 = make(hand=("F1", "F2", "D1"), held=1, ship=(2, 2), second_action=True)
    refuse(s2, Turn(cmd(s2, "F1", fly(U)), second=cmd(s2, "F2", fly(R))), "heading")


def test_s12_second_action_refused_without_sample_or_option():
    s = make(hand=("F1", "S1", "D1"), held=0, ship=(2, 2), second_action=True)
    refuse(s, Turn(cmd(s, "F1", fly(U)), second=cmd(s, "S1", SHIELDS)), "costs a held virus")
    assert not any(t.second for t in legal_turns(s))
    # The bolster spends first: held 1, bolster 1 leaves nothing for a second action.
    s1 = make(hand=("F1", "S1", "D1"), held=1, ship=(2, 2), second_action=True)
    refuse(s1, Turn(cmd(s1, "F1", fly(U)), bolster=1, second=cmd(s1, "S1", SHIELDS)), "costs a held virus")
    n = make(hand=("F1", "S1", "D1"), held=1, ship=(2, 2))
    refuse(n, Turn(cmd(n, "F1", fly(U)), second=cmd(n, "S1", SHIELDS)), "second-action")


def test_s12_second_action_refused_after_game_ended():
    s = make(hand=("F1", "S1", "D1"), held=1, ship=(7, 5), second_action=True)
    refuse(s, Turn(cmd(s, "F1", fly(R)), second=cmd(s, "S1", SHIELDS)), "ended during the first action")


def test_s12_reveal_once_rescan_flips_only_front_up_cards():
    s = make({4: "E/A! E/A E/A! E/A E/A"}, ship=(2, 2), hand=("S1", "F1", "F2"), reveal_once=True)
    assert rescans_for(s, cmd(s, "S1", SHIELDS)) == {frozenset(p) for p in combinations((2, 4, 5), 2)}
    refuse(s, Turn(cmd(s, "S1", SHIELDS), rescan=frozenset({1, 2})), "cannot flip column")
    # Deep Scan may still flip a card back to its front.
    s = make({5: "E/A! E/E E/E E/E E/E"}, hand=("D1", "F1", "F2"), reveal_once=True)
    assert do(s, cmd(s, "D1", flip((5, 1)))).cell((5, 1)).up is Side.FRONT


def test_s12_no_memory_cubes_changes_no_game_state():
    s = make(ship=(2, 2), hand=("D1", "S1", "F1"))
    n = make(ship=(2, 2), hand=("D1", "S1", "F1"), no_memory_cubes=True)
    assert n.options.memory_cubes == 0 and s.options.memory_cubes == 3
    assert keys(s) == keys(n)


# --------------------------------------------------------------------------
# Finished games
# --------------------------------------------------------------------------


def test_finished_game_has_no_turns_and_refuses_any():
    s = make(ship=(7, 5), held=1)
    won = do(s, cmd(s, "F1", fly(R)))
    assert legal_turns(won) == []
    with pytest.raises(GameOverError):
        apply_turn(won, Turn(cmd(won, "F2", fly(R))))
