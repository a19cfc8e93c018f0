"""Slap through the PettingZoo env: chosen deals, a full game by hand, and a render that keeps secrets."""

from __future__ import annotations

import numpy as np

import cardenvs
from cardenvs.games.slap.rules import PASS, SLAP


def test_a_chosen_deal_played_through_the_aec_env():
    env = cardenvs.env("slap_v0", num_players=3, render_mode="ansi")
    env.reset(seed=0, options={"deal": {"dealer": 2, "stacks": [["4c", "9c"], ["4h"], []]}})
    views = env.unwrapped.layout.split(env.observe("player_1")["observation"])
    assert views["stack_sizes"].tolist() == [1.0, 0.0, 1.0]  # seat 1's view: itself, seat 2, seat 0
    assert env.agent_selection == "player_0"
    for _ in range(3):  # 4c: everybody passes
        env.step(PASS)
    assert env.agent_selection == "player_1"  # seat 1 played 4h and is asked first
    env.step(PASS)
    env.step(SLAP)  # seat 2, holding nothing, slaps in on the double
    env.step(PASS)
    assert env.unwrapped.state_record.stack_size.tolist() == [1, 0, 1]
    assert "top): 4c" in env.render() and "player_2: 1 card " in env.render()  # seat 2 led with 4c at once
    while not env.terminations[env.agent_selection]:
        env.step(PASS)
    assert env.rewards == {"player_0": -1.0, "player_1": -1.0, "player_2": 1.0}


def test_render_shows_public_things_only():
    env = cardenvs.env("slap_v0", num_players=3, render_mode="ansi")
    env.reset(seed=0, options={"deal": {"dealer": 2, "stacks": [["4c", "9c", "Kd"], ["7h", "Qs"], ["2d"]]}})
    before = env.render()
    assert "4c" in before and "9c" not in before and "Qs" not in before and "Kd" not in before
    env.step(SLAP)
    after_slap = env.render()
    env.reset(seed=0, options={"deal": {"dealer": 2, "stacks": [["4c", "9c", "Kd"], ["7h", "Qs"], ["2d"]]}})
    env.step(PASS)
    assert env.render() == after_slap  # a choice in an open window is not shown
    assert "1 of 3 seats have chosen" in after_slap


def test_a_full_deck_deal_is_reproducible_through_the_env():
    deck = list(np.random.default_rng(3).permutation(52))
    first, second = cardenvs.env("slap_v0"), cardenvs.env("slap_v0")
    first.reset(seed=1, options={"deal": {"dealer": 0, "deck": deck}})
    second.reset(seed=1, options={"deal": {"dealer": 0, "deck": [int(c) for c in deck]}})
    assert first.unwrapped.snapshot() == second.unwrapped.snapshot()
    assert first.unwrapped.state_record.deck[:52].tolist() == [int(c) for c in deck]


def test_a_window_s_choices_stay_secret_until_it_closes_and_a_slap_is_announced_then():
    env = cardenvs.env("slap_v0", num_players=3)
    env.reset(seed=0, options={"deal": {"dealer": 2, "stacks": [["4c", "9c"], ["4h"], []]}})
    game, params = env.unwrapped.game, env.unwrapped.params
    assert {game.public_action_name(params, a) for a in (PASS, SLAP)} == {"chooses (shown when the window closes)"}
    announced = []
    for action in (PASS, PASS, PASS, PASS, SLAP, PASS):  # 4c: all pass (nothing said); 4h: seat 2 slaps the double
        before = env.unwrapped.state_record.copy()
        env.step(action)
        announced.append(game.describe_step(before, env.unwrapped.state_record.copy(), params))
    assert announced[:5] == [[]] * 5
    assert announced[5] == ["the slap window closes: player_2 slapped; player_2 wins the pile"]
