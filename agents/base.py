"""The agent interface shared by every baseline, tournament and training script.

Most agents act on what their seat observes (:meth:`Agent.act`, :meth:`Agent.act_batch`). Search agents also draw
full game states the seat cannot tell from the true one: a front end hands them a :class:`SeatView` per decision
(:meth:`Agent.act_views`), whose one way into the true state is the game's hidden-card resampler
(``Game.resample``). :func:`act_on_rows`, :func:`act_at_seat` and :func:`act_in_env` choose the right call for any
agent.

Following games. An agent with :attr:`Agent.follows_games` (a search agent with a belief over the hidden cards,
``belief=policy``) must see every step of every game it plays, the other seats' turns included, not only its own
decisions. A front end that seats it tells it, for each seat it plays in a game:

1. ``begin_game(game, view)`` at the game's first position;
2. ``observe_game(game, view, own_action)`` after every step, the last one included: the seat's view of the new
   state (its observation and legal mask, all zeros where it is not to act) and the action the seat took where it
   was the one that acted (``None`` where another seat acted);
3. ``end_game(game)`` once, when the game is over.

``game`` is any hashable key of the front end's that tells the games apart (a tournament uses the game's index),
and every :class:`SeatView` the agent acts on carries the same key (:attr:`SeatView.game_key`), so the agent knows
which game's history a decision belongs to. :func:`begin_rows` and :func:`observe_rows` do this for the games of a
batched env. A front end that does not follow games must refuse such an agent; one that does not know about
following hands views without a key, and the agent refuses them (it never falls back to the resampler silently).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
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
    #: whether the agent follows every game it plays from its start (module docstring): front ends then call
    #: :meth:`begin_game`, :meth:`observe_game` and :meth:`end_game` and key its views by game
    follows_games = False

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

    def begin_game(self, game: Hashable, view: SeatView) -> None:
        """A game the agent plays starts (agents with :attr:`follows_games`; others ignore it): ``view`` is one of
        its seats' view of the first position, and is given once for every seat the agent plays in the game.

        Args:
            game: the front end's key of the game.
            view: the seat's view, keyed by ``game``.
        """

    def observe_game(self, game: Hashable, view: SeatView, own_action: int | None = None) -> None:
        """One step of a game the agent plays has been taken (agents with :attr:`follows_games`; others ignore it):
        given after every step, for every seat the agent plays in the game.

        Args:
            game: the front end's key of the game.
            view: the seat's view of the state after the step, keyed by ``game`` (its mask all zeros where the seat
                is not to act).
            own_action: the action the seat took, where it was the seat that acted; else None.
        """

    def end_game(self, game: Hashable) -> None:
        """A game the agent played is over (agents with :attr:`follows_games`; others ignore it): whatever it kept
        for the game can go.

        Args:
            game: the front end's key of the game.
        """


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
        seat: the seat to act (or, in a followed game, the seat whose view it is).
        observation: ``seat``'s observation of ``record``.
        action_mask: ``seat``'s legal mask of ``record``.
        game_key: the front end's key of the game, where it follows games (module docstring); else None.
    """

    __slots__ = ("_game", "_record", "action_mask", "game_key", "observation", "params", "seat")

    def __init__(
        self, game: Any, params: Any, record: np.record, seat: int, observation: np.ndarray, action_mask: np.ndarray,
        game_key: Hashable | None = None,
    ):
        if game.resample is None:
            raise ValueError(f"{game.env_id} has no hidden-card resampler, so no search agent can play it")
        self._game = game
        self._record = np.array([record], record.dtype).view(np.recarray)[0]  # a copy of its own
        self.params = params
        self.seat = int(seat)
        self.observation = np.array(observation, np.float32)
        self.action_mask = np.array(action_mask, np.int8)
        self.game_key = game_key

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
    games: Sequence[Hashable] | None = None,
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
        games: each row's game key, where the front end follows games (module docstring): the seat views carry it.

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
            out[mine] = agent.act_views(seat_views(venv, mine, current_players, observations, action_masks, games))
        else:
            out[mine] = agent.act_batch(observations[mine], action_masks[mine])
    return out


def seat_views(
    venv: Any, rows: np.ndarray, current_players: np.ndarray, observations: np.ndarray, action_masks: np.ndarray,
    games: Sequence[Hashable] | None = None,
) -> list[SeatView]:
    """The :class:`SeatView` of the seat to act in each game ``rows`` of the batched env ``venv`` (keyed by
    ``games[row]`` where ``games`` is given)."""
    states = venv.states
    return [
        SeatView(venv.game, venv.params, states[i], current_players[i], observations[i], action_masks[i],
                 None if games is None else games[i])
        for i in rows
    ]


def begin_rows(agents: Sequence[Agent], seating: np.ndarray, venv: Any, rows: np.ndarray,
               games: Sequence[Hashable]) -> None:
    """:meth:`Agent.begin_game` of every agent that follows games (:attr:`Agent.follows_games`), for each seat it
    plays in the games ``rows`` of the batched env ``venv``, which are at their first position.

    Args:
        agents: the agents that play.
        seating: which agent plays which seat, as in :func:`act_on_rows`.
        venv: the batched env.
        rows: the rows whose games start.
        games: each row's game key (indexed by row).
    """
    _tell_rows(agents, seating, venv, rows, games)


def observe_rows(agents: Sequence[Agent], seating: np.ndarray, venv: Any, rows: np.ndarray,
                 games: Sequence[Hashable], actors: np.ndarray, actions: np.ndarray) -> None:
    """:meth:`Agent.observe_game` of every agent that follows games, for each seat it plays in the games ``rows``
    of the batched env ``venv``, which have just taken a step (the last one included).

    Args:
        agents: the agents that play.
        seating: which agent plays which seat, as in :func:`act_on_rows`.
        venv: the batched env, after the step.
        rows: the rows that stepped.
        games: each row's game key (indexed by row).
        actors: the seat that acted in each row (the current players before the step), ``[N]``.
        actions: the action each row took, ``[N]``.
    """
    _tell_rows(agents, seating, venv, rows, games, actors, actions)


def _tell_rows(agents: Sequence[Agent], seating: np.ndarray, venv: Any, rows: np.ndarray,
               games: Sequence[Hashable], actors: np.ndarray | None = None, actions: np.ndarray | None = None) -> None:
    """Begin (no ``actors``) or observe the games ``rows`` for every seat an agent that follows games plays, game by
    game, seat by seat."""
    following = [agent.follows_games for agent in agents]
    rows = np.asarray(rows, np.int64)
    if not any(following) or not rows.size:
        return
    seating = np.asarray(seating)
    owners = np.broadcast_to(seating, (venv.num_envs, venv.num_players)) if seating.ndim == 1 else seating
    told = [seat for seat in range(venv.num_players) if any(
        index >= 0 and following[index] for index in owners[rows, seat].tolist())]
    seen = {seat: venv.observe(np.full(venv.num_envs, seat, np.int64)) for seat in told}
    states = venv.states
    for row in rows.tolist():
        for seat in told:
            index = int(owners[row, seat])
            if index < 0 or not following[index]:
                continue
            observations, masks = seen[seat]
            view = SeatView(venv.game, venv.params, states[row], seat, observations[row], masks[row], games[row])
            if actors is None:
                agents[index].begin_game(games[row], view)
            else:
                acted = int(actors[row]) == seat
                agents[index].observe_game(games[row], view, int(actions[row]) if acted else None)


def act_at_seat(agent: Agent, game: Any, params: Any, record: np.record, seat: int, observation: np.ndarray,
                action_mask: np.ndarray, game_key: Hashable | None = None) -> int:
    """``agent``'s action for ``seat``, the seat to act in the game ``record``: :meth:`Agent.act` on the seat's
    observation and mask, or, where the agent searches, :meth:`Agent.act_views` on the seat's :class:`SeatView`
    (keyed by ``game_key``, where the front end follows the game)."""
    if not agent.reads_seat_views:
        return int(agent.act({"observation": observation, "action_mask": action_mask}))
    return int(agent.act_views([SeatView(game, params, record, seat, observation, action_mask, game_key)])[0])


def act_in_env(agent: Agent, env: Any, observation: dict[str, np.ndarray], game_key: Hashable | None = None) -> int:
    """``agent``'s action at the seat to act of the AEC env ``env`` (a ``cardenvs.env``, wrapped or not), given
    that seat's ``observation`` (:func:`act_at_seat`; ``game_key`` where the front end follows the game)."""
    base = env.unwrapped
    return act_at_seat(agent, base.game, base.params, base.state_record,
                       base.possible_agents.index(base.agent_selection), observation["observation"],
                       observation["action_mask"], game_key)


def view_in_env(env: Any, seat: int, game_key: Hashable | None = None) -> SeatView:
    """``seat``'s :class:`SeatView` of the AEC env ``env``'s game now, whether or not the seat is to act (what a
    front end that follows games hands :meth:`Agent.begin_game` and :meth:`Agent.observe_game`).

    Args:
        env: a ``cardenvs.env``, wrapped or not.
        seat: the seat.
        game_key: the front end's key of the game.
    """
    base = env.unwrapped
    observation = env.observe(base.possible_agents[seat])
    return SeatView(base.game, base.params, base.state_record, seat, observation["observation"],
                    observation["action_mask"], game_key)
