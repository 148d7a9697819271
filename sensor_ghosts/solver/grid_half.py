"""The card search's grid half (``split``'s module docstring): a grid
state's turns, worked out once per grid, pay class and pod move, and which of
them can still be part of a win at exactly turn T."""

from __future__ import annotations

from ..rules.geometry import EARTH, Direction
from .grid_kernel import CompiledGridTurns, pod_step
from .model import FLY, HANDS, PEEK, PEND, POD, SCAN, SHIELDS, SHIP, Model, pay_class
from .relaxed import RelaxedBound
from .search import Heuristic, pod_actions

# The card half of a state that stands for its grid only (the bounds and
# ``Model.grid_moves`` read no card).
NO_CARDS = ((), (), (), None, False, 0)
# The pay class of a turn whose active player holds no card (§9).
SKIP = ("skip", None)
# The Peeks' pay classes' shared entry in ``GridHalf.nexts``' tables.
ANY_PEEK = (PEEK, None)
# (Pay class, pod move) of every kind of turn whatever pays for it, without
# the escape pod (``GridHalf.may_win``): a Fly each way, a Peek (one entry
# for all four), a Deep Scan, Shields and the turn of a player without cards.
# The cheap ones first: a Deep Scan's turns are the dearest to work out.
EVERY_KEY = (*(((FLY, d), None) for d in (Direction.UP, Direction.RIGHT, Direction.LEFT, Direction.DOWN)),
             (ANY_PEEK, None), ((SHIELDS, None), None), (SKIP, SKIP), (SCAN, None))


def grid_key(st: tuple) -> tuple:
    """A model state's grid half: its first seven fields and pending flips."""
    return st[:HANDS] + (st[PEND],)


def as_state(gk: tuple, cards: tuple) -> tuple:
    """The model state of grid half ``gk`` and card half ``cards`` (hands,
    deck, discard pile, heading, second pass, active player)."""
    return (*gk[:HANDS], *cards, gk[HANDS])


def without_pod(gk: tuple) -> tuple:
    """Grid half ``gk`` with the escape pod taken off the grid."""
    return (*gk[:POD], None, *gk[POD + 1:])


def next_grids(end: tuple | None) -> list[tuple | None]:
    """The grids a turn's grid end (``Model._grid_end``) leads to; None: a win."""
    if end is None:
        return []
    won, data = end
    if won:
        return [None]
    return [grid + (pend,) for grid, pend, _cols, _ops in data]


def _pod_may_fit(at: tuple[int, int] | None, move: tuple, left: int) -> bool:
    """False only when the escape pod at ``at``, moved by ``move``
    (``Model.pod_move``: direction, steps), cannot reach Earth in the
    ``left`` turns after (``search.pod_actions``, the bound the next grids'
    checks read). Only a step up raises its row, a step off the grid ends
    its move ([D19]), and shifts move it along its row ([D17]); across row 7
    a shift may bring it within reach of Earth, so moves there always may."""
    if at is None or at == EARTH or at[0] == 7:
        return True
    dr, _dc, steps = pod_step(move)
    return pod_actions((min(7, at[0] + steps * max(dr, 0)), 1)) <= left


class GridHalf:
    """The grid half: every grid state's turns, worked out once, and which of
    them can still lead to a win at exactly turn T."""

    def __init__(self, model: Model, turns: int, heuristic: Heuristic | None):
        self.m = model
        self.T = turns
        self.h = heuristic or Heuristic(model)
        self._live: dict[tuple, dict] = {}
        self._bound: dict[tuple, int] = {}
        self._fit: dict[tuple, bool] = {}
        self._scan_fit: dict[tuple, bool] = {}
        self._ship_fit: dict[tuple, int] = {}
        self._may_win: dict[tuple[int, int], bool] = {}
        # A grid is a big tuple, slow to hash, so the card search keys its
        # nodes by a small id given once per grid (``grid_id``).
        self.grids: list[tuple] = []
        self._ids: dict[tuple, int] = {}
        # The grid's turns compiled (``grid_kernel``) where they apply; made
        # when first asked for (a GridHalf for bounds alone never is).
        self._compiled: CompiledGridTurns | bool = CompiledGridTurns.applies(model)

    def relaxed_bound(self) -> RelaxedBound:
        """The relaxed game, which the heuristic has with one action a turn,
        the only rules a grid half's turn bounds are asked under (``applies``)."""
        relaxed = self.h.relaxed
        assert relaxed is not None, "grid half: no relaxed game (a second action?)"
        return relaxed

    def keep_far_rows(self) -> None:
        """The checks from now on with the relaxed game that keeps the far
        rows (``Heuristic.keep_far_rows``), and those made so far made again
        as they are next asked for: the stronger game may rule out grids the
        other let through. (Emptied in place: the card search holds
        ``_live``.)"""
        self.h.keep_far_rows()
        for known in (self._live, self._bound, self._fit, self._scan_fit, self._ship_fit, self._may_win):
            known.clear()

    def grid_id(self, gk: tuple) -> int:
        """The id of grid ``gk`` (``grids[id]`` is ``gk``)."""
        got = self._ids.get(gk)
        if got is None:
            got = self._ids[gk] = len(self.grids)
            self.grids.append(gk)
        return got

    def _fits(self, nxt: tuple | None, left: int) -> bool:
        """Whether a turn into ``nxt`` (None: a win) with ``left`` turns after
        it may be part of a win at turn T: a win only on the last turn; else
        the next grid's admissible turn bounds fit in the turns left (asked
        once per grid and turn)."""
        if nxt is None or not left:
            return nxt is None and not left
        key = (nxt, left)
        got = self._fit.get(key)
        if got is None:
            st = as_state(nxt, NO_CARDS)
            got = self.h.turns(st) <= left and self.relaxed_bound().within(st, left)
            self._fit[key] = got
        return got

    def may_win(self, gid: int, t: int) -> bool:
        """Whether grid ``gid`` on turn ``t`` (0-based) may still win at
        exactly turn T whatever the cards: some sequence of the grid's turns
        of any pay classes (``EVERY_KEY``) that the checks let through
        (``nexts``) ends in a win on the last turn. Without the escape pod.

        Why it is exact: a plan is a grid path and a card path that agree on
        the pay class turn by turn (module docstring of ``split``), and every
        pay class cards can pay for is among ``EVERY_KEY`` (a Peek's
        direction changes nothing on the grid), so a grid with no such path
        is part of no plan, whoever holds which cards. (The relaxed game's
        checks in ``nexts`` are admissible, so they drop no grid that has
        one.) A slow card search meets such grids again and again, once per
        card state (docs/SOLVER.md, "Twenty-fifth session")."""
        key = (gid, t)
        got = self._may_win.get(key)
        if got is None:
            table = self.live(gid, t)
            got = any(nxt is None or self.may_win(nxt, t + 1)
                      for pc, pod in EVERY_KEY for nxt in self.nexts(table, gid, t, pod, pc))
            self._may_win[key] = got
        return got

    def hinted_class(self, gid: int) -> tuple | None:
        """The pay class of the first turn of a relaxed way a check found
        from grid ``gid`` (``RelaxedBound.way_first``): a Fly towards where
        it took the ship, else Shields if it raised them, else a Deep Scan
        (a credit wait); None when no way is known. Only a hint for the
        order of the card search's commands."""
        hint = self.relaxed_bound().way_first(as_state(self.grids[gid], NO_CARDS))
        if hint is None:
            return None
        (r2, c2), shields = hint
        r, c = self.grids[gid][SHIP]
        if (r2, c2) == (r, c):
            return (SHIELDS, None) if shields else SCAN
        step = ((r2 > r) - (r2 < r), (c2 > c) - (c2 < c))
        return (FLY, Direction(step)) if 0 in step else None

    def scan_may_fit(self, gid: int, left: int) -> bool:
        """Whether a Deep Scan from grid ``gid`` may be followed by a win in
        ``left`` turns: one relaxed search for all of them (most are flips
        and shifts that lead nowhere), ``RelaxedBound.scan_within``."""
        key = (gid, left)
        got = self._scan_fit.get(key)
        if got is None:
            got = self._scan_fit[key] = self.relaxed_bound().scan_within(as_state(self.grids[gid], NO_CARDS), left + 1)
        return got

    def _ship_live(self, gid: int, pc: tuple, left: int) -> int:
        """Which turns of pay class ``pc`` from grid ``gid`` may be part of a
        win at turn T whatever the pod's move: 0 when the same turns with
        the pod taken off the grid (``without_pod``) lead to no win and to
        no next grid that fits (``_fits``) in the ``left`` turns after; else
        the bits of the Deep Scans that do (``CompiledGridTurns.nexts``'
        ``acts``), or -1 (all). A ship at Earth there counts as a win
        (``_pod_free_fits``). No move of the pod after the others leads
        to a grid that fits either, so the card search works out neither
        for each of the pod's moves (with the pod, most of a node's asks;
        most fit nowhere).

        Why it is exact: nothing on the ship's side of a turn reads the pod
        (§10, [D17]: a shift only carries it), but its move may meet cards,
        and a card met is settled. That only takes options away: a pending
        Deep Scan flip it meets is applied there or never ([D23] keeps this
        turn's re-scan off it), a face it meets is known. So every way on
        from a grid after an action and a pod move is a way on from a grid
        the same action leaves without the pod, with no more turns (which
        wins without the pod's arrival as soon as the ship lands); if none
        of those can win within ``left`` turns (the same admissible
        bounds), neither can the other."""
        key = (gid, pc, left)
        got = self._ship_fit.get(key)
        if got is None:
            g0 = without_pod(self.grids[gid])
            kernel = self._kernel()
            by_action = kernel.nexts_by_action(g0, pc) if kernel is not None and pc != SKIP else None
            if by_action is None:
                got = -1 if any(self._pod_free_fits(nxt, left) for nxt in self._next_grids(g0, None, pc)) else 0
            else:
                got = 0
                for nxt, acts in by_action:
                    if self._pod_free_fits(nxt, left):
                        got |= acts
                if got and pc != SCAN:
                    got = -1
            self._ship_fit[key] = got
        return got

    def _pod_free_fits(self, nxt: tuple | None, left: int) -> bool:
        """``_fits`` for a next grid without the pod (``_ship_live``), where
        a ship at Earth counts as won: with the pod it may be waiting there
        for the pod's arrival, this turn or a later one (§10)."""
        return nxt is None or nxt[SHIP] == EARTH or self._fits(nxt, left)

    def turns_needed(self, gk: tuple, left: int) -> int:
        """An admissible bound on the turns grid ``gk`` needs to win, capped
        at ``left + 1`` ("more than ``left``"), worked out once per grid and
        cap. (One action a turn, so the relaxed game is there.)"""
        key = (gk, left)
        got = self._bound.get(key)
        if got is None:
            st = as_state(gk, NO_CARDS)
            got = self.h.turns(st)
            if got <= left:
                relaxed = self.relaxed_bound()
                got = relaxed.turns(st, left + 1)
                if relaxed.timed_out:
                    return min(got, left + 1)  # valid, but weaker than it will be: not kept
            self._bound[key] = got = min(got, left + 1)
        return got

    def ends(self, gk: tuple, pod: tuple | None, only: tuple | None = None,
             scans: bool = True, without: frozenset[tuple] = frozenset()) -> list[tuple[tuple, tuple | None]]:
        """(pay class, grid end: ``Model._grid_end``) of every turn from grid
        ``gk`` (of pay class ``only``, if given; without the Deep Scans if
        not ``scans``, and without the actions in ``without``), the pod
        moving by ``pod``; ``pod`` SKIP: the turn of a player without cards
        (pay class SKIP, §9)."""
        st = as_state(gk, NO_CARDS)
        if pod == SKIP:
            return [(SKIP, self.m.grid_skip(st))]
        return [(pay_class(act), end) for act, end in self.m.grid_moves(st, pod, only, scans, without)]

    def wait_end(self, gk: tuple, pod: tuple | None) -> tuple | None:
        """``Model.wait_end`` of grid ``gk``: the re-scan alone."""
        return self.m.wait_end(as_state(gk, NO_CARDS), pod)

    def live(self, gid: int, t: int) -> dict:
        """(pay class, pod move) -> ``nexts``' answer, as far as asked (one
        table per grid, by its id, and turn)."""
        key = (gid, t)
        got = self._live.get(key)
        if got is None:
            got = self._live[key] = {}
        return got

    def _kernel(self) -> CompiledGridTurns | None:
        """The compiled grid turns, where they apply (made when first asked for)."""
        if self._compiled is True:
            self._compiled = CompiledGridTurns(self.m)
        return self._compiled or None

    def _next_grids(self, gk: tuple, pod: tuple | None, pc: tuple, acts: int = -1) -> list[tuple | None]:
        """The next grids (None: the win) of the turns of pay class ``pc``
        from grid ``gk``, the pod moving by ``pod``, each once, in the order
        met: compiled (``grid_kernel``) where that applies, else from
        ``ends``. ``acts``: the compiled turns may leave out the Deep Scans
        of the bits not set (``_ship_live``; their next grids fit nowhere)."""
        kernel = self._kernel()
        if kernel is not None and pc != SKIP:  # (a skip's pod move is SKIP too)
            got = kernel.nexts(gk, pc, pod, acts)
            if got is not None:
                return got
        moves: dict = {}
        for _pc, end in self.ends(gk, pod, None if pc == SKIP else pc):
            moves.update(dict.fromkeys(next_grids(end)))
        return list(moves)

    def nexts(self, table: dict, gid: int, t: int, pod: tuple | None, pc: tuple) -> list:
        """The ids of the next grids (None: the win) of the turns of pay class
        ``pc`` from grid ``gid`` on turn ``t`` (0-based), the pod moving by
        ``pod``, that may be part of a win at turn T; kept in ``table``
        (``live(gid, t)``). ``pod`` SKIP: the turn of a player without cards
        (pay class SKIP). The grid's turns are worked out, and checked
        against the turns left (``_fits``, relaxed-game searches), only for
        the pay classes asked for: ``fewest_cards`` asks only when a command
        of the class comes up, and most Deep Scans never do."""
        key = (pc, pod)  # as ``payments``' keys
        got = table.get(key)
        if got is None and pc[0] == PEEK and pc != ANY_PEEK:
            # A Peek changes nothing on the grid, whatever its direction: one
            # answer for the four (the pod's move may still differ).
            got = table.get((ANY_PEEK, pod))
            if got is not None:
                table[key] = got
                return got
            got = table[key] = table[(ANY_PEEK, pod)] = self.nexts(table, gid, t, pod, ANY_PEEK)
            return got
        if got is None:
            left = self.T - t - 1  # turns left after this one
            if pc == SCAN and left and not self.scan_may_fit(gid, left):
                got = table[key] = []
                return got
            acts = -1
            if pod is not None and pc != SKIP:
                acts = self._ship_live(gid, pc, left) if _pod_may_fit(self.grids[gid][POD], pod, left) else 0
                if not acts:
                    got = table[key] = []
                    return got
            # Only this pay class's turns are worked out: most classes are
            # never asked for at most grids.
            moves = self._next_grids(self.grids[gid], pod, pc, acts)
            got = table[key] = [None if nxt is None else self.grid_id(nxt)
                                for nxt in moves if self._fits(nxt, left)]
        return got


