"""The run shell the trainers share (``cardenvs train``, the MaskablePPO and RLlib adapters): a run directory's
stored arguments and resuming, the checks of their common options, the league's agent specs, files replaced whole,
evaluation tournaments and their TensorBoard scalars, ``model.json``, the final tournament, timers, and the
command's shell (its exit codes and one-line messages).

A run directory holds ``run.json`` (the arguments the run was started with) from its first moment, so that
``--resume`` continues with them whether or not a checkpoint was written yet. The trainers name their common
options alike (``total_decisions``, ``num_steps``, ``league``, ...), and the checks here word their messages
with the option's flag.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import cardenvs
from cardenvs.core.exit_codes import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_USAGE
from cardenvs.training import cli
from cardenvs.training.cli import flag, shown

RUN_ARGS_NAME = "run.json"
#: how the model was trained and its results, beside the model in the run directory
MODEL_INFO_NAME = "model.json"
#: the run directory's folder of TensorBoard logs
TENSORBOARD_DIR = "tb"
#: options that say how to start, not what the run is
RESUME_FLAGS = ("resume", "resume_if_present")
#: the league entry that stands for frozen snapshots of the learner, taken as training goes
SNAPSHOTS = "snapshots"
#: periodic events (snapshots, checkpoints, evaluations) default to this many per run
EVENTS_PER_RUN = 10
#: the options whose default is a share of the run (``total_decisions // EVENTS_PER_RUN``)
PERIODIC_FIELDS = ("snapshot_every", "checkpoint_every", "eval_every")
#: what ``--help`` shows as the default of a periodic event's interval
PERIODIC_DEFAULT = f"--total-decisions / {EVENTS_PER_RUN}"
#: the agents a trained policy meets in its final tournament, each in a match of its own
FINAL_OPPONENTS = ("heuristic", "random")
#: the run directory's folder of tournament results files
TOURNAMENTS_DIR = "tournaments"
#: the trained agent's name in tournaments
AGENT_NAME = "trained"
#: the rule-based agent the periodic evaluations play against
EVALUATION_OPPONENT = "heuristic"

ArgsT = TypeVar("ArgsT")


def check_league(league: Sequence[str], max_snapshots: int, need_agent: bool = False) -> None:
    """Raise ValueError for a ``--league`` that cannot fill training games.

    Each entry is an agent spec (``random``, ``heuristic``, ``trained``, ``ppo:PATH``, ``rllib:PATH``) or
    :data:`SNAPSHOTS`; a human cannot play training games, a checkpoint must exist, and snapshots need room
    (``max_snapshots`` of at least 1).

    Args:
        league: the ``--league`` entries.
        max_snapshots: the ``--max-snapshots`` option.
        need_agent: the league needs an agent spec, there from the first game (snapshots come later).
    """
    if need_agent and all(spec == SNAPSHOTS for spec in league):
        raise ValueError(f"--league needs at least one agent spec (random, heuristic, ppo:PATH) besides {SNAPSHOTS}")
    if SNAPSHOTS in league and max_snapshots < 1:
        raise ValueError(f"--league {SNAPSHOTS} needs --max-snapshots of at least 1")
    cli.check_training_agents("--league", league, others=[SNAPSHOTS])


def check_run_dir(run_dir: str) -> None:
    """Raise ValueError if ``--run-dir`` names a file (a run directory may be missing: it is created)."""
    if Path(run_dir).exists() and not Path(run_dir).is_dir():
        raise ValueError(f"--run-dir {run_dir} is a file, not a directory")


def periodic_default(total: int) -> int:
    """The default interval of a periodic event: a :data:`EVENTS_PER_RUN`-th of the run's ``total`` (at least 1)."""
    return max(1, total // EVENTS_PER_RUN)


def resolve(args: ArgsT, runs_dir: Path, checks: Sequence[cli.Rule], need_agent: bool = False) -> ArgsT:
    """``args`` of a trainer with a league and periodic events, the defaults that depend on others filled in (the
    periodic events' intervals, the run directory); ValueError for the first setting that cannot work.

    Args:
        args: the parsed arguments (a dataclass with ``env_id``, ``total_decisions``, ``league``, ``max_snapshots``,
            ``run_dir`` and the periodic events' ``*_every``).
        runs_dir: the run directory is ``runs_dir/<env_id>`` unless ``--run-dir`` says otherwise.
        checks: the checks of the options (:func:`cardenvs.training.cli.check_options`).
        need_agent: the league needs an agent spec (:func:`check_league`).
    """
    if args.env_id not in cardenvs.available_envs():
        raise ValueError(f"unknown env id {args.env_id!r}; choose from {', '.join(cardenvs.available_envs())}")
    every = periodic_default(args.total_decisions)
    filled = dataclasses.replace(args, **{name: every for name in PERIODIC_FIELDS if getattr(args, name) is None})
    filled.run_dir = filled.run_dir or str(runs_dir / filled.env_id)
    cli.check_options(filled, checks)
    check_league(filled.league, filled.max_snapshots, need_agent)
    check_run_dir(filled.run_dir)
    return filled


def resume_command(command: str, run_dir: Path | str) -> str:
    """The command that continues the run in ``run_dir``, for the messages of an interrupted run.

    Args:
        command: how the script is started (``python -m cardenvs.training.ppo``).
        run_dir: the run directory.
    """
    return f"{command} --run-dir {shlex.quote(str(run_dir))} --resume"


def save_whole(path: Path, save: Callable[[Path], Any]) -> None:
    """Replace ``path`` whole with what ``save`` writes to a path beside it (an interruption leaves the old file or
    the new one, never half of one).

    Args:
        path: the file to replace.
        save: writes the new file at the path it is given.
    """
    partial = path.with_name("partial_" + path.name)
    save(partial)
    os.replace(partial, path)


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    """Replace the torch checkpoint at ``path`` whole with ``state`` (its folder made if missing)."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    save_whole(path, lambda partial: torch.save(state, partial))


def load_checkpoint(path: Path) -> dict[str, Any]:
    """The state a torch checkpoint at ``path`` holds (:func:`save_checkpoint`), its tensors on the CPU."""
    import torch

    return torch.load(path, map_location="cpu", weights_only=False)


def write_json(path: Path, data: dict) -> None:
    """Replace ``path`` whole with ``data`` as JSON."""
    save_whole(path, lambda partial: partial.write_text(json.dumps(data, indent=2) + "\n"))


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
    game: str = "--env-id",
) -> ArgsT:
    """The arguments of this invocation: the command line's (``given``), or those of the run it resumes.

    Args:
        given: the command line parsed with the script's own defaults.
        parse: parses the command line again with other defaults (the stored run's).
        run_dir: the run directory the command line names.
        may_change: the options a resumed run may take anew; the others must repeat the stored value.
        legacy: see :func:`stored_args`.
        game: how the command line names the game, for the message when it differs from the stored run's.

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
    if resumed.env_id != defaults.env_id:
        raise ValueError(f"{game} cannot change when resuming: the run in {run_dir} trains {defaults.env_id}")
    for name in stored:
        if name in {*may_change, *RESUME_FLAGS, "run_dir"}:
            continue
        if getattr(resumed, name) != getattr(defaults, name):
            raise ValueError(
                f"{flag(name)} cannot change when resuming: the run in {run_dir} has {shown(getattr(defaults, name))}, "
                f"not {shown(getattr(resumed, name))}; drop the option, or start a new run in another --run-dir"
            )
    return dataclasses.replace(resumed, run_dir=str(run_dir), resume=True, resume_if_present=False)


def settle_command_line(parse: Callable[[ArgsT | None], ArgsT], runs_dir: Path, may_change: Sequence[str],
                        game: str = "--env-id") -> ArgsT:
    """The arguments of this invocation of a trainer: the command line's, or those of the run it resumes (``run_dir``
    filled in); see :func:`settle`.

    Args:
        parse: parses the command line with the given defaults (None: the trainer's own).
        runs_dir: the run directory is ``runs_dir/<env_id>`` unless ``--run-dir`` says otherwise.
        may_change: the options a resumed run may take anew.
        game: how the command line names the game.
    """
    given = parse(None)
    run_dir = Path(given.run_dir) if given.run_dir is not None else runs_dir / given.env_id
    return dataclasses.replace(settle(given, parse, run_dir, may_change, game=game), run_dir=str(run_dir))


def write_run_args(args: Any) -> None:
    """Store a run's arguments in its directory (``args.run_dir``), for --resume."""
    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    write_json(run_dir / RUN_ARGS_NAME, dataclasses.asdict(dataclasses.replace(args, resume=False,
                                                                               resume_if_present=False)))


def as_flags(args: Any, leave_out: Sequence[str] = ()) -> list[str]:
    """The command line that trains a run like ``args`` (how it was started left out, and the fields ``leave_out``)."""
    flags: list[str] = []
    for spec in dataclasses.fields(args):
        if spec.name in (*RESUME_FLAGS, *leave_out):
            continue
        value = getattr(args, spec.name)
        if isinstance(value, bool):
            flags.append(flag(spec.name) if value else "--no-" + flag(spec.name)[2:])
        elif isinstance(value, list):
            flags += [flag(spec.name), *map(str, value)]
        elif value is not None:
            flags += [flag(spec.name), str(value)]
    return flags


def tournament(env_id: str, agents: list, games: int, seed: int, results_path: Path,
               progress: bool = False) -> dict | None:
    """``cardenvs.evaluation.run_tournament``'s per-agent stats by agent name (None when ``games`` is 0).

    Args:
        env_id: the game.
        agents: agent specs or Agent instances.
        games: games to play (rounded up to whole duplicate sets by the tournament).
        seed: the tournament's seed.
        results_path: the tournament's JSON-lines results file (kept in the run directory).
        progress: show the tournament's progress bar.
    """
    if games <= 0:
        return None
    from cardenvs.evaluation import run_tournament

    results_path.parent.mkdir(parents=True, exist_ok=True)
    result = run_tournament(env_id, agents, games, seed=seed, progress=progress, results_path=results_path)
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


def evaluate(env_id: str, agent: Any, games: int, seed: int, run_dir: Path, decisions: int,
             record: Callable[[dict[str, float]], Any] | None = None, **progress: float) -> dict[str, float]:
    """A tournament of ``agent`` against the rule-based agent: one point of the learning curve, also recorded as
    TensorBoard scalars (:func:`evaluation_scalars`).

    Args:
        env_id: the game.
        agent: the evaluated agent (an Agent instance, named by its ``name``).
        games: games of the tournament (at least 1).
        seed: the tournament's seed.
        run_dir: the run directory (the results go to ``tournaments/eval_<decisions>.jsonl``).
        decisions: learner decisions made so far, stored with the point (and the scalars' step).
        record: records the scalars (default: added to the TensorBoard logs in ``run_dir/tb``).
        progress: more measures of how far training was (e.g. ``train_seconds``), stored with the point.
    """
    stats = tournament(env_id, [agent, EVALUATION_OPPONENT], games, seed=seed,
                       results_path=run_dir / TOURNAMENTS_DIR / f"eval_{decisions}.jsonl")
    evaluated, opponent = stats[agent.name], stats[EVALUATION_OPPONENT]
    point = {"decisions": decisions, **progress, "mean_reward": evaluated.mean_reward, "ci95": evaluated.ci95,
             "win_rate": evaluated.win_rate, "heuristic_mean_reward": opponent.mean_reward}
    scalars = evaluation_scalars(point)
    if record is None:
        write_scalars(run_dir / TENSORBOARD_DIR, decisions, scalars)
    else:
        record(scalars)
    return point


def evaluation_scalars(point: dict[str, float]) -> dict[str, float]:
    """The TensorBoard scalars of one evaluation (from :func:`evaluate`), by name."""
    return {"eval/mean_reward_vs_heuristic": point["mean_reward"],
            "eval/reward_minus_heuristic": point["mean_reward"] - point["heuristic_mean_reward"],
            "eval/win_rate_vs_heuristic": point["win_rate"]}


def add_scalars(writer: Any, step: int, scalars: dict[str, float]) -> None:
    """Add ``scalars`` (name: value) at ``step`` to a TensorBoard ``SummaryWriter``."""
    for name, value in scalars.items():
        writer.add_scalar(name, float(value), step)


def write_scalars(log_dir: Path, step: int, scalars: dict[str, float]) -> None:
    """Add ``scalars`` (name: value) at ``step`` to the TensorBoard logs in ``log_dir``."""
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(log_dir)) as writer:
        add_scalars(writer, step, scalars)


def final_tournament(env_id: str, agent: Any, games: int, seed: int, run_dir: Path,
                     progress: bool = False) -> tuple[dict[str, Any], str]:
    """A trained agent against each of :data:`FINAL_OPPONENTS`, a duplicate-deal match each, played afresh; a line
    says when each match starts.

    Args:
        env_id: the game.
        agent: the trained agent (an Agent instance; its ``name`` labels it).
        games: games of each match.
        seed: the matches' seed.
        run_dir: the run directory (the results files go to its ``tournaments/`` folder, replaced).
        progress: show each match's progress bar.

    Returns:
        What ``model.json`` records (``games``, ``seed``, ``matches``), and the printed table.
    """
    lines = [f"{env_id}: {games} games per match, seed {seed}"]
    matches = []
    for number, other in enumerate(FINAL_OPPONENTS, 1):
        print(f"final match {number}/{len(FINAL_OPPONENTS)}: {agent.name} vs {other}, {games:,} games", flush=True)
        path = run_dir / TOURNAMENTS_DIR / f"final_{other}.jsonl"
        path.unlink(missing_ok=True)  # the model was just saved: always a fresh tournament
        rows = match_rows(tournament(env_id, [agent, other], games, seed=seed, results_path=path, progress=progress))
        matches.append({"agents": [agent.name, other], "results": rows})
        lines += match_table(f"{agent.name} vs {other}", rows)
    return {"games": games, "seed": seed, "matches": matches}, "\n".join(lines)


def final_results(load: Callable[[], Any], env_id: str, games: int, seed: int, run_dir: Path,
                  info: dict[str, Any] | None = None, progress: bool = False) -> str | None:
    """The final tournament of a saved model (:func:`final_tournament`), recorded with ``info`` in ``model.json``;
    the printed table (None, and nothing played or written, when ``games`` is 0).

    Args:
        load: loads the saved model as an agent (called only when there are games to play).
        env_id: the game.
        games: games of each match.
        seed: the matches' seed.
        run_dir: the run directory.
        info: how the model was trained (:func:`model_info`; default: what ``model.json`` holds, written with the
            model).
        progress: show each match's progress bar.
    """
    if games <= 0:
        return None
    if info is None:
        info = json.loads((run_dir / MODEL_INFO_NAME).read_text())
    agent = load()
    agent.name = AGENT_NAME
    record, table = final_tournament(env_id, agent, games, seed, run_dir, progress)
    write_json(run_dir / MODEL_INFO_NAME, {**info, "tournament": record})
    return table


def command_line(start: str, args: Any, leave_out: Sequence[str] = ()) -> str:
    """The command that trains a run like ``args``: ``start`` (how the trainer is started), then the options (but
    the fields ``leave_out``, e.g. a positional argument already in ``start``)."""
    return " ".join([start, *map(shlex.quote, as_flags(args, leave_out))])


def model_info(args: Any, trainer: str, command: str, packages: Sequence[str] = (), **more: Any) -> dict[str, Any]:
    """How a model was trained, as ``model.json`` holds it.

    Args:
        args: the run's arguments (a dataclass with ``env_id``).
        trainer: the trainer's name.
        command: the command that trains a run like it (:func:`command_line`).
        packages: the modules, besides cardenvs, whose versions are recorded.
        more: the trainer's own entries (decisions made, evaluations, ...).
    """
    versions = {"cardenvs": cardenvs.__version__,
                **{name: importlib.import_module(name).__version__ for name in packages}}
    return {"env_id": args.env_id, "trainer": trainer, **more, "args": dataclasses.asdict(args), "command": command,
            "versions": versions}


class Timers:
    """Wall seconds spent per part of a training loop, for the report of where the time goes.

    Args:
        parts: the parts' names.
    """

    def __init__(self, parts: Sequence[str]) -> None:
        self.seconds, self._last = dict.fromkeys(parts, 0.0), time.perf_counter()

    def lap(self, part: str) -> None:
        """Count the time since the last lap as ``part``'s."""
        now = time.perf_counter()
        self.seconds[part] += now - self._last
        self._last = now

    def shares(self) -> dict[str, float]:
        """Each part's share of the time measured."""
        total = sum(self.seconds.values()) or 1.0
        return {part: seconds / total for part, seconds in self.seconds.items()}


class Progress:
    """A training loop's progress shown as it goes: a bar of learner decisions (with the minutes trained, where the
    run has a time limit, which may end it long before its decisions) and TensorBoard scalars.

    Args:
        log_dir: the folder of the TensorBoard logs.
        total: learner decisions of the whole run.
        done: learner decisions already made (a resumed run's).
        show: show the bar.
        label: the bar's label.
        minutes: the run's time limit in minutes (0: none).
    """

    def __init__(self, log_dir: Path, total: int, done: int, show: bool, label: str, minutes: float = 0.0) -> None:
        from torch.utils.tensorboard import SummaryWriter
        from tqdm.auto import tqdm

        self.writer, self.minutes = SummaryWriter(str(log_dir)), minutes
        self.bar = tqdm(total=total, initial=min(done, total), unit="dec", disable=not show, dynamic_ncols=True,
                        desc=label)

    def update(self, made: int, decisions: int, scalars: dict[str, float], train_seconds: float = 0.0) -> None:
        """After an update: ``made`` more decisions (``decisions`` in all, the scalars' step), its ``scalars`` and the
        run's training time so far (``train_seconds``)."""
        if self.minutes:
            self.bar.set_postfix_str(f"{train_seconds / 60:.1f} of {self.minutes:g} min", refresh=False)
        self.bar.update(min(made, max(0, self.bar.total - self.bar.n)))
        add_scalars(self.writer, decisions, scalars)

    def close(self) -> None:
        """Close the bar and the logs."""
        self.bar.close()
        self.writer.close()


class UsageError(ValueError):
    """An argument found not to work only once the run starts (e.g. a league checkpoint of another game)."""


def run_command(prog: str, extra: str, settle: Callable[[], ArgsT], needs: Sequence[str],
                train: Callable[[ArgsT], str | None], interrupted: Callable[[ArgsT], str]) -> int:
    """The shell of a training command; its exit code (:mod:`cardenvs.core.exit_codes`). Before anything starts,
    a missing extra or an argument that is not allowed ends it with a one-line message (``EXIT_FAILURE``,
    ``EXIT_USAGE``); an interruption prints what was kept and how to go on (``EXIT_INTERRUPTED``); a finished run
    prints its final table.

    Args:
        prog: how the command was started, for the messages.
        extra: the optional-dependency group of pyproject.toml the command needs (``train``, ``rllib``).
        settle: the checked arguments of this invocation; ValueError for one that is not allowed.
        needs: the modules of the extra the run imports, checked before it starts.
        train: the run; its final table (None: none). A `UsageError` it raises is a usage error.
        interrupted: what an interrupted run kept and the command that continues it.
    """
    missing = cli.tyro_missing(extra)
    if missing:
        print(f"error: {prog} {missing}", file=sys.stderr)
        return EXIT_FAILURE
    try:
        args = settle()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        for module in needs:
            importlib.import_module(module)
    except ImportError as error:
        print(f"error: {prog} needs the '{extra}' extra ({error.name or error} cannot be imported); install it "
              f"with: pip install \"cardenvs[{extra}]\"", file=sys.stderr)
        return EXIT_FAILURE
    try:
        table = train(args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\n" + interrupted(args), file=sys.stderr)
        return EXIT_INTERRUPTED
    if table:
        print(table)
    return 0
