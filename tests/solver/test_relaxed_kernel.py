"""The compiled relaxed search's building blocks (solver/relaxed_kernel.py)
against the model's own pattern-set operations (solver/model.py), and its
learned-bounds table."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sensor_ghosts.generators.generate import generate_setup
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.solver import relaxed_kernel as kernel
from sensor_ghosts.solver.model import Model, xor_set
from sensor_ghosts.solver.search import Heuristic


@pytest.mark.parametrize(
    "options",
    [RuleOptions(), RuleOptions(flip_one=True)],
    ids=["standard", "flip-one"],
)
def test_rescan_reaches_the_models_pattern_set(options):
    setup = generate_setup(seed=4, options=options)
    m = Model(initial_state(setup, setup.deal), "deal")
    rb = Heuristic(m).relaxed
    rng = random.Random(1)
    for r in range(7):
        for _ in range(40):
            s = rng.getrandbits(32) or 1
            got = kernel._rescan(s, r, rb._choices, rb._n_choices, False)
            assert got == m.rescan_set(r, s, 0), (r, s)


def test_reveal_once_rescan_lets_the_row_show_anything():
    setup = generate_setup(seed=4, options=RuleOptions(reveal_once=True))
    m = Model(initial_state(setup, setup.deal), "deal")
    rb = Heuristic(m).relaxed
    assert rb._rescan_full
    for r in range(7):
        model_set = m.rescan_set(r, 1, 0)
        got = kernel._rescan(1, r, rb._choices, rb._n_choices, rb._rescan_full)
        assert got & model_set == model_set  # a superset: still a relaxation


def test_xor_set_matches_the_model():
    rng = random.Random(2)
    for _ in range(200):
        s = rng.getrandbits(32)
        j = rng.randrange(5)
        assert kernel._xor_set(s, j) == xor_set(s, j)


def test_learned_table_keeps_the_largest_value_and_survives_growth():
    tab = kernel.new_table(16)
    count = np.zeros(1, dtype=np.int64)
    keys = [(i, i * 7, -i, 3, i % 5, 11) for i in range(9)]  # 9 of 16 slots: under the load limit
    for k in keys:
        assert kernel._key_put(tab, count, *k, 5) == 5
    assert kernel._key_put(tab, count, *keys[0], 3) == 5  # a smaller value does not replace
    assert kernel._key_put(tab, count, *keys[0], 8) == 8
    assert kernel._key_put(tab, count, 99, 0, 0, 0, 0, 0, kernel.EMPTY) == kernel.EMPTY
    assert kernel._key_put(tab, count, 100, 0, 0, 0, 0, 0, 4) == -2  # too full for a new key
    big = kernel.new_table(64)
    kernel.table_rehash(tab, big, count)
    assert count[0] == len(keys)
    assert kernel._key_put(big, count, *keys[0], kernel.EMPTY) == 8
    assert all(kernel._key_put(big, count, *k, kernel.EMPTY) >= 5 for k in keys)
