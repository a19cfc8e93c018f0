"""Train a MaskablePPO agent (sb3-contrib) from one seat of a cardenvs game against a league of opponents.

A thin adapter around stable-baselines3: the options are the self-play trainer's (``cardenvs train``) where
they mean the same thing, and the run shell (stored arguments and resuming, evaluation tournaments, the final
match table, the command's shell) is `cardenvs.training.runs`. Run it as a module or by its path::

    python -m cardenvs.training.ppo --env-id slabberjan_v0
    python -m cardenvs.training.ppo --env-id slap_v0 --total-decisions 400000 --league random heuristic snapshots \\
        --snapshot-every 50000 --run-dir runs/ppo/slap
    python -m cardenvs.training.ppo --run-dir runs/ppo/slap --resume

What it does:

* the learner plays one seat of ``--num-envs`` games in lockstep (`cardenvs.learning.LearnerVecEnv`); every
  other seat is played by an agent drawn from the league (``--league``: agent specs, and ``snapshots`` for
  frozen copies of the learner taken every ``--snapshot-every`` decisions, the newest ``--max-snapshots`` kept);
* ``<run-dir>/run.json`` holds the run's arguments from its start, so that ``--resume`` continues with them;
* a checkpoint (model, optimizer, decisions made, league snapshots) every ``--checkpoint-every`` decisions,
  taken between two updates so that ``--resume`` continues exactly where it left off;
* TensorBoard logs in ``<run-dir>/tb``, a progress bar, and every ``--eval-every`` decisions a tournament against
  the rule-based agent (``eval/*`` in TensorBoard);
* at the end ``<run-dir>/model.zip`` (the policy without optimizer state), ``<run-dir>/model.json`` (how it was
  trained and its results) and a match of the trained agent against the rule-based agent and one against random.

Every argument is checked before anything is built: a bad one ends the script with a one-line message and exit
code 2 (1 when the ``train`` extra is missing).
"""

from __future__ import annotations

import os

# Idle OpenMP threads (numba's batched kernels and torch share libgomp) must sleep, not spin: a spinning worker
# takes a core of a small machine from the one doing the work. Read when libgomp loads, so set before any import.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import cardenvs
from cardenvs.core.rng import narrowed_seed, offset_seed
from cardenvs.training import runs
from cardenvs.training.cli import (
    PPO_CHECKS,
    SEED_CHECK,
    PPOOptions,
    at_least,
    invocation,
    registered_env,
    resume_note,
    shown_default,
)
from cardenvs.training.runs import MODEL_INFO_NAME, PERIODIC_DEFAULT, SNAPSHOTS, TENSORBOARD_DIR

#: the game trained on unless --env-id says otherwise
DEFAULT_ENV_ID = "slabberjan_v0"
#: where runs go unless --run-dir says otherwise (``<RUNS_DIR>/<env_id>``)
RUNS_DIR = Path("runs") / "ppo"
CHECKPOINT_NAME = "checkpoint.zip"
STATE_NAME = "checkpoint.json"
MODEL_NAME = "model.zip"
POOL_DIR = "pool"
#: the TensorBoard run's name; stable-baselines3 numbers it (``ppo_1``)
TB_LOG_NAME = "ppo"
#: options a resumed run may take anew from the command line (the others must match the stored run)
RESUME_MAY_CHANGE = ("total_decisions", "checkpoint_every", "eval_every", "eval_games", "final_games",
                     "torch_threads", "progress_bar")
#: stable-baselines3 seeds numpy's legacy generator (32 bits) with the seed plus each env's index: the run's seed
#: reaches it narrowed below this (:func:`cardenvs.core.rng.narrowed_seed`)
SB3_SEED_LIMIT = 2**31
#: stable-baselines3's PPO needs minibatches of two samples or more
MIN_MINIBATCH_SIZE = 2
#: the modules of the ``train`` extra a run imports
NEEDS = ("torch", "stable_baselines3", "sb3_contrib")


@dataclass
class Args(PPOOptions):
    """Everything a run depends on: the PPO options (:class:`~cardenvs.training.cli.PPOOptions`, with this
    adapter's defaults), then the run's. Each field is the ``--option`` of the same name (``_`` written ``-``) and
    its docstring, on one line, is the option's help."""

    learning_rate: float = 3e-4
    gamma: float = 0.99
    hidden: list[int] = field(default_factory=lambda: [64, 64])
    env_id: Annotated[str, registered_env(DEFAULT_ENV_ID)] = DEFAULT_ENV_ID
    """the game to train on"""
    total_decisions: int = 300_000
    """learner decisions to train for, in all (a resumed run counts those already made)"""
    num_envs: int = 256
    """games played in lockstep"""
    num_steps: int = 64
    """learner decisions per game between two updates (rollout length)"""
    league: list[str] = field(default_factory=lambda: ["heuristic", "random", SNAPSHOTS])
    """who sits at the other seats: agent specs (random, heuristic, ppo:PATH) and 'snapshots' of the learner"""
    snapshot_every: Annotated[int | None, shown_default(PERIODIC_DEFAULT, "INT")] = None
    """learner decisions between two snapshots of the policy (with --league snapshots)"""
    max_snapshots: int = 5
    """snapshots kept in the league (the oldest leaves first)"""
    checkpoint_every: Annotated[int | None, shown_default(PERIODIC_DEFAULT, "INT")] = None
    """learner decisions between two checkpoints"""
    eval_every: Annotated[int | None, shown_default(PERIODIC_DEFAULT, "INT")] = None
    """learner decisions between two tournaments against the rule-based agent (0: never)"""
    eval_games: int = 200
    """games per periodic tournament (0: none)"""
    final_games: int = 1000
    """games of each final tournament (trained vs rule-based, trained vs random; 0 skips them)"""
    run_dir: Annotated[str | None, shown_default(f"{RUNS_DIR.as_posix()}/<env-id>", "PATH")] = None
    """where the run's arguments, checkpoints, logs and final model go"""
    resume: bool = False
    """continue the run in --run-dir (an error if there is none) with its arguments, from its last checkpoint if any"""
    resume_if_present: bool = False
    """like --resume when --run-dir holds a run, otherwise start a new one"""
    seed: int = 0
    """seed of the games, the network's initialisation and the evaluations, from 0 to 2**64-1"""
    torch_threads: int = 1
    """CPU threads for torch (small networks run fastest on one)"""
    progress_bar: bool = True
    """show a progress bar"""


# ---------------------------------------------------------------------------------------------- command line
def command() -> str:
    """How this script was started: the start of the commands it prints (``python -m cardenvs.training.ppo``)."""
    return invocation(__spec__)


def parse_args(argv: Sequence[str] | None = None, defaults: Args | None = None) -> Args:
    """The command line as `Args`; a malformed one exits with tyro's message and code 2, ``--help`` with 0.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
        defaults: the values of the options not given (default: `Args`'s own).
    """
    import tyro

    description = ("Train a MaskablePPO agent from one seat of a cardenvs game against a league of opponents.\n\n"
                   + resume_note(RESUME_MAY_CHANGE))
    return tyro.cli(Args, args=argv, prog=command(), description=description,
                    default=Args() if defaults is None else defaults)


#: the checks of the options
CHECKS = (at_least(1, "total_decisions", "num_envs", "num_steps", "update_epochs", "snapshot_every", "checkpoint_every",
                   "torch_threads"),
          at_least(0, "eval_every", "eval_games", "final_games", "max_snapshots"), SEED_CHECK, *PPO_CHECKS)


def resolve(args: Args) -> Args:
    """``args`` with the defaults that depend on others filled in; ValueError for a setting that cannot work."""
    filled = runs.resolve(args, RUNS_DIR, CHECKS, need_agent=True)
    rollout = filled.num_envs * filled.num_steps
    if not MIN_MINIBATCH_SIZE <= filled.minibatch_size <= rollout:
        raise ValueError(f"--minibatch-size must be from {MIN_MINIBATCH_SIZE} to --num-envs × --num-steps = {rollout} "
                         f"(the decisions of one update), got {filled.minibatch_size}")
    return filled


def settle_args(argv: Sequence[str] | None) -> Args:
    """The arguments of this invocation: the command line's, or those of the run it resumes
    (:func:`cardenvs.training.runs.settle`; ValueError for arguments a resumed run cannot take).

    Args:
        argv: the command line (default: ``sys.argv[1:]``).
    """
    return runs.settle_command_line(lambda defaults: parse_args(argv, defaults), RUNS_DIR, RESUME_MAY_CHANGE)


# ---------------------------------------------------------------------------------------------- the run
def make_league(args: Args) -> list:
    """The league's agents (its specs but ``snapshots``); ValueError (saying why) for a checkpoint that does not fit."""
    from cardenvs.agents.registry import make_agent

    layout = cardenvs.env(args.env_id).layout
    specs = [spec for spec in args.league if spec != SNAPSHOTS]
    return [make_agent(spec, args.env_id, layout, seed=offset_seed(args.seed, k)) for k, spec in enumerate(specs)]


def build_model(args: Args, env: Any, tensorboard_log: str | None = None) -> Any:
    """A new MaskablePPO model with the run's settings, our option names mapped to stable-baselines3's.

    Args:
        args: the resolved arguments.
        env: the VecEnv it learns on (a `cardenvs.learning.LearnerVecEnv`, possibly wrapped).
        tensorboard_log: where stable-baselines3 writes TensorBoard logs (None: nowhere).
    """
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        "MlpPolicy", env, learning_rate=args.learning_rate, n_steps=args.num_steps, batch_size=args.minibatch_size,
        n_epochs=args.update_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_coef,
        ent_coef=args.ent_coef, vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm,
        policy_kwargs={"net_arch": list(args.hidden)}, tensorboard_log=tensorboard_log,
        seed=narrowed_seed(args.seed, SB3_SEED_LIMIT), device="cpu", verbose=0,
    )


class Run:
    """A training run in ``args.run_dir``: the env, the league, the model, checkpoints and evaluations.

    Args:
        args: the resolved arguments; with ``resume``, the run continues from the directory's checkpoint if it
            has one (and starts over, logging into the same TensorBoard run, if it has none).
        league: the league's agents (default: built from ``args.league``).
    """

    def __init__(self, args: Args, league: list | None = None):
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import VecMonitor

        from cardenvs.learning import LearnerVecEnv, OpponentPool

        torch.set_num_threads(args.torch_threads)
        self.args = args
        self.dir = Path(args.run_dir)
        self.layout = cardenvs.env(args.env_id).layout
        self.pool = OpponentPool(make_league(args) if league is None else league,
                                 max_snapshots=args.max_snapshots if SNAPSHOTS in args.league else 0)
        self.state: dict[str, Any] = {"snapshots": [], "evaluations": [], "wall_seconds": 0.0}
        checkpoint = self.dir / CHECKPOINT_NAME
        self.resumed = args.resume and checkpoint.is_file()
        if self.resumed:
            self.state = json.loads((self.dir / STATE_NAME).read_text())
            for name in self.state["snapshots"]:
                self.pool.add_snapshot(self._load_snapshot(name))
        # A resumed run plays new games: the seed moves on with the decisions made.
        self.env = VecMonitor(LearnerVecEnv(args.env_id, args.num_envs, self.pool, illegal_action="raise",
                                            seed=offset_seed(args.seed, self.state.get("decisions", 0))))
        if self.resumed:
            self.model = MaskablePPO.load(checkpoint, env=self.env, device="cpu")
            self.model._last_obs = None  # the env restarted: learn() resets it instead of using the saved batch
            self.model.tensorboard_log = str(self.dir / TENSORBOARD_DIR)  # the run directory may have moved
        else:
            self.model = build_model(args, self.env, tensorboard_log=str(self.dir / TENSORBOARD_DIR))
        self.started = time.monotonic()
        self.wall_before = float(self.state.get("wall_seconds", 0.0))

    @property
    def decisions(self) -> int:
        """Learner decisions made so far (a resumed run counts those before it)."""
        return self.model.num_timesteps

    # ------------------------------------------------------------------ events
    def learner_agent(self, name: str = runs.AGENT_NAME, deterministic: bool = True):
        """A frozen copy of the current policy as an agent."""
        from cardenvs.agents.ppo import PolicyAgent, frozen_copy

        return PolicyAgent(frozen_copy(self.model.policy), deterministic=deterministic, name=name)

    def add_snapshot(self) -> None:
        """Freeze the learner into the league (saved, so that a resumed run has the same league)."""
        name = f"snapshot_{self.decisions:010d}.zip"
        (self.dir / POOL_DIR).mkdir(parents=True, exist_ok=True)
        self.model.policy.save(str(self.dir / POOL_DIR / name))
        self.pool.add_snapshot(self._load_snapshot(name))
        self.state["snapshots"] = (self.state["snapshots"] + [name])[-self.args.max_snapshots:]
        self.state["last_snapshot"] = self.decisions

    def _load_snapshot(self, name: str):
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        from cardenvs.agents.ppo import PolicyAgent

        policy = MaskableActorCriticPolicy.load(str(self.dir / POOL_DIR / name), device="cpu")
        return PolicyAgent(policy, deterministic=False, name=name.removesuffix(".zip"), seed=self.args.seed)

    def checkpoint(self) -> None:
        """Save model + optimizer and the run's state; each file is replaced whole, so an interruption is safe."""
        self.state["decisions"] = self.decisions
        self.state["wall_seconds"] = self.wall_seconds()
        runs.save_whole(self.dir / CHECKPOINT_NAME, self.model.save)
        runs.write_json(self.dir / STATE_NAME, self.state)
        for path in (self.dir / POOL_DIR).glob("snapshot_*.zip"):
            if path.name not in self.state["snapshots"]:
                path.unlink()  # left the league, and the checkpoint no longer needs it

    def evaluate(self) -> None:
        """A tournament of the learner against the rule-based agent, logged to TensorBoard."""
        def record(scalars: dict[str, float]) -> None:
            for name, value in scalars.items():
                self.model.logger.record(name, value)

        self.state["evaluations"].append(runs.evaluate(
            self.args.env_id, self.learner_agent(), self.args.eval_games, offset_seed(self.args.seed, self.decisions),
            self.dir, self.decisions, record))
        self.state["last_evaluation"] = self.decisions

    def wall_seconds(self) -> float:
        """Seconds this run has trained, over all its sessions."""
        return self.wall_before + time.monotonic() - self.started

    # ------------------------------------------------------------------ the loop
    def train(self) -> None:
        """Learn up to ``total_decisions``, with the periodic events; then save the final model."""
        from stable_baselines3.common.callbacks import BaseCallback

        run = self

        class Events(BaseCallback):
            # Between two updates: everything the model holds is trained on, nothing is half-collected.
            def _on_rollout_start(self) -> None:
                run.on_update_done()

            def _on_step(self) -> bool:
                return True

        self.dir.mkdir(parents=True, exist_ok=True)
        remaining = self.args.total_decisions - self.decisions
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
        """The periodic events due after an update: a snapshot, an evaluation, a checkpoint."""
        decisions, args = self.decisions, self.args
        if decisions == 0:
            return
        if SNAPSHOTS in args.league and decisions - self.state.get("last_snapshot", 0) >= args.snapshot_every:
            self.add_snapshot()
        if (args.eval_every and args.eval_games
                and decisions - self.state.get("last_evaluation", 0) >= args.eval_every):
            self.evaluate()
        if decisions - self.state.get("last_checkpoint", 0) >= args.checkpoint_every:
            self.state["last_checkpoint"] = decisions
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
        runs.write_json(self.dir / MODEL_INFO_NAME, runs.model_info(
            self.args, "cardenvs.training.ppo", runs.command_line(command(), self.args), NEEDS,
            decisions=self.decisions,
            wall_seconds=round(self.wall_seconds(), 1), evaluations=self.state["evaluations"]))

    def final_tournament(self) -> str | None:
        """The saved model against the rule-based agent and against random; the table (also in model.json)."""
        from cardenvs.agents.ppo import PolicyAgent

        return runs.final_results(lambda: PolicyAgent.load(self.dir / MODEL_NAME, self.args.env_id, self.layout),
                                  self.args.env_id, self.args.final_games, offset_seed(self.args.seed, 1), self.dir,
                                  progress=self.args.progress_bar)


def interrupted_hint(run: Run | None, run_dir: Path) -> str:
    """What was kept of an interrupted run, and the command that continues it."""
    again = runs.resume_command(command(), run_dir)
    if (run_dir / MODEL_NAME).is_file() and run is not None and run.decisions >= run.args.total_decisions:
        return f"interrupted after training; {run_dir / MODEL_NAME} is saved; play its final tournament with: {again}"
    state = json.loads((run_dir / STATE_NAME).read_text()) if (run_dir / STATE_NAME).is_file() else None
    if state is None:
        return f"interrupted before the first checkpoint; start the run over with its arguments: {again}"
    return f"interrupted; continue from the checkpoint at {state['decisions']} decisions with: {again}"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, check every argument, train, print the final tournament; the exit code
    (:func:`cardenvs.training.runs.run_command`)."""
    run: Run | None = None

    def train(args: Args) -> str | None:
        nonlocal run
        try:
            league = make_league(args)
        except ValueError as error:
            raise runs.UsageError(f"--league: {error}") from error
        runs.write_run_args(args)
        run = Run(args, league)
        if args.resume and not run.resumed:
            print(f"{run.dir} has no checkpoint yet: starting the run over with its arguments")
        print(f"training {args.env_id} for {args.total_decisions} decisions in {run.dir}"
              + (f" (resumed at {run.decisions})" if run.resumed else ""))
        run.train()
        print(f"saved {run.dir / MODEL_NAME} after {run.decisions} decisions ({run.wall_seconds():.0f} s)")
        return run.final_tournament()

    return runs.run_command(command(), "train", lambda: resolve(settle_args(argv)), NEEDS, train,
                            lambda args: interrupted_hint(run, Path(args.run_dir)))


if __name__ == "__main__":
    sys.exit(main())
