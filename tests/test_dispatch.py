"""cardenvs.core.dispatch: the compiled kernels find a game's rules by its state record's field names, so two
games whose records have the same field names are refused instead of one silently running the other's rules."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import cardenvs
from cardenvs.core import dispatch
from cardenvs.core.dispatch import engine_reset, register_engine
from cardenvs.core.game import new_states
from tests.toy_game import rules as toy_rules
from tests.toy_game.game import GAME as TOY

SEED = 7


def _field_names(game) -> tuple[str, ...]:
    return game.state_dtype(game.params_type()).names


def _impostor_reset(state, seed):
    raise AssertionError("the second game's rules ran on the first game's record")


def _fresh_record(game) -> np.record:
    """A record of ``game``'s default parameters as a reset receives it: parameter fields filled, the rest zero."""
    states, template = new_states(game, game.make_params(), 1)
    states.view(np.uint8)[:] = template
    return states.view(np.recarray)[0]


def test_a_second_game_with_the_same_field_names_is_refused_naming_both():
    with pytest.raises(ValueError, match=r"low_card_v0 cannot be registered: .* same field names as toy_v0's"):
        dataclasses.replace(TOY, name="low_card", reset=_impostor_reset)


def test_the_first_game_keeps_its_rules_after_a_refused_second_game():
    with pytest.raises(ValueError, match="toy_v0"):
        dataclasses.replace(TOY, name="low_card", reset=_impostor_reset)
    dispatched, direct = _fresh_record(TOY), _fresh_record(TOY)
    engine_reset(dispatched, np.uint64(SEED))  # plain Python here: the game is looked up from the record's dtype
    toy_rules.reset(direct, np.uint64(SEED))
    assert dispatched.tobytes() == direct.tobytes()
    assert dispatched.hand.sum() == 2 * TOY.make_params().hand_size


def test_a_built_in_game_is_protected_too():
    slap = cardenvs.get_game("slap_v0")
    with pytest.raises(ValueError, match=r"slap_copy_v0 cannot be registered: .* same field names as slap_v0's"):
        dataclasses.replace(slap, name="slap_copy")
    assert dispatch.registered_game(_field_names(slap)) is slap


def test_a_new_definition_of_the_same_game_takes_its_place():
    names = _field_names(TOY)
    plain = dataclasses.replace(TOY, picture=None)  # same env id: a new definition of the toy game
    try:
        assert dispatch.registered_game(names) is plain
    finally:
        register_engine(names, TOY)
    assert dispatch.registered_game(names) is TOY


def test_registering_the_same_game_again_changes_nothing():
    names = _field_names(TOY)
    register_engine(names, TOY)
    assert dispatch.registered_game(names) is TOY
