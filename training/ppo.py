"""Train a MaskablePPO agent on one cardenvs game against a pool of opponents (see docs/training.md).

One readable file: the :class:`Args` dataclass is the whole configuration and the command line is built from
its fields; per-game defaults (budgets that fit a 2-core CPU in a few minutes) are in :data:`GAME_DEFAULTS`.

    python -m training.ppo --env-id slabberjan_v0
    python -m training.ppo --env-id slap_v0 --total-timesteps 400000 --opponents random heuristic \\
        --self-play --snapshot-every 50000 --checkpoint-every 20000 --run-dir runs/ppo/slap --resume

What it does:

* the learner plays one seat of ``num_envs`` games in lockstep (:class:`cardenvs.training.LearnerVecEnv`); every
  other seat is played by an agent drawn from the opponent pool (``--opponents``; with ``--self-play``, frozen
  copies of the learner join the pool every ``--snapshot-every`` steps, the newest ``--max-snapshots`` kept);
* a checkpoint (model, optimizer, step count, opponent pool) every ``--checkpoint-every`` steps, taken between
  two updates so that ``--resume`` continues exactly where the last one left off;
* TensorBoard logs in ``<run-dir>/tb`` (``tensorboard --logdir runs/ppo``), a progress bar, and every
  ``--eval-every`` steps a tournament of the learner against the rule-based agent (``eval/*`` in TensorBoard);
* at the end, ``<run-dir>/model.zip`` (the policy, without optimizer state: small), ``<run-dir>/model.json``
  (how it was trained and its results), and a tournament of the trained agent against random and rule-based
  agents, printed as a table.
"""

from __future__ import annotations

import os

# Idle OpenMP threads (numba's batched kernels and torch share libgomp) must sleep, not spin: a spinning worker
# took half of a 2-core machine and made training 5x slower. Read when libgomp loads, so set before any import.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import copy
import dataclasses
import itertools
import json
import sys
import time
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cardenvs

#: per-game defaults of the fields left at None; chosen so that each run takes a few minutes on a 2-core CPU
GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    "slabberjan_v0": {"total_timesteps": 300_000, "gamma": 0.995, "ent_coef": 0.01, "net_arch": [64, 64]},
    "clabber_v0": {"total_timesteps": 500_000, "gamma": 0.995, "ent_coef": 0.01, "net_arch": [128, 128]},
    # Games of hundreds of learner decisions, rewarded only at the end: a longer discount horizon.
    "stabby_jack_v0": {"total_timesteps": 500_000, "gamma": 0.999, "ent_coef": 0.01, "net_arch": [128, 128]},
    "gin_slaughtre_v0": {"total_timesteps": 500_000, "gamma": 0.999, "ent_coef": 0.01, "net_arch": [128, 128]},
    # Slow to simulate: a learner that is out waits while the others play the game to its end.
    "slap_v0": {"total_timesteps": 150_000, "gamma": 0.995, "ent_coef": 0.01, "net_arch": [64, 64]},
}
#: defaults of every game for the fields that GAME_DEFAULTS leaves out
COMMON_DEFAULTS: dict[str, Any] = {
    "num_envs": 16, "n_steps": 128, "batch_size": 256, "n_epochs": 10, "eval_games": 200, "final_games": 1000,
    "opponents": ["random", "heuristic"],
}
#: checkpoints, snapshots and evaluations default to this many per run
EVENTS_PER_RUN = 10
CHECKPOINT_NAME = "checkpoint.zip"
STATE_NAME = "checkpoint.json"
MODEL_NAME = "model.zip"
MODEL_INFO_NAME = "model.json"
POOL_DIR = "pool"
#: options a resumed run takes from the command line (the others come from its checkpoint)
RESUME_MAY_CHANGE = ("total_timesteps", "eval_games", "final_games", "torch_threads", "progress_bar")
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


@dataclass
class Args:
    """Everything a run depends on. ``None`` means the game's default from :data:`GAME_DEFAULTS`."""

    env_id: str = "slabberjan_v0"
    """the game to train on (one of ``cardenvs.available_envs()``)"""
    total_timesteps: int | None = None
    """learner decisions to train for, in all (a resumed run counts the steps already done)"""
    num_envs: int | None = None
    """games played in lockstep"""
    n_steps: int | None = None
    """learner decisions per game between two updates (rollout length)"""
    batch_size: int | None = None
    """minibatch size of the updates"""
    n_epochs: int | None = None
    """passes over each rollout"""
    learning_rate: float = 3e-4
    """Adam's step size"""
    gamma: float | None = None
    """discount factor per learner decision (rewards come at the end of long games)"""
    gae_lambda: float = 0.95
    """GAE's bias/variance trade-off"""
    clip_range: float = 0.2
    """PPO's policy-ratio clip"""
    ent_coef: float | None = None
    """weight of the entropy bonus (exploration)"""
    net_arch: list[int] | None = None
    """hidden layer sizes of the policy and value networks"""
    opponents: list[str] | None = None
    """agent specs of the opponent pool: random, heuristic, ppo:PATH (default: random heuristic)"""
    self_play: bool = False
    """add frozen copies of the learner to the opponent pool as training goes"""
    snapshot_every: int | None = None
    """with --self-play, learner decisions between two snapshots (default: a tenth of the run)"""
    max_snapshots: int = 5
    """snapshots kept in the pool (the oldest leaves first)"""
    checkpoint_every: int | None = None
    """learner decisions between two checkpoints (default: a tenth of the run)"""
    eval_every: int | None = None
    """learner decisions between two evaluations against the rule-based agent (default: a tenth of the run; 0: never)"""
    eval_games: int | None = None
    """games per periodic evaluation (default 200)"""
    final_games: int | None = None
    """games of the final tournament, trained vs random vs heuristic (default 1000; 0 skips it)"""
    run_dir: str | None = None
    """where checkpoints, logs and the final model go (default: runs/ppo/<env_id>)"""
    resume: bool = False
    """continue from the run directory's last checkpoint with its saved settings (options given now that may change:
    --total-timesteps, --eval-games, --final-games, --torch-threads, --progress-bar)"""
    seed: int = 0
    """seed of the games, the network's initialisation and the evaluations"""
    torch_threads: int = 1
    """CPU threads for torch (small networks run fastest on one)"""
    progress_bar: bool = True
    """show a progress bar"""


# ---------------------------------------------------------------------------------------------- command line
def _field_docs() -> dict[str, str]:
    """Each field's docstring (the string literal under it in the class body), for --help."""
    import ast
    import inspect

    docs: dict[str, str] = {}
    body = ast.parse(inspect.getsource(Args)).body[0].body
    for node, after in itertools.pairwise(body):
        if isinstance(node, ast.AnnAssign) and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
            docs[node.target.id] = str(after.value.value)
    return docs


def build_parser() -> argparse.ArgumentParser:
    """An argparse parser with one option per :class:`Args` field."""
    parser = argparse.ArgumentParser(
        prog="python -m training.ppo",
        description="Train a MaskablePPO agent on a cardenvs game (see docs/training.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    hints = typing.get_type_hints(Args)
    docs = _field_docs()
    for spec in dataclasses.fields(Args):
        flag = "--" + spec.name.replace("_", "-")
        kind = hints[spec.name]
        default = spec.default_factory() if spec.default_factory is not dataclasses.MISSING else spec.default
        options: dict[str, Any] = {"default": default, "help": docs.get(spec.name, "")}
        if kind is bool:
            options["action"] = argparse.BooleanOptionalAction
        else:
            base = kind
            if typing.get_origin(kind) in (typing.Union, types.UnionType):  # X | None: the option takes an X
                base = next(t for t in typing.get_args(kind) if t is not type(None))
            if typing.get_origin(base) is list:
                options["nargs"] = "+"
                base = typing.get_args(base)[0]
            options["type"] = base
            options["metavar"] = base.__name__.upper()
        if spec.name == "env_id":
            options["choices"] = cardenvs.available_envs()
        parser.add_argument(flag, **options)
    return parser


def resolve(args: Args) -> Args:
    """``args`` with every None filled from the game's defaults; ValueError for a setting that cannot work."""
    from agents.registry import check_spec

    if args.env_id not in GAME_DEFAULTS:
        raise ValueError(f"unknown env id {args.env_id!r}; choose from {', '.join(GAME_DEFAULTS)}")
    filled = dataclasses.replace(args)
    for name, value in {**COMMON_DEFAULTS, **GAME_DEFAULTS[args.env_id]}.items():
        if getattr(filled, name) is None:
            setattr(filled, name, copy.deepcopy(value))
    every = max(1, filled.total_timesteps // EVENTS_PER_RUN)
    for name in ("snapshot_every", "checkpoint_every", "eval_every"):
        if getattr(filled, name) is None:
            setattr(filled, name, every)
    if filled.run_dir is None:
        filled.run_dir = str(Path("runs") / "ppo" / filled.env_id)
    for name in ("total_timesteps", "num_envs", "n_steps", "batch_size", "n_epochs", "snapshot_every",
                 "checkpoint_every", "torch_threads"):
        if getattr(filled, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(filled, name)}")
    for name in ("eval_every", "eval_games", "final_games", "max_snapshots"):
        if getattr(filled, name) < 0:
            raise ValueError(f"--{name.replace('_', '-')} must be 0 or more, got {getattr(filled, name)}")
    if not filled.opponents:
        raise ValueError("--opponents needs at least one agent spec")
    for spec in filled.opponents:
        check_spec(spec)
        if spec == "human":
            raise ValueError("--opponents: a human cannot play training games; use random, heuristic or ppo:PATH")
    return filled


# ---------------------------------------------------------------------------------------------- the run
class Run:
    """A training run in ``args.run_dir``: the env, the opponent pool, the model, checkpoints and evaluations."""

    def __init__(self, args: Args):
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import VecMonitor

        from agents.registry import make_agent
        from cardenvs.training import LearnerVecEnv, OpponentPool

        torch.set_num_threads(args.torch_threads)
        self.args = args
        self.dir = Path(args.run_dir)
        aec = cardenvs.env(args.env_id)
        self.layout = aec.layout
        self.num_players = len(aec.possible_agents)
        base = [make_agent(spec, args.env_id, self.layout, seed=args.seed + k) for k, spec in enumerate(args.opponents)]
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
        else:
            self.model = MaskablePPO(
                "MlpPolicy", self.env, learning_rate=args.learning_rate, n_steps=args.n_steps,
                batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda,
                clip_range=args.clip_range, ent_coef=args.ent_coef, policy_kwargs={"net_arch": list(args.net_arch)},
                tensorboard_log=str(self.dir / "tb"), seed=args.seed, device="cpu", verbose=0,
            )
        self.resumed = resumed
        self.started = time.monotonic()
        self.wall_before = float(self.state.get("wall_seconds", 0.0))

    # ------------------------------------------------------------------ events
    def learner_agent(self, name: str = "ppo", deterministic: bool = True):
        """A frozen copy of the current policy as an agent."""
        from agents.ppo import PolicyAgent, frozen_copy

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
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        from agents.ppo import PolicyAgent

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
        _write_json(self.dir / STATE_NAME, self.state)
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
            self.model.learn(remaining, callback=Events(), reset_num_timesteps=not self.resumed, tb_log_name="ppo",
                             progress_bar=self.args.progress_bar)
        self.checkpoint()
        self.save_model()

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
            "command": "python -m training.ppo " + " ".join(_as_flags(dataclasses.replace(self.args, resume=False))),
            "evaluations": self.state["evaluations"],
            "versions": _versions(),
        }
        _write_json(self.dir / MODEL_INFO_NAME, info)

    def final_tournament(self) -> str | None:
        """The trained agent against random and rule-based agents; the table as text (also in model.json).

        With three seats or more the three agents share one tournament; at a two-seat table the trained agent
        meets each of the others in its own match.
        """
        from agents.ppo import PolicyAgent

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
            rows = {n: {"mean_reward": s.mean_reward, "ci95": s.ci95, "win_rate": s.win_rate} for n, s in stats.items()}
            matches.append({"agents": names, "results": rows})
            lines.append(f"{' vs '.join(names):<24} {'mean reward':>18} {'win rate':>9}")
            for name, row in rows.items():
                lines.append(f"  {name:<22} {row['mean_reward']:>+9.3f} ± {row['ci95']:<6.3f} {row['win_rate']:>9.1%}")
        info = json.loads((self.dir / MODEL_INFO_NAME).read_text())
        info["tournament"] = {"games": self.args.final_games, "seed": seed, "matches": matches}
        _write_json(self.dir / MODEL_INFO_NAME, info)
        return "\n".join(lines)


def tournament(env_id: str, agents: list, games: int, seed: int, results_path: Path) -> dict | None:
    """``cardenvs.evaluation.run_tournament``'s per-agent stats (None when ``games`` is 0).

    Args:
        env_id: the game.
        agents: agent specs or Agent instances (the learner is named ``ppo``).
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


def _as_flags(args: Args) -> list[str]:
    flags = []
    for spec in dataclasses.fields(Args):
        value = getattr(args, spec.name)
        flag = "--" + spec.name.replace("_", "-")
        if isinstance(value, bool):
            flags.append(flag if value else "--no-" + flag[2:])
        elif isinstance(value, list):
            flags += [flag, *map(str, value)]
        elif value is not None:
            flags += [flag, str(value)]
    return flags


def _versions() -> dict[str, str]:
    import sb3_contrib
    import stable_baselines3
    import torch

    return {"cardenvs": cardenvs.__version__, "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__, "torch": torch.__version__}


def _write_json(path: Path, data: dict) -> None:
    partial = path.with_name("partial_" + path.name)
    partial.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(partial, path)


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv``, train, print the final tournament; the exit code."""
    given = Args(**vars(build_parser().parse_args(argv)))
    run_dir = Path(given.run_dir or Path("runs") / "ppo" / given.env_id)
    if given.resume and (run_dir / STATE_NAME).is_file():
        saved = json.loads((run_dir / STATE_NAME).read_text())["args"]
        changed = {name: getattr(given, name) for name in RESUME_MAY_CHANGE if getattr(given, name) is not None}
        given = Args(**{**saved, **changed, "resume": True})
    elif not given.resume and (run_dir / CHECKPOINT_NAME).exists():
        print(f"error: {run_dir} already holds a run; pass --resume to continue it or choose another --run-dir",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        args = resolve(given)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    run = Run(args)
    print(f"training {args.env_id} for {args.total_timesteps} steps in {run.dir}"
          + (f" (resumed at {run.model.num_timesteps})" if run.resumed else ""))
    try:
        run.train()
    except KeyboardInterrupt:
        print(f"\ninterrupted; continue with: python -m training.ppo --run-dir {run.dir} --resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"saved {run.dir / MODEL_NAME} after {run.model.num_timesteps} steps ({run.wall_seconds():.0f} s)")
    table = run.final_tournament()
    if table:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
