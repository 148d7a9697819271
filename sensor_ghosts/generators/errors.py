"""Errors of the setup generator. Each is a :class:`SensorGhostsError`."""

from __future__ import annotations

from ..rules.errors import SensorGhostsError


class UnsafeDealError(SensorGhostsError):
    """A deal whose rows 2..7 cannot all be made safe by setup step 4 ([D7]):
    the grid holds fewer E/B fronts (start cards excluded) than there are rows
    to make safe. ``safe_fronts`` is that count, ``unsafe_rows`` the rows with no
    E/B front as dealt."""

    def __init__(self, safe_fronts: int, unsafe_rows: tuple[int, ...]):
        self.safe_fronts = safe_fronts
        self.unsafe_rows = unsafe_rows
        rows = ", ".join(str(r) for r in unsafe_rows)
        super().__init__(
            f"deal cannot be made safe: only {safe_fronts} E/B front(s) outside the start "
            f"cards for rows 2..7 (unsafe as dealt: row {rows}) [D7]"
        )


class NoLegalChoiceError(SensorGhostsError):
    """A choice point (sample placement, removal) has no legal choice under the
    rules and the caller's constraints."""

    def __init__(self, what: str, constraints: tuple[str, ...] = ()):
        self.what = what
        self.constraints = constraints
        extra = f" under constraints {', '.join(constraints)}" if constraints else ""
        super().__init__(f"no legal {what}{extra}")


class GameIdError(SensorGhostsError, ValueError):
    """A game ID that does not parse. ``part`` quotes the bad part."""

    def __init__(self, game_id: str, part: str, reason: str):
        self.game_id = game_id
        self.part = part
        self.reason = reason
        super().__init__(f"bad game ID {game_id!r}: {part!r}: {reason}")


class GenerationFailedError(SensorGhostsError):
    """Filtered generation found fewer than ``wanted`` setups that every filter
    accepts (``found`` of them) within ``max_attempts`` seeds."""

    def __init__(self, seed: int, max_attempts: int, rejected_by: dict[str, int],
                 *, wanted: int = 1, found: int = 0):
        self.seed = seed
        self.max_attempts = max_attempts
        self.rejected_by = dict(rejected_by)
        self.wanted = wanted
        self.found = found
        why = ", ".join(f"{name}: {n}" for name, n in rejected_by.items()) or "none"
        what = "no accepted setup" if wanted == 1 else f"{found} of {wanted} setups accepted"
        super().__init__(
            f"{what} in {max_attempts} attempt(s) from seed {seed} (rejections by filter: {why})"
        )
