"""Golden playthroughs: recorded games with what every step must show, and the script that re-records them.

Each ``tests/golden/<name>.json`` holds one game played by the baseline agents (a few per env, most with
non-default parameters, defined next to each game's own tests in ``tests/<game>/golden_games.py``) and, for
every decision, what the env showed and did:

- ``record``: the game record (:mod:`cardenvs.records`): env id, parameters, seed, actions, final rewards;
- ``batch_seed``: the seed for which game 0 of ``cardenvs.vector_env(...).reset(seed=batch_seed)`` is this game;
- ``steps``: one line per decision: ``agent`` (the seat to act), ``action``, ``legal`` (the legal action
  ids), ``obs`` (the acting seat's observation as ``[index, value]`` pairs where it differs from that seat's
  previous observation, or from zeros the first time) and, when any is nonzero, ``rewards`` (every seat's
  reward from the step), ``terminated`` / ``truncated`` on the last step.

``tests/golden/test_golden.py`` replays every file in the AEC env and in the batched env and names the first
step and field that differ. The files pin the rules down: when a rule change is intended, re-record them and
review the diff (``git diff tests/golden``) before committing::

    .venv/bin/python tests/golden/record.py                                 # re-record every game
    .venv/bin/python tests/golden/record.py clabber_litige_declare slap_2p  # only these
    .venv/bin/python tests/golden/record.py --list                          # the names

(``python -m tests.golden.record`` does the same where no installed package is itself called ``tests``; pgx,
a benchmark peer, installs one.)

The agents are the rule-based ones (``heuristic``) and seeded ``random`` ones, so the same code re-records the
same games; the tests replay the recorded actions and never run the agents, so tuning an agent breaks nothing.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import cardenvs
from cardenvs.agents.registry import make_agent
from cardenvs.records import GameRecord, play_recorded

GOLDEN_DIR = Path(__file__).parent
GOLDEN_FORMAT = 1


@dataclass(frozen=True)
class GoldenGame:
    """One golden game: who plays, with which parameters, from which seed.

    Attributes:
        name: the file name without ``.json``.
        env_id: the game.
        params: its parameters.
        agents: an agent spec per seat (``heuristic`` or ``random``).
        batch_seed: the batched-env seed; the game's own seed is ``cardenvs.game_seed(batch_seed, 0)``.
    """

    name: str
    env_id: str
    params: dict[str, Any]
    agents: tuple[str, ...]
    batch_seed: int


#: the file next to each game's own tests that defines its golden games (a ``GOLDEN_GAMES`` tuple)
DEFINITIONS_FILE = "golden_games.py"
TESTS_DIR = GOLDEN_DIR.parent
REPOSITORY = TESTS_DIR.parent


def golden_games() -> tuple[GoldenGame, ...]:
    """Every game's golden games: the ``GOLDEN_GAMES`` of each ``tests/<game>/golden_games.py``, by folder name."""
    if str(REPOSITORY) not in sys.path:
        sys.path.insert(0, str(REPOSITORY))  # run as a script: ``tests`` is importable from the repository root
    games: list[GoldenGame] = []
    for path in sorted(TESTS_DIR.glob(f"*/{DEFINITIONS_FILE}")):
        module = importlib.import_module(f"tests.{path.parent.name}.{path.stem}")
        games.extend(module.GOLDEN_GAMES)
    names = [game.name for game in games]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise ValueError(f"golden game names defined twice: {', '.join(duplicated)}")
    return tuple(games)


def path_of(name: str) -> Path:
    """The golden file of the game called ``name``."""
    return GOLDEN_DIR / f"{name}.json"


def compact(value: float) -> float | int:
    """A float32 value as the shortest number that reads back as the same float32 (``1`` rather than ``1.0``)."""
    number = float(str(np.float32(value)))
    return int(number) if number.is_integer() else number


def play(game: GoldenGame) -> GameRecord:
    """Play ``game`` with its agents: the record of the whole game."""
    layout = cardenvs.env(game.env_id, **game.params).unwrapped.layout
    agents = [make_agent(spec, game.env_id, layout, seed=game.batch_seed * 100 + seat)
              for seat, spec in enumerate(game.agents)]
    seats = {f"player_{seat}": agent for seat, agent in enumerate(agents)}
    return play_recorded(game.env_id, game.params, cardenvs.game_seed(game.batch_seed, 0),
                         lambda agent, observation: seats[agent].act(observation), agents=list(game.agents))


def observed_steps(record: GameRecord) -> Iterator[dict[str, Any]]:
    """Replay ``record`` in the AEC env: per decision, the seat, its full observation and mask, the action, the
    step's rewards (every seat) and the end flags."""
    env = record.new_env()
    actions = iter(record.actions)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = next(actions, None)
        if action is None:
            return
        env.step(action)
        yield {
            "agent": env.possible_agents.index(agent),
            "action": int(action),
            "observation": observation["observation"],
            "mask": observation["action_mask"],
            "rewards": np.array([env.rewards[a] for a in env.possible_agents], np.float32),
            "terminated": any(env.terminations.values()),
            "truncated": any(env.truncations.values()),
        }


def encode_steps(steps: Iterator[dict[str, Any]]) -> list[dict[str, Any]]:
    """The compact, diff-able form of :func:`observed_steps` (see the module docstring)."""
    previous: dict[int, np.ndarray] = {}
    encoded = []
    for step in steps:
        seat, obs = step["agent"], step["observation"]
        before = previous.get(seat, np.zeros_like(obs))
        changed = np.flatnonzero(obs != before)
        line: dict[str, Any] = {
            "agent": seat,
            "action": step["action"],
            "legal": np.flatnonzero(step["mask"]).tolist(),
            "obs": [[int(i), compact(obs[i])] for i in changed],
        }
        if step["rewards"].any():
            line["rewards"] = [compact(r) for r in step["rewards"]]
        for flag in ("terminated", "truncated"):
            if step[flag]:
                line[flag] = True
        previous[seat] = obs
        encoded.append(line)
    return encoded


def decode_steps(lines: list[dict[str, Any]], obs_size: int, num_actions: int,
                 num_players: int) -> Iterator[dict[str, Any]]:
    """The full per-step expectations of a golden file's ``steps`` (the inverse of :func:`encode_steps`)."""
    previous: dict[int, np.ndarray] = {}
    for line in lines:
        obs = previous.get(line["agent"], np.zeros(obs_size, np.float32)).copy()
        for index, value in line["obs"]:
            obs[index] = value
        previous[line["agent"]] = obs
        mask = np.zeros(num_actions, np.int8)
        mask[line["legal"]] = 1
        yield {
            "agent": line["agent"],
            "action": line["action"],
            "observation": obs,
            "mask": mask,
            "rewards": np.array(line.get("rewards", [0.0] * num_players), np.float32),
            "terminated": line.get("terminated", False),
            "truncated": line.get("truncated", False),
        }


def write(game: GoldenGame) -> Path:
    """Play ``game`` and write its golden file, one step per line; returns the path."""
    record = play(game)
    header = {"golden_format": GOLDEN_FORMAT, "name": game.name, "batch_seed": game.batch_seed,
              "record": record.to_dict()}
    lines = [json.dumps(line, separators=(",", ":")) for line in encode_steps(observed_steps(record))]
    text = json.dumps(header)[:-1] + ',\n"steps": [\n' + ",\n".join(lines) + "\n]}\n"
    path = path_of(game.name)
    path.write_text(text, encoding="utf-8")
    return path


def load(name: str) -> dict[str, Any]:
    """A golden file's contents: header fields, ``record`` as a :class:`GameRecord`, ``steps`` as stored."""
    data = json.loads(path_of(name).read_text(encoding="utf-8"))
    if data.get("golden_format") != GOLDEN_FORMAT:
        raise ValueError(f"{path_of(name)}: golden_format {data.get('golden_format')!r}, expected {GOLDEN_FORMAT}")
    data["record"] = GameRecord.from_dict(data["record"])
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tests/golden/record.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="games to re-record (default: all)")
    parser.add_argument("--list", action="store_true", help="list the golden games and exit")
    args = parser.parse_args(argv)
    known = {game.name: game for game in golden_games()}
    if args.list:
        for game in known.values():
            print(f"{game.name:32} {game.env_id:18} {game.params}")
        return 0
    unknown = [name for name in args.names if name not in known]
    if unknown:
        print(f"unknown golden game(s) {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    for name in args.names or list(known):
        path = write(known[name])
        data = load(name)
        print(f"{path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}: "
              f"{len(data['steps'])} steps, {path.stat().st_size // 1024} KB, rewards {data['record'].rewards}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
