"""The text of a turn, as ``str(Turn)`` writes it: ``bolster 1; F1+F2 fly U;
rescan 2,4``."""

from __future__ import annotations

import re

from .cards import CommandKind
from .errors import NotationError
from .geometry import COLS, ROWS, Direction, on_grid
from .notation_reader import At, Tokens, decode, parse_int, split_offsets, tokens
from .state import TOTAL_VIRUS, GameState
from .turns import DECK_PLAYER, Action, ActionKind, Command, PlayedCard, Turn

_TARGET_RE = re.compile(r"([0-9]{1,3}),([0-9]{1,3})")


def format_turn(turn: Turn) -> str:
    """The text of a turn; the same as ``str(turn)``."""
    return str(turn)


def _direction(tok: str, at: At) -> Direction:
    try:
        return Direction.parse(tok)
    except ValueError:
        raise at.error("a direction is U, D, L or R", tok) from None


def _expect(toks: Tokens, i: int, what: str, end: At) -> tuple[str, At]:
    if i >= len(toks):
        raise end.error(f"expected {what}")
    return toks[i]


def _played(cards_tok: str, cat: At, state: GameState) -> list[PlayedCard]:
    """The cards of a '+' list; a bare id names the player who holds it."""
    played: list[PlayedCard] = []
    for piece, offset in split_offsets(cards_tok, "+"):
        pat = cat.shifted(offset)
        if not piece:
            raise pat.error("empty card in a '+' list", cards_tok)
        if piece.startswith("deck:"):
            cid, player = piece[5:], DECK_PLAYER
            if not cid:
                raise pat.error("'deck:' is followed by the card id", piece)
        else:
            cid = piece
            holders = [p for p, h in enumerate(state.hands) if cid in h]
            if not holders:
                raise pat.error("no player holds this card", piece)
            player = holders[0]
        if any(pc.card == cid for pc in played):
            raise pat.error("card listed twice", piece)
        played.append(PlayedCard(cid, player))
    return played


def _action(toks: Tokens, end: At) -> tuple[Action, int]:
    """The action after the cards, and the index of the word after it."""
    word, wat = _expect(toks, 1, "an action (fly, peek, flip, shift or shields)", end)
    if word in ("fly", "peek"):
        dtok, dat = _expect(toks, 2, "a direction (U, D, L or R)", end)
        return Action(ActionKind(word), direction=_direction(dtok, dat)), 3
    if word == "flip":
        ptok, pat = _expect(toks, 2, "a card position row,col", end)
        m = _TARGET_RE.fullmatch(ptok)
        if not m or not on_grid((int(m.group(1)), int(m.group(2)))):
            raise pat.error("a card position is row,col with row 1..7 and col 1..5", ptok)
        return Action(ActionKind.FLIP, target=(int(m.group(1)), int(m.group(2)))), 3
    if word == "shift":
        rtok, rat = _expect(toks, 2, "a row number", end)
        return Action(ActionKind.SHIFT, row=parse_int(rtok, rat, "a row", lo=1, hi=ROWS)), 3
    if word == "shields":
        return Action(ActionKind.SHIELDS), 2
    raise wat.error("unknown action (fly, peek, flip, shift or shields)", word)


def _parse_command(toks: Tokens, state: GameState, end: At) -> Command:
    played = _played(toks[0][0], toks[0][1], state)
    action, i = _action(toks, end)
    arrow = pod_direction = None
    top = played[-1].card
    try:
        top_is_fly = state.setup.command_cards.by_id(top).kind is CommandKind.FLY
    except KeyError:
        top_is_fly = False
    if action.direction is not None and top_is_fly:
        arrow = action.direction  # [D11] a Fly card on top points the action's way
    while i < len(toks):
        tok, tat = toks[i]
        if tok == "arrow" and arrow is None and action.direction is None:
            atok, aat = _expect(toks, i + 1, "a direction after 'arrow'", end)
            arrow = _direction(atok, aat)
        elif tok == "pod" and pod_direction is None:
            ptok, pat = _expect(toks, i + 1, "a direction after 'pod'", end)
            pod_direction = _direction(ptok, pat)
        elif tok == "arrow" and action.direction is not None:
            raise tat.error("a fly/peek action's direction already sets the arrow", tok)
        else:
            raise tat.error("unexpected word (expected 'arrow D', 'pod D' or ';')", tok)
        i += 2
    return Command(tuple(played), action, arrow, pod_direction)


def _rescan(toks: Tokens, pend: At) -> frozenset[int]:
    cols_text = "".join(t for t, _ in toks[1:])
    if not cols_text:
        raise pend.error("expected columns after 'rescan' (e.g. 2,4)")
    cols: list[int] = []
    cat = toks[1][1]
    for piece, offset in split_offsets(cols_text, ","):
        c = parse_int(piece, cat.shifted(offset), "a rescan column", lo=1, hi=COLS)
        if c in cols:
            raise cat.shifted(offset).error("column listed twice", piece)
        cols.append(c)
    return frozenset(cols)


def _parts(text: str, source: str) -> list[Tokens]:
    """The turn's ';' parts as words, each part not empty."""
    if "\n" in text.strip():
        raise NotationError("a turn is one line", line=1, source=source)
    base = At(source, 1, 1)
    if not text.strip():
        raise base.error("empty turn: a turn needs a command or 'skip'")
    parts: list[Tokens] = []
    for piece, off in split_offsets(text, ";"):
        toks = tokens(piece, base.shifted(off))
        if not toks:
            raise base.shifted(off).error("empty part (between ';')", piece)
        parts.append(toks)
    return parts


def parse_turn(text: str, state: GameState, *, source: str = "<turn>") -> Turn:
    """Parse a turn as ``str(Turn)`` writes it, e.g. ``bolster 1; F1+F2 fly U;
    rescan 2,4``. Each bare card id names the player holding it in ``state.hands``;
    ``deck:ID`` is the deck's top card in a two-player wild ([D18]). Form only: the
    engine judges legality."""
    text = decode(text, source)
    parts = _parts(text, source)
    bolster = 0
    command: Command | None = None
    second: Command | None = None
    rescan: frozenset[int] = frozenset()
    stage = 0  # 0 before bolster, 1 before the command, 2 after it, 3 after 'then', 4 done
    for toks in parts:
        word, wat = toks[0]
        pend = toks[-1][1].shifted(len(toks[-1][0]))
        if word == "bolster" and stage == 0:
            if len(toks) != 2:
                raise wat.error("bolster takes one number", " ".join(t for t, _ in toks))
            bolster = parse_int(toks[1][0], toks[1][1], "bolster", lo=0, hi=TOTAL_VIRUS, rule="[D9]")
            stage = 1
        elif stage <= 1 and word == "skip":
            if len(toks) != 1:
                raise toks[1][1].error("'skip' stands alone", toks[1][0])
            stage = 3
        elif stage <= 1 and word not in ("then", "rescan", "bolster"):
            command = _parse_command(toks, state, pend)
            stage = 2
        elif stage == 2 and word == "then":
            if len(toks) < 2:
                raise pend.error("expected a command after 'then'")
            second = _parse_command(toks[1:], state, pend)
            stage = 3
        elif stage in (2, 3) and word == "rescan":
            rescan = _rescan(toks, pend)
            stage = 4
        else:
            raise wat.error(
                "unexpected part here (order: bolster; command or skip; then; rescan)", word
            )
    if stage < 2:
        raise At(source, 1, 1).shifted(len(text)).error("a turn needs a command or 'skip'")
    return Turn(command, bolster, second, rescan)
