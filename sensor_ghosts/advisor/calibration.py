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

# python benchmarks/bots.py --games 200 --bots hint --difficulties standard --budget 2 \
#     --seed 5200 --json dev200.json
# python benchmarks/calibrate.py dev200.json dev.json   # dev.json: seeds 5048-5111, as before
# (264 games, seeds 5048-5399: 1803 careful and 2047 other decisions)
CAREFUL: tuple[tuple[float, float], ...] = (
    (0.509, 0.453),  # 181 decisions
    (0.630, 0.537),  # 201
    (0.743, 0.622),  # 201
    (0.870, 0.651),  # 284
    (1.000, 0.831),  # 936
)
GAMBLE: tuple[tuple[float, float], ...] = (
    (0.020, 0.054),  # 699
    (0.150, 0.175),  # 424
    (0.246, 0.237),  # 384
    (0.344, 0.296),  # 253
    (0.442, 0.338),  # 130
    (0.541, 0.343),  # 70
    (0.642, 0.455),  # 44
    (0.764, 0.519),  # 27
    (0.979, 0.625),  # 16
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
