"""Fit the hint's calibration from a bot study's games (issue: an honest chance).

    python benchmarks/bots.py --bots hint --games 96 --seed 5000 --difficulties standard \
        --json dev.json
    python benchmarks/calibrate.py dev.json

Every decision of the hint bot stored its raw estimate (the share of sampled
worlds won, or the careful routes' share) and whether it was a careful route.
For each of the two kinds, decisions are bucketed by raw estimate in tenths,
each bucket's observed win rate (the games' outcomes) is made non-decreasing
by pooling adjacent violators (isotonic regression), and the result is
printed as the table ``sensor_ghosts/advisor/calibration.py`` holds: (mean raw
estimate, win rate) points, read by linear interpolation. Fit it on seeds the
study does not use (the study's are 1000-1199), then judge it on the study.
"""

from __future__ import annotations

import argparse
import json
import sys


def pav(points: list[tuple[float, float, int]]) -> list[tuple[float, float, int]]:
    """Pool adjacent violators: (x, y, weight) sorted by x -> y non-decreasing."""
    blocks: list[list[float]] = []  # [sum_wx, sum_wy, weight]
    for x, y, w in points:
        blocks.append([x * w, y * w, w])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] > blocks[-1][1] / blocks[-1][2]:
            b = blocks.pop()
            blocks[-1] = [blocks[-1][0] + b[0], blocks[-1][1] + b[1], blocks[-1][2] + b[2]]
    return [(sx / w, sy / w, int(w)) for sx, sy, w in blocks]


def fit(pairs: list[tuple[float, float]], min_n: int = 10) -> list[tuple[float, float, int]]:
    buckets: dict[int, list[tuple[float, float]]] = {}
    for raw, won in pairs:
        buckets.setdefault(min(9, int(raw * 10)), []).append((raw, won))
    pts = []
    for k in sorted(buckets):
        b = buckets[k]
        pts.append((sum(r for r, _ in b) / len(b), sum(w for _, w in b) / len(b), len(b)))
    # Merge thin buckets into their neighbour before pooling.
    merged: list[tuple[float, float, int]] = []
    for x, y, n in pts:
        if merged and (merged[-1][2] < min_n or n < min_n):
            px, py, pn = merged.pop()
            merged.append(((px * pn + x * n) / (pn + n), (py * pn + y * n) / (pn + n), pn + n))
        else:
            merged.append((x, y, n))
    return pav(merged)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("studies", nargs="+", help="JSON files written by benchmarks/bots.py --json")
    a = ap.parse_args(argv)
    pairs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    seeds = set()
    for path in a.studies:
        data = json.load(open(path))
        for g in data["games"]:
            if g["bot"] != "hint":
                continue
            seeds.add(g["seed"])
            for raw, careful in g.get("raw", []):
                pairs[bool(careful)].append((raw, float(g["won"])))
    if not seeds:
        sys.exit("no hint-bot games with raw estimates in those files")
    print(f"# {len(seeds)} games (seeds {min(seeds)}-{max(seeds)}), "
          f"{len(pairs[True])} careful and {len(pairs[False])} other decisions")
    for careful in (True, False):
        name = "CAREFUL" if careful else "GAMBLE"
        pts = fit(pairs[careful])
        print(f"{name} = (  # (raw estimate, win rate), decisions")
        for x, y, n in pts:
            print(f"    ({x:.3f}, {y:.3f}),  # {n}")
        print(")")


if __name__ == "__main__":
    main()
