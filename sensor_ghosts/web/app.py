"""The web app (Starlette): a page for the table, a page to play, a page of
printable puzzles, and the JSON API they call. Every answer comes from the
library; this module only moves requests to it and answers back.

Bad requests get a 4xx status and ``{"error": message, ...}``: 400 malformed
input (a form field, an observation's notation, a turn's notation, an unknown
game ID), 404 an unknown game or job, 422 well-formed but refused (an
impossible table, an illegal turn, a hint for a finished game).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import time
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..rules.errors import IllegalTurnError, NotationError, SensorGhostsError
from ..rules.observation import InconsistentObservationError, Observation
from .games import Game, Games, command_outcome, game_view, new_setup
from .table import (
    FormError,
    check_table,
    form_from_observation,
    notation_problem,
    observation_from_form,
)
from .work import MAX_BUDGET, Job, Workers, hint_job, puzzle_job

STATIC = resources.files("sensor_ghosts.web") / "static"
SOLVE_SECONDS = 20.0
"""The solver's time limit for a puzzle's solution page."""


class Refused(Exception):
    """A request answered with a 4xx status and a JSON body."""

    def __init__(self, status: int, message: str, **extra: Any):
        super().__init__(message)
        self.status = status
        self.body = {"error": message, **extra}


async def _json(request: Request) -> dict[str, Any]:
    try:
        data = json.loads(await request.body() or b"{}")
    except (ValueError, UnicodeDecodeError) as e:
        raise Refused(400, f"the request body is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise Refused(400, "the request body is a JSON object")
    return data


def _number(data: dict[str, Any], key: str, default: float, lo: float, hi: float) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise Refused(400, f"{key}: a number from {lo:g} to {hi:g}, got {value!r}")
    return float(value)


# ----------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------


def _observation(data: dict[str, Any]) -> tuple[Observation, str]:
    """The observation a request carries: a form ("table") or text ("text");
    and the text it was read from (for locating a notation error)."""
    from ..rules.observation_notation import load_observation

    if "text" in data:
        text = data["text"]
        if not isinstance(text, str) or not text.strip():
            raise Refused(400, "text: paste an observation, a state or a setup")
        if "\n" not in text and not text.lstrip().startswith("{"):
            text += "\n"  # one line is text, never a file name
        try:
            return load_observation(text, check=False), text
        except NotationError as e:
            problem = notation_problem(e, text)
            raise Refused(400, f"line {e.line}: {e.reason}" if e.line else e.reason,
                          problems=[problem]) from None
        except SensorGhostsError as e:
            raise Refused(400, str(e).replace("<text>", "the text")) from None
    if "table" in data:
        try:
            return observation_from_form(data["table"]), ""
        except FormError as e:
            raise Refused(400, str(e), field=e.field) from None
    raise Refused(400, "give the table ('table') or its text ('text')")


def _focus(data: dict[str, Any]) -> tuple[int, int] | None:
    focus = data.get("focus")
    if isinstance(focus, list) and len(focus) == 2 and all(isinstance(x, int) for x in focus):
        return (focus[0], focus[1])
    return None


def _checked(obs: Observation, focus: tuple[int, int] | None) -> dict[str, Any]:
    from ..rules.observation_notation import format_observation

    problems = check_table(obs, focus)
    return {"ok": not problems, "problems": problems, "text": format_observation(obs)}


async def table_check(request: Request) -> Response:
    """The verdict on a table, each problem placed, and its text."""
    data = await _json(request)
    obs, _ = _observation(data)
    out = await run_in_threadpool(_checked, obs, _focus(data))
    try:
        out["table"] = form_from_observation(obs)
    except FormError as e:
        raise Refused(400, str(e), field=e.field) from None
    return JSONResponse(out)


async def table_from_id(request: Request) -> Response:
    """The opening table of a game ID (its setup dealt by its own deal)."""
    from ..rules.observation import observe
    from ..rules.state import initial_state

    data = await _json(request)
    game_id = data.get("game_id")
    if not isinstance(game_id, str) or not game_id.strip():
        raise Refused(400, "game_id: a game ID such as 1p-standard#7")
    setup = await run_in_threadpool(_setup_of, game_id.strip())
    obs = observe(initial_state(setup, setup.deal, seed=0), 0)
    out = await run_in_threadpool(_checked, obs, None)
    out["table"] = form_from_observation(obs)
    return JSONResponse(out)


def _setup_of(game_id: str):
    from ..generators import setup_from_id

    try:
        return setup_from_id(game_id)
    except SensorGhostsError as e:
        raise Refused(400, f"not a game ID: {e}") from None


async def cards(request: Request) -> Response:
    """The command cards of a game (the page's card buttons)."""
    from ..rules.cards import CommandCardSet
    from ..rules.options import Difficulty

    try:
        players = int(request.query_params.get("players", "1"))
        level = Difficulty(request.query_params.get("difficulty", "standard"))
    except ValueError as e:
        raise Refused(400, f"players 1-4, difficulty introductory, standard or advanced: {e}") from None
    if not 1 <= players <= 4:
        raise Refused(400, "players: 1 to 4")
    game = CommandCardSet.default().game_cards(level, players)
    return JSONResponse({"cards": [{"id": c.id, "kind": c.kind.value} for c in game]})


# ----------------------------------------------------------------------------
# hints and other jobs
# ----------------------------------------------------------------------------


def _workers(request: Request) -> Workers:
    return request.app.state.workers


def _job_of(request: Request) -> Job:
    job = _workers(request).jobs.get(request.path_params["job"])
    if job is None:
        raise Refused(404, "no such job (finished long ago, cancelled, or never started)")
    return job


def _start_hint(request: Request, obs: Observation, data: dict[str, Any]) -> Response:
    from ..advisor.answer import check_askable

    budget = _number(data, "budget", 2.0, 0.05, MAX_BUDGET)
    seed = int(_number(data, "seed", 0, 0, 2**31))
    problems = check_table(obs)
    if problems:
        raise Refused(422, "impossible table: " + problems[0]["message"], problems=problems)
    try:
        check_askable(obs)
    except SensorGhostsError as e:
        raise Refused(422, str(e)) from None
    job = _workers(request).submit("hint", budget, hint_job, obs, budget, seed)
    return JSONResponse({"job": job.id, "budget": budget}, status_code=202)


async def hint_start(request: Request) -> Response:
    """Start a hint for a table (form or text): 202 and the job to poll."""
    data = await _json(request)
    obs, _ = _observation(data)
    return _start_hint(request, obs, data)


async def job_status(request: Request) -> Response:
    """A job's state; ``?wait=S`` waits up to S seconds (at most 10) for it to end."""
    job = _job_of(request)
    try:
        wait = min(10.0, max(0.0, float(request.query_params.get("wait", "0"))))
    except ValueError:
        raise Refused(400, "wait: seconds") from None
    done = await _workers(request).wait(job, wait)
    out: dict[str, Any] = {"job": job.id, "kind": job.kind, "budget": job.budget,
                           "elapsed": round(time.monotonic() - job.started, 3)}
    if not done:
        out["status"] = "running" if job.future.running() else "queued"
        return JSONResponse(out)
    error = job.future.exception()
    if error is None:
        out.update(status="done", result=job.future.result())
    elif isinstance(error, SensorGhostsError):
        out.update(status="refused", error=str(error))
    else:
        out.update(status="failed", error=f"{type(error).__name__}: {error}")
    return JSONResponse(out)


async def job_cancel(request: Request) -> Response:
    job = _job_of(request)
    never_ran = _workers(request).cancel(job)
    return JSONResponse({"job": job.id, "cancelled": True, "was_running": not never_ran})


# ----------------------------------------------------------------------------
# playing
# ----------------------------------------------------------------------------


def _game(request: Request) -> Game:
    game = request.app.state.games.get(request.path_params["game"])
    if game is None:
        raise Refused(404, "no such game (the server keeps the latest 100)")
    return game


async def game_new(request: Request) -> Response:
    data = await _json(request)
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise Refused(400, "seed: a whole number, 0 or more")
    game_id = data.get("game_id") or None
    if game_id is not None and not isinstance(game_id, str):
        raise Refused(400, "game_id: a game ID such as 1p-standard#7")
    players = int(_number(data, "players", 1, 1, 4))
    difficulty = data.get("difficulty", "standard")
    if difficulty not in ("introductory", "standard", "advanced"):
        raise Refused(400, "difficulty: introductory, standard or advanced")
    try:
        setup, seed = await run_in_threadpool(new_setup, seed, game_id, players, difficulty)
    except SensorGhostsError as e:
        raise Refused(400, f"cannot set up that game: {e}") from None
    game = request.app.state.games.new(setup, seed)
    return JSONResponse(await run_in_threadpool(game_view, game))


async def game_get(request: Request) -> Response:
    game = _game(request)
    async with game.lock:
        return JSONResponse(await run_in_threadpool(game_view, game))


def _play_text(game: Game, text: str) -> dict[str, Any]:
    from ..rules.notation import parse_turn

    try:
        turn = parse_turn(text, game.state)
    except NotationError as e:
        where = f" (at {e.token!r}, column {e.column})" if e.token is not None else ""
        raise Refused(400, f"not understood: {e.reason}{where}") from None
    try:
        game.play(turn)
    except IllegalTurnError as e:
        raise Refused(422, f"not allowed: {getattr(e, 'reason', None) or e}") from None
    except SensorGhostsError as e:
        raise Refused(422, f"not allowed: {e}") from None
    return game_view(game)


async def game_turn(request: Request) -> Response:
    """Play a turn given in the notation (what the page's buttons send, or typed)."""
    game = _game(request)
    data = await _json(request)
    text = data.get("turn")
    if not isinstance(text, str) or not text.strip():
        raise Refused(400, "turn: a turn in the notation, e.g. 'F1 fly U; rescan 2,4'")
    async with game.lock:
        return JSONResponse(await run_in_threadpool(_play_text, game, text.strip()))


async def game_command(request: Request) -> Response:
    """The outcome of a command (before its re-scan) and the re-scans to pick from."""
    game = _game(request)
    data = await _json(request)
    start = data.get("start")
    if not isinstance(start, str):
        raise Refused(400, "start: a command as the list gives it, e.g. 'F1 fly U'")
    async with game.lock:
        out = await run_in_threadpool(command_outcome, game, start)
    if out is None:
        raise Refused(422, f"not a legal command here: {start!r}")
    return JSONResponse(out)


async def game_undo(request: Request) -> Response:
    game = _game(request)
    async with game.lock:
        if not game.undo():
            raise Refused(422, "nothing to undo")
        return JSONResponse(await run_in_threadpool(game_view, game))


async def game_hint(request: Request) -> Response:
    from ..rules.observation import observe

    game = _game(request)
    data = await _json(request)
    state = game.state
    if state.is_over:
        raise Refused(422, f"the game is over ({state.outcome})")
    return _start_hint(request, observe(state, state.active), data)


# ----------------------------------------------------------------------------
# puzzles
# ----------------------------------------------------------------------------


async def puzzle(request: Request) -> Response:
    """A game ID's printed pages: sheet.svg, solution.svg, or puzzle.pdf."""
    game_id = request.path_params["game_id"]
    what = request.path_params["what"]
    kinds = {"sheet.svg": "sheet", "solution.svg": "solution", "puzzle.pdf": "pdf"}
    if what not in kinds:
        raise Refused(404, "sheet.svg, solution.svg or puzzle.pdf")
    await run_in_threadpool(_setup_of, game_id)  # an unknown ID is a bad request, refused here
    workers = _workers(request)
    job = workers.submit("puzzle", SOLVE_SECONDS, puzzle_job, game_id, kinds[what], SOLVE_SECONDS)
    try:
        await asyncio.wait_for(asyncio.wrap_future(job.future), SOLVE_SECONDS + 60)
    except asyncio.TimeoutError:
        workers.cancel(job)
        raise Refused(503, "the solver is busy: try again") from None
    result = job.future.result()
    workers.jobs.pop(job.id, None)
    if isinstance(result, dict):
        raise Refused(422, f"no solution to draw: the solver says {result['status']}")
    if kinds[what] == "pdf":
        name = game_id.replace("#", "-")
        return Response(result, media_type="application/pdf",
                        headers={"Content-Disposition": f'attachment; filename="{name}.pdf"'})
    return Response(result, media_type="image/svg+xml")


# ----------------------------------------------------------------------------
# the app
# ----------------------------------------------------------------------------


async def index(request: Request) -> Response:
    return FileResponse(str(STATIC / "index.html"), media_type="text/html")


async def health(request: Request) -> Response:
    return JSONResponse({"ok": True, "workers_warm": _workers(request).warm()})


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return JSONResponse(exc.body, status_code=exc.status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code)


async def _library_error(request: Request, exc: Exception) -> Response:
    # A deliberate library error that no route caught: still the request's fault.
    status = 422 if isinstance(exc, InconsistentObservationError) else 400
    return JSONResponse({"error": str(exc)}, status_code=status)


def create_app(workers: int = 2) -> Starlette:
    """The app; ``workers`` processes compute hints and solutions."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.workers = Workers(workers)
        # The advisor's import loads the solver (a second or two): at start, not in a request.
        await run_in_threadpool(importlib.import_module, "sensor_ghosts.advisor.answer")
        app.state.games = Games()
        try:
            yield
        finally:
            await run_in_threadpool(app.state.workers.close)

    routes = [
        Route("/", index),
        Route("/api/health", health),
        Route("/api/cards", cards),
        Route("/api/table/check", table_check, methods=["POST"]),
        Route("/api/table/from-id", table_from_id, methods=["POST"]),
        Route("/api/hint", hint_start, methods=["POST"]),
        Route("/api/job/{job}", job_status, methods=["GET"]),
        Route("/api/job/{job}", job_cancel, methods=["DELETE"]),
        Route("/api/game", game_new, methods=["POST"]),
        Route("/api/game/{game}", game_get),
        Route("/api/game/{game}/turn", game_turn, methods=["POST"]),
        Route("/api/game/{game}/command", game_command, methods=["POST"]),
        Route("/api/game/{game}/undo", game_undo, methods=["POST"]),
        Route("/api/game/{game}/hint", game_hint, methods=["POST"]),
        Route("/api/puzzle/{game_id}/{what}", puzzle),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    handlers: dict[Any, Any] = {
        Refused: _refused,
        HTTPException: _http_error,
        SensorGhostsError: _library_error,
    }
    return Starlette(routes=routes, lifespan=lifespan, exception_handlers=handlers)
