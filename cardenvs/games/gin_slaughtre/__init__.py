"""Gin Slaughtre (``gin_slaughtre_v0``): a two-player Shithead-style shedding game. Rules: docs/rules/gin_slaughtre.md.

54 cards (two Jokers); 4 hand cards and 3 upcards each, arranged in secret; play a card, a set or a run at or
above the pile's top; 2s, 9s, 5s, Jacks and Jokers are special. ``env()``, ``raw_env()`` and
``vector_env(num_envs)`` take the parameters listed there (``min_set_size``, ``num_downcards``, ``max_turns``…).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.game import Game
from cardenvs.games.gin_slaughtre import actions, rules
from cardenvs.games.gin_slaughtre.actions import (
    HAND_SIZE,
    NUM_ALL_ACTIONS,
    NUM_ARRANGEMENTS,
    NUM_BASE_ACTIONS,
    NUM_UPCARDS,
    PAIR_BASE,
)
from cardenvs.games.gin_slaughtre.cards import NUM_CARDS, card_ids
from cardenvs.games.gin_slaughtre.observation import observation_layout, observe
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS, GinSlaughtreParams, fill_params, state_fields
from cardenvs.games.gin_slaughtre.render import describe_step, render, render_private

DEAL_KEYS = ("dealer", "deck", "hands", "upcards", "downcards", "stock")


def num_actions(params: GinSlaughtreParams) -> int:
    """420 for the standard game; +3 downcard slots; the pairs (up to id 501) with ``min_set_size=2``."""
    if params.min_set_size == 2:
        return NUM_ALL_ACTIONS
    if params.num_downcards:
        return PAIR_BASE
    return NUM_BASE_ACTIONS


def action_name(params: GinSlaughtreParams, action: int, state: np.record | None = None) -> str:
    """A short readable name with cards as on the table, e.g. ``"play 7♥"``, ``"run 5♠-8♠"``, ``"take the pile"``.

    Given the current ``state``, an arrangement names the upcards it makes (``"upcards: 2♦ 9♥ 9♠"``) from the
    cards of the player to act; without it, their places among the player's seven cards sorted by id.
    """
    action = int(action)
    if state is not None and action < NUM_ARRANGEMENTS and int(state.phase) == rules.PHASE_ARRANGE:
        seat = int(state.current_player)
        location = np.asarray(state.location)
        dealt = np.flatnonzero((location == rules.LOC_HAND + seat) | (location == rules.LOC_UP + seat)).tolist()
        return actions.action_name(action, dealt)
    return actions.action_name(action)


def _seat_cards(deal: dict[str, Any], key: str, size: int) -> list[list[int]]:
    if key not in deal:
        raise ValueError(f"the deal needs {key!r}: a list of {size} cards per seat")
    seats = deal[key]
    if len(seats) != NUM_PLAYERS or any(len(cards) != size for cards in seats):
        raise ValueError(f"{key!r} must hold {size} cards for each of the {NUM_PLAYERS} seats")
    return [card_ids(cards) for cards in seats]


def deck_from_deal(params: GinSlaughtreParams, deal: dict[str, Any]) -> tuple[int, list[int]]:
    """The dealer and the full deck order (top first) that a ``deal`` option describes (docs/rules, "Deals")."""
    unknown = set(deal) - set(DEAL_KEYS)
    if unknown:
        raise ValueError(f"unknown deal keys {sorted(unknown)}; allowed: {', '.join(DEAL_KEYS)}")
    dealer = deal.get("dealer", 0)
    if isinstance(dealer, bool) or dealer not in range(NUM_PLAYERS):
        raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
    if "deck" in deal:
        if set(deal) - {"dealer", "deck"}:
            raise ValueError("give either 'deck' or hands/upcards/downcards/stock, not both")
        deck = card_ids(deal["deck"])
    else:
        hands = _seat_cards(deal, "hands", HAND_SIZE)
        upcards = _seat_cards(deal, "upcards", NUM_UPCARDS)
        downcards = _seat_cards(deal, "downcards", params.num_downcards) if params.num_downcards else [[], []]
        if "downcards" in deal and not params.num_downcards:
            raise ValueError("'downcards' needs num_downcards=3")
        deck = []
        for k in range(NUM_PLAYERS):
            seat = (dealer + 1 + k) % NUM_PLAYERS
            deck += downcards[seat] + upcards[seat] + hands[seat]
        deck += card_ids(deal.get("stock", []))
        deck += [c for c in range(NUM_CARDS) if c not in deck]
    if sorted(deck) != list(range(NUM_CARDS)):
        raise ValueError("the deal must use each of the 54 cards exactly once")
    return int(dealer), deck


def apply_deal(state: np.record, params: GinSlaughtreParams, deal: dict[str, Any]) -> None:
    """Replace the current deal by a chosen one (see docs/rules/gin_slaughtre.md, "Deals").

    ``deal = {"dealer": 0, "deck": [54 cards, top first]}`` or ``{"dealer": 0, "hands": [[4], [4]],
    "upcards": [[3], [3]], "stock": [cards drawn first, ...]}`` (+ ``"downcards"`` with num_downcards=3); cards
    are ids or names like ``"10H"``, ``"JO1"``. The stock list may be partial: the remaining cards follow by id.
    """
    dealer, deck = deck_from_deal(params, deal)
    state.dealer = dealer
    state.stock[:] = np.array(deck[::-1], np.int8)  # the engine draws from the end
    rules.deal(state)


GAME = Game(
    name="gin_slaughtre",
    version=0,
    params_type=GinSlaughtreParams,
    state_fields=state_fields,
    fill_params=fill_params,
    num_players=lambda params: NUM_PLAYERS,
    num_actions=num_actions,
    action_name=action_name,
    observation_layout=observation_layout,
    render=render,
    apply_deal=apply_deal,
    rule_based_agent="agents.gin_slaughtre:GinSlaughtreHeuristic",
    # Games of hundreds of learner decisions, rewarded only at the end: a longer discount horizon.
    training_defaults={"total_timesteps": 500_000, "gamma": 0.999, "ent_coef": 0.01, "net_arch": [128, 128]},
    deal_keys=DEAL_KEYS,
    example_deals=(
        ({}, {"dealer": 1, "hands": [["3C", "4C", "5C", "6C"], ["3D", "4D", "5D", "6D"]],
              "upcards": [["KC", "QC", "JC"], ["KD", "QD", "JD"]]}),
        ({}, {"dealer": 0, "hands": [["3C", "4C", "5C", "6C"], ["3D", "4D", "5D", "6D"]],
              "upcards": [["KC", "QC", "JC"], ["KD", "QD", "JD"]], "stock": ["AS", "2S"]}),
    ),
    check_invariants=rules.check_invariants,
    quick_params={"max_turns": 120},
    example_params=(
        {},
        {"num_downcards": 3, "min_set_size": 2, "stack_effects": True, "quartet_rule": "rank_or_suit"},
        {"red5_rule": "draw_until_leq5", "joker_consumes_turn": False, "starter_rule": "left_of_dealer",
         "max_turns": 150},
    ),
    reset=rules.reset,
    step=rules.step,
    legal_mask=rules.legal_mask,
    observe=observe,
    penalize=rules.penalize,
    render_private=render_private,
    describe_step=describe_step,
)
