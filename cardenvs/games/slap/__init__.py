"""Slap (``slap_v0``): Egyptian Ratscrew for 2–8 players. Rules: docs/rules/slap.md.

Card plays are automatic; after every card each player still in secretly chooses PASS (0) or SLAP (1) in a
slap window, and the window is resolved only when all have chosen (simultaneous correct slaps are settled by
the game's seeded chance). ``env(num_players=4)``, ``raw_env(...)`` and ``vector_env(num_envs, ...)`` take the
parameters listed in the docs (slap rules on/off, face-card chances, penalty, Jokers, ``max_cards_played``…).
"""

from __future__ import annotations

from cardenvs.core.game import Game
from cardenvs.games.slap import rules, state, validation
from cardenvs.games.slap.actions import ACTION_NAMES, action_name, num_actions, public_action_name
from cardenvs.games.slap.cards import MAX_CARDS
from cardenvs.games.slap.deal import apply_deal
from cardenvs.games.slap.observation import observation_layout, observe
from cardenvs.games.slap.params import SlapParams, fill_params, state_fields
from cardenvs.games.slap.render import describe_step, picture, render
from cardenvs.games.slap.resample import resample
from cardenvs.games.slap.words import final_words, move_words

GAME = Game(
    name="slap",
    version=0,
    params_type=SlapParams,
    state_fields=state_fields,
    fill_params=fill_params,
    num_players=lambda params: params.num_players,
    num_actions=num_actions,
    action_name=action_name,
    public_action_name=public_action_name,
    describe_step=describe_step,
    observation_layout=observation_layout,
    render=render,
    move_words=move_words,
    final_words=final_words,
    picture=picture,
    apply_deal=apply_deal,
    rule_based_agent="cardenvs.agents.slap:SlapHeuristic",
    openspiel_facts="cardenvs.games.slap.spiel:facts",
    # Slow to simulate: a learner that is out waits while the others play the game to its end.
    deal_keys=("dealer", "deck", "stacks"),
    example_deals=(
        ({"num_players": 2, "windows": "slappable_only"},
         {"dealer": 1, "stacks": [["5c", "2c", "9c", "4c"], ["5d", "3d", "9d", "Kh"]]}),
        ({"num_players": 3}, {"dealer": 2, "stacks": [["Qs", "4h", "4c"], ["10c", "Jd"], ["7h", "7s", "Ac"]]}),
    ),
    check_invariants=rules.check_invariants,
    field_ranges=validation.field_ranges,
    check_record=validation.check_record,
    quick_params={"num_players": 2, "max_cards_played": 60},
    search_defaults={"determinizations": 4, "rollouts": 1, "rollout": "random"},
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
    state_layout=state.state_layout,
    encode_state=state.encode_state,
    observation_sources=state.OBSERVATION_SOURCES,
    check_global_state=state.check_global_state,
    resample=resample,
)

assert MAX_CARDS == 54

__all__ = ["ACTION_NAMES", "GAME", "action_name", "apply_deal", "num_actions"]
