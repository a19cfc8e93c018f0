"""Slabberjan's chosen deals (``env.reset(options={"deal": ...})``, see docs/rules/slabberjan.md)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.games.slabberjan import rules
from cardenvs.games.slabberjan.params import NUM_KINDS, NUM_PIECES, SlabberjanParams
from cardenvs.games.slabberjan.pieces import kind_id


def apply_deal(state: np.record, params: SlabberjanParams, deal: dict[str, Any]) -> None:
    """Replace the current deal by a chosen one (see docs/rules/slabberjan.md, "Chosen deals").

    ``deal = {"dealer": seat, "pieces": [kind per seat], "bag": [kinds, drawn first first]}``; kinds are ids
    or names ("knight", "7", "fool"). ``bag`` is optional: by default the remaining pieces, Knight drawn first.
    """
    n = params.num_players
    unknown = set(deal) - {"dealer", "pieces", "bag"}
    if unknown:
        raise ValueError(f"unknown deal keys {sorted(unknown)}; allowed: dealer, pieces, bag")
    dealer = int(deal.get("dealer", state.dealer))
    if not 0 <= dealer < n or not state.in_game[dealer]:
        raise ValueError(f"dealer must be a seat still in, 0..{n - 1}; got {dealer}")
    pieces = [kind_id(k) for k in deal["pieces"]]
    in_seats = [s for s in range(n) if state.in_game[s]]
    if len(pieces) != n:
        raise ValueError(f"pieces needs one kind per seat ({n}); use any kind for seats that are out")
    held = [pieces[s] for s in in_seats]
    remaining = np.full(NUM_KINDS, NUM_PIECES // NUM_KINDS, np.int64)
    for kind in held:
        remaining[kind] -= 1
    if (remaining < 0).any():
        raise ValueError("each piece kind exists twice; the deal uses one more than that")
    if "bag" in deal:
        bag = [kind_id(k) for k in deal["bag"]]
        if sorted(bag) != sorted(np.repeat(np.arange(NUM_KINDS), remaining).tolist()):
            raise ValueError("bag must hold exactly the pieces not dealt")
    else:
        bag = np.repeat(np.arange(NUM_KINDS), remaining)[::-1].tolist()
    # The engine deals from the top of the bag (its end) starting left of the dealer: lay the order out so.
    order: list[int] = []
    seat = dealer
    for _ in in_seats:
        seat = (seat + 1) % n
        while not state.in_game[seat]:
            seat = (seat + 1) % n
        order.append(pieces[seat])
    state.dealer = dealer
    state.round_number -= 1  # the replaced deal does not count as a round
    state.bag[:] = np.array((order + bag)[::-1], np.int8)
    rules._deal_from_bag(state)
