"""Terminal pictures of a game: the grid with both sides of each card (or only
what a player can see), tokens, ship and pod; colours when the terminal has them."""

from __future__ import annotations

import click

from ..rules.geometry import COLS, DOCK, EARTH, ROWS
from ..rules.observation import SeenCard, SeenGap, observe
from ..rules.setup import Gap, Setup, Slot
from ..rules.state import GameState

_COLOURS = {"E": "white", "B": "magenta", "A": "yellow", "O": "red", "?": "bright_black"}
_NAMES = "E empty  B boost  A asteroid  O obstructed  ? unseen"


def _cell_text(up: str, down: str, front_up: bool, start: bool) -> tuple[str, str]:
    """Four characters: the face-up type big, the down side small, the ring."""
    if start:
        return " S  ", "E"
    ring = " " if front_up else "'"  # a back side shows its ring (the ' mark)
    return f"{up}{ring}{down.lower()} ", up


def grid_lines(state: GameState, *, full: bool, color: bool) -> list[str]:
    """Rows 7..1 with labels; ``full`` shows every down side, else only what the
    active player has seen (§14)."""
    obs = None if full else observe(state, state.active)
    lines = []
    header = "      " + "".join(f"  {c}   " for c in range(1, COLS + 1))
    lines.append(header)
    for r in range(ROWS, 0, -1):
        parts = []
        for c in range(1, COLS + 1):
            marks = ""
            if full:
                cell = state.grid[r - 1][c - 1]
                if isinstance(cell, Gap):
                    # [D26] a gap remembers its card; shown as -Fb
                    card = cell.card
                    txt = f"-{card.front.value}{card.back.value.lower()} " if card else " -- "
                    key = "?"
                else:
                    assert isinstance(cell, Slot)
                    txt, key = _cell_text(
                        cell.face.value, cell.down.value, cell.up.value == "front", cell.card.start
                    )
                    if cell.sample is not None:
                        marks += "v" if cell.sample.virus else "r"
            else:
                assert obs is not None
                seen = obs.grid[r - 1][c - 1]
                if isinstance(seen, SeenGap):
                    txt, key = (f"-{seen.front.value}? " if seen.front else " -- "), "?"
                else:
                    assert isinstance(seen, SeenCard)
                    down = seen.down.value if seen.down else "?"
                    txt, key = _cell_text(seen.up.value, down, seen.side.value == "front", seen.start)
                    if seen.sample:
                        marks += "*"
            if state.ship == (r, c):
                marks += "@"
            if state.pod == (r, c):
                marks += "&"
            txt = (txt.rstrip() + marks).ljust(5)
            if color:
                txt = click.style(txt, fg=_COLOURS.get(key, "white"), bold=state.ship == (r, c))
            parts.append(txt)
        right = "  EARTH" if r == ROWS else ""
        if r == ROWS and EARTH in (state.ship, state.pod):
            right += " " + ("@" if state.ship == EARTH else "") + ("&" if state.pod == EARTH else "")
        left = "@" if (r == 1 and state.ship == DOCK) else " "
        left += "&" if (r == 1 and state.pod == DOCK) else " "
        lines.append(f"{r} {left}| " + " ".join(parts) + right)
    lines.append("  (dock left of row 1; -Xy a gap that held card X/y; ' a back side up)")
    lines.append("  " + _NAMES)
    return lines


def status_lines(state: GameState, *, full: bool) -> list[str]:
    o = state.options
    lines = [
        f"turn {state.turn}  player {state.active + 1}/{o.players}  shields {state.shields}/2  "
        f"virus held {state.held}/{o.samples_to_win}  heading "
        f"{state.heading.name.lower() if state.heading else 'none'}",
        f"deck {len(state.deck)} card(s), pass {'2' if state.second_pass else '1 (Wild aside)'};  "
        f"discard {' '.join(e.card + (e.arrow.arrow if e.arrow else '') for e in state.discard) or '-'}",
    ]
    for p, hand in enumerate(state.hands):
        if full or p == state.active:
            lines.append(f"hand p{p + 1}: {' '.join(hand) or '-'}")
        else:
            lines.append(f"hand p{p + 1}: {len(hand)} card(s)")
    if full:
        lines.append(f"deck order: {' '.join(state.deck) or '-'}")
    if state.is_over:
        lines.append(f"game over: {state.outcome}")
    return lines


def picture(state: GameState, *, full: bool = True, color: bool = False) -> str:
    return "\n".join(grid_lines(state, full=full, color=color) + [""] + status_lines(state, full=full))


def setup_picture(setup: Setup, *, color: bool = False) -> str:
    # The grid as dealt, ship and pod at the dock: no hands needed, so a setup
    # whose deal is broken is drawn too (``show`` says what is wrong).
    state = GameState(setup=setup, grid=setup.grid, hands=(), deck=(), ranking=(),
                      pod=DOCK if setup.options.escape_pod else None)
    lines = grid_lines(state, full=True, color=color)
    o = setup.options
    lines.append(
        f"players {o.players}, {o.difficulty.value}; options: {', '.join(o.flags()) or 'none'}"
        + (f"; id {setup.id}" if setup.id else "")
    )
    if setup.deal:
        lines.append(f"deal: {' '.join(setup.deal.first_deck)} | ranking {' '.join(setup.deal.ranking)}")
    return "\n".join(lines)
