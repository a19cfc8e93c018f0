"""Self-play PPO on the batched env: one shared policy plays every seat of thousands of games, and every seat learns.

One readable file (CleanRL style): the `Args` dataclass is the whole configuration (``tyro`` builds the command
line from its fields and their docstrings), then the algorithm from top to bottom. Run it from the repository
root as a module, or from anywhere by its path:

    python -m cardenvs.training.selfplay --env-id clabber_v0
    python -m cardenvs.training.selfplay --env-id gin_slaughtre_v0 --minutes 30 --run-dir runs/selfplay/gin
    python -m cardenvs.training.selfplay --run-dir runs/selfplay/gin --resume

The algorithm:

* ``--num-envs`` games run in lockstep on ``cardenvs.vector_env``. In each game the learning seats are played by
  the current policy; a share of the games (``--league-share``) seats, at every other seat, an opponent drawn from
  the league: the fixed agents of ``--league`` (by default the rule-based and the random agent) and frozen
  snapshots of the policy (one taken every ``--snapshot-every`` decisions, the newest ``--max-snapshots`` kept),
  so that it never forgets how to beat the fixed agents. The other games are pure self-play: every seat learns.
  Seats are split as a tournament splits them between two agents (seat ``s`` to side ``s % 2``), so a learner
  plays a partnership game with its partner.
* Each learning seat's own decisions form its trajectory. A reward that seat ``i`` receives on any step (another
  seat's move, or the end of the game) is credited to seat ``i``'s latest decision; GAE runs along each seat's
  chain of decisions, and a chain still open at the end of a rollout is bootstrapped with the value of what
  that seat sees then (``VectorEnv.observe``). A seat that stops deciding before its game ends (out of Slap for
  good) sees what the value never learns, and its final reward comes rollouts later: ``--carry-open-chains``
  then keeps each open chain's latest decision in the next rollout's buffer, learned from once the seat decides
  again or its game ends (PPO's ratio still against the probability it was sampled with).
* A game cut short by its step limit gives every seat 0. A policy that cannot win yet learns to stall there
  (Stabby Jack's first agent drew 98% of its games against random that way), so ``--truncation-reward``
  (default 0) credits a training reward to every learning seat of a truncated game; the game's own rewards
  are not changed, and tournaments score a draw as 0.
* ``--shaping-view`` adds potential-based reward shaping for training (Ng, Harada & Russell, 1999): the
  potential of what a seat sees is ``--shaping-coef`` times the observer's own entry of that observation view
  (entry 0 of a per-seat view), over the view's upper bound; each decision is credited ``gamma`` times the
  potential at the seat's next decision (0 once its game has ended) minus the potential at this one. Over a game
  the shaping adds up to the opening potential's negative, whatever is played, so it changes no optimal policy;
  it only says sooner whether a decision helped. Slap pays only at the end of games of hundreds of slap windows;
  shaped on ``stack_sizes`` every won or burnt card counts at once. ``--shaping-relative`` takes the observer's
  entry minus the mean of the view's other entries instead: a lead over the others, as on Clabber's team scores,
  where a game to 500 pays only after several hands and shaping credits each hand's points to its decisions.
* Illegal actions are masked out of the policy (their logits set to a large negative number).
* The value head shares the policy's trunk and reads the seat's observation (``--critic observation``, the
  default: the value loss shapes the features the policy uses too). ``--critic global`` makes it a centralised
  critic instead, an MLP of its own over the game's global state (``VectorEnv.global_states``: every hand, as in
  MAPPO) and the seat it values; only the policy, which reads the seat's own observation, ever plays. On Clabber
  the centralised critic learned more slowly per decision (-0.83 and -0.82 against the rule-based agent after
  2M and 4M decisions, where the shared trunk was at -0.65 and -0.34), so it is an option, not the default.
* ``--aux-view`` adds a head on the policy's trunk that learns to predict one or more views of the global state
  (training only: a dense label for a perception task, such as which slap rules the pile matches and whether it
  matches any; ``--aux-seat-views`` turns a view laid out by seat to the deciding seat's side of the table);
  ``--aux-to-policy`` also feeds its predictions, detached, to the policy head.
* After every rollout of ``--num-steps`` env steps, ``--update-epochs`` passes of clipped PPO over the
  decisions collected, in minibatches of ``--minibatch-size``; the learning rate anneals linearly to 0 over the
  run's budget (decisions or minutes, whichever is nearer).
* Checkpoints (network, optimizer, counters, the league's snapshots, the random generator) every
  ``--checkpoint-every`` decisions and on Ctrl-C; ``--resume`` continues from the last one with the arguments
  stored in ``<run-dir>/run.json`` (games in flight are not kept: the resumed run deals new ones).
* TensorBoard logs in ``<run-dir>/tb``, a progress bar, a tournament against the rule-based agent every
  ``--eval-every`` decisions (the learning curve: ``<run-dir>/model.json`` and ``eval/*`` in TensorBoard), and at
  the end ``<run-dir>/model.pt`` (the network alone, loadable as the agent ``ppo:<run-dir>/model.pt``) and a
  tournament of the trained agent against the rule-based and the random agent.

Every argument is checked before anything is built: a bad one ends the script with a one-line message and exit
code 2 (1 when the ``train`` extra is missing).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle OpenMP threads (numba and torch) sleep, not spin

import copy
import dataclasses
import math
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np

if __spec__ is None:  # run by its path: the repository root holds cardenvs, agents and training
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardenvs.training.cli import invocation, registered_env, shown_default, tyro_missing
from cardenvs.training.runs import (
    as_flags,
    flag,
    match_rows,
    match_table,
    settle,
    tournament,
    write_json,
    write_run_args,
)

import cardenvs
from cardenvs.core.game import ObservationLayout

DEFAULT_ENV_ID = "slabberjan_v0"
RUNS_DIR = Path("runs") / "selfplay"
CHECKPOINT_NAME = "checkpoint.pt"
MODEL_NAME = "model.pt"
MODEL_INFO_NAME = "model.json"
TENSORBOARD_DIR = "tb"
#: options a resumed run may take anew (the others must repeat the stored value)
RESUME_MAY_CHANGE = ("total_decisions", "minutes", "checkpoint_every", "eval_every", "eval_games", "final_games",
                     "torch_threads", "progress_bar")
#: a snapshot, a checkpoint and an evaluation this many times per run by default
EVENTS_PER_RUN = 10
#: the league entry that stands for the frozen snapshots of the policy
SNAPSHOTS = "snapshots"
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


@dataclass
class Args:
    """Everything a run depends on. Each field is the ``--option`` of the same name (``_`` written ``-``) and its
    docstring is the option's help (on one line)."""

    env_id: Annotated[str, registered_env(DEFAULT_ENV_ID)] = DEFAULT_ENV_ID
    """the game to train on (default parameters)"""
    total_decisions: int = 20_000_000
    """learner decisions to train for, in all (a resumed run counts those already made)"""
    minutes: float = 0.0
    """stop after this many minutes of training, evaluations not counted (0: no time limit)"""
    num_envs: int = 1024
    """games played in lockstep"""
    num_steps: int = 32
    """env steps per rollout (each game makes one decision per step; the learner's are kept)"""
    minibatch_size: int = 4096
    """decisions per gradient step"""
    update_epochs: int = 2
    """passes over each rollout"""
    learning_rate: float = 1e-3
    """Adam's step size at the start (annealed linearly to 0)"""
    gamma: float = 0.995
    """discount per decision of a seat, in [0, 1]"""
    gae_lambda: float = 0.95
    """GAE's bias/variance trade-off, in [0, 1]"""
    clip_coef: float = 0.2
    """PPO's policy-ratio clip"""
    ent_coef: float = 0.01
    """weight of the entropy bonus (exploration)"""
    ent_anneal: bool = False
    """anneal --ent-coef linearly to 0 with the learning rate, so that the late policy sharpens on decisions whose
    advantage is small"""
    carry_open_chains: bool = False
    """a learning seat's latest decision whose game goes on waits for the next rollout (until the seat decides
    again or the game ends) instead of being bootstrapped with the value of what the seat sees at the rollout's
    end: for games where a seat stops deciding long before its game ends (out of Slap for good), whose
    observations the value never learns and whose final reward would otherwise be lost"""
    vf_coef: float = 0.5
    """weight of the value loss"""
    max_grad_norm: float = 0.5
    """gradients are clipped to this global norm"""
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    """hidden layer sizes of the policy (and of the centralised critic)"""
    critic: Literal["observation", "global"] = "observation"
    """what the value function reads: the global state (a centralised critic) or the seat's observation"""
    league: list[str] = field(default_factory=lambda: ["heuristic", "random", SNAPSHOTS])
    """who sits at the other seats of league games: agent specs (random, heuristic, ppo:PATH) and 'snapshots'"""
    truncation_reward: float = 0.0
    """training reward of each learning seat of a game cut short by its step limit (the game's own is 0)"""
    shaping_view: str = ""
    """observation view whose observer entry (over its upper bound) is a shaping potential, e.g. stack_sizes for
    slap_v0 (training only; empty: no shaping)"""
    shaping_coef: float = 1.0
    """scale of the --shaping-view potential"""
    shaping_relative: bool = False
    """the potential is the observer's entry minus the mean of the view's other entries: a lead over the others,
    for a view such as clabber_v0's team scores (own team first)"""
    aux_view: list[str] = field(default_factory=list)
    """global-state views that an auxiliary head on the policy's trunk learns to predict from the observation,
    e.g. slap_matches slappable for slap_v0 (training only: the agent plays from its observation; none: no head)"""
    aux_seat_views: list[str] = field(default_factory=list)
    """of the --aux-view views, those laid out by seat (a block per seat, seat 0's first), whose blocks are
    turned so that the deciding seat's comes first, then the next seat's, as its observation sees the table"""
    aux_coef: float = 1.0
    """weight of the --aux-view prediction loss (binary cross-entropy per entry, over the view's upper bound)"""
    aux_balance: float = 1.0
    """most weight of a non-zero --aux-view target: each entry's non-zero targets weigh its zeros over its
    non-zeros in the rollout, capped here, so that a rare pattern is learnt as well as a common one (1: unweighted)"""
    aux_to_policy: bool = False
    """the policy head also reads the --aux-view head's predictions (no policy gradient flows into them), so
    that the agent acts on what the head recognises in its observation; the agent then uses the head to play"""
    league_share: float = 0.5
    """share of the games with league opponents, in [0, 1] (the rest: every seat learns)"""
    snapshot_every: Annotated[int | None, shown_default("--total-decisions / 10", "INT")] = None
    """learner decisions between two snapshots of the policy"""
    max_snapshots: int = 5
    """snapshots kept in the league (the oldest leaves first)"""
    checkpoint_every: Annotated[int | None, shown_default("--total-decisions / 10", "INT")] = None
    """learner decisions between two checkpoints"""
    eval_every: Annotated[int | None, shown_default("--total-decisions / 10", "INT")] = None
    """learner decisions between two tournaments against the rule-based agent (0: never)"""
    eval_games: int = 400
    """games per periodic tournament"""
    final_games: int = 4000
    """games of each final tournament (trained vs rule-based, trained vs random; 0 skips them)"""
    run_dir: Annotated[str | None, shown_default(f"{RUNS_DIR.as_posix()}/<env-id>", "PATH")] = None
    """where the run's arguments, checkpoints, logs and final model go"""
    resume: bool = False
    """continue the run in --run-dir (an error if there is none) with its arguments, from its last checkpoint"""
    resume_if_present: bool = False
    """like --resume when --run-dir holds a run, otherwise start a new one"""
    seed: int = 0
    """seed of the games, the network, the league draws and the evaluations"""
    torch_threads: int = 2
    """CPU threads for torch"""
    progress_bar: bool = True
    """show a progress bar"""

    def __post_init__(self) -> None:
        # a run stored before --aux-view took several views holds one name, or "" for none
        if isinstance(self.aux_view, str):
            self.aux_view = [self.aux_view] if self.aux_view else []


# ---------------------------------------------------------------------------------------------- command line
def command() -> str:
    return invocation(__spec__)


def parse_args(argv: Sequence[str] | None = None, defaults: Args | None = None) -> Args:
    """The command line as `Args`; a malformed one exits with tyro's message and code 2."""
    import tyro

    description = ("Self-play PPO on a cardenvs game: every seat of every game learns (see docs/training.md). Of the "
                   f"options of a resumed run only {', '.join(flag(n) for n in RESUME_MAY_CHANGE)} may change.")
    return tyro.cli(Args, args=argv, prog=command(), description=description,
                    default=Args() if defaults is None else defaults)


def resolve(args: Args) -> Args:
    """``args`` with the defaults that depend on others filled in; ValueError for a setting that cannot work."""
    if args.env_id not in cardenvs.available_envs():
        raise ValueError(f"unknown env id {args.env_id!r}; choose from {', '.join(cardenvs.available_envs())}")
    filled = dataclasses.replace(args)
    for name in ("total_decisions", "num_envs", "num_steps", "minibatch_size", "update_epochs", "torch_threads"):
        if getattr(filled, name) < 1:
            raise ValueError(f"{flag(name)} must be at least 1, got {getattr(filled, name)}")
    every = max(1, filled.total_decisions // EVENTS_PER_RUN)
    for name in ("snapshot_every", "checkpoint_every", "eval_every"):
        if getattr(filled, name) is None:
            setattr(filled, name, every)
    for name in ("snapshot_every", "checkpoint_every"):
        if getattr(filled, name) < 1:
            raise ValueError(f"{flag(name)} must be at least 1, got {getattr(filled, name)}")
    for name in ("eval_every", "eval_games", "final_games", "max_snapshots", "seed"):
        if getattr(filled, name) < 0:
            raise ValueError(f"{flag(name)} must be 0 or more, got {getattr(filled, name)}")
    if filled.seed >= 2**63:
        raise ValueError(f"--seed must be below 2**63, got {filled.seed}")
    _check_numbers(filled)
    if not filled.hidden or min(filled.hidden) < 1:
        raise ValueError(f"--hidden must be one or more positive layer sizes, got {filled.hidden}")
    _check_league(filled)
    _check_shaping(filled)
    _check_aux(filled)
    if filled.run_dir is None:
        filled.run_dir = str(RUNS_DIR / filled.env_id)
    if Path(filled.run_dir).exists() and not Path(filled.run_dir).is_dir():
        raise ValueError(f"--run-dir {filled.run_dir} is a file, not a directory")
    return filled


def _check_numbers(filled: Args) -> None:
    for name in ("learning_rate", "clip_coef", "max_grad_norm"):
        if not (math.isfinite(getattr(filled, name)) and getattr(filled, name) > 0):
            raise ValueError(f"{flag(name)} must be a positive number, got {getattr(filled, name)}")
    if not math.isfinite(filled.truncation_reward):
        raise ValueError(f"--truncation-reward must be a finite number, got {filled.truncation_reward}")
    for name in ("gamma", "gae_lambda", "league_share"):
        if not 0 <= getattr(filled, name) <= 1:  # NaN fails too
            raise ValueError(f"{flag(name)} must be in [0, 1], got {getattr(filled, name)}")
    for name in ("ent_coef", "vf_coef", "minutes"):
        if not (math.isfinite(getattr(filled, name)) and getattr(filled, name) >= 0):
            raise ValueError(f"{flag(name)} must be 0 or more, got {getattr(filled, name)}")


def _view_sizes(layout: ObservationLayout, option: str, requested: list[str], where: str) -> dict[str, int]:
    """The size of each view of ``layout`` by name; a ValueError names the first of ``requested`` it lacks."""
    sizes = {view.name: view.size for view in layout.views}
    for name in requested:
        if name not in sizes:
            raise ValueError(f"{option} {name!r} is not a view of {where}; choose from {', '.join(sizes)}")
    return sizes


def _check_shaping(args: Args) -> None:
    if not math.isfinite(args.shaping_coef):
        raise ValueError(f"--shaping-coef must be a finite number, got {args.shaping_coef}")
    if not args.shaping_view:
        if args.shaping_relative:
            raise ValueError("--shaping-relative needs a --shaping-view")
        return
    game = cardenvs.get_game(args.env_id)
    sizes = _view_sizes(game.observation_layout(game.make_params()), "--shaping-view", [args.shaping_view],
                        f"{args.env_id}'s observation")
    if args.shaping_relative and sizes[args.shaping_view] < 2:
        raise ValueError(f"--shaping-relative compares the observer's entry with the others, but "
                         f"{args.shaping_view!r} has one entry")


def _check_aux(args: Args) -> None:
    if not (math.isfinite(args.aux_coef) and args.aux_coef >= 0):
        raise ValueError(f"--aux-coef must be 0 or more, got {args.aux_coef}")
    if not (math.isfinite(args.aux_balance) and args.aux_balance >= 1):
        raise ValueError(f"--aux-balance must be 1 or more, got {args.aux_balance}")
    if not args.aux_view:
        if args.aux_to_policy:
            raise ValueError("--aux-to-policy needs an --aux-view whose predictions the policy reads")
        return
    from cardenvs.core.global_state import state_layout

    game = cardenvs.get_game(args.env_id)
    sizes = _view_sizes(state_layout(game, game.make_params()), "--aux-view", args.aux_view,
                        f"{args.env_id}'s global state")
    if len(set(args.aux_view)) < len(args.aux_view):
        raise ValueError(f"--aux-view names a view twice: {' '.join(args.aux_view)}")
    players = game.num_players(game.make_params())
    for view in args.aux_seat_views:
        if view not in args.aux_view:
            raise ValueError(f"--aux-seat-views {view!r} is not one of the --aux-view views")
        if sizes[view] % players:
            raise ValueError(f"--aux-seat-views {view!r} has {sizes[view]} entries, not a block per seat of "
                             f"{args.env_id}'s {players} seats")


def _check_league(args: Args) -> None:
    from cardenvs.agents.registry import check_spec

    if args.league_share > 0 and not args.league:
        raise ValueError("--league needs at least one entry while --league-share is above 0")
    for spec in args.league:
        if spec == SNAPSHOTS:
            if args.max_snapshots == 0:
                raise ValueError(f"--league {SNAPSHOTS} needs --max-snapshots of at least 1")
            continue
        check_spec(spec)
        kind, _, path = spec.partition(":")
        if kind == "human":
            raise ValueError("--league: a human cannot play training games; use random, heuristic or ppo:PATH")
        if kind in ("ppo", "rllib") and not Path(path).exists():
            raise ValueError(f"--league {spec}: nothing at {path}")


def settle_args(argv: Sequence[str] | None) -> Args:
    """The arguments of this invocation: the command line's, or those of the run it resumes."""
    given = parse_args(argv)
    run_dir = Path(given.run_dir) if given.run_dir is not None else RUNS_DIR / given.env_id
    return settle(given, lambda defaults: parse_args(argv, defaults), run_dir, RESUME_MAY_CHANGE)


# ---------------------------------------------------------------------------------------------- the trainer
def aux_positive_weights(target: Any, cap: float) -> Any:
    """Per entry of an --aux-view target ``[B, K]`` (torch, in [0, 1]): the weight of its non-zero targets in the
    prediction loss, its zeros over its non-zeros in the batch, between 1 and ``cap`` (an entry with no non-zero
    target counts one: its weight then has nothing to weigh)."""
    nonzero = (target > 0).sum(0).to(target.dtype)
    return ((len(target) - nonzero) / nonzero.clamp(min=1)).clamp(1.0, cap)


class Timers:
    """Wall seconds spent per part of the loop, for the report of where the time goes."""

    PARTS = ("env", "opponents", "forward", "bookkeeping", "update")

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(self.PARTS, 0.0)
        self._last = time.perf_counter()

    def lap(self, part: str) -> None:
        now = time.perf_counter()
        self.seconds[part] += now - self._last
        self._last = now


class Trainer:
    """A run in ``args.run_dir``: the games, the league, the network and its optimizer, the periodic events."""

    def __init__(self, args: Args):
        import torch as th
        from cardenvs.agents.registry import make_agent
        from cardenvs.agents.selfplay import input_scale

        from cardenvs.core.global_state import state_layout

        th.set_num_threads(args.torch_threads)
        self.args = args
        self.dir = Path(args.run_dir)
        self.venv = cardenvs.vector_env(args.env_id, num_envs=args.num_envs)
        self.num_players = self.venv.num_players
        self.layout = self.venv.layout
        self.central = args.critic == "global"
        # the --shaping-view's entries [start, stop) (None: no shaping); the observer's own entry comes first
        self.shaping_entries = self.layout.offsets[args.shaping_view] if args.shaping_view else None
        self.shaping_high = (next(v.high for v in self.layout.views if v.name == args.shaping_view)
                             if args.shaping_view else 1.0)
        self.scales = (input_scale(self.layout),
                       input_scale(state_layout(self.venv.game, self.venv.params)) if self.central else None)
        # per deciding seat, the global-state entries of the --aux-view views in the given order: [seats, K]
        self.aux_index = np.zeros((self.num_players, 0), np.int64)
        self.aux_scale = None
        if args.aux_view:
            global_layout = state_layout(self.venv.game, self.venv.params)
            self.aux_index = np.stack([self.aux_entries(global_layout, seat) for seat in range(self.num_players)])
            # a view has one upper bound, so turning its seat blocks leaves the scales as seat 0's
            self.aux_scale = input_scale(global_layout)[self.aux_index[0]]
        th.manual_seed(args.seed)
        self.network = self.new_network()
        self.optimizer = th.optim.Adam(self.network.parameters(), lr=args.learning_rate, eps=1e-5)
        self.fixed = {spec: make_agent(spec, args.env_id, self.layout, seed=args.seed + k)
                      for k, spec in enumerate(args.league) if spec != SNAPSHOTS}
        self.snapshots: list[tuple[int, dict]] = []  # (decisions when taken, network weights)
        self.decisions = 0
        self.updates = 0
        self.train_seconds = 0.0
        self.evaluations: list[dict[str, Any]] = []
        self.last = {"snapshot": 0, "checkpoint": 0, "evaluation": 0}
        self.rng = np.random.default_rng(args.seed)
        self.timers = Timers()
        self.resumed = (self.dir / CHECKPOINT_NAME).is_file() and args.resume
        if self.resumed:
            self._load_checkpoint()

    def aux_entries(self, global_layout: ObservationLayout, seat: int) -> np.ndarray:
        """The global-state entries the auxiliary head predicts for a decision of ``seat``: each --aux-view view
        in order, a --aux-seat-views view with its seat blocks turned to start at ``seat``."""
        parts = []
        for view in self.args.aux_view:
            start, stop = global_layout.offsets[view]
            entries = np.arange(start, stop)
            if view in self.args.aux_seat_views:
                entries = np.roll(entries.reshape(self.num_players, -1), -seat, axis=0).ravel()
            parts.append(entries)
        return np.concatenate(parts)

    def new_network(self):
        """A freshly initialised network of this run's shape."""
        from cardenvs.agents.selfplay import MaskedActorCritic

        return MaskedActorCritic(self.scales[0], self.venv.num_actions, self.args.hidden, self.scales[1],
                                 self.num_players, self.aux_index.shape[1], self.args.aux_to_policy)

    # ------------------------------------------------------------------ league
    def league_agents(self) -> tuple[list, list[str]]:
        """The league's agents now (snapshots as sampling copies of the policy) and each one's league entry."""
        from cardenvs.agents.selfplay import SelfPlayAgent

        agents, entries = [], []
        for spec in self.args.league:
            if spec != SNAPSHOTS:
                agents.append(self.fixed[spec])
                entries.append(spec)
                continue
            for decisions, weights in self.snapshots:
                network = self.new_network()
                network.load_state_dict(weights)
                agents.append(SelfPlayAgent(network, deterministic=False, name=f"snapshot_{decisions}",
                                            seed=self.args.seed + decisions))
                entries.append(SNAPSHOTS)
        return agents, entries

    def draw_seating(self, rows: np.ndarray, learner: np.ndarray, opponent: np.ndarray, entries: list[str]) -> None:
        """New seats for the games at ``rows``: learning seats (``learner[i, s]``) and the league opponent index.

        A league game's opponent is drawn with equal chance per league entry (all snapshots together count as
        one entry) and takes the seats of one side (``s % 2``, the side drawn); a self-play game is all learner.
        """
        if rows.size == 0:
            return
        seats = np.arange(self.num_players)
        side = self.rng.integers(0, 2, rows.size)
        league_game = self.rng.random(rows.size) < self.args.league_share if entries else np.zeros(rows.size, bool)
        names = sorted(set(entries), key=entries.index)
        entry = self.rng.integers(0, max(len(names), 1), rows.size)
        pick = np.full(rows.size, -1)
        for k, name in enumerate(names):
            members = np.flatnonzero(np.array(entries) == name)
            chosen = league_game & (entry == k)
            pick[chosen] = self.rng.choice(members, int(chosen.sum()))
        learner[rows] = ~league_game[:, None] | ((seats[None, :] % 2) == side[:, None])
        opponent[rows] = pick

    # ------------------------------------------------------------------ the loop
    def train(self) -> None:
        """Learn until the budget (decisions or minutes) is spent, with the periodic events; then save the model."""
        import torch as th
        from cardenvs.agents.base import act_on_rows
        from torch.utils.tensorboard import SummaryWriter
        from tqdm.auto import tqdm

        args, venv = self.args, self.venv
        n, players, steps = args.num_envs, self.num_players, args.num_steps
        rows = np.arange(n)
        size, num_actions = self.layout.size, venv.num_actions
        # With --carry-open-chains, rows 0 … players-1 hold each seat's decision carried over from the last
        # rollout (row s: seat s's); the rollout's own steps follow them.
        carry = players if args.carry_open_chains else 0
        rows_total = carry + steps
        writer = SummaryWriter(str(self.dir / TENSORBOARD_DIR))
        bar = tqdm(total=args.total_decisions, initial=min(self.decisions, args.total_decisions), unit="dec",
                   disable=not args.progress_bar, dynamic_ncols=True, desc=args.env_id)
        # A resumed run deals new games: the seed moves on with the updates done.
        obs, masks, current = venv.reset(seed=cardenvs.game_seed(args.seed, self.updates))
        league, entries = self.league_agents()
        learner = np.zeros((n, players), bool)
        opponent = np.full(n, -1)
        self.draw_seating(rows, learner, opponent, entries)
        last_decision = np.full((n, players), -1)  # buffer row of each seat's latest decision (-1: none open)
        returns = np.zeros((n, players), np.float32)  # each seat's reward so far in its game, for the logs
        buffer_obs = np.zeros((rows_total, n, size), np.float32)
        buffer_mask = np.zeros((rows_total, n, num_actions), bool)
        buffer_action = np.zeros((rows_total, n), np.int64)
        buffer_logprob = np.zeros((rows_total, n), np.float32)
        buffer_value = np.zeros((rows_total, n), np.float32)
        buffer_reward = np.zeros((rows_total, n), np.float32)
        buffer_done = np.zeros((rows_total, n), bool)  # the game ended before this seat decided again
        buffer_next = np.zeros((rows_total, n), np.int64)  # step of this seat's next decision in the rollout (-1: none)
        buffer_seat = np.zeros((rows_total, n), np.int64)
        buffer_valid = np.zeros((rows_total, n), bool)  # a learner decision was made here
        critic_size = len(self.network.critic_scale) if self.central else 0
        buffer_critic = np.zeros((rows_total, n, critic_size), np.float32)  # the centralised critic's inputs
        aux_size = self.aux_index.shape[1]
        buffer_aux = np.zeros((rows_total, n, aux_size), np.float32)  # the --aux-view's targets, in [0, 1]
        actions = np.zeros(n, np.int64)
        started = time.monotonic() - self.train_seconds
        finished = {}  # league entry (or "self-play") -> learner returns of games ended since the last log
        self.timers = Timers()
        buffers = (buffer_obs, buffer_mask, buffer_action, buffer_logprob, buffer_value, buffer_reward, buffer_seat,
                   buffer_critic, buffer_aux)
        while not self.budget_spent(started):
            carried = self.carry_over(buffers, last_decision, carry)
            buffer_valid[:] = False
            buffer_valid[carried[1], carried[0]] = True
            buffer_reward[carry:] = 0
            buffer_done[:] = False
            buffer_next[:] = -1
            for t in range(carry, rows_total):
                seat = current.copy()
                mine = learner[rows, seat]
                picked = np.flatnonzero(mine)
                critic_input = None
                states = venv.global_states() if aux_size or self.central else None  # encoded once a step
                if aux_size:
                    buffer_aux[t, picked] = states[picked[:, None], self.aux_index[seat[picked]]] * self.aux_scale
                if self.central:
                    buffer_critic[t, picked] = self.network.critic_input(states[picked], seat[picked], players)
                    critic_input = th.from_numpy(buffer_critic[t, picked])
                self.timers.lap("bookkeeping")
                with th.inference_mode():
                    logits, value = self.network(th.from_numpy(obs[picked]), th.from_numpy(masks[picked] != 0),
                                                 critic_input)
                    chosen = th.distributions.Categorical(logits=logits).sample()
                    logprob = th.log_softmax(logits, 1).gather(1, chosen[:, None]).squeeze(1)
                self.timers.lap("forward")
                actions[picked] = chosen.numpy()
                buffer_obs[t, picked] = obs[picked]
                buffer_mask[t, picked] = masks[picked] != 0
                buffer_action[t, picked] = actions[picked]
                buffer_logprob[t, picked] = logprob.numpy()
                buffer_value[t, picked] = value.numpy()
                buffer_seat[t, picked] = seat[picked]
                buffer_valid[t, picked] = True
                previous = last_decision[picked, seat[picked]]
                linked = previous >= 0
                buffer_next[previous[linked], picked[linked]] = t
                last_decision[picked, seat[picked]] = t
                self.timers.lap("bookkeeping")
                seating = np.where(learner, -1, opponent[:, None])
                act_on_rows(league, seating, obs, masks, seat, actions)
                self.timers.lap("opponents")
                obs, masks, current, rewards, terminated, truncated = venv.step(actions)
                self.timers.lap("env")
                returns += rewards
                ended = self.credit(buffer_reward, buffer_done, learner, last_decision, rewards, terminated,
                                    truncated)
                if ended.size:
                    for i in ended:
                        name = "self-play" if opponent[i] < 0 else entries[opponent[i]]
                        finished.setdefault(name, []).append(float(returns[i, learner[i]].mean()))
                    last_decision[ended] = -1
                    returns[ended] = 0
                    self.draw_seating(ended, learner, opponent, entries)
                self.timers.lap("bookkeeping")
            made = int(buffer_valid[carry:].sum())
            used = buffer_valid.copy()  # the decisions this update learns from
            if carry:
                # open chains wait for the next rollout; their predecessors bootstrap on their stored values
                game, seat = np.nonzero(last_decision >= 0)
                used[last_decision[game, seat], game] = False
                bootstrap = bootstrap_potential = np.zeros((n, players), np.float32)
            else:
                bootstrap, bootstrap_potential = self.bootstrap_values(learner, last_decision)
            shaped = self.shaped_rewards(buffer_obs, buffer_reward, buffer_done, buffer_next, buffer_seat,
                                         bootstrap_potential)
            advantages = self.advantages(buffer_value, shaped, buffer_done, buffer_next, buffer_seat, used, bootstrap)
            self.timers.lap("bookkeeping")
            stats = self.update(buffer_obs[used], buffer_mask[used], buffer_critic[used], buffer_action[used],
                                buffer_logprob[used], buffer_value[used], advantages[used], started, buffer_aux[used])
            self.timers.lap("update")
            self.decisions += made
            self.updates += 1
            self.train_seconds = time.monotonic() - started
            bar.update(min(made, max(0, args.total_decisions - bar.n)))
            self.log(writer, stats, finished)
            finished = {}
            paused = time.monotonic()
            if self.periodic_events():
                league, entries = self.league_agents()
                self.draw_seating(rows[opponent >= 0], learner, opponent, entries)  # no game keeps a stale index
                last_decision[:] = -1
                returns[:] = 0
            started += time.monotonic() - paused  # events are not training time
            self.timers.lap("bookkeeping")
        bar.close()
        writer.close()
        self.checkpoint()
        self.save_model()

    @staticmethod
    def carry_over(buffers: Sequence[np.ndarray], last_decision: np.ndarray, carry: int
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Start a rollout: with ``carry`` leading rows (--carry-open-chains), move each open chain's latest
        decision (every buffer's row, the rewards credited to it so far included) to its seat's carry row and
        point ``last_decision`` there; without, close every chain. Returns the carried ``(games, seats)``."""
        if not carry:
            last_decision[:] = -1
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        game, seat = np.nonzero(last_decision >= 0)
        source = last_decision[game, seat]
        for buffer in buffers:
            buffer[seat, game] = buffer[source, game]  # fancy indexing reads every source before writing
        last_decision[game, seat] = seat
        return game, seat

    def credit(self, reward, done, learner, last_decision, rewards, terminated, truncated) -> np.ndarray:
        """Credit one step's rewards ``[N, P]`` to each learning seat's latest decision in ``reward`` ``[T, N]``,
        mark the last decision of each seat of a game that ended as ``done``, and add ``--truncation-reward`` to
        those of truncated games. Returns the games that ended."""
        game, who = np.nonzero(learner & (rewards != 0) & (last_decision >= 0))
        reward[last_decision[game, who], game] += rewards[game, who]
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            game, who = np.nonzero(learner[ended] & (last_decision[ended] >= 0))
            game = ended[game]
            done[last_decision[game, who], game] = True
            cut = truncated[game]
            reward[last_decision[game[cut], who[cut]], game[cut]] += self.args.truncation_reward
        return ended

    def budget_spent(self, started: float) -> bool:
        over_time = self.args.minutes > 0 and time.monotonic() - started >= 60 * self.args.minutes
        return self.decisions >= self.args.total_decisions or over_time

    def progress(self, started: float) -> float:
        """How much of the budget is spent, in [0, 1]: decisions or minutes, whichever is further along."""
        share = self.decisions / self.args.total_decisions
        if self.args.minutes > 0:
            share = max(share, (time.monotonic() - started) / (60 * self.args.minutes))
        return min(share, 1.0)

    def schedule(self, started: float) -> tuple[float, float]:
        """The learning rate and the entropy weight now: the rate anneals linearly to 0 over the budget, and the
        entropy weight with it under --ent-anneal."""
        remaining = 1.0 - self.progress(started)
        args = self.args
        return args.learning_rate * remaining, args.ent_coef * (remaining if args.ent_anneal else 1.0)

    def potential(self, obs: np.ndarray) -> np.ndarray:
        """The shaping potential of observations ``[..., size]`` (zeros without ``--shaping-view``)."""
        if self.shaping_entries is None:
            return np.zeros(obs.shape[:-1], np.float32)
        start, stop = self.shaping_entries
        value = obs[..., start]
        if self.args.shaping_relative:
            value = value - obs[..., start + 1 : stop].mean(axis=-1)
        return (self.args.shaping_coef / self.shaping_high) * value

    def shaped_rewards(self, obs, reward, done, next_step, seat, bootstrap_potential) -> np.ndarray:
        """``reward[t]`` plus ``gamma * potential(next decision) - potential(this one)`` along each seat's chain,
        ``[T, N]``; the potential after a game's end is 0, and an open chain's next one is what it sees now."""
        if self.shaping_entries is None:
            return reward
        steps, n = reward.shape
        games = np.arange(n)
        potential = self.potential(obs)
        shaped = reward.copy()
        for t in range(steps):
            has_next = next_step[t] >= 0
            following = np.where(has_next, potential[np.where(has_next, next_step[t], 0), games],
                                 bootstrap_potential[games, seat[t]])
            shaped[t] += self.args.gamma * following * ~done[t] - potential[t]
        return shaped

    def bootstrap_values(self, learner: np.ndarray, last_decision: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``[N, P]`` twice: the value and the shaping potential of what each seat with an open chain of decisions
        sees now (0 elsewhere)."""
        import torch as th

        values = np.zeros(learner.shape, np.float32)
        potentials = np.zeros(learner.shape, np.float32)
        open_chain = learner & (last_decision >= 0)
        states = self.venv.global_states() if self.central else None
        for seat in range(self.num_players):
            games = np.flatnonzero(open_chain[:, seat])
            if games.size == 0:
                continue
            obs, _ = self.venv.observe(np.full(self.args.num_envs, seat))
            critic_input = None
            if self.central:
                critic_input = th.from_numpy(self.network.critic_input(states[games], np.full(games.size, seat),
                                                                       self.num_players))
            with th.inference_mode():
                values[games, seat] = self.network.value(th.from_numpy(obs[games]), critic_input).numpy()
            potentials[games, seat] = self.potential(obs[games])
        return values, potentials

    def advantages(self, value, reward, done, next_step, seat, valid, bootstrap) -> np.ndarray:
        """GAE along each seat's chain of decisions, ``[T, N]`` (0 where no learner decided)."""
        args = self.args
        steps, n = value.shape
        games = np.arange(n)
        advantages = np.zeros_like(value)
        for t in reversed(range(steps)):
            has_next = next_step[t] >= 0
            later = np.where(has_next, next_step[t], 0)
            next_value = np.where(has_next, value[later, games], bootstrap[games, seat[t]])
            next_advantage = np.where(has_next, advantages[later, games], 0.0)
            going_on = ~done[t]
            delta = reward[t] + args.gamma * next_value * going_on - value[t]
            advantages[t] = np.where(valid[t], delta + args.gamma * args.gae_lambda * going_on * next_advantage, 0.0)
        return advantages

    def update(self, obs, mask, critic_input, action, old_logprob, old_value, advantage, started,
               aux_target=None) -> dict[str, float]:
        """``--update-epochs`` passes of clipped PPO over one rollout's learner decisions (with the --aux-view
        prediction loss when ``aux_target`` has entries)."""
        import torch as th

        args = self.args
        learning_rate, ent_coef = self.schedule(started)
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate
        obs, mask, action = th.from_numpy(obs), th.from_numpy(mask), th.from_numpy(action)
        critic_input = th.from_numpy(critic_input)
        old_logprob, old_value = th.from_numpy(old_logprob), th.from_numpy(old_value)
        advantage = th.from_numpy(advantage)
        target = advantage + old_value
        # Normalised over the whole rollout, not per minibatch: a last minibatch of one decision would divide by
        # its standard deviation of NaN and poison every weight.
        advantage = (advantage - advantage.mean()) / (advantage.std(unbiased=False) + 1e-8)
        samples = len(action)
        totals = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "clip_fraction": 0.0}
        with_aux = aux_target is not None and aux_target.shape[1] > 0
        if with_aux:
            aux_target = th.from_numpy(aux_target)
            aux_weight = aux_positive_weights(aux_target, args.aux_balance)
            totals["aux_loss"] = 0.0
        batches = 0
        for _ in range(args.update_epochs):
            order = th.randperm(samples)
            for start in range(0, samples, args.minibatch_size):
                batch = order[start:start + args.minibatch_size]
                critic_batch = critic_input[batch] if self.central else None
                if with_aux:
                    logits, value, aux_logits = self.network.forward_aux(obs[batch], mask[batch], critic_batch)
                else:
                    logits, value = self.network(obs[batch], mask[batch], critic_batch)
                logprobs = th.log_softmax(logits, 1)
                ratio = (logprobs.gather(1, action[batch, None]).squeeze(1) - old_logprob[batch]).exp()
                adv = advantage[batch]
                policy_loss = th.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                value_loss = 0.5 * (value - target[batch]).square().mean()
                entropy = -(logprobs.exp() * logprobs).sum(1).mean()
                loss = policy_loss + args.vf_coef * value_loss - ent_coef * entropy
                if with_aux:
                    aux_loss = th.nn.functional.binary_cross_entropy_with_logits(aux_logits, aux_target[batch],
                                                                                 pos_weight=aux_weight)
                    loss = loss + args.aux_coef * aux_loss
                    totals["aux_loss"] += aux_loss.item()
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.network.parameters(), args.max_grad_norm)
                self.optimizer.step()
                totals["policy_loss"] += policy_loss.item()
                totals["value_loss"] += value_loss.item()
                totals["entropy"] += entropy.item()
                totals["clip_fraction"] += float(((ratio - 1).abs() > args.clip_coef).float().mean())
                batches += 1
        return {name: total / max(batches, 1) for name, total in totals.items()}

    # ------------------------------------------------------------------ events, files
    def log(self, writer, stats: dict[str, float], finished: dict[str, list[float]]) -> None:
        for name, value in stats.items():
            writer.add_scalar(f"train/{name}", value, self.decisions)
        writer.add_scalar("train/decisions_per_second", self.decisions / max(self.train_seconds, 1e-9),
                          self.decisions)
        for name, returns in finished.items():
            writer.add_scalar(f"games/return_vs_{name}", float(np.mean(returns)), self.decisions)
        total = sum(self.timers.seconds.values()) or 1.0
        for part, seconds in self.timers.seconds.items():
            writer.add_scalar(f"time/{part}_share", seconds / total, self.decisions)

    def periodic_events(self) -> bool:
        """Snapshot, evaluate, checkpoint when due; True when the league changed."""
        args, changed = self.args, False
        if SNAPSHOTS in args.league and self.decisions - self.last["snapshot"] >= args.snapshot_every:
            self.snapshots = (self.snapshots + [(self.decisions, copy.deepcopy(self.network.state_dict()))])
            self.snapshots = self.snapshots[-args.max_snapshots:]
            self.last["snapshot"] = self.decisions
            changed = True
        if args.eval_every and args.eval_games and self.decisions - self.last["evaluation"] >= args.eval_every:
            self.evaluate()
        if self.decisions - self.last["checkpoint"] >= args.checkpoint_every:
            self.checkpoint()
        return changed

    def agent(self, name: str = "trained"):
        """The current policy as a deterministic agent (a copy: training does not change it)."""
        from cardenvs.agents.selfplay import SelfPlayAgent

        return SelfPlayAgent(copy.deepcopy(self.network), name=name)

    def evaluate(self) -> None:
        """A tournament of the policy against the rule-based agent: one point of the learning curve."""
        stats = tournament(self.args.env_id, [self.agent(), "heuristic"], self.args.eval_games,
                           seed=self.args.seed + self.decisions,
                           results_path=self.dir / "tournaments" / f"eval_{self.decisions}.jsonl")
        trained, heuristic = stats["trained"], stats["heuristic"]
        point = {"decisions": self.decisions, "train_seconds": round(self.train_seconds, 1),
                 "mean_reward": trained.mean_reward, "ci95": trained.ci95, "win_rate": trained.win_rate,
                 "heuristic_mean_reward": heuristic.mean_reward}
        self.evaluations.append(point)
        self.last["evaluation"] = self.decisions
        from torch.utils.tensorboard import SummaryWriter

        with SummaryWriter(str(self.dir / TENSORBOARD_DIR)) as writer:
            writer.add_scalar("eval/mean_reward_vs_heuristic", trained.mean_reward, self.decisions)
            writer.add_scalar("eval/win_rate_vs_heuristic", trained.win_rate, self.decisions)

    def checkpoint(self) -> None:
        """Everything the run needs to go on, replaced whole (an interruption leaves the old one)."""
        import torch as th

        self.dir.mkdir(parents=True, exist_ok=True)
        partial = self.dir / ("partial_" + CHECKPOINT_NAME)
        th.save({"network": self.network.state_dict(), "optimizer": self.optimizer.state_dict(),
                 "decisions": self.decisions, "updates": self.updates, "train_seconds": self.train_seconds,
                 "evaluations": self.evaluations, "last": self.last, "snapshots": self.snapshots,
                 "rng": self.rng.bit_generator.state, "timers": self.timers.seconds}, partial)
        os.replace(partial, self.dir / CHECKPOINT_NAME)
        self.last["checkpoint"] = self.decisions

    def _load_checkpoint(self) -> None:
        import torch as th

        saved = th.load(self.dir / CHECKPOINT_NAME, map_location="cpu", weights_only=False)
        self.network.load_state_dict(saved["network"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self.decisions, self.updates = saved["decisions"], saved["updates"]
        self.train_seconds, self.evaluations = saved["train_seconds"], saved["evaluations"]
        self.last, self.snapshots = saved["last"], saved["snapshots"]
        self.rng.bit_generator.state = saved["rng"]
        self.timers.seconds.update(saved["timers"])

    def info(self) -> dict[str, Any]:
        """How the model was trained: what model.json holds."""
        import torch as th

        total = sum(self.timers.seconds.values()) or 1.0
        return {
            "env_id": self.args.env_id, "trainer": "training/selfplay.py", "decisions": self.decisions,
            "train_seconds": round(self.train_seconds, 1),
            "decisions_per_second": round(self.decisions / max(self.train_seconds, 1e-9)),
            "time_shares": {part: round(s / total, 3) for part, s in self.timers.seconds.items()},
            "args": dataclasses.asdict(self.args),
            "command": " ".join([command(), *map(shlex.quote, as_flags(self.args))]),
            "evaluations": self.evaluations,
            "versions": {"cardenvs": cardenvs.__version__, "torch": th.__version__},
        }

    def save_model(self) -> None:
        """The network alone (``model.pt``, small) and how it was trained (``model.json``)."""
        from cardenvs.agents.selfplay import save_model

        params = dataclasses.asdict(self.venv.params)
        save_model(self.dir / MODEL_NAME, self.network, {
            "env_id": self.args.env_id, "params": params, "observation_size": self.layout.size,
            "num_actions": self.venv.num_actions, "hidden": list(self.args.hidden), "num_players": self.num_players,
            "critic": self.args.critic, "aux_to_policy": self.args.aux_to_policy})
        write_json(self.dir / MODEL_INFO_NAME, self.info())

    def final_tournament(self) -> str | None:
        """The trained agent against the rule-based agent and against random, each a duplicate-deal match."""
        from cardenvs.agents.selfplay import SelfPlayAgent

        if self.args.final_games <= 0:
            return None
        agent = SelfPlayAgent.load(self.dir / MODEL_NAME, self.args.env_id, self.layout, self.venv.num_actions)
        agent.name = "trained"
        seed = self.args.seed + 1
        lines = [f"{self.args.env_id}: {self.args.final_games} games per match, seed {seed}"]
        matches = []
        for other in ("heuristic", "random"):
            path = self.dir / "tournaments" / f"final_{other}.jsonl"
            path.unlink(missing_ok=True)  # the model was just saved: always a fresh tournament
            stats = tournament(self.args.env_id, [agent, other], self.args.final_games, seed=seed, results_path=path)
            rows = match_rows(stats)
            matches.append({"agents": ["trained", other], "results": rows})
            lines += match_table('trained vs ' + other, rows)
        info = self.info()
        info["tournament"] = {"games": self.args.final_games, "seed": seed, "matches": matches}
        write_json(self.dir / MODEL_INFO_NAME, info)
        return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, check every argument, train, print the final tournament; the exit code."""
    missing = tyro_missing("train")
    if missing:
        print(f"error: {command()} {missing}", file=sys.stderr)
        return EXIT_FAILURE
    try:
        args = resolve(settle_args(argv))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        import torch  # noqa: F401
    except ImportError:
        print(f"error: {command()} needs the 'train' extra (torch); install it with: pip install \"cardenvs[train]\"",
              file=sys.stderr)
        return EXIT_FAILURE
    trainer = None
    try:
        write_run_args(args)
        trainer = Trainer(args)
        budget = f"{args.total_decisions} decisions" + (f" or {args.minutes:g} minutes" if args.minutes else "")
        print(f"training {args.env_id} for {budget} in {trainer.dir}"
              + (f" (resumed at {trainer.decisions})" if trainer.resumed else ""))
        trainer.train()
        print(f"saved {trainer.dir / MODEL_NAME} after {trainer.decisions} decisions "
              f"({trainer.train_seconds:.0f} s, {trainer.decisions / max(trainer.train_seconds, 1e-9):,.0f}/s)")
        table = trainer.final_tournament()
    except KeyboardInterrupt:
        again = f"{command()} --run-dir {shlex.quote(args.run_dir)} --resume"
        if trainer is not None:
            trainer.checkpoint()
            print(f"\ninterrupted; saved a checkpoint at {trainer.decisions} decisions; continue with: {again}",
                  file=sys.stderr)
        else:
            print(f"\ninterrupted before training began; start again with: {again}", file=sys.stderr)
        return EXIT_INTERRUPTED
    if table:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
