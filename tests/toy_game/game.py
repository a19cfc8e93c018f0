"""High Card (``toy_v0``): a toy two-player game with hidden hands, written as the real games are.

It lives with the tests and is registered only by them (``cardenvs.register`` in-process, the
``CARDENVS_GAME_MODULES`` environment variable for a training subprocess). A game of the package keeps this
manifest in its ``__init__.py``; the test folders are not packages, so here it has a module of its own.
"""

from __future__ import annotations

from cardenvs.core.game import Game
from tests.toy_game import rules
from tests.toy_game.actions import action_name, num_actions
from tests.toy_game.deal import DEAL_KEYS, apply_deal
from tests.toy_game.observation import observation_layout, observe
from tests.toy_game.params import NUM_PLAYERS, ToyParams, fill_params, state_fields
from tests.toy_game.render import render, render_private

GAME = Game(
    name="toy",
    version=0,
    params_type=ToyParams,
    state_fields=state_fields,
    fill_params=fill_params,
    num_players=lambda params: NUM_PLAYERS,
    num_actions=num_actions,
    action_name=action_name,
    observation_layout=observation_layout,
    render=render,
    render_private=render_private,
    apply_deal=apply_deal,
    deal_keys=DEAL_KEYS,
    example_deals=(({}, {"hands": [[0, 5], [2, 3]]}),),
    check_invariants=rules.check_invariants,
    example_params=({}, {"deck_size": 12, "hand_size": 5}),
    quick_params={},
    rule_based_agent="tests.toy_game.agent:ToyHeuristic",
    reset=rules.reset,
    step=rules.step,
    legal_mask=rules.legal_mask,
    observe=observe,
    penalize=rules.penalize,
)
