"""The run shell the training scripts share: a run directory's stored arguments and resuming, the checks of
their common options, the league's agent specs, evaluation tournaments and the final match table.

A run directory holds ``run.json`` (the arguments the run was started with) from its first moment, so that
``--resume`` continues with them whether or not a checkpoint was written yet. The trainers name their common
options alike (``total_decisions``, ``num_steps``, ``league``, ...), and the checks here word their messages
with the option's flag.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

RUN_ARGS_NAME = "run.json"
#: options that say how to start, not what the run is
RESUME_FLAGS = ("resume", "resume_if_present")
#: the exit codes of the training scripts: a failure (an extra missing, no cluster), a usage error, an interruption
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
#: the league entry that stands for frozen snapshots of the learner, taken as training goes
SNAPSHOTS = "snapshots"
#: periodic events (snapshots, checkpoints, evaluations) default to this many per run
EVENTS_PER_RUN = 10
#: the agents a trained policy meets in its final tournament, each in a match of its own
FINAL_OPPONENTS = ("heuristic", "random")
#: the run directory's folder of tournament results files
TOURNAMENTS_DIR = "tournaments"

ArgsT = TypeVar("ArgsT")


def flag(name: str) -> str:
    """A field's command-line option: ``total_decisions`` -> ``--total-decisions``."""
    return "--" + name.replace("_", "-")


def shown(value: Any) -> str:
    """A value as it is written on the command line."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)


def check_at_least(args: Any, names: Sequence[str], least: int) -> None:
    """Raise ValueError, naming the option, for the first of ``names`` whose value is below ``least``.

    Args:
        args: the arguments dataclass.
        names: the fields to check.
        least: the smallest value allowed (0 or 1).
    """
    for name in names:
        value = getattr(args, name)
        if value < least:
            raise ValueError(f"{flag(name)} must be {'0 or more' if least == 0 else f'at least {least}'}, got {value}")


def check_positive(args: Any, names: Sequence[str]) -> None:
    """Raise ValueError for the first of ``names`` that is not a finite number above 0 (NaN included).

    Args:
        args: the arguments dataclass.
        names: the fields to check.
    """
    for name in names:
        value = getattr(args, name)
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{flag(name)} must be a positive number, got {value}")


def check_non_negative(args: Any, names: Sequence[str]) -> None:
    """Raise ValueError for the first of ``names`` that is not a finite number of 0 or more (NaN included).

    Args:
        args: the arguments dataclass.
        names: the fields to check.
    """
    for name in names:
        value = getattr(args, name)
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{flag(name)} must be 0 or more, got {value}")


def check_unit_interval(args: Any, names: Sequence[str]) -> None:
    """Raise ValueError for the first of ``names`` outside [0, 1] (NaN included).

    Args:
        args: the arguments dataclass.
        names: the fields to check.
    """
    for name in names:
        value = getattr(args, name)
        if not 0 <= value <= 1:
            raise ValueError(f"{flag(name)} must be in [0, 1], got {value}")


def check_hidden(hidden: Sequence[int]) -> None:
    """Raise ValueError unless ``hidden`` (``--hidden``) is one or more positive layer sizes."""
    if not hidden or min(hidden) < 1:
        raise ValueError(f"--hidden must be one or more positive layer sizes, got {shown(list(hidden))}")


def check_league(league: Sequence[str], max_snapshots: int) -> None:
    """Raise ValueError for a ``--league`` that cannot fill training games.

    Each entry is an agent spec (``random``, ``heuristic``, ``trained``, ``ppo:PATH``, ``rllib:PATH``) or
    :data:`SNAPSHOTS`; a human cannot play training games, a checkpoint must exist, snapshots need room
    (``max_snapshots`` of at least 1), and the league needs an agent that is there from the first game.

    Args:
        league: the ``--league`` entries.
        max_snapshots: the ``--max-snapshots`` option.
    """
    from cardenvs.agents.registry import check_spec

    agents = [spec for spec in league if spec != SNAPSHOTS]
    if not agents:
        raise ValueError(f"--league needs at least one agent spec (random, heuristic, ppo:PATH) besides {SNAPSHOTS}")
    if SNAPSHOTS in league and max_snapshots < 1:
        raise ValueError(f"--league {SNAPSHOTS} needs --max-snapshots of at least 1")
    for spec in agents:
        check_spec(spec)
        kind, _, path = spec.partition(":")
        if kind == "human":
            raise ValueError("--league: a human cannot play training games; use random, heuristic or ppo:PATH")
        if kind in ("ppo", "rllib") and not Path(path).exists():
            raise ValueError(f"--league {spec}: nothing at {path}")


def check_run_dir(run_dir: str) -> None:
    """Raise ValueError if ``--run-dir`` names a file (a run directory may be missing: it is created)."""
    if Path(run_dir).exists() and not Path(run_dir).is_dir():
        raise ValueError(f"--run-dir {run_dir} is a file, not a directory")


def periodic_default(total: int) -> int:
    """The default interval of a periodic event: a :data:`EVENTS_PER_RUN`-th of the run's ``total`` (at least 1)."""
    return max(1, total // EVENTS_PER_RUN)


def resume_command(command: str, run_dir: Path | str) -> str:
    """The command that continues the run in ``run_dir``, for the messages of an interrupted run.

    Args:
        command: how the script is started (``python -m cardenvs.training.ppo``).
        run_dir: the run directory.
    """
    return f"{command} --run-dir {shlex.quote(str(run_dir))} --resume"


def write_json(path: Path, data: dict) -> None:
    """Replace ``path`` whole with ``data`` as JSON (an interruption leaves the old file or the new one)."""
    partial = path.with_name("partial_" + path.name)
    partial.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(partial, path)


def stored_args(run_dir: Path, args_class: type, legacy: tuple[str, str] | None = None) -> dict[str, Any] | None:
    """The arguments of the run in ``run_dir`` (None if it holds none), restricted to ``args_class``'s fields.

    Args:
        run_dir: the run directory.
        args_class: the script's arguments dataclass.
        legacy: ``(file name, key)`` of an older place that held them (read when ``run.json`` is missing).
    """
    places = [(run_dir / RUN_ARGS_NAME, None)] + ([(run_dir / legacy[0], legacy[1])] if legacy else [])
    for path, key in places:
        if path.is_file():
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError) as error:
                raise ValueError(f"cannot read {path}: {error}") from error
            saved = data[key] if key else data
            names = {spec.name for spec in dataclasses.fields(args_class)}
            return {name: value for name, value in saved.items() if name in names}
    return None


def settle(
    given: ArgsT,
    parse: Callable[[ArgsT | None], ArgsT],
    run_dir: Path,
    may_change: Sequence[str],
    legacy: tuple[str, str] | None = None,
) -> ArgsT:
    """The arguments of this invocation: the command line's (``given``), or those of the run it resumes.

    Args:
        given: the command line parsed with the script's own defaults.
        parse: parses the command line again with other defaults (the stored run's).
        run_dir: the run directory the command line names.
        may_change: the options a resumed run may take anew; the others must repeat the stored value.
        legacy: see :func:`stored_args`.

    Raises:
        ValueError: --resume without a run, a new run over an existing one, or an option given anew that a
            resumed run cannot change.
    """
    if given.resume and given.resume_if_present:
        raise ValueError("give either --resume or --resume-if-present, not both")
    stored = stored_args(run_dir, type(given), legacy)
    if stored is None:
        if given.resume:
            raise ValueError(f"--resume: {run_dir} holds no run ({RUN_ARGS_NAME} is missing); start one without "
                             "--resume (or pass --resume-if-present to start one when there is none)")
        return dataclasses.replace(given, resume=False, resume_if_present=False)
    if not (given.resume or given.resume_if_present):
        raise ValueError(f"{run_dir} already holds a run; pass --resume to continue it or choose another --run-dir")
    # Parsed again with the stored arguments as defaults: an option that differs from them was given anew.
    # (Compared with the stored run's arguments as the dataclass holds them: it may bring an older form up to date.)
    defaults = type(given)(**stored)
    resumed = parse(defaults)
    for name in stored:
        if name in {*may_change, *RESUME_FLAGS, "run_dir"}:
            continue
        if getattr(resumed, name) != getattr(defaults, name):
            raise ValueError(
                f"{flag(name)} cannot change when resuming: the run in {run_dir} has {shown(getattr(defaults, name))}, "
                f"not {shown(getattr(resumed, name))}; drop the option, or start a new run in another --run-dir"
            )
    return dataclasses.replace(resumed, run_dir=str(run_dir), resume=True, resume_if_present=False)


def write_run_args(args: Any) -> None:
    """Store a run's arguments in its directory (``args.run_dir``), for --resume."""
    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    write_json(run_dir / RUN_ARGS_NAME, dataclasses.asdict(dataclasses.replace(args, resume=False,
                                                                               resume_if_present=False)))


def as_flags(args: Any) -> list[str]:
    """The command line that trains a run like ``args`` (how it was started left out)."""
    flags: list[str] = []
    for spec in dataclasses.fields(args):
        if spec.name in RESUME_FLAGS:
            continue
        value = getattr(args, spec.name)
        if isinstance(value, bool):
            flags.append(flag(spec.name) if value else "--no-" + flag(spec.name)[2:])
        elif isinstance(value, list):
            flags += [flag(spec.name), *map(str, value)]
        elif value is not None:
            flags += [flag(spec.name), str(value)]
    return flags


def tournament(env_id: str, agents: list, games: int, seed: int, results_path: Path) -> dict | None:
    """``cardenvs.evaluation.run_tournament``'s per-agent stats by agent name (None when ``games`` is 0).

    Args:
        env_id: the game.
        agents: agent specs or Agent instances.
        games: games to play (rounded up to whole duplicate sets by the tournament).
        seed: the tournament's seed.
        results_path: the tournament's JSON-lines results file (kept in the run directory).
    """
    if games <= 0:
        return None
    from cardenvs.evaluation import run_tournament

    results_path.parent.mkdir(parents=True, exist_ok=True)
    result = run_tournament(env_id, agents, games, seed=seed, progress=False, results_path=results_path)
    return dict(result.stats)


def match_rows(stats: dict) -> dict[str, dict[str, float]]:
    """A tournament's per-agent stats as JSON rows: mean reward, its 95% CI half-width, win rate."""
    return {name: {"mean_reward": s.mean_reward, "ci95": s.ci95, "win_rate": s.win_rate} for name, s in stats.items()}


def match_table(title: str, rows: dict[str, dict[str, float]]) -> list[str]:
    """The printed lines of one match: a header named ``title``, then one line per agent."""
    lines = [f"{title:<24} {'mean reward':>18} {'win rate':>9}"]
    for name, row in rows.items():
        lines.append(f"  {name:<22} {row['mean_reward']:>+9.3f} ± {row['ci95']:<6.3f} {row['win_rate']:>9.1%}")
    return lines


def evaluation_point(stats: dict, name: str, **progress: float) -> dict[str, float]:
    """One point of a learning curve: the agent ``name``'s results in a tournament against the rule-based agent.

    Args:
        stats: the tournament's per-agent stats (from :func:`tournament`).
        name: the evaluated agent's name in ``stats``.
        progress: how far training was (e.g. ``decisions=...``), stored with the point.
    """
    agent, heuristic = stats[name], stats["heuristic"]
    return {**progress, "mean_reward": agent.mean_reward, "ci95": agent.ci95, "win_rate": agent.win_rate,
            "heuristic_mean_reward": heuristic.mean_reward}


def final_tournament(env_id: str, agent: Any, games: int, seed: int, run_dir: Path) -> tuple[dict[str, Any], str]:
    """A trained agent against each of :data:`FINAL_OPPONENTS`, a duplicate-deal match each, played afresh.

    Args:
        env_id: the game.
        agent: the trained agent (an Agent instance; its ``name`` labels it).
        games: games of each match.
        seed: the matches' seed.
        run_dir: the run directory (the results files go to its ``tournaments/`` folder, replaced).

    Returns:
        What ``model.json`` records (``games``, ``seed``, ``matches``), and the printed table.
    """
    lines = [f"{env_id}: {games} games per match, seed {seed}"]
    matches = []
    for other in FINAL_OPPONENTS:
        path = run_dir / TOURNAMENTS_DIR / f"final_{other}.jsonl"
        path.unlink(missing_ok=True)  # the model was just saved: always a fresh tournament
        rows = match_rows(tournament(env_id, [agent, other], games, seed=seed, results_path=path))
        matches.append({"agents": [agent.name, other], "results": rows})
        lines += match_table(f"{agent.name} vs {other}", rows)
    return {"games": games, "seed": seed, "matches": matches}, "\n".join(lines)
