"""Slap (``slap_v0``): Egyptian Ratscrew for 2–8 players. Rules: docs/rules/slap.md.

Card plays are automatic; after every card each player still in secretly chooses PASS (0) or SLAP (1) in a
slap window, and the window is resolved only when all have chosen (simultaneous correct slaps are settled by
the game's seeded chance). ``env(num_players=4)``, ``raw_env(...)`` and ``vector_env(num_envs, ...)`` take the
parameters listed in the docs (slap rules on/off, face-card chances, penalty, Jokers, ``max_cards_played``…).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.game import Game
from cardenvs.games.slap import rules
from cardenvs.games.slap.cards import MAX_CARDS, NO_CARD, card_id
from cardenvs.games.slap.observation import observation_layout, observe
from cardenvs.games.slap.params import PARAM_FIELDS, SlapParams, fill_params, state_fields
from cardenvs.games.slap.render import render

ACTION_NAMES = ("pass", "slap", "play")
_KEPT_FIELDS = ("rng", "num_players", *PARAM_FIELDS)


def num_actions(params: SlapParams) -> int:
    """PASS and SLAP, plus PLAY with ``expose_play_action``."""
    return 3 if params.expose_play_action else 2


def action_name(params: SlapParams, action: int) -> str:
    return ACTION_NAMES[action]


def _clear_game(state: np.record) -> None:
    """Zero every field of the game in progress (parameters and the generator stay)."""
    for name in state.dtype.names:
        if name not in _KEPT_FIELDS:
            state[name] = 0


def apply_deal(state: np.record, params: SlapParams, deal: dict[str, Any]) -> None:
    """Replace the current deal by a chosen one (see docs/rules/slap.md, "Chosen deals").

    ``{"dealer": seat, "deck": [52 or 54 cards in dealing order]}`` deals exactly like a shuffled pack;
    ``{"dealer": seat, "stacks": [[cards top first] per seat]}`` sets the stacks directly (any distinct cards of
    the pack, at least two seats holding some); cards are ids or names such as ``"Qs"``, ``"10h"``, ``"Jo1"``.
    """
    n = params.num_players
    unknown = set(deal) - {"dealer", "deck", "stacks"}
    if unknown:
        raise ValueError(f"unknown deal keys {sorted(unknown)}; allowed: dealer, deck, stacks")
    if ("deck" in deal) == ("stacks" in deal):
        raise ValueError("a deal gives exactly one of 'deck' (full pack in dealing order) or 'stacks'")
    dealer = int(deal.get("dealer", state.dealer))
    if not 0 <= dealer < n:
        raise ValueError(f"dealer must be a seat 0..{n - 1}; got {dealer}")
    size = params.deck_size
    if "deck" in deal:
        deck = [card_id(c) for c in deal["deck"]]
        if sorted(deck) != list(range(size)):
            raise ValueError(f"deck must list each of the {size} cards of the pack exactly once")
        _clear_game(state)
        state.dealer = dealer
        state.deck[:] = NO_CARD
        state.deck[:size] = deck
        rules.deal_deck(state)
        return
    stacks = [[card_id(c) for c in stack] for stack in deal["stacks"]]
    cards = [card for stack in stacks for card in stack]
    if len(stacks) != n:
        raise ValueError(f"stacks needs one list per seat ({n}); use [] for a seat with no cards")
    if len(set(cards)) != len(cards) or any(card >= size for card in cards):
        raise ValueError(f"stacks must hold distinct cards of the pack (ids below {size}; Jokers need jokers=True)")
    if sum(1 for stack in stacks if stack) < 2:
        raise ValueError("at least two seats must hold cards (one seat holding all cards has already won)")
    _clear_game(state)
    rules.clear_table(state)
    state.dealer = dealer
    state.deck[:] = NO_CARD
    for seat, stack in enumerate(stacks):
        state.stack[seat, : len(stack)] = stack
        state.stack_size[seat] = len(stack)
        for card in stack:
            state.in_play[card] = 1
    state.cards_in_play = len(cards)
    rules.start_play(state)


GAME = Game(
    name="slap",
    version=0,
    params_type=SlapParams,
    state_fields=state_fields,
    fill_params=fill_params,
    num_players=lambda params: params.num_players,
    num_actions=num_actions,
    action_name=action_name,
    observation_layout=observation_layout,
    render=render,
    apply_deal=apply_deal,
    rule_based_agent="agents.slap:SlapHeuristic",
    # Slow to simulate: a learner that is out waits while the others play the game to its end.
    training_defaults={"total_timesteps": 150_000, "gamma": 0.995, "ent_coef": 0.01, "net_arch": [64, 64]},
    deal_keys=("dealer", "deck", "stacks"),
    example_deals=(
        ({"num_players": 2, "windows": "slappable_only"},
         {"dealer": 1, "stacks": [["5c", "2c", "9c", "4c"], ["5d", "3d", "9d", "Kh"]]}),
        ({"num_players": 3}, {"dealer": 2, "stacks": [["Qs", "4h", "4c"], ["10c", "Jd"], ["7h", "7s", "Ac"]]}),
    ),
    check_invariants=rules.check_invariants,
    quick_params={"num_players": 2, "max_cards_played": 60},
    example_params=(
        {"num_players": 2},
        {"num_players": 4},
        {"num_players": 8},
        {"num_players": 3, "jokers": True, "penalty": 2, "slap_tiebreak": "reaction_noise"},
        {"num_players": 5, "drop_remainder": True, "windows": "slappable_only", "reward_scheme": "share_of_cards",
         "max_cards_played": 300},
        {"num_players": 2, "expose_play_action": True, "slap_tens": False, "slap_top_bottom": False,
         "chances_ace": 2, "chances_king": 2, "max_cards_played": 200},
    ),
    reset=rules.reset,
    step=rules.step,
    legal_mask=rules.legal_mask,
    observe=observe,
    penalize=rules.penalize,
)

assert MAX_CARDS == 54
