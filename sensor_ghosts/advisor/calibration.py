"""How often a hint's raw estimate came true: the map from the search's raw
estimate to the chance a hint prints.

The raw estimate is biased in known ways: a careful route is planned against
one sampled deck order at a time, and a gamble's continuation is a plan the
player could follow only with the luck it assumes. So the printed chance is the
win rate that decisions with such a raw estimate had in games played by the
hint bot itself (``benchmarks/calibrate.py``, on seeds the study does not use;
the study, ``benchmarks/bots.py``, then checks it on its own seeds).
Points are (raw estimate, win rate), read by linear interpolation.
"""

from __future__ import annotations

# python benchmarks/bots.py --games 64 --bots hint --difficulties standard --budget 2 \
#     --seed 5048 --json dev.json && python benchmarks/calibrate.py dev.json
# (64 games, seeds 5048-5111: 448 careful and 474 other decisions)
CAREFUL: tuple[tuple[float, float], ...] = (
    (0.513, 0.600),  # 50 decisions
    (0.627, 0.600),  # 55
    (0.819, 0.657),  # 102
    (1.000, 0.880),  # 241
)
GAMBLE: tuple[tuple[float, float], ...] = (
    (0.027, 0.089),  # 146
    (0.197, 0.183),  # 208
    (0.342, 0.426),  # 47
    (0.464, 0.432),  # 44
    (0.763, 0.448),  # 29
)


def calibrated(raw: float, careful: bool) -> float:
    """The chance to print for a raw estimate (the raw estimate itself where no
    table has been fitted)."""
    pts = CAREFUL if careful else GAMBLE
    if not pts:
        return raw
    if raw <= pts[0][0]:
        return pts[0][1]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:], strict=False):
        if raw <= x1:
            return y0 + (y1 - y0) * (raw - x0) / (x1 - x0) if x1 > x0 else y1
    return pts[-1][1]
