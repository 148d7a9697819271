"""sensor-ghosts: rules engine, setup generator, exact solver and hints for the
board game *Sensor Ghosts*.

One front door for the core (the parts load when first used, so ``import
sensor_ghosts`` stays light)::

    import sensor_ghosts as sg

    setup = sg.generate(seed=7)                  # a legal setup with its deal
    assert sg.validate(setup) == []
    state = sg.initial_state(setup, setup.deal)  # GameState (immutable)
    turn = sg.legal_turns(state)[0]              # or sg.parse_turn("F6 fly R; rescan 1,2", state)
    state = sg.apply_turn(state, turn)           # IllegalTurnError with the reason if not legal
    view = sg.observe(state, 0)                  # what player 1 can see (docs/RULES.md §14)
    plan = sg.solve(setup, timeout=5).plan       # an optimal plan, replayed through the engine
    # (mode=sg.Mode.OPEN, objective=sg.Objective.TURNS_ONLY, ...; .status == sg.Status.SOLVED)
    puzzles = sg.generate_solved(7, 3, timeout=10)  # (setup, result) pairs the solver solved
    tip = sg.hint(sg.observe(sg.initial_state(setup, setup.deal), 0), budget=1)
    text = sg.dump(setup)                        # the text notation; sg.load(text) reads it back

Every error the library raises on purpose is a ``SensorGhostsError``.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, tuple[str, str]] = {
    "Setup": ("sensor_ghosts.rules.setup", "Setup"),
    "GameState": ("sensor_ghosts.rules.state", "GameState"),
    "Turn": ("sensor_ghosts.rules.turns", "Turn"),
    "Observation": ("sensor_ghosts.rules.observation", "Observation"),
    "RuleOptions": ("sensor_ghosts.rules.options", "RuleOptions"),
    "generate": ("sensor_ghosts.generators", "generate_setup"),
    "setup_from_id": ("sensor_ghosts.generators", "setup_from_id"),
    "validate": ("sensor_ghosts.rules.validation", "validate"),
    "initial_state": ("sensor_ghosts.rules.state", "initial_state"),
    "legal_turns": ("sensor_ghosts.rules.engine", "legal_turns"),
    "apply_turn": ("sensor_ghosts.rules.engine", "apply_turn"),
    "perft": ("sensor_ghosts.rules.engine", "perft"),
    "observe": ("sensor_ghosts.rules.observation", "observe"),
    "parse_turn": ("sensor_ghosts.rules.notation", "parse_turn"),
    "load": ("sensor_ghosts.rules.notation", "load"),
    "solve": ("sensor_ghosts.solver", "solve"),
    "Mode": ("sensor_ghosts.solver.result", "Mode"),
    "Objective": ("sensor_ghosts.solver.result", "Objective"),
    "Status": ("sensor_ghosts.solver.result", "Status"),
    "generate_solved": ("sensor_ghosts.puzzles", "generate_solved"),
    "hint": ("sensor_ghosts.advisor", "hint"),
    "rescan_hint": ("sensor_ghosts.advisor", "rescan_hint"),
    "flipped_positions": ("sensor_ghosts.advisor", "flipped_positions"),
    "solve_endgame": ("sensor_ghosts.advisor", "solve_endgame"),
    "SensorGhostsError": ("sensor_ghosts.rules.errors", "SensorGhostsError"),
    "InvalidArgumentError": ("sensor_ghosts.rules.errors", "InvalidArgumentError"),
    "IllegalTurnError": ("sensor_ghosts.rules.errors", "IllegalTurnError"),
    "NotationError": ("sensor_ghosts.rules.errors", "NotationError"),
}

__all__ = ["__version__", "dump", *_EXPORTS]


def dump(thing: Any) -> str:
    """A setup, a game state, an observation or a turn in the text notation
    (``load`` reads setups and states back; ``docs/NOTATION.md``)."""
    from .rules import notation
    from .rules.observation import Observation
    from .rules.setup import Setup
    from .rules.state import GameState
    from .rules.turns import Turn

    if isinstance(thing, Setup):
        return notation.format_setup(thing)
    if isinstance(thing, GameState):
        return notation.format_state(thing)
    if isinstance(thing, Turn):
        return notation.format_turn(thing)
    if isinstance(thing, Observation):
        from .rules.observation_notation import format_observation

        return format_observation(thing)
    from .rules.errors import NotWritableError

    raise NotWritableError(f"cannot write a {type(thing).__name__} in the notation")


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module, attr = _EXPORTS[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value  # once loaded, a plain attribute
        return value
    raise AttributeError(f"module 'sensor_ghosts' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
