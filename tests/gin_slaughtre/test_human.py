"""A person at the terminal reads Gin Slaughtre's choices with cards as on the table and types suits as letters."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.human import HumanAgent, QuitGame, typed_form
from cardenvs.games.gin_slaughtre import GAME
from cardenvs.games.gin_slaughtre.actions import NUM_ARRANGEMENTS, SINGLE_BASE, run_action, set_action
from cardenvs.games.gin_slaughtre.cards import card_id, card_ids

HANDS = [["4C", "9S", "10H", "KD"], ["3C", "5D", "6D", "7D"]]
UPCARDS = [["9H", "2D", "JO1"], ["QS", "QH", "AC"]]


def _agent(env_id: str, **params) -> tuple[HumanAgent, list[str]]:
    shown: list[str] = []
    env = cardenvs.env(env_id, **params)
    agent = HumanAgent(env_id, env.unwrapped.layout, input_fn=lambda prompt: "q", output=shown.append)
    return agent, shown


def test_action_names_write_cards_as_the_table_does():
    params = GAME.make_params(min_set_size=2)
    assert GAME.action_name(params, SINGLE_BASE + card_id("4C")) == "play 4♣"
    assert GAME.action_name(params, SINGLE_BASE + card_id("JO2")) == "play Jo2"
    assert GAME.action_name(params, set_action(card_ids(["7S", "7C", "7D"]))) == "set 7♣ 7♦ 7♠"
    assert GAME.action_name(params, set_action(card_ids(["JO1", "JO2"]))) == "set Jo1 Jo2"
    assert GAME.action_name(params, run_action(3, 4, 4)) == "run 5♠-8♠"
    assert GAME.action_name(params, 0) == "upcards: cards #1 #2 #3 (by id)"  # no position given: places by id
    names = [GAME.action_name(params, a) for a in range(GAME.num_actions(params))]
    assert len(set(names)) == len(names)  # every action can be told apart by its name


def test_arrangements_name_the_upcards_they_make():
    env = cardenvs.env("gin_slaughtre_v0")
    env.reset(seed=0, options={"deal": {"dealer": 1, "hands": HANDS, "upcards": UPCARDS}})
    state = env.unwrapped.state_record
    keep = [GAME.action_name(env.unwrapped.params, a, state=state) for a in range(NUM_ARRANGEMENTS)]
    assert "upcards: 2♦ 9♥ Jo1" in keep and "upcards: 4♣ 9♠ 10♥" in keep and len(set(keep)) == NUM_ARRANGEMENTS
    agent, shown = _agent("gin_slaughtre_v0")
    agent.bind(env, 0)
    with pytest.raises(QuitGame, match="you quit"):
        agent.act(env.last()[0])
    listing = shown[-1]
    assert listing.startswith("legal actions:") and "upcards: 2♦ 9♥ Jo1" in listing and "#" not in listing
    assert agent.parse("upcards: 2d 9h jo1", np.arange(NUM_ARRANGEMENTS)) == (keep.index("upcards: 2♦ 9♥ Jo1"), "")


@pytest.mark.parametrize("typed", ["4c", "play 4c", "PLAY 4C", "4♣", "  play   4♣ "])
def test_suit_letters_match_suit_symbols(typed):
    agent, _ = _agent("gin_slaughtre_v0")
    legal = np.array([SINGLE_BASE + card_id(c) for c in ("4C", "4S", "10H", "KD")])
    assert agent.parse(typed, legal) == (SINGLE_BASE + card_id("4C"), "")


def test_suit_letters_pick_runs_sets_and_report_ambiguity():
    agent, _ = _agent("gin_slaughtre_v0")
    legal = np.array([run_action(3, 4, 3), run_action(3, 4, 4), SINGLE_BASE + card_id("5S"),
                      set_action(card_ids(["6C", "6D", "6H"]))])
    assert agent.parse("run 5s-7s", legal) == (run_action(3, 4, 3), "")
    assert agent.parse("5s-8s", legal) == (run_action(3, 4, 4), "")
    assert agent.parse("5s", legal) == (SINGLE_BASE + card_id("5S"), "")
    assert agent.parse("set 6c", legal) == (set_action(card_ids(["6C", "6D", "6H"])), "")
    action, message = agent.parse("run 5s", legal)
    assert action is None and "could be run 5♠-7♠, run 5♠-8♠" in message


def test_typed_form_is_the_same_for_every_game():
    assert typed_form("Play 10♥") == typed_form("play 10h") == "play 10h"
    assert typed_form("♤ ♧ ♡ ♢") == "s c h d"
    agent, _ = _agent("clabber_v0")  # a game whose names already use letters is matched as before
    assert agent.parse("play ac", np.array([0, 4])) == (0, "")


def test_the_other_seat_sees_only_that_an_arrangement_was_chosen():
    params = GAME.make_params()
    for action in range(NUM_ARRANGEMENTS):
        assert GAME.public_action_name(params, action) == "chooses its upcards"
    assert GAME.public_action_name(params, SINGLE_BASE + card_id("4C")) == "play 4♣"
