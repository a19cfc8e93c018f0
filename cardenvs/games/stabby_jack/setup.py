"""Starting from a chosen deal (``env.reset(options={"deal": ...})``) and the game's invariants."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardenvs.core.game import NO_PLAYER
from cardenvs.core.rng import shuffle
from cardenvs.games.stabby_jack.cards import (
    CARDS_PER_DECK,
    DIAMONDS,
    JOKER,
    JOKERS_PER_DECK,
    NO_CARD,
    NUM_KINDS,
    SPADES,
    card_name,
    is_monarch,
    is_numbered,
    parse_card,
    suit_of,
    value_of,
    xp_worth,
)
from cardenvs.games.stabby_jack.params import MAX_STATS, PARAMETER_FIELDS, START_STATS, StabbyJackParams
from cardenvs.games.stabby_jack.rules import (
    NO_HEARTS_HIT_POINTS,
    PHASE_MAIN,
    PHASE_OVER,
    PHASE_PAY,
    legal_mask,
    num_actions,
    start_game,
)

DEAL_KEYS = ("dealer", "deck", "stats", "xp", "damage", "discard", "rest")
REST_PLACES = ("deck", "discard")


def card_copies(params: StabbyJackParams) -> np.ndarray:
    """How many cards of each kind are in play."""
    decks = (params.num_players + 1) // 2
    copies = np.full(NUM_KINDS, decks, np.int64)
    copies[JOKER] = decks * JOKERS_PER_DECK if params.jokers else 0
    return copies


def _take(pool: np.ndarray, card: Any, where: str) -> int:
    kind = parse_card(card)
    if pool[kind] == 0:
        raise ValueError(f"deal: no {card_name(kind)} left for {where} (each kind has as many copies as decks)")
    pool[kind] -= 1
    return kind


def _per_seat(deal: dict, key: str, n: int) -> Sequence | None:
    rows = deal.get(key)
    if rows is not None and len(rows) != n:
        raise ValueError(f"deal[{key!r}] must have one entry per seat ({n}), got {len(rows)}")
    return rows


def _lay_rows(state: np.record, deal: dict, pool: np.ndarray, n: int) -> bool:
    """Write given Stats and XP rows; True if the Stats were given (no dealing then)."""
    stats = _per_seat(deal, "stats", n)
    xp_rows = _per_seat(deal, "xp", n)
    state.stats[:, :] = NO_CARD
    state.xp_row[:, :] = NO_CARD
    for seat in range(n):
        for i, card in enumerate(xp_rows[seat] if xp_rows is not None else ()):
            kind = _take(pool, card, f"player {seat}'s XP row")
            if not (is_numbered(kind) or (is_monarch(kind) and suit_of(kind) in (DIAMONDS, SPADES))):
                raise ValueError(f"deal: {card_name(kind)} cannot be in an XP row (monsters and ♦/♠ Monarchs)")
            state.xp_row[seat, i] = kind
        state.xp_count[seat] = len(xp_rows[seat]) if xp_rows is not None else 0
    if stats is None:
        return False
    for seat in range(n):
        if not START_STATS <= len(stats[seat]) <= MAX_STATS:
            raise ValueError(f"deal: player {seat} must hold {START_STATS} to {MAX_STATS} Stats")
        for i, card in enumerate(stats[seat]):
            kind = _take(pool, card, f"player {seat}'s Stats")
            if not is_numbered(kind):
                raise ValueError(f"deal: Stats are numbered cards, not {card_name(kind)}")
            state.stats[seat, i] = kind
        state.stats_count[seat] = len(stats[seat])
    return True


def apply_deal(state: np.record, params: StabbyJackParams, deal: dict) -> None:
    """Start the game of ``state`` (just reset) from a chosen deal; the format is in docs/rules/stabby_jack.md.

    ``deal`` keys (all optional): ``dealer`` (seat), ``deck`` (cards drawn first, top first), ``stats`` and
    ``xp`` (one list of cards per seat), ``damage`` (one int per seat), ``discard`` (bottom first), ``rest``
    (``"deck"``: the cards not named are shuffled under ``deck``; ``"discard"``: they go under ``discard``).
    Cards are named like ``"10H"``, ``"QS"``, ``"AC"``, ``"JO"``. Without ``stats`` the game deals them from
    the draw pile exactly as a random game does.
    """
    if not isinstance(deal, dict) or set(deal) - set(DEAL_KEYS):
        raise ValueError(f"deal must be a dict with keys among {', '.join(DEAL_KEYS)}")
    n = params.num_players
    dealer = deal.get("dealer", int(state.dealer))
    if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
        raise ValueError(f"deal['dealer'] must be a seat from 0 to {n - 1}")
    rest = deal.get("rest", "deck")
    if rest not in REST_PLACES:
        raise ValueError(f"deal['rest'] must be one of {REST_PLACES}")
    for name in state.dtype.names:
        if name not in PARAMETER_FIELDS and name != "rng":
            state[name] = 0
    pool = card_copies(params)
    stats_given = _lay_rows(state, deal, pool, n)
    discard = [_take(pool, card, "the discard pile") for card in deal.get("discard", ())]
    top_first = [_take(pool, card, "the draw pile") for card in deal.get("deck", ())]
    leftover = np.repeat(np.arange(NUM_KINDS, dtype=np.int16), pool)
    shuffle(state, leftover, len(leftover))
    if rest == "discard":
        discard = leftover.tolist() + discard
        deck = top_first[::-1]
    else:
        deck = leftover.tolist() + top_first[::-1]
    state.discard[: len(discard)] = discard
    state.discard_size = len(discard)
    state.deck[: len(deck)] = deck
    state.deck_size = len(deck)
    state.deck_counts[:] = np.bincount(np.asarray(deck, np.int64), minlength=NUM_KINDS)
    state.dealer = dealer
    start_game(state, not stats_given)
    damage = _per_seat(deal, "damage", n)
    if damage is not None:
        for seat, amount in enumerate(damage):
            if not 0 <= amount < state.hit_points[seat]:
                raise ValueError(f"deal: player {seat}'s damage must be from 0 to HP − 1")
            state.damage[seat] = amount


def _where_cards_are(state: np.record) -> np.ndarray:
    counts = np.zeros(NUM_KINDS, np.int64)
    np.add.at(counts, state.deck[: state.deck_size].astype(np.int64), 1)
    np.add.at(counts, state.discard[: state.discard_size].astype(np.int64), 1)
    for seat in range(int(state.num_players)):
        np.add.at(counts, state.stats[seat, : state.stats_count[seat]].astype(np.int64), 1)
        np.add.at(counts, state.xp_row[seat, : state.xp_count[seat]].astype(np.int64), 1)
    if state.pending != NO_CARD:
        counts[state.pending] += 1
    return counts


def _check_seat(state: np.record, seat: int) -> None:
    count = int(state.stats_count[seat])
    assert START_STATS <= count <= MAX_STATS, f"seat {seat} holds {count} Stats"
    row = [int(card) for card in state.stats[seat, :count]]
    assert all(is_numbered(card) for card in row), f"seat {seat} has a Special among its Stats"
    assert (state.stats[seat, count:] == NO_CARD).all()
    sums = [0, 0, 0, 0]
    for card in row:
        sums[suit_of(card)] += value_of(card)
    assert state.hit_points[seat] == (sums[0] if sums[0] > 0 else NO_HEARTS_HIT_POINTS), f"seat {seat}: HP"
    assert [state.magic[seat], state.attack[seat], state.luck[seat]] == sums[1:], f"seat {seat}: stat sums"
    xp_cards = [int(card) for card in state.xp_row[seat, : state.xp_count[seat]]]
    assert (state.xp_row[seat, state.xp_count[seat]:] == NO_CARD).all()
    for card in xp_cards:
        assert is_numbered(card) or (is_monarch(card) and suit_of(card) in (DIAMONDS, SPADES)), "bad XP card"
    assert state.xp[seat] == sum(xp_worth(card) for card in xp_cards), f"seat {seat}: XP"
    assert state.xp_monarchs[seat] == sum(is_monarch(card) for card in xp_cards), f"seat {seat}: Monarchs"
    assert 0 <= state.damage[seat] < state.hit_points[seat], f"seat {seat} should be dead"


def check_invariants(state: np.record, params: StabbyJackParams) -> None:
    """Every card of every deck is in exactly one place; derived values equal their card sums; the player to
    act has a legal action; phase and pending card agree."""
    counts = _where_cards_are(state)
    assert (counts == card_copies(params)).all(), f"cards not accounted for: {counts.tolist()}"
    deck = state.deck[: state.deck_size].astype(np.int64)
    assert (state.deck_counts == np.bincount(deck, minlength=NUM_KINDS)).all(), "deck_counts is stale"
    assert int(state.total_cards) == int(card_copies(params).sum()) == CARDS_PER_DECK * int(state.num_decks) + (
        JOKERS_PER_DECK * int(state.num_decks) if params.jokers else 0
    )
    for seat in range(int(state.num_players)):
        _check_seat(state, seat)
    if state.terminated or state.truncated:
        assert state.current_player == NO_PLAYER and state.phase == PHASE_OVER
        return
    assert 0 <= state.current_player < state.num_players
    assert state.phase != PHASE_OVER
    waits_on_card = state.phase not in (PHASE_MAIN, PHASE_PAY)
    assert (state.pending != NO_CARD) == waits_on_card, "pending card and phase disagree"
    mask = np.zeros(num_actions(params), np.int8)
    legal_mask(state, mask)
    assert mask.any(), "the player to act has no legal action"
