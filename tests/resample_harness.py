"""The four checks of a game's hidden-card resampler (``Game.resample``), shared by the games' test files.

A game's test file supplies positions (records from play), the hidden part of a record as a hashable value, and
for small positions the consistent deals by brute force; these functions do the rest:

- same observation: the seat's observation and legal mask of a resampled record equal the original's;
- really resampled: on small positions every consistent deal turns up, at frequencies within a chi-square bound
  of uniform, and nothing else does;
- reads nothing hidden: two records the seat cannot tell apart give the same distribution of hidden parts;
- consistent: a resampled record passes the checks of records from outside and plays on to a legal end.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections import Counter
from collections.abc import Callable, Hashable, Sequence

import numpy as np
from scipy.stats import chi2_contingency, chisquare

import cardenvs
from cardenvs.core.snapshot import snapshot_record

#: a test fails only below this p-value (fixed seeds keep every run the same)
MIN_P_VALUE = 1e-4
#: the expected count per cell the chi-square approximation needs
MIN_EXPECTED = 5
#: steps a resampled record is played on for at most
PLAY_ON_STEPS = 2_000


def record_copy(record: np.record) -> np.record:
    """A record of its own (one-record array) with ``record``'s contents."""
    copy = np.zeros(1, record.dtype).view(np.recarray)
    copy[0] = record
    return copy[0]


def observed(game, params, record: np.record, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """``seat``'s observation and legal mask of ``record``."""
    obs = np.zeros(game.observation_layout(params).size, np.float32)
    mask = np.zeros(game.num_actions(params), np.int8)
    game.observe(record, seat, obs, mask)
    return obs, mask


def same_view(first, second, seat: int) -> bool:
    """Whether two AEC envs of one game show ``seat`` the same observation and legal mask, with the same seat to
    act (for building twins: records a seat cannot tell apart)."""
    agent = first.possible_agents[seat]
    a, b = first.observe(agent), second.observe(agent)
    return (np.array_equal(a["observation"], b["observation"]) and np.array_equal(a["action_mask"], b["action_mask"])
            and first.agent_selection == second.agent_selection)


def play_positions(env_id: str, params: dict, seeds: Sequence[int], rule_based: bool) -> list[tuple]:
    """``(record, actions so far, seed)`` at every decision of one game per seed, played by random legal actions or
    by the game's rule-based agent at every seat."""
    game = cardenvs.get_game(env_id)
    positions = []
    for seed in seeds:
        env = cardenvs.env(env_id, **params)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        agent = None
        if rule_based:
            module, name = game.rule_based_agent.split(":")
            agent = getattr(importlib.import_module(module), name)(env.unwrapped.layout)
        actions: list[int] = []
        for _ in env.agent_iter(PLAY_ON_STEPS):
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            positions.append((record_copy(env.unwrapped.state_record), list(actions), seed))
            action = agent.act(observation) if agent else int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
            actions.append(action)
    return positions


def check_same_observation(env_id: str, params: dict, positions: Sequence[tuple], draws: int, seed: int) -> None:
    game = cardenvs.get_game(env_id)
    made = game.make_params(**params)
    rng = np.random.default_rng(seed)
    for record, _, _ in positions:
        for seat in range(game.num_players(made)):
            before = bytes(record_copy(record).tobytes())
            want = observed(game, made, record, seat)
            for _ in range(draws):
                got = observed(game, made, game.resample(record, seat, rng), seat)
                assert np.array_equal(got[0], want[0]), f"seat {seat}: entries {np.flatnonzero(got[0] != want[0])}"
                assert np.array_equal(got[1], want[1]), f"seat {seat}: the legal mask differs"
            assert record_copy(record).tobytes() == before, "resample changed the record it was given"


def check_consistent(env_id: str, params: dict, positions: Sequence[tuple], seed: int) -> None:
    """Each resampled record restores (the checks of records from outside) and plays on to a legal end."""
    game = cardenvs.get_game(env_id)
    env = cardenvs.env(env_id, **params)
    made = env.unwrapped.params
    rng = np.random.default_rng(seed)
    seeds_differ = 0
    for record, _, _ in positions:
        seat = int(rng.integers(game.num_players(made)))
        resampled = game.resample(record, seat, rng)
        seeds_differ += int(resampled.rng != record.rng)
        over = bool(resampled.terminated or resampled.truncated)
        env.unwrapped.restore({
            "env_id": env_id, "params": dataclasses.asdict(made), "state": snapshot_record(resampled),
            "cumulative_rewards": dict.fromkeys(env.possible_agents, 0.0),
            "agents": [] if over else list(env.possible_agents),
        })
        for _ in env.agent_iter(PLAY_ON_STEPS):
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            game.check_invariants(env.unwrapped.state_record, made)
        assert env.unwrapped.state_record.terminated or env.unwrapped.state_record.truncated
    assert seeds_differ == len(positions), "the game's generator was not reseeded"


def check_uniform_over(
    resample: Callable[[np.random.Generator], Hashable], consistent: Sequence[Hashable], seed: int
) -> None:
    """Draws of ``resample(rng)`` hit only the ``consistent`` deals, each of them, at uniform frequencies (within
    the chi-square bound)."""
    rng = np.random.default_rng(seed)
    draws = MIN_EXPECTED * 4 * len(consistent)
    counts = Counter(resample(rng) for _ in range(draws))
    assert set(counts) <= set(consistent), f"inconsistent deals drawn: {sorted(set(counts) - set(consistent))[:3]}"
    assert set(counts) == set(consistent), f"{len(set(consistent) - set(counts))} consistent deals never drawn"
    if len(consistent) > 1:
        assert chisquare([counts[deal] for deal in consistent]).pvalue > MIN_P_VALUE


def check_distribution(
    resample: Callable[[np.random.Generator], Hashable], probabilities: dict[Hashable, float], seed: int
) -> None:
    """Draws of ``resample(rng)`` hit only outcomes of ``probabilities``, each of them, at frequencies within the
    chi-square bound of those probabilities (computed exactly by the caller)."""
    rng = np.random.default_rng(seed)
    outcomes = sorted(probabilities)
    draws = int(np.ceil(MIN_EXPECTED * 4 / min(probabilities.values())))
    counts = Counter(resample(rng) for _ in range(draws))
    assert set(counts) <= set(outcomes), f"impossible outcomes drawn: {sorted(set(counts) - set(outcomes))[:3]}"
    assert set(counts) == set(outcomes), f"{len(set(outcomes) - set(counts))} possible outcomes never drawn"
    if len(outcomes) > 1:
        expected = [probabilities[outcome] * draws for outcome in outcomes]
        assert chisquare([counts[outcome] for outcome in outcomes], expected).pvalue > MIN_P_VALUE


def check_same_distribution(
    first: Callable[[np.random.Generator], Sequence[Hashable]],
    second: Callable[[np.random.Generator], Sequence[Hashable]],
    draws: int,
    seed: int,
) -> None:
    """Per entry of the hidden part (e.g. where each unseen card went), the two samplers' distributions agree
    (chi-square test of homogeneity; entries that take one value in both are equal by construction)."""
    rng = np.random.default_rng(seed)
    samples = [[first(rng) for _ in range(draws)], [second(rng) for _ in range(draws)]]
    entries = len(samples[0][0])
    for entry in range(entries):
        values = sorted({sample[entry] for group in samples for sample in group})
        if len(values) < 2:
            continue
        table = [[sum(sample[entry] == value for sample in group) for value in values] for group in samples]
        assert chi2_contingency(table).pvalue > MIN_P_VALUE / entries, f"entry {entry} differs: {table}"


def check_reads_nothing_hidden_exactly(
    game, record: np.record, twin: np.record, seat: int, seeds: Sequence[int]
) -> None:
    """``record`` and ``twin`` differ only in what ``seat`` has not seen (the caller builds the twin, e.g. from
    another deal giving the seat the same observation history): the resampler gives byte-identical records for
    both from generators with the same seed, so a search agent that sees the true state only through it acts the
    same on both (``Game.resample`` is a function of the seat's knowledge and the generator alone)."""
    for seed in seeds:
        first = game.resample(record, seat, np.random.default_rng(seed))
        second = game.resample(twin, seat, np.random.default_rng(seed))
        differ = [name for name in first.dtype.names if not np.array_equal(first[name], second[name])]
        assert not differ, f"seat {seat}, seed {seed}: the resampled records differ in {differ}"
