"""The compiled rule-based Clabber agent: it makes the recorded actions of seeded games, ``act``, ``act_batch`` and
its ``compiled_policy`` agree, and the fixed offsets it reads at are those of every parameter set's layout.

The golden fingerprints below were recorded from the agent's former Python implementation (the one that decoded the
observation through ``layout.split``), so the compiled one must choose exactly as it did, ties included. They change
when the strategy changes on purpose, and when the rules or the seeded deals do: re-record them then with
``python -m tests.clabber.test_compiled_agent`` (it prints them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import textwrap

import numpy as np
import pytest

import cardenvs
from cardenvs.agents import RandomAgent
from cardenvs.agents.base import Agent, act_on_rows
from cardenvs.agents.clabber import ACCEPT_AT, NAME_AT, READ_BLOCKS, ClabberHeuristic, check_layout
from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.clabber.actions import num_actions
from cardenvs.games.clabber.observation import observation_layout
from cardenvs.games.clabber.params import (
    FAIL_RULES,
    MAX_HANDS_LIMIT,
    MAX_TARGET_SCORE,
    SEQ_TIEBREAKS,
    TIE_RULES,
    ClabberParams,
)
from cardenvs.games.clabber.rules import DECLARE, NUM_ACTIONS_WITH_DECLARE, NUM_BASE_ACTIONS

ENV_ID = "clabber_v0"
NUM_SEATS = 4
GAMES = 200
SEED = 2024
#: explicit actions kept per golden case: a failure names the first of them that differs
SHOWN = 300
LINE_LENGTH = 120  # ruff's, for the printed golden cases


@dataclasses.dataclass(frozen=True)
class Golden:
    """The heuristic's actions along ``GAMES`` seeded games with ``params`` against random players
    (:func:`heuristic_actions_along_games`): how many, the sha256 of their int64 sequence, and the first ``SHOWN``."""

    params: dict
    count: int
    sha256: str
    first: tuple[int, ...]


def heuristic_actions_along_games(heuristic: Agent, params: dict, games: int = GAMES, seed: int = SEED) -> np.ndarray:
    """Every action ``heuristic`` takes in ``games`` batched games seeded ``seed``: it plays one team (team 0 in even
    games, team 1 in odd ones) and a seeded random agent the other; its actions in step order, each step's in row
    order (int64)."""
    venv = cardenvs.vector_env(ENV_ID, games, parallel=False, **params)
    observations, masks, players = venv.reset(seed=seed)
    teams = np.arange(games) % 2
    seating = np.where(np.arange(NUM_SEATS) % 2 == teams[:, None], 0, 1)  # agent 0: the heuristic
    agents = [heuristic, RandomAgent(seed=seed)]
    playing = np.ones(games, bool)
    actions = np.zeros(games, np.int64)
    taken = []
    while playing.any():
        act_on_rows(agents, seating, observations, masks, players, actions, rows=playing)
        taken.append(actions[playing & (seating[np.arange(games), players] == 0)].copy())
        observations, masks, players, _, terminated, truncated = venv.step(actions, active=playing)
        playing &= ~(terminated | truncated)
    return np.concatenate(taken).astype(np.int64)


def fingerprint(actions: np.ndarray) -> tuple[int, str, tuple[int, ...]]:
    return len(actions), hashlib.sha256(actions.astype("<i8").tobytes()).hexdigest(), tuple(actions[:SHOWN].tolist())


GOLDEN = (
    # recorded from the former Python implementation (module docstring)
    Golden(
        {}, 8337,
        "2547e9282379822d4cec50975367bb1fcf629743f1b5faf517c0f95107354357",
        (
            24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 25, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 25, 24, 24, 24, 24,
            24, 25, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
            24, 24, 24, 24, 24, 24, 25, 24, 24, 24, 24, 25, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
            24, 24, 25, 25, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 25, 24, 24, 24, 24, 25, 25, 24, 24,
            15, 24, 24, 21, 24, 24, 24, 24, 24, 24, 24, 21, 24, 24, 24, 24, 24, 24, 24, 25, 24, 24, 24, 24, 24, 25, 24,
            0, 24, 24, 17, 24, 25, 24, 25, 9, 24, 9, 24, 24, 24, 24, 24, 3, 24, 24, 24, 24, 11, 24, 24, 24, 0, 4, 9, 24,
            24, 24, 25, 24, 24, 22, 18, 18, 0, 23, 24, 14, 24, 23, 6, 24, 3, 24, 11, 6, 6, 19, 16, 12, 24, 24, 24, 24,
            11, 24, 24, 24, 23, 7, 20, 12, 18, 24, 14, 0, 24, 25, 20, 0, 12, 19, 14, 12, 0, 20, 24, 19, 24, 24, 19, 24,
            17, 5, 24, 24, 0, 24, 24, 14, 2, 18, 24, 2, 24, 6, 11, 24, 2, 8, 24, 2, 6, 4, 14, 6, 24, 24, 22, 0, 0, 0, 5,
            12, 24, 18, 24, 7, 6, 6, 18, 24, 0, 11, 5, 25, 18, 17, 24, 22, 16, 25, 6, 25, 24, 24, 12, 18, 24, 18, 24, 0,
            5, 25, 25, 3, 22, 24, 6, 20, 24, 4, 6, 8, 24, 25, 5, 11, 21, 24, 6, 24,
        ),
    ),
    Golden(
        {'single_hand': True, 'optional_declare': True, 'partner_exemption': True}, 1627,
        "a2c2406496486cae65d4e3db4941532964e290a96eea435eb3afae659942a352",
        (
            24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 25, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 25, 24, 24, 24, 24,
            24, 25, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
            24, 24, 24, 24, 24, 24, 25, 24, 24, 24, 24, 25, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
            24, 24, 25, 25, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 25, 24, 24, 25, 30, 24, 25, 24, 24,
            24, 21, 24, 24, 24, 24, 24, 24, 21, 24, 24, 24, 24, 24, 24, 24, 25, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
            24, 24, 0, 25, 24, 24, 17, 24, 24, 24, 25, 25, 9, 24, 9, 24, 24, 24, 24, 24, 3, 24, 5, 24, 24, 0, 30, 24,
            11, 6, 0, 30, 12, 5, 6, 24, 22, 30, 15, 18, 0, 24, 30, 30, 30, 6, 24, 24, 11, 6, 24, 19, 0, 30, 30, 12, 24,
            24, 12, 24, 24, 30, 24, 0, 23, 5, 30, 20, 12, 6, 0, 24, 25, 2, 12, 30, 0, 12, 10, 12, 0, 24, 24, 24, 6, 24,
            24, 24, 6, 24, 0, 24, 24, 30, 24, 4, 24, 6, 2, 24, 24, 24, 14, 24, 24, 30, 30, 8, 0, 24, 0, 5, 12, 22, 24,
            24, 24, 17, 5, 22, 6, 24, 24, 0, 11, 24, 12, 18, 0, 23, 25, 24, 12, 24, 24, 30, 24, 23, 24, 5, 30, 25, 0,
            24, 24, 4, 30, 21, 20, 6, 30, 30, 30, 4, 2, 8, 17, 9, 3, 11, 21, 0, 18, 30, 11,
        ),
    ),
)


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda golden: ",".join(sorted(golden.params)) or "default")
def test_the_compiled_agent_makes_the_recorded_actions(golden):
    layout = cardenvs.env(ENV_ID, **golden.params).unwrapped.layout
    count, sha256, first = fingerprint(heuristic_actions_along_games(ClabberHeuristic(layout), golden.params))
    differing = next((i for i, (want, got) in enumerate(zip(golden.first, first, strict=False)) if want != got), None)
    assert differing is None, f"action {differing}: recorded {golden.first[differing]}, now {first[differing]}"
    assert (count, sha256) == (golden.count, golden.sha256), "the actions after the first ones differ"


def _positions(params: dict, steps: int = 12, envs: int = 64) -> tuple[ObservationLayout, np.ndarray, np.ndarray]:
    """Observations and masks of the seats to act along random games."""
    venv = cardenvs.vector_env(ENV_ID, envs, parallel=False, **params)
    venv.reset(seed=5)
    observations, masks = [], []
    for _ in range(steps):
        observations.append(venv.observations.copy())
        masks.append(venv.action_masks.copy())
        venv.step(venv.sample_actions())
    return venv.layout, np.concatenate(observations), np.concatenate(masks)


@pytest.mark.parametrize("params", [{}, {"optional_declare": True}], ids=["default", "optional_declare"])
@pytest.mark.parametrize("thresholds", [(ACCEPT_AT, NAME_AT), (30, 20)], ids=["default", "eager"])
def test_act_act_batch_and_the_compiled_policy_agree(params, thresholds):
    layout, observations, masks = _positions(params)
    agent = ClabberHeuristic(layout, *thresholds)
    batch = agent.act_batch(observations, masks)
    one_by_one = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks, strict=True)]
    assert batch.tolist() == one_by_one
    assert all(mask[action] for mask, action in zip(masks, batch, strict=True))
    if thresholds == (ACCEPT_AT, NAME_AT):
        assert agent.compiled_policy is ClabberHeuristic.compiled_policy
        assert [agent.compiled_policy(o, m) for o, m in zip(observations, masks, strict=True)] == one_by_one
    if params:
        assert (batch == DECLARE).any()


def test_other_thresholds_bid_otherwise_and_claim_no_compiled_policy():
    layout, observations, masks = _positions({})
    default, eager = ClabberHeuristic(layout), ClabberHeuristic(layout, accept_at=0, name_at=0)
    assert eager.compiled_policy is None, "the compiled policy bids at the default thresholds"
    assert default.compiled_policy is ClabberHeuristic.compiled_policy is not None
    assert (default.act_batch(observations, masks) != eager.act_batch(observations, masks)).any()


def _every_parameter_set():
    """One parameter set per combination of the values of the options that take a few values, and the extremes of
    the others."""
    for single, fail, tie, exemption, tiebreak, declare in itertools.product(
        (False, True), FAIL_RULES, TIE_RULES, (False, True), SEQ_TIEBREAKS, (False, True)
    ):
        yield ClabberParams(single_hand=single, fail_rule=fail, tie_rule=tie, partner_exemption=exemption,
                            seq_tiebreak=tiebreak, optional_declare=declare)
    yield ClabberParams(target_score=1, max_hands=1)
    yield ClabberParams(target_score=MAX_TARGET_SCORE, max_hands=MAX_HANDS_LIMIT)


def test_the_blocks_read_are_at_the_same_offsets_for_every_parameter_set():
    for params in _every_parameter_set():
        layout = observation_layout(params)
        check_layout(layout)
        assert num_actions(params) == (NUM_ACTIONS_WITH_DECLARE if params.optional_declare else NUM_BASE_ACTIONS)
    assert NUM_BASE_ACTIONS <= DECLARE < NUM_ACTIONS_WITH_DECLARE  # DECLARE is in the longer mask only
    shifted = ObservationLayout([ObservationView("padding", 1, 0, 1, ""), *observation_layout(ClabberParams()).views])
    with pytest.raises(ValueError, match="own_hand"):
        ClabberHeuristic(shifted)
    assert set(READ_BLOCKS) <= set(shifted.offsets)


#: the parameters of the golden cases: whole games as tournaments play them, and single hands with the longer mask of
#: optional_declare
GOLDEN_PARAMS = ({}, {"single_hand": True, "optional_declare": True, "partner_exemption": True})


def _record(agent_class: type[Agent] = ClabberHeuristic) -> None:
    """Print the golden cases, played by ``agent_class``, as they are written in ``GOLDEN``."""
    for params in GOLDEN_PARAMS:
        layout = cardenvs.env(ENV_ID, **params).unwrapped.layout
        count, sha256, first = fingerprint(heuristic_actions_along_games(agent_class(layout), params))
        actions = textwrap.wrap(", ".join(map(str, first)) + ",", width=LINE_LENGTH - 12)
        print(f"    Golden(\n        {params!r}, {count},\n        \"{sha256}\",\n        (")
        print("\n".join("            " + line for line in actions))
        print("        ),\n    ),")


if __name__ == "__main__":
    _record()
