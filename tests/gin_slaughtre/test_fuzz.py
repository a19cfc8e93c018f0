"""Random play over many games keeps Gin Slaughtre's invariants (cards accounted for, a legal action, max_turns)."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.games.gin_slaughtre import GAME
from cardenvs.games.gin_slaughtre.actions import DRAW, SLOT_BASE, TAKE_PILE

ENV_ID = "gin_slaughtre_v0"


def _one_thread_unless_default(params: dict) -> bool | None:
    """The default rules play on numba's threads (the batched env's choice for big batches), a variant on one
    thread: a game plays the same either way, the other tests compile the one-thread kernel anyway, and a threaded
    kernel per variant would only cost compile time."""
    return None if not params else False


def _fuzz(
    params: dict, num_envs: int, steps: int, check_every: int, check_stride: int = 1, parallel: bool | None = None
) -> int:
    venv = cardenvs.vector_env(ENV_ID, num_envs, parallel=parallel, **params)
    venv.reset(seed=123)
    finished = 0
    max_turns = venv.params.max_turns
    for step in range(steps):
        _, masks, players, rewards, terminated, truncated = venv.step(venv.sample_actions())
        assert (masks.sum(axis=1) > 0).all() and (players >= 0).all()
        assert (venv.states.step_count <= max_turns).all()
        # +1/-1 on a win, 0/0 on truncation
        assert np.allclose(rewards.sum(axis=1), 0.0) and (np.abs(rewards) <= 1).all()
        assert (np.abs(rewards[terminated]).sum(axis=1) == 2).all() and (rewards[truncated] == 0).all()
        finished += int(terminated.sum() + truncated.sum())
        if step % check_every == 0:
            for i in range(step % check_stride, num_envs, check_stride):
                GAME.check_invariants(venv.states[i], venv.params)
    return finished


@pytest.mark.parametrize("params", [{}, {"num_downcards": 3, "min_set_size": 2, "max_turns": 300}])
def test_random_play_over_a_thousand_games_keeps_the_invariants(params):
    parallel = _one_thread_unless_default(params)
    assert _fuzz(params, num_envs=2048, steps=1000, check_every=61, check_stride=64, parallel=parallel) >= 600


@pytest.mark.slow
@pytest.mark.parametrize("params", GAME.example_params)
def test_long_random_play_keeps_the_invariants(params):
    assert _fuzz(params, num_envs=1024, steps=20_000, check_every=97, check_stride=16) >= 5000


def _reference_mask(state, params) -> np.ndarray:
    """The legal mask by brute force over the action table (an independent, vectorised reading of R6–R10, R15,
    R18–R20, R22): every card of the trick at the source, its first and last ranks allowed."""
    from cardenvs.games.gin_slaughtre.actions import ACTION_CARDS, ACTION_SIZE, NUM_ARRANGEMENTS
    from cardenvs.games.gin_slaughtre.rules import LOC_DOWN, PHASE_ARRANGE, PHASE_PLAY, source_location

    size = GAME.num_actions(params)
    mask = np.zeros(size, np.int8)
    if state.phase == PHASE_ARRANGE:
        mask[:NUM_ARRANGEMENTS] = 1
        return mask
    if state.phase != PHASE_PLAY:
        return mask
    player = int(state.current_player)
    source = source_location(state, player)
    if source == LOC_DOWN + player:
        for slot in range(state.num_downcards):
            mask[SLOT_BASE + slot] = state.downcards[player, slot] >= 0
    else:
        cards = ACTION_CARDS[:size].astype(np.int64)
        sizes = ACTION_SIZE[:size].astype(np.int64)
        location = np.append(np.asarray(state.location), source)  # padding (-1) reads as "at the source"
        at_source = (sizes > 0) & (location[cards] == source).all(axis=1)
        first = cards[:, 0] // 4
        last = cards[np.arange(size), np.maximum(sizes - 1, 0)] // 4
        two_or_nine = (first == last) & ((first == 1) | (first == 8))
        if state.restricted:
            by_rank = last <= 4
        elif state.pile_size == 0 or state.pile[state.pile_size - 1] // 4 == 1:
            by_rank = np.ones(size, bool)
        else:
            by_rank = first >= state.pile[state.pile_size - 1] // 4
        mask[:] = at_source & (two_or_nine | by_rank)
    playable = mask[:TAKE_PILE].any() or mask[TAKE_PILE + 2 :].any()
    mask[TAKE_PILE] = state.pile_size > 0
    mask[DRAW] = not playable and state.stock_size > 0
    return mask


@pytest.mark.parametrize("params", [{}, {"min_set_size": 2, "num_downcards": 3}])
def test_fast_mask_equals_brute_force_over_the_action_table(params):
    venv = cardenvs.vector_env(ENV_ID, 256, parallel=_one_thread_unless_default(params), **params)
    venv.reset(seed=8)
    mask = np.zeros(venv.num_actions, np.int8)
    checked = 0
    for step in range(600):
        _, masks, *_ = venv.step(venv.sample_actions())
        for i in range(step % 32, 256, 32):
            GAME.legal_mask(venv.states[i], mask)
            assert np.array_equal(mask, _reference_mask(venv.states[i], venv.params))
            assert np.array_equal(mask, masks[i])
            checked += 1
    assert checked == 4800
