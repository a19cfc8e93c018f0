"""Distributed PPO on any cardenvs game with Ray RLlib's new API stack (RLModule, Learner, EnvRunner).

Run from the repository root as a module, or from anywhere by its path (it then puts the repository on
``sys.path`` itself); ``tyro`` builds the command line from `RLlibTrainArgs` and its field docstrings::

    python -m cardenvs.training.rllib_train --env-id clabber_v0 --iterations 20                  # this machine
    python /path/to/cardenvs/training/rllib_train.py --env-id clabber_v0                # from anywhere
    python -m cardenvs.training.rllib_train --env-id slabberjan_v0 --players 3 --policy per-seat  # a module per seat
    python -m cardenvs.training.rllib_train --env-id clabber_v0 --address auto --num-env-runners 32  # a Ray cluster

Each game is the cardenvs PettingZoo AEC env in RLlib's ``PettingZooEnv`` wrapper, registered with
``ray.tune.registry.register_env``; the policy is ``cardenvs.training.rllib_masking.MaskedActorCritic``, which reads
the ``{"observation", "action_mask"}`` dict as it is and gives illegal actions probability zero. The env raises
on an illegal action and RLlib is told not to restart failed envs or EnvRunners, so a masking fault stops
training.

Policy modes (``--policy``):

``shared``
    one module, ``"shared"``, plays every seat: self-play, every seat's experience trains the same weights.
``per-seat``
    one module per seat, named after the seat's agent id (``player_0``, ``player_1``, ...); the policy
    mapping sends each agent to its own module.

Each iteration prints the env steps sampled, the episodes finished, their mean length, each seat's mean
return and each module's losses. The checkpoint (``Algorithm.save_to_path``) goes to ``--checkpoint-dir`` at the
end, and every ``--checkpoint-every`` iterations if set; ``Algorithm.from_checkpoint`` reloads it. See
docs/rllib.md for clusters and limits.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shlex
import sys
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

if __spec__ is None:  # run by its path: the repository root holds cardenvs and training
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardenvs.training.cli import invocation, option, registered_env, shown_default, tyro_missing

import cardenvs

#: the name the cardenvs env creator is registered under with ``ray.tune.registry.register_env``
ENV_NAME = "cardenvs_pettingzoo"
#: the module id of ``--policy shared``
SHARED_MODULE_ID = "shared"
#: the repository root, shipped to cluster workers as the Ray job's working directory
REPO_ROOT = Path(__file__).resolve().parent.parent
#: the file RLlib writes at the top of every checkpoint
CHECKPOINT_MARKER = "rllib_checkpoint.json"
#: the run's arguments, saved beside each checkpoint (``--resume`` checks them)
ARGS_FILE = "rllib_train_args.json"
#: the arguments a resumed run must share with the checkpoint: they define the modules and their inputs
MODEL_DEFINING_FIELDS = ("env_id", "players", "policy", "hidden_sizes")
#: paths left out of the shipped working directory (besides what .gitignore leaves out)
SHIPPING_EXCLUDES = [".git", ".venv", "runs", "notebooks"]
#: each EnvRunner actor holds this many CPUs (RLlib's default); Ray waits forever for CPUs a local instance lacks
CPUS_PER_ENV_RUNNER = 1
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
RLLIB_EXTRA_HINT = 'pip install "cardenvs[rllib]"'


#: ``--policy`` choices
PolicyMode = Literal["shared", "per-seat"]
POLICY_MODES: tuple[str, ...] = typing.get_args(PolicyMode)


#: the game trained on unless --env-id says otherwise
DEFAULT_ENV_ID = "slabberjan_v0"


@dataclass
class RLlibTrainArgs:
    """Arguments of `train` and of the command line: each field is the ``--option`` of the same name (``_`` written
    ``-``, ``lambda_`` is ``--lambda``) and its docstring, on one line, is the option's help.

    The fields that may be None: ``players`` (the game's default), ``address`` (start a local Ray instance),
    ``num_cpus`` (every CPU) and ``seed`` (unseeded).
    """

    env_id: Annotated[str, registered_env(DEFAULT_ENV_ID)] = DEFAULT_ENV_ID
    """the cardenvs env to train on"""
    players: Annotated[int | None, shown_default("the game's", "INT")] = None
    """number of players, for games that take a number of players"""
    policy: PolicyMode = "shared"
    """shared (one module for every seat: self-play) or per-seat (one module per seat)"""
    iterations: int = 10
    """training iterations (each samples --train-batch-size env steps and updates on them)"""
    num_env_runners: int = 0
    """remote EnvRunner actors that sample in parallel; 0 samples in the driver process"""
    num_envs_per_env_runner: int = 1
    """games each EnvRunner steps side by side"""
    train_batch_size: int = 4000
    """env steps sampled per iteration (per learner)"""
    minibatch_size: int = 256
    """agent steps per SGD minibatch"""
    num_epochs: int = 4
    """passes over each iteration's batch"""
    lr: float = 3e-4
    """learning rate (Adam)"""
    gamma: float = 0.99
    """discount factor"""
    lambda_: Annotated[float, option(name="lambda")] = 0.95
    """GAE lambda"""
    entropy_coeff: float = 0.01
    """weight of the entropy bonus"""
    hidden_sizes: Annotated[tuple[int, ...], option(metavar="INT [INT ...]")] = (256, 256)
    """widths of the hidden layers of the policy and of the value network"""
    address: Annotated[str | None, shown_default("none: start a local Ray instance", "ADDRESS")] = None
    """Ray cluster to join (auto, ray://HOST:10001 or HOST:6379)"""
    num_cpus: Annotated[int | None, shown_default("every CPU of this machine", "INT")] = None
    """CPUs the local Ray instance may use; ignored with --address"""
    checkpoint_dir: Annotated[str, option(metavar="PATH")] = "runs/rllib"
    """directory of the checkpoint (each save replaces the previous one)"""
    checkpoint_every: int = 0
    """also save every this many iterations (0: only at the end)"""
    resume: bool = False
    """continue from the checkpoint in --checkpoint-dir (same game, players, policy, network), for --iterations more"""
    seed: Annotated[int | None, option(metavar="INT")] = 0
    """seed of torch, numpy and each env's first reset (later games continue the env's seed stream)"""

    def validate(self) -> None:
        """Raise ValueError naming what is allowed for the first bad field."""
        if self.env_id not in cardenvs.available_envs():
            raise ValueError(f"unknown env id {self.env_id!r}; available: {', '.join(cardenvs.available_envs())}")
        if self.policy not in POLICY_MODES:
            raise ValueError(f"policy={self.policy!r} is not allowed; choose from {', '.join(POLICY_MODES)}")
        for name in ("iterations", "num_envs_per_env_runner", "train_batch_size", "minibatch_size", "num_epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("num_env_runners", "checkpoint_every"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 or more, got {getattr(self, name)}")
        if self.minibatch_size > self.train_batch_size:
            raise ValueError(
                f"minibatch_size ({self.minibatch_size}) must not exceed train_batch_size ({self.train_batch_size})"
            )
        if not self.hidden_sizes or min(self.hidden_sizes) < 1:
            raise ValueError(f"hidden_sizes must be one or more positive widths, got {self.hidden_sizes}")
        # written so that NaN fails too
        if not (math.isfinite(self.lr) and self.lr > 0 and 0 <= self.gamma <= 1 and 0 <= self.lambda_ <= 1
                and math.isfinite(self.entropy_coeff) and self.entropy_coeff >= 0):
            raise ValueError(
                f"lr must be positive, gamma and lambda in [0, 1], entropy_coeff 0 or more; got lr={self.lr}, "
                f"gamma={self.gamma}, lambda={self.lambda_}, entropy_coeff={self.entropy_coeff}"
            )
        if self.players is not None and self.players < 1:
            raise ValueError(f"players must be at least 1, got {self.players}")
        if self.seed is not None and self.seed < 0:
            raise ValueError(f"seed must be 0 or more, got {self.seed}")
        if self.num_cpus is not None and self.num_cpus < 1:
            raise ValueError(f"num_cpus must be at least 1, got {self.num_cpus}")
        local_cpus = self.num_cpus or os.cpu_count() or 1
        if self.address is None and self.num_env_runners * CPUS_PER_ENV_RUNNER > local_cpus:
            raise ValueError(
                f"num_env_runners={self.num_env_runners} needs {self.num_env_runners * CPUS_PER_ENV_RUNNER} CPUs "
                f"and the local Ray instance has {local_cpus}; use fewer (or num_envs_per_env_runner for more "
                "games per runner), or join a cluster with address"
            )
        if Path(self.checkpoint_dir).exists() and not Path(self.checkpoint_dir).is_dir():
            raise ValueError(f"checkpoint_dir {self.checkpoint_dir!r} is a file, not a directory")
        if self.resume:
            self._check_resumable()
        if self.address is not None and not self.address.strip():
            raise ValueError("address must be 'auto', 'ray://HOST:PORT' or 'HOST:PORT', not empty")

    def _check_resumable(self) -> None:
        saved_args = Path(self.checkpoint_dir) / ARGS_FILE
        if not (Path(self.checkpoint_dir) / CHECKPOINT_MARKER).is_file() or not saved_args.is_file():
            raise ValueError(f"resume: no checkpoint of this script in {self.checkpoint_dir!r}")
        saved = json.loads(saved_args.read_text())
        for name in MODEL_DEFINING_FIELDS:
            mine = list(value) if isinstance(value := getattr(self, name), tuple) else value
            if saved.get(name) != mine:
                raise ValueError(
                    f"resume: the checkpoint in {self.checkpoint_dir!r} was trained with {name}={saved.get(name)!r}, "
                    f"this run has {name}={mine!r}; pass the same value"
                )

    @property
    def game_params(self) -> dict[str, Any]:
        """The game's parameters as given to ``cardenvs.env``."""
        return {} if self.players is None else {"num_players": self.players}


# ---------------------------------------------------------------------------------------------- command line
def command() -> str:
    """How this script was started, for the commands it prints (``python -m cardenvs.training.rllib_train``)."""
    return invocation(__spec__)


def parse_args(argv: Sequence[str] | None = None) -> RLlibTrainArgs:
    """The command line as `RLlibTrainArgs` (a malformed one exits with tyro's message and code 2).

    With ``--resume``, the game, players, policy mode and network not given on the command line are those of the
    checkpoint in ``--checkpoint-dir`` (when it has the arguments file).
    """
    description = (sys.modules[__name__].__doc__ or "").split("\n\n")[0] + (
        " Run it from the repository root as python -m cardenvs.training.rllib_train, or from anywhere as "
        "python PATH/TO/training/rllib_train.py."
    )

    import tyro

    def cli(defaults: RLlibTrainArgs) -> RLlibTrainArgs:
        return tyro.cli(RLlibTrainArgs, args=argv, prog=command(), description=description, default=defaults)

    args = cli(RLlibTrainArgs())
    saved_path = Path(args.checkpoint_dir) / ARGS_FILE
    if args.resume and saved_path.is_file():
        saved = json.loads(saved_path.read_text())
        taken = {name: saved[name] for name in MODEL_DEFINING_FIELDS if name in saved}
        if "hidden_sizes" in taken:
            taken["hidden_sizes"] = tuple(taken["hidden_sizes"])
        # Parsed again with the checkpoint's values as defaults: the options given still win.
        args = cli(dataclasses.replace(RLlibTrainArgs(), **taken))
    return args


# ---------------------------------------------------------------------------------------------- RLlib set-up
def shared_module(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping of ``--policy shared``: every seat plays with the one shared module."""
    return SHARED_MODULE_ID


def module_of_seat(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping of ``--policy per-seat``: each seat plays with the module named after its agent id."""
    return agent_id


def module_ids(args: RLlibTrainArgs) -> list[str]:
    """The module ids of the run: ``["shared"]`` or one per seat; ValueError for bad game parameters."""
    env = cardenvs.env(args.env_id, **args.game_params)
    return [SHARED_MODULE_ID] if args.policy == "shared" else list(env.possible_agents)


def build_config(args: RLlibTrainArgs, module_class: type | None = None) -> Any:
    """The ``PPOConfig`` of a run (new API stack); registers the env creator under :data:`ENV_NAME`.

    Args:
        args: the run's arguments (validated first; ValueError if they are not allowed).
        module_class: the RLModule class of every module (``None``:
            :class:`~cardenvs.training.rllib_masking.MaskedActorCritic`).
    """
    from cardenvs.training.rllib_masking import HIDDEN_SIZES_KEY, MaskedActorCritic, make_pettingzoo_env
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    args.validate()
    modules = module_ids(args)
    register_env(ENV_NAME, make_pettingzoo_env)
    env_config = {"env_id": args.env_id, "params": args.game_params}
    module_spec = RLModuleSpec(
        module_class=module_class or MaskedActorCritic, model_config={HIDDEN_SIZES_KEY: list(args.hidden_sizes)}
    )
    config = (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        # RLlib's env checker steps a random action from the action space, which is often illegal here.
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.num_envs_per_env_runner)
        .training(
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.lr,
            gamma=args.gamma,
            lambda_=args.lambda_,
            entropy_coeff=args.entropy_coeff,
        )
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=shared_module if args.policy == "shared" else module_of_seat,
            policies_to_train=modules,
        )
        # One spec for every module: RLlib copies it per module id, inference-only (no value net) on EnvRunners.
        .rl_module(rl_module_spec=module_spec)
        # An env error (an illegal action included) must stop training, not be hidden by restarting the env or
        # the EnvRunner (RLlib restarts failed EnvRunners by default and carries on without their samples).
        .fault_tolerance(
            restart_failed_sub_environments=False, restart_failed_env_runners=False, ignore_env_runner_failures=False
        )
    )
    if args.seed is not None:
        config = config.debugging(seed=args.seed)
    return config


def init_ray(args: RLlibTrainArgs) -> None:
    """Start a local Ray instance, or join the cluster at ``args.address`` and ship this repository to it."""
    import ray

    if args.address is None:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    else:
        # Workers on other nodes import cardenvs and cardenvs.training.rllib_masking from the shipped copy.
        ray.init(address=args.address, runtime_env={"working_dir": str(REPO_ROOT), "excludes": SHIPPING_EXCLUDES})


# ---------------------------------------------------------------------------------------------- results
def summarize(iteration: int, result: dict[str, Any]) -> str:
    """One line per iteration: steps, episodes, each seat's mean return, each module's losses.

    Args:
        iteration: the iteration number (from 1).
        result: what ``Algorithm.train()`` returned.
    """
    runners = result.get("env_runners", {})
    parts = [
        f"iter {iteration:>4}",
        f"env steps {runners.get('num_env_steps_sampled', 0):>6.0f} "
        f"(total {result.get('num_env_steps_sampled_lifetime', 0):.0f})",
        f"episodes {runners.get('num_episodes', 0):>4.0f}",
    ]
    if "episode_len_mean" in runners:
        parts.append(f"length {runners['episode_len_mean']:.1f}")
    returns = runners.get("agent_episode_returns_mean", {})
    if returns:
        parts.append("return " + " ".join(f"{agent} {value:+.3f}" for agent, value in sorted(returns.items())))
    for module, stats in sorted(result.get("learners", {}).items()):
        if module != "__all_modules__" and "policy_loss" in stats:
            parts.append(
                f"{module}: pi {stats['policy_loss']:+.3f} vf {stats['vf_loss']:.3f} ent {stats['entropy']:.3f}"
            )
    return " | ".join(parts)


def train(args: RLlibTrainArgs, print_fn: Any = print) -> tuple[list[dict[str, Any]], str]:
    """Train for ``args.iterations`` iterations and save a checkpoint; Ray must be initialised.

    Args:
        args: the run's arguments.
        print_fn: where the per-iteration summaries go (``print`` by default).

    Returns:
        Each iteration's result dict, and the checkpoint's path.
    """
    checkpoint_dir = Path(args.checkpoint_dir).resolve()
    checkpoint_dir.mkdir(parents=True, exist_ok=True)
    algorithm = build_config(args).build_algo()
    try:
        if args.resume:
            algorithm.restore_from_path(str(checkpoint_dir))
        results = []
        for count in range(1, args.iterations + 1):
            result = algorithm.train()
            results.append(result)
            iteration = result["training_iteration"]  # counts on across a resume
            print_fn(summarize(iteration, result))
            if count == args.iterations or (args.checkpoint_every and count % args.checkpoint_every == 0):
                checkpoint = str(algorithm.save_to_path(str(checkpoint_dir)))
                saved = {**dataclasses.asdict(args), "resume": False, "iteration": iteration}
                (checkpoint_dir / ARGS_FILE).write_text(json.dumps(saved, indent=2))
                print_fn(f"checkpoint of iteration {iteration} saved to {checkpoint}")
        return results, checkpoint
    finally:
        algorithm.stop()


def _saved_iteration(checkpoint_dir: Path) -> int | None:
    """The training iteration of the checkpoint in ``checkpoint_dir`` (None if it holds none)."""
    saved = checkpoint_dir / ARGS_FILE
    if not saved.is_file():
        return None
    return json.loads(saved.read_text()).get("iteration")


def interrupted_hint(args: RLlibTrainArgs, iteration_before: int | None) -> str:
    """What an interrupted run kept, and the command that continues it.

    Args:
        args: the run's arguments.
        iteration_before: the iteration of the checkpoint in ``args.checkpoint_dir`` when the run started.
    """
    checkpoint_dir = Path(args.checkpoint_dir).resolve()
    saved = _saved_iteration(checkpoint_dir)
    if saved is None or (not args.resume and saved == iteration_before):
        return ("interrupted before the first checkpoint; nothing to resume from (--checkpoint-every saves along "
                "the way)")
    done_now = saved - ((iteration_before or 0) if args.resume else 0)
    remaining = max(args.iterations - done_now, 1)
    return (
        f"interrupted; continue from the checkpoint of iteration {saved} with: {command()} "
        f"--resume --checkpoint-dir {shlex.quote(str(checkpoint_dir))} --iterations {remaining}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code (2 for arguments that are not allowed)."""
    missing = tyro_missing("rllib")
    if missing:
        print(f"rllib_train: {missing}", file=sys.stderr)
        return EXIT_FAILURE
    args = parse_args(argv)
    try:
        args.validate()
        module_ids(args)  # checks the game parameters before Ray starts
    except ValueError as error:
        print(f"rllib_train: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        import ray
        import ray.rllib
        import torch  # noqa: F401
    except ImportError as error:
        print(f"rllib_train: needs the 'rllib' extra ({error.name} cannot be imported); install it with: "
              f"{RLLIB_EXTRA_HINT}", file=sys.stderr)
        return EXIT_FAILURE
    iteration_before = _saved_iteration(Path(args.checkpoint_dir).resolve())
    try:
        try:
            init_ray(args)
        except (ConnectionError, ValueError) as error:  # no cluster there, or an address Ray cannot parse
            print(f"rllib_train: cannot reach the Ray cluster at {args.address!r}: {error}", file=sys.stderr)
            return EXIT_FAILURE
        train(args)
    except KeyboardInterrupt:
        print("\n" + interrupted_hint(args, iteration_before), file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
