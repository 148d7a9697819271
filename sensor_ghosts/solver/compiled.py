"""The solver's compiled kernels, made ready before any clock starts.

Numba compiles a kernel (``relaxed_kernel.search`` and ``static_table``,
``grid_kernel.next_grids``) at its first call in a process: it loads it from
Numba's cache, or, the first time after an install or a change of the code,
compiles it, which takes far longer (docs/SOLVER-HISTORY.md has the times). Made
inside a solve, that first call would spend the caller's time limit: on a
fresh install ``verify --timeout 5`` answered 'unknown' after compiling for
many times its limit. ``load_for`` makes
the first calls on the instance at hand, before the caller starts its clock,
and says on standard error what is happening when it takes long. It makes
them holding a lock between processes (``one_process_at_a_time``), since
processes compiling and caching the same kernel at once can crash one another.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from ..rules.geometry import EARTH, Direction
from ..rules.options import RuleOptions
from ..rules.state import GameState
from . import relaxed_kernel
from .grid_kernel import CompiledGridTurns
from .model import FLY, SHIP, Model
from .relaxed import SEARCHES, search_args
from .search import Heuristic
from .split import grid_key

# Seconds of loading after which the notice is shown: a load from Numba's
# cache takes about half a second, a compile about a minute.
NOTICE_AFTER = 2.0
KERNELS = ("static_table", "search", "next_grids")
# Processes compiling and caching the same kernel at once can crash one
# another (numba/numba#4807; seen in this project's parallel test runs), so
# a process makes its kernels holding this lock (``one_process_at_a_time``):
# after an install the first compiles them into Numba's cache, and the others
# then load them from it.
LOCK_PATH = Path(tempfile.gettempdir()) / "sensor-ghosts-kernels.lock"
LOCK_WAIT = 600.0  # seconds; past them a process goes on unlocked (a compile takes about a minute)
_ready: set[str] = set()  # those called once in this process (the relaxed
# search by its name in ``SEARCHES``: compiled apart per game)
_search_of: dict[RuleOptions, str] = {}  # the relaxed search a game's rules take


def tty_notice() -> None:
    """The notice on standard error, a terminal or not: with the output piped
    a minute's wait must not go unexplained either (issue 33). It comes only
    after ``NOTICE_AFTER`` seconds, so a load from the cache says nothing."""
    sys.stderr.write("sensor-ghosts: compiling the solver's kernels (once after an install; about a minute)...\n")
    sys.stderr.flush()


def load_for(state: GameState, notice: Callable[[], None] | None = tty_notice) -> float:
    """Call once each compiled kernel that solving ``state`` uses (in open
    mode, whose models the other modes' plans come from too), unless this
    process already has; ``notice`` is called if that takes more than
    ``NOTICE_AFTER`` seconds. Returns the seconds it took (0.0 when all
    were ready before), for a caller whose clock already runs."""
    options = state.setup.options
    if set(KERNELS) <= _ready and _search_of.get(options) in _ready:
        return 0.0
    t0 = time.perf_counter()
    model = Model(state, "open")
    search_key = _search_of[options] = SEARCHES[search_args(model)]
    h_needed = not {"static_table", search_key} <= _ready
    grid_needed = "next_grids" not in _ready and CompiledGridTurns.applies(model)
    if not (h_needed or grid_needed):
        return time.perf_counter() - t0
    timer = threading.Timer(NOTICE_AFTER, notice) if notice is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        with one_process_at_a_time():
            root = model.root_state()
            if h_needed:
                relaxed = Heuristic(model).relaxed  # its table with every row free: ``static_table``
                if relaxed is not None:  # (None: a model without the relaxed game, ``relaxed.applies``)
                    relaxed.load_tables()
                    _ready.add("static_table")
                    if root[SHIP] != EARTH:  # (else no search is made)
                        _ready.update(relaxed.load_searches(root))
                    # The searches' clock, compiled in each process at its
                    # first run (``relaxed_kernel.clock``; docs/SOLVER.md,
                    # "Fifteenth session").
                    relaxed_kernel.clock()
            if grid_needed:
                CompiledGridTurns(model).nexts(grid_key(root), (FLY, Direction.RIGHT))
                _ready.add("next_grids")
    finally:
        if timer is not None:
            timer.cancel()
    return time.perf_counter() - t0


@contextmanager
def one_process_at_a_time() -> Iterator[None]:
    """Hold ``LOCK_PATH`` (a lock between processes, which the operating
    system frees when its holder dies) for the block; where it cannot be
    had (no such file can be made, or ``LOCK_WAIT`` passes), go on without
    it, as before there was one."""
    lock = FileLock(LOCK_PATH, timeout=LOCK_WAIT)
    try:
        lock.acquire()
        held = True
    except (Timeout, OSError):
        held = False
    try:
        yield
    finally:
        if held:
            lock.release()
