"""Slabberjan (``slabberjan_v0``): the Zeeland Cuckoo game for 2–42 players. Rules: docs/rules/slabberjan.md.

``env(num_players=5)``, ``raw_env(...)`` and ``vector_env(num_envs, ...)`` take the parameters listed there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.game import Game
from cardenvs.games.slabberjan import rules
from cardenvs.games.slabberjan.observation import observation_layout, observe
from cardenvs.games.slabberjan.params import NUM_KINDS, NUM_PIECES, SlabberjanParams, fill_params, state_fields
from cardenvs.games.slabberjan.pieces import kind_id
from cardenvs.games.slabberjan.render import render, render_private

ACTION_NAMES = ("stand", "exchange (swap left / dealer: draw from bag)", "dealer swaps left")


def num_actions(params: SlabberjanParams) -> int:
    """STAND and EXCHANGE, plus the dealer's left swap when that variant is on."""
    return 3 if params.dealer_may_swap_left else 2


def action_name(params: SlabberjanParams, action: int) -> str:
    return ACTION_NAMES[action]


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


GAME = Game(
    name="slabberjan",
    version=0,
    params_type=SlabberjanParams,
    state_fields=state_fields,
    fill_params=fill_params,
    num_players=lambda params: params.num_players,
    num_actions=num_actions,
    action_name=action_name,
    observation_layout=observation_layout,
    render=render,
    apply_deal=apply_deal,
    rule_based_agent="agents.slabberjan:SlabberjanHeuristic",
    training_defaults={"total_timesteps": 300_000, "gamma": 0.995, "ent_coef": 0.01, "net_arch": [64, 64]},
    deal_keys=("dealer", "pieces", "bag"),
    example_deals=(
        ({}, {"dealer": 2, "pieces": ["5", "fool", "knight", "3"]}),
        ({"num_players": 3, "dealer_may_swap_left": True}, {"dealer": 0, "pieces": ["cat", "2", "bird"]}),
    ),
    check_invariants=rules.check_invariants,
    quick_params={"num_players": 3},
    example_params=(
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 7},
        {"num_players": 42},
        # The variants reuse player counts above: a record layout depends only on num_players, so these
        # add no compilation.
        {"num_players": 7, "forced_swap": True, "bird_attempter_pays": True, "fool_knocks": True},
        {"num_players": 3, "dealer_may_swap_left": True, "bag_matador_rule": "inn_redraw_only",
         "low_order": "rule_sheet", "reward_scheme": "placement", "start_chips": 1},
        {"num_players": 2, "bag_matador_rule": "keep_any", "start_chips": 5},
    ),
    reset=rules.reset,
    step=rules.step,
    legal_mask=rules.legal_mask,
    observe=observe,
    penalize=rules.penalize,
    render_private=render_private,
)
