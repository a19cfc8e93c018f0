"""What the training scripts share about a run directory: its stored arguments, resuming, JSON files, tournaments.

A run directory holds ``run.json`` (the arguments the run was started with) from its first moment, so that
``--resume`` continues with them whether or not a checkpoint was written yet.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

RUN_ARGS_NAME = "run.json"
#: options that say how to start, not what the run is
RESUME_FLAGS = ("resume", "resume_if_present")

ArgsT = TypeVar("ArgsT")


def flag(name: str) -> str:
    """A field's command-line option: ``total_timesteps`` -> ``--total-timesteps``."""
    return "--" + name.replace("_", "-")


def shown(value: Any) -> str:
    """A value as it is written on the command line."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)


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
