"""The setup generator: RULES.md §3 steps 1-14 from a seed.

All chance comes from one ``random.Random(seed)``, in a fixed order: the sector
card shuffle (step 2), the row-safety plan (step 4, a choice), the sample cells
(step 9, a choice), the sample token shuffle (step 9, chance), the removals
(step 10, a choice), the command deal (steps 12-14, [D22]). Choices go through
the :class:`~.policy.Policy`. No set or dict order and no ``hash()`` feeds the
generator, so a seed gives the same setup on every machine and Python >= 3.10.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from ..rules.cards import CommandCardSet, SectorCardSet, Side
from ..rules.errors import InvalidArgumentError
from ..rules.geometry import COLS, ROWS
from ..rules.notation import canonical_ids
from ..rules.options import RuleOptions
from ..rules.setup import Gap, Sample, Setup, Slot
from ..rules.state import random_deal
from .constraints import Constraint, constraint_by_name
from .deal import CardGrid, deal_cards, index_of
from .errors import GameIdError, GenerationFailedError
from .game_id import GameId, make_game_id, parse_game_id
from .placement import SAMPLE_ROWS, LayoutProblem
from .policy import DEFAULT_POLICY, Policy
from .row_safety import apply_plan, optimal_swap_plans

BACKENDS = ("python", "constraint")
"""``python``: plain-Python enumeration (fast). ``constraint``: CP-SAT for row
safety and python-constraint for placement/removal. Both give the same setup."""

VIRUS_SAMPLES = 3
ROCK_SAMPLES = 2


def sample_tokens() -> list[Sample]:
    """The 5 tokens: ids 1-3 virus, 4-5 rock."""
    return [Sample(i + 1, i < VIRUS_SAMPLES) for i in range(VIRUS_SAMPLES + ROCK_SAMPLES)]


@dataclass(frozen=True)
class Trace:
    """What the generator did, for tests and benchmarks."""

    swaps: tuple
    optimal_plans: int
    samples: tuple
    removals: tuple


def _build(
    seed: int,
    options: RuleOptions,
    sector_cards: SectorCardSet,
    command_cards: CommandCardSet,
    policy: Policy,
    constraints: tuple[Constraint, ...],
    backend: str,
    with_deal: bool,
    game_id: str | None,
) -> tuple[Setup, Trace]:
    if backend not in BACKENDS:
        raise InvalidArgumentError(f"unknown backend {backend!r} (use {' or '.join(BACKENDS)})")
    rng = random.Random(seed)
    # Steps 1-2.
    cards: CardGrid = deal_cards(rng, sector_cards)
    # Step 4 [D7].
    plans = optimal_swap_plans(cards, backend="python" if backend == "python" else "cpsat")
    plan = policy.choose_swaps(plans, rng)
    if plan:
        cards = apply_plan(cards, plan)
    # Steps 9-10 [D8].
    problem = LayoutProblem(cards, constraints, backend="python" if backend == "python" else "csp")
    samples = tuple(policy.choose_samples(problem, rng))
    tokens = sample_tokens()
    rng.shuffle(tokens)  # which token lands where is chance, not a choice
    removals = tuple(policy.choose_removals(problem, samples, rng))
    on = {pos: tok for pos, tok in zip(samples, tokens, strict=True)}
    gone = set(removals)
    rows = []
    for r in range(1, ROWS + 1):
        row: list[Gap | Slot] = []
        for c in range(1, COLS + 1):
            card = cards[index_of((r, c))]
            if (r, c) in gone:
                row.append(Gap(card))  # [D26] the gap remembers its card
            else:
                row.append(Slot(card, Side.FRONT, on.get((r, c))))
        rows.append(tuple(row))
    setup = Setup(
        # Ids in reading order: the setup's text then needs no '#id' marks.
        grid=canonical_ids(tuple(rows), sector_cards),
        options=options,
        sector_cards=sector_cards,
        command_cards=command_cards,
        id=game_id,
    )
    if with_deal:
        setup = replace(setup, deal=random_deal(setup, rng))  # [D22]
    return setup, Trace(plan, len(plans), samples, removals)


def _constraints(constraints: Sequence[Constraint | str]) -> tuple[Constraint, ...]:
    return tuple(constraint_by_name(k) if isinstance(k, str) else k for k in constraints)


def _id_for(seed, options, constraints, sector_cards, policy) -> str | None:
    if type(policy) is not Policy or any(not k.named for k in constraints):
        return None  # an ID regenerates only the default policy and named constraints
    return str(make_game_id(seed, options, tuple(k.name for k in constraints), sector_cards))


def new_seed() -> int:
    """A fresh seed for a caller that gave none (recorded in the setup's ID)."""
    return secrets.randbelow(10**9)


def generate_setup(
    seed: int | None = None,
    options: RuleOptions | None = None,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    policy: Policy | None = None,
    constraints: Sequence[Constraint | str] = (),
    backend: str = "python",
    with_deal: bool = True,
) -> Setup:
    """A setup from ``seed`` (RULES.md §3 steps 1-14).

    ``constraints`` narrow sample placement and removal (ready-made ones may be
    given by name). ``Setup.id`` is a game ID that regenerates this setup when the
    default policy and only named constraints were used; else None. Raises
    :class:`~.errors.UnsafeDealError` for a deal that cannot be made safe and
    :class:`~.errors.NoLegalChoiceError` when the constraints leave no choice."""
    return generate_traced(
        seed,
        options,
        sector_cards=sector_cards,
        command_cards=command_cards,
        policy=policy,
        constraints=constraints,
        backend=backend,
        with_deal=with_deal,
    )[0]


def generate_traced(
    seed: int | None = None,
    options: RuleOptions | None = None,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
    policy: Policy | None = None,
    constraints: Sequence[Constraint | str] = (),
    backend: str = "python",
    with_deal: bool = True,
) -> tuple[Setup, Trace]:
    """:func:`generate_setup` and a :class:`Trace` of the choices made."""
    if seed is None:
        seed = new_seed()
    if isinstance(seed, bool) or not isinstance(seed, int):
        hint = " (a game ID goes to setup_from_id)" if isinstance(seed, str) and "#" in seed else ""
        raise InvalidArgumentError(f"seed must be a non-negative whole number, got {seed!r}{hint}")
    if seed < 0:
        raise InvalidArgumentError(f"seed must be a non-negative whole number, got {seed}")
    options = options or RuleOptions()
    sector_cards = sector_cards or SectorCardSet.default()
    command_cards = command_cards or CommandCardSet.default()
    policy = policy or DEFAULT_POLICY
    cons = _constraints(constraints)
    gid = _id_for(seed, options, cons, sector_cards, policy)
    return _build(seed, options, sector_cards, command_cards, policy, cons, backend, with_deal, gid)


def setup_from_id(
    game_id: str | GameId,
    *,
    sector_cards: SectorCardSet | None = None,
    command_cards: CommandCardSet | None = None,
) -> Setup:
    """Regenerate the setup a game ID names. An ID naming a custom card set needs
    that set passed as ``sector_cards`` (checked against the fingerprint)."""
    gid = parse_game_id(game_id) if isinstance(game_id, str) else game_id
    text = str(game_id)
    if gid.cards is not None:
        if sector_cards is None:
            raise GameIdError(
                text, f"cards.{gid.cards}", "this ID needs its custom sector card set"
            )
        have = make_game_id(0, gid.options, (), sector_cards).cards
        if have != gid.cards:
            raise GameIdError(
                text,
                f"cards.{gid.cards}",
                f"the card set given has fingerprint {have or 'default'}",
            )
    elif sector_cards is not None and make_game_id(0, gid.options, (), sector_cards).cards:
        raise GameIdError(text, text.split("#")[0], "this ID is for the default sector card set")
    return generate_setup(
        gid.seed,
        gid.options,
        sector_cards=sector_cards,
        command_cards=command_cards,
        constraints=gid.constraints,
    )


# ----- aimed generation ----------------------------------------------------------

Filter = Callable[[Setup], bool]
"""A filter: ``accept(setup) -> bool``. Any callable; an object with an
``accept`` method works too, and a ``name`` attribute labels its rejections."""


class SetupFilter:
    """Base class for filter objects; the generator only needs ``accept``. The
    solver's filter, ``puzzles.SolvedFilter``, subclasses it (in a module above
    both: the generator does not import the solver). Put cheap filters first,
    costly ones (a solver) last."""

    name = "filter"

    def accept(self, setup: Setup) -> bool:  # pragma: no cover - interface
        return True

    def __call__(self, setup: Setup) -> bool:
        return self.accept(setup)


def _filter_name(f, i: int) -> str:
    return getattr(f, "name", None) or getattr(f, "__name__", None) or f"filter{i}"


def _call_filter(f, setup: Setup) -> bool:
    accept = getattr(f, "accept", None)
    return bool(accept(setup) if callable(accept) else f(setup))


def _rejected_by(filters: Sequence[Filter], setup: Setup, counts: dict[str, int]) -> str | None:
    """The name of the first filter (in order) that rejects ``setup``, counted
    in ``counts``; None when all accept. The first rejection stops: the
    filters after it, perhaps costly, do not run."""
    for i, f in enumerate(filters):
        if not _call_filter(f, setup):
            name = _filter_name(f, i)
            counts[name] = counts.get(name, 0) + 1
            return name
    return None


def derive_seed(seed: int, attempt: int) -> int:
    """The seed of attempt ``attempt`` of aimed generation from ``seed``; attempt 0
    is ``seed`` itself. A hash (SHA-256), so it is the same everywhere."""
    if attempt == 0:
        return seed
    digest = hashlib.sha256(f"sensor-ghosts/{seed}/{attempt}".encode("ascii")).digest()
    return int.from_bytes(digest[:5], "big")  # < 2**40: IDs stay short


def generate_aimed(
    seed: int | None = None,
    options: RuleOptions | None = None,
    *,
    filters: Sequence[Filter] = (),
    max_attempts: int = 1000,
    **kwargs,
) -> Setup:
    """The first setup, over seeds ``derive_seed(seed, 0), derive_seed(seed, 1),
    ...``, that every filter accepts (filters run in order; the first rejection
    stops). Its ``id`` names the derived seed, so it regenerates without the
    filters. Raises :class:`~.errors.GenerationFailedError` after
    ``max_attempts`` seeds. Other keyword arguments go to :func:`generate_setup`
    (constraints, policy, card sets, backend)."""
    if max_attempts < 1:
        raise InvalidArgumentError("max_attempts must be at least 1")
    if seed is None:
        seed = new_seed()
    rejected: dict[str, int] = {}
    for attempt in range(max_attempts):
        setup = generate_setup(derive_seed(seed, attempt), options, **kwargs)
        if _rejected_by(filters, setup, rejected) is None:
            return setup
    raise GenerationFailedError(seed, max_attempts, rejected)


def iter_accepted(
    seed: int,
    count: int,
    options: RuleOptions | None = None,
    *,
    filters: Sequence[Filter],
    max_seeds: int,
    skipped: list[int] | None = None,
    **kwargs,
) -> Iterator[Setup]:
    """``count`` setups that every filter accepts, from the seeds ``seed,
    seed + 1, ...`` in turn (not :func:`derive_seed`'s: a batch stays a run of
    seeds, and each setup's ID is its own seed). The seeds of rejected setups
    are appended to ``skipped``. Raises :class:`~.errors.GenerationFailedError`
    when ``max_seeds`` seeds give fewer than ``count``. Lazy: a filter runs
    only when the next setup is asked for. Other keyword arguments go to
    :func:`generate_setup`."""
    if max_seeds < 1:
        raise InvalidArgumentError("max_seeds must be at least 1")
    rejected: dict[str, int] = {}
    found = 0
    for s in range(seed, seed + max_seeds):
        if found == count:
            return
        setup = generate_setup(s, options, **kwargs)
        if _rejected_by(filters, setup, rejected) is None:
            found += 1
            yield setup
        elif skipped is not None:
            skipped.append(s)
    if found < count:
        raise GenerationFailedError(seed, max_seeds, rejected, wanted=count, found=found)


def iter_setups(
    seed: int, count: int, options: RuleOptions | None = None, **kwargs
) -> Iterator[Setup]:
    """``count`` setups from seeds ``seed, seed+1, ...`` (with ``filters=`` each is
    aimed from its own seed)."""
    filters = kwargs.pop("filters", None)
    max_attempts = kwargs.pop("max_attempts", 1000)
    for i in range(count):
        if filters:
            yield generate_aimed(
                seed + i, options, filters=filters, max_attempts=max_attempts, **kwargs
            )
        else:
            yield generate_setup(seed + i, options, **kwargs)


__all__ = [
    "BACKENDS",
    "Filter",
    "SetupFilter",
    "Trace",
    "derive_seed",
    "generate_aimed",
    "generate_setup",
    "generate_traced",
    "iter_accepted",
    "iter_setups",
    "sample_tokens",
    "setup_from_id",
    "SAMPLE_ROWS",
]
