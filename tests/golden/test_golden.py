"""Golden playthroughs: every recorded game must show, at every step, exactly what it showed when recorded.

The files and the script that re-records them (when a rule change is intended) are described in
``tests/golden/record.py``; each game's golden games are defined next to its own tests, in
``tests/<game>/golden_games.py``. Each game is replayed in the AEC env and in the batched env; a failure names the
game, the first step that differs, and the field (seat to act, mask, observation entries by named view,
rewards, end flags).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import zip_longest
from typing import Any

import numpy as np
import pytest

import cardenvs
from cardenvs.core.game import ObservationLayout
from cardenvs.records import replay
from tests.golden.record import GOLDEN_DIR, decode_steps, golden_games, load, observed_steps

GOLDEN_GAMES = golden_games()
NAMES = [game.name for game in GOLDEN_GAMES]
#: differing observation entries listed in a failure message
ENTRIES_SHOWN = 6


def _entry_name(layout: ObservationLayout, index: int) -> str:
    for name, (start, stop) in layout.offsets.items():
        if start <= index < stop:
            return f"{name}[{index - start}] (index {index})"
    return f"index {index}"


def _difference(expected: dict[str, Any], actual: dict[str, Any], layout: ObservationLayout) -> str | None:
    """The first field of one step that differs, described; None if the step matches."""
    if expected["agent"] != actual["agent"]:
        return f"seat to act differs: expected player_{expected['agent']}, got player_{actual['agent']}"
    if not np.array_equal(expected["mask"], actual["mask"]):
        want, got = (set(np.flatnonzero(m).tolist()) for m in (expected["mask"], actual["mask"]))
        return f"legal mask differs: missing {sorted(want - got)}, extra {sorted(got - want)}"
    differing = np.flatnonzero(expected["observation"] != actual["observation"])
    if differing.size:
        shown = "; ".join(
            f"{_entry_name(layout, int(i))}: expected {expected['observation'][i]:g}, got {actual['observation'][i]:g}"
            for i in differing[:ENTRIES_SHOWN]
        )
        more = f" (and {differing.size - ENTRIES_SHOWN} more)" if differing.size > ENTRIES_SHOWN else ""
        return f"observation differs at {shown}{more}"
    if not np.array_equal(expected["rewards"], actual["rewards"]):
        return f"rewards differ: expected {expected['rewards'].tolist()}, got {actual['rewards'].tolist()}"
    for flag in ("terminated", "truncated"):
        if bool(expected[flag]) != bool(actual[flag]):
            return f"{flag} differs: expected {bool(expected[flag])}, got {bool(actual[flag])}"
    return None


def first_difference(name: str, expected: Iterable[dict], actual: Iterable[dict], layout: ObservationLayout) -> str:
    """A message naming the first step and field where ``actual`` departs from ``expected`` ("" if none)."""
    for number, (want, got) in enumerate(zip_longest(expected, actual), start=1):
        if got is None:
            return f"{name}: the game ended early: no step {number} (expected player_{want['agent']} to act)"
        if want is None:
            return f"{name}: the game goes on past its recorded end: step {number} has player_{got['agent']} to act"
        difference = _difference(want, got, layout)
        if difference:
            return f"{name}: step {number} (player_{want['agent']}, action {want['action']}): {difference}"
    return ""


def _expected(data: dict[str, Any], env: Any) -> Iterator[dict[str, Any]]:
    core = env.unwrapped
    return decode_steps(data["steps"], core.layout.size, core.num_actions, len(core.possible_agents))


def _batched_steps(data: dict[str, Any], actions: list[int]) -> Iterator[dict[str, Any]]:
    """The recorded game played as game 0 of a batched env of one game: the same fields as ``observed_steps``."""
    record = data["record"]
    venv = cardenvs.vector_env(record.env_id, 1, **record.params)
    obs, mask, player = venv.reset(seed=data["batch_seed"])
    for action in actions:
        step = {"agent": int(player[0]), "action": action, "observation": obs[0].copy(), "mask": mask[0].copy()}
        obs, mask, player, rewards, terminated, truncated = venv.step(np.array([action], np.int64))
        yield {**step, "rewards": rewards[0].copy(), "terminated": terminated[0], "truncated": truncated[0]}


def test_every_golden_game_has_its_file_and_no_file_is_left_over():
    on_disk = sorted(path.stem for path in GOLDEN_DIR.glob("*.json"))
    assert on_disk == sorted(NAMES), "re-record with: .venv/bin/python tests/golden/record.py"


@pytest.mark.parametrize("game", GOLDEN_GAMES, ids=NAMES)
def test_golden_file_matches_its_definition(game):
    data = load(game.name)
    record = data["record"]
    assert (record.env_id, record.params, tuple(record.agents), data["batch_seed"]) == (
        game.env_id, game.params, game.agents, game.batch_seed
    ), (f"{game.name}: its definition in tests/<game>/golden_games.py changed; re-record with: "
        ".venv/bin/python tests/golden/record.py")
    assert record.seed == cardenvs.game_seed(game.batch_seed, 0)
    assert len(data["steps"]) == len(record.actions)
    assert [step["action"] for step in data["steps"]] == record.actions


@pytest.mark.parametrize("name", NAMES)
def test_golden_game_step_by_step_in_the_aec_env(name):
    data = load(name)
    record = data["record"]
    env = record.new_env()
    message = first_difference(name, _expected(data, env), observed_steps(record), env.unwrapped.layout)
    assert not message, message
    final: dict[str, float] = {}
    for _ in replay(record, final_rewards=final):  # raises if the final rewards differ from the record's
        pass
    assert list(final.values()) == record.rewards


@pytest.mark.parametrize("name", NAMES)
def test_golden_game_step_by_step_in_the_batched_env(name):
    data = load(name)
    record = data["record"]
    env = record.new_env()
    batched = _batched_steps(data, record.actions)
    message = first_difference(name, _expected(data, env), batched, env.unwrapped.layout)
    assert not message, message


def test_a_changed_observation_is_reported_with_its_step_and_named_entry():
    data = load(NAMES[0])
    env = data["record"].new_env()
    expected = list(_expected(data, env))
    changed = [dict(step) for step in expected]
    target = len(changed) // 2
    changed[target]["observation"] = changed[target]["observation"].copy()
    changed[target]["observation"][0] += 1
    message = first_difference("x", expected, changed, env.unwrapped.layout)
    first_view = env.unwrapped.layout.views[0].name
    assert message.startswith(f"x: step {target + 1} (player_{expected[target]['agent']}")
    assert f"observation differs at {first_view}[0] (index 0)" in message
    assert "ended early" in first_difference("x", expected, expected[:-1], env.unwrapped.layout)
