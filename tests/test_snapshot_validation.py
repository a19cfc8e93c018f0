"""Every way a state record enters from outside is checked before compiled code reads it.

``CardEnv.restore`` and ``VectorEnv.set_states`` refuse a record with a field out of its game's range, or one the
rules cannot reach, with a ValueError naming the field, and change nothing; records from play restore and play on
exactly as the original game does. The fuzz tests tamper every field of snapshots from random play.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import cardenvs
from cardenvs.core.game import RecordError
from cardenvs.core.snapshot import parameter_fields, unchecked_fields, validate_record
from tests.helpers import make_env

GAMES = ("clabber_v0", "gin_slaughtre_v0", "slabberjan_v0", "slap_v0", "stabby_jack_v0")
VALIDATED = tuple(env_id for env_id in GAMES if cardenvs.get_game(env_id).field_ranges is not None)
CASES = [
    pytest.param(env_id, params, id=f"{env_id}-{i}")
    for env_id in VALIDATED
    for i, params in enumerate(cardenvs.get_game(env_id).example_params)
]
QUICK_CASES = [pytest.param(env_id, cardenvs.get_game(env_id).quick_params, id=env_id) for env_id in VALIDATED]
#: header fields the core bounds itself, with their ranges for a game in progress (seat bounds filled in per game)
HEADER_RANGES = {"step_count": (0, np.iinfo(np.int32).max)}
#: how far random play runs before a snapshot is taken, and after a restore
SNAPSHOT_STEPS = (0, 7, 30)
PLAY_ON_STEPS = 150


def _random_snapshots(env_id: str, params: dict, seed: int, steps: tuple[int, ...] = SNAPSHOT_STEPS) -> list[dict]:
    """JSON round-tripped snapshots after ``steps`` random actions of one game, and one at its end."""
    env = make_env(env_id, params)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    snapshots, taken = [], 0
    while True:
        if taken in steps:
            snapshots.append(json.loads(json.dumps(env.unwrapped.snapshot())))
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            snapshots.append(json.loads(json.dumps(env.unwrapped.snapshot())))
            return snapshots
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        taken += 1


def _ranges(env_id: str, params: dict, snapshot: dict) -> dict[str, tuple[float, float]]:
    """Every bounded field of the game's record and its range (the header's seat to act included)."""
    game = cardenvs.get_game(env_id)
    made = game.make_params(**params)
    seats = game.num_players(made)
    over = snapshot["state"]["terminated"] or snapshot["state"]["truncated"]
    player = (-1, -1) if over else (0, seats - 1)
    return {**HEADER_RANGES, "current_player": player, **game.field_ranges(made)}


def _out_of_range_values(low: float, high: float, dtype: np.dtype) -> list[float]:
    """Values outside ``low..high``: just past each end, far past it, and the type's extremes (where outside)."""
    if dtype.kind == "f":
        return [low - 1, high + 1, float("nan"), float("inf")]
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    values = [low - 1, high + 1, low - 1000, high + 1000]
    if info is not None:
        values += [int(info.min), int(info.max)]
    return [value for value in values if not low <= value <= high]


def _tampered(snapshot: dict, field: str, index: tuple, value) -> dict:
    tampered = copy.deepcopy(snapshot)
    entry = tampered["state"]
    if index:
        target = entry[field]
        for i in index[:-1]:
            target = target[i]
        target[index[-1]] = value
    else:
        entry[field] = value
    return tampered


def _random_index(snapshot: dict, field: str, rng: np.random.Generator) -> tuple:
    shape = np.shape(snapshot["state"][field])
    return tuple(int(rng.integers(size)) for size in shape)


def _assert_refused(env, snapshot: dict, field: str | None) -> None:
    """``restore`` raises a ValueError (naming ``field`` when given) and the env is as it was."""
    before = env.unwrapped.snapshot()
    observation = {agent: env.observe(agent) for agent in env.possible_agents}
    with pytest.raises(ValueError) as raised:
        env.unwrapped.restore(snapshot)
    if field is not None:
        assert f"'{field}'" in str(raised.value), f"the error does not name {field!r}: {raised.value}"
    assert env.unwrapped.snapshot() == before
    for agent in env.possible_agents:
        after = env.observe(agent)
        assert np.array_equal(after["observation"], observation[agent]["observation"])
        assert np.array_equal(after["action_mask"], observation[agent]["action_mask"])


def _play_on(env, rng: np.random.Generator, steps: int, check: bool) -> list[int]:
    """Random legal actions for up to ``steps`` steps (the game's invariants checked after each when ``check``)."""
    game, params = env.unwrapped.game, env.unwrapped.params
    actions = []
    for _ in range(steps):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        actions.append(action)
        if check:
            game.check_invariants(env.unwrapped.state_record, params)
    return actions


@pytest.mark.parametrize("env_id", VALIDATED)
def test_every_field_of_the_record_is_bounded(env_id):
    """No field is left unchecked: each is a header field, a parameter or in the game's ``field_ranges``."""
    game = cardenvs.get_game(env_id)
    for params in game.example_params:
        assert unchecked_fields(game, game.make_params(**params)) == []


def _check_engine_records_pass(env_id: str, params: dict, games: int, steps: int) -> None:
    game = cardenvs.get_game(env_id)
    venv = cardenvs.vector_env(env_id, games, **params)
    venv.reset(seed=7)
    for _ in range(steps):
        for record in venv.states:
            validate_record(game, venv.params, record)
        venv.step(venv.sample_actions())


@pytest.mark.parametrize(("env_id", "params"), CASES)
def test_every_record_of_random_play_passes_validation(env_id, params):
    """The checks refuse nothing the rules make: every record of random play (finished games aside, which the
    batched env restarts at once) passes."""
    _check_engine_records_pass(env_id, params, games=8, steps=60)


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "params"), CASES)
def test_every_record_of_random_play_passes_validation_long(env_id, params):
    _check_engine_records_pass(env_id, params, games=64, steps=400)


@pytest.mark.parametrize(("env_id", "params"), CASES)
def test_snapshots_from_play_restore_and_play_on_identically(env_id, params):
    for seed in (1, 2):
        for snapshot in _random_snapshots(env_id, params, seed):
            original = make_env(env_id, params)
            original.unwrapped.restore(snapshot)  # the record the snapshot was taken from, exactly
            restored = make_env(env_id, params)
            restored.reset(seed=seed + 100)  # a different game first: nothing of it may survive
            restored.unwrapped.restore(snapshot)
            assert restored.unwrapped.snapshot() == original.unwrapped.snapshot()
            actions = _play_on(original, np.random.default_rng(seed), PLAY_ON_STEPS, check=False)
            for action in actions:
                restored.step(action)
            assert restored.unwrapped.snapshot() == original.unwrapped.snapshot()


def _check_out_of_range(env_id: str, params: dict, seeds: tuple[int, ...]) -> None:
    game = cardenvs.get_game(env_id)
    rng = np.random.default_rng(0)
    env = make_env(env_id, params)
    env.reset(seed=5)
    for seed in seeds:
        for snapshot in _random_snapshots(env_id, params, seed):
            dtype = game.state_dtype(env.unwrapped.params)
            for field, (low, high) in _ranges(env_id, params, snapshot).items():
                for value in _out_of_range_values(low, high, dtype.fields[field][0].base):
                    index = _random_index(snapshot, field, rng)
                    _assert_refused(env, _tampered(snapshot, field, index, value), field)


@pytest.mark.parametrize(("env_id", "params"), CASES)
def test_out_of_range_fields_are_refused_naming_the_field(env_id, params):
    _check_out_of_range(env_id, params, seeds=(3,))


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "params"), CASES)
def test_out_of_range_fields_are_refused_naming_the_field_long(env_id, params):
    _check_out_of_range(env_id, params, seeds=tuple(range(10, 30)))


@pytest.mark.parametrize(("env_id", "params"), CASES)
def test_parameter_fields_must_be_the_envs(env_id, params):
    game = cardenvs.get_game(env_id)
    env = make_env(env_id, params)
    env.reset(seed=5)
    snapshot = _random_snapshots(env_id, params, 4)[1]
    for field in parameter_fields(game, env.unwrapped.params):
        value = np.asarray(snapshot["state"][field])
        changed = (~value if value.dtype == bool else value + 1).tolist()
        _assert_refused(env, _tampered(snapshot, field, (), changed), field)


def _check_in_range_tampering(env_id: str, params: dict, seeds: tuple[int, ...], values_per_field: int) -> None:
    """Each field set to other values within its range: refused with a ValueError, or a record the rules can play
    on from, keeping every invariant, with legal actions to the end of the game or of ``PLAY_ON_STEPS``."""
    rng = np.random.default_rng(1)
    env = make_env(env_id, params)
    env.reset(seed=5)
    for seed in seeds:
        for snapshot in _random_snapshots(env_id, params, seed):
            for field, (low, high) in _ranges(env_id, params, snapshot).items():
                for _ in range(values_per_field):
                    index = _random_index(snapshot, field, rng)
                    value = int(rng.integers(max(low, -(2**40)), min(high, 2**40) + 1))
                    tampered = _tampered(snapshot, field, index, value)
                    try:
                        env.unwrapped.restore(tampered)
                    except RecordError:
                        continue
                    game = env.unwrapped.game
                    game.check_invariants(env.unwrapped.state_record, env.unwrapped.params)
                    _play_on(env, rng, PLAY_ON_STEPS, check=True)


@pytest.mark.parametrize(("env_id", "params"), QUICK_CASES)
def test_inconsistent_fields_are_refused_or_play_on_legally(env_id, params):
    _check_in_range_tampering(env_id, params, seeds=(6,), values_per_field=3)


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "params"), CASES)
def test_inconsistent_fields_are_refused_or_play_on_legally_long(env_id, params):
    _check_in_range_tampering(env_id, params, seeds=tuple(range(40, 50)), values_per_field=8)


@pytest.mark.parametrize(
    ("field", "index", "value"),
    [("dealer", (), 1000), ("turn_up", (), 120), ("trick_size", (), 50), ("phase", (), 17),
     ("hand", (1,), (1 << 24) - 1), ("hand", (2,), -1), ("current_player", (), 99), ("deck", (3,), 5),
     ("played", (0,), 1), ("rng", (), -1), ("trump", (), 2.5), ("bid_first", (0,), "pass")],
)
def test_clabber_records_the_rules_cannot_reach_are_refused(field, index, value):
    env = make_env("clabber_v0", {})
    env.reset(seed=8)
    snapshot = json.loads(json.dumps(env.unwrapped.snapshot()))
    _assert_refused(env, _tampered(snapshot, field, index, value), field)


def test_restore_refuses_bad_agents_and_rewards_and_changes_nothing():
    env = make_env("clabber_v0", {})
    env.reset(seed=8)
    snapshot = env.unwrapped.snapshot()
    for key, value in [("agents", ["player_0", "player_9"]), ("agents", ["player_0"]), ("agents", "player_0"),
                       ("cumulative_rewards", {}), ("cumulative_rewards", dict.fromkeys(env.possible_agents, "1"))]:
        _assert_refused(env, {**snapshot, key: value}, None)


@pytest.mark.parametrize(("env_id", "params"), QUICK_CASES)
def test_set_states_continues_other_games_exactly(env_id, params):
    """Records copied from one batched env into another play on there exactly as in the first."""
    games, rng = 6, np.random.default_rng(2)
    source = cardenvs.vector_env(env_id, games, **params)
    source.reset(seed=3)
    for _ in range(5):
        source.step(source.sample_actions())
    target = cardenvs.vector_env(env_id, games + 2, **params)
    target.reset(seed=4)
    rows = np.arange(2, games + 2)
    obs, masks, players = target.set_states(rows, source.states.copy())
    assert np.array_equal(obs[rows], source.observations) and np.array_equal(masks[rows], source.action_masks)
    assert np.array_equal(players[rows], source.current_players)
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in source.action_masks])
        source.step(actions)
        target_actions = np.concatenate([target.sample_actions()[:2], actions])
        target.step(target_actions)
        assert np.array_equal(target.observations[rows], source.observations)
        assert np.array_equal(target.rewards[rows], source.rewards)
        assert np.array_equal(target.states[rows].tobytes(), source.states.tobytes())


@pytest.mark.parametrize("env_id", VALIDATED)
def test_set_states_refuses_a_bad_record_and_changes_nothing(env_id):
    game = cardenvs.get_game(env_id)
    target = cardenvs.vector_env(env_id, 4)
    target.reset(seed=4)
    records = target.states[[0, 1]].copy()
    field = next(iter(game.field_ranges(target.params)))
    low, _ = game.field_ranges(target.params)[field]
    records[field][1] = low - 1
    before = (target.states.copy(), target.observations.copy(), target.action_masks.copy())
    with pytest.raises(ValueError, match=rf"'{field}'.*states\[1\]"):
        target.set_states([2, 3], records)
    assert target.states.tobytes() == before[0].tobytes()
    assert np.array_equal(target.observations, before[1]) and np.array_equal(target.action_masks, before[2])
    with pytest.raises(ValueError, match="rows"):
        target.set_states([2, 2], records)
    with pytest.raises(ValueError, match="record type"):
        target.set_states([2], records)
