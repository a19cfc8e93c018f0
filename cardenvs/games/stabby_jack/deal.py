"""Stabby Jack's chosen deals (``env.reset(options={"deal": ...})``, see docs/rules/stabby_jack.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardenvs.core.rng import shuffle
from cardenvs.games.stabby_jack.cards import (
    DIAMONDS,
    NO_CARD,
    NUM_KINDS,
    SPADES,
    card_name,
    is_monarch,
    is_numbered,
    parse_card,
    suit_of,
)
from cardenvs.games.stabby_jack.params import MAX_STATS, PARAMETER_FIELDS, START_STATS, StabbyJackParams, card_copies
from cardenvs.games.stabby_jack.rules import (
    start_game,
)

DEAL_KEYS = ("dealer", "deck", "stats", "xp", "damage", "discard", "rest")
REST_PLACES = ("deck", "discard")


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
