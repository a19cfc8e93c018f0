"""The agent interface shared by every baseline, tournament and training script.

Most agents act on what their seat observes (:meth:`Agent.act`, :meth:`Agent.act_batch`). Search agents also draw
full game states the seat cannot tell from the true one: a front end hands them a :class:`SeatView` per decision
(:meth:`Agent.act_views`), whose one way into the true state is the game's hidden-card resampler
(``Game.resample``). :func:`act_on_rows`, :func:`act_at_seat` and :func:`act_in_env` choose the right call for any
agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class Agent:
    """An agent acts on what its seat observes.

    Subclasses implement :meth:`act`; :meth:`act_batch` defaults to a loop over :meth:`act` and should be
    overridden with a vectorised version where the strategy allows it.
    """

    #: a short name for tables and logs
    name = "agent"
    #: whether the agent acts through :meth:`act_views` (it searches over resampled states) rather than on the
    #: observation alone
    reads_seat_views = False
    #: a compiled ``(observation, action_mask) -> action`` that :meth:`act_batch` applies to every row and that
    #: reads nothing else, or None. Search playouts with the game's rule-based agent call it inside the compiled
    #: kernel (:mod:`cardenvs.core.playout`), so the agent must act the same through either.
    compiled_policy = None

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """One legal action for ``{"observation": ..., "action_mask": ...}``."""
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One legal action per row of the batched env's ``(obs[N, D], action_mask[N, A])``."""
        return np.array(
            [self.act({"observation": o, "action_mask": m}) for o, m in zip(observations, action_masks, strict=True)],
            dtype=np.int64,
        )


    def act_views(self, views: Sequence[SeatView]) -> np.ndarray:
        """One legal action per seat view (agents with :attr:`reads_seat_views`); by default :meth:`act_batch` on
        their observations."""
        return self.act_batch(
            np.stack([view.observation for view in views]), np.stack([view.action_mask for view in views])
        )


class SeatView:
    """One decision of one game as a seat sees it: its observation and legal mask, and full states drawn by the
    game's hidden-card resampler, which agree with everything the seat has seen and redeal everything else.

    The true state stays inside: :meth:`resample` is the one way to it, so an agent given a view can use only what
    its seat may know (tests/evaluation/test_search.py proves a search agent acts the same on states that differ only
    in hidden cards).

    Args:
        game: the game (``cardenvs.get_game(env_id)``); it must have a resampler (``game.resample``).
        params: the game's parameters.
        record: the true state record (copied, so later steps of the front end do not change the view).
        seat: the seat to act.
        observation: ``seat``'s observation of ``record``.
        action_mask: ``seat``'s legal mask of ``record``.
    """

    __slots__ = ("_game", "_record", "action_mask", "observation", "params", "seat")

    def __init__(
        self, game: Any, params: Any, record: np.record, seat: int, observation: np.ndarray, action_mask: np.ndarray
    ):
        if game.resample is None:
            raise ValueError(f"{game.env_id} has no hidden-card resampler, so no search agent can play it")
        self._game = game
        self._record = np.array([record], record.dtype).view(np.recarray)[0]  # a copy of its own
        self.params = params
        self.seat = int(seat)
        self.observation = np.array(observation, np.float32)
        self.action_mask = np.array(action_mask, np.int8)

    @property
    def game(self) -> Any:
        """The game the view is of."""
        return self._game

    def resample(self, rng: np.random.Generator) -> np.record:
        """A full state record that this seat cannot tell from the true one, drawn with ``rng`` (its cards unseen
        by the seat dealt again, the game's generator reseeded)."""
        return self._game.resample(self._record, self.seat, rng)


class RandomAgent(Agent):
    """Picks a uniformly random legal action."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        # Gumbel-free trick: a random score per legal action, argmax picks a uniform legal one.
        scores = self.rng.random(action_masks.shape) * (action_masks > 0)
        return scores.argmax(axis=1).astype(np.int64)


def act_on_rows(
    agents: Sequence[Agent],
    seating: np.ndarray,
    observations: np.ndarray,
    action_masks: np.ndarray,
    current_players: np.ndarray,
    out: np.ndarray,
    rows: np.ndarray | None = None,
    venv: Any = None,
) -> np.ndarray:
    """Let every agent act once, through :meth:`Agent.act_batch`, on the batch rows where one of its seats is to act.

    Agents act in the order of ``agents``, each on its rows in row order, so agents that draw randomness see the
    same draws whatever the other agents do.

    Args:
        agents: the agents that play.
        seating: which agent plays which seat, as indices into ``agents``: ``[P]`` (the same in every row) or
            ``[N, P]`` (``seating[i, p]`` plays seat ``p`` of row ``i``). A negative entry is a seat none of
            ``agents`` plays (a learner's, say): rows waiting on it are left alone.
        observations: the batched env's ``obs[N, D]``.
        action_masks: the batched env's ``action_mask[N, A]``.
        current_players: the batched env's ``current_player[N]``.
        out: ``[N]`` integer actions, written at the rows an agent acted on; every other entry keeps its value.
        rows: bool ``[N]``: act only on these rows (default: every row).
        venv: the batched env the rows are games of, needed where an agent reads seat views
            (:attr:`Agent.reads_seat_views`): they are made from its states.

    Returns:
        ``out``.
    """
    seating = np.asarray(seating)
    if seating.ndim == 1:
        owners = seating[current_players]
    else:
        owners = seating[np.arange(len(current_players)), current_players]
    if rows is not None:
        owners = np.where(rows, owners, -1)
    for index in np.unique(owners):
        if index < 0:
            continue
        mine = np.flatnonzero(owners == index)
        agent = agents[index]
        if agent.reads_seat_views:
            if venv is None:
                raise ValueError(f"agent {agent.name!r} searches over game states: give act_on_rows the venv")
            out[mine] = agent.act_views(seat_views(venv, mine, current_players, observations, action_masks))
        else:
            out[mine] = agent.act_batch(observations[mine], action_masks[mine])
    return out


def seat_views(
    venv: Any, rows: np.ndarray, current_players: np.ndarray, observations: np.ndarray, action_masks: np.ndarray
) -> list[SeatView]:
    """The :class:`SeatView` of the seat to act in each game ``rows`` of the batched env ``venv``."""
    states = venv.states
    return [
        SeatView(venv.game, venv.params, states[i], current_players[i], observations[i], action_masks[i])
        for i in rows
    ]


def act_at_seat(agent: Agent, game: Any, params: Any, record: np.record, seat: int, observation: np.ndarray,
                action_mask: np.ndarray) -> int:
    """``agent``'s action for ``seat``, the seat to act in the game ``record``: :meth:`Agent.act` on the seat's
    observation and mask, or, where the agent searches, :meth:`Agent.act_views` on the seat's :class:`SeatView`."""
    if not agent.reads_seat_views:
        return int(agent.act({"observation": observation, "action_mask": action_mask}))
    return int(agent.act_views([SeatView(game, params, record, seat, observation, action_mask)])[0])


def act_in_env(agent: Agent, env: Any, observation: dict[str, np.ndarray]) -> int:
    """``agent``'s action at the seat to act of the AEC env ``env`` (a ``cardenvs.env``, wrapped or not), given
    that seat's ``observation`` (:func:`act_at_seat`)."""
    base = env.unwrapped
    return act_at_seat(agent, base.game, base.params, base.state_record,
                       base.possible_agents.index(base.agent_selection), observation["observation"],
                       observation["action_mask"])
