"""The games the web table holds: one played by a person against agents, one watched, one replayed.

These classes know nothing about HTTP: the app (:mod:`cardenvs.web.app`) turns their :class:`TableError` into a
page with the message, and every method that refuses a request raises before it changes anything.
"""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import cardenvs
from cardenvs.core.aec import CardEnv
from cardenvs.records import GameRecord, decisions, replay

#: the agents a page may seat (besides trained checkpoints): no free-form spec, so no path from a browser is loaded
BUILT_IN_AGENTS = ("heuristic", "random")
#: tables one browser session keeps; the oldest goes first
TABLES_PER_SESSION = 16
#: browser sessions the server keeps; the least recently used goes first
SESSIONS_KEPT = 256
#: decisions "play to the end" takes at most in one request (Slap games can be long)
RUN_TO_END_LIMIT = 20_000


class TableError(Exception):
    """A request the table refuses, with the message to show and the HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass
class LogLine:
    """One decision as the log shows it."""

    step: int  #: decisions before it in the game
    seat: int
    public: str  #: the action as the other seats see it
    full: str  #: the action's own name (what its seat chose)
    events: list[str] = field(default_factory=list)  #: what the game announced about it


def agent_choices(env_id: str, checkpoints: Path | None) -> list[str]:
    """The agent specs a page offers for ``env_id``: the built-in ones, then the trained checkpoint if any."""
    choices = list(BUILT_IN_AGENTS)
    if checkpoints is not None:
        model = checkpoints / f"{env_id}.pt"
        if model.is_file():
            choices.append(f"ppo:{model}")
    return choices


def agent_label(spec: str) -> str:
    """A short name of an agent spec for pages: ``trained (slap_v0.pt)`` for a checkpoint."""
    return f"trained ({Path(spec[4:]).name})" if spec.startswith("ppo:") else spec


def short_game_params(env_id: str) -> dict[str, Any]:
    """Parameters of a short game with the default seats (a turn or card limit, a single hand): the game's
    ``quick_params`` without its number of players, so that agents trained at the default table still fit."""
    from cardenvs.core.registry import get_game

    return {k: v for k, v in get_game(env_id).quick_params.items() if k != "num_players"}


def new_env(env_id: str, params: dict[str, Any]) -> CardEnv:
    """The env, or TableError naming what is wrong with the game or its parameters."""
    if env_id not in cardenvs.available_envs():
        raise TableError(f"unknown game {env_id!r}; the games are {', '.join(cardenvs.available_envs())}", 404)
    try:
        return cardenvs.env(env_id, **params)
    except (ValueError, TypeError) as error:
        raise TableError(str(error)) from error


class LiveTable:
    """A game in progress: agents in every seat but the person's (``human``; ``None`` when only watched)."""

    kind = "live"

    def __init__(self, env_id: str, params: dict[str, Any], seed: int, specs: dict[int, str],
                 human: int | None, checkpoints: Path | None):
        from cardenvs.agents.registry import make_agent

        self.env = new_env(env_id, params)
        self.game, self.params = self.env.game, self.env.params
        self.num_players = len(self.env.possible_agents)
        if human is not None and not 0 <= human < self.num_players:
            raise TableError(f"seat {human} does not exist; seats are 0 to {self.num_players - 1}")
        seats = [s for s in range(self.num_players) if s != human]
        if sorted(specs) != seats:
            raise TableError(f"choose an agent for each of seats {seats}")
        allowed = agent_choices(env_id, checkpoints)
        for seat, spec in specs.items():
            if spec not in allowed:
                raise TableError(f"agent {spec!r} for seat {seat} is not offered; choose one of {', '.join(allowed)}")
        self.human = human
        layout = self.env.layout
        self.agents = {}
        for seat, spec in specs.items():
            try:
                self.agents[seat] = make_agent(spec, env_id, layout, seed=seed + seat)
            except (ValueError, OSError, ImportError) as error:
                raise TableError(f"cannot seat {agent_label(spec)} at player_{seat}: {error}") from error
        names = [agent_label(specs[s]) if s in specs else "human" for s in range(self.num_players)]
        self.record = GameRecord(env_id, dataclasses.asdict(self.params), seed, agents=names)
        self.env.reset(seed=seed)
        self.final: dict[str, float] = {}
        self.log: list[LogLine] = []
        self.human_log_start = 0  # the log's length at the person's last decision: what is new since then
        self._advance()

    # -------------------------------------------------------------- reading
    @property
    def over(self) -> bool:
        return not self.env.agents

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

    # -------------------------------------------------------------- acting
    def play(self, action: int) -> None:
        """The person's decision; the agents then play until it is the person's turn again or the game ends."""
        if self.human is None:
            raise TableError("nobody plays at this table: it is only watched")
        if self.over:
            raise TableError("the game is over; start a new one")
        if self.to_act != self.human:
            raise TableError(f"it is player_{self.to_act}'s turn, not yours")
        legal = dict(self.legal_actions())
        if action not in legal:
            names = ", ".join(f"{a} ({name})" for a, name in legal.items())
            raise TableError(f"action {action} is not legal now; the legal actions are {names}")
        self.human_log_start = len(self.log) + 1
        self._apply(self.human, action)
        self._advance()

    def step(self) -> None:
        """One agent decision (watching); TableError when it is the person's turn or the game is over."""
        if self.over:
            raise TableError("the game is over")
        if self.to_act == self.human:
            raise TableError("it is your turn: choose an action")
        self._agent_move()

    def run_to_end(self) -> None:
        """Agent decisions until the game ends (watching)."""
        for _ in range(RUN_TO_END_LIMIT):
            if self.over or self.to_act == self.human:
                return
            self._agent_move()

    def _agent_move(self) -> None:
        agent, observation = self._decision()
        seat = self.env.possible_agents.index(agent)
        self._apply(seat, int(self.agents[seat].act(observation)))

    def _advance(self) -> None:
        """Agent decisions until the person is to act or the game is over."""
        self._decision()
        while self.human is not None and not self.over and self.to_act != self.human:
            self._agent_move()

    def _decision(self) -> tuple[str, dict] | tuple[None, None]:
        """The next live decision, retiring finished agents first (their final rewards go to ``final``)."""
        return next(decisions(self.env, self.final), (None, None))

    def _apply(self, seat: int, action: int) -> None:
        before = self.env.state_record.copy()
        self.env.step(action)
        self.record.actions.append(action)
        public = (self.game.public_action_name or self.game.action_name)(self.params, action)
        events = self.game.describe_step(before, self.env.state_record.copy(), self.params)
        self.log.append(LogLine(len(self.log), seat, public, self.game.action_name(self.params, action), events))
        self._decision()  # retires the agents that are done, so that ``to_act`` and ``over`` are current
        if self.over:
            self.record.rewards = self.rewards()


class ReplayTable:
    """A recorded game, every position kept as a snapshot so that it can be stepped forwards and back."""

    kind = "replay"

    def __init__(self, record: GameRecord):
        self.record = record
        self.snapshots: list[dict] = []
        self.moves: list[tuple[int, str]] = []  #: (seat, action name) of each recorded action
        final: dict[str, float] = {}
        env = None
        try:
            for env, agent, action in replay(record, final_rewards=final):
                self.snapshots.append(env.snapshot())
                game, params = env.game, env.params
                self.moves.append((env.possible_agents.index(agent), game.action_name(params, action)))
            if env is None:
                env = record.new_env()
            self.snapshots.append(env.snapshot())
        except (ValueError, TypeError, KeyError, IndexError) as error:
            # TypeError, KeyError, IndexError: a malformed deal or parameter inside an otherwise valid record
            raise TableError(f"this record cannot be replayed: {error}") from error
        self.env = env
        self.game, self.params = env.game, env.params
        self.num_players = len(env.possible_agents)
        self.final = [final.get(a, 0.0) for a in env.possible_agents] if final else None
        self.position = -1
        self.show(0)

    @property
    def steps(self) -> int:
        """Recorded actions: positions are 0 (the start) to ``steps`` (after the last)."""
        return len(self.moves)

    def show(self, position: int) -> None:
        """Set the env to the position before recorded action ``position`` (``steps``: the end)."""
        if not 0 <= position <= self.steps:
            raise TableError(f"step {position} does not exist; this record has steps 0 to {self.steps}")
        if position != self.position:
            self.env.restore(self.snapshots[position])
            self.position = position

    def text(self, seat: int | None) -> str:
        """The table as text, with ``seat``'s private view when given."""
        return self.env.table_text(seat)


def load_record(data: bytes, name: str) -> GameRecord:
    """A game record from an uploaded file: a record (``cardenvs play --save``) or a golden playthrough, which
    holds one under ``record``; TableError saying why not."""
    import json

    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TableError(f"{name} is not a JSON game record: {error}") from error
    if isinstance(parsed, dict) and isinstance(parsed.get("record"), dict) and "golden_format" in parsed:
        parsed = parsed["record"]
    if not isinstance(parsed, dict):
        raise TableError(f"{name} is not a cardenvs game record")
    try:
        record = GameRecord.from_dict(parsed)
    except (ValueError, TypeError) as error:
        raise TableError(f"{name}: {error}") from error
    if record.env_id not in cardenvs.available_envs():
        raise TableError(f"{name} records an unknown game {record.env_id!r}")
    return record


class TableStore:
    """The tables of every browser session, in server memory (a reload of a page finds its table again)."""

    def __init__(self) -> None:
        self._sessions: dict[str, dict[str, LiveTable | ReplayTable]] = {}

    @staticmethod
    def new_session_id() -> str:
        return secrets.token_urlsafe(16)

    @staticmethod
    def random_below(limit: int) -> int:
        """A seed for a game whose page gave none (the server's randomness, never a game's)."""
        return secrets.randbelow(limit)

    def add(self, session: str, table: LiveTable | ReplayTable) -> str:
        """Keep ``table`` for ``session``: its id."""
        tables = self._sessions.pop(session, {})
        self._sessions[session] = tables  # most recently used last
        while len(self._sessions) > SESSIONS_KEPT:
            del self._sessions[next(iter(self._sessions))]
        table_id = secrets.token_urlsafe(8)
        tables[table_id] = table
        while len(tables) > TABLES_PER_SESSION:
            del tables[next(iter(tables))]
        return table_id

    def get(self, session: str | None, table_id: str, kind: str) -> Any:
        """The session's table, or TableError (404) for an unknown or stale one."""
        table = self._sessions.get(session or "", {}).get(table_id)
        if table is None or table.kind != kind:
            raise TableError(
                "this table is not open in this browser session: the server was restarted, the table was closed "
                "to make room, or the link comes from another browser. Start a new game from the front page.", 404
            )
        return table
