"""Observation notation, consistency checks, and the exact world sampler
(RULES.md §14): counts against brute force, uniformity against enumeration."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import random
from collections import Counter
from itertools import permutations

import pytest
from scipy.stats import chisquare

from sensor_ghosts.rules.cards import SectorType, Side
from sensor_ghosts.rules.engine import apply_turn, legal_turns
from sensor_ghosts.rules.errors import NotationError
from sensor_ghosts.rules.notation import format_state, state_to_json
from sensor_ghosts.rules.observation import (
    InconsistentObservationError,
    PairProblem,
    SeenCard,
    check_observation,
    observe,
)
from sensor_ghosts.rules.observation_notation import (
    format_observation,
    load_observation,
    observation_from_json,
    observation_to_json,
    parse_observation,
)
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.solver.worlds import WorldSampler, down_side_marginals, sample_worlds

E, B, A, O = SectorType.EMPTY, SectorType.BOOST, SectorType.ASTEROID, SectorType.OBSTRUCTED  # noqa: E741


def _quick_setup(seed, options=None):
    path = pathlib.Path(__file__).resolve().parents[1] / "factories.py"
    spec = importlib.util.spec_from_file_location("_sg_factories", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.quick_setup(seed, options)


def _played(seed: int, turns: int, options=None):
    s = initial_state(_quick_setup(seed, options), seed=seed)
    rng = random.Random(seed)
    for _ in range(turns):
        nxt = [t for t in legal_turns(s)]
        rng.shuffle(nxt)
        for t in nxt:  # a random turn that does not end the game
            s2 = apply_turn(s, t)
            if not s2.is_over:
                s = s2
                break
    return s


# --------------------------------------------------------------------------
# PairProblem: exact counts and uniform sampling
# --------------------------------------------------------------------------


def _brute(constraints, cards):
    """Every distinct filling, by enumerating all orders of the cards."""
    out = set()
    for perm in permutations(cards):
        if all(
            (f is None or f is p[0]) and (b is None or b is p[1])
            for (f, b), p in zip(constraints, perm, strict=True)
        ):
            out.add(perm)
    return out


SMALL = [
    # (constraints, cards): mixed classes: front known, back known, exact, unknown
    ([(E, None), (E, None), (None, A), (A, None), (None, None), (O, B)],
     [(E, A), (E, O), (A, A), (O, B), (B, A), (E, E)]),
    ([(None, A), (None, A), (None, None), (E, None), (None, E), (A, None), (None, None)],
     [(E, A), (A, A), (B, A), (E, E), (A, E), (A, B), (E, O)]),
    ([(A, None), (A, None), (A, None), (None, O), (None, None), (None, None)],
     [(A, E), (A, E), (A, O), (O, O), (E, O), (A, B)]),
]  # fmt: skip


@pytest.mark.parametrize("constraints,cards", SMALL)
def test_count_matches_brute_force(constraints, cards):
    assert PairProblem(constraints, Counter(cards)).count() == len(_brute(constraints, cards))


def test_count_random_small_problems_match_brute_force():
    rng = random.Random(5)
    types = [E, B, A, O]
    for _ in range(40):
        cards = [(rng.choice(types), rng.choice(types)) for _ in range(6)]
        cons = []
        for f, b in rng.sample(cards, len(cards)):
            k = rng.randrange(4)
            cons.append(((f if k in (0, 2) else None), (b if k in (1, 2) else None)))
        # A few constraints that may make it impossible.
        if rng.random() < 0.3:
            cons[0] = (rng.choice(types), None)
        assert PairProblem(cons, Counter(cards)).count() == len(_brute(cons, cards))


@pytest.mark.parametrize("constraints,cards", SMALL)
def test_sampler_is_uniform_over_all_fillings(constraints, cards):
    support = sorted(_brute(constraints, cards), key=str)
    problem = PairProblem(constraints, Counter(cards))
    rng = random.Random(11)
    draws = 200 * len(support)
    freq = Counter(tuple(problem.sample(rng)) for _ in range(draws))
    assert set(freq) <= set(support)  # never an inconsistent filling
    observed = [freq[x] for x in support]
    assert chisquare(observed).pvalue > 1e-3


def test_marginals_match_enumeration():
    constraints, cards = SMALL[1]
    support = _brute(constraints, cards)
    margs = PairProblem(constraints, Counter(cards)).marginals()
    for i in range(len(constraints)):
        exact = Counter(f[i] for f in support)
        for pair, n in exact.items():
            assert margs[i][pair] == pytest.approx(n / len(support))


# --------------------------------------------------------------------------
# Worlds from real observations
# --------------------------------------------------------------------------


def test_observe_roundtrip_world_is_consistent():
    s = _played(3, 6)
    obs = observe(s, 0)
    for w in sample_worlds(obs, 50, seed=1):
        assert observe(w, 0) == obs
        # The sampled world plays: same legal turns as the truth (solo: same hand).
        assert {t.key() for t in legal_turns(w)} == {t.key() for t in legal_turns(s)}


def test_worlds_deterministic_for_seed():
    obs = observe(_played(4, 3), 0)
    a = sample_worlds(obs, 5, seed=9)
    b = sample_worlds(obs, 5, seed=9)
    assert a == b


def test_down_side_frequencies_match_exact_marginals():
    obs = observe(_played(7, 4), 0)
    margs = down_side_marginals(obs)
    pos = next(p for p, m in margs.items() if len(m) >= 3)
    sampler = WorldSampler(obs)
    rng = random.Random(3)
    n = 4000
    freq = Counter(sampler.sample(rng).cell(pos).down.value for _ in range(n))
    keys = sorted(margs[pos])
    exp = [margs[pos][k] * n for k in keys]
    assert chisquare([freq[k] for k in keys], exp).pvalue > 1e-3


def test_perfect_memory_marginal_is_remaining_row_of_card_set():
    """[D3] Fresh deal, nothing seen: a front-X card's back follows the card set's
    row X (every card's front is known, nothing else)."""
    s = initial_state(_quick_setup(2), seed=2)
    obs = observe(s, 0)
    margs = down_side_marginals(obs)
    pairs = obs.sector_cards.pair_counts()
    for pos, m in margs.items():
        f = obs.cell(pos).up
        row = {b: pairs[(f, b)] for b in SectorType}
        total = sum(row.values())
        for b, n in row.items():
            assert m.get(b.value, 0.0) == pytest.approx(n / total)


def test_sample_contents_and_deck_uniform():
    s = _played(5, 2)
    obs = observe(s, 0)
    sampler = WorldSampler(obs)
    rng = random.Random(4)
    fd = obs.face_down_samples()
    n = 3000
    virus = Counter()
    tops = Counter()
    for _ in range(n):
        w = sampler.sample(rng)
        for p in fd:
            virus[p] += w.cell(p).sample.virus
        tops[w.deck[0]] += 1
    # Each face-down token is virus with probability (hidden virus)/(hidden tokens).
    pv = obs.virus_face_down / (len(fd) + obs.unseen_lost)
    for p in fd:
        assert abs(virus[p] / n - pv) < 0.04
    unknown = obs.unknown_commands()
    assert set(tops) <= set(unknown)
    assert chisquare([tops[c] for c in unknown]).pvalue > 1e-3


def test_multiplayer_other_hands_hidden_and_sampled():
    s = _played(6, 2, RuleOptions(players=3))
    obs = observe(s, 0)
    w = sample_worlds(obs, 1, seed=0)[0]
    assert w.hands[0] == s.hands[0]
    assert [len(h) for h in w.hands] == [len(h) for h in s.hands]
    assert sorted(w.deck + w.hands[1] + w.hands[2]) == sorted(s.deck + s.hands[1] + s.hands[2])


# --------------------------------------------------------------------------
# Notation and refusals
# --------------------------------------------------------------------------


def test_text_and_json_roundtrip():
    obs = observe(_played(8, 5, RuleOptions(escape_pod=True)), 0)
    assert parse_observation(format_observation(obs)) == obs
    assert observation_from_json(json.dumps(observation_to_json(obs))) == obs


def test_state_file_observed_for_active_player(tmp_path):
    s = _played(3, 4)
    p = tmp_path / "s.txt"
    p.write_text(format_state(s))
    assert load_observation(str(p)) == observe(s, s.active)
    assert load_observation(json.dumps(state_to_json(s))) == observe(s, s.active)


BASE = """sensor-ghosts observation
7: E?   A?*? E?   O?   B?
6: O?   E?   -A?  E?*? A?
5: E?   A?   O?   A?*? E?
4: B?   A?   A?*? O?   -E?
3: B?   O?   -E?  A?*? E?
2: O?   A?   E?   B?   A?
1: S    S    O?   B?   O?
players: 1
difficulty: standard
ship: dock
shields: 0
held: 0
hand: F1 F2 D1
discard: -
deck: 8
pass: 1
"""


def _cell_replace(text: str, row: int, col: int, token: str) -> str:
    lines = text.split("\n")
    i = 1 + 7 - row
    cells = lines[i].split(":", 1)[1].split()
    cells[col - 1] = token
    lines[i] = f"{row}: " + " ".join(cells)
    return "\n".join(lines)


def test_base_observation_is_consistent():
    obs = load_observation(BASE)
    assert obs.cell((7, 2)) == SeenCard(A, Side.FRONT, None, sample=True)
    assert len(WorldSampler(obs).sample(random.Random(0)).deck) == 8


@pytest.mark.parametrize(
    "token,message",
    [
        ("Xe", "unknown cell"),
        ("EA", "exactly one side is face up"),
        ("??", "face-up side is always visible"),
        ("E?*v", "content is hidden"),
        ("-Ea", "back is never seen"),
        ("Ea!", "'!' is not used"),
        ("Ea#4", "card ids"),
    ],
)
def test_bad_cell_tokens_give_line_column_token(token, message):
    text = _cell_replace(BASE, 5, 2, token)
    with pytest.raises(NotationError) as e:
        parse_observation(text)
    assert message in e.value.reason
    assert e.value.line == 4 and e.value.column is not None and e.value.token == token


def test_malformed_key_and_json_errors():
    with pytest.raises(NotationError, match="missing required key 'deck'"):
        parse_observation(BASE.replace("deck: 8\n", ""))
    with pytest.raises(NotationError, match="shields must be 0 to 2"):
        parse_observation(BASE.replace("shields: 0", "shields: 3"))
    with pytest.raises(NotationError, match="unknown key"):
        parse_observation(BASE + "color: red\n")
    with pytest.raises(NotationError, match="expected the header"):
        parse_observation("sensor-ghosts setup\n")
    doc = observation_to_json(parse_observation(BASE))
    doc["grid"][0][1] = "Q?"
    with pytest.raises(NotationError, match=r"grid\[0\]\[1\]"):
        observation_from_json(doc)
    with pytest.raises(NotationError, match="malformed JSON"):
        load_observation('{"format": ')


@pytest.mark.parametrize(
    "edit,reason",
    [
        # Nine O backs known: the default set holds 8 [D3].
        (lambda t: _o_backs(t, 9), "O back but the card set holds 8"),
        (lambda t: t.replace("held: 0", "held: 2\nspent: 2"), "virus samples collected"),
        (lambda t: t.replace("deck: 8", "deck: 7"), "the deck (7)"),
        (lambda t: t.replace("hand: F1 F2 D1", "hand: F1 F2 W"), "Wild joins only"),
        (lambda t: t.replace("discard: -", "discard: F1"), "seen 2 times"),
        (lambda t: t.replace("ship: dock", "ship: 6,3"), "cannot stand on the gap"),
        (lambda t: _three_ee(t), "known as E/E but the card set holds 2"),
    ],
)
def test_inconsistent_observations_refused(edit, reason):
    text = edit(BASE)
    obs = parse_observation(text)  # the form is fine
    with pytest.raises(InconsistentObservationError) as e:
        check_observation(obs)
    assert any(reason in r for r in e.value.reasons), e.value.reasons
    with pytest.raises(InconsistentObservationError):
        WorldSampler(obs)


def _o_backs(text: str, n: int) -> str:
    # Turn n front-up cards of rows 2..7 into back-up O cards with unknown fronts.
    k = 0
    for r in range(2, 8):
        for c in range(1, 6):
            if k < n:
                line = text.split("\n")[1 + 7 - r]
                tok = line.split(":", 1)[1].split()[c - 1]
                if not tok.startswith("-"):
                    text = _cell_replace(text, r, c, "?O" + tok[2:])
                    k += 1
    return text


def _three_ee(text: str) -> str:
    text = _cell_replace(text, 7, 1, "Ee")
    text = _cell_replace(text, 7, 3, "Ee")
    return _cell_replace(text, 6, 2, "Ee")


def test_hall_violation_without_a_simple_count_reason():
    """Fronts and backs each within the card set, yet no layout fits: five B-front
    cells and five back-up B cells both need the single B/B card [D3]."""
    text = BASE
    for r, c in ((7, 1), (7, 3), (6, 2), (5, 1), (5, 5)):
        text = _cell_replace(text, r, c, "?B")
    with pytest.raises(InconsistentObservationError) as e:
        load_observation(text)
    assert e.value.reasons == ["no layout of the card set matches the known sides of the cards"]
