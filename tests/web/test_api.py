"""The web app's JSON API through Starlette's TestClient (no browser): good
answers come from the library, and bad requests get a clear 4xx, never a 500."""

from __future__ import annotations

import copy
import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    # Starlette 1.x would rather have httpx2 under its test client; httpx still works.
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient

from sensor_ghosts.rules.observation_notation import parse_observation  # noqa: E402
from sensor_ghosts.web.app import create_app  # noqa: E402
from sensor_ghosts.web.table import observation_from_form  # noqa: E402

GAME_ID = "1p-standard#7"


# One app for the module: its tests stay on one xdist worker.
pytestmark = pytest.mark.xdist_group("web-api")


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(workers=1), raise_server_exceptions=False) as c:
        deadline = time.monotonic() + 300
        while not c.get("/api/health").json()["workers_warm"]:
            assert time.monotonic() < deadline, "the hint worker did not start"
            time.sleep(0.2)
        yield c


@pytest.fixture(scope="module")
def opening(client) -> dict:
    r = client.post("/api/table/from-id", json={"game_id": GAME_ID})
    assert r.status_code == 200, r.text
    return r.json()


def test_opening_table_of_a_game_id_is_consistent_and_its_text_is_the_librarys(opening):
    assert opening["ok"] and opening["problems"] == []
    # The text is the library's notation of the same observation.
    assert parse_observation(opening["text"]) == observation_from_form(opening["table"])


def test_text_import_gives_back_the_same_table(client, opening):
    r = client.post("/api/table/check", json={"text": opening["text"]})
    assert r.status_code == 200
    assert r.json()["table"] == opening["table"]


def test_impossible_table_is_refused_next_to_the_cell_edited(client, opening):
    table = copy.deepcopy(opening["table"])
    table["cells"][3][1] = {"kind": "card", "up": "B", "side": "front", "down": None, "sample": True}
    r = client.post("/api/table/check", json={"table": table, "focus": [4, 2]})
    assert r.status_code == 200
    body = r.json()
    assert not body["ok"]
    grid = [p for p in body["problems"] if p["part"] == "grid"]
    assert grid and grid[0]["cell"] == [4, 2] and "B front" in grid[0]["message"]


def test_ship_on_a_gap_is_placed_on_that_cell(client, opening):
    table = copy.deepcopy(opening["table"])
    gap = next((r + 1, c + 1) for r, row in enumerate(table["cells"])
               for c, cell in enumerate(row) if cell["kind"] == "gap")
    table["ship"] = list(gap)
    body = client.post("/api/table/check", json={"table": table}).json()
    assert any(p["cell"] == list(gap) and "gap" in p["message"] for p in body["problems"])


@pytest.mark.parametrize("payload, status, words", [
    (b"{not json", 400, "not JSON"),
    (b"[1, 2]", 400, "JSON object"),
    (b"{}", 400, "give the table"),
    (b'{"table": {"cells": 3}}', 400, "cells"),
    (b'{"text": "sensor-ghosts observation\\n7: E? Xe E? E? E?\\n"}', 400, "line"),
])
def test_malformed_table_requests_are_400(client, payload, status, words):
    r = client.post("/api/table/check", content=payload)
    assert r.status_code == status
    assert words in r.json()["error"]


def test_a_bad_cell_token_in_pasted_text_points_at_its_cell(client, opening):
    lines = opening["text"].splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("5:"))
    tokens = lines[i].split()
    tokens[3] = "Xq"  # row 5, third cell
    lines[i] = "5: " + "   ".join(tokens[1:])
    r = client.post("/api/table/check", json={"text": "\n".join(lines) + "\n"})
    assert r.status_code == 400
    assert r.json()["problems"][0]["cell"] == [5, 3]


def test_unknown_game_id_is_400(client):
    for url, body in (("/api/table/from-id", {"game_id": "nonsense"}), ("/api/game", {"game_id": "x#y"})):
        r = client.post(url, json=body)
        assert r.status_code == 400, r.text
    r = client.get("/api/puzzle/nonsense/sheet.svg")
    assert r.status_code == 400 and "game ID" in r.json()["error"]


def test_hint_refuses_an_impossible_table_and_a_bad_budget(client, opening):
    table = copy.deepcopy(opening["table"])
    table["shields"] = 1  # nothing at the dock gives shields: still consistent
    table["held"] = 3
    table["spent"] = 1  # four virus samples: impossible
    r = client.post("/api/hint", json={"table": table, "budget": 0.5})
    assert r.status_code == 422 and "impossible table" in r.json()["error"]
    r = client.post("/api/hint", json={"table": opening["table"], "budget": 999})
    assert r.status_code == 400 and "budget" in r.json()["error"]
    assert client.get("/api/job/nope").status_code == 404


def test_hint_answers_within_its_budget_plus_half_a_second(client, opening):
    """The wall time of the page's two requests (start the job, wait for it)
    against the budget + 0.5 s. The worker has warmed up (the fixture waits),
    so the compiled kernels are loaded; the test client calls the app in this
    process, so no network is counted.

    The advisor's budget is wall time, but this machine's 2 cores are shared
    with other jobs (load 5-10): a worker may get a small fraction of a core,
    and the advisor then overshoots by itself (measured under 'nice -n 19':
    2.2-3.8 s for a 0.5 s budget with the worker at 4-7 % of a core; at
    30-60 % of a core, 0.59-0.74 s). So: up to 3 hints, and one within the
    bound passes; the web layer's own time (wall minus the worker's) must stay
    under 0.5 s on every one. If none is within the bound and every worker
    got under a quarter of a core, the test skips with the figures (starved,
    not slow); otherwise it fails."""
    budget = 0.5
    tries, starved = [], True
    for seed in range(3):
        t0 = time.perf_counter()
        r = client.post("/api/hint", json={"table": opening["table"], "budget": budget, "seed": seed})
        assert r.status_code == 202, r.text
        status = client.get(f"/api/job/{r.json()['job']}?wait=10").json()
        wall = time.perf_counter() - t0
        assert status["status"] == "done", status
        hint = status["result"]
        assert hint["best"] and 0.0 <= hint["win"] <= 1.0 and hint["cards"]
        assert wall - hint["worker_seconds"] <= 0.5, f"the web layer took {wall - hint['worker_seconds']:.2f} s"
        if wall <= budget + 0.5:
            return
        share = hint["worker_cpu_seconds"] / max(hint["worker_seconds"], 1e-9)
        starved = starved and share < 0.25
        tries.append(f"wall {wall:.2f} s, worker at {share:.0%} of a core")
    if starved:
        pytest.skip("every worker starved of the processor: " + "; ".join(tries))
    pytest.fail(f"no hint within {budget + 0.5:g} s: " + "; ".join(tries))


def test_cancel_a_hint(client, opening):
    r = client.post("/api/hint", json={"table": opening["table"], "budget": 2})
    job = r.json()["job"]
    assert client.delete(f"/api/job/{job}").json()["cancelled"]
    assert client.get(f"/api/job/{job}").status_code == 404


def test_play_refuses_an_illegal_turn_with_the_engines_reason(client):
    g = client.post("/api/game", json={"seed": 3}).json()
    assert g["commands"] and not g["over"]
    card = g["table"]["hand"][0]
    r = client.post(f"/api/game/{g['id']}/turn", json={"turn": f"bolster 1; {card} fly U"})
    assert r.status_code == 422 and "bolster" in r.json()["error"]
    r = client.post(f"/api/game/{g['id']}/turn", json={"turn": "F1 flyy U"})
    assert r.status_code == 400 and "not understood" in r.json()["error"]
    assert client.post(f"/api/game/{g['id']}/undo").status_code == 422
    start = g["commands"][0]["start"]
    outcome = client.post(f"/api/game/{g['id']}/command", json={"start": start}).json()
    assert outcome["start"] == start and outcome["rescans"]
    turn = outcome["rescans"][0]["turn"]
    bad = client.post(f"/api/game/{g['id']}/command", json={"start": "F1 fly Q"})
    assert bad.status_code == 422
    after = client.post(f"/api/game/{g['id']}/turn", json={"turn": turn}).json()
    assert after["log"][0]["text"] == turn
    back = client.post(f"/api/game/{g['id']}/undo").json()
    assert back["log"] == [] and back["table"] == g["table"]
    assert client.get("/api/game/nope").status_code == 404
    assert client.post("/api/game", json={"seed": -1}).status_code == 400


def test_puzzle_sheet_is_svg(client):
    r = client.get("/api/puzzle/" + GAME_ID.replace("#", "%23") + "/sheet.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.lstrip().startswith("<")


JUNK = [b"", b"null", b"17", b'"text"', b'{"table": null}', b'{"text": 5}', b'{"text": "  "}',
        b'{"game_id": 7}', b'{"seed": "x"}', b'{"seed": true}', b'{"turn": ["F1"]}', b'{"start": 3}',
        b'{"budget": "fast", "table": {}}', b'{"players": 9}', b'{"difficulty": "nightmare"}']


@pytest.mark.parametrize("url", ["/api/table/check", "/api/table/from-id", "/api/hint", "/api/game"])
def test_junk_never_gets_a_server_error(client, url):
    for body in JUNK:
        r = client.post(url, content=body)
        assert r.status_code < 500, (url, body, r.text)
        if r.status_code >= 400:
            assert r.json()["error"]


def test_junk_forms_never_get_a_server_error(client, opening):
    edits = [("shields", 7), ("held", -1), ("deck", -3), ("pass", 3), ("hand", ["ZZ"]), ("hand", [1]),
             ("discard", [{"card": "F1", "arrow": "Q"}]), ("discard", ["F1"]), ("ship", [9, 9]),
             ("ship", "moon"), ("pod", "dock"), ("players", 2), ("player", 5), ("flags", ["nope"]),
             ("hand_sizes", [3, 9]), ("hand_sizes", "x"), ("difficulty", 3)]
    for key, value in edits:
        table = copy.deepcopy(opening["table"])
        table[key] = value
        for url in ("/api/table/check", "/api/hint"):
            r = client.post(url, json={"table": table, "budget": 0.1})
            assert r.status_code < 500 and r.status_code != 202, (key, value, r.status_code, r.text)
    cell = copy.deepcopy(opening["table"])
    cell["cells"][2][2] = {"kind": "card", "up": "Z", "side": "front"}
    assert client.post("/api/table/check", json={"table": cell}).status_code == 400


def test_a_running_hint_does_not_hold_up_other_requests(client, opening):
    """The hint runs in a worker process: while it thinks, the server answers
    other requests at once."""
    r = client.post("/api/hint", json={"table": opening["table"], "budget": 3})
    job = r.json()["job"]
    t0 = time.perf_counter()
    assert client.post("/api/table/check", json={"table": opening["table"]}).json()["ok"]
    assert client.get("/api/cards").status_code == 200
    quick = time.perf_counter() - t0
    status = client.get(f"/api/job/{job}").json()
    assert status["status"] in ("queued", "running"), status  # still thinking meanwhile
    assert quick < 1.0, f"other requests took {quick:.2f} s while a hint ran"
    assert client.get(f"/api/job/{job}?wait=10").json()["status"] == "done"


def test_serve_command_listens_on_localhost_by_default_and_says_when_it_cannot():
    import socket

    from click.testing import CliRunner

    from sensor_ghosts.cli.main import main

    r = CliRunner().invoke(main, ["serve", "--help"])
    assert r.exit_code == 0 and "127.0.0.1" in r.output
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = CliRunner().invoke(main, ["serve", "--port", str(port)])
    assert r.exit_code == 1 and "cannot listen on 127.0.0.1" in r.output
