"""Each game's OpenSpiel facts live with the game (``cardenvs/games/<game>/spiel.py``, named by
``Game.openspiel_facts``) and read without OpenSpiel installed: these tests do not need pyspiel."""

from __future__ import annotations

import subprocess
import sys

import pytest

import cardenvs
from cardenvs.core.game import import_target
from cardenvs.core.spiel_facts import OpenSpielFacts, Utility, win_loss_utility

#: the five built-in games, each with its facts
BUILT_IN = ("clabber_v0", "gin_slaughtre_v0", "slabberjan_v0", "slap_v0", "stabby_jack_v0")


def _facts(env_id: str, **params) -> OpenSpielFacts:
    game = cardenvs.get_game(env_id)
    return import_target(game.openspiel_facts)(game.make_params(**params))


@pytest.mark.parametrize("env_id", BUILT_IN)
def test_each_game_names_its_own_facts_module(env_id):
    game = cardenvs.get_game(env_id)
    assert game.openspiel_facts == f"cardenvs.games.{game.name}.spiel:facts"
    for params in ({}, *game.example_params):
        facts = _facts(env_id, **params)
        assert isinstance(facts, OpenSpielFacts)
        assert isinstance(facts.utility, Utility)
        low, high = facts.utility_range
        assert low < high
        assert facts.max_game_length >= 1


def test_the_facts_read_without_openspiel():
    """A fresh process reads every game's facts and never imports pyspiel (the games are a lower layer)."""
    code = (
        "import sys, cardenvs\n"
        "from cardenvs.core.game import import_target\n"
        f"for env_id in {BUILT_IN!r}:\n"
        "    game = cardenvs.get_game(env_id)\n"
        "    import_target(game.openspiel_facts)(game.make_params())\n"
        "assert 'pyspiel' not in sys.modules and 'open_spiel' not in sys.modules, 'OpenSpiel was imported'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def test_the_facts_follow_the_parameters():
    assert _facts("clabber_v0").team_game and _facts("clabber_v0").utility is Utility.ZERO_SUM
    assert _facts("clabber_v0").utility_range == (-1.0, 1.0)
    low, high = _facts("clabber_v0", single_hand=True).utility_range
    assert low == -high and high > 1.0  # the margin / 162 with melds and the Bell can pass 1
    assert _facts("clabber_v0", max_hands=3).max_game_length == 3 * _facts("clabber_v0", max_hands=1).max_game_length
    assert _facts("gin_slaughtre_v0", max_turns=77).max_game_length == 77
    assert _facts("slabberjan_v0", num_players=2).utility is Utility.ZERO_SUM
    assert _facts("slabberjan_v0", num_players=3).utility is Utility.GENERAL_SUM
    assert _facts("slabberjan_v0", num_players=3, reward_scheme="placement").utility is Utility.ZERO_SUM
    assert _facts("slap_v0", reward_scheme="share_of_cards").utility_range == (0.0, 1.0)
    assert _facts("slap_v0", reward_scheme="share_of_cards", num_players=2).utility is Utility.GENERAL_SUM
    assert _facts("slap_v0", num_players=2, max_cards_played=10).max_game_length == 30
    assert _facts("stabby_jack_v0", num_players=3).utility is Utility.GENERAL_SUM
    assert not any(_facts(env_id).team_game for env_id in BUILT_IN if env_id != "clabber_v0")


def test_win_loss_utility_and_bad_facts():
    assert win_loss_utility(2) is Utility.ZERO_SUM
    assert win_loss_utility(5) is Utility.GENERAL_SUM
    with pytest.raises(ValueError, match="utility_range"):
        OpenSpielFacts(Utility.ZERO_SUM, (1.0, 1.0), 10)
    with pytest.raises(ValueError, match="max_game_length"):
        OpenSpielFacts(Utility.ZERO_SUM, (-1.0, 1.0), 0)
