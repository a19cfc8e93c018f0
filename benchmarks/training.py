"""How many learner decisions per second each trainer makes on each game, side by side in one run.

Three set-ups, each on the same game with its rule-based and random agents about:

* **self-play** (``cardenvs train GAME``: the self-play trainer with the game's recipe, on ``--device``): one
  shared policy learns from every seat of its games on ``cardenvs.vector_env``, against a league;
* **MaskablePPO, old defaults**: sb3-contrib's MaskablePPO on ``LearnerVecEnv`` with 16 games, 128 steps,
  minibatches of 256, 10 epochs (the defaults ``cardenvs.training.ppo`` had before it was tuned);
* **MaskablePPO, tuned**: the same with ``cardenvs.training.ppo``'s present defaults (256 games, 64 steps,
  minibatches of 4096, 2 epochs).

A learner decision is one action chosen by the policy being trained (for MaskablePPO: its one seat's; for
self-play: every learning seat's), counted over rollouts and updates after one warm-up update. Each set-up is
measured ``--repeats`` times, alternating, and the best kept, so that a burst of load from other processes does
not decide the comparison. For self-play the table also says where its time goes (env, opponents, policy
forward passes, bookkeeping, updates).

The table is printed as markdown (docs/training.md holds a copy) and written to ``--json``.

Usage::

    python benchmarks/training.py                       # every game (several minutes)
    python benchmarks/training.py --envs clabber_v0 slabberjan_v0
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


def main(argv: Sequence[str] | None = None) -> int:
    args = tyro.cli(Options, args=argv, description=(__doc__ or "").split("\n\n")[0])
    if not (args.decisions >= 1 and args.timesteps >= 1 and args.repeats >= 1 and args.torch_threads >= 1):
        print(f"{Path(sys.argv[0]).name}: error: --decisions, --timesteps, --repeats and --torch-threads must be at "
              "least 1", file=sys.stderr)
        return EXIT_USAGE
    import tempfile

    import torch

    from cardenvs.training.ppo import Args

    torch.set_num_threads(args.torch_threads)
    tuned = {name: getattr(Args(), name) for name in OLD_PPO_DEFAULTS}
    results = []
    print("| game | " + " | ".join(f"{s} decisions/s" for s in SETUPS)
          + " | self-play ÷ tuned | self-play time: env / opponents / forward / bookkeeping / update |")
    print("|---" * (3 + len(SETUPS)) + "|")
    for env_id in args.envs:
        row: dict[str, Any] = {"env_id": env_id, **dict.fromkeys(SETUPS, 0.0)}
        for repeat in range(args.repeats):
            with tempfile.TemporaryDirectory() as run_dir:
                speed, shares = selfplay_decisions_per_second(env_id, args.decisions, args.seed, args.torch_threads,
                                                              args.device, Path(run_dir) / f"run{repeat}")
            if speed > row["self-play"]:
                row["self-play"], row["self-play time shares"] = speed, shares
            for setup, settings in (("MaskablePPO old defaults", OLD_PPO_DEFAULTS), ("MaskablePPO tuned", tuned)):
                row[setup] = max(row[setup], maskable_ppo_decisions_per_second(env_id, settings, args.timesteps,
                                                                               args.seed))
        results.append(row)
        cells = " | ".join(f"{row[s]:,.0f}" for s in SETUPS)
        shares = " / ".join(f"{row['self-play time shares'][part]:.0%}" for part in row["self-play time shares"])
        print(f"| `{env_id}` | {cells} | {row['self-play'] / row['MaskablePPO tuned']:.1f}× | {shares} |", flush=True)
    machine = {"cpu_count": os.cpu_count(), "platform": platform.platform(), "load_average": os.getloadavg()}
    print(f"\nbest of {args.repeats}; torch on {args.torch_threads} threads, self-play on --device {args.device}; "
          f"load average {machine['load_average'][0]:.1f} on {machine['cpu_count']} CPUs")
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    report = {"args": dataclasses.asdict(args), "machine": machine, "results": results}
    path.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
