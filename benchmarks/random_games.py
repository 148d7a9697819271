"""Random games per rule variant: invariants after every turn, and a text and
JSON round trip of every state (issue 33).

    python benchmarks/random_games.py [--games 10000] [--variants solo,2p,...]
                                      [--seed 0] [--max-seconds S] [--jobs N]

Each game starts from a generated setup (``generate_setup(seed, options)``,
with its deal) and plays random legal turns (``tests/rules/test_properties.py``'s
cheap ``random_turn``: a random play, bolster, action, second action and
re-scan; it prefers a turn that does not lose at once) until the game ends.
After every turn it checks:

- the engine's invariants (``test_properties.check_invariants``: cards and
  tokens conserved, shields and samples in range, positions, turn order);
- ``validate_state(state) == []`` (what the commands check before use);
- the state survives ``format_state``/``parse_state`` and
  ``state_to_json``/``state_from_json`` unchanged (``normalize_state``), and
  the canonical text re-formats to itself;
- the turn survives ``str``/``parse_turn``, and every player's observation is
  one a real game could show (``check_observation``).

Game ``i`` is seeded by ``seed + i`` whatever process plays it: ``--jobs N``
shares the games among N worker processes in fixed chunks and merges their
counts in game order, so the output (timings aside) is the same for any N.

Prints one line per variant: games, turns, crashes (an exception escaping the
engine), broken invariants, round-trip differences, seconds; exit status 1 when
any count but games and turns is not 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "rules"))

from test_properties import check_invariants, random_turn  # noqa: E402

from sensor_ghosts.generators import generate_setup  # noqa: E402
from sensor_ghosts.rules.engine import apply_turn  # noqa: E402
from sensor_ghosts.rules.notation import (  # noqa: E402
    format_state,
    normalize_state,
    parse_state,
    parse_turn,
    state_from_json,
    state_to_json,
)
from sensor_ghosts.rules.observation import check_observation, observe  # noqa: E402
from sensor_ghosts.rules.options import RuleOptions  # noqa: E402
from sensor_ghosts.rules.state import initial_state  # noqa: E402
from sensor_ghosts.rules.validation import validate_state  # noqa: E402

# 1-4 players, the two variants and every §12 option (with the two readings
# of the rules' gaps that are named options).
VARIANTS: dict[str, RuleOptions] = {
    "solo": RuleOptions(),
    "2p": RuleOptions(players=2),
    "3p": RuleOptions(players=3),
    "4p": RuleOptions(players=4),
    "escape-pod": RuleOptions(escape_pod=True),
    "low-memory": RuleOptions(low_memory=True),
    "second-action": RuleOptions().with_flags(["second-action"]),
    "reveal-once": RuleOptions().with_flags(["reveal-once"]),
    "no-memory-cubes": RuleOptions().with_flags(["no-memory-cubes"]),
    "two-samples": RuleOptions().with_flags(["two-samples"]),
    "flip-one": RuleOptions().with_flags(["flip-one"]),
    "pod-once-per-turn": RuleOptions(players=2).with_flags(["escape-pod", "second-action", "pod-once-per-turn"]),
    "helpers-once-per-turn": RuleOptions(players=3).with_flags(["second-action", "helpers-once-per-turn"]),
    "earth-in-row-7": RuleOptions().with_flags(["escape-pod", "earth-in-row-7"]),
}


class Counts:
    def __init__(self) -> None:
        self.games = self.turns = self.crashes = self.invariants = self.round_trips = 0
        self.examples: list[str] = []

    def note(self, what: str, detail: str) -> None:
        if len(self.examples) < 5:
            self.examples.append(f"{what}: {detail}")

    def merge(self, other: Counts) -> None:
        """Add the counts of games that come after this one's."""
        self.games += other.games
        self.turns += other.turns
        self.crashes += other.crashes
        self.invariants += other.invariants
        self.round_trips += other.round_trips
        self.examples = (self.examples + other.examples)[:5]


def _check_state(state, counts: Counts, before=None) -> None:
    try:
        check_invariants(state, before)
        bad = validate_state(state)
        if bad:
            raise AssertionError("; ".join(map(str, bad)))
        for p in range(state.options.players):
            check_observation(observe(state, p))
    except AssertionError as e:
        counts.invariants += 1
        counts.note("invariant", f"{str(e)[:200]}\n{format_state(state)}")
        return
    want = normalize_state(state)
    text = format_state(state)
    js = json.dumps(state_to_json(state))
    if parse_state(text) != want or state_from_json(js) != want or format_state(parse_state(text)) != text:
        counts.round_trips += 1
        counts.note("round trip", text)


def play_one(seed: int, options: RuleOptions, counts: Counts) -> None:
    rng = random.Random(seed)
    try:
        setup = generate_setup(seed, options)
        state = initial_state(setup)
        _check_state(state, counts)
        while not state.is_over:
            turn = random_turn(state, rng)
            if parse_turn(str(turn), state) != turn:
                counts.round_trips += 1
                counts.note("turn round trip", str(turn))
            after = apply_turn(state, turn)
            counts.turns += 1
            _check_state(after, counts, state)
            state = after
    except Exception:  # noqa: BLE001 - a crash is what this counts
        counts.crashes += 1
        counts.note("crash", f"seed {seed}: {traceback.format_exc(limit=4)}")
    counts.games += 1


def play_range(name: str, seeds: range, deadline: float | None) -> Counts:
    """Games of one variant by seed, in order; stops at ``deadline`` (time.time())."""
    options = VARIANTS[name]
    counts = Counts()
    for seed in seeds:
        if deadline is not None and time.time() > deadline:
            break
        play_one(seed, options, counts)
    return counts


def run_variant(name: str, seeds: range, deadline: float | None, pool, jobs: int) -> Counts:
    if pool is None:
        return play_range(name, seeds, deadline)
    # Chunks small enough to balance the workers, large enough to keep the
    # cost of sending results back low; merged in seed order.
    size = max(1, min(50, len(seeds) // (jobs * 4)))
    futures = [
        pool.submit(play_range, name, seeds[i : i + size], deadline)
        for i in range(0, len(seeds), size)
    ]
    counts = Counts()
    for f in futures:
        counts.merge(f.result())
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10_000, help="games per variant")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated")
    ap.add_argument("--seed", type=int, default=0, help="first seed (games use seed, seed+1, ...)")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="stop each variant after this long (the counts say how many ran)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="worker processes (0: one per processor); the counts do not depend on it")
    args = ap.parse_args()
    names = args.variants.split(",")
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        ap.error(f"unknown variant(s) {', '.join(unknown)} (known: {', '.join(VARIANTS)})")
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    print("command: python " + " ".join(sys.argv), flush=True)
    failed = False
    pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
    try:
        for name in names:
            t0 = time.perf_counter()
            deadline = None if args.max_seconds is None else time.time() + args.max_seconds
            counts = run_variant(name, range(args.seed, args.seed + args.games), deadline, pool, jobs)
            secs = time.perf_counter() - t0
            print(f"{name:22s} games {counts.games:6d}  turns {counts.turns:8d}  crashes {counts.crashes}  "
                  f"broken invariants {counts.invariants}  round-trip differences {counts.round_trips}  "
                  f"{secs:7.1f}s", flush=True)
            for ex in counts.examples:
                print("    " + ex.replace("\n", "\n    "), flush=True)
            failed |= bool(counts.crashes or counts.invariants or counts.round_trips)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
