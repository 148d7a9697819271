"""Pattern sets of a row's lazy re-scan flips (``model``'s module docstring).

A pattern is a 5-bit mask (bit j: card j of the row, in its order at the
start, turned over relative to the start); a *set* of patterns is a 32-bit
integer, bit m set when pattern m is in it."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

FULL = (1 << 32) - 1
# A_LOW[j]: the set (as a 32-bit int) of patterns whose bit j is clear.
A_LOW = [sum(1 << m for m in range(32) if not (m >> j) & 1) for j in range(5)]
# _COLUMNS[rot][p]: the columns (1-5) of the cards pattern p turns over in a
# row shifted ``rot`` places left since the start (a table: a re-scan's
# columns are asked for once per outcome).
_COLUMNS = tuple(tuple(frozenset((j - rot) % 5 + 1 for j in range(5) if (p >> j) & 1) for p in range(32))
                 for rot in range(5))


def pattern_columns(rot: int, p: int) -> frozenset[int]:
    """The columns (1-5) of the cards flip pattern ``p`` turns over, in a
    row shifted ``rot`` places left since the start."""
    return _COLUMNS[rot % 5][p]


def xor_set(s: int, j: int) -> int:
    """The pattern set with bit ``j`` toggled in every pattern."""
    k = 1 << j
    lo = A_LOW[j]
    return ((s & lo) << k) | ((s >> k) & lo)


def xor_mask_set(s: int, p: int) -> int:
    for j in range(5):
        if (p >> j) & 1:
            s = xor_set(s, j)
    return s


def members(s: int) -> list[int]:
    out = []
    while s:
        low = s & -s
        out.append(low.bit_length() - 1)
        s ^= low
    return out


@lru_cache(maxsize=1024)
def flip_masks(candidates: tuple[int, ...], k: int) -> tuple[int, ...]:
    """Every choice of ``k`` of the ``candidates`` slots, as slot masks (shared
    between rows and instances: only the slots matter)."""
    return tuple(sum(1 << j for j in combo) for combo in combinations(candidates, k))

