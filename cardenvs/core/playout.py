"""Compiled playouts: games played to their end by a compiled policy at every seat, in one kernel call.

Search agents (:mod:`cardenvs.agents.search`) value a position by playing it out many times. With a policy in
Python every step of a batch is a round trip through the interpreter; with a compiled policy the whole playout stays
in compiled code, at engine speed, on numba's threads. Two policies are compiled:

* ``random``: a uniformly random legal action, drawn from the record's own generator (the search agents reseed
  every copy first), so a playout depends only on its record;
* ``rule_based``: the game's rule-based agent, where its class has a ``compiled_policy`` (the very function its
  ``act_batch`` calls; see :func:`cardenvs.core.dispatch.rule_based_policy`). It reads only the observation and
  the legal mask of the seat to act, written by the game's own ``observe``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardenvs.core.dispatch import (
    engine_legal_mask,
    engine_observe,
    engine_rule_based_action,
    engine_step,
    registered_game,
    rule_based_policy,
)
from cardenvs.core.rng import rand_below
from cardenvs.core.single import engine_view

#: the rollout policies a compiled playout can play
POLICIES = ("random", "rule_based")


@njit(cache=True)
def _random_action(state, mask):
    """A uniformly random legal action, from the record's generator."""
    engine_legal_mask(state, mask)
    pick = rand_below(state, mask.sum())
    for action in range(mask.shape[0]):
        if mask[action]:
            if pick == 0:
                return action
            pick -= 1
    return -1  # not reached: a game in progress has a legal action


@njit(cache=True)
def _random_play_out(state, first_action, max_decisions, observation, mask, returns):
    """Play ``first_action``, then random legal actions to the end or until ``max_decisions`` more were taken
    (negative: no limit); add every seat's rewards to ``returns``."""
    engine_step(state, first_action)
    returns[:] += state.rewards
    taken = 0
    while not (state.terminated or state.truncated) and (max_decisions < 0 or taken < max_decisions):
        taken += 1
        engine_step(state, _random_action(state, mask))
        returns[:] += state.rewards


@njit(cache=True)
def _rule_based_play_out(state, first_action, max_decisions, observation, mask, returns):
    """As :func:`_random_play_out`, with the game's rule-based policy choosing from the seat's observation."""
    engine_step(state, first_action)
    returns[:] += state.rewards
    taken = 0
    while not (state.terminated or state.truncated) and (max_decisions < 0 or taken < max_decisions):
        taken += 1
        engine_observe(state, state.current_player, observation, mask)
        engine_step(state, engine_rule_based_action(state, observation, mask))
        returns[:] += state.rewards


@njit(cache=True, parallel=True)
def _random_play_out_all(states, first_actions, max_decisions, observations, masks, returns):
    for i in prange(states.shape[0]):
        _random_play_out(states[i], first_actions[i], max_decisions, observations[i], masks[i], returns[i])


@njit(cache=True, parallel=True)
def _rule_based_play_out_all(states, first_actions, max_decisions, observations, masks, returns):
    for i in prange(states.shape[0]):
        _rule_based_play_out(states[i], first_actions[i], max_decisions, observations[i], masks[i], returns[i])


def compiled_playouts(
    records: np.ndarray,
    first_actions: np.ndarray,
    num_actions: int,
    policy: str = "random",
    observation_size: int = 0,
    max_decisions: int = -1,
) -> np.ndarray:
    """Each seat's return over the playout of each record, float64 ``[R, P]``.

    Args:
        records: games in progress (a structured array of one game's record type; played out in place, so pass a
            copy you do not need), each with a generator state of its own.
        first_actions: a legal action per record, played first.
        num_actions: the game's number of actions (the legal mask's size).
        policy: ``random`` or ``rule_based`` (:data:`POLICIES`; the module docstring).
        observation_size: the length of the game's observation (its layout's size), needed by ``rule_based``.
        max_decisions: stop after this many policy decisions past the first action (negative: play to the end);
            the records of games not over then hold where they stopped.

    Raises:
        ValueError: an unknown policy, or ``rule_based`` without an observation size.
        TypeError: ``rule_based`` for a game whose rule-based agent has no compiled policy.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy={policy!r} is not allowed; choose one of {', '.join(POLICIES)}")
    if policy == "rule_based":
        rule_based_policy(registered_game(records.dtype.names))  # a game without one fails here, not in the compiler
        if observation_size < 1:
            raise ValueError("a rule_based playout needs the game's observation_size")
    returns = np.zeros((len(records), records.dtype["rewards"].shape[0]))
    masks = np.zeros((len(records), num_actions), np.int8)
    observations = np.zeros((len(records), observation_size), np.float32)
    kernel = _random_play_out_all if policy == "random" else _rule_based_play_out_all
    kernel(engine_view(records), np.asarray(first_actions, np.int64), int(max_decisions), observations, masks,
           returns)
    return returns
