"""Expected mode (RULES.md §15): fixed flight plans as a lower bound, checked
against the rules engine deal by deal and against the exact expectimax."""

from __future__ import annotations

import itertools
import random

import pytest
from instances import late_endgame, near_earth, quick_setup

from sensor_ghosts.rules.engine import apply_turn, legal_turns
from sensor_ghosts.rules.state import GameState, Status, initial_state, random_deal
from sensor_ghosts.rules.turns import ActionKind
from sensor_ghosts.solver import expected
from sensor_ghosts.solver.api import solve
from sensor_ghosts.solver.expected import FlightPath, PathBound, flight_needs, path_lower_bound
from sensor_ghosts.solver.model import HANDS, PEND, Model
from sensor_ghosts.solver.plan import build_plan
from sensor_ghosts.solver.pod_track import WON


def _open_plans(start: GameState, fresh: bool) -> list[tuple[Model, list]]:
    return [found for status, found in expected._fewest_turn_plans(start, "open", fresh, None, None)
            if found is not None]


def _cards(model: Model, st: GameState) -> tuple:
    """A GameState's card half as the expected model writes it."""
    tok = model.tok_of_card
    return (
        tuple(tuple(sorted(tok[c] for c in h)) for h in st.hands),
        tuple(sorted(tok[c] for c in st.deck)),
        tuple(sorted(tok[e.card] for e in st.discard)),
        st.heading,
        st.second_pass,
        st.active,
    )


def _follow(state: GameState, fp: FlightPath, turns: list) -> tuple[bool, bool, bool]:
    """Play the flight plan through the rules engine on the deal ``state``
    holds, paying each turn with ``fp``'s choice of cards: (whether ``fp``
    said the plan goes on to the end on this deal, whether the engine won,
    whether it reached the second pass)."""
    m = fp.m
    tok = m.tok_of_card
    for i, want in enumerate(turns):
        cards = _cards(m, state)
        chosen = fp.choice(i, cards)
        if chosen is None:
            return False, False, state.second_pass  # nothing in hand pays for this turn
        after = chosen[0]
        hand, left = list(cards[0][cards[5]]), list(after[0][cards[5]])
        played = list(hand)
        for t in left:
            played.remove(t)
        last = i == len(turns) - 1
        outcomes = [] if last else [c for _p, c, _k in fp._drawn(i, after)]
        for t in legal_turns(state):
            if (t.bolster, t.second, t.rescan) != (want.bolster, None, want.rescan) or t.command is None:
                continue
            if t.command.action != want.command.action:
                continue
            if sorted(tok[pc.card] for pc in t.command.cards) != sorted(played):
                continue
            nxt = apply_turn(state, t)
            if last and nxt.outcome.status is Status.WON:
                return True, True, state.second_pass
            if not last and not nxt.is_over and fp._canonical(i + 1, _cards(m, nxt)) in outcomes:
                state = nxt
                break
        else:
            if not last and not outcomes:
                return False, False, True  # the deck runs out on the second pass: lost
            raise AssertionError(f"turn {i + 1}: no engine turn pays as the flight plan chose")
    raise AssertionError("the flight plan did not end in a win")


def test_certain_flight_plan_wins_every_deal_through_the_engine():
    setup = quick_setup(1)
    start = initial_state(setup, setup.deal)
    model_e = Model(start, "expected")
    for model, path in _open_plans(start, True):
        fp = FlightPath(model_e, flight_needs(model, path))
        roots = model_e.open_roots()
        if all(fp.certain(0, st[HANDS:PEND]) for st, _ in roots):
            break
    else:
        pytest.fail("quick setup 1 has a certain flight plan (measured)")
    turns = build_plan(model, path, "open", path[0][1][1]).turns
    for k in range(6):
        state = initial_state(setup, random_deal(setup, random.Random(100 + k)))
        assert _follow(state, fp, turns)[:2] == (True, True)


def test_uncertain_flight_plan_agrees_with_the_engine_through_the_reshuffle():
    # Deal by deal: the plan goes on to the end exactly when the engine, fed
    # its choice of cards, wins; some of these deals reach the reshuffle [D15].
    setup = quick_setup(5)
    start = initial_state(setup, setup.deal)
    model_e = Model(start, "expected")
    model, path = _open_plans(start, True)[0]
    fp = FlightPath(model_e, flight_needs(model, path))
    assert 0.5 < _probability(fp, model_e) < 1
    turns = build_plan(model, path, "open", path[0][1][1]).turns
    outcomes = [_follow(initial_state(setup, random_deal(setup, random.Random(k))), fp, turns)
                for k in range(12)]
    assert all(said == won for said, won, _ in outcomes)
    assert any(won for _, won, _ in outcomes)
    assert any(second for _, _, second in outcomes), "no deal reached the second pass"


@pytest.mark.parametrize(("seed", "keep", "p"), [(37, 3, 2 / 3), (19, 4, 1 / 2)])
def test_flight_plan_probability_is_the_share_of_deck_orders_the_engine_wins(seed, keep, p):
    # Every order of the deck equally likely: the plan's probability is the
    # share of orders on which the engine, fed the plan's choice of cards, wins.
    state = late_endgame(seed, keep)
    model_e = Model(state, "expected")
    model, path = _open_plans(state, False)[0]
    fp = FlightPath(model_e, flight_needs(model, path))
    assert fp.win(0, model_e.root_state()[HANDS:PEND]) == pytest.approx(p)
    turns = build_plan(model, path, "open").turns
    orders = list(itertools.permutations(state.deck))
    results = [_follow(state.evolve(deck=order), fp, turns) for order in orders]
    assert all(said == won for said, won, _ in results)
    assert sum(won for _, won, _ in results) / len(orders) == pytest.approx(p)


def _exact(state: GameState, monkeypatch) -> float:
    """The expectimax alone (no flight plan), to the end."""
    monkeypatch.setattr(expected, "path_lower_bound", lambda *a, **k: PathBound())
    r = solve(state, mode="expected")
    monkeypatch.undo()
    assert r.win_probability is not None
    return r.win_probability


@pytest.mark.parametrize(("seed", "keep"), [(0, 1), (0, 2), (1, 2), (2, 2), (2, 3), (3, 3), (4, 2), (19, 4), (37, 3)])
def test_flight_plans_never_beat_the_exact_expectimax(seed, keep, monkeypatch):
    state = late_endgame(seed, keep)
    exact = _exact(state, monkeypatch)
    bound = path_lower_bound(state, False)
    assert bound.probability <= exact + 1e-12
    assert not bound.certain or exact == pytest.approx(1.0)
    assert not bound.impossible or exact == 0.0
    # solve() combines both: exact whenever either settles it.
    r = solve(state, mode="expected")
    assert r.lower <= exact + 1e-12 <= r.upper + 2e-12
    if r.win_probability is not None:
        assert r.win_probability == pytest.approx(exact)


def test_more_players_from_a_fresh_setup_spend_the_budget_on_flight_plans(monkeypatch):
    # There the AND-OR search has settled none of 150 setups in 10 s
    # (docs/SOLVER.md, "Expected mode"); the deal-mode plans that follow the
    # open-mode ones get its time.
    from sensor_ghosts.generators.generate import generate_setup
    from sensor_ghosts.rules.options import RuleOptions
    from sensor_ghosts.solver.adaptive import SureWin

    def no_search(*_a, **_k):
        raise AssertionError("the AND-OR search ran")

    monkeypatch.setattr(SureWin, "within", no_search)
    r = solve(generate_setup(seed=0, options=RuleOptions(players=3)), mode="expected", timeout=2)
    assert r.status == "unknown" and r.lower < r.upper == 1.0
    # Solo it runs (seed 4: no fixed flight plan wins for certain).
    with pytest.raises(AssertionError, match="AND-OR"):
        solve(generate_setup(seed=4), mode="expected", timeout=2)


def test_expected_mode_says_how_it_knows():
    setup = quick_setup(1)
    r = solve(setup, mode="expected", timeout=30)
    assert (r.status, r.win_probability) == ("solved", 1.0)
    assert "flight plan" in r.method and "whatever is drawn" in r.method
    # The plan behind it, one line per turn, without cards (replayed first).
    turns = int(r.method.split("fixed ")[1].split("-turn")[0])
    assert r.flight is not None and len(r.flight) == turns
    assert r.flight[0].startswith(" 1. ") and r.flight[-1].startswith(f"{turns:2d}. ")
    assert any(" fly " in line for line in r.flight) and r.as_dict()["flight"] == r.flight
    r = solve(late_endgame(1, 2), mode="expected", timeout=30)
    assert (r.status, r.win_probability) == ("unsolvable", 0.0) and "no deck order" in r.method
    # Too few nodes for the adaptive strategy it has (1,187 nodes, measured).
    r = solve(quick_setup(5), mode="expected", timeout=30, max_nodes=600)
    assert r.status == "unknown" and 0.9 < r.lower < r.upper == 1.0
    assert "lower: the best fixed flight plan for each opening hand, its cards" in r.method
    assert "upper:" in r.method and r.flight is None  # (no one plan is behind the lower bound)
    assert r.as_dict()["method"] == r.method


def _probability(fp: FlightPath, model_e: Model) -> float:
    """The plan's win probability from a fresh setup, over the opening hands."""
    return sum(pr * fp.win(0, st[HANDS:PEND]) for pr, st in expected.opening(model_e, True))


def test_each_opening_hand_takes_the_plan_best_for_it():
    # The players see their hands before they set out: the bound is the sum
    # over hands of the best plan's chance for that hand, which is at least
    # each plan's own. Here a deal-mode plan (seeded deal 3, its fewest
    # cards, measured) suits other hands than open mode's plans do.
    setup = quick_setup(5)
    start = initial_state(setup, setup.deal)
    model_e = Model(start, "expected")
    hands = [(pr, st[HANDS:PEND]) for pr, st in expected.opening(model_e, True)]

    def wins(found: tuple) -> list[float]:
        fp = FlightPath(model_e, flight_needs(*found))
        return [fp.win(0, cards) for _pr, cards in hands]

    per_plan = [wins(found) for found in _open_plans(start, True)]
    dealt = initial_state(setup, random_deal(setup, random.Random(3)))
    *_first, (_status, other) = expected._fewest_turn_plans(dealt, "deal", True, None, None)  # fewest cards
    per_plan.append(wins(other))
    singles = [sum(pr * w for (pr, _c), w in zip(hands, ws, strict=True)) for ws in per_plan]
    mixed = sum(pr * max(ws) for (pr, _c), ws in zip(hands, zip(*per_plan, strict=True), strict=True))
    prior = PathBound(per_hand={cards: (False, w) for (_pr, cards), w in zip(hands, per_plan[-1], strict=True)})
    bound = path_lower_bound(start, True, deals=0, prior=prior)
    assert bound.probability == pytest.approx(mixed) and mixed > max(singles) + 1e-3
    assert bound.single == pytest.approx(max(singles[:-1])) and not bound.certain


def test_hands_left_when_time_runs_out_count_as_losses(monkeypatch):
    # The opening hands are worked out likeliest first; when the budget ends
    # after three of them, the bound is what those three give (four players
    # have 345 hands, and one may take seconds).
    setup = quick_setup(5)
    start = initial_state(setup, setup.deal)
    full = path_lower_bound(start, True, deals=0)
    assert 0.5 < full.probability < 1 and not full.certain
    model_e = Model(start, "expected")
    model, path = _open_plans(start, True)[0]
    fp = FlightPath(model_e, flight_needs(model, path))
    hands = sorted(((pr, st[HANDS:PEND]) for pr, st in expected.opening(model_e, True)), key=lambda x: -x[0])
    want = sum(pr * fp.win(0, cards) for pr, cards in hands[:3])
    value, calls = FlightPath.value, []

    def value_then_out(self, i, cards):
        calls.append(cards)
        if len(calls) > 3:
            raise expected.OutOfTime
        return value(self, i, cards)

    monkeypatch.setattr(FlightPath, "value", value_then_out)
    partial = path_lower_bound(start, True, deals=0)
    assert partial.probability == pytest.approx(want) and want < full.probability
    assert not partial.certain and partial.turns == full.turns


def test_out_of_budget_expected_mode_unwinds_at_once(monkeypatch):
    """Past its node or time budget the expectimax returns what it has proven
    instead of pricing every remaining draw on the way up: a state from the
    fuzz run (escape pod, an empty deck, at the dock) once spent seconds after
    its 0.5 s limit doing that (36,328 draw probabilities for 2 nodes)."""
    from pathlib import Path

    from sensor_ghosts.rules.notation import parse_state
    from sensor_ghosts.solver import expected
    from sensor_ghosts.solver.api import solve

    calls = []
    real = expected._draw_probability
    monkeypatch.setattr(expected, "_draw_probability", lambda *a: calls.append(1) or real(*a))
    state = parse_state((Path(__file__).parent / "data" / "expected_escape_pod_dock.txt").read_text())
    res = solve(state, mode="expected", max_nodes=1)
    assert res.status == "unknown" and (res.lower, res.upper) == (0.0, 1.0)
    assert len(calls) < 10


class _Plain(FlightPath):
    """A flight plan's values without merging card states that play alike."""

    def _canonical(self, i: int, cards: tuple) -> tuple:
        return cards

    def _key(self, i: int, cards: tuple, pod) -> tuple:
        return (i, cards) if pod is None else ((i, cards), pod)


def test_card_states_that_play_alike_share_their_value():
    # The memo takes as one the headings that allow the same single-card Fly,
    # and Deep Scan and Shields cards once no turn left needs them; the values
    # (and certainty) are those of the recursion over the states as they are.
    from sensor_ghosts.generators.generate import generate_setup
    from sensor_ghosts.rules.options import RuleOptions

    setup = generate_setup(seed=3, options=RuleOptions(players=3))
    start = initial_state(setup, setup.deal)
    model_e = Model(start, "expected")
    model, path = _open_plans(start, True)[0]
    needs = flight_needs(model, path)
    fp, plain = FlightPath(model_e, needs), _Plain(model_e, needs)
    # (Merging the two on every turn, this plan's Deep Scan turns included,
    # changes one of these hands' values: measured.)
    assert any(fp._merge) and not all(fp._merge)
    hands = [st[HANDS:PEND] for st, _dealt in model_e.open_roots()][::40]
    for cards in hands:
        (sure, p), (sure0, p0) = fp.value(0, cards), plain.value(0, cards)
        assert sure == sure0 and p == pytest.approx(p0, abs=1e-12)  # (merged draws add up in another order)
        assert fp.certain(0, cards) == plain.certain(0, cards)
    assert len(fp._memo) < 0.8 * len(plain._memo)
    assert any(0 < fp.win(0, cards) < 1 for cards in hands)


def test_a_command_that_cannot_be_the_turns_best_changes_no_value(monkeypatch):
    # ``FlightPath._after`` leaves out the other draws of a command once it
    # cannot beat the turn's best so far: the values and their certainty are
    # those worked out with every draw of every command, to the last bit.
    from sensor_ghosts.generators.generate import generate_setup
    from sensor_ghosts.rules.options import RuleOptions
    from sensor_ghosts.solver import expected

    setup = generate_setup(seed=3, options=RuleOptions(players=3))
    start = initial_state(setup, setup.deal)
    model_e = Model(start, "expected")
    model, path = _open_plans(start, True)[0]
    needs = flight_needs(model, path)
    hands = [st[HANDS:PEND] for st, _dealt in model_e.open_roots()][::20]
    fp = FlightPath(model_e, needs)
    got = [fp.value(0, cards) for cards in hands]
    monkeypatch.setattr(expected, "CUT_MARGIN", 2.0)  # (no command is ever left out)
    every = FlightPath(model_e, needs)
    assert got == [every.value(0, cards) for cards in hands]
    assert any(0 < p < 1 for _sure, p in got)
    assert len(fp._memo) < len(every._memo)  # (it did leave some out)


def _pod_endgame(seed: int, keep: int) -> GameState:
    """``late_endgame`` with the escape pod (§10) out on the grid."""
    from sensor_ghosts.rules.options import RuleOptions
    from sensor_ghosts.rules.state import DiscardEntry

    st = near_earth(seed, RuleOptions(escape_pod=True))
    deck = tuple(st.deck)
    gone = tuple(DiscardEntry(c) for c in deck[keep:] + (st.setup.command_cards.wild.id,))
    return st.evolve(deck=deck[:keep], discard=gone + st.discard, second_pass=True)


def _follow_pod(state: GameState, fp: FlightPath, turns: list) -> bool:
    """Play a flight plan with the pod's moves chosen as the cards come
    (``FlightPath.pods``) through the rules engine on the deal ``state``
    holds, with ``fp``'s choice of cards and of the pod's place after each
    turn: whether it wins. Each turn, the engine must take the pod where
    ``fp`` said, end the game exactly when ``fp`` said the turn wins, and
    leave a card state among ``fp``'s draws."""
    m = fp.m
    tok = m.tok_of_card
    for i in range(len(fp.needs)):
        cards = _cards(m, state)
        chosen = fp.choice(i, cards, state.pod)
        if chosen is None:
            return False  # nothing in hand pays for this turn, or the pod cannot make it
        after, pod1 = chosen
        hand, left = list(cards[0][cards[5]]), list(after[0][cards[5]])
        played = list(hand)
        for t in left:
            played.remove(t)
        want = turns[i] if i < len(turns) else None  # None: waiting at Earth for the pod
        outcomes = [] if pod1 == WON else [c for _p, c, _k in fp._drawn(i, after)]
        for t in legal_turns(state):
            if t.second is not None or (t.command is None) != (not played):
                continue
            if want is not None and ((t.bolster, t.rescan) != (want.bolster, want.rescan)
                                     or (t.command is not None and t.command.action != want.command.action)):
                continue
            if want is None and (t.bolster or (t.command is not None and t.command.action.kind
                                               not in (ActionKind.FLY, ActionKind.PEEK, ActionKind.SHIELDS))):
                continue
            if t.command is not None and sorted(tok[pc.card] for pc in t.command.cards) != sorted(played):
                continue
            nxt = apply_turn(state, t)
            if pod1 == WON:
                if nxt.outcome.status is Status.WON:
                    return True
                continue
            if not nxt.is_over and nxt.pod == pod1 and fp._canonical(i + 1, _cards(m, nxt)) in outcomes:
                state = nxt
                break
        else:
            if pod1 != WON and not outcomes:
                return False  # the deck runs out on the second pass: lost
            raise AssertionError(f"turn {i + 1}: no engine turn pays and moves the pod as the strategy chose")
        if i == len(fp.needs) - 1:
            return False  # the last turn without the pod at Earth
    raise AssertionError("unreachable")


@pytest.mark.parametrize(("seed", "keep", "fixed"), [(29, 4, 1 / 24), (43, 4, 0.5)])
def test_pod_moves_chosen_as_the_cards_come_are_the_share_of_deck_orders_the_engine_wins(seed, keep, fixed):
    # The ship's plan fixed, the pod's move chosen with each turn's cards
    # (and up to ``POD_WAITING`` turns after it waiting at Earth): its value
    # is the share of deck orders on which the engine, fed those choices,
    # wins; and it beats the plan's own pod moves (theirs measured: the
    # choice here made 0.25 and 1 of them; the second needs its turn
    # waiting at Earth, without which it makes 0.25).
    state = _pod_endgame(seed, keep)
    model_e = Model(state, "expected")
    model, path = _open_plans(state, False)[0]
    needs = flight_needs(model, path)
    cards = model_e.root_state()[HANDS:PEND]
    assert FlightPath(model_e, needs).win(0, cards) == pytest.approx(fixed)
    pods = expected._pod_track(model, path, "open")
    fp = FlightPath(model_e, needs, None, *pods)
    p = fp.win(0, cards)
    assert p > fixed + 0.09
    turns = build_plan(model, path, "open").turns
    orders = list(itertools.permutations(state.deck))
    won = [_follow_pod(state.evolve(deck=order), fp, turns) for order in orders]
    assert sum(won) / len(orders) == pytest.approx(p)


def test_pod_moves_chosen_as_the_cards_come_from_the_dock_through_the_engine():
    # A fresh setup: random deals followed through the engine, the pod
    # where the track says turn by turn; some win, and the value is above
    # the plan's own pod moves' (measured).
    from sensor_ghosts.rules.options import RuleOptions

    setup = quick_setup(3, RuleOptions(escape_pod=True))
    start = initial_state(setup, setup.deal)
    model_e = Model(start, "expected")
    model, path = _open_plans(start, True)[0]
    needs = flight_needs(model, path)
    fp = FlightPath(model_e, needs, None, *expected._pod_track(model, path, "open"))
    turns = build_plan(model, path, "open", path[0][1][1]).turns
    won = [_follow_pod(initial_state(setup, random_deal(setup, random.Random(k))), fp, turns) for k in range(3)]
    assert any(won)
    # The flight as printed leaves the pod's moves to the cards.
    lines = expected.flight_text(model, path, "open", pod_moves=False)
    assert all("(pod: by the top card)" in line for line, t in zip(lines, turns, strict=True) if t.command)
    assert not any("(pod: by" in line for line in expected.flight_text(model, path, "open"))


def test_more_players_flight_plans_come_from_the_card_search_where_the_astar_finds_none():
    # Four players' seed 24: the joint A* alone found no plan in 13,907
    # nodes (20 s); the card search, as ``solve`` makes it, finds one in
    # 485. Of 3,000 nodes the A* has half, then the card search the rest:
    # the plan comes, and wins through the rules engine.
    from sensor_ghosts.generators.generate import generate_setup
    from sensor_ghosts.rules.options import RuleOptions

    setup = generate_setup(seed=24, options=RuleOptions(players=4))
    start = initial_state(setup, setup.deal)
    plans = list(expected._fewest_turn_plans(start, "open", True, None, 3_000))
    assert plans and plans[0][0] == "solved"
    model, path = plans[0][1]
    plan = build_plan(model, path, "open", path[0][1][1])
    assert plan.replay()[-1].outcome.status is Status.WON
    assert len(plan.turns) == 12


def test_a_plan_valued_from_no_hand_in_time_is_said_so():
    # A plan came, but the budget ran out in its first opening hand: the
    # lower bound is 0, and the answer says why.
    got = expected._bracketed(0.0, 1.0, PathBound(turns=13), nodes=0, seconds=10.0)
    assert got.lower == 0.0 and got.upper == 1.0
    assert got.method.startswith("lower: a fixed 13-turn flight plan, valued from no opening hand in time;")
    none = expected._bracketed(0.0, 1.0, PathBound(), nodes=0, seconds=10.0)
    assert none.method.startswith("lower: none found in time;")
