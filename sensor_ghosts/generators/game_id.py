"""Game IDs, in the spirit of Simon Tatham's puzzles' ``params#seed``.

Grammar::

    ID      = PARAMS "#" SEED
    PARAMS  = PLAYERS "p-" DIFFICULTY ("-" FLAG)* ("-cards." HASH)? ("+" CONSTRAINT)*
    SEED    = decimal digits (a non-negative integer)

e.g. ``1p-standard#12345``, ``2p-advanced-pod-lowmem#7``,
``1p-standard+reachable#99``. ``FLAG`` is a short code of a §12 rule option
(:data:`FLAG_CODES`; the long option names are accepted too), ``CONSTRAINT`` the
name of a ready-made layout constraint, ``HASH`` the first 8 hex digits of a
custom sector card set's fingerprint (:func:`card_set_fingerprint`); the default
set has none. The parts are written in a canonical order, so a setup's ID is
unique. The ID regenerates the setup exactly with the default policy
(:func:`~.generate.setup_from_id`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from ..rules.cards import SectorCardSet
from ..rules.options import FLAG_NAMES, Difficulty, RuleOptions
from .constraints import NAMED_CONSTRAINTS
from .errors import GameIdError

FLAG_CODES: dict[str, str] = {
    "escape-pod": "pod",
    "low-memory": "lowmem",
    "second-action": "second",
    "reveal-once": "reveal",
    "no-memory-cubes": "nocubes",
    "two-samples": "twosamples",
    "flip-one": "flipone",
    "pod-once-per-turn": "podonce",
    "helpers-once-per-turn": "helpersonce",
    "earth-in-row-7": "earthrow7",
}
"""Short code in IDs of each boolean rule option (keys as in ``FLAG_NAMES``)."""

_CODE_TO_FLAG = {code: flag for flag, code in FLAG_CODES.items()}
_SEED_RE = re.compile(r"[0-9]{1,30}")
_HASH_RE = re.compile(r"[0-9a-f]{8}")


def card_set_fingerprint(cards: SectorCardSet) -> str:
    """8 hex digits identifying a sector card set by its cards (id, front, back),
    independent of its name."""
    text = "\n".join(f"{c.id} {c.pair}" for c in sorted(cards.cards, key=lambda c: c.id))
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:8]


_DEFAULT_FINGERPRINT: list[str] = []


def _default_fingerprint() -> str:
    if not _DEFAULT_FINGERPRINT:
        _DEFAULT_FINGERPRINT.append(card_set_fingerprint(SectorCardSet.default()))
    return _DEFAULT_FINGERPRINT[0]


@dataclass(frozen=True)
class GameId:
    seed: int
    options: RuleOptions = field(default_factory=RuleOptions)
    constraints: tuple[str, ...] = ()
    """Names of ready-made constraints, sorted."""
    cards: str | None = None
    """Fingerprint of a custom sector card set; None for the default set."""

    def __str__(self) -> str:
        return format_game_id(self)


def format_game_id(gid: GameId) -> str:
    o = gid.options
    parts = [f"{o.players}p", o.difficulty.value]
    parts += [FLAG_CODES[f] for f in o.flags()]
    if gid.cards is not None:
        parts.append(f"cards.{gid.cards}")
    params = "-".join(parts) + "".join(f"+{c}" for c in sorted(gid.constraints))
    return f"{params}#{gid.seed}"


def make_game_id(
    seed: int,
    options: RuleOptions,
    constraints: tuple[str, ...] = (),
    sector_cards: SectorCardSet | None = None,
) -> GameId:
    fp = None
    if sector_cards is not None:
        fp = card_set_fingerprint(sector_cards)
        if fp == _default_fingerprint():
            fp = None
    return GameId(seed, options, tuple(sorted(constraints)), fp)


def parse_game_id(text: str) -> GameId:
    """Parse an ID; a :class:`GameIdError` names the bad part."""
    raw = text
    if text != text.strip() or not text:
        # A setup's id is written back as it is read: no outer spaces ([issue 33]).
        raise GameIdError(raw, raw, "an ID has no outer spaces (and is not empty)")
    if text.count("#") != 1:
        part = text if "#" not in text else text[text.index("#", text.index("#") + 1) :]
        raise GameIdError(raw, part, "an ID is PARAMS#SEED with exactly one '#'")
    params, seed_s = text.split("#")
    if not _SEED_RE.fullmatch(seed_s):
        raise GameIdError(raw, seed_s, "the seed must be a non-negative whole number")
    seed = int(seed_s)
    base, *cons = params.split("+")
    for c in cons:
        if c not in NAMED_CONSTRAINTS:
            raise GameIdError(raw, c, f"unknown constraint (known: {', '.join(NAMED_CONSTRAINTS)})")
    if len(set(cons)) != len(cons):
        raise GameIdError(raw, "+".join(cons), "a constraint is repeated")
    tokens = base.split("-")
    if len(tokens) < 2:
        raise GameIdError(raw, base, "expected at least PLAYERSp-DIFFICULTY, e.g. 1p-standard")
    m = re.fullmatch(r"([1-4])p", tokens[0])
    if not m:
        raise GameIdError(raw, tokens[0], "players must be 1p, 2p, 3p or 4p")
    players = int(m.group(1))
    try:
        difficulty = Difficulty(tokens[1])
    except ValueError:
        raise GameIdError(
            raw, tokens[1], f"unknown difficulty (use {', '.join(d.value for d in Difficulty)})"
        ) from None
    flags: list[str] = []
    cards: str | None = None
    rest = tokens[2:]
    i = 0
    while i < len(rest):
        tok = rest[i]
        if tok.startswith("cards."):
            fp = tok[len("cards.") :]
            if not _HASH_RE.fullmatch(fp):
                raise GameIdError(raw, tok, "a card-set fingerprint is 8 lower-case hex digits")
            if cards is not None:
                raise GameIdError(raw, tok, "a second card-set fingerprint")
            cards = fp
            i += 1
            continue
        # Long option names contain '-': try joining with the following tokens
        # first, longest first ('pod-once-per-turn' is not 'pod' and the rest).
        flag = None
        for j in range(len(rest), i + 1, -1):
            cand = "-".join(rest[i:j])
            if cand in FLAG_NAMES:
                flag, i = cand, j - 1
                break
        if flag is None:
            flag = _CODE_TO_FLAG.get(tok)
        if flag is None:
            raise GameIdError(
                raw, tok, f"unknown rule option (use {', '.join(FLAG_CODES.values())})"
            )
        if flag in flags:
            raise GameIdError(raw, tok, "a rule option is repeated")
        flags.append(flag)
        i += 1
    options = RuleOptions(players=players, difficulty=difficulty).with_flags(flags)
    return GameId(seed, options, tuple(sorted(cons)), cards)


def is_game_id(text: str | None) -> bool:
    """Whether ``text`` is a game ID the generator reads (``generate --id``
    gives its setup again): what a page's footer tells the reader."""
    if not text:
        return False
    try:
        parse_game_id(text)
    except GameIdError:
        return False
    return True
