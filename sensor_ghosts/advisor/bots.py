"""Bots that play real hidden-information games through the rules engine.

- ``random``: a uniformly random legal turn.
- ``greedy``: a simple heuristic that sees only its observation (§14): it
  guesses one hidden world (a single uniform sample) and follows the shortest
  safe route in it (``hints.fast_turn``).
- ``hint``: the hint engine (``advisor.hint``) on its observation, with a
  per-decision time budget: the command first, then the re-scan for the
  outcome it saw (``advisor.rescan_hint``), as a player at the table would.
- ``hint-old``: the previous hint engine (``advisor.legacy``), for comparison.
- ``cheat``: sees everything (the true state, deck order included): the exact
  solver (fewest turns, objective 'turns-only') on the true state from its
  first turn; when it finishes within its node budget the bot follows the
  winning plan, otherwise it plays a perfect-information greedy turn
  (``policy_turn``) and tries the solver again next turn (three tries in all).
  Its win rate is the reference ("cheating bound") the others are measured by.

Only ``cheat`` ever reads hidden parts of the state. The others get
``observe(state, player)`` and the engine's ruling on their turn.

``play_game`` plays one seeded game; every random choice comes from the game's
seed, so results are identical however games are spread over processes.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from ..rules.engine import apply_turn, legal_turns
from ..rules.errors import IllegalTurnError
from ..rules.notation import format_state, format_turn
from ..rules.observation import observe
from ..rules.options import Difficulty, RuleOptions
from ..rules.rescan import rescan_choices
from ..rules.setup import Setup, Slot
from ..rules.state import GameState, Status, initial_state
from ..rules.turns import Turn
from ..solver.worlds import WorldSampler
from .legacy import hint as old_hint
from .legacy import turn_key
from .policies import fast_turn, policy_turn, rescan_policy
from .search import after_command, flipped_positions, hint, rescan_hint

__all__ = ["BOTS", "GameResult", "make_bot", "play_game"]

KEEP_LAST = 3


class Bot:
    name = "bot"
    repaired = False
    """The older heuristics fix a re-scan before the command's outcome is seen;
    their turns are repaired when the outcome does not fit (``_legalize``)."""
    predictions: list[float] = []

    def choose(self, state: GameState, rng: random.Random) -> Turn:  # pragma: no cover
        raise NotImplementedError

    def new_game(self) -> None:
        return None


class RandomBot(Bot):
    name = "random"

    def choose(self, state: GameState, rng: random.Random) -> Turn:
        return rng.choice(legal_turns(state))


class GreedyBot(Bot):
    """A simple heuristic on what it has seen: the shortest route weighing unseen
    cards by the card set's odds, peeking before a blind step when a peek is
    cheap (``fast_turn`` with ``informed=False``). No look-ahead, no sampling:
    one world is sampled only because the engine needs a full state; the turn
    depends on the observation alone."""

    name = "greedy"
    repaired = True

    def choose(self, state: GameState, rng: random.Random) -> Turn:
        world = WorldSampler(observe(state, state.active)).sample(rng)
        return fast_turn(world, informed=False)


RESCAN_SHARE = 0.15
"""Share of a decision's budget kept for the re-scan, chosen after the command."""


class HintBot(Bot):
    """The hint engine at the table: it asks for the command, plays it, sees what
    happened, and asks for the re-scan (two questions, one decision's budget).
    Every hint's estimated chance is kept in ``predictions`` (calibration)."""

    name = "hint"

    def __init__(self, budget: float | None = 2.0, worlds: int = 24):
        self.budget = budget
        self.worlds = worlds
        """With ``budget`` None: a fixed amount of work (``worlds``), deterministic."""
        self.predictions: list[float] = []
        self.raw: list[tuple[float, bool]] = []

    def new_game(self) -> None:
        self.predictions = []
        self.raw = []

    def choose(self, state: GameState, rng: random.Random) -> Turn:
        t0 = time.perf_counter()
        player = state.active
        b = self.budget
        h = hint(observe(state, player), budget=None if b is None else b * (1 - RESCAN_SHARE),
                 seed=rng.randrange(2**31), worlds=self.worlds)
        self.predictions.append(h.win)
        self.raw.append((h.raw_win, h.careful))
        turn = h.best
        mid, flipped = after_command(state, turn)
        if mid.is_over:
            return Turn(turn.command, turn.bolster, turn.second, frozenset())
        if h.careful and turn.rescan in rescan_choices(mid, flipped):
            return turn
        left = None if b is None else max(0.05, b - (time.perf_counter() - t0))
        cols = rescan_hint(observe(mid, player), flipped_positions(mid, flipped), budget=left,
                           seed=rng.randrange(2**31))
        return Turn(turn.command, turn.bolster, turn.second, cols)


class OldHintBot(Bot):
    """The previous hint engine (``advisor.legacy``), kept for the study's comparison."""

    name = "hint-old"
    repaired = True

    def __init__(self, budget: float = 2.0):
        self.budget = budget

    def choose(self, state: GameState, rng: random.Random) -> Turn:
        return old_hint(observe(state, state.active), budget=self.budget,
                        seed=rng.randrange(2**31)).best


class CheatBot(Bot):
    """Sees the true state. The solver's plan when it is found within budget.
    The budget is in nodes, so that the games do not depend on the machine's
    speed; ``solver_timeout`` is only a safety net."""

    name = "cheat"

    def __init__(self, solver_timeout: float = 120.0, solver_nodes: int | None = 4000):
        self.solver_timeout = solver_timeout
        self.solver_nodes = solver_nodes
        self.plan: list[Turn] = []
        self.tries = 0

    def new_game(self) -> None:
        self.plan = []
        self.tries = 0

    def choose(self, state: GameState, rng: random.Random) -> Turn:
        if self.plan:
            return self.plan.pop(0)
        if self.solver_timeout > 0 and self.tries < 3:
            from ..solver.api import solve

            self.tries += 1
            res = solve(
                state,
                mode="deal",
                timeout=self.solver_timeout,
                max_nodes=self.solver_nodes,
                objective="turns-only",
            )
            if res.status == "solved" and res.plan is not None:
                self.plan = list(res.plan.turns)
                return self.plan.pop(0)
        return policy_turn(state, informed=True)


BOTS = ("random", "greedy", "hint-old", "hint", "cheat")


def make_bot(name: str, *, budget: float = 2.0) -> Bot:
    if name == "random":
        return RandomBot()
    if name == "greedy":
        return GreedyBot()
    if name == "hint":
        return HintBot(budget)
    if name == "hint-old":
        return OldHintBot(budget)
    if name == "cheat":
        return CheatBot()
    raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})")


@dataclass
class GameResult:
    bot: str
    seed: int
    difficulty: str
    won: bool
    turns: int
    reason: str
    decision_seconds: list[float] = field(default_factory=list)
    decision_cpu_seconds: list[float] = field(default_factory=list)
    """The same decisions in this thread's CPU time: what they cost on one
    core, whatever else the machine was doing."""
    predictions: list[float] = field(default_factory=list)
    """The win chance the bot's hint printed at each decision (hint bot only)."""
    raw: list[tuple[float, bool]] = field(default_factory=list)
    """Each hint's estimate before calibration, and whether it was a careful route."""
    last: list[tuple[str, str]] = field(default_factory=list)
    """The last ``KEEP_LAST`` positions and the turn played in each (state and
    turn notation): endgames to judge the bot's play by (``benchmarks/endgame.py``)."""

    def as_dict(self) -> dict:
        return {
            "bot": self.bot,
            "seed": self.seed,
            "difficulty": self.difficulty,
            "won": self.won,
            "turns": self.turns,
            "reason": self.reason,
            "decision_seconds": self.decision_seconds,
            "decision_cpu_seconds": self.decision_cpu_seconds,
            "predictions": self.predictions,
            "raw": self.raw,
            "last": self.last,
        }


def _legalize(state: GameState, turn: Turn) -> Turn:
    """The bot's turn as the engine will take it. A hinted re-scan may not fit
    the outcome (a boost carried the ship further than expected): then the
    re-scan is chosen again after the outcome, from what the player saw."""
    try:
        apply_turn(state, turn)
        return turn
    except IllegalTurnError:
        pass
    key = turn_key(state, turn)
    for t in legal_turns(state):
        if turn_key(state, t) == key:
            after, flipped = after_command(state, t)
            if after.is_over:
                return t

            def down(pos, after=after):
                cell = after.cell(pos)
                if isinstance(cell, Slot) and (cell.card.start or cell.card.id in after.seen):
                    return cell.down
                return None

            cols = rescan_policy(after, flipped, down)
            return Turn(t.command, t.bolster, t.second, cols)
    raise IllegalTurnError(f"the bot chose an illegal turn: {turn}")


def play_game(
    bot: str | Bot,
    seed: int,
    *,
    difficulty: str | Difficulty = Difficulty.STANDARD,
    setup: Setup | None = None,
    budget: float = 2.0,
    max_turns: int = 80,
) -> GameResult:
    """One game of ``bot`` on the setup and deal of ``seed`` (generated by
    ``generators.generate_setup`` unless ``setup`` is given). Deterministic for
    a seed (up to the time budget of the hint bot)."""
    b = make_bot(bot, budget=budget) if isinstance(bot, str) else bot
    b.new_game()
    diff = Difficulty(difficulty)
    if setup is None:
        from ..generators import generate_setup

        setup = generate_setup(seed=seed, options=RuleOptions(difficulty=diff))
    state = initial_state(setup, setup.deal, seed=seed)
    rng = random.Random(f"{b.name}:{seed}")
    times: list[float] = []
    cpu: list[float] = []
    last: list[tuple[str, str]] = []
    for _ in range(max_turns):
        if state.is_over:
            break
        t0, c0 = time.perf_counter(), time.thread_time()
        turn = b.choose(state, rng)
        times.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        turn = _legalize(state, turn) if b.repaired else turn
        last = (last + [(format_state(state), format_turn(turn))])[-KEEP_LAST:]
        state = apply_turn(state, turn)
    return GameResult(
        bot=b.name,
        seed=seed,
        difficulty=diff.value,
        won=state.outcome.status is Status.WON,
        turns=state.turn,
        reason=str(state.outcome),
        decision_seconds=times,
        decision_cpu_seconds=cpu,
        predictions=list(b.predictions),
        raw=list(getattr(b, "raw", [])),
        last=last,
    )
