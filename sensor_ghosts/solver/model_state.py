"""The model state's fields and the codes in them: the indices into a model
state tuple, the action kinds, the card kinds and the pay classes
(``model``'s module docstring says what the model is)."""

from __future__ import annotations

from ..rules.cards import CommandKind

# Action kinds in the model (kept as short strings: states are tuples).
FLY, PEEK, FLIP, SHIFT, SHIELDS = "fly", "peek", "flip", "shift", "shields"
# A pending Deep Scan shift in a state's pending entries (``PEND``, after
# the pending flips): this bit, and the rows it may no longer shift
# (``Model.enter_row``).
SHIFT_TAG = 1 << 40
ALL_ROWS = (1 << 7) - 1
# Indices into a model state tuple. (A plain tuple, not a NamedTuple: one
# is built for every successor, and a NamedTuple is slower to build.)
SHIP, POD, SHL, HELD, ROT, MASKS, SAMPLES, HANDS, DECK, DISC, HEAD, PASS2, ACTIVE, PEND = range(14)

KIND_FLY, KIND_DS, KIND_SH, KIND_WILD = 0, 1, 2, 3
KIND_OF_COMMAND = {
    CommandKind.FLY: KIND_FLY,
    CommandKind.DEEP_SCAN: KIND_DS,
    CommandKind.SHIELDS: KIND_SH,
    CommandKind.WILD: KIND_WILD,
}


# The pay class of every Deep Scan, a flip or a shift (``pay_class``).
SCAN = ("scan", None)


def pay_class(act: tuple) -> tuple:
    """What the cards paying for an action see of it: Fly and Peek with their
    direction ([D11] the heading), any Deep Scan (a flip or a shift: the same
    cards pay for each), Shields."""
    kind = act[0]
    if kind in (FLY, PEEK):
        return act
    return SCAN if kind in (FLIP, SHIFT) else (SHIELDS, None)


# A search's root: a model state and how it came about (None: the start as
# given; ("deal", hands): one choice of opening hands, ``Model.open_roots``).
Root = tuple[tuple, "tuple | None"]
