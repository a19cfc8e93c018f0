"""Stabby Jack (``stabby_jack_v0``): the "5-minute RPG" for 2–8 players. Rules: docs/rules/stabby_jack.md.

Each player keeps a face-up row of 4–8 numbered Stat cards (♥ hit points, ♦ magic, ♠ attack, ♣ luck) and an
XP row of beaten monsters. A turn is TRAIN (draw and replace a Stat), FIGHT (draw a monster, beat it with
attack or magic for XP) or REST (heal 1), with LEVEL_UP (5 XP for a new Stat) as a free extra; drawn Specials
(Stabby Jack, Monarchs, Aces that swap Stats between players, Jokers) take over the turn. A player wins with
10 XP, more attack or magic than every opponent's HP left, and the most luck, all at once; +1 for the winner,
−1 for the others, 0 for everyone at ``max_turns``. Perfect information: the observation is the whole table.

``env(num_players=4)``, ``raw_env(...)`` and ``vector_env(num_envs, ...)`` take the parameters listed there
(``num_players``, ``max_players``, ``jokers``, ``level_up_is_action``, ``level_up_payment``,
``win_uses_max_hp``, ``max_turns``).
"""

from cardenvs.core.game import Game
from cardenvs.games.stabby_jack import rules, state, validation
from cardenvs.games.stabby_jack.actions import action_name, num_actions
from cardenvs.games.stabby_jack.deal import apply_deal
from cardenvs.games.stabby_jack.observation import observation_layout, observe
from cardenvs.games.stabby_jack.params import StabbyJackParams, fill_params, state_fields
from cardenvs.games.stabby_jack.render import picture, render
from cardenvs.games.stabby_jack.resample import resample
from cardenvs.games.stabby_jack.words import final_words, move_words

GAME = Game(
    name="stabby_jack",
    version=0,
    params_type=StabbyJackParams,
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
    rule_based_agent="cardenvs.agents.stabby_jack:StabbyJackHeuristic",
    openspiel_facts="cardenvs.games.stabby_jack.spiel:facts",
    # Games of hundreds of learner decisions, rewarded only at the end: a longer discount horizon.
    deal_keys=("dealer", "deck", "stats", "xp", "damage", "discard", "rest"),
    example_deals=(
        ({}, {"dealer": 1, "stats": [["5H", "7D", "2S", "9C"], ["4H", "6D", "3S", "8C"]],
              "xp": [["2D", "3D", "4D", "5D", "6S"], ["2C", "3C", "4C", "5C", "6C"]]}),
        ({}, {"dealer": 1, "stats": [["5H", "7D", "2S", "9C"], ["4H", "6D", "3S", "8C"]], "deck": ["AH", "JS"]}),
    ),
    check_invariants=rules.check_invariants,
    field_ranges=validation.field_ranges,
    check_record=validation.check_record,
    resample=resample,
    quick_params={"max_turns": 40},
    private_hands=False,
    search_defaults={"determinizations": 8, "rollouts": 1, "rollout": "trained", "depth": 4},
    example_params=(
        {},
        {"num_players": 3, "jokers": True, "max_players": 8},
        {"num_players": 5, "level_up_payment": "player_choice", "level_up_is_action": True},
        {"num_players": 8, "jokers": True, "win_uses_max_hp": True},
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
)

__all__ = ["GAME", "StabbyJackParams"]
