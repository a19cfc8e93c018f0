"""Slabberjan (``slabberjan_v0``): the Zeeland Cuckoo game for 2–42 players. Rules: docs/rules/slabberjan.md.

``env(num_players=5)``, ``raw_env(...)`` and ``vector_env(num_envs, ...)`` take the parameters listed there.
"""

from __future__ import annotations

from cardenvs.core.game import Game
from cardenvs.games.slabberjan import rules, state, validation
from cardenvs.games.slabberjan.actions import ACTION_NAMES, action_name, num_actions
from cardenvs.games.slabberjan.deal import apply_deal
from cardenvs.games.slabberjan.observation import observation_layout, observe
from cardenvs.games.slabberjan.params import SlabberjanParams, fill_params, state_fields
from cardenvs.games.slabberjan.render import picture, render, render_private
from cardenvs.games.slabberjan.resample import resample
from cardenvs.games.slabberjan.words import final_words, move_words

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
    move_words=move_words,
    final_words=final_words,
    picture=picture,
    apply_deal=apply_deal,
    rule_based_agent="cardenvs.agents.slabberjan:SlabberjanHeuristic",
    openspiel_facts="cardenvs.games.slabberjan.spiel:facts",
    deal_keys=("dealer", "pieces", "bag"),
    example_deals=(
        ({}, {"dealer": 2, "pieces": ["5", "fool", "knight", "3"]}),
        ({"num_players": 3, "dealer_may_swap_left": True}, {"dealer": 0, "pieces": ["cat", "2", "bird"]}),
    ),
    check_invariants=rules.check_invariants,
    field_ranges=validation.field_ranges,
    check_record=validation.check_record,
    quick_params={"num_players": 3},
    search_defaults={"determinizations": 32, "rollouts": 1, "rollout": "trained", "depth": 4},
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
    state_layout=state.state_layout,
    encode_state=state.encode_state,
    observation_sources=state.OBSERVATION_SOURCES,
    check_global_state=state.check_global_state,
    resample=resample,
)

__all__ = ["ACTION_NAMES", "GAME", "action_name", "apply_deal", "num_actions"]
