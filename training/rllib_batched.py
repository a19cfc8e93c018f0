"""An RLlib EnvRunner that steps cardenvs' batched engine: many games at once, one forward pass for all of them.

:class:`BatchedEnvRunner` is a ``SingleAgentEnvRunner`` of RLlib's new API stack whose env is a
``cardenvs.vector_env`` of ``num_envs_per_env_runner`` games (:class:`BatchedGames`). Each step it gives the
observations of every game's seat to act to the RLModule in one batch (``forward_exploration``), samples one
action per game from the masked logits, and steps all games in one call of the compiled engine. Self-play with one
shared module: every seat of every game learns, as with the self-play trainer (``cardenvs train``), except in a
league game, where one side learns and a fixed league agent plays the other (below):

- each seat's decisions in a game are a trajectory of their own, handed to the learner as a
  ``SingleAgentEpisode`` (observation, action, log-probability and logits per decision);
- a reward that reaches a seat on anyone's move is credited to that seat's latest decision;
- a game's end closes every seat's trajectory (``terminated``; a game cut by its step limit too, as the
  self-play trainer does), and the engine starts the next game in its place;
- a trajectory still open when a ``sample()`` call ends keeps its latest decision back: the decisions before it go to
  the learner with that decision's observation as the one to bootstrap on, and the decision itself waits, its
  rewards still reaching it, to open the seat's next chunk (``cardenvs.training.open_chains.carry_over``);
- with a shaping in the env config (``rllib_train`` passes the game's recipe's, as ``cardenvs train`` uses it), each
  decision's reward also gets ``gamma`` times the potential at the seat's next decision (0 once the game ended) minus
  the potential at this one (``cardenvs.training.shaping.Potential``), so the learner sees the same rewards as the
  self-play trainer's;
- with a league in the env config (agent specs and the share of league games), a share of the games seat one side
  with a league agent drawn per game (``cardenvs.training.league.draw_seating``, as the self-play trainer seats its
  league): the league agent acts through ``Agent.act_batch`` on its seats, and only the learning side's decisions and
  rewards go to the learner.

An env step here is one decision of a learning seat of one game (a league agent's moves are not counted), so
``train_batch_size`` counts the learner's decisions, as with the PettingZoo route. The masking is
:class:`~cardenvs.training.rllib_masking.MaskedActorCritic`'s: the logits of illegal actions are the most negative
float32, so sampling never picks one, and the engine raises on one anyway. The module,
its learner, checkpoints and the ``rllib:PATH`` agent are those of the PettingZoo route; only the sampling
differs. Metrics: ``episode_len_mean`` is moves per game, ``agent_episode_returns_mean`` each seat's mean
return in self-play games, :data:`LEAGUE_RETURN_MEAN` the learning side's mean return per seat against each league
entry, ``num_episodes`` the games finished.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.env.env_runner import ENV_STEP_FAILURE
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.env.utils.infinite_lookback_buffer import InfiniteLookbackBuffer
from ray.rllib.utils.metrics import EPISODE_AGENT_RETURN_MEAN, EPISODE_LEN_MEAN, EPISODE_RETURN_MEAN

import cardenvs
from cardenvs.agents.base import act_on_rows
from cardenvs.agents.registry import make_agent
from cardenvs.core.rng import offset_seed
from cardenvs.training.league import draw_seating
from cardenvs.training.open_chains import carry_over
from cardenvs.training.rllib_masking import ACTION_MASK_KEY, OBSERVATION_KEY
from cardenvs.training.shaping import Potential

#: the ``env_config`` keys the runner reads: the cardenvs env id, the game's parameters, the reward shaping
#: (a :class:`~cardenvs.training.shaping.Shaping`; absent or None: the game's rewards alone), the league's agent
#: specs and the share of league games (absent: none, every game self-play)
ENV_ID_KEY, PARAMS_KEY, SHAPING_KEY = "env_id", "params", "shaping"
LEAGUE_KEY, LEAGUE_SHARE_KEY = "league", "league_share"
#: the metric of the learning side's mean return per seat in league games, keyed by league entry
LEAGUE_RETURN_MEAN = "league_returns_mean"
#: the agent id of seat ``s`` in the per-seat metrics, as the PettingZoo env names it
SEAT_NAME = "player_{}"


class BatchedGames:
    """``num_games`` games of one cardenvs game on the batched engine, with the spaces RLlib asks an env for.

    ``single_observation_space`` and ``single_action_space`` are one seat's, as the PettingZoo env gives them
    (``Dict(observation, action_mask)`` and ``Discrete``); ``observation_space`` and ``action_space`` are batched
    over the games.

    Args:
        env_id: the cardenvs env id.
        params: the game's parameters.
        num_games: how many games run side by side.
    """

    def __init__(self, env_id: str, params: dict[str, Any], num_games: int):
        # One thread: an EnvRunner holds one CPU, and scales by more EnvRunners.
        self.games = cardenvs.vector_env(env_id, num_envs=num_games, parallel=False, **params)
        self.single_observation_space, self.single_action_space = self.seat_spaces(env_id, params)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_games)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_games)
        self.num_envs = num_games
        self.unwrapped = self

    @staticmethod
    def seat_spaces(env_id: str, params: dict[str, Any]) -> tuple[gym.spaces.Dict, gym.spaces.Discrete]:
        """One seat's observation and action spaces, as the PettingZoo env gives them.

        Args:
            env_id: the cardenvs env id.
            params: the game's parameters.
        """
        seat_view = cardenvs.env(env_id, **params)
        first_seat = seat_view.possible_agents[0]
        return seat_view.observation_space(first_seat), seat_view.action_space(first_seat)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        """Step every game with its action; the engine's ``(obs, action_mask, current_player, rewards[N, P],
        terminated, truncated)`` (the games that ended already restarted).

        Args:
            actions: one action per game, for its seat to act.
        """
        return self.games.step(actions)

    def close(self) -> None:
        """Nothing to release: the games are arrays."""


class Decisions:
    """The decisions of one ``sample()`` call, ``[rows, N, ...]``: one carry row per seat first (each open
    trajectory's latest decision from the call before), then one row per step; per row and game, the decision of the
    seat that acted."""

    def __init__(self, rows: int, games: int, observation_size: int, num_actions: int):
        self.obs = np.zeros((rows, games, observation_size), np.float32)
        self.mask = np.zeros((rows, games, num_actions), np.int8)
        self.logits = np.zeros((rows, games, num_actions), np.float32)
        self.logprob, self.reward = np.zeros((rows, games), np.float32), np.zeros((rows, games), np.float32)
        self.action, self.seat = np.zeros((rows, games), np.int64), np.zeros((rows, games), np.int64)
        self.done, self.valid = np.zeros((rows, games), bool), np.zeros((rows, games), bool)

    def kept(self) -> tuple[np.ndarray, ...]:
        """The arrays a decision carried to the next call keeps."""
        return self.obs, self.mask, self.logits, self.logprob, self.reward, self.action, self.seat


class BatchedEnvRunner(SingleAgentEnvRunner):
    """RLlib's single-agent EnvRunner, sampling self-play on a ``cardenvs.vector_env`` (see the module's docstring).

    Configured like any EnvRunner: ``config.env_runners(env_runner_cls=BatchedEnvRunner,
    num_envs_per_env_runner=GAMES)`` with ``config.environment(env_config={"env_id": ..., "params": {...}})``;
    the config's RLModule must read ``{"observation", "action_mask"}`` dicts
    (:class:`~cardenvs.training.rllib_masking.MaskedActorCritic`). Weights, connector states and checkpoints are
    the base class's.
    """

    def make_env(self) -> None:
        """Build the batched games (``self.env``) from the config; their play starts at the first ``sample()``."""
        env_config = self.config.env_config
        self.env = BatchedGames(env_config[ENV_ID_KEY], dict(env_config.get(PARAMS_KEY, {})),
                                self.config.num_envs_per_env_runner)
        self.num_envs = self.env.num_envs
        games, players = self.num_envs, self.env.games.num_players
        shaping = env_config.get(SHAPING_KEY)
        self._potential = None if shaping is None else Potential(shaping, self.env.games.layout, self.config.gamma)
        self._league_entries = list(env_config.get(LEAGUE_KEY, ()))
        self._league = [make_agent(spec, env_config[ENV_ID_KEY], self.env.games.layout,
                                   seed=None if self._seed is None else offset_seed(self._seed, k))
                        for k, spec in enumerate(self._league_entries)]
        self._league_share = float(env_config.get(LEAGUE_SHARE_KEY, 0.0))
        self._seating_rng = np.random.default_rng(self._seed)
        self._learner = np.ones((games, players), bool)  # the seats that learn, per game
        self._opponent = np.full(games, -1)  # each game's league agent (an index into the league), -1: self-play
        self._last_decision = np.full((games, players), -1)  # row of each seat's latest decision (-1: none open)
        self._returns = np.zeros((games, players), np.float32)  # each seat's reward so far in its game
        self._moves = np.zeros(games, np.int64)  # moves so far in each game
        self._carried: Decisions | None = None  # the last call's decisions, whose open ends the next call carries
        self._needs_initial_reset, self._reset_before = True, False

    def get_spaces(self) -> dict[str, tuple[gym.Space, gym.Space]]:
        """The batched and the single spaces under RLlib's keys, as the base class gives them."""
        return super().get_spaces() if self.env is None else {
            "__env__": (self.env.observation_space, self.env.action_space),
            "__env_single__": (self.env.single_observation_space, self.env.single_action_space),
            "default_policy": (self.env.single_observation_space, self.env.single_action_space),
        }

    def _reset_games(self) -> None:
        """Start every game anew (seeded from the runner's seed on the first start) and drop open trajectories."""
        self.env.games.reset(seed=self._seed if self._needs_initial_reset and not self._reset_before else None)
        self._last_decision[:] = -1
        self._returns[:], self._moves[:] = 0, 0
        self._carried, self._needs_initial_reset, self._reset_before = None, False, True
        draw_seating(self._seating_rng, np.arange(self.num_envs), self._learner, self._opponent, self._league_entries,
                     self._league_share)

    def _choose(self, obs: np.ndarray, masks: np.ndarray, explore: bool, random_actions: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One forward pass for every game: ``(actions[N], logprob[N], logits[N, A])``.

        Args:
            obs: the observations of each game's seat to act ``[N, D]``.
            masks: their legal actions ``[N, A]``.
            explore: sample from the policy (True) or take its most probable legal action.
            random_actions: a uniformly random legal action instead (logits and log-probabilities as the policy's).
        """
        batch = {Columns.OBS: {OBSERVATION_KEY: torch.from_numpy(obs), ACTION_MASK_KEY: torch.from_numpy(masks)}}
        with torch.inference_mode():
            output = self.module.forward_exploration(batch) if explore else self.module.forward_inference(batch)
            logits = output[Columns.ACTION_DIST_INPUTS]
            log_probabilities = torch.log_softmax(logits, dim=1)
            if random_actions:
                chosen = torch.from_numpy(self.env.games.sample_actions())
            elif explore:  # the categorical distribution of the masked logits (illegal actions: probability 0)
                chosen = torch.multinomial(log_probabilities.exp(), 1).squeeze(1)
            else:
                chosen = logits.argmax(dim=1)
            logprob = log_probabilities.gather(1, chosen[:, None]).squeeze(1)
        return chosen.numpy(), logprob.numpy(), logits.numpy()

    def _sample(self, *, num_timesteps: int | None = None, num_episodes: int | None = None, explore: bool,
                random_actions: bool = False, force_reset: bool = False) -> list[SingleAgentEpisode]:
        """Step every game until the learning seats have made ``num_timesteps`` decisions or ``num_episodes``
        games end; the episodes.

        Called by ``SingleAgentEnvRunner.sample``, which times it and works out the counts from the config.
        """
        games = self.env.games
        if force_reset or num_episodes is not None or self._needs_initial_reset:
            self._reset_games()
        players, n = games.num_players, self.num_envs
        # room for the steps the decisions take without a league (more rows are added as needed)
        rows = players + (math.ceil(num_timesteps / n) if num_timesteps is not None else 0)
        decisions = Decisions(max(rows, players + 1), n, games.layout.size, games.num_actions)
        if self._carried is not None:  # the open trajectories' latest decisions move to the carry rows
            game, seat = carry_over(self._carried.kept(), self._last_decision, players)
            for kept, carried in zip(decisions.kept(), self._carried.kept(), strict=True):
                kept[:players] = carried[:players]
            decisions.valid[seat, game] = True
        obs, masks, current = games.observations, games.action_masks, games.current_players
        row, made, finished, finished_games, everyone = players, 0, 0, [], np.arange(n)
        while (made < num_timesteps) if num_timesteps is not None else (finished < num_episodes):
            if row == len(decisions.valid):  # room for more steps
                decisions = self._grown(decisions)
            seat = current.astype(np.int64)
            actions, logprob, logits = self._choose(obs, masks, explore, random_actions)
            learns = self._learner[everyone, seat]
            if not learns.all():  # league agents play their seats; only the learners' decisions are kept
                act_on_rows(self._league, np.where(self._learner, -1, self._opponent[:, None]), obs, masks, seat,
                            actions, venv=games)
            decisions.obs[row], decisions.mask[row], decisions.logits[row] = obs, masks, logits
            decisions.action[row], decisions.logprob[row], decisions.seat[row] = actions, logprob, seat
            decisions.valid[row] = learns
            made += int(learns.sum())
            self._last_decision[everyone[learns], seat[learns]] = row
            stepped = self._try_env_step(actions)
            if stepped is ENV_STEP_FAILURE:  # RLlib re-made the env (restart_failed_sub_environments): start over
                self._needs_initial_reset = True
                return []
            obs, masks, current, rewards, terminated, truncated = stepped
            self._credit(decisions, rewards)
            self._moves += 1
            ended = np.flatnonzero(terminated | truncated)
            if ended.size:
                self._end_games(decisions, ended, finished_games)
                finished += ended.size
            row += 1
        self._carried = decisions
        episodes = self._episodes(decisions, row)
        self.num_env_steps_sampled_lifetime += made
        self._increase_sampled_metrics(made, finished)
        self._log_games(finished_games)
        return episodes

    @staticmethod
    def _grown(decisions: Decisions) -> Decisions:
        """``decisions`` with twice the rows (when sampling until a number of games end)."""
        rows, games, size = decisions.obs.shape
        grown = Decisions(2 * rows, games, size, decisions.mask.shape[2])
        for name, array in vars(decisions).items():
            getattr(grown, name)[:rows] = array
        return grown

    def _credit(self, decisions: Decisions, rewards: np.ndarray) -> None:
        """Credit one step's rewards ``[N, P]`` to each seat's latest decision."""
        self._returns += rewards
        game, seat = np.nonzero((rewards != 0) & (self._last_decision >= 0))
        decisions.reward[self._last_decision[game, seat], game] += rewards[game, seat]

    def _end_games(self, decisions: Decisions, ended: np.ndarray, finished_games: list) -> None:
        """Close every learning seat's trajectory in the games that ended, note their lengths, returns and league
        agents, and seat them anew."""
        game, seat = np.nonzero(self._last_decision[ended] >= 0)
        game = ended[game]
        decisions.done[self._last_decision[game, seat], game] = True
        learning = self._learner[ended]  # every game has a learning seat
        learners_return = (self._returns[ended] * learning).sum(axis=1) / learning.sum(axis=1)
        finished_games.extend(zip(self._moves[ended].tolist(), self._returns[ended].tolist(),
                                  self._opponent[ended].tolist(), learners_return.tolist(), strict=True))
        self._last_decision[ended] = -1
        self._returns[ended], self._moves[ended] = 0, 0
        draw_seating(self._seating_rng, ended, self._learner, self._opponent, self._league_entries,
                     self._league_share)

    def _episodes(self, decisions: Decisions, rows: int) -> list[SingleAgentEpisode]:
        """Each seat's trajectory chunks in ``decisions[:rows]`` as episodes: those of finished games whole
        (``terminated``), open ones up to the decision they keep back, whose observation they bootstrap on."""
        row, game = np.nonzero(decisions.valid[:rows])
        seat = decisions.seat[row, game]
        order = np.lexsort((row, seat, game))
        row, game, seat = row[order], game[order], seat[order]
        # A chunk ends at a game's end or where the (game, seat) changes.
        ends_here = decisions.done[row, game]
        ends_here[:-1] |= (game[1:] != game[:-1]) | (seat[1:] != seat[:-1])
        if ends_here.size:
            ends_here[-1] = True
        stops = np.flatnonzero(ends_here) + 1
        starts = np.concatenate(([0], stops[:-1]))
        episodes = []
        for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
            chunk_rows, g = row[start:stop], int(game[start])
            terminated = bool(decisions.done[chunk_rows[-1], g])
            taken = chunk_rows if terminated else chunk_rows[:-1]  # an open chunk keeps its last decision back
            if taken.size:
                episodes.append(self._episode(decisions, g, taken, None if terminated else int(chunk_rows[-1])))
        return episodes

    def _episode(self, decisions: Decisions, game: int, taken: np.ndarray, bootstrap_row: int | None
                 ) -> SingleAgentEpisode:
        """One trajectory chunk of one seat as an episode (a finished one when ``bootstrap_row`` is None).

        Args:
            decisions: the call's decisions.
            game: the game's index.
            taken: the rows of the chunk's decisions, in order.
            bootstrap_row: the row whose observation follows the chunk's last decision (None: the game ended).
        """
        final = (np.append(taken, bootstrap_row) if bootstrap_row is not None else taken)
        obs, mask = decisions.obs[final, game], decisions.mask[final, game]
        if bootstrap_row is None:  # after the end nothing is observed: a zero observation with no legal action
            obs = np.concatenate((obs, np.zeros_like(obs[:1])))
            mask = np.concatenate((mask, np.zeros_like(mask[:1])))
        rewards = decisions.reward[taken, game]
        if self._potential is not None:  # gamma * potential(next decision) - potential(this one); 0 after the end
            potential = self._potential(obs)
            if bootstrap_row is None:
                potential[-1] = 0.0
            rewards = rewards + self._potential.gamma * potential[1:] - potential[:-1]
        # The episode gives its buffers the spaces; built from whole arrays, they skip RLlib's per-step appends.
        return SingleAgentEpisode(
            observations=InfiniteLookbackBuffer({OBSERVATION_KEY: obs, ACTION_MASK_KEY: mask}),
            observation_space=self.env.single_observation_space,
            actions=InfiniteLookbackBuffer(decisions.action[taken, game]),
            action_space=self.env.single_action_space,
            rewards=InfiniteLookbackBuffer(rewards),
            extra_model_outputs={
                Columns.ACTION_LOGP: InfiniteLookbackBuffer(decisions.logprob[taken, game]),
                Columns.ACTION_DIST_INPUTS: InfiniteLookbackBuffer(decisions.logits[taken, game]),
            },
            terminated=bootstrap_row is None,
            len_lookback_buffer=0,
        )

    def _log_games(self, finished_games: list[tuple[int, list[float], int, float]]) -> None:
        """Log each finished game's moves and, in self-play games, each seat's return; in league games, the
        learning side's mean return against its league entry."""
        window = max(1, math.ceil(self.config.metrics_num_episodes_for_smoothing / (self.config.num_env_runners or 1)))
        for moves, returns, opponent, learners_return in finished_games:
            self.metrics.log_value(EPISODE_LEN_MEAN, moves, window=window)
            self.metrics.log_value(EPISODE_RETURN_MEAN, float(sum(returns)), window=window)
            if opponent >= 0:
                self.metrics.log_value((LEAGUE_RETURN_MEAN, self._league_entries[opponent]), learners_return,
                                       window=window)
                continue
            for seat, value in enumerate(returns):
                self.metrics.log_value((EPISODE_AGENT_RETURN_MEAN, SEAT_NAME.format(seat)), value, window=window)

    def get_metrics(self) -> dict:
        """The metrics logged since the last call (the games are logged as they end, not from episodes)."""
        self._done_episodes_for_metrics.clear()
        self._ongoing_episodes_for_metrics.clear()
        return self.metrics.reduce()
