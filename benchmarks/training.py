"""How fast MaskablePPO trains on each game: the batched LearnerVecEnv against a DummyVecEnv of single-agent views.

For every game, both set-ups get the same number of games in lockstep (``--num-envs``), the same MaskablePPO
hyperparameters (``training/ppo.py``'s defaults for that game) and the same opponents (the pool of random and
the game's rule-based agent). Each measures:

* **env steps/s**: learner steps per second of the environment alone, the learner acting uniformly at random
  among its legal actions (opponents' moves are not counted: they are part of a learner step);
* **train steps/s**: learner steps per second of ``model.learn(--timesteps)`` (rollouts and updates), after
  one warm-up update.

The two set-ups are measured alternately ``--repeats`` times and the best of each is kept, so that a burst of
load from other processes does not decide the comparison.

The table is printed as markdown (docs/training.md holds a copy) and written to ``--json``.

Usage::

    python benchmarks/training.py                       # every game (a few minutes)
    python benchmarks/training.py --envs slabberjan_v0 --timesteps 8192
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as training/ppo.py: idle OpenMP threads sleep

import dataclasses
import json
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import numpy as np
import tyro

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from anywhere

import cardenvs
from agents.registry import make_agent
from training.cli import registered_env

#: set-ups compared, in table order
SETUPS = ("LearnerVecEnv", "DummyVecEnv")
EXIT_USAGE = 2


@dataclass
class Options:
    """What the benchmark measures: each field is the ``--option`` of the same name (``_`` written ``-``) and its
    docstring, on one line, is the option's help.
    """

    envs: Annotated[list[str], registered_env("every game", many=True)] = field(default_factory=cardenvs.available_envs)
    """games to measure"""
    num_envs: int = 16
    """games in lockstep (both set-ups)"""
    timesteps: int = 4096
    """learner steps of the timed training"""
    seconds: float = 3.0
    """wall time of each env-only measurement"""
    repeats: int = 2
    """alternating measurements per set-up (best kept)"""
    seed: int = 0
    """seed of the games and the networks"""
    json: str = "benchmarks/results/training.json"
    """where to write the numbers"""


def make_vec_env(setup: str, env_id: str, num_envs: int, seed: int):
    """``num_envs`` learner games of ``env_id`` against random and rule-based opponents, as an SB3 VecEnv."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from cardenvs.learning import LearnerVecEnv, SingleAgentEnv

    layout = cardenvs.env(env_id).layout

    def opponents():
        return [make_agent("random", env_id, layout, seed=seed), make_agent("heuristic", env_id, layout)]

    if setup == "LearnerVecEnv":
        return LearnerVecEnv(env_id, num_envs, opponents(), seed=seed)
    envs = [lambda: SingleAgentEnv(env_id, opponents()) for _ in range(num_envs)]
    venv = DummyVecEnv(envs)
    venv.seed(seed)
    return venv


def env_steps_per_second(venv, seconds: float) -> float:
    """Learner steps/s with uniformly random legal learner actions."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    rng = np.random.default_rng(0)
    venv.reset()
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        masks = get_action_masks(venv)
        venv.step((rng.random(masks.shape) * masks).argmax(axis=1))
        steps += venv.num_envs
    return steps / (time.perf_counter() - started)


def train_steps_per_second(venv, env_id: str, timesteps: int, seed: int) -> float:
    """Learner steps/s of MaskablePPO's ``learn`` with training/ppo.py's defaults for ``env_id``."""
    from sb3_contrib import MaskablePPO

    from training.ppo import Args, resolve

    args = resolve(Args(env_id=env_id, num_envs=venv.num_envs))
    model = MaskablePPO(
        "MlpPolicy", venv, learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.batch_size,
        n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
        ent_coef=args.ent_coef, policy_kwargs={"net_arch": list(args.net_arch)}, seed=seed, device="cpu",
    )
    model.learn(args.n_steps * venv.num_envs)  # warm-up: one update
    started = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=False)
    return timesteps / (time.perf_counter() - started)


def main(argv: Sequence[str] | None = None) -> int:
    args = tyro.cli(Options, args=argv, description=(__doc__ or "").split("\n\n")[0])
    if not (args.num_envs >= 1 and args.timesteps >= 1 and args.repeats >= 1 and args.seconds > 0):
        print(f"{Path(sys.argv[0]).name}: error: --num-envs, --timesteps and --repeats must be at least 1, "
              "--seconds above 0", file=sys.stderr)
        return EXIT_USAGE
    import torch

    torch.set_num_threads(1)
    results = []
    header = "| game | " + " | ".join(f"{s} env steps/s | {s} train steps/s" for s in SETUPS) + " | train speed-up |"
    print(header)
    print("|---" * (2 + 2 * len(SETUPS)) + "|")
    for env_id in args.envs:
        row = {"env_id": env_id}
        venvs = {setup: make_vec_env(setup, env_id, args.num_envs, args.seed) for setup in SETUPS}
        for _ in range(args.repeats):
            for setup, venv in venvs.items():
                env_speed = env_steps_per_second(venv, args.seconds)
                train_speed = train_steps_per_second(venv, env_id, args.timesteps, args.seed)
                row[f"{setup}_env"] = max(row.get(f"{setup}_env", 0.0), env_speed)
                row[f"{setup}_train"] = max(row.get(f"{setup}_train", 0.0), train_speed)
        row["speedup"] = row["LearnerVecEnv_train"] / row["DummyVecEnv_train"]
        results.append(row)
        cells = " | ".join(f"{row[f'{s}_env']:,.0f} | {row[f'{s}_train']:,.0f}" for s in SETUPS)
        print(f"| `{env_id}` | {cells} | {row['speedup']:.1f}× |", flush=True)
    machine = {"cpu_count": os.cpu_count(), "platform": platform.platform(), "load_average": os.getloadavg()}
    print(f"\n{args.num_envs} games in lockstep, {args.timesteps} timed learner steps, best of {args.repeats}; "
          f"load average {machine['load_average'][0]:.1f} on {machine['cpu_count']} CPUs")
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    report = {"args": dataclasses.asdict(args), "machine": machine, "results": results}
    path.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
