"""``solve``: the solver's entry point (RULES.md §15)."""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from ..rules.geometry import EARTH
from ..rules.setup import Deal, Setup
from ..rules.state import GameState, initial_state, random_deal
from ..rules.validation import check_playable, check_shape
from . import compiled, split
from .expected import solve_expected
from .model import ROT, SAMPLES, SHIP, Model
from .model_state import Root
from .plan import build_plan, dealt_of
from .plan_search import MAX_STATES, search_plan
from .relaxed import takeable_virus_bits, top_row_blocks
from .result import Mode, Objective, SolveResult, SolverInputError, Status
from .search import Heuristic, SearchOutcome, TtyProgress, too_few_samples

MODES = tuple(m.value for m in Mode)
# The decks a slow open-mode search looks for a plan on (``SideSearches``):
# the deck as dealt, then seeded random deals; and the nodes each may take.
# On four players' slowest setups some deck among the first eight had a
# plan of the fewest turns found within 2,100 nodes wherever any had
# (docs/SOLVER.md); where none has, the nodes are lost.
WITNESS_DECKS = 8
WITNESS_NODES = 2_500
OBJECTIVES = tuple(o.value for o in Objective if o is not Objective.PROBABILITY)  # what a caller may ask for


def start_state(instance: Setup | GameState, mode: str, deal: Deal | None) -> tuple[GameState, bool]:
    """The GameState to search from, and whether the solver deals the opening
    hands (open mode from a fresh setup)."""
    if isinstance(instance, GameState):
        if instance.is_over:
            raise SolverInputError(f"the game is over ({instance.outcome})")
        # InvalidStateError for numbers no game reaches (they index the
        # solver's tables). Not the whole of ``check_playable``: the solver
        # also answers hand-made positions (tests, a hint's imagined worlds);
        # the commands check everything before they call it.
        check_shape(instance)
        return instance, False
    if not isinstance(instance, Setup):
        raise SolverInputError(f"cannot solve a {type(instance).__name__}")
    d = deal or instance.deal
    check_playable(instance, d)  # InvalidSetupError: a deal or grid no game has
    if mode == Mode.DEAL:
        if d is None:
            raise SolverInputError("deal mode needs a deal (the deck order and ranking): none given")
        return initial_state(instance, d), False
    # Open / expected: any deal fixes the card set; the solver chooses or averages.
    return initial_state(instance, _deal_of(instance, deal)), True


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block, as it was after.

    A search allocates millions of tuples, so the collector runs often, and
    each full collection walks every container in the process (Numba's
    compiled kernel alone leaves some 90,000), a good part of a solve's
    time (docs/SOLVER-HISTORY.md). The solver
    makes no reference cycles (``tests/solver/test_solver.py`` checks), so
    reference counting frees all it drops and nothing piles up meanwhile."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@cyclic_gc_paused()
def solve(
    instance: Setup | GameState,
    *,
    mode: str = Mode.DEAL,
    deal: Deal | None = None,
    objective: str = Objective.TURNS,
    max_nodes: int | None = None,
    timeout: float | None = None,
    progress: Callable[[dict], None] | None = None,
    max_states: int = MAX_STATES,
    max_turns: int | None = None,
) -> SolveResult:
    """Solve a fully observed instance: a ``Setup`` (with ``deal`` or
    ``setup.deal`` in deal mode) or a mid-game ``GameState``.

    ``mode``: 'deal' (deck order known [D22]), 'open' (the solver picks the
    order), 'expected' (random draws; maximise the win probability: the
    answer is ``win_probability`` when settled, else ``lower``/``upper``, and
    ``method`` says how each was found; no plan).
    ``objective``: 'turns' (fewest turns, then fewest cards, then most cards left),
    'cards' (fewest cards, then fewest turns) or 'turns-only' (fewest turns; the
    first such plan found, its cards not minimised: the optimal number of turns
    and a plan that reaches it, often many times faster than 'turns', whose
    card proof is most of the work; with one action a turn ``split`` makes
    that proof, at the relaxed game's bound on the turns or, when no plan has
    that few, after a 'turns-only' search: ``_split_solve``; in open mode
    with lazy draws 'turns-only' takes the first plan that card search finds
    at that bound). Budgets (``max_nodes``,
    ``timeout`` in seconds, ``max_states``) end the search with status 'unknown'
    and the best bound found. ``max_turns`` limits the plans considered (then
    'unsolvable' means 'not within max_turns'). The first solve in a process
    first loads the compiled kernels (``compiled.load_for``; after an
    install it compiles them), outside ``timeout`` and the
    result's ``seconds``. Every returned plan has been
    replayed through the rules engine. Python's cyclic garbage collector is
    paused while it runs and restored after (``cyclic_gc_paused``).
    ``progress`` is called now and then with the search's figures (a dict:
    nodes, states, open, bound, seconds); None, the default, is silent (the
    commands pass ``search.tty_progress()`` for a line on a terminal, which
    is closed when the search ends)."""
    if mode not in MODES:
        raise SolverInputError(f"unknown mode {mode!r} (use {', '.join(MODES)})")
    if objective not in OBJECTIVES:
        raise SolverInputError(f"unknown objective {objective!r} (use {', '.join(OBJECTIVES)})")
    # A Mode or Objective given becomes its plain string: the model compares
    # them in its inner loops, where exact str compares fastest.
    mode, objective = Mode(mode).value, Objective(objective).value
    start, fresh = start_state(instance, mode, deal)
    compiled.load_for(start)  # before the clock: a first call may compile for a minute
    alone = ship_alone(start)
    if alone is not None:
        compiled.load_for(alone)  # (for ``SideSearches``)
    t0 = time.perf_counter()
    reason = ""
    try:  # (the progress line is closed whatever ends the search)
        if mode == Mode.EXPECTED:
            return solve_expected(start, fresh, max_nodes=max_nodes, timeout=timeout, progress=progress, t0=t0)
        model = Model(start, mode)
        roots = model.search_roots(fresh)
        side = SideSearches(start, alone if objective != Objective.CARDS else None, fresh, mode, objective,
                            _deal_of(instance, deal), t0, timeout, max_nodes, max_states, max_turns)
        out = search_plan(model, roots, objective, t0, timeout, max_nodes, max_states, progress, max_turns,
                          side=side if side.applies() else None)
        out.nodes += side.nodes
        if side.unsolvable is not None:
            reason = "even without the escape pod: " + side.unsolvable
        if side.witness is not None:
            witness_model, witness, witness_deal = side.witness
            witness.nodes = out.nodes
            result = _result(witness_model, witness, instance, witness_deal, Mode.DEAL.value, objective, t0)
            assert result.plan is not None
            result.mode = result.plan.mode = mode  # a deck order that open mode may choose
            return result
    finally:
        if isinstance(progress, TtyProgress):
            progress.end()
    result = _result(model, out, instance, deal, mode, objective, t0)
    if result.status == Status.UNSOLVABLE:
        result.reason = reason or _why_unsolvable(model, roots, out.nodes, max_turns)
    return result


def ship_alone(state: GameState) -> GameState | None:
    """With the escape pod still on its way, the same position without it
    (the variant off, no pod); else None.

    The game without the pod is a relaxation of the game with it: nothing
    the ship meets or plays reads the pod (§10: it flips nothing and moves
    after the ship's action; [D17]: a shifted row carries it with its card),
    and without it the ship wins the moment it lands ([D12]), where with it
    the game may go on for the pod. So every plan with the pod is, turn for
    turn on the same deck order, a plan without it that wins no later: the
    fewest turns without the pod are a lower bound on the fewest with it,
    and a game the ship alone cannot win is lost with the pod too. Without
    the pod's movement values the cards of one kind are alike, so the ship
    alone has far fewer card states to search."""
    if state.pod is None or state.pod == EARTH or state.ship == EARTH:
        return None
    options = replace(state.setup.options, escape_pod=False)
    return replace(state, setup=replace(state.setup, options=options), pod=None)


def _turns_at_least(out: SearchOutcome) -> int:
    """The fewest turns a search showed are needed: its optimum, or the
    bound it got to."""
    if out.status == Status.SOLVED and out.value is not None:
        return int(out.value[0])
    return out.bound or 0


class SideSearches:
    """The searches a slow card search turns to (``split.fewest_cards``'s
    ``when_slow``, after ``split.SLOW_AFTER`` nodes at T turns), each
    answer exact (T is tried only when no plan has fewer turns):

    - with the escape pod, the ship alone (``ship_alone``), searched once:
      its fewest turns are a floor on the fewest with the pod, so above T
      they prove that no plan of T turns exists; where the ship alone
      cannot win, no plan wins (``unsolvable`` says why);
    - in open mode, fewest turns alone: a plan of T turns on one deck
      order, the deck as dealt (``deal``), then (from a fresh setup) seeded
      random deals, up to ``WITNESS_DECKS``, at most ``WITNESS_NODES``
      nodes each. Open mode may choose any deck order, so such a plan is
      one of its optimal plans (``witness``: the model, the search's
      outcome and the deal). Open mode's lazy draws choose among all the
      cards at every draw, a deal mode search only follows the deck, so
      where a deck has a plan of T turns it often finds it far sooner
      (four players' slow setups: docs/SOLVER.md).

    Each has the caller's clock and limits (the ship alone its own
    ``max_nodes``; the decks ``WITNESS_NODES`` each). ``nodes``: what they
    searched."""

    def __init__(self, start: GameState, alone: GameState | None, fresh: bool, mode: str, objective: str,
                 deal: Deal | None, t0: float, timeout: float | None, max_nodes: int | None, max_states: int,
                 max_turns: int | None):
        """``alone``: ``ship_alone(start)`` where its floor is wanted, else None."""
        self.start, self.alone, self.fresh, self.mode = start, alone, fresh, mode
        self.on_deck = mode == Mode.OPEN and objective == Objective.TURNS_ONLY
        self.deal = deal if fresh else None
        self._limits = (t0, timeout, max_nodes, max_states, max_turns)
        self.least: int | None = None  # the ship alone's fewest turns (or bound), once searched
        self.unsolvable: str | None = None
        self.witness: tuple[Model, SearchOutcome, Deal | None] | None = None
        self.nodes = 0
        # One heuristic for every deck: the relaxed game reads only the
        # grid, the ship, the samples and the shields of a state
        # (``RelaxedBound._key``), alike for every deck order of the same
        # setup, so what it learned on one deck holds on the next (without
        # it each deck's first nodes pay fresh relaxed searches).
        self.deck_heuristic: Heuristic | None = None

    def applies(self) -> bool:
        """Whether there is any to turn to."""
        return self.alone is not None or self.on_deck

    def __call__(self, turns: int) -> str:
        t0, timeout, max_nodes, max_states, max_turns = self._limits
        if self.alone is not None and self.least is None:
            model = Model(self.alone, self.mode)
            roots = model.search_roots(self.fresh)
            out = search_plan(model, roots, Objective.TURNS_ONLY.value, t0, timeout, max_nodes, max_states, None,
                              max_turns)
            self.nodes += out.nodes
            if out.status == Status.UNSOLVABLE:
                self.unsolvable = _why_unsolvable(model, roots, out.nodes, max_turns)
                return split.NO_PLAN
            self.least = _turns_at_least(out)
        if self.least is not None and self.least > turns:
            return split.NO_PLAN
        if self.on_deck:
            deadline = None if timeout is None else t0 + timeout
            for deal, state in self._decks():
                model = Model(state, Mode.DEAL.value)
                if self.deck_heuristic is None:
                    self.deck_heuristic = Heuristic(model)
                    if self.deck_heuristic.relaxed is not None:
                        self.deck_heuristic.relaxed.deadline = deadline
                out = split.fewest_cards(model, model.search_roots(False), turns, deadline=deadline,
                                         max_nodes=WITNESS_NODES, max_states=max_states, any_cards=True,
                                         heuristic=self.deck_heuristic)
                self.nodes += out.nodes
                if out.status == Status.SOLVED:
                    self.witness = (model, out, deal)
                    return split.PLAN_ELSEWHERE
        return split.GO_ON

    def _decks(self) -> Iterator[tuple[Deal | None, GameState]]:
        """(deal, its start) for each deck order to look on: the deck as
        dealt (a position's own deck, deal None), then from a fresh setup
        seeded random deals."""
        yield self.deal, self.start
        if self.deal is None:
            return
        for i in range(1, WITNESS_DECKS):
            deal = random_deal(self.start.setup, random.Random(i))
            yield deal, initial_state(self.start.setup, deal)


def _deal_of(instance: Setup | GameState, deal: Deal | None) -> Deal | None:
    """The deal a fresh setup starts from in open and expected mode: the one
    given, else the setup's own, else a fixed random one (None for a
    position: its deck is its own)."""
    if not isinstance(instance, Setup):
        return None
    return deal or instance.deal or random_deal(instance, random.Random(0))


def _why_unsolvable(model: Model, roots: list[Root], nodes: int, max_turns: int | None) -> str:
    """What shows that no plan wins, in a sentence: a fact of the grid where
    the search never left the start (every root's admissible bound infinite),
    else the exhausted search."""
    if max_turns is not None:
        return f"no plan of at most {max_turns} turns wins"
    if nodes:
        return f"every line of play was searched ({nodes} states) and none wins"
    st = roots[0][0]
    if too_few_samples(model, st):
        lost = st[SAMPLES] & model.virus_bits & ~takeable_virus_bits(model)
        if not lost:
            return f"Earth asks for {model.need} virus samples and fewer are held or left on the board"
        cells = [f"({b // 5 + 1},{(b % 5 - st[ROT][b // 5]) % 5 + 1})" for b in range(35) if lost >> b & 1]
        where = (f"the virus token at {cells[0]} lies on a card" if len(cells) == 1 else
                 f"the virus tokens at {', '.join(cells)} lie on cards")
        return (f"Earth asks for {model.need} virus samples and fewer are held or can be taken: "
                f"{where} obstructed on both sides, which destroy the ship")
    if st[SHIP][0] < 7 and top_row_blocks(model):
        return ("no card of row 7 has a side the ship can stop on, and only from row 7 "
                "can it fly into Earth")
    return "no way to Earth even with the command cards set aside (the relaxed game, docs/SOLVER.md)"


def _result(model: Model, out: SearchOutcome, instance: Setup | GameState, deal: Deal | None, mode: str,
            objective: str, t0: float) -> SolveResult:
    """``solve``'s answer from the search's outcome ``out``: the plan built
    and replayed through the rules engine where it found one."""
    plan = None
    turns = cards = None
    if out.status == Status.SOLVED:
        assert out.path is not None
        dealt = dealt_of(out.path)
        d = deal or (instance.deal if isinstance(instance, Setup) else None)
        plan = build_plan(model, out.path, mode, dealt, d if mode == Mode.DEAL else None)
        plan.objective = objective
        plan.replay()  # raises PlanReplayError on a solver bug
        turns = plan.figures.turns
        cards = plan.figures.cards_played
        assert out.value is not None
        assert (turns, cards) == tuple(out.value), (turns, cards, out.value)
    return SolveResult(
        status=out.status, plan=plan, turns=turns, bound=out.bound if out.status == Status.UNKNOWN else turns,
        nodes=out.nodes, seconds=time.perf_counter() - t0, mode=mode, objective=objective,
        cards=cards, stopped=out.stopped,
    )


def solve_staged(
    instance: Setup | GameState,
    *,
    mode: str = Mode.DEAL,
    deal: Deal | None = None,
    timeout: float | None = None,
    progress: Callable[[dict], None] | None = None,
) -> SolveResult:
    """The best plan within ``timeout`` for pages and comments: first the fewest
    turns alone ('turns-only', fast), then the full objective ('turns': fewest
    cards among them) in what is left of the budget. When the second stage does
    not finish, the first stage's result stands; its ``objective`` (and its
    plan's) says 'turns-only'. Deal and open modes. ``progress`` as for
    ``solve`` (None: silent)."""
    compiled.load_for(start_state(instance, mode, deal)[0])  # before the clock, as ``solve``
    t0 = time.perf_counter()
    first = solve(instance, mode=mode, deal=deal, objective=Objective.TURNS_ONLY, timeout=timeout,
                  progress=progress)
    if first.status != Status.SOLVED:
        return first
    left = None if timeout is None else timeout - (time.perf_counter() - t0)
    if left is not None and left <= 0:
        return first
    full = solve(instance, mode=mode, deal=deal, objective=Objective.TURNS, timeout=left, progress=progress,
                 max_turns=first.turns)
    if full.status != Status.SOLVED:
        first.seconds = time.perf_counter() - t0
        return first
    full.seconds = time.perf_counter() - t0
    return full
