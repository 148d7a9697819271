"""``sensor-ghosts hint FILE``: the best next turn from what a player can see.

FILE is an observation (text or JSON, see ``rules/observation_notation.py``) or
a game state (then what its active player sees, RULES.md §14); '-' reads
standard input. Bad or impossible input exits with status 2 and one line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..rules.errors import InvalidSetupError, InvalidStateError, SensorGhostsError
from ..rules.observation import InconsistentObservationError
from .common import InputError, violation_line


@click.command("hint")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--budget", type=click.FloatRange(min=0.05), default=2.0, show_default=True,
              help="Seconds to think; the best answer so far is returned.")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the sampled worlds (same seed and work, same answer).")  # fmt: skip
@click.option("--exact", type=click.FloatRange(min=0.0), default=0.0, show_default=True,
              help="Also run the exact endgame solver for up to this many seconds (solo games): "
                   "the exact chance with best play, and of the hinted command, or bounds.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def hint_cmd(file: str, budget: float, seed: int, exact: float, as_json: bool) -> None:
    """Hint for a stuck player: best turn, win chance (95% CI), runner-up, why.

    FILE is an observation or a state file (text or JSON); '-' for stdin.
    """
    from ..advisor import hint
    from ..rules.observation_notation import load_observation

    try:
        if file == "-":
            data: str | bytes = sys.stdin.buffer.read()
        else:
            data = Path(file).read_bytes()
    except OSError as e:
        raise InputError(f"{file}: cannot read: {e.strerror or e}", as_json=as_json) from None
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as e:
        raise InputError(
            f"{file}: not a text file (byte {e.start} is not UTF-8)", as_json=as_json
        ) from None
    try:
        if "\n" not in text and not text.lstrip().startswith("{"):
            text += "\n"  # a one-line file is still text, not a path
        obs = load_observation(text)
    except InvalidSetupError as e:  # a state or setup no game reaches (also InvalidStateError)
        kind = "state" if isinstance(e, InvalidStateError) else "setup"
        msg = violation_line(file, text, e.violations, what=f"invalid {kind}")
        raise InputError(msg, as_json=as_json, kind=type(e).__name__) from None
    except InconsistentObservationError as e:
        more = f" (+{len(e.reasons) - 1} more)" if len(e.reasons) > 1 else ""
        msg = f"{file}: inconsistent observation: {e.reasons[0]}{more}"
        raise InputError(msg, as_json=as_json, kind=type(e).__name__) from None
    except SensorGhostsError as e:
        msg = str(e).replace("<text>", file)
        raise InputError(msg, as_json=as_json, kind=type(e).__name__) from None
    try:
        h = hint(obs, budget=budget, seed=seed)
    except SensorGhostsError as e:
        raise InputError(f"{file}: {e}", as_json=as_json, kind=type(e).__name__) from None
    except ValueError as e:  # a finished game, another player's view
        raise InputError(str(e), as_json=as_json, kind=type(e).__name__) from None
    out = h.as_dict()
    text_out = str(h)
    if exact > 0:
        out["exact"], line = _exact(obs, h.best, exact)
        text_out += "\n" + line
    if as_json:
        click.echo(json.dumps(out, indent=2))
    else:
        click.echo(text_out)


def _exact(obs, best, seconds: float) -> tuple[dict, str]:
    """The endgame solver's verdict on the position and on the hinted command."""
    from ..advisor import EndgameUnsupported, solve_endgame
    from ..advisor.search import turn_key

    try:
        world = _any_world(obs)
        key = turn_key(world, best)
        res = solve_endgame(obs, focus=[key], timeout=seconds)
    except EndgameUnsupported as e:
        return {"status": "unsupported", "why": str(e)}, f"exact: not available ({e})"
    lo, hi = res.command_value(key)
    data = {"status": res.status, "win": [round(res.low, 6), round(res.high, 6)],
            "hinted": [round(lo, 6), round(hi, 6)], "best": str(res.best) if res.best else None,
            "proven": res.proven, "turns_deep": res.horizon, "nodes": res.nodes,
            "seconds": round(res.seconds, 3)}
    if res.status == "exact":
        line = f"exact: win {res.low:.1%} with best play ({res.best}"
        line += ", proven best)" if res.proven else ")"
    else:
        line = (f"exact: not settled in {seconds:g}s ({res.horizon} turns deep): "
                f"best play wins between {res.low:.1%} and {res.high:.1%}")
    hinted = f"{lo:.1%}" if hi - lo < 1e-12 else f"between {lo:.1%} and {hi:.1%}"
    return data, line + f"; the hinted command wins {hinted}"


def _any_world(obs):
    import random

    from ..solver.worlds import WorldSampler

    return WorldSampler(obs).sample(random.Random(0))
