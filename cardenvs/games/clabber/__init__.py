"""Clabber (``clabber_v0``): four players in partnerships, Jack–Nine trumps, melds and the Bell. Rules:
docs/rules/clabber.md.

Teams are player_0 + player_2 against player_1 + player_3, and both partners get the team's reward: +1/−1/0
when a team reaches ``target_score`` (500), or with ``single_hand=True`` one hand per episode and a reward of
(own − opponents' points) / 162. Actions: 0–23 play a card, 24 pass, 25 accept the turn-up's suit, 26–29 name
clubs/diamonds/hearts/spades (30/31 declare/skip with ``optional_declare``). ``env(...)``, ``raw_env(...)``
and ``vector_env(num_envs, ...)`` take the parameters listed in the docs; ``reset(options={"deal": ...})``
starts from a chosen deal.
"""

from __future__ import annotations

from cardenvs.core.game import Game
from cardenvs.games.clabber import rules, state, validation
from cardenvs.games.clabber.actions import action_name, num_actions
from cardenvs.games.clabber.cards import NUM_RANKS
from cardenvs.games.clabber.deal import apply_deal, deal_order
from cardenvs.games.clabber.observation import observation_layout, observe
from cardenvs.games.clabber.params import NUM_PLAYERS, ClabberParams, fill_params, state_fields
from cardenvs.games.clabber.render import picture, render, render_private
from cardenvs.games.clabber.resample import resample
from cardenvs.games.clabber.words import final_words, move_words, table_caption

GAME = Game(
    name="clabber",
    version=0,
    params_type=ClabberParams,
    state_fields=state_fields,
    fill_params=fill_params,
    num_players=lambda params: NUM_PLAYERS,
    num_actions=num_actions,
    action_name=action_name,
    observation_layout=observation_layout,
    render=render,
    move_words=move_words,
    final_words=final_words,
    table_caption=table_caption,
    picture=picture,
    apply_deal=apply_deal,
    rule_based_agent="cardenvs.agents.clabber:ClabberHeuristic",
    openspiel_facts="cardenvs.games.clabber.spiel:facts",
    deal_keys=("dealer", "deck", "hands", "turn_up"),
    example_deals=(
        ({}, {"dealer": 3, "hands": [
            ["AS", "KS", "QS", "JS", "10S", "9S"], ["AC", "KC", "QC", "JC", "10C", "9C"],
            ["AD", "KD", "QD", "JD", "10D", "9D"], ["AH", "KH", "QH", "JH", "10H", "9H"]]}),
        ({"optional_declare": True}, {"dealer": 0, "hands": [
            ["JH", "9H", "AH", "10S", "KS", "QS"], ["AC", "KC", "QC", "JC", "10C", "9C"],
            ["AD", "KD", "QD", "JD", "10D", "9D"], ["10H", "KH", "QH", "AS", "JS", "9S"]], "turn_up": "QS"}),
    ),
    check_invariants=rules.check_invariants,
    field_ranges=validation.field_ranges,
    check_record=validation.check_record,
    resample=resample,
    quick_params={"single_hand": True},
    search_defaults={"determinizations": 64, "rollouts": 4, "rollout": "random"},
    search_response_defaults={"determinizations": 32, "rollouts": 1, "rollout": "trained", "depth": 16},
    example_params=(
        {},
        {"single_hand": True},
        {"target_score": 200, "fail_rule": "belote_dedans", "tie_rule": "litige", "partner_exemption": True,
         "seq_tiebreak": "top_card_first", "optional_declare": True},
        {"single_hand": True, "optional_declare": True, "tie_rule": "litige"},
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
)

__all__ = ["GAME", "NUM_RANKS", "action_name", "apply_deal", "deal_order", "num_actions"]
