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

CAREFUL: tuple[tuple[float, float], ...] = ()
GAMBLE: tuple[tuple[float, float], ...] = ()


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
