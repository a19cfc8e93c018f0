"""Gin Slaughtre (``gin_slaughtre_v0``): a two-player Shithead-style shedding game. Rules: docs/rules/gin_slaughtre.md.

54 cards (two Jokers); 4 hand cards and 3 upcards each, arranged in secret; play a card, a set or a run at or
above the pile's top; 2s, 9s, 5s, Jacks and Jokers are special. ``env()``, ``raw_env()`` and
``vector_env(num_envs)`` take the parameters listed there (``min_set_size``, ``num_downcards``, ``max_turns``…).
"""

from __future__ import annotations

from cardenvs.core.game import Game
from cardenvs.games.gin_slaughtre import rules, state, validation
from cardenvs.games.gin_slaughtre.actions import action_name, num_actions, public_action_name
from cardenvs.games.gin_slaughtre.deal import DEAL_KEYS, apply_deal, deck_from_deal
from cardenvs.games.gin_slaughtre.observation import observation_layout, observe
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS, GinSlaughtreParams, fill_params, state_fields
from cardenvs.games.gin_slaughtre.render import describe_step, picture, render, render_private
from cardenvs.games.gin_slaughtre.resample import resample
from cardenvs.games.gin_slaughtre.words import final_words, move_words

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
    move_words=move_words,
    final_words=final_words,
    picture=picture,
    apply_deal=apply_deal,
    rule_based_agent="cardenvs.agents.gin_slaughtre:GinSlaughtreHeuristic",
    openspiel_facts="cardenvs.games.gin_slaughtre.spiel:facts",
    # Games of hundreds of learner decisions, rewarded only at the end: a longer discount horizon.
    deal_keys=DEAL_KEYS,
    example_deals=(
        ({}, {"dealer": 1, "hands": [["3C", "4C", "5C", "6C"], ["3D", "4D", "5D", "6D"]],
              "upcards": [["KC", "QC", "JC"], ["KD", "QD", "JD"]]}),
        ({}, {"dealer": 0, "hands": [["3C", "4C", "5C", "6C"], ["3D", "4D", "5D", "6D"]],
              "upcards": [["KC", "QC", "JC"], ["KD", "QD", "JD"]], "stock": ["AS", "2S"]}),
    ),
    check_invariants=rules.check_invariants,
    field_ranges=validation.field_ranges,
    check_record=validation.check_record,
    quick_params={"max_turns": 120},
    search_defaults={"determinizations": 4, "rollouts": 1, "rollout": "heuristic"},
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
    state_layout=state.state_layout,
    encode_state=state.encode_state,
    observation_sources=state.OBSERVATION_SOURCES,
    check_global_state=state.check_global_state,
    public_action_name=public_action_name,
    resample=resample,
)

__all__ = ["DEAL_KEYS", "GAME", "action_name", "apply_deal", "deck_from_deal", "num_actions"]
