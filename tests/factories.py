"""Small builders for tests: a quick legal-looking setup without the generator
(so rules tests do not depend on generators/), and a grid from cell tokens."""

from __future__ import annotations

import os
import random
import subprocess
import sys

from sensor_ghosts.rules.cards import START_CARDS, SectorCardSet, SectorType
from sensor_ghosts.rules.geometry import orthogonal_neighbours
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.setup import Gap, Sample, Setup, Slot


def quick_setup(seed: int, options: RuleOptions | None = None) -> Setup:
    """Cards shuffled front up, one sample in each row 3..7, three removable cards
    removed. Row safety is not enforced: the engine must cope with any grid."""
    rng = random.Random(seed)
    cards = list(SectorCardSet.default().cards)
    rng.shuffle(cards)
    grid: list[list] = []
    it = iter(cards)
    for r in range(1, 8):
        grid.append([Slot(START_CARDS[c - 1]) if r == 1 and c <= 2 else Slot(next(it)) for c in range(1, 6)])
    tokens = [Sample(i + 1, i < 3) for i in range(5)]
    rng.shuffle(tokens)
    sample_cells = []
    for r, tok in zip(range(3, 8), tokens, strict=True):
        c = rng.randint(1, 5)
        slot = grid[r - 1][c - 1]
        grid[r - 1][c - 1] = Slot(slot.card, slot.up, tok)
        sample_cells.append((r, c))
    removable = sorted(
        {
            p
            for s in sample_cells
            for p in orthogonal_neighbours(s)
            if grid[p[0] - 1][p[1] - 1].sample is None
            and not grid[p[0] - 1][p[1] - 1].card.start
            and grid[p[0] - 1][p[1] - 1].card.front is not SectorType.OBSTRUCTED
        }
    )
    for p in rng.sample(removable, min(3, len(removable))):
        grid[p[0] - 1][p[1] - 1] = Gap(grid[p[0] - 1][p[1] - 1].card)
    return Setup(tuple(tuple(r) for r in grid), options or RuleOptions())


def outputs_under_hash_seeds(code: str, seeds: tuple[str, ...] = ("0", "1", "12345")) -> set[bytes]:
    """What ``python -c code`` prints under each PYTHONHASHSEED of ``seeds``
    (one element when nothing it prints depends on set or hash order)."""
    outs = set()
    for h in seeds:
        env = dict(os.environ, PYTHONHASHSEED=h)
        outs.add(subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, env=env).stdout)
    return outs
