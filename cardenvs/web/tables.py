"""The games the web table holds: one played by a person against agents, one watched, one replayed.

These classes know nothing about HTTP: the app (:mod:`cardenvs.web.app`) turns their :class:`TableError` into a
page with the message, and every method that refuses a request raises before it changes anything.

A live table's agents never think on the server's event loop: the app claims a table for a run of agent decisions
(:meth:`LiveTable.claim`), which then runs in a thread (:meth:`LiveTable.run`); search agents think in worker
processes (:mod:`cardenvs.web.thinking`). The table's lock is held only while a decision is applied or a page reads
the table, so pages answer while the agents think; a claimed table refuses further decisions until its run ends.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
import time
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import cardenvs
from cardenvs.agents.base import act_at_seat
from cardenvs.agents.registry import SEARCH_KINDS  # they think in worker processes
from cardenvs.core.aec import CardEnv
from cardenvs.core.rng import SEED_LIMIT
from cardenvs.records import GameRecord, decisions, replay
from cardenvs.web.thinking import OutOfTimeError, Thinkers, ThinkingStoppedError

LOGGER = logging.getLogger("cardenvs.web")

#: the agents a page may seat besides the trained one: no free-form spec, so no path from a browser is loaded;
#: ``pimc`` is the search agent at its game's default budget (a fraction of a second per decision)
BUILT_IN_AGENTS = ("heuristic", "random", "pimc")
#: the spec of the game's trained agent (the ``<env_id>.pt`` of the server's checkpoint folder)
TRAINED_SPEC = "trained"
#: the agent that decides for a search agent whose decision ran past its budget: a random legal move, which
#: needs no compiled code (a first use of compiled code in the server's process would hold it while it loads)
FALLBACK_SPEC = "random"
#: tables one browser session keeps; the oldest goes first
TABLES_PER_SESSION = 16
#: browser sessions the server keeps; the least recently used goes first
SESSIONS_KEPT = 256
#: session ids handed out by the pages but not yet holding a table; the oldest is forgotten first
ISSUED_KEPT = 4096
#: the estimated bytes one session's tables may keep; its oldest tables go first
SESSION_BYTES_KEPT = 48_000_000
#: the estimated bytes all sessions' tables may keep; the least recently used sessions go first
SERVER_BYTES_KEPT = 512_000_000
#: decisions one run of "play to the end" takes at most (Slap games can be long)
RUN_TO_END_LIMIT = 20_000
#: seconds the agents may think in the run one request started; then the run pauses and the page offers to go on
RUN_SECONDS = 60.0
#: the decisions a table keeps in its move list (a person's since their last turn; a watcher's latest)
LOG_LINES_KEPT = 400
#: a replay keeps the whole position every this many steps and replays the actions in between
REPLAY_STRIDE = 16
#: estimated bytes of a table without its move list, records and agents (env, state records, locks)
TABLE_BASE_BYTES = 200_000
#: estimated bytes of an agent kept in the server's process without a network (rule-based, random)
AGENT_BYTES = 20_000
#: how many times its file's size a loaded network takes in memory (parameters, buffers, the module objects)
NETWORK_BYTES_PER_FILE_BYTE = 2
#: estimated bytes of one move-list line
LOG_LINE_BYTES = 600
#: estimated bytes a recorded action takes (an int in a Python list)
ACTION_BYTES = 40
#: estimated bytes of one node of a search tree (ismcts), with its per-action arrays
TREE_NODE_BYTES = 2_000
#: the estimated bytes one search decision may take in a worker process (a seated agent's budget must fit)
SEARCH_BYTES_LIMIT = 256_000_000
#: an uploaded record's limits: nesting depth, digits of a number, characters of a string, items of a list or
#: object (a record's action list is the longest), and recorded actions
RECORD_MAX_DEPTH = 16
RECORD_MAX_DIGITS = 20
RECORD_MAX_STRING = 256
RECORD_MAX_ITEMS = 60_000
RECORD_MAX_ACTIONS = 50_000
#: the runs a table's agents make: to the person's turn, one decision, to the end of the game
RUN_KINDS = ("turn", "step", "end")
#: a watch page playing on by itself makes up at most this many decisions its round trips fell behind
MAX_CATCH_UP = 3
#: a pause this many intervals long between a watch page's steps starts its pace again
PACE_GAP_INTERVALS = 5


class TableError(Exception):
    """A request the table refuses, with the message to show and the HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass
class LogLine:
    """One decision as the move list shows it."""

    step: int  #: decisions before it in the game
    seat: int
    public: str  #: the action as the other seats see it
    full: str  #: the action's own name (what its seat chose)
    #: what the decision did, in the game's words: (text, the seats that may read it; () for every seat)
    events: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)

    def visible(self, viewer: int | None, open_hands: bool) -> list[str]:
        """The lines of :attr:`events` that ``viewer`` may read (every line with open hands).

        Args:
            viewer: the seat whose view is shown, or None for the public table.
            open_hands: every hand is shown.
        """
        return [text for text, seats in self.events if open_hands or not seats or viewer in seats]


def trained_model(env_id: str, checkpoints: Path | None) -> Path | None:
    """The trained agent's model file of ``env_id`` in ``checkpoints`` (None: no folder, or no model there)."""
    if checkpoints is None:
        return None
    model = checkpoints / f"{env_id}.pt"
    return model if model.is_file() else None


@functools.lru_cache(maxsize=64)
def _model_sizes(model: Path) -> tuple[int, int] | None:
    """(observation size, action count) the model was trained for; None where it cannot be read (no torch)."""
    try:
        from cardenvs.agents.selfplay import load_model

        _, info = load_model(model)
        return int(info["observation_size"]), int(info["num_actions"])
    except (ImportError, ValueError, KeyError, TypeError):
        return None


def trained_fits(env_id: str, checkpoints: Path | None, params: dict[str, Any]) -> bool:
    """Whether the trained agent of ``env_id`` can play the game of ``params`` (its observation and action
    sizes depend on the player count and some rules).

    Args:
        env_id: the registered env id.
        checkpoints: the server's folder of trained agents, or None.
        params: the game's parameters (unknown or invalid ones: it does not fit).
    """
    model = trained_model(env_id, checkpoints)
    sizes = None if model is None else _model_sizes(model)
    if sizes is None:
        return False
    game = cardenvs.get_game(env_id)
    try:
        game_params = game.make_params(**params)
    except (ValueError, TypeError):
        return False
    return sizes == (game.observation_layout(game_params).size, game.num_actions(game_params))


def agent_choices(env_id: str, checkpoints: Path | None, params: dict[str, Any] | None = None,
                  offered: tuple[str, ...] = BUILT_IN_AGENTS) -> list[str]:
    """The agent specs a page offers for ``env_id``: ``offered``, then ``trained`` where its model is in
    ``checkpoints`` and plays the game of ``params``.

    Args:
        env_id: the registered env id.
        checkpoints: the server's folder of trained agents, or None.
        params: the game's parameters (None: the default ones).
        offered: the specs the server offers besides ``trained`` (:data:`BUILT_IN_AGENTS` unless it was started
            with others, such as a search agent of a larger budget).
    """
    choices = list(offered)
    if trained_fits(env_id, checkpoints, params or {}):
        choices.append(TRAINED_SPEC)
    return choices


def agent_label(spec: str) -> str:
    """A short name of an agent spec for pages: ``trained (slap_v0.pt)`` for a checkpoint path (a name in an
    uploaded record), the spec itself otherwise."""
    return f"trained ({Path(spec[4:]).name})" if spec.startswith("ppo:") else spec


def _without_paths(message: str, paths: list[Path]) -> str:
    """``message`` with each of ``paths`` (the server's files) replaced by its file name."""
    for path in paths:
        message = message.replace(str(path.resolve()), path.name).replace(str(path), path.name)
    return message


def short_game_params(env_id: str) -> dict[str, Any]:
    """Parameters of a short game with the default seats (a turn or card limit, a single hand): the game's
    ``quick_params`` without its number of players, so that agents trained at the default table still fit."""
    from cardenvs.core.registry import get_game

    return {k: v for k, v in get_game(env_id).quick_params.items() if k != "num_players"}


def table_games() -> list[str]:
    """The games the table serves: every registered game that draws a table picture (a game may draw none)."""
    return [env_id for env_id in cardenvs.available_envs() if cardenvs.get_game(env_id).picture is not None]


def new_env(env_id: str, params: dict[str, Any]) -> CardEnv:
    """The env, or TableError naming what is wrong with the game or its parameters."""
    if env_id not in table_games():
        raise TableError(f"unknown game {env_id!r}; the games are {', '.join(table_games())}", 404)
    try:
        return cardenvs.env(env_id, **params)
    except (ValueError, TypeError) as error:
        raise TableError(str(error)) from error


def is_search(spec: str) -> bool:
    """Whether ``spec`` names a search agent (one that thinks in a worker process)."""
    return spec.partition(":")[0] in SEARCH_KINDS


def _keeps_belief(spec: str) -> bool:
    """Whether the search agent ``spec`` keeps a belief over its games (``belief=policy``), which the table cannot
    feed (a malformed spec is left to the checks that name what is wrong with it)."""
    from cardenvs.agents.search import belief_spec

    try:
        return belief_spec(spec) is not None
    except ValueError:
        return False


def search_bytes(spec: str, env: CardEnv) -> int:
    """Estimated bytes one decision of the search agent ``spec`` takes in ``env``'s game: the states it draws and
    plays out (``pimc``: determinizations × legal actions × rollouts records, twice; ``ismcts``: a drawn state and
    a tree node per iteration), counted at the game's largest action count.

    Args:
        spec: a search agent's spec (``pimc[:OPTIONS]`` or ``ismcts[:OPTIONS]``).
        env: the table's env.
    """
    from cardenvs.agents.search import PIMCOptions, parse_options

    kind, _, argument = spec.partition(":")
    options = parse_options(kind, argument, dict(env.game.search_defaults))
    record = env.state_record.dtype.itemsize
    if isinstance(options, PIMCOptions):
        return 2 * options.determinizations * env.num_actions * options.rollouts * record
    return options.iterations * (2 * record + TREE_NODE_BYTES)


class LiveTable:
    """A game in progress: agents in every seat but the person's (``human``; ``None`` when only watched).

    Args:
        env_id: the registered env id.
        params: the game's parameters.
        seed: the seed of the deal.
        specs: seat -> agent spec (one of ``offered``, or ``trained``) for every seat but the person's.
        human: the person's seat, or None for a table that is only watched.
        checkpoints: the server's folder of trained agents (the ``trained`` spec), or None.
        thinkers: the worker processes search agents think in (None: no search agent may be seated).
        known_deal: the person chose the seed (the page then says the deal is a known one).
        offered: the agent specs the server offers besides ``trained``.
    """

    kind = "live"

    def __init__(self, env_id: str, params: dict[str, Any], seed: int, specs: dict[int, str],
                 human: int | None, checkpoints: Path | None, thinkers: Thinkers | None = None,
                 known_deal: bool = False, offered: tuple[str, ...] = BUILT_IN_AGENTS):
        self.env = new_env(env_id, params)
        self.game, self.params = self.env.game, self.env.params
        self.num_players = len(self.env.possible_agents)
        if human is not None and not 0 <= human < self.num_players:
            raise TableError(f"seat {human} does not exist; seats are 0 to {self.num_players - 1}")
        seats = [s for s in range(self.num_players) if s != human]
        if sorted(specs) != seats:
            raise TableError(f"choose an agent for each of seats {seats}")
        allowed = agent_choices(env_id, checkpoints, params, offered)
        for seat, spec in specs.items():
            if spec not in allowed:
                raise TableError(f"agent {spec!r} for seat {seat} is not offered for this game; choose one of "
                                 f"{', '.join(allowed)}")
            if is_search(spec) and _keeps_belief(spec):
                raise TableError(f"agent {spec!r} cannot be seated: a search agent with a belief (belief=policy) "
                                 f"must be told every step of its game, and the table hands its thinking processes "
                                 f"only the agent's own decisions; use belief=uniform")
            if is_search(spec) and thinkers is None:
                raise TableError(f"agent {spec!r} cannot be seated: this server runs no search agents")
            if is_search(spec) and search_bytes(spec, self.env) > SEARCH_BYTES_LIMIT:
                raise TableError(f"agent {spec!r} would take about {search_bytes(spec, self.env) // 10**6:,} MB for "
                                 f"each decision in this game, more than a thinking process may use "
                                 f"({SEARCH_BYTES_LIMIT // 10**6:,} MB)", 413)
        self.human = human
        self.specs = dict(specs)
        self.thinkers = thinkers
        self.known_deal = known_deal
        self.agents = self._seat_agents(env_id, checkpoints)
        names = [specs.get(s, "human") for s in range(self.num_players)]
        self.record = GameRecord(env_id, dataclasses.asdict(self.params), seed, agents=names)
        self._agent_bytes = self._agents_footprint(checkpoints)
        self.env.reset(seed=seed)
        self.final: dict[str, float] = {}
        self.log: list[LogLine] = []  #: the move list: a person's since their last turn, a watcher's latest
        self.decisions = 0  #: decisions made in the game so far
        self.log_from = 0  #: the first decision the move list covers (the person's last, or the game's first)
        #: guards the env, the log and the run state: held while a decision is applied or a page reads the table
        self.lock = threading.RLock()
        self.running = False  #: a run of agent decisions is under way (the table takes no other decision)
        self.paused = ""  #: why the last run stopped before it was done ("" when it was done)
        self.trouble = ""  #: what went wrong in the last run (an agent that failed), "" when nothing did
        self._closed = threading.Event()
        self._steps = 1  # decisions the claimed step makes
        self._pace: tuple[int, float, int, float] | None = None  # a watch page's pace (see _paced)
        self._decision()

    def _seat_agents(self, env_id: str, checkpoints: Path | None) -> dict[int, Any]:
        """The agents that think in this process (every seat's but the search agents'), and the fallback agent
        of the search seats."""
        from cardenvs.agents.registry import SHIPPED_CHECKPOINTS, make_agent

        layout = self.env.layout
        model = trained_model(env_id, checkpoints)
        agents: dict[int, Any] = {}
        wanted = {seat: spec for seat, spec in self.specs.items() if not is_search(spec)}
        if any(is_search(spec) for spec in self.specs.values()):
            wanted[-1] = FALLBACK_SPEC  # key -1: the fallback of the search seats
        for seat, spec in wanted.items():
            loaded = spec
            if spec == TRAINED_SPEC and model is not None and model.parent.resolve() != SHIPPED_CHECKPOINTS.resolve():
                loaded = f"ppo:{model}"  # the server's own folder's model, never a path from the browser
            try:
                agents[seat] = make_agent(loaded, env_id, layout, seed=secrets.randbelow(SEED_LIMIT))
            except (ValueError, OSError, ImportError) as error:
                paths = [p for p in (model, checkpoints, SHIPPED_CHECKPOINTS) if p is not None]
                raise TableError(f"cannot seat {spec} at player_{seat}: {_without_paths(str(error), paths)}") from error
        return agents

    def _agents_footprint(self, checkpoints: Path | None) -> int:
        """Estimated bytes of the agents this process keeps: each agent, and each network loaded here. A search
        agent keeps nothing here: it is built and thinks in a worker process, whose memory is bounded there (at
        most :data:`~cardenvs.web.thinking.AGENTS_KEPT` agents and one decision's buffers, which the table checks
        against :data:`SEARCH_BYTES_LIMIT` when it is made)."""
        model = trained_model(self.record.env_id, checkpoints)
        total = AGENT_BYTES * len(self.agents)
        for spec in self.specs.values():
            if spec == TRAINED_SPEC and model is not None:
                total += NETWORK_BYTES_PER_FILE_BYTE * model.stat().st_size
        return total

    # -------------------------------------------------------------- reading (hold ``lock``)
    @property
    def over(self) -> bool:
        return not self.env.agents

    @property
    def hides_cards(self) -> bool:
        """Whether a person plays here and the game is on: only their seat's view may be shown."""
        return self.human is not None and not self.over

    @property
    def to_act(self) -> int | None:
        """The seat to decide now; None once the game is over."""
        return None if self.over else self.env.possible_agents.index(self.env.agent_selection)

    def legal_actions(self) -> list[tuple[int, str]]:
        """The legal actions of the seat to act, as (id, name)."""
        if self.over:
            return []
        mask = self.env.observe(self.env.agent_selection)["action_mask"]
        return [(int(a), self.game.action_name(self.params, int(a))) for a in np.flatnonzero(mask)]

    def text(self, seat: int | None) -> str:
        """The table as text, with ``seat``'s private view when given."""
        return self.env.table_text(seat)

    def rewards(self) -> list[float] | None:
        return None if not self.over else [self.final.get(a, 0.0) for a in self.env.possible_agents]

    def footprint(self) -> int:
        """Estimated bytes the table keeps (env, agents, move list, record)."""
        return (TABLE_BASE_BYTES + self._agent_bytes + LOG_LINE_BYTES * len(self.log)
                + ACTION_BYTES * len(self.record.actions))

    # -------------------------------------------------------------- deciding (on the event loop, fast)
    def _check_decision(self, decision: int) -> None:
        """TableError (409) where the posting page is out of date or the agents are still thinking."""
        if decision != self.decisions:
            raise TableError(f"this page is out of date: decision {decision} was already made (the game is at "
                             f"decision {self.decisions}); the table below is the game as it is now", 409)
        if self.running:
            raise TableError("the agents are still thinking about the last decision: wait for the page to show "
                             "their moves", 409)

    def play(self, action: int, decision: int) -> bool:
        """The person's decision ``decision`` (the game's decision count the page showed): applied at once;
        whether the agents are to move next (then the table is claimed for their run, see :meth:`run`).

        Raises:
            TableError: nobody plays here, the game is over, it is not the person's turn, the page is out of date
                (409, a repeated or stale post), or the action is not legal; nothing changes then.
        """
        with self.lock:
            if self.human is None:
                raise TableError("nobody plays at this table: it is only watched")
            if self.over:
                raise TableError("the game is over; start a new one", 409 if decision != self.decisions else 400)
            self._check_decision(decision)
            if self.to_act != self.human:
                raise TableError(f"it is player_{self.to_act}'s turn, not yours")
            legal = dict(self.legal_actions())
            if action not in legal:
                names = ", ".join(f"{a} ({name})" for a, name in legal.items())
                raise TableError(f"action {action} is not legal now; the legal actions are {names}")
            self.log.clear()  # the move list starts again at the person's own decision
            self.log_from = self.decisions
            self.trouble = self.paused = ""
            self._apply(self.human, action)
            return self.claim("turn", self.decisions, quiet=True)

    def claim(self, run: str, decision: int, quiet: bool = False, speed: int | None = None) -> bool:
        """Claim the table for a run of agent decisions (``turn``: until the person's turn; ``step``: one, or at
        a watching ``speed`` those its pace is due; ``end``: to the end of the game), from decision ``decision``:
        whether there is anything to run (then run :meth:`run` with it, in a thread; the table refuses other
        decisions until it ends).

        Args:
            run: one of :data:`RUN_KINDS`.
            decision: the game's decision count the posting page showed.
            quiet: return False instead of refusing where there is nothing to run.
            speed: the decisions a second of a watch page playing on by itself (None: a step by hand).

        Raises:
            TableError: an out-of-date page or a running table (409), a finished game, or the person's turn.
        """
        with self.lock:
            if not quiet:
                self._check_decision(decision)
                if self.over:
                    raise TableError("the game is over")
                if self.to_act == self.human:
                    raise TableError("it is your turn: choose an action")
            if self.over or self.to_act == self.human or self.running or (run == "turn" and self.human is None):
                return False  # nothing to run (a watched table's agents move only when asked)
            self.running = True
            self.trouble = self.paused = ""
            self._steps = self._paced(speed) if run == "step" else 1
            return True

    def _paced(self, speed: int | None) -> int:
        """The decisions a step makes: one, and at a watching ``speed`` as many more as the pace fell behind (a
        round trip of the page slower than the interval), so that the game goes at the speed the page says."""
        now = time.monotonic()
        pace, self._pace = self._pace, None
        if speed is None:
            return 1
        if pace is None or pace[0] != speed or now - pace[3] > PACE_GAP_INTERVALS / speed:
            pace = (speed, now, self.decisions, now)  # a new pace: speed, since when, from which decision
        due = int((now - pace[1]) * speed) - (self.decisions - pace[2])
        self._pace = (*pace[:3], now)
        return max(1, min(due, MAX_CATCH_UP))

    # -------------------------------------------------------------- the agents' run (in a thread)
    def run(self, run: str) -> None:
        """Agent decisions of a claimed table until the run is done (see :meth:`claim`), the run's thinking
        budget (:data:`RUN_SECONDS`) is spent, or the table is closed. Never raises: a failure is kept in
        :attr:`trouble` for the page."""
        started = time.monotonic()
        made = 0
        try:
            while not self._closed.is_set():
                with self.lock:
                    if self.over or self.to_act == self.human:
                        return
                    seat, observation = self._next()
                    record = self.env.state_record.copy()
                action, note = self._think(seat, record, observation)
                with self.lock:
                    if self._closed.is_set():
                        return
                    self._apply(seat, action, note)
                made += 1
                if run == "step" and made >= self._steps:
                    return
                if made >= RUN_TO_END_LIMIT or time.monotonic() - started > RUN_SECONDS:
                    with self.lock:
                        if not self.over and self.to_act != self.human:
                            self.paused = (f"the agents paused after {made:,} decisions and "
                                           f"{time.monotonic() - started:.0f} s of thinking")
                    return
        except ThinkingStoppedError:
            return
        except Exception as error:  # the page says what failed; the server goes on
            LOGGER.warning("a table's agents stopped: %s: %s", type(error).__name__, error)
            with self.lock:
                self.trouble = f"the agents stopped: {type(error).__name__}: {error}"
        finally:
            with self.lock:
                self.running = False

    def _next(self) -> tuple[int, dict]:
        agent, observation = self._decision()
        return self.env.possible_agents.index(agent), observation

    def _think(self, seat: int, record: np.record, observation: dict) -> tuple[int, str]:
        """``seat``'s agent's action (a search agent in a worker), and a note for the move list where the agent's
        own decision was replaced (it ran past its budget or failed: a random legal move is played)."""
        spec = self.specs[seat]
        obs, mask = observation["observation"], observation["action_mask"]
        if not is_search(spec):
            return act_at_seat(self.agents[seat], self.game, self.params, record, seat, obs, mask), ""
        try:
            return self.thinkers.decide(self.record.env_id, self.record.params, record, seat, obs, mask, spec,
                                        self._closed), ""
        except OutOfTimeError as reason:
            action = act_at_seat(self.agents[-1], self.game, self.params, record, seat, obs, mask)
            return action, f"{spec} decided nothing: {reason}; a random legal move was played"

    def close(self) -> None:
        """Stop the table's run (the server shuts down, or the table was closed to make room)."""
        self._closed.set()

    # -------------------------------------------------------------- bookkeeping (hold ``lock``)
    def _decision(self) -> tuple[str, dict] | tuple[None, None]:
        """The next live decision, retiring finished agents first (their final rewards go to ``final``)."""
        return next(decisions(self.env, self.final), (None, None))

    def _apply(self, seat: int, action: int, note: str = "") -> None:
        from cardenvs.web.words import action_namer, move_lines

        before = self.env.state_record.copy()
        self.env.step(action)
        self.record.actions.append(action)
        after = self.env.state_record.copy()
        public = (self.game.public_action_name or self.game.action_name)(self.params, action)
        events = ([(note, ())] if note else []) + move_lines(self.game, before, after, self.params, action)
        full = action_namer(self.game)(self.params, action, before)
        self.log.append(LogLine(self.decisions, seat, public, full, events))
        del self.log[:-LOG_LINES_KEPT]
        self.decisions += 1
        self._decision()  # retires the agents that are done, so that ``to_act`` and ``over`` are current
        if self.over:
            self.record.rewards = self.rewards()


class ReplayTable:
    """A recorded game that can be stepped forwards and back: the whole position is kept every
    :data:`REPLAY_STRIDE` steps (compressed), and a position in between is reached by replaying the actions
    from the one before it."""

    kind = "replay"

    def __init__(self, record: GameRecord):
        if len(record.actions) > RECORD_MAX_ACTIONS:
            raise TableError(f"this record has {len(record.actions)} actions; the replay page takes at most "
                             f"{RECORD_MAX_ACTIONS}", 413)
        self.record = record
        self._kept: list[bytes] = []  # compressed snapshots of positions 0, STRIDE, 2 * STRIDE, ...
        seats = bytearray()  # the seat of each recorded action
        final: dict[str, float] = {}
        env = None
        try:
            for step, (env, agent, _) in enumerate(replay(record, final_rewards=final)):
                if step % REPLAY_STRIDE == 0:
                    self._kept.append(_pack(env.snapshot()))
                seats.append(env.possible_agents.index(agent))
            if env is None:
                env = record.new_env()
            if len(record.actions) % REPLAY_STRIDE == 0:
                self._kept.append(_pack(env.snapshot()))
        except (ValueError, TypeError, KeyError, IndexError, OverflowError) as error:
            # TypeError, KeyError, IndexError: a malformed deal or parameter inside an otherwise valid record
            raise TableError(f"this record cannot be replayed: {error}") from error
        self.seats = bytes(seats)
        self.env = env
        self.game, self.params = env.game, env.params
        self.num_players = len(env.possible_agents)
        #: each seat's final reward, or None where the record ends before the game does
        self.final = None if env.agents else [final.get(a, 0.0) for a in env.possible_agents]
        self.position = len(record.actions)  # where the env is now
        self.show(0)

    @property
    def steps(self) -> int:
        """Recorded actions: positions are 0 (the start) to ``steps`` (after the last)."""
        return len(self.record.actions)

    def next_move(self) -> tuple[int, str] | None:
        """(seat, action name) of the recorded action at the position shown (None at the end), named from that
        position (so that an arrangement names its cards)."""
        from cardenvs.web.words import action_namer

        if self.position >= self.steps:
            return None
        action = self.record.actions[self.position]
        return self.seats[self.position], action_namer(self.game)(self.params, action, self.env.state_record)

    def footprint(self) -> int:
        """Estimated bytes the table keeps (env, kept positions, record)."""
        return TABLE_BASE_BYTES + sum(map(len, self._kept)) + (ACTION_BYTES + 1) * self.steps

    def show(self, position: int) -> None:
        """Set the env to the position before recorded action ``position`` (``steps``: the end)."""
        if not 0 <= position <= self.steps:
            raise TableError(f"step {position} does not exist; this record has steps 0 to {self.steps}")
        if position == self.position:
            return
        start = position - position % REPLAY_STRIDE
        self.env.restore(_unpack(self._kept[start // REPLAY_STRIDE]))
        pending = decisions(self.env, {})
        next(pending, None)  # the kept position is a decision: nothing to retire before it
        for action in self.record.actions[start:position]:
            self.env.step(int(action))
            next(pending, None)  # retires the agents that are done, up to the next decision or the end
        self.position = position

    def text(self, seat: int | None) -> str:
        """The table as text, with ``seat``'s private view when given."""
        return self.env.table_text(seat)


def _pack(snapshot: dict) -> bytes:
    return zlib.compress(json.dumps(snapshot).encode("utf-8"))


def _unpack(packed: bytes) -> dict:
    return json.loads(zlib.decompress(packed))


def load_record(data: bytes, name: str) -> GameRecord:
    """A game record from an uploaded file: a record (``cardenvs play --save``) or a golden playthrough, which
    holds one under ``record``; TableError saying why not.

    The JSON is checked before and while it is parsed: nesting at most :data:`RECORD_MAX_DEPTH` deep, numbers of
    at most :data:`RECORD_MAX_DIGITS` digits, strings of at most :data:`RECORD_MAX_STRING` characters, lists and
    objects of at most :data:`RECORD_MAX_ITEMS` items.

    Args:
        data: the file's bytes (the caller bounds their number).
        name: the file's name, for messages.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TableError(f"{name} is not a JSON game record: {error}") from error
    depth = _json_depth(text)
    if depth > RECORD_MAX_DEPTH:
        raise TableError(f"{name} nests its JSON {depth} deep; a game record nests at most {RECORD_MAX_DEPTH}")
    try:
        parsed = json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError, RecursionError) as error:
        raise TableError(f"{name} is not a JSON game record: {error}") from error
    _check_sizes(parsed, name)
    if isinstance(parsed, dict) and isinstance(parsed.get("record"), dict) and "golden_format" in parsed:
        parsed = parsed["record"]
    if not isinstance(parsed, dict):
        raise TableError(f"{name} is not a cardenvs game record")
    try:
        record = GameRecord.from_dict(parsed)
    except (ValueError, TypeError) as error:
        raise TableError(f"{name}: {error}") from error
    if record.env_id not in table_games():
        raise TableError(f"{name} records a game the table does not serve: {record.env_id!r:.80}")
    return record


def _json_depth(text: str) -> int:
    """The deepest nesting of JSON arrays and objects in ``text`` (brackets inside strings not counted)."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', "", text)
    depth = deepest = 0
    for bracket in re.finditer(r"[\[\]{}]", bare):
        depth += 1 if bracket.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > RECORD_MAX_DIGITS:
        raise ValueError(f"a number of {len(digits)} digits; a game record's numbers have at most "
                         f"{RECORD_MAX_DIGITS}")
    return int(digits)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number a game record holds")


def _check_sizes(value: Any, name: str) -> None:
    """TableError where a string, list or object of the parsed record is larger than a record's ever are."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str) and len(item) > RECORD_MAX_STRING:
            raise TableError(f"{name} holds a text of {len(item)} characters; a game record's have at most "
                             f"{RECORD_MAX_STRING}")
        if isinstance(item, (list, dict)):
            if len(item) > RECORD_MAX_ITEMS:
                raise TableError(f"{name} holds a list of {len(item)} items; a game record's have at most "
                                 f"{RECORD_MAX_ITEMS}")
            pending.extend(item if isinstance(item, list) else [*item.keys(), *item.values()])


class TableStore:
    """The tables of every browser session, in server memory (a reload of a page finds its table again).

    A session id is handed out by the pages that start a table (:meth:`issue`); only such an id can hold
    tables, so requests without one never push anybody's tables out. Each session has a form token
    (:meth:`form_token`) that every form of its pages carries. What is kept is bounded three ways: tables per
    session, estimated bytes per session and estimated bytes over all sessions (the oldest tables, then the least
    recently used sessions, go first); a live table that goes is stopped.
    """

    def __init__(self) -> None:
        self._sessions: OrderedDict[str, OrderedDict[str, LiveTable | ReplayTable]] = OrderedDict()
        self._issued: OrderedDict[str, None] = OrderedDict()
        self._token_key = secrets.token_bytes(32)

    @staticmethod
    def random_seed() -> int:
        """A seed for a game whose page asked for no known deal: from the operating system's random source, over
        the whole seed range (so that no deal can be found by trying seeds)."""
        return secrets.randbelow(SEED_LIMIT)

    def issue(self) -> str:
        """A new session id, remembered (among the latest :data:`ISSUED_KEPT`) until it holds a table."""
        session = secrets.token_urlsafe(16)
        self._issued[session] = None
        while len(self._issued) > ISSUED_KEPT:
            self._issued.popitem(last=False)
        return session

    def form_token(self, session: str) -> str:
        """The token the forms of ``session``'s pages carry: a keyed hash of the session id (a page of another site
        cannot read it, so it cannot post a form of this server in the person's name)."""
        return hmac.new(self._token_key, session.encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:32]

    def check_token(self, session: str | None, token: object) -> None:
        """TableError (403) unless ``token`` is the form token of ``session``."""
        if session is None or not isinstance(token, str) or not hmac.compare_digest(
                token.encode("utf-8", "replace"), self.form_token(session).encode()):
            raise TableError("this form did not come from a page of this server in this browser session (or the "
                             "page is too old): open the page again and use its form", 403)

    def known(self, session: str | None) -> bool:
        """Whether ``session`` was handed out by this server (and not yet forgotten)."""
        return session is not None and (session in self._sessions or session in self._issued)
    def require(self, session: str | None) -> None:
        """TableError (403) unless ``session`` was handed out by this server: a page must be opened first."""
        if not self.known(session):
            raise TableError("this browser session is not known to the server (cookies off, or the server was "
                             "restarted): open the game's page again and start from there", 403)

    def footprint(self, session: str | None = None) -> int:
        """Estimated bytes the tables keep: ``session``'s, or every session's."""
        sessions = self._sessions.values() if session is None else [self._sessions.get(session, {})]
        return sum(table.footprint() for tables in sessions for table in tables.values())

    def add(self, session: str | None, table: LiveTable | ReplayTable) -> str:
        """Keep ``table`` for ``session`` (an id from :meth:`issue`): its id; TableError for an unknown session
        or a table larger than a session may keep."""
        self.require(session)
        if table.footprint() > SESSION_BYTES_KEPT:
            raise TableError("this table is larger than the server keeps for one browser session", 413)
        self._issued.pop(session, None)
        tables = self._sessions.setdefault(session, OrderedDict())
        self._sessions.move_to_end(session)
        table_id = secrets.token_urlsafe(8)
        tables[table_id] = table
        while len(tables) > TABLES_PER_SESSION or self.footprint(session) > SESSION_BYTES_KEPT:
            _close(tables.popitem(last=False)[1])
        while len(self._sessions) > SESSIONS_KEPT or (len(self._sessions) > 1
                                                       and self.footprint() > SERVER_BYTES_KEPT):
            for gone in self._sessions.popitem(last=False)[1].values():
                _close(gone)
        return table_id

    def get(self, session: str | None, table_id: str, kind: str) -> Any:
        """The session's table, or TableError (404) for an unknown or stale one."""
        tables = self._sessions.get(session or "", {})
        table = tables.get(table_id)
        if table is None or table.kind != kind:
            raise TableError(
                "this table is not open in this browser session: the server was restarted, the table was closed "
                "to make room, or the link comes from another browser. Start a new game from the front page.", 404
            )
        self._sessions.move_to_end(session)
        return table

    def touched(self, session: str) -> None:
        """Re-check the session's bounds after one of its tables grew (a game played on)."""
        tables = self._sessions.get(session)
        while tables and len(tables) > 1 and self.footprint(session) > SESSION_BYTES_KEPT:
            _close(tables.popitem(last=False)[1])

    def deal_in_play(self, env_id: str, seed: int, table: LiveTable | ReplayTable | None = None) -> bool:
        """Whether a person plays the deal of ``env_id`` and ``seed`` at a live table of any session (other than
        ``table``) with its cards hidden: then no other table may show that deal's hidden cards."""
        return any(other is not table and isinstance(other, LiveTable) and other.hides_cards
                   and other.record.env_id == env_id and other.record.seed == seed
                   for tables in self._sessions.values() for other in tables.values())

    def live_tables(self) -> list[LiveTable]:
        """Every session's live tables."""
        return [table for tables in self._sessions.values() for table in tables.values()
                if isinstance(table, LiveTable)]

    def close(self) -> None:
        """Stop every live table's agents (the server shuts down)."""
        for table in self.live_tables():
            table.close()


def _close(table: LiveTable | ReplayTable) -> None:
    """Stop a table that goes (a live one's agents stop at their next decision)."""
    if isinstance(table, LiveTable):
        table.close()
