"""PPO with Ray RLlib's new API stack (RLModule, Learner, EnvRunner) on any cardenvs game, on one machine or a cluster.

A thin adapter around RLlib: the options are the self-play trainer's (``cardenvs train``) where they mean the
same thing, and the run shell (stored arguments and resuming, the final match table) is
`cardenvs.training.runs`. Run it as a module or by its path::

    python -m cardenvs.training.rllib_train --env-id clabber_v0 --iterations 20                  # this machine
    python -m cardenvs.training.rllib_train --env-id slabberjan_v0 --players 3 --policy per-seat  # a module per seat
    python -m cardenvs.training.rllib_train --env-id clabber_v0 --address HEAD:6379 --num-env-runners 32  # a cluster
    python -m cardenvs.training.rllib_train --run-dir runs/rllib/clabber_v0 --resume --iterations 40

Each game is the cardenvs PettingZoo AEC env in RLlib's ``PettingZooEnv`` wrapper, registered with
``ray.tune.registry.register_env``; the policy is ``cardenvs.training.rllib_masking.MaskedActorCritic``, which reads
the ``{"observation", "action_mask"}`` dict as it is and gives illegal actions probability zero. The env raises
on an illegal action and RLlib is told not to restart failed envs or EnvRunners, so a masking fault stops
training.

Policy modes (``--policy``): ``shared``, one module, ``"shared"``, plays every seat (self-play); ``per-seat``,
one module per seat, named after the seat's agent id (``player_0``, ...).

Each iteration prints the env steps sampled, the episodes finished, their mean length, each seat's mean return
and each module's losses. ``<run-dir>/run.json`` holds the run's arguments from its start; the checkpoint
(``Algorithm.save_to_path``) goes to ``<run-dir>/checkpoint`` every ``--checkpoint-every`` iterations and at the
end; then, for a shared policy, the trained module plays a match against the rule-based agent and one against
random (``<run-dir>/model.json``). See docs/rllib.md for clusters, their token authentication, and limits.

Joining a cluster is bounded: an address where nothing answers within :data:`PROBE_SECONDS` fails at once, one
that answers but lets no driver in fails after ``--join-seconds``, each with one line; SIGTERM stops the driver
as Ctrl-C does, within :data:`STOP_GRACE_SECONDS` even while Ray's client waits.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle OpenMP threads (numba and torch) sleep, not spin

import shutil
import signal
import socket
import sys
import tempfile
import threading
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import cardenvs
from cardenvs.core.exit_codes import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_USAGE
from cardenvs.core.rng import narrowed_seed, offset_seed
from cardenvs.training import runs
from cardenvs.training.cli import (
    LEAGUE_SHARE_CHECK,
    PPO_CHECKS,
    SEED_CHECK,
    PPOOptions,
    at_least,
    check_options,
    check_training_agents,
    invocation,
    option,
    registered_env,
    resume_note,
    shown_default,
    tyro_missing,
)
from cardenvs.training.recipes import recipe

#: RLlib's value loss is ``vf_loss_coeff`` × squared error; ``cardenvs train``'s is ``--vf-coef`` × half of it
VALUE_LOSS_FACTOR = 0.5
#: the name the cardenvs env creator is registered under with ``ray.tune.registry.register_env``
ENV_NAME = "cardenvs_pettingzoo"
#: the module id of ``--policy shared`` with the PettingZoo sampler
SHARED_MODULE_ID = "shared"
#: the module id of the batched sampler (RLlib's single-agent module id, ``DEFAULT_MODULE_ID``)
BATCHED_MODULE_ID = "default_policy"
#: where runs go unless --run-dir says otherwise (``<RUNS_DIR>/<env_id>``)
RUNS_DIR = Path("runs") / "rllib"
#: the run directory's algorithm checkpoint (each save replaces the previous one)
CHECKPOINT_DIR = "checkpoint"
#: the file RLlib writes at the top of every algorithm checkpoint
CHECKPOINT_MARKER = "rllib_checkpoint.json"
#: options a resumed run may take anew (the others, which define the modules and their training, must match)
RESUME_MAY_CHANGE = ("iterations", "num_env_runners", "num_envs_per_env_runner", "address", "num_cpus",
                     "num_learners", "num_gpus_per_learner", "join_seconds", "checkpoint_every", "final_games")
#: the subpackages of cardenvs that pyproject.toml maps from folders of their own (``agents/``, ``training/``,
#: ``docs/rules/``): an editable install finds them outside the ``cardenvs/`` folder
MAPPED_SUBPACKAGES = ("agents", "training", "rules")
#: files left out of the package shipped to a cluster
SHIPPING_IGNORED = ("__pycache__", "*.pyc")
#: what Ray's errors say when a cluster refuses a driver's authentication token
AUTH_REFUSALS = ("AuthenticationError", "InvalidAuthToken")
#: each EnvRunner actor holds this many CPUs (RLlib's default); Ray waits forever for CPUs a local instance lacks
CPUS_PER_ENV_RUNNER = 1
RLLIB_EXTRA_HINT = 'pip install "cardenvs[rllib]"'
#: seconds a TCP connection to ``--address`` may take before nothing counts as answering there
PROBE_SECONDS = 5.0
#: after SIGTERM or Ctrl-C, seconds the driver has to stop in order (Ray shut down) before it exits regardless:
#: while Ray's client waits for a cluster, Python runs no signal handler
STOP_GRACE_SECONDS = 10.0
#: the scheme of a Ray Client address (``ray://HOST:PORT``), which Ray dials as given
RAY_CLIENT_SCHEME = "ray://"
#: the variable that keeps Ray from replacing a loopback address by the machine's routable one on Linux
LOOPBACK_CLUSTER_VARIABLE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"

#: ``--policy`` choices
PolicyMode = Literal["shared", "per-seat"]
POLICY_MODES: tuple[str, ...] = typing.get_args(PolicyMode)
#: ``--sampler`` choices: ``batched`` (:class:`~cardenvs.training.rllib_batched.BatchedEnvRunner`), ``pettingzoo``
#: (RLlib's multi-agent EnvRunner on the PettingZoo env), ``auto`` (batched for a shared policy, else pettingzoo)
Sampler = Literal["auto", "batched", "pettingzoo"]
SAMPLERS: tuple[str, ...] = typing.get_args(Sampler)
#: games each EnvRunner steps side by side unless --num-envs-per-env-runner says otherwise, per sampler
DEFAULT_GAMES = {"batched": 256, "pettingzoo": 1}
#: the batched sampler's iteration unless --train-batch-size says otherwise: this many steps of every game (each
#: seat's chunk of trajectory then holds about BATCHED_STEPS / players decisions: RLlib pays per chunk)
BATCHED_STEPS = 32
#: the PettingZoo sampler's iteration unless --train-batch-size says otherwise, in env steps
PETTINGZOO_BATCH = 4000
#: the league's agents unless --league says otherwise (league games only with a --league-share above 0)
DEFAULT_LEAGUE = ("heuristic", "random")
#: the game trained on unless --env-id says otherwise
DEFAULT_ENV_ID = "slabberjan_v0"
#: RLlib seeds numpy's legacy generator (32 bits) with the seed plus each worker's and env's index: the run's seed
#: reaches it narrowed below this (:func:`cardenvs.core.rng.narrowed_seed`)
RLLIB_SEED_LIMIT = 2**31


#: the checks of the options (those of the optional ones in :data:`OPTIONAL_CHECKS`)
CHECKS = (at_least(1, "iterations", "minibatch_size", "update_epochs"),
          at_least(0, "num_env_runners", "checkpoint_every", "final_games", "num_learners"),
          (("num_gpus_per_learner",), lambda v: math.isfinite(v) and v >= 0, "0 or more"))
#: the checks of the options that may be None (not checked then)
OPTIONAL_CHECKS = (*PPO_CHECKS, SEED_CHECK,
                   (("players", "num_cpus", "num_envs_per_env_runner", "train_batch_size"),
                    lambda v: v is None or v >= 1, "at least 1"),
                   (("join_seconds",), lambda v: math.isfinite(v) and v > 0, "a positive number of seconds"))


@dataclass
class RLlibTrainArgs(PPOOptions):
    """Arguments of `train` and of the command line: the PPO options (:class:`~cardenvs.training.cli.PPOOptions`,
    with this adapter's defaults), then the run's. Each field is the ``--option`` of the same name (``_`` written
    ``-``) and its docstring, on one line, is the option's help.

    The fields that may be None: ``players`` (the game's default), ``address`` (start a local Ray instance),
    ``num_cpus`` (every CPU), ``run_dir`` (``runs/rllib/<env-id>``) and ``seed`` (unseeded).
    """

    minibatch_size: int = 256
    update_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    env_id: Annotated[str, registered_env(DEFAULT_ENV_ID)] = DEFAULT_ENV_ID
    """the cardenvs env to train on"""
    players: Annotated[int | None, shown_default("the game's", "INT")] = None
    """number of players, for games that take a number of players"""
    policy: PolicyMode = "shared"
    """shared (one module for every seat: self-play) or per-seat (one module per seat)"""
    iterations: int = 10
    """training iterations in all (a resumed run counts those done), each of --train-batch-size env steps"""
    num_env_runners: int = 0
    """remote EnvRunner actors that sample in parallel; 0 samples in the driver process"""
    num_envs_per_env_runner: Annotated[int | None, shown_default("256 batched, 1 pettingzoo", "INT")] = None
    """games each EnvRunner steps side by side (batched: in one call of the engine and one forward pass)"""
    sampler: Sampler = "auto"
    """how EnvRunners play: batched (the batched engine; shared policy only), pettingzoo (one AEC env per game), auto"""
    league: list[str] = field(default_factory=lambda: list(DEFAULT_LEAGUE))
    """who plays the other side of league games (batched sampler): agent specs (random, heuristic, trained, ppo:PATH)"""
    league_share: float = 0.0
    """share of the games with a league agent on one side, in [0, 1] (batched sampler; the rest: every seat learns)"""
    train_batch_size: Annotated[int | None, shown_default("batched: 32 steps of every game; pettingzoo: 4000",
                                                          "INT")] = None
    """env steps (decisions) sampled per iteration (per learner)"""
    address: Annotated[str | None, shown_default("none: start a local Ray instance", "ADDRESS")] = None
    """Ray cluster to join (HOST:PORT, auto, ray://HOST:10001), with its auth token if one is found"""
    num_cpus: Annotated[int | None, shown_default("every CPU of this machine", "INT")] = None
    """CPUs the local Ray instance may use; ignored with --address"""
    num_learners: int = 0
    """remote Learner actors that update the modules in parallel (0: the learner runs in the driver process)"""
    num_gpus_per_learner: float = 0.0
    """GPUs each Learner uses (with --num-learners 0: the driver's learner; 1 puts it on a GPU)"""
    join_seconds: float = 60.0
    """seconds joining the cluster at --address may take, once its port answers, before the driver gives up"""
    checkpoint_every: int = 0
    """also save the checkpoint every this many iterations (0: only at the end)"""
    final_games: int = 1000
    """games of each final tournament of a shared policy (trained vs rule-based, trained vs random; 0 skips them)"""
    run_dir: Annotated[str | None, shown_default(f"{RUNS_DIR.as_posix()}/<env-id>", "PATH")] = None
    """where the run's arguments, checkpoint and results go"""
    resume: bool = False
    """continue the run in --run-dir (an error if there is none) with its arguments, from its checkpoint if any"""
    resume_if_present: bool = False
    """like --resume when --run-dir holds a run, otherwise start a new one"""
    seed: Annotated[int | None, option(metavar="INT")] = 0
    """seed of torch, numpy and each env's first reset, from 0 to 2**64-1 (later games continue the env's stream)"""

    def validate(self) -> None:
        """Raise ValueError naming the option and what is allowed, for the first bad field."""
        if self.env_id not in cardenvs.available_envs():
            raise ValueError(f"unknown env id {self.env_id!r}; choose from {', '.join(cardenvs.available_envs())}")
        if self.policy not in POLICY_MODES:
            raise ValueError(f"--policy {self.policy!r} is not allowed; choose from {', '.join(POLICY_MODES)}")
        if self.sampler not in SAMPLERS:
            raise ValueError(f"--sampler {self.sampler!r} is not allowed; choose from {', '.join(SAMPLERS)}")
        if self.sampler == "batched" and self.policy != "shared":
            raise ValueError("--sampler batched plays every seat with one module: it needs --policy shared "
                             "(--sampler pettingzoo trains one module per seat)")
        check_options(self, CHECKS)
        self.check_league()
        if self.train_batch_size is not None and self.minibatch_size > self.train_batch_size:
            raise ValueError(f"--minibatch-size ({self.minibatch_size}) must not exceed --train-batch-size "
                             f"({self.train_batch_size})")
        check_options(self, OPTIONAL_CHECKS)
        local_cpus = self.num_cpus or os.cpu_count() or 1
        if self.address is None and self.num_env_runners * CPUS_PER_ENV_RUNNER > local_cpus:
            raise ValueError(
                f"--num-env-runners {self.num_env_runners} needs {self.num_env_runners * CPUS_PER_ENV_RUNNER} CPUs "
                f"and the local Ray instance has {local_cpus}; use fewer (or --num-envs-per-env-runner for more "
                "games per runner), or join a cluster with --address"
            )
        if self.address is not None and not self.address.strip():
            raise ValueError("--address must be HOST:PORT, auto or ray://HOST:PORT, not empty")
        runs.check_run_dir(self.resolved_run_dir)

    def check_league(self) -> None:
        """ValueError unless ``league`` and ``league_share`` can seat league games."""
        check_options(self, [LEAGUE_SHARE_CHECK])
        if self.league_share == 0:
            return
        if self.resolved_sampler != "batched":
            raise ValueError("--league-share above 0 needs the batched sampler (--sampler batched, --policy shared)")
        if not self.league:
            raise ValueError("--league needs at least one agent spec while --league-share is above 0")
        if runs.SNAPSHOTS in self.league:
            raise ValueError(f"--league {runs.SNAPSHOTS}: snapshots of the policy are the self-play trainer's "
                             "(cardenvs train); RLlib's league holds fixed agents (random, heuristic, ppo:PATH, ...)")
        check_training_agents("--league", self.league)

    @property
    def resolved_run_dir(self) -> str:
        """``run_dir``, or the default run directory of the game."""
        return self.run_dir if self.run_dir is not None else str(RUNS_DIR / self.env_id)

    @property
    def resolved_sampler(self) -> str:
        """``sampler``, with ``auto`` made ``batched`` for a shared policy and ``pettingzoo`` for per-seat ones."""
        if self.sampler != "auto":
            return self.sampler
        return "batched" if self.policy == "shared" else "pettingzoo"

    @property
    def games_per_env_runner(self) -> int:
        """``num_envs_per_env_runner``, or the sampler's default."""
        return self.num_envs_per_env_runner or DEFAULT_GAMES[self.resolved_sampler]

    @property
    def batch_size(self) -> int:
        """``train_batch_size``, or the sampler's default: for the batched sampler :data:`BATCHED_STEPS` steps of
        every game of every EnvRunner, else :data:`PETTINGZOO_BATCH`."""
        if self.train_batch_size is not None:
            return self.train_batch_size
        if self.resolved_sampler == "pettingzoo":
            return PETTINGZOO_BATCH
        return BATCHED_STEPS * self.games_per_env_runner * max(self.num_env_runners, 1)

    @property
    def game_params(self) -> dict[str, Any]:
        """The game's parameters as given to ``cardenvs.env``."""
        return {} if self.players is None else {"num_players": self.players}


# ---------------------------------------------------------------------------------------------- command line
def command() -> str:
    """How this script was started, for the commands it prints (``python -m cardenvs.training.rllib_train``)."""
    return invocation(__spec__)


def parse_args(argv: Sequence[str] | None = None, defaults: RLlibTrainArgs | None = None) -> RLlibTrainArgs:
    """The command line as `RLlibTrainArgs` (a malformed one exits with tyro's message and code 2).

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
        defaults: the values of the options not given (default: `RLlibTrainArgs`'s own).
    """
    description = (sys.modules[__name__].__doc__ or "").split("\n\n")[0] + "\n\n" + resume_note(RESUME_MAY_CHANGE)
    import tyro

    return tyro.cli(RLlibTrainArgs, args=argv, prog=command(), description=description,
                    default=RLlibTrainArgs() if defaults is None else defaults)


def settle_args(argv: Sequence[str] | None) -> RLlibTrainArgs:
    """The arguments of this invocation: the command line's, or those of the run it resumes (``run_dir`` filled).

    Raises:
        ValueError: --resume without a run, a new run over an existing one, or an option given anew that a
            resumed run cannot change.
    """
    return runs.settle_command_line(lambda defaults: parse_args(argv, defaults), RUNS_DIR, RESUME_MAY_CHANGE)


# ---------------------------------------------------------------------------------------------- RLlib set-up
def shared_module(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping of ``--policy shared``: every seat plays with the one shared module."""
    return SHARED_MODULE_ID


def module_of_seat(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping of ``--policy per-seat``: each seat plays with the module named after its agent id."""
    return agent_id


def module_ids(args: RLlibTrainArgs) -> list[str]:
    """The module ids of the run: ``["shared"]`` (``["default_policy"]``, RLlib's single-agent module id, with the
    batched sampler) or one per seat; ValueError for bad game parameters."""
    env = cardenvs.env(args.env_id, **args.game_params)
    if args.policy == "per-seat":
        return list(env.possible_agents)
    return [BATCHED_MODULE_ID] if args.resolved_sampler == "batched" else [SHARED_MODULE_ID]


def build_config(args: RLlibTrainArgs, module_class: type | None = None) -> Any:
    """The ``PPOConfig`` of a run (new API stack); with the PettingZoo sampler, registers the env creator under
    :data:`ENV_NAME`.

    The batched sampler is single-agent to RLlib: its EnvRunner hands each seat's trajectory over as an episode of
    its own, learned by the one module. The PettingZoo sampler is multi-agent: one module shared by every seat, or
    one per seat.

    Args:
        args: the run's arguments (validated first; ValueError if they are not allowed).
        module_class: the RLModule class of every module (``None``:
            :class:`~cardenvs.training.rllib_masking.MaskedActorCritic`).
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from cardenvs.training.rllib_masking import HIDDEN_SIZES_KEY, MaskedActorCritic, make_pettingzoo_env

    args.validate()
    modules = module_ids(args)
    env_config = {"env_id": args.env_id, "params": args.game_params}
    module_spec = RLModuleSpec(
        module_class=module_class or MaskedActorCritic, model_config={HIDDEN_SIZES_KEY: list(args.hidden)}
    )
    config = (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .training(
            train_batch_size_per_learner=args.batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.update_epochs,
            # as cardenvs train: annealed linearly to 0 over the run's budget, and the clipped objective alone
            lr=[[0, args.learning_rate], [args.iterations * args.batch_size, 0.0]],
            use_kl_loss=False,
            gamma=args.gamma,
            lambda_=args.gae_lambda,
            clip_param=args.clip_coef,
            entropy_coeff=args.ent_coef,
            # as cardenvs train: the value loss is half the squared error, not clipped (RLlib's is the squared
            # error, clipped at vf_clip_param)
            vf_loss_coeff=args.vf_coef * VALUE_LOSS_FACTOR,
            vf_clip_param=float("inf"),
            grad_clip=args.max_grad_norm,
            grad_clip_by="global_norm",
        )
        .learners(num_learners=args.num_learners, num_gpus_per_learner=args.num_gpus_per_learner)
        # One spec for every module: RLlib copies it per module id, inference-only (no value head) on EnvRunners.
        .rl_module(rl_module_spec=module_spec)
        # An env error (an illegal action included) must stop training, not be hidden by restarting the env or
        # the EnvRunner (RLlib restarts failed EnvRunners by default and carries on without their samples).
        .fault_tolerance(
            restart_failed_sub_environments=False, restart_failed_env_runners=False, ignore_env_runner_failures=False
        )
    )
    runners = {"num_env_runners": args.num_env_runners, "num_envs_per_env_runner": args.games_per_env_runner}
    if args.resolved_sampler == "batched":
        from cardenvs.training.rllib_batched import (
            LEAGUE_KEY,
            LEAGUE_SHARE_KEY,
            SHAPING_KEY,
            BatchedEnvRunner,
            BatchedGames,
        )

        spaces = BatchedGames.seat_spaces(args.env_id, args.game_params)
        env_config[SHAPING_KEY] = recipe(args.env_id).shaping  # the rewards the self-play trainer learns from
        env_config[LEAGUE_KEY], env_config[LEAGUE_SHARE_KEY] = list(args.league), args.league_share
        config = (config.environment(env_config=env_config, observation_space=spaces[0], action_space=spaces[1])
                  .env_runners(env_runner_cls=BatchedEnvRunner, **runners))
    else:
        register_env(ENV_NAME, make_pettingzoo_env)
        config = (
            # RLlib's env checker steps a random action from the action space, which is often illegal here.
            config.environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
            .env_runners(**runners)
            .multi_agent(
                policies=set(modules),
                policy_mapping_fn=shared_module if args.policy == "shared" else module_of_seat,
                policies_to_train=modules,
            )
        )
    if args.seed is not None:
        config = config.debugging(seed=narrowed_seed(args.seed, RLLIB_SEED_LIMIT))
    return config


def stage_package(target: Path) -> Path:
    """Copy the imported ``cardenvs`` package, laid out as installed, into ``target``; its folder's path.

    In an editable install the subpackages of :data:`MAPPED_SUBPACKAGES` live outside the ``cardenvs/`` folder;
    the copy puts them inside it, so that a node without cardenvs imports every module from the copy alone.

    Args:
        target: an empty directory.
    """
    package = target / "cardenvs"
    ignored = shutil.ignore_patterns(*SHIPPING_IGNORED)
    shutil.copytree(Path(cardenvs.__file__).parent, package, ignore=ignored)
    for name in MAPPED_SUBPACKAGES:
        spec = importlib.util.find_spec(f"cardenvs.{name}")
        if spec is None or not spec.submodule_search_locations:
            continue
        source = Path(next(iter(spec.submodule_search_locations)))
        if source.resolve() != (Path(cardenvs.__file__).parent / name).resolve():
            shutil.copytree(source, package / name, ignore=ignored, dirs_exist_ok=True)
    return package


def enable_cluster_auth() -> bool:
    """Join with token authentication when a token is found and ``RAY_AUTH_MODE`` is not set; whether it is on.

    A cluster started with ``ray start --head`` requires the token once one exists (in ``RAY_AUTH_TOKEN``,
    the file ``RAY_AUTH_TOKEN_PATH`` names, or ``~/.ray/auth_token``), but Ray turns token mode on for a driver
    only when it joins with address ``auto``; joining ``HOST:PORT`` without it is refused (``InvalidAuthToken``).
    This takes Ray's own rule for ``auto`` to every address. A cluster without authentication ignores the token.
    """
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # a Ray without token authentication: nothing to pass
        return False
    return maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


def init_ray(args: RLlibTrainArgs) -> None:
    """Start a local Ray instance, or join the cluster at ``args.address`` and ship the cardenvs package to it.

    Joining waits as long as Ray does (it retries a silent address for minutes): the command line bounds it with
    :func:`unreachable` first and :func:`deadline` around it.
    """
    import ray

    if args.address is None:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
        return
    enable_cluster_auth()
    with tempfile.TemporaryDirectory(prefix="cardenvs_shipped_") as staging:
        # Workers on other nodes import cardenvs and cardenvs.training.rllib_masking from the shipped copy.
        ray.init(address=args.address, runtime_env={"py_modules": [str(stage_package(Path(staging)))]})


def answers(host: str, port: int, seconds: float) -> bool:
    """Whether a TCP connection to ``host:port`` opens within ``seconds``."""
    try:
        with socket.create_connection((host, port), timeout=seconds):
            return True
    except OSError:
        return False


def unreachable(address: str, seconds: float = PROBE_SECONDS) -> str | None:
    """Why the cluster at ``address`` cannot be joined, in one line; None when its port answers, or for ``auto``.

    On Linux Ray dials a loopback host (``127.0.0.1``, ``localhost``) at the machine's routable address instead,
    unless ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` is set (``ray._private.services.resolve_ip_for_localhost``).
    The probe dials what Ray dials; when only the address as given answers, the head listens on the loopback
    interface alone (started with that variable) and the driver needs the variable too.

    Args:
        address: the ``--address`` given (``HOST:PORT``, ``auto`` or ``ray://HOST:PORT``).
        seconds: how long each TCP connection may take.
    """
    from ray._private.services import canonicalize_bootstrap_address, parse_address

    if address == "auto":  # Ray reads the address of a cluster started on this machine, or says there is none
        return None
    client = address.startswith(RAY_CLIENT_SCHEME)
    given = address.removeprefix(RAY_CLIENT_SCHEME)
    parsed = parse_address(given)
    if parsed is None or not parsed[1].isdigit():
        raise ValueError(f"--address must be HOST:PORT, auto or ray://HOST:PORT, not {address!r}")
    dialed = given if client else canonicalize_bootstrap_address(given)
    dialed_host, dialed_port = parse_address(dialed)
    if answers(dialed_host, int(dialed_port), seconds):
        return None
    if dialed != given and answers(parsed[0], int(parsed[1]), seconds):
        return (f"the Ray head at {given} listens on the loopback interface only, and Ray dials {dialed} for it on "
                f"this machine; run this driver with {LOOPBACK_CLUSTER_VARIABLE}=0 as the head was started "
                "(docs/rllib.md)")
    dialed_note = f" (Ray dials {dialed} for it)" if dialed != given else ""
    return (f"cannot reach the Ray cluster at {address!r}: nothing answers there{dialed_note} within {seconds:g} s; "
            "start its head with `ray start --head` or give the address it printed")


@contextlib.contextmanager
def deadline(seconds: float, message: str) -> Iterator[None]:
    """Print ``message`` to stderr and end the process with :data:`EXIT_FAILURE` if the block outlasts ``seconds``.

    For calls that wait inside Ray's C++ client, which no Python exception interrupts; the command line's only.

    Args:
        seconds: how long the block may take.
        message: the one line printed before the process ends.
    """
    def give_up() -> None:
        print(message, file=sys.stderr, flush=True)
        os._exit(EXIT_FAILURE)

    timer = threading.Timer(seconds, give_up)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


@contextlib.contextmanager
def stop_on_signals(hint: Callable[[], str], grace_seconds: float = STOP_GRACE_SECONDS) -> Iterator[None]:
    """In the block, SIGTERM stops the driver as Ctrl-C does (a KeyboardInterrupt), and either signal stops it for sure.

    Python runs signal handlers only between bytecodes, so a driver waiting inside Ray's C++ client (joining a
    cluster, say) would go on waiting. A thread woken by the signal (``signal.set_wakeup_fd``) gives the driver
    ``grace_seconds`` to stop in order, then prints ``hint()`` and ends the process with
    :data:`EXIT_INTERRUPTED`. The command line's only: it must run in the main thread.

    Args:
        hint: what the interrupted run kept and how to continue it, one line.
        grace_seconds: how long the driver has to stop on its own after the signal.
    """
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
        yield
        return
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    finished = threading.Event()

    def watch() -> None:
        with contextlib.suppress(OSError):
            while not finished.is_set():
                woken = reader.recv(1)
                if not woken:
                    return
                if woken[0] in (signal.SIGINT, signal.SIGTERM) and not finished.wait(grace_seconds):
                    print("\n" + hint(), file=sys.stderr, flush=True)
                    os._exit(EXIT_INTERRUPTED)

    previous_handler = signal.signal(signal.SIGTERM, interrupt)
    previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    watcher = threading.Thread(target=watch, name="stop-on-signals", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        signal.set_wakeup_fd(previous_fd)
        signal.signal(signal.SIGTERM, previous_handler)
        writer.close()  # wakes the watcher, which then ends
        watcher.join(1)
        reader.close()


def cluster_error(address: str | None, error: BaseException) -> str:
    """The one-line message for a cluster that could not be joined; for a refused token, where to put the right one.

    Args:
        address: the ``--address`` given.
        error: what ``ray.init`` raised.
    """
    from ray.exceptions import AuthenticationError

    refused = False
    cause: BaseException | None = error
    while cause is not None and not refused:
        # Ray raises AuthenticationError itself when it finds no token; when the cluster refuses one, the GCS
        # client's error comes back as the text of a RuntimeError under the ConnectionError.
        refused = isinstance(cause, AuthenticationError) or any(mark in str(cause) for mark in AUTH_REFUSALS)
        cause = cause.__cause__ or cause.__context__
    if not refused:
        return f"cannot reach the Ray cluster at {address!r}: {error}"
    return (f"the Ray cluster at {address!r} refused to let this driver join: it requires its authentication token, "
            "and none was found or it is not the cluster's; put the cluster's token (`ray get-auth-token` on the head "
            "prints it) in ~/.ray/auth_token, in RAY_AUTH_TOKEN, or in the file RAY_AUTH_TOKEN_PATH names "
            "(docs/rllib.md)")


# ---------------------------------------------------------------------------------------------- results
def summarize(iteration: int, result: dict[str, Any]) -> str:
    """One line per iteration: steps, episodes, each seat's mean return (and the learners' against each league entry),
    each module's losses.

    Args:
        iteration: the iteration number (from 1).
        result: what ``Algorithm.train()`` returned.
    """
    from cardenvs.training.rllib_batched import LEAGUE_RETURN_MEAN

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
    league_returns = runners.get(LEAGUE_RETURN_MEAN, {})
    if league_returns:
        parts.append("learners' return vs " + " ".join(f"{entry} {value:+.3f}"
                                                      for entry, value in sorted(league_returns.items())))
    for module, stats in sorted(result.get("learners", {}).items()):
        if module != "__all_modules__" and "policy_loss" in stats:
            parts.append(
                f"{module}: pi {stats['policy_loss']:+.3f} vf {stats['vf_loss']:.3f} ent {stats['entropy']:.3f}"
            )
    return " | ".join(parts)


def checkpoint_path(args: RLlibTrainArgs) -> Path:
    """The run's algorithm checkpoint directory (``<run-dir>/checkpoint``), absolute."""
    return (Path(args.resolved_run_dir) / CHECKPOINT_DIR).resolve()


def has_checkpoint(args: RLlibTrainArgs) -> bool:
    """Whether the run directory holds an algorithm checkpoint."""
    return (checkpoint_path(args) / CHECKPOINT_MARKER).is_file()


def train(args: RLlibTrainArgs, print_fn: Any = print) -> tuple[list[dict[str, Any]], Path]:
    """Train up to ``args.iterations`` iterations in all, saving the checkpoint; Ray must be initialised.

    With ``args.resume`` the run goes on from the checkpoint in the run directory, if it has one.

    Args:
        args: the run's arguments.
        print_fn: where the per-iteration summaries go (``print`` by default).

    Returns:
        Each iteration's result dict (this session's), and the checkpoint's path.
    """
    checkpoint = checkpoint_path(args)
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    algorithm = build_config(args).build_algo()
    try:
        if args.resume and has_checkpoint(args):
            algorithm.restore_from_path(str(checkpoint))  # the iteration count comes back too
        results = []
        while algorithm.iteration < args.iterations:
            result = algorithm.train()
            results.append(result)
            iteration = result["training_iteration"]
            print_fn(summarize(iteration, result))
            if iteration == args.iterations or (args.checkpoint_every and iteration % args.checkpoint_every == 0):
                algorithm.save_to_path(str(checkpoint))
                print_fn(f"checkpoint of iteration {iteration} saved to {checkpoint}")
        return results, checkpoint
    finally:
        algorithm.stop()


def play_final_tournament(args: RLlibTrainArgs) -> str | None:
    """The shared module against the rule-based agent and against random (recorded in ``model.json``); the table.

    None when there is nothing to play: ``--final-games 0``, or per-seat modules (each trained for its own seat;
    evaluate one with the agent spec ``rllib:PATH``).
    """
    from cardenvs.agents.rllib import RLlibAgent

    if args.policy != "shared":
        return None
    env = cardenvs.env(args.env_id, **args.game_params)
    info = runs.model_info(args, "cardenvs.training.rllib_train", runs.command_line(command(), args))
    return runs.final_results(
        lambda: RLlibAgent.load(checkpoint_path(args), args.env_id, env.layout, num_actions=env.num_actions),
        args.env_id, args.final_games, offset_seed(args.seed or 0, 1), Path(args.resolved_run_dir), info)


def interrupted_hint(args: RLlibTrainArgs) -> str:
    """What an interrupted run kept, and the command that continues it."""
    again = runs.resume_command(command(), args.resolved_run_dir)
    if not has_checkpoint(args):
        return f"interrupted before the first checkpoint; start the run over with its arguments: {again}"
    return f"interrupted; continue from the last checkpoint ({checkpoint_path(args)}) with: {again}"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code (2 for arguments that are not allowed)."""
    missing = tyro_missing("rllib")
    if missing:
        print(f"rllib_train: {missing}", file=sys.stderr)
        return EXIT_FAILURE
    try:
        args = settle_args(argv)
        args.validate()
        module_ids(args)  # checks the game parameters before Ray starts
    except ValueError as error:
        print(f"rllib_train: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        import ray.rllib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:
        print(f"rllib_train: needs the 'rllib' extra ({error.name} cannot be imported); install it with: "
              f"{RLLIB_EXTRA_HINT}", file=sys.stderr)
        return EXIT_FAILURE
    with stop_on_signals(lambda: interrupted_hint(args)):
        return run(args)


def run(args: RLlibTrainArgs) -> int:
    """Join or start Ray, train, play the final matches, shut Ray down; the exit code (a failure says why in one line).

    Args:
        args: the run's validated arguments.
    """
    import ray
    from ray.exceptions import AuthenticationError

    try:
        try:
            if args.address is not None:
                reason = unreachable(args.address)
                if reason:
                    print(f"rllib_train: {reason}", file=sys.stderr)
                    return EXIT_FAILURE
            gave_up = (f"rllib_train: cannot join the Ray cluster at {args.address!r}: its port answers but no cluster "
                       f"let the driver in within {args.join_seconds:g} s (--join-seconds); is it a Ray head of this "
                       "Ray version?")
            with deadline(args.join_seconds, gave_up) if args.address is not None else contextlib.nullcontext():
                init_ray(args)
        # no cluster there, an address Ray cannot parse, or a cluster that wants another token
        except (ConnectionError, ValueError, AuthenticationError) as error:
            print(f"rllib_train: {cluster_error(args.address, error)}", file=sys.stderr)
            return EXIT_FAILURE
        runs.write_run_args(args)
        if args.resume and not has_checkpoint(args):
            print(f"{args.run_dir} has no checkpoint yet: starting the run over with its arguments")
        train(args)
        table = play_final_tournament(args)
    except KeyboardInterrupt:
        print("\n" + interrupted_hint(args), file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        ray.shutdown()
    if table:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
