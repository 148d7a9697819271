"""The exact endgame solver (``advisor.endgame``) against brute force.

The brute force shares nothing with the solver's chance model: it lists every
world consistent with a tiny observation (every placement of the unseen
physical cards, every deck order), and runs the information-set expectimax
by grouping those worlds by what the player sees after each command and each
re-scan. The solver instead branches on hidden facts with probabilities from
layout counts. Both must give the same value for every command.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from sensor_ghosts.advisor.bots import play_game
from sensor_ghosts.advisor.endgame import EndgameUnsupported, fewest_turns_to_earth, solve_endgame
from sensor_ghosts.advisor.search import after_command, commands, finish, turn_key
from sensor_ghosts.rules.cards import Side
from sensor_ghosts.rules.notation import parse_state
from sensor_ghosts.rules.observation import observe
from sensor_ghosts.rules.rescan import rescan_choices
from sensor_ghosts.rules.setup import Gap, Slot
from sensor_ghosts.rules.state import DiscardEntry, GameState, Status
from sensor_ghosts.rules.validation import check_playable


def _tiny(state: GameState, unseen: int, deck: int, rng: random.Random) -> GameState | None:
    """``state`` made tiny: every card seen but the ``unseen`` nearest the ship,
    the second pass with ``deck`` cards left."""
    cards = [(abs(r - state.ship[0]) + abs(c - state.ship[1]), cell.card.id)
             for r, row in enumerate(state.grid, 1) for c, cell in enumerate(row, 1)
             if isinstance(cell, Slot) and not cell.card.start]
    cards.sort()
    hidden = {cid for _, cid in cards[:unseen]}
    seen = frozenset(cid for _, cid in cards if cid not in hidden)
    o = state.options
    pool = [c.id for c in state.setup.command_cards.game_cards(o.difficulty, o.players)]
    free = [c for c in pool if c not in state.hands[0] and c not in {e.card for e in state.discard}]
    rng.shuffle(free)
    keep, bottom = free[:deck], free[deck:]
    discard = tuple(DiscardEntry(c) for c in bottom) + state.discard
    s = state.evolve(seen=seen, deck=tuple(keep), discard=discard, second_pass=True)
    try:
        check_playable(s)
    except Exception:
        return None
    return s


def _worlds(state: GameState) -> list[GameState]:
    """Every world the player of ``observe(state)`` cannot tell from ``state``:
    the unseen physical cards (grid and gaps) in every consistent placement,
    the face-down tokens in every order, the deck in every order. Uniform: the
    deal and the tokens are uniform permutations of physical things."""
    obs = observe(state)
    places = []  # (pos, kind, side or gap front)
    physical = []
    for r, row in enumerate(state.grid, 1):
        for c, cell in enumerate(row, 1):
            if isinstance(cell, Gap):
                places.append(((r, c), "gap", cell.card.front))
                physical.append(cell.card)
            elif isinstance(cell, Slot) and not cell.card.start and cell.card.id not in state.seen:
                places.append(((r, c), "slot", obs.cell((r, c))))
                physical.append(cell.card)
    tokens = [((r, c), cell.sample) for r, row in enumerate(state.grid, 1)
              for c, cell in enumerate(row, 1) if isinstance(cell, Slot) and cell.sample is not None]
    out = []
    for perm in itertools.permutations(physical):
        ok = True
        grid = [list(row) for row in state.grid]
        for ((r, c), kind, want), card in zip(places, perm, strict=True):
            if kind == "gap":
                ok &= card.front is want
                grid[r - 1][c - 1] = Gap(card)
            else:
                ok &= card.side(want.side) is want.up
                grid[r - 1][c - 1] = Slot(card, want.side, None)
        if not ok:
            continue
        for samples in itertools.permutations([x for _, x in tokens]):
            for (r, c), x in zip([p for p, _ in tokens], samples, strict=True):
                cell = grid[r - 1][c - 1]
                grid[r - 1][c - 1] = Slot(cell.card, cell.up, x)
            g = tuple(tuple(row) for row in grid)
            for deck in itertools.permutations(state.deck):
                out.append(state.evolve(grid=g, deck=deck))
    return out


def _brute(worlds: list[GameState], memo: dict | None = None, only=None) -> tuple[Fraction, dict]:
    """Information-set expectimax over equally likely ``worlds`` (one
    observation); at the root, the commands ``only`` (all by default)."""
    memo = {} if memo is None else memo
    s0 = worlds[0]
    key = (observe(s0), len(worlds))
    if key in memo and only is None:
        return memo[key]
    if s0.is_over:
        return Fraction(int(s0.outcome.status is Status.WON)), {}
    per_cmd = {}
    options = commands(s0)
    if s0.second_pass and not s0.deck and memo.get("inner"):
        # The last turn: its draw will fail (§7), so only a Fly can still win.
        options = {k: t for k, t in options.items() if t.command and t.command.action.kind.value == "fly"}
    memo["inner"] = True
    if only is not None:
        options = {k: t for k, t in options.items() if k in only}
    for k, t in options.items():
        groups: dict = {}
        for w in worlds:
            mid, flipped = after_command(w, t)
            groups.setdefault(observe(mid), []).append((mid, flipped))
        total = Fraction(0)
        for mids in groups.values():
            m0, f0 = mids[0]
            if m0.is_over:
                total += Fraction(len(mids) * int(m0.outcome.status is Status.WON))
                continue
            best = Fraction(0)
            for cols in rescan_choices(m0, f0) or [frozenset()]:
                after: dict = {}
                for m, f in mids:
                    s = finish(m, f, cols)
                    after.setdefault(observe(s), []).append(s)
                v = sum((len(g) * _brute(g, memo)[0] for g in after.values()), Fraction(0)) / len(mids)
                best = max(best, v)
            total += len(mids) * best
        per_cmd[k] = total / len(worlds)
    value = max(per_cmd.values(), default=Fraction(0)), per_cmd
    if only is None:
        memo[key] = value
    return value


def _positions():
    """Tiny endgames from the last turns of a few games of the cheating bot."""
    rng = random.Random(5)
    out = []
    for seed in range(20, 40):
        res = play_game("cheat", seed)
        for text, _turn in res.last[:2]:
            s = _tiny(parse_state(text), unseen=2, deck=1, rng=rng)
            if s is not None and len(_worlds(s)) <= 96:
                out.append(s)
        if len(out) >= 4:
            break
    return out


POSITIONS = _positions()


def test_there_are_positions():
    assert len(POSITIONS) >= 4


@pytest.mark.parametrize("i", range(4))
def test_command_values_match_brute_force(i):
    """The solver's optimum and the value of each Fly command (and of the best
    command) against brute force over every world. (Brute force over every
    command at the root takes minutes: a Deep Scan can flip any card.)"""
    if i >= len(POSITIONS):
        pytest.skip("fewer tiny positions")
    state = POSITIONS[i]
    obs = observe(state)
    opts = commands(state)
    flights = [k for k, t in opts.items() if t.command and t.command.action.kind.value == "fly"]
    res = solve_endgame(obs, focus=flights, max_turns=4, timeout=None, max_nodes=10**7)
    assert res.status == "exact" and res.proven and res.best is not None
    best_key = turn_key(state, res.best)
    _best, per_cmd = _brute(_worlds(state), only=set(flights) | {best_key})
    assert float(per_cmd[best_key]) == pytest.approx(res.low, abs=1e-9)
    for k in flights:
        lo, hi = res.values[k]
        v = float(per_cmd[k])
        if hi - lo < 1e-12:
            assert lo == pytest.approx(v, abs=1e-9), res.turns[k]
        else:  # shown below the optimum
            assert hi < res.low and lo - 1e-9 <= v <= hi + 1e-9


def test_fewest_turns_is_a_lower_bound_on_the_winning_plans():
    for seed in (1, 2, 3):
        res = play_game("cheat", seed)
        if not res.won:
            continue
        for back, (text, _t) in enumerate(reversed(res.last), 1):
            assert fewest_turns_to_earth(observe(parse_state(text))) <= back


def test_more_players_are_refused():
    from sensor_ghosts.generators import generate_setup
    from sensor_ghosts.rules.options import RuleOptions
    from sensor_ghosts.rules.state import initial_state

    setup = generate_setup(seed=1, options=RuleOptions(players=2))
    with pytest.raises(EndgameUnsupported):
        solve_endgame(observe(initial_state(setup, setup.deal)))


def test_orientation_constraint_is_what_the_player_sees():
    # (guards the brute force itself: every listed world shows the same view)
    s = POSITIONS[0]
    obs = observe(s)
    for w in _worlds(s)[:50]:
        assert observe(w) == obs
    assert Side.FRONT in {x.up for row in s.grid for x in row if isinstance(x, Slot)}
