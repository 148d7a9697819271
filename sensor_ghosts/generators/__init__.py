"""Setup generator (RULES.md §3): faithful random setups from a seed, min-swap row
safety ([D7]), constrained sample placement and removal ([D8]), policies for the
setter's choices, aimed generation with filters, and game IDs (``params#seed``).
"""

from .constraints import (
    NAMED_CONSTRAINTS,
    NO_SAMPLE_ON_OBSTRUCTED,
    REMOVE_ONLY_ASTEROIDS,
    SAMPLES_REACHABLE,
    Constraint,
    predicate,
    removal_cells,
    sample_cells,
)
from .errors import GameIdError, GenerationFailedError, NoLegalChoiceError, UnsafeDealError
from .game_id import GameId, format_game_id, is_game_id, parse_game_id
from .generate import (
    SetupFilter,
    derive_seed,
    generate_aimed,
    generate_setup,
    generate_traced,
    iter_accepted,
    iter_setups,
    setup_from_id,
)
from .placement import LayoutProblem
from .policy import FirstChoicePolicy, Policy, UniformPolicy
from .row_safety import Swap, min_swaps, optimal_swap_plans

__all__ = [
    "NAMED_CONSTRAINTS",
    "NO_SAMPLE_ON_OBSTRUCTED",
    "REMOVE_ONLY_ASTEROIDS",
    "SAMPLES_REACHABLE",
    "Constraint",
    "FirstChoicePolicy",
    "GameId",
    "GameIdError",
    "GenerationFailedError",
    "LayoutProblem",
    "NoLegalChoiceError",
    "Policy",
    "SetupFilter",
    "Swap",
    "UniformPolicy",
    "UnsafeDealError",
    "derive_seed",
    "format_game_id",
    "generate_aimed",
    "generate_setup",
    "generate_traced",
    "iter_accepted",
    "iter_setups",
    "min_swaps",
    "optimal_swap_plans",
    "parse_game_id",
    "is_game_id",
    "predicate",
    "removal_cells",
    "sample_cells",
    "setup_from_id",
]
