"""Perft: ``perft(state, depth)`` counts legal turn sequences of length ``depth``.

A turn counts once per distinct (bolster amount, set of command cards played,
the card on top, the action with its arguments, the arrow of a Fly card on top of
a directionless action, the set of cards the re-scan flips, the pod direction
where the player chooses it). A sequence that ends the game early is not
extended. Every count below is derived by hand from RULES.md in the comment
above it; the engine must agree.

The positions are sparse on purpose: every cell is a gap except the start cards
(1,1), (1,2) and the E/E cards named, so few flips, re-scans and live moves exist.
"""

from __future__ import annotations

from test_conformance import make  # the hand-made position builder

from sensor_ghosts.rules.engine import legal_turns, perft
from sensor_ghosts.rules.geometry import Direction

U = Direction.UP
GAPS = ". . . . ."


def sparse(cards: dict[int, str]) -> dict[int, str]:
    rows = {r: GAPS for r in range(2, 8)}
    rows[1] = "S S . . ."
    rows.update(cards)
    return rows


# ---------------------------------------------------------------------------
# P1: solo, ship on (6,3), hand F1 S1 D1, heading none, no samples.
# Cards: (6,3) and (7,3), both E/E; the rest gaps.
#
# Re-scan: the ship is in row 6 or 7, so "the row two ahead" (8, 9) does not
# exist: exactly 1 re-scan choice (none) for every turn. Flippable cards: 63, 73
# (start cards never flip [D4]) -> 2 flips; shiftable rows: all but the ship's
# [D14] -> 6. So "any action" = 4 Fly + 4 Peek + 2 flips + 6 shifts + shields = 17.
#
# Depth 1 (95):
#   F1 alone, heading none: Fly x4 + Peek x4                          =  8
#   S1 alone                                                          =  1
#   D1 alone: 2 flips + 6 shifts                                      =  8
#   three-card wild {F1,S1,D1} (no Wild held [D24]), by top card:
#     F1 on top: 8 directional actions (arrow = direction)
#                + 9 directionless x 4 arrows [D11]                   = 44
#     S1 on top: 17;   D1 on top: 17                                  = 78
#   no pair (one Fly card)                                 total      = 95
#
# Depth 2: a turn's count N depends only on the hand and the heading (every
# state has 17 actions, 1 re-scan; losses still count as turns):
#   hand {S1,D1,F2}, heading set:  F2 2 + S1 1 + D1 8 + wild(44+17+17)  =  89
#   hand {F1,D1,F2}, heading none: 8 + 8 + D1 8 + pair 16 + wild(44+44+17) = 145
#   hand {F1,S1,F2}, heading none: 8 + 8 + 1 + 16 + 105                = 138
#   hand {F2,S2,D2}: heading none 8+1+8+78 = 95; heading set 2+1+8+78  =  89
# Live first turns (Fly D/L/R enters a gap: loss, not extended):
#   F1: Fly U (-> (7,3), heading U) + 4 Peeks (heading set): 5 x 89   =  445
#   S1: 1 x 145                                                        =  145
#   D1: 8 x 138                                                        = 1104
#   wild, F1 on top: 44 - 3 losses = 41, heading set: 41 x 89          = 3649
#   wild, S1 on top / D1 on top: 17 - 3 = 14 each, heading none: 28 x 95 = 2660
#                                                          total      = 8003
# ---------------------------------------------------------------------------


def p1():
    return make(
        sparse({6: ". . E/E . .", 7: ". . E/E . ."}),
        hand=("F1", "S1", "D1"),
        deck=("F2", "S2", "D2", "F3", "F4", "F5", "F6", "F7"),
        ship=(6, 3),
    )


def test_perft_solo_fly_shields_deep_scan_depth_1():
    assert perft(p1(), 1) == 95


def test_perft_solo_fly_shields_deep_scan_depth_2():
    assert perft(p1(), 2) == 8003


# ---------------------------------------------------------------------------
# P2: two players, same sparse grid, ship on (6,3), heading up (F4 on the
# discard, arrow up). Player 1 holds F1 S1, player 2 holds F2 D1; deck S2 F3 D2...
#
# Depth 1 (331), player 1 active:
#   F1 alone, heading up: Fly U, Peek U                                =   2
#   S1 alone                                                           =   1
#   pair F1 + F2 (one card each, §9): 8 actions x 2 tops               =  16
#   wild = my card + player 2's card + the deck's top S2 [D18], 3 tops each:
#     {F1,F2,S2}: 44+44+17 = 105   {F1,D1,S2}: 44+17+17 = 78
#     {S1,F2,S2}: 17+44+17 =  78   {S1,D1,S2}: 17*3     = 51            = 312
#                                                          total       = 331
# Depth 2 (player 2 active; N counted the same way, deck top in brackets):
#   a) F1 alone (2, both live): p1 S1 S2, p2 F2 D1 [F3], heading up:
#      F2 2 + D1 8 + wilds {F2,S1,F3} 105, {F2,S2,F3} 105, {D1,S1,F3} 78,
#      {D1,S2,F3} 78 = 376                                   2 x 376  =   752
#   b) S1 alone: p1 F1 S2, p2 F2 D1 [F3], heading none:
#      8 + 8 + pair F2+F1 16 + wilds 132 + 105 + 105 + 78 = 452           452
#   c) pair (16; live: Fly U + 4 Peeks, x 2 tops = 10): p1 S1 S2, p2 D1 [F3]:
#      D1 8 + wilds {D1,S1,F3} 78 + {D1,S2,F3} 78 = 164     10 x 164  =  1640
#   d) wilds (player 1 then draws F3; deck top D2). Live: a Fly top 41, other 14.
#      {F1,F2,S2}: p1 S1 F3, p2 D1: D1 8 + {D1,S1,D2} 51 + {D1,F3,D2} 78 = 137;
#                  live 41+41+14 = 96                        96 x 137  = 13152
#      {F1,D1,S2}: p1 S1 F3, p2 F2: F2 (8 or 2) + pair F2+F3 16
#                  + {F2,S1,D2} 78 + {F2,F3,D2} 105 = 207 (heading none) / 201;
#                  F1 on top: 41 x 201; D1/S2 on top: 28 x 207    = 8241 + 5796 = 14037
#      {S1,F2,S2}: p1 F1 F3, p2 D1: D1 8 + 78 + 78 = 164;
#                  live 14+41+14 = 69                        69 x 164  = 11316
#      {S1,D1,S2}: p1 F1 F3, p2 F2, heading none: F2 8 + 2 pairs 32
#                  + {F2,F1,D2} 105 + {F2,F3,D2} 105 = 250; live 42  42 x 250 = 10500
#                                                          total       = 51849
# ---------------------------------------------------------------------------


def p2():
    return make(
        sparse({6: ". . E/E . .", 7: ". . E/E . ."}),
        hands=(("F1", "S1"), ("F2", "D1")),
        deck=("S2", "F3", "D2", "F5", "F6", "F7", "F8"),
        discard=[("F4", U)],
        ship=(6, 3),
    )


def test_perft_two_players_depth_1():
    assert perft(p2(), 1) == 331


def test_perft_two_players_depth_2():
    assert perft(p2(), 2) == 51849


# ---------------------------------------------------------------------------
# P3: escape pod, solo, second pass, ship and pod on (6,3), hand F1 S1 W,
# heading none, deck F2 S2 D1... Grid as P1. Holding the Wild: no three-card wild
# [D24]. Pod values: F1 1, S1 1, W 3 [D5].
#
# Depth 1 (80):
#   F1 alone: 8 (the pod follows the arrow: no choice)                 =  8
#   S1 alone: shields x 4 pod directions (§10)                         =  4
#   W alone: 17 actions x 4 pod directions                             = 68
#                                                          total       = 80
# Live (the pod dies entering a gap; it stops at the edge [D19]; the ship acts
# first): F1 Fly U (ship and pod to (7,3)), F1 Peek U (pod to (7,3), then the
# re-scan shifts row 7 and the pod rides to (7,2) [D17]): 2. S1 pod U: 1.
# W pod U (3 steps: (7,3), then the edge stops it): Fly U, 4 Peeks, 2 flips,
# shifts of rows 1-5, shields = 13 (shifting row 7 first moves (7,3) away: the
# pod then enters a gap).
# Depth 2:
#   after F1: hand S1 W F2, heading up: F2 2 + S1 4 + W 68 = 74   2 x 74 =  148
#   after S1: hand F1 W F2: 8 + 8 + W 68 + pair 16 = 100                   100
#   after W:  hand F1 S1 F2 (no Wild now): 8 + 8 + S1 4 + pair 16
#             + wild: F1 top 44, F2 top 44, S1 top 17 x 4 pods = 68 -> 192
#                                                          13 x 192   = 2496
#                                                          total       = 2744
# ---------------------------------------------------------------------------


def p3():
    return make(
        sparse({6: ". . E/E . .", 7: ". . E/E . ."}),
        hand=("F1", "S1", "W"),
        deck=("F2", "S2", "D1", "F3", "F4", "F5"),
        ship=(6, 3),
        pod=(6, 3),
        second_pass=True,
        escape_pod=True,
    )


def test_perft_escape_pod_depth_1():
    assert perft(p3(), 1) == 80


def test_perft_escape_pod_depth_2():
    assert perft(p3(), 2) == 2744


# ---------------------------------------------------------------------------
# P4: re-scans and bolster. Solo, ship on (5,3), one virus held, hand F1 S1 D1.
# Cards: (5,3) E/E and (7,1) (7,2) (7,3) E/E; the rest gaps.
# The row two ahead is row 7 with 3 cards: C(3,2) = 3 re-scan choices, but only
# 1 after a Deep Scan flipped one of them [D23]. Every Fly enters a gap: a loss,
# 1 re-scan (none). Any action: 8 + 4 flips + 6 shifts + shields = 19.
# Per bolster amount (0 or 1, both distinct turns [D9]):
#   F1: 4 Fly x 1 + 4 Peek x 3                                         = 16
#   S1: 3
#   D1: flip 53 x 3 + flips of 71/72/73 x 1 + 6 shifts x 3             = 24
#   wild, F1 on top: 16 + flips 4 arrows x (3+1+1+1) = 24
#                    + shifts 6 x 4 x 3 = 72 + shields 4 x 3 = 12       = 124
#   wild, S1 on top: 16 + 6 + 18 + 3 = 43;   D1 on top: 43              = 210
#                                                     per bolster       = 253
#                                                          total   2 x 253 = 506
# ---------------------------------------------------------------------------


def p4():
    return make(
        sparse({5: ". . E/E . .", 7: "E/E E/E E/E . ."}),
        hand=("F1", "S1", "D1"),
        ship=(5, 3),
        held=1,
    )


def test_perft_rescans_and_bolster_depth_1():
    assert perft(p4(), 1) == 506
    assert {t.bolster for t in legal_turns(p4())} == {0, 1}


def test_perft_depth_0_is_one():
    assert perft(p1(), 0) == 1
