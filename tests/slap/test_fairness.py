"""Fair simultaneous slapping (rule:simultaneous_slaps): hidden choices, order-free resolution, seeded uniform ties."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cardenvs.core.game import new_states
from cardenvs.games.slap import GAME
from cardenvs.games.slap.rules import PASS, PHASE_WINDOW, SLAP


def _window_starts(num_players: int, count: int, seed: int, **params):
    """Records (1-element arrays) at the opening of slap windows, from random play of several games."""
    game_params = GAME.make_params(num_players=num_players, **params)
    states, template = new_states(GAME, game_params, 1)
    states = states.view(np.recarray)
    rng = np.random.default_rng(seed)
    found = []
    game = 0
    while len(found) < count:
        states.view(np.uint8)[:] = template
        GAME.reset(states[0], np.uint64(seed * 1000 + game))
        game += 1
        state = states[0]
        while not (state.terminated or state.truncated) and len(found) < count:
            if state.phase == PHASE_WINDOW and state.window_index == 0 and rng.random() < 0.3:
                found.append(states.copy())
            GAME.step(state, SLAP if rng.random() < 0.3 else PASS)
    return found


def _answer_window(record, choice_of_seat):
    """Feed each asked seat its choice, in whatever order the record asks."""
    while record.phase == PHASE_WINDOW:
        GAME.step(record, SLAP if choice_of_seat[int(record.current_player)] else PASS)
        if record.window_index == 0:
            break  # the next window has opened


@pytest.mark.parametrize("tiebreak", ["uniform", "reaction_noise"])
def test_window_outcome_does_not_depend_on_the_asking_order(tiebreak):
    rng = np.random.default_rng(7)
    compared = 0
    for start in _window_starts(4, 150, seed=1, slap_tiebreak=tiebreak):
        record = start[0]
        size = int(record.window_size)
        choices = rng.random(4) < 0.5
        reference = start.copy()
        _answer_window(reference[0], choices)
        permuted = start.copy()
        order = rng.permutation(record.window_order[:size])
        permuted[0].window_order[:size] = order
        permuted[0].current_player = order[0]
        _answer_window(permuted[0], choices)
        for name in reference.dtype.names:
            if name != "window_order" or reference[0].phase == PHASE_WINDOW:  # a new window: its own order
                assert np.array_equal(reference[0][name], permuted[0][name]), name
        compared += 1
    assert compared == 150


def test_an_observation_carries_nothing_about_choices_made_earlier_in_the_window():
    layout = GAME.observation_layout(GAME.make_params(num_players=4))
    for start in _window_starts(4, 40, seed=2):
        size = int(start[0].window_size)
        for position in range(size):
            seen = None
            for earlier in itertools.product((PASS, SLAP), repeat=position):
                record = start.copy()
                for action in earlier:
                    GAME.step(record[0], action)
                assert int(record[0].window_index) == position
                views = []
                for seat in range(4):
                    obs = np.zeros(layout.size, np.float32)
                    mask = np.zeros(2, np.int8)
                    GAME.observe(record[0], seat, obs, mask)
                    views.append(np.concatenate([obs, mask]))
                if seen is None:
                    seen = views
                for seat in range(4):
                    assert np.array_equal(views[seat], seen[seat]), (position, earlier, seat)


def test_the_tie_break_draws_only_from_the_games_own_generator():
    starts = _window_starts(3, 20, seed=3)
    for start in starts:
        first, second = start.copy(), start.copy()
        everyone = np.ones(3, bool)
        _answer_window(first[0], everyone)
        _answer_window(second[0], everyone)
        assert np.array_equal(first, second)
