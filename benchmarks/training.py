"""How many learner decisions per second each trainer makes on each game, side by side in one run.

Three set-ups, each on the same game with its rule-based and random agents about:

* **self-play** (``cardenvs train GAME``: the self-play trainer with the game's recipe, on ``--device``): one
  shared policy learns from every seat of its games on ``cardenvs.vector_env``, against a league;
* **MaskablePPO, old defaults**: sb3-contrib's MaskablePPO on ``LearnerVecEnv`` with 16 games, 128 steps,
  minibatches of 256, 10 epochs (the defaults ``cardenvs.training.ppo`` had before it was tuned);
* **MaskablePPO, tuned**: the same with ``cardenvs.training.ppo``'s present defaults (256 games, 64 steps,
  minibatches of 4096, 2 epochs);
* **RLlib** (``python -m cardenvs.training.rllib_train``, with the ``rllib`` extra): the env steps per second of one
  EnvRunner's ``sample()`` calls on one torch thread, as an EnvRunner actor holding one CPU runs, for the batched
  sampler (``training/rllib_batched.py``: 256 games, one forward pass for all) and the PettingZoo one (one AEC
  game, one forward pass per move); and the decisions per second of whole training iterations of the batched
  sampler (sampling in the driver, then the learner on ``--torch-threads``, updating as the self-play trainer does:
  minibatches of 4096, 2 epochs), which shows what the learner costs.

A learner decision is one action chosen by the policy being trained (for MaskablePPO: its one seat's; for
self-play: every learning seat's), counted over rollouts and updates after one warm-up update. Each set-up is
measured ``--repeats`` times, alternating, and the best kept, so that a burst of load from other processes does
not decide the comparison. For self-play the table also says where its time goes (env, opponents, policy
forward passes, bookkeeping, updates).

The table is printed as markdown (docs/training.md holds a copy) and written to ``--json``.

Usage::

    python benchmarks/training.py                       # every game (several minutes)
    python benchmarks/training.py --envs clabber_v0 slabberjan_v0
    python benchmarks/training.py --envs clabber_v0 --setups self-play rllib --torch-threads 1   # RLlib vs self-play
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as the trainers: idle OpenMP threads sleep

import dataclasses
import json
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import tyro

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from anywhere

import cardenvs
from cardenvs.agents.registry import make_agent
from cardenvs.core.exit_codes import EXIT_USAGE
from cardenvs.training.cli import registered_env

#: set-ups compared, in table order
SETUPS = ("self-play", "MaskablePPO old defaults", "MaskablePPO tuned")
#: RLlib's figures, in table order: env steps/s of one EnvRunner per sampler, decisions/s of whole iterations
RLLIB_FIGURES = ("RLlib batched EnvRunner", "RLlib PettingZoo EnvRunner", "RLlib batched iterations")
#: what --setups chooses from
SETUP_CHOICES = ("self-play", "maskable-ppo", "rllib")
#: the MaskablePPO settings cardenvs.training.ppo had before they were tuned for throughput
OLD_PPO_DEFAULTS = {"num_envs": 16, "num_steps": 128, "minibatch_size": 256, "update_epochs": 10}


@dataclass
class Options:
    """What the benchmark measures: each field is the ``--option`` of the same name (``_`` written ``-``) and its
    docstring, on one line, is the option's help.
    """

    envs: Annotated[list[str], registered_env("every game", many=True)] = field(default_factory=cardenvs.available_envs)
    """games to measure"""
    decisions: int = 200_000
    """timed learner decisions of the self-play trainer per measurement"""
    timesteps: int = 32_768
    """timed learner decisions of MaskablePPO per measurement"""
    repeats: int = 2
    """alternating measurements per set-up (best kept)"""
    torch_threads: int = 2
    """CPU threads for torch (every set-up)"""
    device: Literal["auto", "cpu", "cuda"] = "cpu"
    """where the self-play trainer's network learns and acts (auto: cuda when torch sees one, else cpu)"""
    seed: int = 0
    """seed of the games and the networks"""
    rllib_steps: int = 65_536
    """timed env steps of each RLlib EnvRunner measurement (the PettingZoo sampler's: a sixteenth of it)"""
    rllib_iterations: int = 3
    """timed training iterations of the RLlib batched sampler per measurement"""
    setups: list[Literal["self-play", "maskable-ppo", "rllib"]] = field(default_factory=lambda: list(SETUP_CHOICES))
    """which set-ups to measure"""
    json: str = "benchmarks/results/training.json"
    """where to write the numbers"""


def selfplay_decisions_per_second(env_id: str, decisions: int, seed: int, torch_threads: int, device: str,
                                  run_dir: Path) -> tuple[float, dict[str, float]]:
    """Learner decisions/s of the self-play trainer with the game's recipe, and the share of its time per part."""
    from cardenvs.training import selfplay
    from cardenvs.training.recipes import recipe

    settings = {**recipe(env_id).defaults, "total_decisions": 1, "eval_every": 0, "final_games": 0, "seed": seed,
                "torch_threads": torch_threads, "device": device, "progress_bar": False, "run_dir": str(run_dir)}
    args = selfplay.resolve_args(selfplay.Run(env_id=env_id, **settings))
    trainer = selfplay.Trainer(args)
    trainer.train()  # warm-up: one rollout and update (and the kernels compiled or loaded)
    before, seconds_before = trainer.decisions, trainer.train_seconds
    trainer.args = dataclasses.replace(args, total_decisions=before + decisions)
    trainer.train()
    speed = (trainer.decisions - before) / (trainer.train_seconds - seconds_before)
    return speed, trainer.timers.shares()


def maskable_ppo_decisions_per_second(env_id: str, settings: dict[str, int], timesteps: int, seed: int) -> float:
    """Learner decisions/s of MaskablePPO's ``learn`` on ``LearnerVecEnv`` with ``settings`` (the defaults of
    ``cardenvs.training.ppo`` for the rest, its options mapped to MaskablePPO's by its ``build_model``)."""
    from cardenvs.learning import LearnerVecEnv
    from cardenvs.training.ppo import Args, build_model, resolve

    args = resolve(Args(env_id=env_id, seed=seed, **settings))
    layout = cardenvs.env(env_id).layout
    opponents = [make_agent("random", env_id, layout, seed=seed), make_agent("heuristic", env_id, layout)]
    venv = LearnerVecEnv(env_id, args.num_envs, opponents, seed=seed)
    model = build_model(args, venv)
    rollout = args.num_steps * args.num_envs
    model.learn(rollout)  # warm-up: one update
    timed = max(timesteps // rollout, 1) * rollout  # whole rollouts: learn() stops only after one
    started = time.perf_counter()
    model.learn(timed, reset_num_timesteps=False)
    return timed / (time.perf_counter() - started)


def rllib_figures(env_id: str, steps: int, iterations: int, seed: int, torch_threads: int,
                  run_dir: Path) -> dict[str, float]:
    """RLlib's :data:`RLLIB_FIGURES` on ``env_id``: each sampler's env steps per second in one EnvRunner on one torch
    thread, and the batched sampler's decisions per second over whole iterations (learner on ``torch_threads``).

    Each EnvRunner is the algorithm's local one, in this process (``--num-env-runners 0``), warmed up by one
    ``sample()`` call first (the game's kernels compiled or loaded).
    """
    import ray
    import torch

    from cardenvs.training.cli import PPOOptions
    from cardenvs.training.rllib_train import RLlibTrainArgs, build_config

    figures = {}
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        for sampler, figure, timed in (("batched", RLLIB_FIGURES[0], steps),
                                       ("pettingzoo", RLLIB_FIGURES[1], max(steps // 16, 1))):
            # the batched iterations update as the self-play trainer does (PPOOptions' minibatches and epochs)
            update = {"minibatch_size": PPOOptions.minibatch_size, "update_epochs": PPOOptions.update_epochs}
            args = RLlibTrainArgs(env_id=env_id, sampler=sampler, final_games=0, seed=seed,
                                  run_dir=str(run_dir / sampler), **(update if sampler == "batched" else {}))
            algorithm = build_config(args).build_algo()
            try:
                runner = algorithm.env_runner
                torch.set_num_threads(1)  # as an EnvRunner actor: one CPU
                runner.sample()
                made, started = 0, time.perf_counter()
                while made < timed:
                    made += sum(episode.env_steps() for episode in runner.sample())
                figures[figure] = made / (time.perf_counter() - started)
                torch.set_num_threads(torch_threads)
                if sampler == "batched":
                    algorithm.train()  # warm-up: the learner's first update
                    made, started = 0, time.perf_counter()
                    for _ in range(iterations):
                        made += algorithm.train()["env_runners"]["num_env_steps_sampled"]
                    figures[RLLIB_FIGURES[2]] = made / (time.perf_counter() - started)
            finally:
                algorithm.stop()
    finally:
        ray.shutdown()
    return figures


def measure(env_id: str, args: Options, columns: list[str], tuned: dict[str, int]) -> dict[str, Any]:
    """One game's row: the best of ``args.repeats`` measurements of each of ``columns``, alternating set-ups.

    Args:
        env_id: the game.
        args: the benchmark's options.
        columns: the figures measured (:data:`SETUPS` and :data:`RLLIB_FIGURES` names).
        tuned: MaskablePPO's tuned settings.
    """
    import tempfile

    import torch

    row: dict[str, Any] = {"env_id": env_id, **dict.fromkeys(columns, 0.0)}
    for repeat in range(args.repeats):
        with tempfile.TemporaryDirectory() as run_dir:
            if "self-play" in args.setups:
                speed, shares = selfplay_decisions_per_second(env_id, args.decisions, args.seed, args.torch_threads,
                                                              args.device, Path(run_dir) / f"run{repeat}")
                if speed > row["self-play"]:
                    row["self-play"], row["self-play time shares"] = speed, shares
            if "rllib" in args.setups:
                figures = rllib_figures(env_id, args.rllib_steps, args.rllib_iterations, args.seed,
                                        args.torch_threads, Path(run_dir) / "rllib")
                row.update({name: max(row[name], value) for name, value in figures.items()})
                torch.set_num_threads(args.torch_threads)
        if "maskable-ppo" in args.setups:
            for setup, settings in (("MaskablePPO old defaults", OLD_PPO_DEFAULTS), ("MaskablePPO tuned", tuned)):
                row[setup] = max(row[setup], maskable_ppo_decisions_per_second(env_id, settings, args.timesteps,
                                                                               args.seed))
    return row


def row_cells(row: dict[str, Any], columns: list[str], ratios: list[str], shares: bool) -> list[str]:
    """The table cells of one game's row: its figures, the ratios asked for, and self-play's time shares."""
    cells = [f"{row[column]:,.0f}" for column in columns]
    if "self-play ÷ tuned" in ratios:
        cells.append(f"{row['self-play'] / row['MaskablePPO tuned']:.1f}×")
    if "RLlib EnvRunner ÷ self-play" in ratios:
        cells.append(f"{row[RLLIB_FIGURES[0]] / row['self-play']:.2f}×")
    if shares:
        cells.append(" / ".join(f"{share:.0%}" for share in row["self-play time shares"].values()))
    return cells


def main(argv: Sequence[str] | None = None) -> int:
    args = tyro.cli(Options, args=argv, description=(__doc__ or "").split("\n\n")[0])
    counts = (args.decisions, args.timesteps, args.repeats, args.torch_threads, args.rllib_steps, args.rllib_iterations)
    if min(counts) < 1:
        print(f"{Path(sys.argv[0]).name}: error: --decisions, --timesteps, --repeats, --torch-threads, --rllib-steps "
              "and --rllib-iterations must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    import torch

    from cardenvs.training.ppo import Args
    from cardenvs.training.selfplay import TIME_PARTS

    torch.set_num_threads(args.torch_threads)
    tuned = {name: getattr(Args(), name) for name in OLD_PPO_DEFAULTS}
    columns = [*(SETUPS[:1] if "self-play" in args.setups else []),
               *(SETUPS[1:] if "maskable-ppo" in args.setups else []),
               *(RLLIB_FIGURES if "rllib" in args.setups else [])]
    ratios = [name for name, needs in (("self-play ÷ tuned", ("self-play", "maskable-ppo")),
                                       ("RLlib EnvRunner ÷ self-play", ("self-play", "rllib")))
              if all(setup in args.setups for setup in needs)]
    units = {**dict.fromkeys(SETUPS, "decisions/s"), RLLIB_FIGURES[0]: "env steps/s", RLLIB_FIGURES[1]: "env steps/s",
             RLLIB_FIGURES[2]: "decisions/s"}
    shares_column = [f"self-play time: {' / '.join(TIME_PARTS)}"][:int("self-play" in columns)]
    print("| game | " + " | ".join([*(f"{c} {units[c]}" for c in columns), *ratios, *shares_column]) + " |")
    print("|---" * (1 + len(columns) + len(ratios) + len(shares_column)) + "|")
    results = []
    for env_id in args.envs:
        row = measure(env_id, args, columns, tuned)
        results.append(row)
        print(f"| `{env_id}` | " + " | ".join(row_cells(row, columns, ratios, bool(shares_column))) + " |", flush=True)
    machine = {"cpu_count": os.cpu_count(), "platform": platform.platform(), "load_average": os.getloadavg()}
    print(f"\nbest of {args.repeats}; torch on {args.torch_threads} threads (RLlib's EnvRunners on 1), self-play on "
          f"--device {args.device}; load average {machine['load_average'][0]:.1f} on {machine['cpu_count']} CPUs")
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    report = {"args": dataclasses.asdict(args), "machine": machine, "results": results}
    path.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
