"""Do the grades order difficulty? (issue 35) The bots' win rate per grade.

    sensor-ghosts collection build held.db --count 480 --seed 6000 --workers 2
    python benchmarks/bots.py --seeds-from held.db --bots hint,greedy --budget 0.5 --workers 2 --json games.json
    python benchmarks/grade_study.py held.db games.json

Joins the games (``benchmarks/bots.py --json``) to the collection's puzzles
by seed and prints, for each bot, the games, wins and win rate (Wilson 95 %
interval) per grade, and whether the rate falls from grade to grade. The
grade is worked out again from each row's stored features with the current
``grades.grade`` (so a changed rule is checked without solving again), and
the table is printed for all seeds, the even seeds and the odd ones: a rule
fitted on one half is checked on the other. ``--features`` also prints each
feature's split (win rates with and without it), the data a rule is fitted
from.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sensor_ghosts.advisor.search import wilson  # noqa: E402
from sensor_ghosts.collections.grade_rule import GRADES  # noqa: E402
from sensor_ghosts.collections.grades import Features, grade  # noqa: E402
from sensor_ghosts.collections.query import rows  # noqa: E402


def load(db: str, games_json: str) -> tuple[dict[int, Features], dict[str, dict[int, bool]]]:
    """The features of each seed's puzzle, and each bot's result on each seed."""
    feats = {r["seed"]: Features(**r["features"]) for r in rows(db)}
    won: dict[str, dict[int, bool]] = {}
    text = Path(games_json).read_text()
    games = ([json.loads(line) for line in text.splitlines() if line.strip()] if games_json.endswith(".jsonl")
             else json.loads(text)["games"])
    for g in games:
        won.setdefault(g["bot"], {})[g["seed"]] = g["won"]
    return feats, won


def table(feats: dict[int, Features], won: dict[str, dict[int, bool]], seeds: list[int]) -> list[str]:
    by_grade = {g: [s for s in seeds if grade(feats[s])[0] == g] for g in GRADES}
    out = [f"{'grade':9} {'puzzles':>7} " + " ".join(f"{bot + ' wins':>26}" for bot in sorted(won))]
    rates: dict[str, list[float]] = {bot: [] for bot in won}
    for g in GRADES:
        cells = []
        for bot in sorted(won):
            played = [won[bot][s] for s in by_grade[g] if s in won[bot]]
            if not played:
                cells.append(f"{'-':>26}")
                continue
            k, n = sum(played), len(played)
            lo, hi = wilson(k, n)
            rates[bot].append(k / n)
            cells.append(f"{k:>4}/{n:<4} {k / n:>6.1%} ({lo:>4.0%}-{hi:<4.0%})")
        out.append(f"{g:9} {len(by_grade[g]):>7} " + " ".join(cells))
    for bot, rs in sorted(rates.items()):
        falls = all(a > b for a, b in zip(rs, rs[1:], strict=False))
        out.append(f"{bot}: win rate falls from grade to grade (non-empty grades): {'yes' if falls else 'NO'}")
    return out


def feature_splits(feats: dict[int, Features], won: dict[str, dict[int, bool]], seeds: list[int]) -> list[str]:
    """Each yes/no feature (and a few thresholds) with the bots' win rates on
    the puzzles that have it and those that do not."""
    tests = {
        "deep_scan": lambda f: f.deep_scan, "wild_three": lambda f: f.wild_three,
        "wild_card": lambda f: f.wild_card, "bolster": lambda f: f.bolster,
        "boost_chain": lambda f: f.boost_chain, "second_pass": lambda f: f.second_pass,
        "careful unknown": lambda f: f.careful_turns is None,
        "careful gap >= 5": lambda f: f.careful_turns is not None and f.careful_turns - f.turns >= 5,
        "first moves optimal <= 3": lambda f: f.first_moves_optimal is not None and f.first_moves_optimal <= 3,
    }
    for t in range(9, 15):
        tests[f"turns >= {t}"] = lambda f, t=t: f.turns >= t
    for c in range(12, 19, 2):
        tests[f"cards >= {c}"] = lambda f, c=c: f.cards >= c
    out = [f"{'feature':26} {'n yes':>6} {'n no':>5} " + " ".join(f"{b + ' yes/no':>20}" for b in sorted(won))]
    for name, test in tests.items():
        yes = [s for s in seeds if test(feats[s])]
        no = [s for s in seeds if not test(feats[s])]
        cells = []
        for bot in sorted(won):
            def rate(ss: list[int], bot: str = bot) -> str:
                got = [won[bot][s] for s in ss if s in won[bot]]
                return f"{sum(got) / len(got):.0%}" if got else "-"
            cells.append(f"{rate(yes) + ' / ' + rate(no):>20}")
        out.append(f"{name:26} {len(yes):>6} {len(no):>5} " + " ".join(cells))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("games", help="the games: benchmarks/bots.py's --json file, or its --jsonl (.jsonl)")
    ap.add_argument("--features", action="store_true", help="print each feature's split too")
    a = ap.parse_args(argv)
    feats, won = load(a.db, a.games)
    played = sorted(s for s in feats if any(s in w for w in won.values()))
    print(f"# {len(played)} puzzles of {a.db}; games on them: "
          + ", ".join(f"{bot} {sum(s in w for s in played)}" for bot, w in sorted(won.items())))
    for name, seeds in (("all seeds", played), ("even seeds", [s for s in played if s % 2 == 0]),
                        ("odd seeds", [s for s in played if s % 2 == 1])):
        print(f"\n## {name} ({len(seeds)})")
        print("\n".join(table(feats, won, seeds)))
        if a.features:
            print("\n".join(feature_splits(feats, won, seeds)))


if __name__ == "__main__":
    main()
