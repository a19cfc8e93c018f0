"""Train a MaskablePPO agent on one cardenvs game against a pool of opponents (see docs/training.md).

One readable file: the `Args` dataclass is the whole configuration and ``tyro`` builds the command line from its
fields and their docstrings; per-game defaults (budgets that fit a 2-core CPU in a few minutes) are each game's
`training_defaults`. Run it from the repository root as a module, or from anywhere by its path (it then puts the
repository on ``sys.path`` itself):

    python -m cardenvs.training.ppo --env-id slabberjan_v0
    python /path/to/cardenvs/training/ppo.py --env-id slabberjan_v0
    python -m cardenvs.training.ppo --env-id slap_v0 --total-timesteps 400000 --opponents random heuristic \\
        --self-play --snapshot-every 50000 --checkpoint-every 20000 --run-dir runs/ppo/slap
    python -m cardenvs.training.ppo --run-dir runs/ppo/slap --resume

What it does:

* the learner plays one seat of `num_envs` games in lockstep (`cardenvs.learning.LearnerVecEnv`); every other
  seat is played by an agent drawn from the opponent pool (`--opponents`; with `--self-play`, frozen copies of
  the learner join the pool every `--snapshot-every` steps, the newest `--max-snapshots` kept);
* the run's arguments are written to `<run-dir>/run.json` when it starts, so that `--resume` continues with them;
* a checkpoint (model, optimizer, step count, opponent pool) every `--checkpoint-every` steps, taken between two
  updates so that `--resume` continues exactly where the last one left off;
* TensorBoard logs in `<run-dir>/tb` (`tensorboard --logdir runs/ppo`; a resumed run logs into the same
  TensorBoard run), a progress bar, and every `--eval-every` steps a tournament of the learner against the
  rule-based agent (`eval/*` in TensorBoard);
* at the end, `<run-dir>/model.zip` (the policy, without optimizer state: small), `<run-dir>/model.json` (how it
  was trained and its results), and a tournament of the trained agent against random and rule-based agents,
  printed as a table.

Every argument is checked before anything is built: a bad one ends the script with a one-line message and exit
code 2 (1 when the `train` extra is missing).
"""

from __future__ import annotations

import os

# Idle OpenMP threads (numba's batched kernels and torch share libgomp) must sleep, not spin: a spinning worker
# took half of a 2-core machine and made training 5x slower. Read when libgomp loads, so set before any import.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import copy
import dataclasses
import json
import math
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

if __spec__ is None:  # run by its path: the repository root holds cardenvs, agents and training
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardenvs.training.cli import invocation, registered_env, shown_default, tyro_missing
from cardenvs.training.runs import (
    as_flags,
    flag,
    match_rows,
    match_table,
    shown,
    tournament,
    write_json,
    write_run_args,
)
from cardenvs.training.runs import settle as settle_run

import cardenvs


def game_defaults() -> dict[str, dict[str, Any]]:
    """env id -> the game's own defaults (its manifest's ``training_defaults``), for the fields left at None.

    Chosen so that each run takes a few minutes on a 2-core CPU.
    """
    return {env_id: cardenvs.get_game(env_id).training_defaults for env_id in cardenvs.available_envs()}


#: defaults of every game for the fields that its training_defaults leave out
COMMON_DEFAULTS: dict[str, Any] = {
    # tuned for throughput: 256 games x 64 steps per update, 2 passes in minibatches of 4096
    "num_envs": 256, "n_steps": 64, "batch_size": 4096, "n_epochs": 2, "eval_games": 200, "final_games": 1000,
    "opponents": ["random", "heuristic"],
    # for a game whose training_defaults leave these out
    "total_timesteps": 300_000, "gamma": 0.99, "ent_coef": 0.01, "net_arch": [64, 64],
}
#: checkpoints, snapshots and evaluations default to this many per run
EVENTS_PER_RUN = 10
#: the fields whose default is a share of the run (``total_timesteps // EVENTS_PER_RUN``)
PERIODIC_FIELDS = ("snapshot_every", "checkpoint_every", "eval_every")
#: where runs go unless --run-dir says otherwise (``<RUNS_DIR>/<env_id>``)
RUNS_DIR = Path("runs") / "ppo"
CHECKPOINT_NAME = "checkpoint.zip"
STATE_NAME = "checkpoint.json"
MODEL_NAME = "model.zip"
MODEL_INFO_NAME = "model.json"
POOL_DIR = "pool"
TENSORBOARD_DIR = "tb"
#: the TensorBoard run's name; stable-baselines3 numbers it (``ppo_1``)
TB_LOG_NAME = "ppo"
#: options a resumed run may take anew from the command line (the others must match the stored run)
RESUME_MAY_CHANGE = ("total_timesteps", "checkpoint_every", "eval_every", "eval_games", "final_games",
                     "torch_threads", "progress_bar")
#: seeds must fit numpy's legacy seeding (stable-baselines3 seeds it), with room for the steps added to them
MAX_SEED = 2**31 - 1
#: stable-baselines3's PPO needs minibatches of two samples or more
MIN_BATCH_SIZE = 2
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


#: the game trained on unless --env-id says otherwise
DEFAULT_ENV_ID = "slabberjan_v0"


def _game_default(name: str, metavar: str) -> Any:
    """The tyro marker of a field whose None means a default decided elsewhere (`default_help` says which).

    Args:
        name: the field.
        metavar: what the option takes, as ``--help`` writes it.
    """
    return shown_default(lambda: default_help(name), metavar)  # the games' defaults are read only when shown


@dataclass
class Args:
    """Everything a run depends on. ``None`` means the game's default (its ``training_defaults``).

    Each field is the ``--option`` of the same name (``_`` written ``-``) and its docstring is the option's help
    (on one line: tyro would keep the line breaks of a docstring that goes on over indented lines).
    """

    env_id: Annotated[str, registered_env(DEFAULT_ENV_ID)] = DEFAULT_ENV_ID
    """the game to train on"""
    total_timesteps: Annotated[int | None, _game_default("total_timesteps", "INT")] = None
    """learner decisions to train for, in all (a resumed run counts the steps already done)"""
    num_envs: Annotated[int | None, _game_default("num_envs", "INT")] = None
    """games played in lockstep"""
    n_steps: Annotated[int | None, _game_default("n_steps", "INT")] = None
    """learner decisions per game between two updates (rollout length)"""
    batch_size: Annotated[int | None, _game_default("batch_size", "INT")] = None
    """minibatch size of the updates (at most --num-envs × --n-steps)"""
    n_epochs: Annotated[int | None, _game_default("n_epochs", "INT")] = None
    """passes over each rollout"""
    learning_rate: float = 3e-4
    """Adam's step size"""
    gamma: Annotated[float | None, _game_default("gamma", "FLOAT")] = None
    """discount factor per learner decision, in [0, 1] (rewards come at the end of long games)"""
    gae_lambda: float = 0.95
    """GAE's bias/variance trade-off, in [0, 1]"""
    clip_range: float = 0.2
    """PPO's policy-ratio clip"""
    ent_coef: Annotated[float | None, _game_default("ent_coef", "FLOAT")] = None
    """weight of the entropy bonus (exploration)"""
    net_arch: Annotated[list[int] | None, _game_default("net_arch", "INT [INT ...]")] = None
    """hidden layer sizes of the policy and value networks"""
    opponents: Annotated[list[str] | None, _game_default("opponents", "SPEC [SPEC ...]")] = None
    """agent specs of the opponent pool: random, heuristic, ppo:PATH"""
    self_play: bool = False
    """add frozen copies of the learner to the opponent pool as training goes"""
    snapshot_every: Annotated[int | None, _game_default("snapshot_every", "INT")] = None
    """with --self-play, learner decisions between two snapshots"""
    max_snapshots: int = 5
    """snapshots kept in the pool (the oldest leaves first)"""
    checkpoint_every: Annotated[int | None, _game_default("checkpoint_every", "INT")] = None
    """learner decisions between two checkpoints"""
    eval_every: Annotated[int | None, _game_default("eval_every", "INT")] = None
    """learner decisions between two evaluations against the rule-based agent (0: never)"""
    eval_games: Annotated[int | None, _game_default("eval_games", "INT")] = None
    """games per periodic evaluation (0: none)"""
    final_games: Annotated[int | None, _game_default("final_games", "INT")] = None
    """games of the final tournament, trained vs random vs heuristic (0 skips it)"""
    run_dir: Annotated[str | None, _game_default("run_dir", "PATH")] = None
    """where the run's arguments, checkpoints, logs and final model go"""
    resume: bool = False
    """continue the run in --run-dir (an error if there is none) with its arguments, from its last checkpoint if any"""
    resume_if_present: bool = False
    """like --resume when --run-dir holds a run, otherwise start a new one"""
    seed: int = 0
    """seed of the games, the network's initialisation and the evaluations"""
    torch_threads: int = 1
    """CPU threads for torch (small networks run fastest on one)"""
    progress_bar: bool = True
    """show a progress bar"""


# ---------------------------------------------------------------------------------------------- command line
def default_help(name: str) -> str:
    """What --help shows as the default of field ``name``: per-game values grouped by value, or the one value."""
    per_game = game_defaults()
    if any(name in defaults for defaults in per_game.values()):
        games_of: dict[str, list[str]] = {}
        for env_id, defaults in per_game.items():
            games_of.setdefault(shown(defaults.get(name, COMMON_DEFAULTS.get(name))), []).append(env_id)
        if len(games_of) == 1:
            return next(iter(games_of))
        return "per game: " + "; ".join(f"{value} for {', '.join(games)}" for value, games in games_of.items())
    if name in COMMON_DEFAULTS:
        return shown(COMMON_DEFAULTS[name])
    if name in PERIODIC_FIELDS:
        return f"--total-timesteps / {EVENTS_PER_RUN}"
    if name == "run_dir":
        return f"{RUNS_DIR.as_posix()}/<env-id>"
    return shown(next(spec.default for spec in dataclasses.fields(Args) if spec.name == name))


def command() -> str:
    """How this script was started: the start of the commands it prints (``python -m cardenvs.training.ppo``)."""
    return invocation(__spec__)


def parse_args(argv: Sequence[str] | None = None, defaults: Args | None = None) -> Args:
    """The command line as `Args`; a malformed one exits with tyro's message and code 2, ``--help`` with 0.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
        defaults: the values of the options not given (default: `Args`'s own).
    """
    description = (
        "Train a MaskablePPO agent on a cardenvs game (see docs/training.md). Run it from the repository root as "
        "python -m cardenvs.training.ppo, or from anywhere as python PATH/TO/training/ppo.py.\n\n"
        "The run's arguments are stored in <run-dir>/run.json when it starts. A resumed run (--resume, "
        f"--resume-if-present) uses them; of the options given again only "
        f"{', '.join(flag(name) for name in RESUME_MAY_CHANGE)} may change, the others must repeat the stored value."
    )
    import tyro

    return tyro.cli(Args, args=argv, prog=command(), description=description,
                    default=Args() if defaults is None else defaults)


def default_run_dir(env_id: str) -> Path:
    return RUNS_DIR / env_id


def _check_at_least(args: Args, names: tuple[str, ...], least: int) -> None:
    for name in names:
        value = getattr(args, name)
        if value < least:
            raise ValueError(f"{flag(name)} must be {'at least 1' if least else '0 or more'}, got {value}")


def _check_floats(args: Args) -> None:
    def bad(name: str, rule: str) -> ValueError:
        return ValueError(f"{flag(name)} must be {rule}, got {getattr(args, name)}")

    for name in ("learning_rate", "clip_range"):
        if not (math.isfinite(getattr(args, name)) and getattr(args, name) > 0):
            raise bad(name, "a positive number")
    for name in ("gamma", "gae_lambda"):
        if not 0 <= getattr(args, name) <= 1:  # NaN fails too
            raise bad(name, "in [0, 1]")
    if not (math.isfinite(args.ent_coef) and args.ent_coef >= 0):
        raise bad("ent_coef", "0 or more")


def _check_opponents(args: Args) -> None:
    from cardenvs.agents.registry import check_spec

    if not args.opponents:
        raise ValueError("--opponents needs at least one agent spec")
    for spec in args.opponents:
        check_spec(spec)
        kind, _, path = spec.partition(":")
        if kind == "human":
            raise ValueError("--opponents: a human cannot play training games; use random, heuristic or ppo:PATH")
        if kind == "ppo" and not Path(path).is_file():
            raise ValueError(f"--opponents {spec}: no checkpoint file at {path}")


def resolve(args: Args) -> Args:
    """``args`` with every None filled from the game's defaults; ValueError for a setting that cannot work."""
    if args.env_id not in cardenvs.available_envs():
        raise ValueError(f"unknown env id {args.env_id!r}; choose from {', '.join(cardenvs.available_envs())}")
    filled = dataclasses.replace(args)
    for name, value in {**COMMON_DEFAULTS, **cardenvs.get_game(args.env_id).training_defaults}.items():
        if getattr(filled, name) is None:
            setattr(filled, name, copy.deepcopy(value))
    if filled.total_timesteps < 1:  # checked first: the periodic defaults below are shares of it
        raise ValueError(f"--total-timesteps must be at least 1, got {filled.total_timesteps}")
    every = max(1, filled.total_timesteps // EVENTS_PER_RUN)
    for name in PERIODIC_FIELDS:
        if getattr(filled, name) is None:
            setattr(filled, name, every)
    if filled.run_dir is None:
        filled.run_dir = str(default_run_dir(filled.env_id))
    _check_at_least(filled, ("num_envs", "n_steps", "batch_size", "n_epochs", "snapshot_every", "checkpoint_every",
                             "torch_threads"), 1)
    _check_at_least(filled, ("eval_every", "eval_games", "final_games", "max_snapshots", "seed"), 0)
    if filled.seed > MAX_SEED:
        raise ValueError(f"--seed must be at most {MAX_SEED}, got {filled.seed}")
    rollout = filled.num_envs * filled.n_steps
    if not MIN_BATCH_SIZE <= filled.batch_size <= rollout:
        raise ValueError(f"--batch-size must be from {MIN_BATCH_SIZE} to --num-envs × --n-steps = {rollout} "
                         f"(the samples of one update), got {filled.batch_size}")
    if not filled.net_arch or min(filled.net_arch) < 1:
        raise ValueError(f"--net-arch must be one or more positive layer sizes, got {shown(filled.net_arch)}")
    _check_floats(filled)
    if filled.self_play and filled.max_snapshots == 0:
        raise ValueError("--self-play needs --max-snapshots of at least 1 (with 0 no snapshot joins the pool)")
    _check_opponents(filled)
    if Path(filled.run_dir).exists() and not Path(filled.run_dir).is_dir():
        raise ValueError(f"--run-dir {filled.run_dir} is a file, not a directory")
    return filled


def settle(argv: Sequence[str] | None) -> Args:
    """The arguments of this invocation: the command line's, or those of the run it resumes.

    Args:
        argv: the command line (default: ``sys.argv[1:]``).

    Raises:
        ValueError: --resume without a run, a new run over an existing one, or an option given anew that a
            resumed run cannot change.
    """
    given = parse_args(argv)
    run_dir = Path(given.run_dir) if given.run_dir is not None else default_run_dir(given.env_id)
    # Runs from before run.json kept their arguments in the checkpoint's state file only.
    return settle_run(given, lambda defaults: parse_args(argv, defaults), run_dir, RESUME_MAY_CHANGE,
                      legacy=(STATE_NAME, "args"))


def require_train_extra() -> None:
    """Raise ImportError, saying what to install, unless the `train` extra is installed."""
    import cardenvs.learning  # noqa: F401  (raises ImportError naming the extra)


# ---------------------------------------------------------------------------------------------- the run
def make_opponents(args: Args) -> list:
    """The base agents of the opponent pool; ValueError (saying why) for a ppo:PATH that does not fit the game."""
    from cardenvs.agents.registry import make_agent

    layout = cardenvs.env(args.env_id).layout
    return [make_agent(spec, args.env_id, layout, seed=args.seed + k) for k, spec in enumerate(args.opponents)]


class Run:
    """A training run in ``args.run_dir``: the env, the opponent pool, the model, checkpoints and evaluations.

    Args:
        args: the resolved arguments; with ``resume``, the run continues from the directory's checkpoint if it
            has one (and starts over, logging into the same TensorBoard run, if it has none).
        opponents: the base agents of the pool (default: built from ``args.opponents``).
    """

    def __init__(self, args: Args, opponents: list | None = None):
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import VecMonitor

        from cardenvs.learning import LearnerVecEnv, OpponentPool

        torch.set_num_threads(args.torch_threads)
        self.args = args
        self.dir = Path(args.run_dir)
        aec = cardenvs.env(args.env_id)
        self.layout = aec.layout
        self.num_players = len(aec.possible_agents)
        base = make_opponents(args) if opponents is None else opponents
        self.pool = OpponentPool(base, max_snapshots=args.max_snapshots)
        self.state: dict[str, Any] = {"snapshots": [], "evaluations": [], "wall_seconds": 0.0}
        checkpoint = self.dir / CHECKPOINT_NAME
        resumed = args.resume and checkpoint.is_file()
        if resumed:
            self.state = json.loads((self.dir / STATE_NAME).read_text())
            for name in self.state["snapshots"]:
                self.pool.add_snapshot(self._load_snapshot(name))
        done = self.state.get("num_timesteps", 0)
        # A resumed run plays new games: the seed moves on with the steps done.
        self.env = VecMonitor(LearnerVecEnv(args.env_id, args.num_envs, self.pool, illegal_action="raise",
                                            seed=args.seed + done))
        if resumed:
            self.model = MaskablePPO.load(checkpoint, env=self.env, device="cpu")
            self.model._last_obs = None  # the env restarted: learn() resets it instead of using the saved batch
            self.model.tensorboard_log = str(self.dir / TENSORBOARD_DIR)  # the run directory may have moved
        else:
            self.model = MaskablePPO(
                "MlpPolicy", self.env, learning_rate=args.learning_rate, n_steps=args.n_steps,
                batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda,
                clip_range=args.clip_range, ent_coef=args.ent_coef, policy_kwargs={"net_arch": list(args.net_arch)},
                tensorboard_log=str(self.dir / TENSORBOARD_DIR), seed=args.seed, device="cpu", verbose=0,
            )
        self.resumed = resumed
        self.started = time.monotonic()
        self.wall_before = float(self.state.get("wall_seconds", 0.0))

    # ------------------------------------------------------------------ events
    def learner_agent(self, name: str = "ppo", deterministic: bool = True):
        """A frozen copy of the current policy as an agent."""
        from cardenvs.agents.ppo import PolicyAgent, frozen_copy

        return PolicyAgent(frozen_copy(self.model.policy), deterministic=deterministic, name=name)

    def add_snapshot(self) -> None:
        """Freeze the learner into the opponent pool (saved, so that a resumed run has the same pool)."""
        steps = self.model.num_timesteps
        name = f"snapshot_{steps:010d}.zip"
        (self.dir / POOL_DIR).mkdir(parents=True, exist_ok=True)
        self.model.policy.save(str(self.dir / POOL_DIR / name))
        self.pool.add_snapshot(self._load_snapshot(name))
        self.state["snapshots"] = (self.state["snapshots"] + [name])[-self.args.max_snapshots:]
        self.state["last_snapshot"] = steps

    def _load_snapshot(self, name: str):
        from cardenvs.agents.ppo import PolicyAgent
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        policy = MaskableActorCriticPolicy.load(str(self.dir / POOL_DIR / name), device="cpu")
        return PolicyAgent(policy, deterministic=False, name=name.removesuffix(".zip"), seed=self.args.seed)

    def checkpoint(self) -> None:
        """Save model + optimizer and the run's state; each file is replaced whole, so an interruption is safe."""
        self.state["num_timesteps"] = self.model.num_timesteps
        self.state["wall_seconds"] = self.wall_seconds()
        self.state["args"] = dataclasses.asdict(self.args)
        partial = self.dir / ("partial_" + CHECKPOINT_NAME)
        self.model.save(partial)
        os.replace(partial, self.dir / CHECKPOINT_NAME)
        write_json(self.dir / STATE_NAME, self.state)
        for path in (self.dir / POOL_DIR).glob("snapshot_*.zip"):
            if path.name not in self.state["snapshots"]:
                path.unlink()  # left the pool, and the checkpoint no longer needs it

    def evaluate(self) -> None:
        """A tournament of the learner against the rule-based agent, logged to TensorBoard."""
        steps = self.model.num_timesteps
        stats = tournament(self.args.env_id, [self.learner_agent(), "heuristic"], self.args.eval_games,
                           seed=self.args.seed + steps, results_path=self.dir / "tournaments" / f"eval_{steps}.jsonl")
        if stats is None:
            return
        learner, heuristic = stats["ppo"], stats["heuristic"]
        self.model.logger.record("eval/mean_reward_vs_heuristic", learner.mean_reward)
        self.model.logger.record("eval/reward_minus_heuristic", learner.mean_reward - heuristic.mean_reward)
        self.model.logger.record("eval/win_rate_vs_heuristic", learner.win_rate)
        self.state["evaluations"].append(
            {"num_timesteps": steps, "mean_reward": learner.mean_reward, "ci95": learner.ci95,
             "win_rate": learner.win_rate, "heuristic_mean_reward": heuristic.mean_reward}
        )
        self.state["last_evaluation"] = self.model.num_timesteps

    def wall_seconds(self) -> float:
        return self.wall_before + time.monotonic() - self.started

    # ------------------------------------------------------------------ the loop
    def train(self) -> None:
        """Learn up to ``total_timesteps``, with the periodic events; then save the final model."""
        from stable_baselines3.common.callbacks import BaseCallback

        run = self

        class Events(BaseCallback):
            # Between two updates: everything the model holds is trained on, nothing is half-collected.
            def _on_rollout_start(self) -> None:
                run.on_update_done()

            def _on_step(self) -> bool:
                return True

        self.dir.mkdir(parents=True, exist_ok=True)
        remaining = self.args.total_timesteps - self.model.num_timesteps
        if remaining > 0:
            # Not resetting keeps the step count and logs into the newest TensorBoard run, which is this run's
            # when it resumes (a run restarted before its first checkpoint has steps 0 and that run too).
            continuing = self.resumed or (self.args.resume and self.tensorboard_runs() > 0)
            self.model.learn(remaining, callback=Events(), reset_num_timesteps=not continuing,
                             tb_log_name=TB_LOG_NAME, progress_bar=self.args.progress_bar)
        self.checkpoint()
        self.save_model()

    def tensorboard_runs(self) -> int:
        """How many TensorBoard runs the run directory holds."""
        return len(list((self.dir / TENSORBOARD_DIR).glob(f"{TB_LOG_NAME}_*")))

    def on_update_done(self) -> None:
        steps = self.model.num_timesteps
        args = self.args
        if steps == 0:
            return
        if args.self_play and steps - self.state.get("last_snapshot", 0) >= args.snapshot_every:
            self.add_snapshot()
        if args.eval_every and args.eval_games and steps - self.state.get("last_evaluation", 0) >= args.eval_every:
            self.evaluate()
        if steps - self.state.get("last_checkpoint", 0) >= args.checkpoint_every:
            self.state["last_checkpoint"] = steps
            self.checkpoint()

    def save_model(self) -> None:
        """The policy alone as ``model.zip`` (a fresh optimizer keeps the file small) and ``model.json``."""
        policy = self.model.policy
        optimizer = policy.optimizer
        policy.optimizer = type(optimizer)(policy.parameters(), **optimizer.defaults)
        try:
            self.model.save(self.dir / MODEL_NAME)
        finally:
            policy.optimizer = optimizer
        info = {
            "env_id": self.args.env_id,
            "num_timesteps": self.model.num_timesteps,
            "wall_seconds": round(self.wall_seconds(), 1),
            "args": dataclasses.asdict(self.args),
            "command": " ".join([command(), *map(shlex.quote, as_flags(self.args))]),
            "evaluations": self.state["evaluations"],
            "versions": _versions(),
        }
        write_json(self.dir / MODEL_INFO_NAME, info)

    def final_tournament(self) -> str | None:
        """The trained agent against random and rule-based agents; the table as text (also in model.json).

        With three seats or more the three agents share one tournament; at a two-seat table the trained agent
        meets each of the others in its own match.
        """
        from cardenvs.agents.ppo import PolicyAgent

        if self.args.final_games <= 0:
            return None
        agent = PolicyAgent.load(self.dir / MODEL_NAME, self.args.env_id, self.layout)
        agent.name = "ppo"
        others = ["random", "heuristic"]
        lineups = [[agent, *others]] if self.num_players > len(others) else [[agent, other] for other in others]
        seed = self.args.seed + 1
        matches, lines = [], [f"{self.args.env_id}: {self.args.final_games} games per tournament, seed {seed}"]
        for lineup in lineups:
            names = [a if isinstance(a, str) else a.name for a in lineup]
            results_path = self.dir / "tournaments" / f"final_{'_'.join(names)}.jsonl"
            results_path.unlink(missing_ok=True)  # the model was just saved: always a fresh tournament
            stats = tournament(self.args.env_id, lineup, self.args.final_games, seed=seed, results_path=results_path)
            rows = match_rows(stats)
            matches.append({"agents": names, "results": rows})
            lines += match_table(' vs '.join(names), rows)
        info = json.loads((self.dir / MODEL_INFO_NAME).read_text())
        info["tournament"] = {"games": self.args.final_games, "seed": seed, "matches": matches}
        write_json(self.dir / MODEL_INFO_NAME, info)
        return "\n".join(lines)


def _versions() -> dict[str, str]:
    import sb3_contrib
    import stable_baselines3
    import torch

    return {"cardenvs": cardenvs.__version__, "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__, "torch": torch.__version__}


def interrupted_hint(run: Run | None, run_dir: Path) -> str:
    """What was kept of an interrupted run, and the command that continues it."""
    again = f"{command()} --run-dir {shlex.quote(str(run_dir))} --resume"
    if (run_dir / MODEL_NAME).is_file() and run is not None and run.model.num_timesteps >= run.args.total_timesteps:
        return f"interrupted after training; {run_dir / MODEL_NAME} is saved; play its final tournament with: {again}"
    state = json.loads((run_dir / STATE_NAME).read_text()) if (run_dir / STATE_NAME).is_file() else None
    if state is None:
        return f"interrupted before the first checkpoint; start the run over with its arguments: {again}"
    return f"interrupted; continue from the checkpoint at step {state['num_timesteps']} with: {again}"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, check every argument, train, print the final tournament; the exit code."""
    missing = tyro_missing("train")
    if missing:
        print(f"error: {command()} {missing}", file=sys.stderr)
        return EXIT_FAILURE
    try:
        args = resolve(settle(argv))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        require_train_extra()
    except ImportError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILURE
    run_dir = Path(args.run_dir)
    run = None
    try:
        try:
            opponents = make_opponents(args)
        except ValueError as error:
            print(f"error: --opponents: {error}", file=sys.stderr)
            return EXIT_USAGE
        write_run_args(args)
        run = Run(args, opponents)
        if args.resume and not run.resumed:
            print(f"{run_dir} has no checkpoint yet: starting the run over with its arguments")
        print(f"training {args.env_id} for {args.total_timesteps} steps in {run.dir}"
              + (f" (resumed at {run.model.num_timesteps})" if run.resumed else ""))
        run.train()
        print(f"saved {run.dir / MODEL_NAME} after {run.model.num_timesteps} steps ({run.wall_seconds():.0f} s)")
        table = run.final_tournament()
    except KeyboardInterrupt:
        print("\n" + interrupted_hint(run, run_dir), file=sys.stderr)
        return EXIT_INTERRUPTED
    if table:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
