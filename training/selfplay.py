"""Self-play PPO on the batched env: one shared policy plays every seat of thousands of games, and every seat learns.

``cardenvs train GAME [options]`` trains by GAME's recipe (:mod:`~cardenvs.training.recipes`). Top to bottom: the
options; the rollout (``--num-envs`` games in lockstep, a ``--league-share`` of them with a league opponent on one
side of the table); the per-seat credit (a reward goes to the seat's latest decision) and GAE along each seat's chain
of decisions; the clipped PPO update on ``--device``; the league of fixed agents and snapshots; checkpoint and resume;
last, the command line, whose output names each phase of a run (start-up, training with its progress, the final
matches with their size). A recipe's extensions (``shaping``: rewards before GAE; ``auxiliary``: a head and a loss
term; ``search_targets``: a search's policy as a loss term; ``kickstart``: a teacher's choices as a loss term early
in the run; ``open_chains``: decisions that wait for the next rollout), the run shell (``runs``) and what the
trainers' command lines share (``cli``) are modules below this one; nothing below imports it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle OpenMP threads (numba and torch) sleep, not spin

import copy
import dataclasses
import math
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np

import cardenvs
from cardenvs.core.rng import offset_seed
from cardenvs.training import cli, open_chains, runs
from cardenvs.training.auxiliary import AuxiliaryTask
from cardenvs.training.kickstart import NO_ACTION, Kickstarter, teacher_loss
from cardenvs.training.league import draw_seating
from cardenvs.training.recipes import Recipe, recipe
from cardenvs.training.search_targets import SearchTeacher, cross_entropy
from cardenvs.training.shaping import Potential

PROG = "cardenvs train"
RUNS_DIR = Path("runs") / "selfplay"
CHECKPOINT_NAME, MODEL_NAME = "checkpoint.pt", "model.pt"
#: the parts of the loop whose time is measured
TIME_PARTS = ("env", "opponents", "forward", "search", "teacher", "bookkeeping", "update")
#: the trainer's state a checkpoint keeps besides the network, the optimizer, the random generator and the timers
RUN_STATE = ("decisions", "updates", "train_seconds", "evaluations", "last", "snapshots")


@dataclass
class Args(cli.PPOOptions):
    """The core options: the PPO options (:class:`~cardenvs.training.cli.PPOOptions`, with their defaults here),
    then the run's; each field is the ``--option`` of the same name and its docstring the option's help."""

    total_decisions: int = 20_000_000
    """learner decisions to train for, in all (a resumed run counts those already made)"""
    minutes: float = 0.0
    """stop after this many minutes of training, evaluations not counted (0: no time limit)"""
    num_envs: int = 1024
    """games played in lockstep"""
    num_steps: int = 32
    """env steps per rollout (each game makes one decision per step; the learner's are kept)"""
    league: list[str] = field(default_factory=lambda: ["heuristic", "random", runs.SNAPSHOTS])
    """who sits at the other seats of league games: agent specs (random, heuristic, ppo:PATH) and 'snapshots'"""
    league_share: float = 0.5
    """share of the games with league opponents, in [0, 1] (the rest: every seat learns)"""
    snapshot_every: Annotated[int | None, cli.shown_default(runs.PERIODIC_DEFAULT, "INT")] = None
    """learner decisions between two snapshots of the policy"""
    max_snapshots: int = 5
    """snapshots kept in the league (the oldest leaves first)"""
    truncation_reward: float = 0.0
    """training reward of each learning seat of a game cut short by its step limit (the game's own is 0)"""
    checkpoint_every: Annotated[int | None, cli.shown_default(runs.PERIODIC_DEFAULT, "INT")] = None
    """learner decisions between two checkpoints"""
    eval_every: Annotated[int | None, cli.shown_default(runs.PERIODIC_DEFAULT, "INT")] = None
    """learner decisions between two tournaments against the rule-based agent (0: never)"""
    eval_games: int = 400
    """games per periodic tournament"""
    final_games: int = 4000
    """games of each final tournament (trained vs rule-based, trained vs random; 0 skips them)"""
    run_dir: Annotated[str | None, cli.shown_default(f"{RUNS_DIR.as_posix()}/GAME", "PATH")] = None
    """where the run's arguments, checkpoints, logs and final model go"""
    resume: bool = False
    """continue the run in --run-dir (an error if there is none) with its arguments, from its last checkpoint"""
    resume_if_present: bool = False
    """like --resume when --run-dir holds a run, otherwise start a new one"""
    seed: int = 0
    """seed of the games, the network, the league draws and the evaluations, from 0 to 2**64-1"""
    torch_threads: int = 2
    """CPU threads for torch"""
    device: Literal["auto", "cpu", "cuda"] = "auto"
    """where the network learns and picks the learner's actions (auto: cuda when torch sees one, else cpu)"""
    progress_bar: bool = True
    """show a progress bar"""


@dataclass(kw_only=True)
class Run(Args):
    """A run: the game (the positional GAME) and the core options, whose defaults are the game's recipe."""

    env_id: Annotated[str, cli.positional(), cli.positional_game()]
    """the game to train on, by its recipe"""


# ---------------------------------------------------------------------------------------------- the trainer
class Rollout:
    """The rollout buffer ``[rows, N, ...]``: per row (the carry rows, then a step) and game, a learner decision."""

    def __init__(self, rows: int, n: int, size: int, num_actions: int, aux_size: int):
        self.obs, self.aux = np.zeros((rows, n, size), np.float32), np.zeros((rows, n, aux_size), np.float32)
        self.mask = np.zeros((rows, n, num_actions), bool)
        self.logprob, self.value, self.reward = (np.zeros((rows, n), np.float32) for _ in range(3))
        self.action, self.seat, self.next = (np.zeros((rows, n), np.int64) for _ in range(3))  # next: -1 for none
        self.done, self.valid = np.zeros((rows, n), bool), np.zeros((rows, n), bool)  # game over; a decision here
        # a search's policy at the decisions it searched (search targets; none carried over to the next rollout)
        self.search, self.searched = np.zeros((rows, n, num_actions), np.float32), np.zeros((rows, n), bool)
        # a kickstart teacher's action at each decision it chose (NO_ACTION elsewhere; none carried over)
        self.teacher_action = np.full((rows, n), NO_ACTION, np.int64)

    def record(self, row: int, games: np.ndarray, **values: Any) -> None:
        """Write each named array's ``values`` at ``row`` for ``games``."""
        for name, value in values.items():
            getattr(self, name)[row, games] = value

    def kept(self) -> tuple[np.ndarray, ...]:
        """The arrays a decision carried over to the next rollout keeps."""
        return self.obs, self.mask, self.action, self.logprob, self.value, self.reward, self.seat, self.aux


class Trainer:
    """A run in ``args.run_dir``: the games, the league, the network and its optimizer, the periodic events.

    Args:
        args: the run's resolved arguments.
        plan: the extensions to train with (default: the game's recipe).
        agents: league entries that play as the given agents instead of the agent their spec names: a frozen
            agent made outside the registry (a best response's target, say) sits in the league under its entry.
    """

    def __init__(self, args: Run, plan: Recipe | None = None, agents: Mapping[str, Any] | None = None):
        import torch as th

        from cardenvs.agents.registry import make_agent

        th.set_num_threads(args.torch_threads)
        self.args, self.recipe, self.dir = args, recipe(args.env_id) if plan is None else plan, Path(args.run_dir)
        self.device = th.device(cli.torch_device(args.device))
        self.venv = cardenvs.vector_env(args.env_id, num_envs=args.num_envs)
        self.num_players, self.layout = self.venv.num_players, self.venv.layout
        shaping, auxiliary = self.recipe.shaping, self.recipe.auxiliary
        self.potential = None if shaping is None else Potential(shaping, self.layout, args.gamma)
        self.aux = None if auxiliary is None else AuxiliaryTask(auxiliary, args.env_id, self.venv.params)
        self.carry = self.num_players if self.recipe.carry_open_chains else 0  # carry rows at the buffer's start
        # the search's seed follows the league agents' (offset_seed(seed, k) for the k-th league entry)
        self.teacher = None if self.recipe.search_targets is None else SearchTeacher(
            self.recipe.search_targets, args.env_id, self.layout, self.dir, offset_seed(args.seed, len(args.league)))
        self.kickstarter = None if self.recipe.kickstart is None else Kickstarter(
            self.recipe.kickstart, args.env_id, self.layout, offset_seed(args.seed, len(args.league) + 1))
        th.manual_seed(args.seed)
        self.network = self.new_network().to(self.device)
        self.optimizer = th.optim.Adam(self.network.parameters(), lr=args.learning_rate, eps=1e-5)
        given = agents or {}
        self.fixed = {spec: given[spec] if spec in given else make_agent(spec, args.env_id, self.layout,
                                                                         seed=offset_seed(args.seed, k))
                      for k, spec in enumerate(args.league) if spec != runs.SNAPSHOTS}
        self.snapshots: list[tuple[int, dict]] = []  # (decisions when taken, network weights on the CPU)
        self.decisions, self.updates, self.train_seconds, self.evaluations = 0, 0, 0.0, []
        self.last = {"snapshot": 0, "checkpoint": 0, "evaluation": 0}
        self.rng, self.timers = np.random.default_rng(args.seed), runs.Timers(TIME_PARTS)
        self.resumed = (self.dir / CHECKPOINT_NAME).is_file() and args.resume
        if self.resumed:  # the run goes on from its checkpoint
            saved = runs.load_checkpoint(self.dir / CHECKPOINT_NAME)
            self.network.load_state_dict(saved["network"])
            self.optimizer.load_state_dict(saved["optimizer"])  # its moments move to the parameters' device
            self.rng.bit_generator.state = saved["rng"]
            self.timers.seconds.update(saved["timers"])
            for name in RUN_STATE:
                setattr(self, name, saved[name])

    def new_network(self):
        """A freshly initialised network of this run's shape, on the CPU."""
        from cardenvs.agents.selfplay import MaskedActorCritic, input_scale

        aux_size, to_policy = (self.aux.size, self.aux.auxiliary.to_policy) if self.aux else (0, False)
        return MaskedActorCritic(input_scale(self.layout), self.venv.num_actions, self.args.hidden, aux_size, to_policy)

    # ------------------------------------------------------------------ league
    def league_agents(self) -> tuple[list, list[str]]:
        """The league's agents now (snapshots as sampling copies of the policy) and each one's league entry."""
        from cardenvs.agents.selfplay import SelfPlayAgent

        agents, entries = [], []
        for spec in self.args.league:
            if spec != runs.SNAPSHOTS:
                agents.append(self.fixed[spec])
                entries.append(spec)
            for decisions, weights in self.snapshots if spec == runs.SNAPSHOTS else []:
                network = self.new_network()
                network.load_state_dict(weights)
                agents.append(SelfPlayAgent(network, deterministic=False, name=f"snapshot_{decisions}",
                                            seed=offset_seed(self.args.seed, decisions)))
                entries.append(runs.SNAPSHOTS)
        return agents, entries

    def draw_seating(self, rows: np.ndarray, learner: np.ndarray, opponent: np.ndarray, entries: list[str]) -> None:
        """New seats for the games at ``rows`` (:func:`cardenvs.training.league.draw_seating`, a ``--league-share``
        of league games): all snapshots together count as one league entry."""
        draw_seating(self.rng, rows, learner, opponent, entries, self.args.league_share)

    # ------------------------------------------------------------------ rollout, credit, GAE, update
    def train(self) -> None:
        """Learn until the budget (decisions or minutes) is spent, with the periodic events; then save the model."""
        import torch as th

        from cardenvs.agents.base import act_on_rows, seat_views

        args, venv, device, n, carry = self.args, self.venv, self.device, self.args.num_envs, self.carry
        rows, aux_size = np.arange(n), self.aux.size if self.aux else 0
        buffer = Rollout(carry + args.num_steps, n, self.layout.size, venv.num_actions, aux_size)
        progress = runs.Progress(self.dir / runs.TENSORBOARD_DIR, args.total_decisions, self.decisions,
                                 args.progress_bar, args.env_id, args.minutes)
        obs, masks, current = venv.reset(seed=cardenvs.game_seed(args.seed, self.updates))  # a resumed run: new games
        league, entries = self.league_agents()
        learner, opponent = np.zeros((n, self.num_players), bool), np.full(n, -1)
        self.draw_seating(rows, learner, opponent, entries)
        last_decision = np.full((n, self.num_players), -1)  # buffer row of each seat's latest decision (-1: none)
        returns = np.zeros((n, self.num_players), np.float32)  # each seat's reward so far in its game, for the logs
        actions, finished = np.zeros(n, np.int64), {}  # finished: league entry -> learner returns, for the logs
        started, self.timers = time.monotonic() - self.train_seconds, runs.Timers(TIME_PARTS)  # this session's times
        while not self.budget_spent(started):
            if self.teacher:
                self.teacher.start_round_if_due(self.decisions, self.save_network)
            carried_games, carried_seats = open_chains.carry_over(buffer.kept(), last_decision, carry)
            buffer.valid[:], buffer.searched[:], buffer.teacher_action[:] = False, False, NO_ACTION
            buffer.valid[carried_seats, carried_games] = True
            buffer.reward[carry:], buffer.done[:], buffer.next[:] = 0, False, -1
            for t in range(carry, carry + args.num_steps):
                seat = current.copy()
                picked = np.flatnonzero(learner[rows, seat])
                if self.aux:
                    buffer.aux[t, picked] = self.aux.targets(venv.global_states(), picked)
                self.timers.lap("bookkeeping")
                if picked.size:  # in a league of few games, no learner may be to act at a step
                    with th.inference_mode():
                        logits, value = self.network(th.from_numpy(obs[picked]).to(device),
                                                     th.from_numpy(masks[picked] != 0).to(device))
                        chosen = th.distributions.Categorical(logits=logits).sample()
                        logprob = th.log_softmax(logits, 1).gather(1, chosen[:, None]).squeeze(1)
                    self.timers.lap("forward")
                    actions[picked] = chosen.cpu().numpy()
                    buffer.record(t, picked, obs=obs[picked], mask=masks[picked] != 0, action=actions[picked],
                                  logprob=logprob.cpu().numpy(), value=value.cpu().numpy(), seat=seat[picked],
                                  valid=True)
                    if self.teacher:
                        searched = self.teacher.pick(picked, args.num_steps)
                        views = seat_views(venv, searched, current, obs, masks)
                        buffer.record(t, searched, search=self.teacher.policies(views), searched=True)
                        self.timers.lap("search")
                    if self.kickstarter and self.kickstarter.teaching(self.decisions):
                        buffer.record(t, picked, teacher_action=self.kickstarter.actions(obs[picked], masks[picked]))
                        self.timers.lap("teacher")
                previous = last_decision[picked, seat[picked]]
                buffer.next[previous[previous >= 0], picked[previous >= 0]] = t
                last_decision[picked, seat[picked]] = t
                self.timers.lap("bookkeeping")
                act_on_rows(league, np.where(learner, -1, opponent[:, None]), obs, masks, seat, actions, venv=venv)
                self.timers.lap("opponents")
                obs, masks, current, rewards, terminated, truncated = venv.step(actions)
                self.timers.lap("env")
                returns += rewards
                ended = self.credit(buffer.reward, buffer.done, learner, last_decision, rewards, terminated, truncated)
                for i in ended:
                    name = "self-play" if opponent[i] < 0 else entries[opponent[i]]
                    finished.setdefault(name, []).append(float(returns[i, learner[i]].mean()))
                last_decision[ended], returns[ended] = -1, 0
                self.draw_seating(ended, learner, opponent, entries)
                self.timers.lap("bookkeeping")
            stats = self.learn(buffer, learner, last_decision, started)
            made = int(buffer.valid[carry:].sum())
            self.decisions, self.updates = self.decisions + made, self.updates + 1
            self.train_seconds = time.monotonic() - started
            progress.update(made, self.decisions, {  # the update's, the learners' returns, the time shares
                **{f"train/{name}": value for name, value in stats.items()},
                "train/decisions_per_second": self.decisions / max(self.train_seconds, 1e-9),
                **{f"games/return_vs_{name}": np.mean(returns) for name, returns in finished.items()},
                **{f"time/{part}_share": share for part, share in self.timers.shares().items()}}, self.train_seconds)
            finished, paused = {}, time.monotonic()
            if self.periodic_events():
                league, entries = self.league_agents()
                self.draw_seating(rows[opponent >= 0], learner, opponent, entries)  # no game keeps a stale index
                last_decision[:], returns[:] = -1, 0
            started += time.monotonic() - paused  # events are not training time
            self.timers.lap("bookkeeping")
        progress.close()
        self.checkpoint()
        self.save_model()

    def credit(self, reward, done, learner, last_decision, rewards, terminated, truncated) -> np.ndarray:
        """Credit one step's rewards ``[N, P]`` to each learning seat's latest decision in ``reward`` ``[T, N]``,
        mark the last decision of each seat of a game that ended as ``done``, and add ``--truncation-reward`` to
        those of truncated games. Returns the games that ended."""
        game, who = np.nonzero(learner & (rewards != 0) & (last_decision >= 0))
        reward[last_decision[game, who], game] += rewards[game, who]
        ended = np.flatnonzero(terminated | truncated)
        game, who = np.nonzero(learner[ended] & (last_decision[ended] >= 0))
        game = ended[game]
        done[last_decision[game, who], game] = True
        cut = truncated[game]
        reward[last_decision[game[cut], who[cut]], game[cut]] += self.args.truncation_reward
        return ended

    def learn(self, buffer: Rollout, learner: np.ndarray, last_decision: np.ndarray, started: float) -> dict:
        """GAE along each seat's chain of decisions of the rollout in ``buffer``, then the PPO update's statistics."""
        used = buffer.valid.copy()  # the decisions this update learns from
        if self.carry:  # open chains wait for the next rollout; their predecessors bootstrap on their stored values
            open_chains.defer_open_ends(used, last_decision)
            bootstrap = bootstrap_potential = np.zeros(learner.shape, np.float32)
        else:
            bootstrap, bootstrap_potential = self.bootstrap_values(learner, last_decision)
        reward = buffer.reward if self.potential is None else self.potential.rewards(
            buffer.obs, buffer.reward, buffer.done, buffer.next, buffer.seat, bootstrap_potential)
        advantages = self.advantages(buffer.value, reward, buffer.done, buffer.next, buffer.seat, used, bootstrap)
        self.timers.lap("bookkeeping")
        searched = (buffer.search[used], buffer.searched[used]) if self.teacher else None
        taught = buffer.teacher_action[used] if self.kickstarter else None
        stats = self.update(buffer.obs[used], buffer.mask[used], buffer.action[used], buffer.logprob[used],
                            buffer.value[used], advantages[used], started, buffer.aux[used] if self.aux else None,
                            searched, taught)
        self.timers.lap("update")
        return stats

    def bootstrap_values(self, learner: np.ndarray, last_decision: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``[N, P]`` twice: the value and the shaping potential of what each seat with an open chain of decisions
        sees now (0 elsewhere)."""
        import torch as th

        values, potentials = np.zeros(learner.shape, np.float32), np.zeros(learner.shape, np.float32)
        open_chain = learner & (last_decision >= 0)
        for seat in range(self.num_players):
            games = np.flatnonzero(open_chain[:, seat])
            if games.size:
                obs, _ = self.venv.observe(np.full(self.args.num_envs, seat))
                with th.inference_mode():
                    values[games, seat] = self.network.value(th.from_numpy(obs[games]).to(self.device)).cpu().numpy()
                potentials[games, seat] = self.potential(obs[games]) if self.potential else 0.0
        return values, potentials

    def advantages(self, value, reward, done, next_step, seat, valid, bootstrap) -> np.ndarray:
        """GAE along each seat's chain of decisions, ``[T, N]`` (0 where no learner decided)."""
        gamma, games = self.args.gamma, np.arange(value.shape[1])
        advantages = np.zeros_like(value)
        for t in reversed(range(len(value))):
            has_next = next_step[t] >= 0
            later = np.where(has_next, next_step[t], 0)
            next_value = np.where(has_next, value[later, games], bootstrap[games, seat[t]])
            next_advantage = np.where(has_next, advantages[later, games], 0.0)
            going_on = ~done[t]
            delta = reward[t] + gamma * next_value * going_on - value[t]
            advantages[t] = np.where(valid[t], delta + gamma * self.args.gae_lambda * going_on * next_advantage, 0.0)
        return advantages

    def budget_spent(self, started: float) -> bool:
        over_time = self.args.minutes > 0 and time.monotonic() - started >= 60 * self.args.minutes
        return self.decisions >= self.args.total_decisions or over_time

    def learning_rate(self, started: float) -> float:
        """Annealed linearly to 0 over the budget: decisions or minutes, whichever is further along."""
        share = self.decisions / self.args.total_decisions
        if self.args.minutes > 0:
            share = max(share, (time.monotonic() - started) / (60 * self.args.minutes))
        return self.args.learning_rate * (1.0 - min(share, 1.0))

    def update(self, obs, mask, action, old_logprob, old_value, advantage, started, aux_target=None,
               searched=None, taught=None) -> dict:
        """``--update-epochs`` passes of clipped PPO over one rollout's learner decisions (numpy arrays), with the
        auxiliary task's loss when ``aux_target`` is given, the search targets' when ``searched`` (the search
        policies ``[B, A]`` and which decisions have one ``[B]``) is and the kickstart teacher's when ``taught`` (its
        actions ``[B]``, ``NO_ACTION`` where it chose none) is; the mean of each loss over the minibatches."""
        import torch as th

        args = self.args
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate(started)
        obs, mask, action, old_logprob, old_value, advantage = (
            th.from_numpy(array).to(self.device) for array in (obs, mask, action, old_logprob, old_value, advantage))
        target = advantage + old_value
        # Normalised over the whole rollout, not per minibatch: a minibatch of one decision has no deviation.
        advantage = (advantage - advantage.mean()) / (advantage.std(unbiased=False) + 1e-8)
        totals = dict.fromkeys(["policy_loss", "value_loss", "entropy", "clip_fraction"], 0.0)
        if aux_target is not None:
            aux_target = th.from_numpy(aux_target).to(self.device)
            aux_weight, totals["aux_loss"] = self.aux.weights(aux_target), 0.0
        if searched is not None:
            search_policy, has_search = (th.from_numpy(array).to(self.device) for array in searched)
            totals["search_loss"] = 0.0
        if taught is not None:
            teacher_action = th.from_numpy(taught).to(self.device)
            teacher_weight = self.kickstarter.weight(self.decisions)
            totals["teacher_loss"] = 0.0
        batches = 0
        for _ in range(args.update_epochs):
            order = th.randperm(len(action)).to(self.device)  # drawn on the CPU: the same on every device
            for batch in order.split(args.minibatch_size):
                if aux_target is not None:
                    logits, value, aux_logits = self.network.forward_aux(obs[batch], mask[batch])
                else:
                    logits, value = self.network(obs[batch], mask[batch])
                logprobs = th.log_softmax(logits, 1)
                ratio = (logprobs.gather(1, action[batch, None]).squeeze(1) - old_logprob[batch]).exp()
                adv = advantage[batch]
                policy_loss = th.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                value_loss = 0.5 * (value - target[batch]).square().mean()
                entropy = -(logprobs.exp() * logprobs).sum(1).mean()
                loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy
                if aux_target is not None:
                    aux_loss = self.aux.loss(aux_logits, aux_target[batch], aux_weight)
                    loss = loss + aux_loss
                    totals["aux_loss"] += aux_loss.item()
                if searched is not None:
                    search_loss = cross_entropy(logits, search_policy[batch], has_search[batch])
                    loss = loss + self.teacher.targets.coef * search_loss
                    totals["search_loss"] += search_loss.item()
                if taught is not None:
                    taught_loss = teacher_loss(logits, teacher_action[batch])
                    loss = loss + teacher_weight * taught_loss
                    totals["teacher_loss"] += taught_loss.item()
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.network.parameters(), args.max_grad_norm)
                self.optimizer.step()
                for name, value in (("policy_loss", policy_loss), ("value_loss", value_loss), ("entropy", entropy)):
                    totals[name] += value.item()
                totals["clip_fraction"] += float(((ratio - 1).abs() > args.clip_coef).float().mean())
                batches += 1
        return {name: total / max(batches, 1) for name, total in totals.items()}

    # ------------------------------------------------------------------ events, files
    def periodic_events(self) -> bool:
        """Snapshot, evaluate (a point of the learning curve), checkpoint when due; True when the league changed."""
        from cardenvs.agents.selfplay import SelfPlayAgent

        args, changed = self.args, False
        if runs.SNAPSHOTS in args.league and self.decisions - self.last["snapshot"] >= args.snapshot_every:
            weights = {name: tensor.detach().cpu().clone() for name, tensor in self.network.state_dict().items()}
            self.snapshots = [*self.snapshots, (self.decisions, weights)][-args.max_snapshots:]
            self.last["snapshot"], changed = self.decisions, True
        if args.eval_every and args.eval_games and self.decisions - self.last["evaluation"] >= args.eval_every:
            agent = SelfPlayAgent(copy.deepcopy(self.network).cpu(), name=runs.AGENT_NAME)  # a copy: training goes on
            self.evaluations.append(runs.evaluate(args.env_id, agent, args.eval_games,
                                                  offset_seed(args.seed, self.decisions), self.dir, self.decisions,
                                                  train_seconds=round(self.train_seconds, 1)))
            self.last["evaluation"] = self.decisions
        if self.decisions - self.last["checkpoint"] >= args.checkpoint_every:
            self.checkpoint()
        return changed

    def checkpoint(self) -> None:
        """Everything the run needs to go on, replaced whole (an interruption leaves the old one)."""
        runs.save_checkpoint(self.dir / CHECKPOINT_NAME, {
            "network": self.network.state_dict(), "optimizer": self.optimizer.state_dict(),
            "rng": self.rng.bit_generator.state, "timers": self.timers.seconds,
            **{name: getattr(self, name) for name in RUN_STATE}})
        self.last["checkpoint"] = self.decisions

    def save_network(self, path: Path) -> None:
        """The network alone at ``path`` (small, on the CPU), as ``ppo:PATH`` loads it."""
        from cardenvs.agents.selfplay import save_model

        save_model(path, self.network, {
            "env_id": self.args.env_id, "params": dataclasses.asdict(self.venv.params),
            "observation_size": self.layout.size, "num_actions": self.venv.num_actions, "num_players": self.num_players,
            "hidden": list(self.args.hidden), "aux_to_policy": bool(self.network.aux_to_policy)})

    def save_model(self) -> None:
        """The network alone (``model.pt``) and how it was trained (``model.json``)."""
        self.save_network(self.dir / MODEL_NAME)
        runs.write_json(self.dir / runs.MODEL_INFO_NAME, runs.model_info(
            self.args, PROG, runs.command_line(f"{PROG} {self.args.env_id}", self.args, leave_out=("env_id",)),
            ("torch",), decisions=self.decisions, train_seconds=round(self.train_seconds, 1),
            decisions_per_second=round(self.decisions / max(self.train_seconds, 1e-9)),
            time_shares={part: round(share, 3) for part, share in self.timers.shares().items()},
            recipe=self.recipe.extensions(), evaluations=self.evaluations, device=str(self.device)))


# ---------------------------------------------------------------------------------------------- the command line
#: the options of ``cardenvs train`` a resumed run may take anew (the others must repeat the stored value)
RESUME_MAY_CHANGE = ("total_decisions", "minutes", "checkpoint_every", "eval_every", "eval_games", "final_games",
                     "torch_threads", "device", "progress_bar")
#: the checks of ``cardenvs train``'s options
CHECKS: tuple[cli.Rule, ...] = (
    cli.at_least(1, "total_decisions", "num_envs", "num_steps", "minibatch_size", "update_epochs", "torch_threads",
                 "snapshot_every", "checkpoint_every"),
    cli.at_least(0, "eval_every", "eval_games", "final_games", "max_snapshots"),
    cli.SEED_CHECK, *cli.PPO_CHECKS,
    (("truncation_reward",), math.isfinite, "a finite number"),
    cli.LEAGUE_SHARE_CHECK,
    (("minutes",), lambda v: math.isfinite(v) and v >= 0, "0 or more"),
)
#: the phases of a run as the command names them
PHASES = ("start-up", "training", "final matches")


def parse_args(argv: Sequence[str], defaults: Run | None = None, prog: str = PROG) -> Run:
    """``cardenvs train``'s command line ``GAME [options]`` as a `Run`, with GAME's recipe (or ``defaults``) as the
    defaults; a malformed one exits with tyro's message and code 2.

    Args:
        argv: the arguments.
        defaults: the values of the options not given, instead of the recipe's (e.g. a resumed run's).
        prog: how the command was started.
    """
    description = (f"Self-play PPO on a cardenvs game (GAME: {', '.join(cardenvs.available_envs())}) by its recipe, "
                   "whose defaults --help shows when GAME is given: every seat of every game learns.\n\n"
                   + cli.resume_note(RESUME_MAY_CHANGE))
    return cli.parse_game_command(Run, argv, prog, description, lambda game: recipe(game).defaults, defaults)


def settle_args(argv: Sequence[str], prog: str = PROG) -> Run:
    """The arguments of this invocation of ``cardenvs train``: the command line's, or those of the run it resumes
    (:func:`cardenvs.training.runs.settle`).

    Args:
        argv: the arguments.
        prog: how the command was started.
    """
    return runs.settle_command_line(lambda defaults: parse_args(argv, defaults, prog), RUNS_DIR, RESUME_MAY_CHANGE,
                                    game="GAME")


def resolve_args(args: Run) -> Run:
    """``cardenvs train``'s arguments with the defaults that depend on others filled in; ValueError for a setting
    that cannot work.

    Args:
        args: the parsed arguments.
    """
    filled = runs.resolve(args, RUNS_DIR, CHECKS)
    cli.torch_device(filled.device)
    if filled.league_share > 0 and not filled.league:
        raise ValueError("--league needs at least one entry while --league-share is above 0")
    return filled


def phase(number: int, text: str) -> None:
    """Print the line that opens phase ``number`` (from 1) of :data:`PHASES`, at once."""
    print(f"[{number}/{len(PHASES)}] {PHASES[number - 1]}: {text}", flush=True)


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """``cardenvs train GAME [options]``: check every argument, train, play the final matches; the exit code
    (:func:`cardenvs.training.runs.run_command`).

    Args:
        argv: the arguments (default: the process's).
        prog: how the command was started, for ``--help`` and the messages.
    """
    trainer: Trainer | None = None

    def run(args: Run) -> str | None:
        nonlocal trainer
        runs.write_run_args(args)
        league = ", ".join(spec for spec in args.league if spec != runs.SNAPSHOTS) or "none"
        phase(1, f"{args.num_envs:,} games of {args.env_id}, the league ({league}) and the network (a game's rules "
                 "compile on its first run on a machine, which can take a minute or more)")
        trainer = Trainer(args)
        budget = f"{args.total_decisions:,} decisions" + (f" or {args.minutes:g} minutes" if args.minutes else "")
        phase(2, f"{args.env_id} for {budget} in {trainer.dir} on {trainer.device}"
                 + (f" (resumed at {trainer.decisions:,})" if trainer.resumed else ""))
        trainer.train()
        print(f"saved {trainer.dir / MODEL_NAME} after {trainer.decisions:,} decisions "
              f"({trainer.train_seconds:.0f} s, {trainer.decisions / max(trainer.train_seconds, 1e-9):,.0f}/s)")
        if args.final_games > 0:
            phase(3, f"{args.final_games:,} games against each of {', '.join(runs.FINAL_OPPONENTS)}")

        def load() -> Any:  # the model as saved, for its matches against the rule-based agent and random
            from cardenvs.agents.selfplay import SelfPlayAgent

            return SelfPlayAgent.load(trainer.dir / MODEL_NAME, args.env_id, trainer.layout, trainer.venv.num_actions)

        return runs.final_results(load, args.env_id, args.final_games, offset_seed(args.seed, 1), trainer.dir,
                                  progress=args.progress_bar)

    def interrupted(args: Run) -> str:
        if trainer is not None:
            trainer.checkpoint()
        return (f"interrupted at {trainer.decisions if trainer else 0} decisions; continue with: "
                + runs.resume_command(f"{prog} {args.env_id}", args.run_dir))

    arguments = sys.argv[1:] if argv is None else argv
    return runs.run_command(prog, "train", lambda: resolve_args(settle_args(arguments, prog)), ("torch",), run,
                            interrupted)


if __name__ == "__main__":
    sys.exit(main(prog=cli.invocation(__spec__)))
