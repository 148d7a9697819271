"""Games played in the browser, kept in the server's memory: the rules engine
plays every turn (``apply_turn``), the page shows what the active player sees
(``observe``), and a finished game shows everything.

A page picks a command (``turn_starts``: bolster and the cards played) and then
one of its legal re-scans; the choices come from ``legal_turns``, the turn
from ``parse_turn`` when typed, and the reason for a refused turn from the
engine's ``IllegalTurnError``.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from dataclasses import dataclass, field
from typing import Any

from ..rules.errors import TimeLimitError
from ..rules.geometry import DOCK, EARTH, Pos, format_pos
from ..rules.log import (
    Drew,
    Entered,
    Flipped,
    GameEnded,
    Peeked,
    PodMoved,
    SampleLost,
    SampleTaken,
    ShieldsRaised,
    Shifted,
)
from ..rules.observation import observe
from ..rules.setup import Gap, Setup, Slot
from ..rules.state import GameState
from ..rules.turns import Turn
from .table import form_from_observation

KEEP_GAMES = 100
"""Games kept in memory; the oldest is dropped first."""
LIST_SECONDS = 5.0
"""How long listing the legal turns may take (a four-player state with second
actions has tens of thousands)."""


@dataclass
class Game:
    id: str
    setup: Setup
    seed: int
    states: list[GameState]
    turns: list[Turn] = field(default_factory=list)
    logs: list[list[Any]] = field(default_factory=list)
    _choices: dict[str, list[Turn]] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """One request at a time changes this game (other games go on meanwhile)."""

    @property
    def state(self) -> GameState:
        return self.states[-1]

    def choices(self) -> dict[str, list[Turn]]:
        """The legal turns of this state by their start (the turn without its
        re-scan): the commands a player picks from, each with its re-scans."""
        if self._choices is None:
            from ..rules.engine import legal_turns

            out: dict[str, list[Turn]] = {}
            deadline = time.perf_counter() + LIST_SECONDS
            for t in legal_turns(self.state, deadline=deadline):
                start = Turn(t.command, t.bolster, t.second)
                out.setdefault(str(start), []).append(t)
            self._choices = out
        return self._choices

    def play(self, turn: Turn) -> None:
        """Apply ``turn`` (``IllegalTurnError`` with the engine's reason if it is not legal)."""
        from ..rules.engine import apply_turn

        log: list = []
        after = apply_turn(self.state, turn, log=log)
        self.states.append(after)
        self.turns.append(turn)
        self.logs.append(log)
        self._choices = None

    def undo(self) -> bool:
        if not self.turns:
            return False
        self.states.pop()
        self.turns.pop()
        self.logs.pop()
        self._choices = None
        return True


class Games:
    """The games in play, by id."""

    def __init__(self) -> None:
        self.games: dict[str, Game] = {}
        self._ids = itertools.count(1)

    def new(self, setup: Setup, seed: int) -> Game:
        from ..rules.state import initial_state

        game = Game(f"g{next(self._ids)}", setup, seed, [initial_state(setup, setup.deal, seed=seed)])
        self.games[game.id] = game
        while len(self.games) > KEEP_GAMES:
            self.games.pop(next(iter(self.games)))
        return game

    def get(self, game_id: str) -> Game | None:
        return self.games.get(game_id)


def new_setup(seed: int | None, game_id: str | None, players: int, difficulty: str) -> tuple[Setup, int]:
    """A setup to play: from a game ID, else generated from ``seed`` (random if None)."""
    from ..generators import generate_setup, setup_from_id
    from ..rules.options import Difficulty, RuleOptions

    if game_id:
        setup = setup_from_id(game_id)
        return setup, seed if seed is not None else 0
    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    options = RuleOptions(players, Difficulty(difficulty))
    return generate_setup(seed=seed, options=options), seed


# ----------------------------------------------------------------------------
# what the page shows
# ----------------------------------------------------------------------------


def _where(pos: Pos) -> str:
    return "Earth" if pos == EARTH else "the dock" if pos == DOCK else format_pos(pos)


def event_text(e: Any) -> str:
    """One line of the game log for an event the engine told (``rules/log.py``)."""
    if isinstance(e, Entered):
        met = f" ({e.met.name.lower()})" if e.met is not None else ""
        return f"entered {_where(e.pos)}{met}"
    if isinstance(e, SampleTaken):
        return f"took a {'virus' if e.virus else 'rock'} sample at {format_pos(e.pos)}"
    if isinstance(e, SampleLost):
        return f"a sample lost unseen at {format_pos(e.pos)}"
    if isinstance(e, Flipped):
        return f"{e.cause} flipped {format_pos(e.pos)} to {e.face.name.lower()}"
    if isinstance(e, Shifted):
        return f"{e.cause} shifted row {e.row}"
    if isinstance(e, Peeked):
        return "peeked at " + ", ".join(format_pos(p) for p in e.cells)
    if isinstance(e, ShieldsRaised):
        return f"shields at {e.shields}"
    if isinstance(e, PodMoved):
        return f"pod {_where(e.start)} -> {_where(e.end)}"
    if isinstance(e, Drew):
        return "drew " + (" ".join(e.cards) or "nothing") + (" (reshuffled)" if e.reshuffled else "")
    if isinstance(e, GameEnded):
        return f"game over: {e.outcome}"
    return ""


def _true_cell(cell: Slot | Gap) -> dict[str, Any]:
    """A cell as it really is, for the end of a game: both sides, the sample's content."""
    if isinstance(cell, Gap):
        return {"kind": "gap", "front": cell.card.front.value if cell.card else None}
    if cell.card.start:
        return {"kind": "start"}
    down = cell.card.side(cell.up.other)
    sample = None if cell.sample is None else ("virus" if cell.sample.virus else "rock")
    return {"kind": "card", "up": cell.face.value, "side": cell.up.value, "down": down.value,
            "sample": sample is not None, "content": sample, "revealed": True}


def _commands(game: Game) -> tuple[list[dict[str, Any]], str | None]:
    try:
        choices = game.choices()
    except TimeLimitError:
        return [], f"too many turns to list within {LIST_SECONDS:g} s: type the turn"
    out = []
    for start, turns in choices.items():
        t = turns[0]
        cards = [pc.card for c in (t.command, t.second) if c is not None for pc in c.cards]
        out.append({"start": start, "cards": cards})
    return out, None


def _is_rescan(e: Any) -> bool:
    return isinstance(e, (Flipped, Shifted)) and e.cause == "re-scan"


def command_outcome(game: Game, start: str) -> dict[str, Any] | None:
    """What the player sees once the command ``start`` is played, before the
    re-scan (steps 2-4: the action, then the draw), and the re-scans they may
    then choose: the engine's log of one legal turn with that start, cut at
    its re-scan (the steps before do not depend on the re-scan chosen).
    None if ``start`` is not a legal command here."""
    from ..rules.engine import apply_turn

    turns = game.choices().get(start)
    if not turns:
        return None
    log: list = []
    apply_turn(game.state, turns[0], log=log)
    before = []
    for e in log:
        if _is_rescan(e) or isinstance(e, GameEnded):
            break
        before.append(e)
    return {
        "start": start,
        "events": [t for t in (event_text(e) for e in before) if t],
        "entered": [list(e.pos) for e in before if isinstance(e, Entered)],
        "ends_game": any(isinstance(e, GameEnded) for e in log),
        "rescans": [{"turn": str(t), "columns": sorted(t.rescan)} for t in turns],
    }


def game_view(game: Game) -> dict[str, Any]:
    """What the page shows of a game: the active player's view while it runs,
    the whole table once it is over; the log; the commands to pick from."""
    state = game.state
    view = form_from_observation(observe(state, state.active))
    if state.is_over:
        view["cells"] = [[_true_cell(c) for c in row] for row in state.grid]
    commands, note = ([], None) if state.is_over else _commands(game)
    log = []
    for i, (turn, events) in enumerate(zip(game.turns, game.logs, strict=True), 1):
        lines = [t for t in (event_text(e) for e in events) if t]
        log.append({"turn": i, "text": str(turn), "events": lines})
    return {
        "id": game.id,
        "setup_id": game.setup.id,
        "seed": game.seed,
        "table": view,
        "status": state.outcome.status.value,
        "outcome": str(state.outcome),
        "over": state.is_over,
        "commands": commands,
        "commands_note": note,
        "log": log,
        "can_undo": bool(game.turns),
    }
