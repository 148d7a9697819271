"""Property tests of the rules engine over seeded random playouts (RULES.md §§4-14).

Thousands of games across every player count, difficulty and rule option. Full
enumeration (``legal_turns``) costs up to ~0.2 s for a 4-player state, so most
turns are drawn by a cheap generator (a random legal command, then a random legal
re-scan) whose every turn ``apply_turn`` must accept; a sample of states is fully
enumerated and cross-checked. After every turn the invariants below hold:

- no exception; 33 sector cards + 2 start cards on the grid (gaps' cards counted);
- the command cards of the game are in hands, deck, discard, or (first pass) the
  Wild aside, each exactly once;
- shields in 0..2; sample tokens never duplicate or reappear; counts consistent;
- a certainly-illegal mutation of the played turn is refused (IllegalTurnError,
  state unchanged); on enumerated states any mutation whose key is not enumerated
  is refused;
- enumerated turns are pairwise distinct (``Turn.key``) and apply without error;
- a finished game has no legal turns and refuses any turn with GameOverError;
- ``observe`` reveals no unseen down side, no deck order, no other player's hand.
"""

from __future__ import annotations

import importlib.util
import pathlib
import random
from collections import Counter
from dataclasses import fields

import pytest

from sensor_ghosts.rules.cards import SectorCard, SectorType, Side
from sensor_ghosts.rules.commands import (
    actions_for,
    arrow_choices,
    card_plays,
    pod_choices,
    spent_players,
)
from sensor_ghosts.rules.deck import draw_up
from sensor_ghosts.rules.engine import apply_turn, execute, legal_turns, pod_moves_after_first
from sensor_ghosts.rules.errors import GameOverError, IllegalTurnError
from sensor_ghosts.rules.geometry import DIRECTIONS, DOCK, EARTH, on_grid, peek_cells
from sensor_ghosts.rules.observation import Observation, observe
from sensor_ghosts.rules.options import Difficulty, RuleOptions
from sensor_ghosts.rules.rescan import rescan_choices
from sensor_ghosts.rules.setup import Gap, Sample, Slot
from sensor_ghosts.rules.state import GameState, Status, initial_state
from sensor_ghosts.rules.turns import Action, ActionKind, Command, PlayedCard, Turn

_spec = importlib.util.spec_from_file_location(
    "_sg_factories", pathlib.Path(__file__).resolve().parents[1] / "factories.py"
)
_factories = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_factories)
quick_setup = _factories.quick_setup

FLAGS = ("escape_pod", "low_memory", "reveal_once", "no_memory_cubes", "two_samples", "flip_one")


def random_options(rng: random.Random) -> RuleOptions:
    flags = {f: rng.random() < 0.35 for f in FLAGS}
    # A second action multiplies the turn count: sample it less.
    flags["second_action"] = rng.random() < 0.15
    return RuleOptions(players=rng.randint(1, 4), difficulty=rng.choice(list(Difficulty)), **flags)


# --------------------------------------------------------------------------
# A cheap random legal turn
# --------------------------------------------------------------------------


def _finish(state: GameState) -> GameState:
    return state if state.is_over else draw_up(state)


def _rescans(state: GameState, flipped) -> list:
    return [frozenset()] if state.is_over else rescan_choices(state, flipped)


def random_command(s: GameState, play, flipped, rng: random.Random) -> Command:
    """A random command for a random play (a set of cards): top card, action,
    arrow, pod direction. Cheaper than listing every command of the state."""
    top = rng.choice(play.cards) if len(play.cards) > 1 else play.cards[0]
    cards = tuple(pc for pc in play.cards if pc is not top) + (top,)
    action = rng.choice(actions_for(s, play, flipped))
    arrow = rng.choice(arrow_choices(s, top.card, action))
    pod = rng.choice(pod_choices(s, top.card))
    return Command(cards, action, arrow, pod)


def random_turn(s: GameState, rng: random.Random, tries: int = 4) -> Turn:
    """A random legal turn, preferring one that does not lose at once."""
    if not s.hands[s.active]:
        return Turn(None, rescan=rng.choice(_rescans(_finish(s), frozenset())))
    fallback = None
    plays = list(card_plays(s))  # independent of shields and held samples
    assert plays, "a player holding cards always has a command"
    for _ in range(tries):
        b = 0 if rng.random() < 0.75 else rng.randint(0, s.held)
        s0 = s.evolve(shields=min(2, s.shields + b), held=s.held - b)
        c = random_command(s0, rng.choice(plays), frozenset(), rng)
        s1, f1 = execute(s0, c, frozenset())
        second = None
        if s.options.second_action and not s1.is_over and s1.held >= 1 and rng.random() < 0.5:
            one_action = c, s1, f1
            if not pod_moves_after_first(s, True):
                # 'pod-once-per-turn': the pod waits for the last of two actions.
                c = Command(c.cards, c.action, c.arrow, None)
                s1, f1 = execute(s0, c, frozenset(), pod_moves=False)
            s1b = s1.evolve(held=s1.held - 1)
            # 'helpers-once-per-turn': who played for the first action plays no more.
            plays2 = [p for p in card_plays(s1b, spent_players(s1b, c)) if actions_for(s1b, p, f1)]
            if plays2 and not s1.is_over:
                second = random_command(s1b, rng.choice(plays2), f1, rng)
                s1, f1 = execute(s1b, second, f1)
            else:
                c, s1, f1 = one_action
        fin = _finish(s1)
        t = Turn(c, b, second, rng.choice(_rescans(fin, f1)))
        if fin.outcome.status is not Status.LOST:
            return t
        fallback = t
    return fallback


# --------------------------------------------------------------------------
# Invariants
# --------------------------------------------------------------------------


def sample_tokens(state: GameState) -> list[Sample]:
    return [c.sample for row in state.grid for c in row if isinstance(c, Slot) and c.sample is not None]


def check_invariants(state: GameState, before: GameState | None = None) -> None:
    o = state.options
    # Sector cards: 33 + 2 start cards, each once; gaps keep their cards ([D26]).
    ids = []
    for row in state.grid:
        assert len(row) == 5
        for c in row:
            assert isinstance(c, (Slot, Gap))
            ids.append(c.card.id)
    assert sorted(ids) == [-2, -1] + list(range(1, 34))
    assert sum(isinstance(c, Gap) for row in state.grid for c in row) == sum(
        isinstance(c, Gap) for row in state.setup.grid for c in row
    )
    # Command cards: hands + deck + discard (+ the Wild aside on the first pass).
    game = Counter(c.id for c in state.setup.command_cards.game_cards(o.difficulty, o.players))
    where = Counter(c for h in state.hands for c in h) + Counter(state.deck) + Counter(e.card for e in state.discard)
    if state.wild_aside:
        where["W"] += 1
    assert where == game, (where, game)
    assert all(len(h) <= o.hand_limit for h in state.hands)
    # [D11] only a Fly card carries an arrow.
    for e in state.discard:
        assert e.arrow is None or state.kind(e.card).value == "fly"
    # Shields, samples.
    assert 0 <= state.shields <= 2
    assert state.held >= 0 and state.rocks_found >= 0 and state.lost_unseen >= 0
    toks = sample_tokens(state)
    assert len({t.id for t in toks}) == len(toks)
    virus_board = sum(t.virus for t in toks)
    rock_board = len(toks) - virus_board
    assert virus_board + state.held <= 3
    assert rock_board <= 2 and rock_board + state.rocks_found <= 2
    assert len(toks) + state.held + state.rocks_found + state.lost_unseen <= 5
    if state.lost_unseen == 0:
        assert rock_board + state.rocks_found == 2  # rocks are found or still lie face down
    setup_toks = {t.id for _, t in state.setup.samples()}
    assert {t.id for t in toks} <= setup_toks
    # Positions.
    assert state.ship in (DOCK, EARTH) or on_grid(state.ship)
    if o.escape_pod:
        assert state.pod in (DOCK, EARTH) or on_grid(state.pod)
    else:
        assert state.pod is None
    if before is not None:
        assert {t.id for t in toks} <= {t.id for t in sample_tokens(before)}  # never reappear
        assert state.rocks_found >= before.rocks_found and state.lost_unseen >= before.lost_unseen
        assert before.second_pass <= state.second_pass
        if before.ship != DOCK:
            assert state.ship != DOCK  # [D25]
        if not state.is_over:
            assert state.turn == before.turn + 1
            assert state.active == (before.active + 1) % o.players


# --------------------------------------------------------------------------
# Illegal mutations
# --------------------------------------------------------------------------


def certainly_illegal(s: GameState, t: Turn, rng: random.Random) -> list[Turn]:
    """Mutations of the legal turn ``t`` that break a rule whatever else holds."""
    out = [Turn(t.command, s.held + 1, t.second, t.rescan)]  # bolster more than held [D9]
    out.append(Turn(t.command, t.bolster, t.second, t.rescan | {rng.choice((0, 6, 9))}))
    if t.rescan:
        out.append(Turn(t.command, t.bolster, t.second, t.rescan - {min(t.rescan)}))
    if t.command is None:
        out.append(Turn(t.command, 1, None, t.rescan))  # a skipping player cannot bolster
        return out
    out.append(Turn(None, t.bolster, t.second, t.rescan))  # [D10] no pass
    c = t.command
    if not s.options.second_action:
        out.append(Turn(c, t.bolster, c, t.rescan))
    # A card nobody holds (from the deck, claimed from the hand).
    held_ids = {x for h in s.hands for x in h}
    outside = [x for x in s.deck if x not in held_ids]
    if outside:
        cards = c.cards[:-1] + (PlayedCard(rng.choice(outside), s.active),)
        out.append(Turn(Command(cards, c.action, c.arrow, c.pod_direction), t.bolster, t.second, t.rescan))
    top_fly = s.kind(c.top.card).value == "fly"
    # [D11] one Fly card against the heading.
    if len(c.cards) == 1 and top_fly and s.heading is not None and c.action.direction is not None:
        d = rng.choice([d for d in DIRECTIONS if d is not s.heading])
        out.append(Turn(Command(c.cards, Action(c.action.kind, d), d, c.pod_direction), t.bolster, t.second, t.rescan))
    # [D11] the arrow of a Fly card on top follows a directional action.
    if top_fly and c.action.direction is not None:
        d = rng.choice([d for d in DIRECTIONS if d is not c.action.direction])
        out.append(Turn(Command(c.cards, c.action, d, c.pod_direction), t.bolster, t.second, t.rescan))
    if not top_fly:
        out.append(Turn(Command(c.cards, c.action, rng.choice(DIRECTIONS), c.pod_direction), t.bolster, t.second, t.rescan))
    # §10 the pod's direction is chosen exactly when the top card is not a Fly card.
    if s.pod is not None and s.pod != EARTH:
        if c.pod_direction is None and top_fly:
            out.append(Turn(Command(c.cards, c.action, c.arrow, rng.choice(DIRECTIONS)), t.bolster, t.second, t.rescan))
        if c.pod_direction is not None:
            out.append(Turn(Command(c.cards, c.action, c.arrow, None), t.bolster, t.second, t.rescan))
    # [D14] shift the ship's row; [D4] flip a start card.
    if c.action.is_deep_scan:
        if on_grid(s.ship) or s.ship == DOCK:
            out.append(Turn(Command(c.cards, Action(ActionKind.SHIFT, row=s.ship[0]), c.arrow, c.pod_direction), t.bolster, t.second, t.rescan))
        starts = [(1, col) for col in range(1, 6) if isinstance(s.cell((1, col)), Slot) and s.cell((1, col)).card.start]
        out.append(Turn(Command(c.cards, Action(ActionKind.FLIP, target=rng.choice(starts)), c.arrow, c.pod_direction), t.bolster, t.second, t.rescan))
    return out


def assert_refused(s: GameState, t: Turn) -> None:
    try:
        apply_turn(s, t)
    except GameOverError:
        raise AssertionError("GameOverError on an ongoing game") from None
    except IllegalTurnError:
        return
    raise AssertionError(f"illegal mutation accepted: {t}")


def random_mutation(s: GameState, t: Turn, rng: random.Random) -> Turn:
    """Any random change of one part of ``t`` (legal or not)."""
    c = t.command
    k = rng.randrange(6)
    if c is None or k == 0:
        return Turn(t.command, rng.randint(0, 3), t.second, t.rescan)
    if k == 1:
        return Turn(c, t.bolster, t.second, frozenset(rng.sample(range(1, 6), rng.randint(0, 3))))
    if k == 2:
        kinds = list(ActionKind)
        kind = rng.choice(kinds)
        a = Action(
            kind,
            direction=rng.choice(DIRECTIONS) if kind in (ActionKind.FLY, ActionKind.PEEK) else None,
            target=(rng.randint(1, 7), rng.randint(1, 5)) if kind is ActionKind.FLIP else None,
            row=rng.randint(1, 7) if kind is ActionKind.SHIFT else None,
        )
        return Turn(Command(c.cards, a, c.arrow, c.pod_direction), t.bolster, t.second, t.rescan)
    if k == 3:
        return Turn(Command(c.cards, c.action, rng.choice((None,) + DIRECTIONS), c.pod_direction), t.bolster, t.second, t.rescan)
    if k == 4:
        return Turn(Command(c.cards, c.action, c.arrow, rng.choice((None,) + DIRECTIONS)), t.bolster, t.second, t.rescan)
    pool = sorted({x for h in s.hands for x in h} | set(s.deck[:2]))
    n = rng.randint(1, 3)
    cards = tuple(PlayedCard(x, s.active) for x in rng.sample(pool, min(n, len(pool))))
    return Turn(Command(cards, c.action, c.arrow, c.pod_direction), t.bolster, t.second, t.rescan)


# --------------------------------------------------------------------------
# Observation
# --------------------------------------------------------------------------

PUBLIC = {
    "player", "options", "grid", "ship", "pod", "shields", "held", "hand", "hand_sizes", "discard",
    "deck_size", "second_pass", "active", "turn", "outcome", "virus_face_down", "unseen_lost",
    "rocks_found", "sector_cards", "command_cards",  # the card sets are public (§14)
}


def twin(state: GameState, player: int, rng: random.Random) -> GameState:
    """The same public facts, with every hidden one changed: deck order, other
    players' hands, unseen down sides, the content of face-down samples."""
    others = [p for p in range(state.options.players) if p != player]
    pool = list(state.deck) + [c for p in others for c in state.hands[p]]
    rng.shuffle(pool)
    hands = list(state.hands)
    for p in others:
        n = len(hands[p])
        hands[p], pool = tuple(pool[:n]), pool[n:]
    rows = []
    for row in state.grid:
        cells = []
        for c in row:
            if isinstance(c, Slot):
                card = c.card
                if not card.start and card.id not in state.seen:
                    other = rng.choice(list(SectorType))
                    if c.up is Side.FRONT:
                        card = SectorCard(card.id, card.front, other)
                    else:  # not reachable: a back-up card has been seen
                        card = SectorCard(card.id, other, card.back)
                sample = c.sample and Sample(c.sample.id, rng.random() < 0.5)
                c = Slot(card, c.up, sample)
            elif c.card is not None:
                c = Gap(SectorCard(c.card.id, c.card.front, rng.choice(list(SectorType))))
            cells.append(c)
        rows.append(tuple(cells))
    return state.evolve(deck=tuple(pool), hands=tuple(hands), grid=tuple(rows))


def check_observation(state: GameState, rng: random.Random, expected_seen: set[int]) -> None:
    assert {f.name for f in fields(Observation)} == PUBLIC
    for p in range(state.options.players):
        ob = observe(state, p)
        assert ob.hand == state.hands[p] and ob.deck_size == len(state.deck)
        assert observe(twin(state, p, rng), p) == ob
        for row, orow in zip(state.grid, ob.grid, strict=True):
            for c, oc in zip(row, orow, strict=True):
                if isinstance(c, Slot) and not c.card.start:
                    if oc.down is not None:
                        assert c.card.id in expected_seen, c.card.id
                        assert oc.down is c.down
                    if c.up is Side.BACK:
                        assert oc.down is c.down  # its front was seen at setup


def newly_seen(before: GameState, after: GameState, t: Turn) -> set[int]:
    """An independent over-approximation of the cards whose down side this turn
    showed: every card that changed side, re-scan flips and Deep Scan targets,
    peek cells around the ship's positions, and (for double-move turns) the
    ship's row and column."""
    out = set()
    up = {c.card.id: c.up for row in before.grid for c in row if isinstance(c, Slot)}
    for row in after.grid:
        for c in row:
            if isinstance(c, Slot) and up.get(c.card.id) is not c.up:
                out.add(c.card.id)
    for cmd in (t.command, t.second):
        if cmd is None:
            continue
        if cmd.action.kind is ActionKind.FLIP:
            out.add(before.cell(cmd.action.target).card.id)
        if cmd.action.kind is ActionKind.PEEK:
            for pos in {before.ship, after.ship}:
                for q in peek_cells(pos, cmd.action.direction):
                    for g in (before, after):
                        out.add(g.cell(q).card.id)
    if t.second is not None:
        for g in (before, after):
            for pos in (before.ship, after.ship):
                for r in range(1, 8):
                    for col in range(1, 6):
                        if r == pos[0] or col == pos[1]:
                            out.add(g.cell((r, col)).card.id)
    if t.rescan and not after.ship == EARTH:
        row = after.ship[0] + 2
        for g in (before, after):
            for col in range(1, 6):
                if row <= 7:
                    out.add(g.cell((row, col)).card.id)
    return out


# --------------------------------------------------------------------------
# Full enumeration checks on a sampled state
# --------------------------------------------------------------------------


def check_enumeration(s: GameState, rng: random.Random, chosen: Turn, apply_all: bool = False) -> None:
    turns = legal_turns(s)
    assert turns
    ks = [t.key() for t in turns]
    assert len(set(ks)) == len(ks), "two enumerated turns have the same key"
    key_set = set(ks)
    assert chosen.key() in key_set, f"generated turn not enumerated: {chosen}"
    sample = turns if apply_all else rng.sample(turns, min(25, len(turns)))
    for t in sample:
        apply_turn(s, t)  # no exception
    for _ in range(25):
        m = random_mutation(s, rng.choice(turns), rng)
        dup = m.command is not None and len({pc.card for pc in m.command.cards}) < len(m.command.cards)
        if dup or m.key() not in key_set:
            assert_refused(s, m)


# --------------------------------------------------------------------------
# Playouts
# --------------------------------------------------------------------------


def play_game(seed: int, *, enumerate_p: float, observe_p: float, options=None) -> Counter:
    rng = random.Random(seed)
    o = options or random_options(rng)
    s = initial_state(quick_setup(seed, o), seed=seed)
    check_invariants(s)
    expected_seen: set[int] = set()
    stats = Counter(games=1)
    while not s.is_over:
        t = random_turn(s, rng)
        if rng.random() < enumerate_p:
            check_enumeration(s, rng, t)
            stats["enumerated"] += 1
        if rng.random() < 0.3:
            for m in certainly_illegal(s, t, rng):
                assert_refused(s, m)
                stats["mutations"] += 1
        after = apply_turn(s, t)
        check_invariants(after, s)
        expected_seen |= newly_seen(s, after, t)
        if rng.random() < observe_p:
            check_observation(after, rng, expected_seen)
        stats["turns"] += 1
        stats["second_pass"] += after.second_pass and not s.second_pass
        s = after
    assert legal_turns(s) == []
    with pytest.raises(GameOverError):
        apply_turn(s, t)
    stats[s.outcome.status.value] += 1
    return stats


CHUNKS = 8
GAMES_PER_CHUNK = 250


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_playouts_keep_invariants(chunk):
    total = Counter()
    for i in range(GAMES_PER_CHUNK):
        total += play_game(10_000 * chunk + i, enumerate_p=0.004, observe_p=0.15)
    assert total["games"] == GAMES_PER_CHUNK
    assert total["turns"] > GAMES_PER_CHUNK * 5


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("difficulty", list(Difficulty))
def test_every_player_count_and_difficulty_with_all_flags_combined(players, difficulty):
    rng = random.Random(players * 7 + len(difficulty.value))
    for i in range(12):
        flags = {f: rng.random() < 0.5 for f in FLAGS}
        flags["second_action"] = i % 4 == 0
        o = RuleOptions(players=players, difficulty=difficulty, **flags)
        play_game(500_000 + 100 * players + i, enumerate_p=0.0, observe_p=0.3, options=o)


def test_each_flag_alone_enumerated():
    """Fully enumerate the opening state for every flag alone and all flags, solo
    and 2-player, and apply every enumerated turn."""
    rng = random.Random(5)
    variants = [{}] + [{f: True} for f in FLAGS + ("second_action",)] + [{f: True for f in FLAGS}]
    for n, flags in enumerate(variants):
        for players in (1, 2):
            o = RuleOptions(players=players, **flags)
            s = initial_state(quick_setup(n, o), seed=n)
            if flags.get("second_action") and players == 1:
                s = s.evolve(held=1)  # so that second actions exist
            t = random_turn(s, rng)
            check_enumeration(s, rng, t, apply_all=players == 1 and n == 0)


def test_long_games_reach_the_second_pass_and_deck_out():
    """Games steered away from losing moves exhaust the deck: the reshuffle
    ([D15]) and the second-pass deck-out (§7) both happen."""
    total = Counter()
    for seed in range(60):
        total += play_game(900_000 + seed, enumerate_p=0.0, observe_p=0.0)
    assert total["second_pass"] > 0
