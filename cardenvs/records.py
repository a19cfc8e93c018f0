"""Game records: a finished (or unfinished) game as its env id, parameters, seed and actions.

A game's trajectory depends only on its seed and its actions, so this is all it takes to replay it exactly,
rendered, in any front end. Game ``i`` of a batched env reset with ``seed`` is the AEC game of seed
``cardenvs.game_seed(seed, i)``: a batched game is recorded with that seed.

The file format is JSON (``format`` 1)::

    {"format": 1, "env_id": "clabber_v0", "params": {...}, "seed": 7, "actions": [3, 0, 12, ...],
     "deal": null, "agents": ["heuristic", "random", "heuristic", "random"], "rewards": [1.0, -1.0, 1.0, -1.0]}

``actions`` are the decisions of the agents to act, in order (the ``None`` steps that retire finished agents
are not recorded); ``deal`` is the ``reset(options={"deal": ...})`` the game started from, if any; ``agents``
(who sat in each seat) and ``rewards`` (each seat's final reward) are informational, and ``rewards`` is
checked when the record is replayed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

import cardenvs
from cardenvs.core.aec import CardEnv

RECORD_FORMAT = 1


@dataclass
class GameRecord:
    """One game: enough to replay it exactly.

    Attributes:
        env_id: the registered env id.
        params: the game's parameters (``cardenvs.env(env_id, **params)``).
        seed: the seed given to ``reset``.
        actions: the actions taken, in order.
        deal: the chosen deal the game started from (``reset`` options), or ``None``.
        agents: a name for whoever played each seat, or ``None``.
        rewards: each seat's final reward, or ``None`` for an unfinished game.
    """

    env_id: str
    params: dict[str, Any]
    seed: int
    actions: list[int] = field(default_factory=list)
    deal: Any = None
    agents: list[str] | None = None
    rewards: list[float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"format": RECORD_FORMAT, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """The record a :meth:`to_dict` wrote; ValueError on another format or missing fields."""
        if data.get("format") != RECORD_FORMAT:
            raise ValueError(f"not a cardenvs game record of format {RECORD_FORMAT}: format={data.get('format')!r}")
        missing = [name for name in ("env_id", "params", "seed", "actions") if name not in data]
        if missing:
            raise ValueError(f"game record lacks {', '.join(missing)}")
        unknown = sorted(set(data) - {"format", *(f.name for f in fields(cls))})
        if unknown:
            raise ValueError(f"game record has unknown field(s) {', '.join(unknown)}")
        _check_types(data)
        return cls(**{k: v for k, v in data.items() if k != "format"})

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict()) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read a record file; ValueError (naming the file) if it is not one."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise ValueError(f"cannot read a game record from {path}: {error}") from error
        if not isinstance(data, dict):
            raise ValueError(f"{path} is not a cardenvs game record")
        return cls.from_dict(data)

    def new_env(self, render_mode: str | None = None) -> CardEnv:
        """A fresh env for this record's game, reset to its start."""
        env = cardenvs.env(self.env_id, render_mode=render_mode, **self.params)
        env.reset(seed=self.seed, options=None if self.deal is None else {"deal": self.deal})
        return env


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_types(data: dict[str, Any]) -> None:
    """ValueError naming the first field of a record dict whose value has the wrong type."""
    checks = (
        ("env_id", lambda v: isinstance(v, str), "a string"),
        ("params", lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v), "an object of parameters"),
        ("seed", _is_int, "an integer"),
        ("actions", lambda v: isinstance(v, list) and all(_is_int(a) for a in v), "a list of integers"),
        ("agents", lambda v: v is None or (isinstance(v, list) and all(isinstance(a, str) for a in v)),
         "null or a list of names"),
        ("rewards", lambda v: v is None or (isinstance(v, list) and all(
            isinstance(r, (int, float)) and not isinstance(r, bool) for r in v)), "null or a list of numbers"),
    )
    for name, is_valid, expected in checks:
        if name in data and not is_valid(data[name]):
            raise ValueError(f"game record field {name!r} must be {expected}, got {data[name]!r:.80}")


def decisions(env: CardEnv, final_rewards: dict[str, float]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The AEC loop's decisions: yields ``(agent, observation)`` whenever a live agent is to act (the caller then
    steps the env with its action); retires finished agents itself, writing each one's final reward to
    ``final_rewards``."""
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final_rewards[agent] = float(reward)
            env.step(None)
            continue
        yield agent, observation


def play_recorded(
    env_id: str,
    params: dict[str, Any],
    seed: int,
    choose: Callable[[str, dict[str, Any]], int],
    agents: list[str] | None = None,
) -> GameRecord:
    """Play one whole game, choosing each action with ``choose(agent, observation)``: its record.

    Args:
        env_id: the registered env id.
        params: the game's parameters.
        seed: the seed given to ``reset``.
        choose: returns a legal action for the agent to act, given its observation dict.
        agents: a name for whoever plays each seat, kept in the record.
    """
    env = cardenvs.env(env_id, **params)
    env.reset(seed=seed)
    record = GameRecord(env_id, dict(params), int(seed), agents=agents)
    final: dict[str, float] = {}
    for agent, observation in decisions(env, final):
        action = int(choose(agent, observation))
        record.actions.append(action)
        env.step(action)
    record.rewards = [final[agent] for agent in env.possible_agents]
    return record


def replay(
    record: GameRecord, render_mode: str | None = None, final_rewards: dict[str, float] | None = None
) -> Iterator[tuple[CardEnv, str, int]]:
    """Step through a record: yields ``(env, agent, action)`` just before each recorded action is applied.

    After the last action the env holds the end of the game. Raises ValueError if an action is illegal where
    the record puts it, or if the game ends before the record does, or if the final rewards differ.

    Args:
        record: the game to replay.
        render_mode: the env's render mode (``"ansi"`` to render each position).
        final_rewards: if given, filled with each agent's final reward (0 until the game is over).
    """
    env = record.new_env(render_mode)
    actions = iter(record.actions)
    taken = 0
    final = final_rewards if final_rewards is not None else {}
    final.update({agent: 0.0 for agent in env.possible_agents})
    for agent, observation in decisions(env, final):
        action = next(actions, None)
        if action is None:
            return  # an unfinished game ends where its record does
        mask = observation["action_mask"]
        if not (0 <= action < len(mask) and mask[action]):
            legal = np.flatnonzero(mask).tolist()
            raise ValueError(f"record action {taken} ({action}) is not legal for {agent} there; legal: {legal}")
        yield env, agent, action
        try:
            env.step(int(action))
        except cardenvs.IllegalActionError as error:
            raise ValueError(f"record action {taken} ({action}) is illegal: {error}") from error
        taken += 1
    if taken != len(record.actions):
        raise ValueError(f"the game ended after {taken} of the record's {len(record.actions)} actions")
    if record.rewards is not None and list(final.values()) != list(record.rewards):
        raise ValueError(f"replayed final rewards {list(final.values())} differ from the record's {record.rewards}")
