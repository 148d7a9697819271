"""Fuzz every command with mutated input (issue 33): count tracebacks and runs
over their time limit.

    python benchmarks/fuzz.py [--inputs 100000] [--seed 0] [--jobs 1]
                              [--commands validate,show,...] [--save DIR]

Valid documents first, all written by the tool itself: setups of several rule
variants, states along random games (rocks found, second pass, pod moved, lost
games), the observations their players see, turn strings, game IDs; each as
text and as JSON. Each input is one of them with one to three mutations:

- one-line edits: a line deleted, doubled, swapped with another, a key renamed;
- number swaps: a number replaced by another (-1, 0, ..., 10**30, 10**59, a
  number of 5,000 digits), or its digit by a non-ASCII one ('٣', '３', ...);
- id swaps: a card id replaced by another (of the game, of another game, made up);
- a token of one line moved to another, a character replaced, truncation;
- JSON: a leaf replaced (numbers, strings, null, lists), a key deleted or
  added, a list shortened or lengthened.

Each input goes to one command (in turn, so every command gets its share),
run in-process with Click's ``CliRunner``: validate, show, show --hide,
perft 1 and 2, solve and verify (deal, open and expected modes), hint,
render, play (the turn strings, on its standard input), generate --id.
Searches get a small limit (``--search-limit``: one of 0.05, 0.2, 0.5 s at random per run, so that
the deadline falls in every phase of a search; hint ``--budget``, at most that); a run is
over its limit when it takes more than that limit + ``--grace`` seconds of
wall-clock time (the issue's "limit + 1 s"; "over (cpu)" counts the runs whose
own CPU time was over it, the figure that does not grow with the machine's
load); a run that has used ``--kill-after`` seconds of CPU time (or ten times
that of wall-clock time) is stopped by an alarm and counted as a hang: CPU
time, so that a run starved by other processes is not taken for a hang. A traceback is an exception that
escapes a command (``CliRunner`` catches it) or "Traceback" in the output.
Prints the counts per command, the totals and the command line used; with
``--save DIR`` the inputs behind each traceback and slow run are written there.
Exit status 1 when a traceback, a hang or an over-limit run was seen. SIGTERM
ends the batch early (after the run at hand) and prints the counts so far.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "rules"))

# ---------------------------------------------------------------------------
# The corpus: documents the tool writes
# ---------------------------------------------------------------------------


def corpus(seed: int) -> dict[str, list[str]]:
    """Valid inputs by kind: 'doc' (setups and states, text and JSON), 'obs'
    (observations), 'turn' (a state file and a turn string), 'id'."""
    from test_properties import random_turn

    from sensor_ghosts.generators import generate_setup
    from sensor_ghosts.rules.engine import apply_turn
    from sensor_ghosts.rules.notation import (
        format_setup,
        format_state,
        setup_to_json,
        state_to_json,
    )
    from sensor_ghosts.rules.observation import observe
    from sensor_ghosts.rules.observation_notation import format_observation, observation_to_json
    from sensor_ghosts.rules.options import RuleOptions
    from sensor_ghosts.rules.state import initial_state

    rng = random.Random(seed)
    variants = [
        RuleOptions(), RuleOptions(players=2), RuleOptions(players=3), RuleOptions(players=4),
        RuleOptions(escape_pod=True), RuleOptions(low_memory=True),
        RuleOptions().with_flags(["second-action", "reveal-once"]),
        RuleOptions(players=2).with_flags(["escape-pod", "two-samples", "flip-one"]),
    ]  # fmt: skip
    docs: list[str] = []
    obs: list[str] = []
    turns: list[str] = []
    ids: list[str] = []
    for i in range(24):
        options = variants[i % len(variants)]
        setup = generate_setup(seed * 1000 + i, options)
        ids.append(setup.id or "1p-standard#1")
        docs.append(format_setup(setup))
        docs.append(json.dumps(setup_to_json(setup), indent=rng.choice([None, 2])))
        state = initial_state(setup)
        states = [state]
        while not state.is_over and len(states) < 40:
            t = random_turn(state, rng)
            turns.append(str(t))
            state = apply_turn(state, t)
            states.append(state)
        for s in rng.sample(states, min(4, len(states))) + [states[-1]]:
            docs.append(format_state(s))
            docs.append(json.dumps(state_to_json(s)))
            if not s.is_over:
                o = observe(s, rng.randrange(s.options.players))
                obs.append(format_observation(o))
                obs.append(json.dumps(observation_to_json(o)))
    # A state whose ship took a rock token and spent a sample: the states the
    # round trip once lost.
    return {"doc": docs, "obs": obs, "turn": turns, "id": ids}


# ---------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------

NUMBERS = ["-1", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "99", "100000",
           "1" + "0" * 30, "1" + "0" * 59, "9" * 5000, "-0", "007", "1.5", "1e3"]  # fmt: skip
ODD_DIGITS = ["\u0663", "\uff13", "\u06f3", "\u00b3", "\U0001d7d1", "\u096a"]
IDS = ["F1", "F2", "F3", "F5", "F7", "F8", "F9", "F10", "D1", "D2", "D3", "S1", "S2", "S3",
       "W", "X1", "F0", "f1", "dock", "earth", "-", "|", "F1^", "F2>", "W<", "S1v"]  # fmt: skip
KEYS = ["players", "difficulty", "options", "cards", "commands", "deck", "ranking", "id", "turn",
        "active", "ship", "pod", "shields", "held", "rocks", "lost", "hands", "discard", "pass",
        "outcome", "player", "hand", "spent", "bogus"]  # fmt: skip
WORDS = ["none", "escape-pod", "low-memory", "standard", "advanced", "introductory", "default",
         "ongoing", "won", "lost: x", "3,2", "7,5", "0,0", "8,1", "dock", "earth", "", " ", "Ee*v",
         "-S", "S", "Oo@", "aE!", "-Ea#99", "Ae#-1", "Bb*r7", "&", "@", "\u00e9", "\t"]  # fmt: skip
CHARS = "0123456789-:|,#*@&!<>^v EBAOSFDWebao\n\t{}[]\",\u0663\u00a0"


def _lines_edit(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    if len(lines) < 2:
        return text
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    op = rng.randrange(5)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[j])
    elif op == 2:
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3:  # rename a key
        lines[i] = re.sub(r"^(\s*)[a-z][a-z0-9-]*(\s*):", lambda m: f"{m[1]}{rng.choice(KEYS)}{m[2]}:", lines[i])
    else:  # a token of one line onto another
        toks = lines[j].split()
        if toks:
            lines[i] = lines[i] + " " + rng.choice(toks)
    return "\n".join(lines)


def _sub_random_match(text: str, pattern: str, repl, rng: random.Random) -> str:
    ms = list(re.finditer(pattern, text))
    if not ms:
        return text
    m = rng.choice(ms)
    return text[: m.start()] + repl(m) + text[m.end() :]


def mutate_text(text: str, rng: random.Random) -> str:
    op = rng.randrange(9)
    if op == 0:
        return _lines_edit(text, rng)
    if op == 1:  # number swap
        return _sub_random_match(text, r"-?\d+", lambda m: rng.choice(NUMBERS), rng)
    if op == 2:  # a non-ASCII digit
        return _sub_random_match(text, r"\d", lambda m: rng.choice(ODD_DIGITS), rng)
    if op == 3:  # id swap
        return _sub_random_match(text, r"\b[FDSW]\d*\b[\^v<>]?", lambda m: rng.choice(IDS), rng)
    if op == 4:  # truncation
        return text[: rng.randrange(len(text) + 1)]
    if op == 5:  # a character
        if not text:
            return text
        i = rng.randrange(len(text))
        return text[:i] + rng.choice(CHARS) + text[i + 1 :]
    if op == 6:  # a word
        return _sub_random_match(text, r"[^\s:|,]+", lambda m: rng.choice(WORDS + IDS + NUMBERS[:12]), rng)
    if op == 7:  # a huge number
        return _sub_random_match(text, r"\d+", lambda m: "9" * rng.randint(4290, 4400), rng)
    return _lines_edit(_lines_edit(text, rng), rng)


def _leaves(obj, path=()):
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, path + (i,))


def _set(obj, path, value):
    if not path:
        return value
    cur = obj
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return obj


JSON_VALUES = [None, True, False, 0, -1, 1, 2, 3, 4, 8, 10**6, 10**30, 10**59, 1.5, 1e308, "", " ",
               "F1", "X1", "1p-standard#7 ", "dock", "3,2", "\u0663", [], {}, ["F1"], [[]], "a\nb"]  # fmt: skip


def mutate_json(text: str, rng: random.Random) -> str:
    try:
        obj = json.loads(text)
    except ValueError:
        return mutate_text(text, rng)
    paths = list(_leaves(obj))
    path, val = rng.choice(paths)
    op = rng.randrange(6)
    if op == 0:
        obj = _set(obj, path, rng.choice(JSON_VALUES))
    elif op == 1 and isinstance(val, dict) and val:
        del val[rng.choice(list(val))]
    elif op == 2 and isinstance(val, dict):
        val[rng.choice(KEYS)] = rng.choice(JSON_VALUES)
    elif op == 3 and isinstance(val, list) and val:
        rng.choice([lambda: val.pop(rng.randrange(len(val))), lambda: val.append(rng.choice(val)),
                    lambda: rng.shuffle(val), lambda: val.clear()])()  # fmt: skip
    elif op == 4 and isinstance(val, str):
        obj = _set(obj, path, rng.choice(IDS + WORDS))
    elif op == 5 and isinstance(val, int) and not isinstance(val, bool):
        obj = _set(obj, path, rng.choice([-val, val + 1, val * 10**40, 3, 8, -1]))
    else:
        obj = _set(obj, path, rng.choice(JSON_VALUES))
    out = json.dumps(obj)
    if rng.random() < 0.05:  # a number no Python int converts
        out = _sub_random_match(out, r"\b\d+\b", lambda m: "9" * 4400, rng)
    return out


def mutated(kind: str, base: str, rng: random.Random) -> str:
    text = base
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if text.lstrip().startswith("{") and rng.random() < 0.8:
            text = mutate_json(text, rng)
        else:
            text = mutate_text(text, rng)
    return text


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------


def commands(search: float, budget: float) -> dict[str, tuple[str, list[str], float]]:
    """name -> (input kind, arguments with {f} for the file, the run's own limit)."""
    s = f"{search:g}"
    return {
        "validate": ("doc", ["validate", "{f}"], 0.0),
        "validate --json": ("doc", ["validate", "{f}", "--json"], 0.0),
        "show": ("doc", ["show", "{f}"], 0.0),
        "show --hide": ("doc", ["show", "{f}", "--hide"], 0.0),
        "perft 1": ("doc", ["perft", "{f}", "1", "--timeout", s], search),
        "perft 2": ("doc", ["perft", "{f}", "2", "--timeout", s], search),
        "solve": ("doc", ["solve", "{f}", "--timeout", s, "--seed", "1"], search),
        "solve --mode open": ("doc", ["solve", "{f}", "--mode", "open", "--timeout", s], search),
        "verify": ("doc", ["verify", "{f}", "--timeout", s, "--seed", "1"], search),
        "verify --mode expected": ("doc", ["verify", "{f}", "--mode", "expected", "--timeout", s], search),
        "verify --json": ("doc", ["verify", "{f}", "--json", "--timeout", s, "--seed", "1"], search),
        "hint": ("obs", ["hint", "{f}", "--budget", f"{budget:g}"], budget),
        "hint (a state)": ("doc", ["hint", "{f}", "--budget", f"{budget:g}"], budget),
        "render": ("doc", ["render", "{f}", "--out", "{out}"], 0.0),
        "play": ("turn", ["play", "{f}", "--no-color"], 0.0),
        "generate --id": ("id", ["generate", "--id", "{id}"], 0.0),
    }


def warm_up() -> float:
    """Load the solver's compiled kernels once, as the first solve of a process
    does outside its time limit (``solver.compiled.load_for``): a one-time cost
    per process, not a run's. Returns the seconds it took."""
    from sensor_ghosts.generators import generate_setup
    from sensor_ghosts.rules.state import initial_state
    from sensor_ghosts.solver import compiled

    return compiled.load_for(initial_state(generate_setup(0)), notice=None)


class Hang(BaseException):
    """Raised by the alarm: a run far over its limit."""


def _alarm(signum, frame):
    raise Hang()


_STOP = []  # set by SIGTERM: finish the run at hand, then print the counts so far


def _stop(signum, frame):
    _STOP.append(signum)


def error_lines(result, argv_has_json) -> list[str]:
    """The lines of a refusal: standard error, or standard output under --json
    (the error object)."""
    where = result.stdout if "--json" in argv_has_json else result.stderr
    return [ln for ln in where.splitlines() if ln.strip()]


def run_one(runner, main, spec, text: str, tmp: Path, extra: str = ""):
    kind, args, _ = spec
    f = tmp / ("in.json" if text.lstrip().startswith("{") else "in.txt")
    f.write_text(text, encoding="utf-8", errors="surrogatepass")
    argv = [a.replace("{f}", str(f)).replace("{out}", str(tmp / "out.svg")).replace("{id}", text) for a in args]
    stdin = None
    if kind == "turn":
        stdin = extra + "\nturns\nquit\n"
    result = runner.invoke(main, argv, input=stdin, catch_exceptions=True)
    return result


def worker(args, index: int, n: int, out_q=None) -> dict:
    from click.testing import CliRunner

    from sensor_ghosts.cli.main import main

    rng = random.Random(args.seed * 7919 + index)
    docs = corpus(args.seed)
    warm_up()
    limits = [float(x) for x in args.search_limit.split(",")]
    specs = commands(limits[0], args.budget)
    names = [c for c in args.commands.split(",")] if args.commands else list(specs)
    runner = CliRunner()
    counts: dict[str, Counter] = defaultdict(Counter)
    worst: dict[str, float] = defaultdict(float)
    examples: list[str] = []
    save = Path(args.save) if args.save else None
    if save:
        save.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGPROF, _alarm)
    states_text = [d for d in docs["doc"] if d.startswith("sensor-ghosts state")]
    with tempfile.TemporaryDirectory(prefix="sg-fuzz-") as td:
        tmp = Path(td)
        for i in range(n):
            if _STOP:
                print(f"[worker {index}] stopped (SIGTERM) after {i} inputs", file=sys.stderr, flush=True)
                break
            name = names[(index + i * args.jobs) % len(names)]
            limit = rng.choice(limits)  # limits and budgets vary, so a deadline falls in every phase
            spec = commands(limit, min(limit, args.budget))[name]
            kind = spec[0]
            extra = ""
            if kind == "turn":  # a state file, and a mutated turn on standard input
                text = rng.choice(states_text)
                if rng.random() < 0.3:
                    text = mutated("doc", text, rng)
                extra = mutated("turn", rng.choice(docs["turn"]), rng).replace("\n", " ")
            elif kind == "id":
                text = mutated("id", rng.choice(docs["id"]), rng).replace("\n", " ").replace("\x00", "")
            else:
                text = mutated(kind, rng.choice(docs[kind]), rng)
                if rng.random() < 0.03:
                    text = rng.choice(docs[kind])  # the valid documents too
            if i % 200 == 0:
                # A CLI run starts with a fresh heap; this process keeps what
                # earlier runs left (the corpus, the solver's caches), and a
                # full collection of it, inside a run, cost up to 0.5 s of CPU.
                gc.collect()
                gc.freeze()
            t0 = time.perf_counter()
            c0 = time.process_time()
            signal.setitimer(signal.ITIMER_PROF, args.kill_after)
            signal.setitimer(signal.ITIMER_REAL, 10 * args.kill_after)
            outcome = "ok"
            detail = ""
            try:
                r = run_one(runner, main, spec, text, tmp, extra)
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.setitimer(signal.ITIMER_REAL, 0)
                counts[name][f"exit {r.exit_code}"] += 1
                exc = r.exception
                if exc is not None and isinstance(exc.__cause__, Hang):
                    raise exc.__cause__  # the alarm, wrapped by a compiled kernel's call back into Python
                if exc is not None and not isinstance(exc, SystemExit):
                    outcome = "traceback"
                    detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-3))
                elif "Traceback" in r.output:
                    outcome = "traceback"
                    detail = r.output[-600:]
                elif r.exit_code not in (0, 1, 2, 3, 130):
                    outcome = "odd exit"
                    detail = f"exit {r.exit_code}: {r.output[-300:]}"
                elif r.exit_code == 2 and len(error_lines(r, argv_has_json=spec[1])) != 1 \
                        and "Usage:" not in r.stderr:  # fmt: skip
                    outcome = "multi-line"
                    detail = r.stderr[-400:]
            except Hang:
                outcome = "hang"
                detail = f"stopped after {args.kill_after:g} s of CPU time or {10 * args.kill_after:g} s"
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.setitimer(signal.ITIMER_REAL, 0)
            secs = time.perf_counter() - t0
            cpu = time.process_time() - c0
            counts[name]["inputs"] += 1
            if outcome == "ok" and cpu > spec[2] + args.grace:
                counts[name]["over (cpu)"] += 1
            counts[name][outcome] += 1
            if outcome == "ok" and secs > spec[2] + args.grace:
                counts[name]["over limit"] += 1
                counts[name]["ok"] -= 1
                outcome = "over limit"
                detail = f"{secs:.2f}s, {cpu:.2f}s CPU (limit {spec[2]:g} + {args.grace:g} s)"
            worst[name] = max(worst[name], secs)
            if outcome != "ok":
                tag = f"{name}: {outcome}: {detail.strip().splitlines()[-1] if detail.strip() else ''}"
                if len(examples) < 40:
                    examples.append(tag)
                if save:
                    stem = f"{index}-{i}-{name.replace(' ', '_').replace('-', '')}-{outcome.replace(' ', '_')}"
                    (save / f"{stem}.in").write_text(text + ("\n--- stdin ---\n" + extra if extra else ""),
                                                     encoding="utf-8", errors="surrogatepass")
                    (save / f"{stem}.why").write_text(detail, encoding="utf-8", errors="replace")
            if args.progress and (i + 1) % args.progress == 0:
                done = sum(c["inputs"] for c in counts.values())
                bad = sum(c["traceback"] + c["hang"] + c["over limit"] for c in counts.values())
                print(f"[worker {index}] {done} inputs, {bad} bad", file=sys.stderr, flush=True)
    return {"counts": {k: dict(v) for k, v in counts.items()}, "worst": dict(worst), "examples": examples}


def _work(packed):
    args, index, n = packed
    return worker(args, index, n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--inputs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--commands", default="", help="comma-separated names (default: all)")
    ap.add_argument("--search-limit", default="0.05,0.2,0.5",
                    help="solve/verify/perft --timeout, one of these at random per run (hint: at most --budget)")
    ap.add_argument("--budget", type=float, default=0.2, help="hint --budget")
    ap.add_argument("--grace", type=float, default=1.0, help="seconds over its limit a run may take")
    ap.add_argument("--kill-after", type=float, default=60.0, help="stop a run after this long: a hang")
    ap.add_argument("--save", default="", help="write the inputs of bad runs here")
    ap.add_argument("--progress", type=int, default=0, help="report every N inputs (per worker)")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, _stop)  # (inherited by forked workers)
    print("command: python " + " ".join(sys.argv), flush=True)
    t0 = time.perf_counter()
    per = [args.inputs // args.jobs + (1 if i < args.inputs % args.jobs else 0) for i in range(args.jobs)]
    if args.jobs == 1:
        results = [worker(args, 0, per[0])]
    else:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(args.jobs) as pool:
            results = pool.map(_work, [(args, i, per[i]) for i in range(args.jobs)])
    total: dict[str, Counter] = defaultdict(Counter)
    worst: dict[str, float] = defaultdict(float)
    examples: list[str] = []
    for r in results:
        for k, v in r["counts"].items():
            total[k].update(v)
        for k, v in r["worst"].items():
            worst[k] = max(worst[k], v)
        examples += r["examples"]
    cols = ["inputs", "traceback", "hang", "over limit", "over (cpu)", "multi-line", "odd exit",
            "exit 0", "exit 1", "exit 2", "exit 3"]  # fmt: skip
    print(f"{'command':24s} " + " ".join(f"{c:>10s}" for c in cols) + f" {'slowest':>9s}")
    grand: Counter = Counter()
    for name in sorted(total):
        c = total[name]
        grand.update(c)
        print(f"{name:24s} " + " ".join(f"{c.get(k, 0):10d}" for k in cols) + f" {worst[name]:8.2f}s")
    print(f"{'total':24s} " + " ".join(f"{grand.get(k, 0):10d}" for k in cols))
    print(f"seconds {time.perf_counter() - t0:.0f}")
    for ex in examples[:40]:
        print("  " + ex)
    bad = grand["traceback"] + grand["hang"] + grand["over limit"]
    return 1 if bad else 0


if __name__ == "__main__":
    os.environ.setdefault("COLUMNS", "100")
    sys.exit(main())
