"""``sensor-ghosts collection``: graded puzzle collections in SQLite (issue 35).

Exit statuses: 0 success; 2 bad usage, or a file that is not a collection
(one line, never a traceback); 130 interrupted (the rows finished so far stay).
"""

from __future__ import annotations

import json
import sys

import click

from ..rules.errors import SensorGhostsError
from .common import fail, options_from, rule_options

GRADE_CHOICE = click.Choice(["easy", "medium", "hard", "fiendish"])


def _turns(ctx, param, value):
    if value is None:
        return None
    from ..collections.query import parse_turns

    try:
        return parse_turns(value)
    except SensorGhostsError as e:
        raise click.BadParameter(str(e)) from None


@click.group("collection")
def collection() -> None:
    """Graded puzzle collections: build (on Dask), query, stats, booklet.

    \b
      sensor-ghosts collection build puzzles.db --count 100 --workers 2
      sensor-ghosts collection query puzzles.db --grade hard --turns 12-13
      sensor-ghosts collection booklet puzzles.db --grade medium --count 50 --pdf book.pdf --solutions
    """


@collection.command("build")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--count", type=click.IntRange(min=1), required=True, help="Seeds to try: SEED .. SEED+COUNT-1.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="First seed.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Safety net: seconds for each seed's main solve; a seed that needs longer is skipped "
                   "(reason 'timeout', which may differ between machines).")
@click.option("--main-nodes", type=click.IntRange(min=1), default=200_000, show_default=True,
              help="Node budget of each stage of a seed's main solve: decides what is stored.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes of the local Dask cluster (default 2).")
@click.option("--scheduler", default=None, help="Address of a running Dask scheduler, e.g. tcp://host:8786.")
@click.option("--first-moves/--no-first-moves", default=False, show_default=True,
              help="Also count the first moves that keep the optimum (a feature to query; not graded): "
                   "seconds to minutes more per puzzle.")
@click.option("--careful-nodes", type=click.IntRange(min=1), default=None,
              help="Node budget of the careful plan's solve (default: grades.CAREFUL_NODES).")
@rule_options
def build_cmd(db, count, seed, timeout, main_nodes, workers, scheduler, first_moves, careful_nodes, players, difficulty, escape_pod,
              low_memory, extra) -> None:
    """Solve, grade and add the puzzles of seeds SEED.. to DB (made if missing).

    Seeds already in DB are skipped, so an interrupted build resumes."""
    from ..collections.build import build
    from ..collections.schema import open_collection

    if workers is not None and scheduler is not None:
        raise click.UsageError("--workers starts a local cluster; do not combine it with --scheduler")
    options = options_from(players, difficulty, escape_pod, low_memory, extra)
    try:
        open_collection(db, create=True).close()  # refuse a foreign file before starting a cluster
    except SensorGhostsError as e:
        fail(str(e))
    show = sys.stderr.isatty()

    def progress(client, row, done, total) -> None:
        if show:
            click.echo(f"\r{done}/{total} seeds done, last {row['game_id']} ({row.get('grade', 'skipped')})   ",
                       nl=False, err=True)

    try:
        summary = build(db, range(seed, seed + count), options, timeout=timeout, workers=workers or 2,
                        scheduler=scheduler, first_moves=first_moves, careful_nodes=careful_nodes, main_nodes=main_nodes,
                        on_result=progress)
    except KeyboardInterrupt:
        click.echo("\ninterrupted: the puzzles finished so far are stored; run again to resume", err=True)
        sys.exit(130)
    except SensorGhostsError as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot reach the Dask scheduler {scheduler}: {e}" if scheduler else str(e))
    if show:
        click.echo("", err=True)
    for line in summary.lines():
        click.echo(line)


@collection.command("query")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--grade", type=GRADE_CHOICE, default=None)
@click.option("--turns", callback=_turns, default=None, help="Fewest turns, N or N-M.")
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl"]), default="text", show_default=True)
def query_cmd(db, grade, turns, fmt) -> None:
    """List the puzzles of DB that match, easy to hard."""
    from ..collections.query import rows

    try:
        for r in rows(db, grade=grade, turns=turns):
            if fmt == "jsonl":
                click.echo(json.dumps(r, sort_keys=True))
            else:
                f = r["features"]
                careful = "none found" if f["careful_turns"] is None else f"{f['careful_turns']} turns"
                first = "" if f["first_moves"] is None else \
                    f"  first moves {f['first_moves_optimal']}/{f['first_moves']} keep the optimum"
                click.echo(f"{r['game_id']:24} {r['grade']:9} {r['turns']:3} turns {r['cards']:3} cards "
                           f"proof {r['proof']:8} careful route {careful}{first}")
    except SensorGhostsError as e:
        fail(str(e))


@collection.command("stats")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def stats_cmd(db, as_json) -> None:
    """How many puzzles DB holds, by grade, turns and proof; the skipped seeds."""
    from ..collections.query import stats

    try:
        s = stats(db)
    except SensorGhostsError as e:
        fail(str(e), as_json=as_json)
    if as_json:
        click.echo(json.dumps(s, sort_keys=True))
        return
    click.echo(f"{s['puzzles']} puzzle(s), {s['skipped']} skipped seed(s)")
    click.echo("grades: " + ", ".join(f"{g} {n}" for g, n in s["grades"].items()))
    click.echo("turns: " + ", ".join(f"{t}: {n}" for t, n in s["turns"].items()))
    click.echo("proof: " + ", ".join(f"{p} {n}" for p, n in s["proof"].items()))
    click.echo("made by: " + ", ".join(f"sensor-ghosts {v} ({n})" for v, n in s["versions"].items()))
    for why, n in s["skip_reasons"].items():
        click.echo(f"skipped {n}: {why}")


@collection.command("booklet")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--pdf", "pdf_path", type=click.Path(dir_okay=False, writable=True), required=True)
@click.option("--grade", type=GRADE_CHOICE, default=None)
@click.option("--turns", callback=_turns, default=None, help="Fewest turns, N or N-M.")
@click.option("--count", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--solutions", is_flag=True, help="Solution pages after the puzzles.")
def booklet_cmd(db, pdf_path, grade, turns, count, solutions) -> None:
    """A PDF of up to COUNT puzzles of DB that match, easy to hard."""
    from ..collections.booklet import write_booklet

    try:
        n = write_booklet(db, pdf_path, grade=grade, turns=turns, count=count, solutions=solutions)
    except SensorGhostsError as e:
        fail(str(e))
    except OSError as e:
        fail(f"{pdf_path}: cannot write: {e.strerror or e}")
    if n == 0:
        fail(f"{db}: no puzzle matches; no booklet written")
    click.echo(f"wrote {pdf_path} ({n} puzzle(s){', with solutions' if solutions else ''})")
