"""The escape pod along a fixed flight plan (RULES.md §10), for expected mode.

A fixed flight plan (``expected.FlightPath``) fixes the ship's side of every
turn: the bolster, the action and its arguments, the re-scan flips. None of
that reads the pod ([D17]: a shifted row only carries it along), so the grid
the pod meets, turn by turn, is the plan's whatever the pod does. The pod's
own move (§10) is the top card's: a Fly card's arrow, else a direction the
player chooses, by the card's movement value. Choosing it as the cards come,
instead of the one move the plan was found with, is still a strategy of
expected mode, and often a much better one: a plan that needs one exact
move from each turn's cards rarely gets it.

``PodTrack`` answers where a move takes the pod on a given turn of the plan,
by the rules engine itself (``rules.engine.execute``, ``rules.movement``,
``rules.rescan``) on the plan's own states with the pod put elsewhere. After
the plan's last turn the ship waits at Earth (§10: Fly no longer moves it)
and the grid stays as it is for turns whose action leaves it so
(``WAITING``): the pod may still catch up there, cards and deck allowing.
"""

from __future__ import annotations

from ..rules.engine import execute
from ..rules.geometry import EARTH, Direction, Pos
from ..rules.movement import move_pod
from ..rules.rescan import rescan
from ..rules.state import ONGOING, GameState, Status
from ..rules.turns import Turn
from .model_state import FLY, PEEK, SHIELDS

# ``PodTrack.after``'s answer when the turn wins the game (the ship and the
# pod both at Earth); None: the pod was destroyed.
WON = "won"

# The pay classes of a turn spent waiting at Earth for the pod: actions that
# leave the grid as it is (a waiting ship's Fly does not move it, §10).
WAITING = frozenset({*((FLY, d) for d in Direction), *((PEEK, d) for d in Direction), (SHIELDS, None)})


class PodTrack:
    """Where the pod goes on each turn of a fixed flight plan.

    ``states``: the plan's states as the rules engine replays them (the
    start, then after each turn; ``Plan.replay``), ``turns`` its turns.
    Turns ``len(turns)`` and after are ``WAITING`` turns, the ship at Earth."""

    def __init__(self, states: list[GameState], turns: list[Turn]):
        # (A second action moves the pod twice a turn: not covered.)
        assert all(t.second is None for t in turns) and states[-1].ship == EARTH
        self.states = states
        self.turns = turns
        self._memo: dict[tuple, Pos | str | None] = {}
        self._arrives: dict[tuple, int] = {}
        # The grid the waiting ship leaves as it is, the game not over.
        self._waiting = states[-1].evolve(outcome=ONGOING)

    def turns_to_arrive(self, i: int, pod: Pos, last: int, moves: tuple) -> int:
        """The fewest turns from turn ``i`` (0-based) on, by ``last`` (waiting
        turns included), in which some of ``moves`` (or no move) bring the pod
        to Earth with the ship; ``last - i + 2`` when none do. The moves are
        what any cards could pay for, so where the pod cannot arrive by this,
        it is too far behind whatever is drawn."""
        key = (i, pod, last)
        got = self._arrives.get(key)
        if got is None:
            got = last - i + 2
            for move in (None, *moves):
                pod1 = self.after(i, pod, move)
                if pod1 == WON:
                    got = 1
                    break
                if isinstance(pod1, tuple) and i < last:
                    got = min(got, 1 + self.turns_to_arrive(i + 1, pod1, last, moves))
            self._arrives[key] = got
        return got

    def after(self, i: int, pod: Pos | None, move: tuple | None) -> Pos | str | None:
        """The pod's place after turn ``i`` (0-based) of the plan, from ``pod``
        before it, when the turn's top card moves it by ``move`` ((direction,
        steps), ``Model.pod_move``; None: no move, as on a turn without a
        command). ``WON`` when the turn wins, None when the pod is destroyed."""
        assert pod is not None and pod != WON
        key = (i, pod, move)
        if key not in self._memo:
            self._memo[key] = self._after(i, pod, move)
        return self._memo[key]

    def _after(self, i: int, pod: Pos, move: tuple | None) -> Pos | str | None:
        if i >= len(self.turns):
            state = self._waiting.evolve(pod=pod)
            flipped: frozenset[int] = frozenset()
            turn = None
        else:
            turn = self.turns[i]
            state = self.states[i]
            state = state.evolve(pod=pod, shields=min(2, state.shields + turn.bolster),
                                 held=state.held - turn.bolster)
            flipped = frozenset()
            if turn.command is not None:
                state, flipped = execute(state, turn.command, flipped, pod_moves=False)
        if state.outcome.status is Status.ONGOING and move is not None:
            state = move_pod(state, move[0], move[1])
        if state.outcome.status is Status.WON:
            return WON
        if state.outcome.status is Status.LOST:
            return None
        if turn is not None:
            state = rescan(state, turn.rescan, flipped)  # (the draw before it leaves the grid alone)
        assert state.pod is not None
        return state.pod
