"""The whole suite's setup: the solver's compiled kernels made once, before
the test processes start.

With ``-n`` (the README's test command) every process made Numba's kernels
at its first solve, and on a fresh install two processes compiling and
caching the same kernel at once have crashed one of them while it loaded
it (an LLVM abort; pytest-xdist started another and the run went on). Made
first in the process that starts the others, the kernels are then only
loaded from Numba's cache."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return  # (a test process, or a run in one process: nothing to share)
    from sensor_ghosts.generators import generate_setup
    from sensor_ghosts.rules.options import RuleOptions
    from sensor_ghosts.rules.state import initial_state
    from sensor_ghosts.solver import compiled

    # The plain game's searches and tables, and the second action's search:
    # every kernel ``compiled.KERNELS`` and ``relaxed.SEARCHES`` name.
    for options in (RuleOptions(), RuleOptions(second_action=True)):
        setup = generate_setup(0, options)
        compiled.load_for(initial_state(setup, setup.deal))
