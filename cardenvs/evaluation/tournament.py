"""Tournaments between agents: duplicate deals, rotated seats, confidence intervals and ratings.

A card game's result is mostly card luck. :func:`run_tournament` removes as much of it as the game allows and
reports how much is left::

    from cardenvs.evaluation import run_tournament
    result = run_tournament("gin_slaughtre_v0", ["random", "heuristic"], games=10_000, seed=0)
    print(result.table())

Seats
    The agents are laid out over the seats in order, repeated when there are fewer agents than seats: seat
    ``s`` belongs to lineup slot ``s % k`` for ``k`` agents. With two agents at Clabber's four seats that makes
    the partnerships {0, 2} and {1, 3}; with two agents at a four-player Slap table each agent plays two seats.
    Fewer than two agents, or more agents than seats, is refused: to measure an agent against itself, name it
    twice (the copies are told apart as ``name`` and ``name#2``).
Duplicate deals
    Every deal (a game seed) is replayed under every *arrangement* of the agents over the lineup slots: all
    ``k!`` permutations while ``k! <= 24`` (up to four agents), else the ``k`` cyclic rotations. Agents are
    permuted over slots, not over single seats, so partnerships stay partnerships. Over one deal's arrangements
    every agent holds every seat equally often, so each agent gets the same cards and the same seats as every
    other: card and seat luck cancel. One deal under all its arrangements is a *duplicate set*.
Games
    ``games`` counts games played, a game being one deal under one arrangement; it is rounded up to whole
    duplicate sets. Game ``g`` is deal ``g // A`` under arrangement ``g % A`` (``A`` arrangements), and deal
    ``d`` is the game of seed ``cardenvs.game_seed(seed, d)`` (the AEC env's ``reset(seed=...)``), so the
    deals depend only on ``seed``, never on how the games are batched.
Reward
    An agent's reward in a game is the mean, over the seats it plays, of each seat's return (the sum of its
    step rewards; for every cardenvs game that is the final reward). Truncated games count with the rewards
    they have (their number is reported).
Confidence interval
    ``mean_reward`` is the mean over duplicate sets of the agent's mean reward in the set; ``ci95`` is the
    half-width of the 95% confidence interval of that mean, ``1.96 * s / sqrt(n)`` over the ``n`` duplicate
    sets (normal approximation: use at least 30 deals). The games of one duplicate set share their cards and
    are not independent; the sets are, so the interval is honest.
Win
    An agent wins a game when its reward is the highest of the game (ties for the highest included) and
    strictly above some other agent's. A game where every agent has the same reward is a draw. With two
    agents a win is simply "more reward than the other".
Rating
    openskill's Plackett-Luce model (made for multiplayer and team games): every game is one match in which
    each agent is one team, ranked by its reward (equal rewards tie), rated in game order. ``rating`` is mu,
    ``rating_sigma`` is sigma and ``ordinal`` is ``mu - 3 sigma``.
Batched play
    When every agent can act on batches (``getattr(agent, "acts_in_batches", True)``), the games run on the
    batched env (:func:`cardenvs.vector_env`): up to ``batch_size`` games at once, each from its deal seed
    (``reset(seeds=...)``), and every slot whose game ends starts the next game at once
    (``VectorEnv.reset_games``) until none is left; finished slots then wait (``step``'s ``active``). At every
    step each agent acts once, through ``act_batch``, on the rows whose player to act is one of its seats
    (:func:`cardenvs.agents.base.act_on_rows`). Otherwise every game runs on the AEC env through ``act``. For
    deterministic agents both give identical results.
Followed games
    An agent that follows its games (``Agent.follows_games``: a search agent with ``belief=policy``) is told, in
    both ways of playing, every game it plays from its start: for each seat it plays, the seat's view at the first
    position, after every step (every seat's, the last included) and the end of the game
    (:mod:`cardenvs.agents.base` describes the calls). A game's key is its index (``game`` in the results file),
    and the views the agent acts on carry it.
Results file
    Every finished game is appended at once to a JSON-lines file (``results_path``; by default
    ``runs/tournaments/<env_id>-<hash>.jsonl``, the hash covering the env id, its parameters, the seed, the
    number of games and every agent's identity). The first line is the tournament's header, each other line
    one game (see :data:`RESULT_FIELDS`). A rerun with the same arguments reads the file and plays only the
    games missing from it; a file whose header differs is refused, so different tournaments never mix. An
    agent's identity is its spec plus the content hash of every trained network it may play: the checkpoint of
    ``ppo:PATH`` and ``rllib:PATH``, each ``ppo:PATH`` among a search's options, and the game's shipped network
    for every spec but ``random`` and ``heuristic`` (``trained``, and the search budgets that name it, explicitly or
    through the game's defaults), so that results played with a network that has since been replaced are never
    resumed. For an :class:`~cardenvs.agents.base.Agent` instance it is its class, name and a hash of its pickled
    state (an agent that cannot be pickled gets a fresh identity every run, and so never resumes).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import pickle
import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

import cardenvs
from cardenvs.agents.base import Agent, act_in_env, act_on_rows, begin_rows, observe_rows, view_in_env
from cardenvs.core.game import Game
from cardenvs.core.rng import SEED_LIMIT, SEED_RULE

#: a tournament compares agents: a lone agent would only be measured against itself, in one seat arrangement
MIN_AGENTS = 2
#: arrangements of ``k`` agents are all ``k!`` permutations while there are at most this many
MAX_PERMUTED_ARRANGEMENTS = 24
#: the most games the batched env plays at once: a step's fixed cost dominates, so large batches are cheapest
#: (docs/evaluation.md has the measurements)
DEFAULT_BATCH_SIZE = 16384
#: where results files go unless ``results_path`` is given
RESULTS_DIR = Path("runs") / "tournaments"
#: version of the results file's layout (part of the header)
RESULTS_FORMAT = 1
#: agent specs that never play a trained network: their identity holds no network's hash
NETWORK_FREE_SPECS = ("random", "heuristic")
#: a ``ppo:PATH`` model named among a spec's options (a search's rollout, value or belief model)
NESTED_MODEL = re.compile(r"ppo:([^,]+)")
#: the fields of one game's line in the results file
RESULT_FIELDS = {
    "game": "game index: deal * arrangements + arrangement",
    "deal": "deal index",
    "arrangement": "arrangement index",
    "seed": "the deal's game seed (AEC env reset(seed=...))",
    "seats": "agent index of every seat",
    "rewards": "return of every seat",
    "truncated": "whether the game was cut short by its step limit",
    "length": "decisions taken in the game",
}
#: the two-sided 95% quantile of the normal distribution
Z_95 = NormalDist().inv_cdf(0.975)
#: a zero-sum check's tolerance on float32 rewards
ZERO_SUM_TOLERANCE = 1e-5
# Hex digits of the argument hash in a default results file name.
_HASH_DIGITS = 16
# Kept apart from the deal seeds so that agents' own generators never repeat the games' chance.
_AGENT_SEED_SALT = 0x3C6E_F372_FE94_F82B


@dataclass
class AgentStats:
    """One agent's results over a tournament.

    Attributes:
        name: the agent's (unique) name.
        games: games it played (every agent plays every game).
        mean_reward: its mean reward per game (mean over duplicate sets).
        ci95: half-width of the 95% confidence interval of ``mean_reward`` (``nan`` below two deals).
        wins: games it won (see the module docstring).
        draws: games where every agent had the same reward.
        win_rate: ``wins / games``.
        rating: openskill mu.
        rating_sigma: openskill sigma.
    """

    name: str
    games: int
    mean_reward: float
    ci95: float
    wins: int
    draws: int
    win_rate: float
    rating: float
    rating_sigma: float

    @property
    def ordinal(self) -> float:
        """A conservative rating, ``mu - 3 sigma``."""
        return self.rating - 3 * self.rating_sigma

    def to_dict(self) -> dict[str, Any]:
        """The stats as JSON-ready values (``None`` for a missing interval)."""
        data = {name: _finite_or_none(value) for name, value in dataclasses.asdict(self).items()}
        data["ordinal"] = _finite_or_none(self.ordinal)
        return data


@dataclass
class HeadToHead:
    """Two agents compared game by game.

    Attributes:
        agents: the two agents' names, ``(first, second)``.
        games: games compared.
        first_wins: games where the first had more reward.
        second_wins: games where the second had more reward.
        draws: games where both had the same reward.
        mean_difference: mean of (first's reward - second's reward), over duplicate sets.
        ci95: half-width of the 95% confidence interval of ``mean_difference``.
    """

    agents: tuple[str, str]
    games: int
    first_wins: int
    second_wins: int
    draws: int
    mean_difference: float
    ci95: float

    def to_dict(self) -> dict[str, Any]:
        data = {name: _finite_or_none(value) for name, value in dataclasses.asdict(self).items()}
        data["agents"] = list(self.agents)
        return data

    def summary(self) -> str:
        """One line: wins, draws and the reward difference with its interval."""
        first, second = self.agents
        return (
            f"head-to-head over {self.games} games: {first} {self.first_wins} wins, {second} {self.second_wins} "
            f"wins, {self.draws} draws; {first} - {second} reward {plus_minus(self.mean_difference, self.ci95)}"
        )


@dataclass
class TournamentResult:
    """What a tournament found. Build one from results with :meth:`from_records`.

    Attributes:
        env_id: the game.
        agents: the agents' unique names, in lineup order.
        stats: name -> :class:`AgentStats`.
        head_to_head: the two agents compared, when there are exactly two; else ``None``.
        games: games in the results.
        deals: distinct deals in the results.
        truncated_games: games cut short by their step limit.
        params: the game's parameters.
        seed: the tournament's seed.
        arrangements: agent index of every seat, for each arrangement.
        results_path: the results file, if any.
        new_games: games this call played (the others came from the results file).
        seconds: wall time of this call.
    """

    env_id: str
    agents: list[str]
    stats: dict[str, AgentStats]
    head_to_head: HeadToHead | None
    games: int
    deals: int
    truncated_games: int
    params: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    arrangements: list[list[int]] = field(default_factory=list)
    results_path: str | None = None
    new_games: int = 0
    seconds: float = 0.0

    @classmethod
    def from_records(cls, env_id: str, agents: Sequence[str], records: Sequence[dict[str, Any]], **info: Any):
        """Aggregate game results (lines of a results file, see :data:`RESULT_FIELDS`).

        Args:
            env_id: the game.
            agents: the agents' names; ``seats`` in the records index this list.
            records: one dict per game with at least ``game``, ``deal``, ``seats``, ``rewards`` and
                ``truncated``.
            **info: the remaining :class:`TournamentResult` fields (``params``, ``seed``, ...).

        Raises:
            ValueError: no records, or a record in which some agent holds no seat.
        """
        if not records:
            raise ValueError("no game results to aggregate")
        records = sorted(records, key=lambda record: record["game"])
        names = list(agents)
        rewards = agent_rewards(records, len(names))
        deals = np.array([record["deal"] for record in records])
        means, ci95 = duplicate_mean_ci(rewards, deals)
        best = rewards.max(axis=1, keepdims=True)
        draw = (rewards.min(axis=1) == best[:, 0])
        wins = ((rewards == best) & ~draw[:, None]).sum(axis=0)
        ratings = plackett_luce_ratings(rewards)
        games = len(records)
        stats = {
            name: AgentStats(
                name=name, games=games, mean_reward=float(means[k]), ci95=float(ci95[k]), wins=int(wins[k]),
                draws=int(draw.sum()), win_rate=float(wins[k]) / games, rating=ratings[k][0],
                rating_sigma=ratings[k][1],
            )
            for k, name in enumerate(names)
        }
        head_to_head = None
        if len(names) == 2:
            difference = rewards[:, 0] - rewards[:, 1]
            mean_difference, difference_ci = duplicate_mean_ci(difference[:, None], deals)
            head_to_head = HeadToHead(
                agents=(names[0], names[1]), games=games, first_wins=int((difference > 0).sum()),
                second_wins=int((difference < 0).sum()), draws=int((difference == 0).sum()),
                mean_difference=float(mean_difference[0]), ci95=float(difference_ci[0]),
            )
        return cls(
            env_id=env_id, agents=names, stats=stats, head_to_head=head_to_head, games=games,
            deals=len(np.unique(deals)), truncated_games=sum(bool(record["truncated"]) for record in records),
            **info,
        )

    def ranking(self) -> list[AgentStats]:
        """The agents' stats, best mean reward first."""
        return sorted(self.stats.values(), key=lambda stats: -stats.mean_reward)

    def to_dict(self) -> dict[str, Any]:
        """Everything as JSON-serialisable values (non-finite numbers become ``None``)."""
        return {
            "env_id": self.env_id,
            "params": self.params,
            "seed": self.seed,
            "agents": self.agents,
            "games": self.games,
            "deals": self.deals,
            "truncated_games": self.truncated_games,
            "arrangements": self.arrangements,
            "stats": {name: stats.to_dict() for name, stats in self.stats.items()},
            "head_to_head": None if self.head_to_head is None else self.head_to_head.to_dict(),
            "results_path": self.results_path,
            "new_games": self.new_games,
            "seconds": self.seconds,
        }

    def table(self) -> str:
        """A markdown table, best mean reward first."""
        rows = [
            f"{self.env_id}: {self.games} games ({self.deals} deals x {len(self.arrangements) or '?'} arrangements)",
            "",
            "| agent | games | mean reward ± CI95 | win rate | rating (μ ± σ) |",
            "|---|---|---|---|---|",
        ]
        rows += [
            f"| {s.name} | {s.games} | {plus_minus(s.mean_reward, s.ci95)} | {s.win_rate:.1%} | "
            f"{s.rating:.2f} ± {s.rating_sigma:.2f} |"
            for s in self.ranking()
        ]
        if self.truncated_games:
            rows.append(f"\n{self.truncated_games} games were truncated by the step limit")
        return "\n".join(rows)


def agent_rewards(records: Sequence[dict[str, Any]], num_agents: int) -> np.ndarray:
    """``[games, agents]``: each agent's mean return over the seats it played in each game."""
    seats = np.array([record["seats"] for record in records], np.int64)
    returns = np.array([record["rewards"] for record in records], np.float64)
    if seats.shape != returns.shape or seats.ndim != 2:
        raise ValueError("every record needs one agent index and one reward per seat")
    rewards = np.empty((len(records), num_agents))
    for k in range(num_agents):
        held = seats == k
        counts = held.sum(axis=1)
        if (counts == 0).any():
            game = records[int(np.flatnonzero(counts == 0)[0])]["game"]
            raise ValueError(f"agent {k} holds no seat in game {game}")
        rewards[:, k] = (returns * held).sum(axis=1) / counts
    return rewards


def two_sided_zero_sum(records: Sequence[dict[str, Any]]) -> bool:
    """Whether every game of a two-agent match gave all seats of an agent one reward, the two adding up to 0."""
    for record in records:
        seats, rewards = np.asarray(record["seats"]), np.asarray(record["rewards"], np.float64)
        first, second = rewards[seats == 0], rewards[seats == 1]
        if np.ptp(first) > ZERO_SUM_TOLERANCE or np.ptp(second) > ZERO_SUM_TOLERANCE:
            return False
        if abs(first[0] + second[0]) > ZERO_SUM_TOLERANCE:
            return False
    return True


def duplicate_mean_ci(values: np.ndarray, deals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and 95% CI half-width of ``values[games, columns]``, duplicate sets (equal deals) as the unit."""
    _, set_index = np.unique(deals, return_inverse=True)
    num_sets = int(set_index.max()) + 1
    counts = np.bincount(set_index, minlength=num_sets)
    set_means = np.stack(
        [np.bincount(set_index, weights=values[:, c], minlength=num_sets) / counts for c in range(values.shape[1])],
        axis=1,
    )
    means = set_means.mean(axis=0)
    if num_sets < 2:
        return means, np.full(values.shape[1], math.nan)
    return means, Z_95 * set_means.std(axis=0, ddof=1) / math.sqrt(num_sets)


def plackett_luce_ratings(rewards: np.ndarray) -> list[tuple[float, float]]:
    """openskill Plackett-Luce ``(mu, sigma)`` of each agent after rating ``rewards[games, agents]`` in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating()] for _ in range(rewards.shape[1])]
    if len(teams) < 2:  # a lone agent has no one to be ranked against: it keeps the prior
        return [(float(team[0].mu), float(team[0].sigma)) for team in teams]
    for game_rewards in rewards.tolist():
        teams = model.rate(teams, scores=game_rewards)
    return [(float(team[0].mu), float(team[0].sigma)) for team in teams]


def seat_arrangements(num_agents: int, num_players: int) -> list[list[int]]:
    """Agent index of every seat, for each arrangement of ``num_agents`` agents at ``num_players`` seats.

    Seat ``s`` belongs to lineup slot ``s % num_agents``; the arrangements permute the agents over the slots
    (all permutations while there are at most :data:`MAX_PERMUTED_ARRANGEMENTS`, else the cyclic rotations).
    The first arrangement is the lineup itself.

    Raises:
        ValueError: no agents, or more agents than seats.
    """
    if num_agents < 1:
        raise ValueError("a tournament needs at least one agent")
    if num_agents > num_players:
        raise ValueError(
            f"{num_agents} agents do not fit {num_players} seats; pass at most {num_players} agents or more players"
        )
    if math.factorial(num_agents) <= MAX_PERMUTED_ARRANGEMENTS:
        orders = [list(order) for order in itertools.permutations(range(num_agents))]
    else:
        orders = [[(slot + shift) % num_agents for slot in range(num_agents)] for shift in range(num_agents)]
    return [[order[seat % num_agents] for seat in range(num_players)] for order in orders]


def run_tournament(
    env_id: str,
    agents: Sequence[str | Agent],
    games: int,
    seed: int = 0,
    num_players: int | None = None,
    params: dict[str, Any] | None = None,
    progress: bool = True,
    results_path: str | Path | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> TournamentResult:
    """Play a duplicate-deal tournament and aggregate it (semantics in the module docstring).

    Args:
        env_id: a registered env id.
        agents: at least two agent specs (``random``, ``heuristic``, ``ppo:PATH``, ``rllib:PATH``; see
            :mod:`cardenvs.agents.registry`; not ``human``) or :class:`~cardenvs.agents.base.Agent` instances, in
            lineup order.
            Each is named by its ``name`` (trained policies by the shortest ending of their paths that tells
            them apart), made unique with ``#2``, ``#3``, ... Spec agents draw randomness from generators
            seeded from ``seed``.
        games: games to play (rounded up to whole duplicate sets).
        seed: the tournament's seed, an integer from 0 to 2**64-1: the deals and the spec agents' generators
            follow from it.
        num_players: the number of seats, for games that take a ``num_players`` parameter (``None``: the
            game's default, or ``params``'s).
        params: other game parameters (``cardenvs.env(env_id, **params)``).
        progress: show a tqdm progress bar.
        results_path: the JSON-lines results file (created, or resumed when it holds this tournament);
            ``None``: ``runs/tournaments/<env_id>-<hash of the arguments>.jsonl``.
        batch_size: the most games the batched env plays at once.

    Returns:
        The :class:`TournamentResult` over every game of the tournament (resumed ones included).

    Raises:
        ValueError: an unknown env id or agent spec, ``human``, bad parameters, a seed out of range, fewer than
            two agents or more agents than seats, a checkpoint that cannot be loaded (or whose extra is not
            installed: :class:`cardenvs.agents.registry.MissingExtraError`), or a results file holding another
            tournament.
    """
    started = time.perf_counter()
    game = cardenvs.get_game(env_id)
    game_params = _game_params(game, num_players, params)
    _check_positive("games", games)
    _check_positive("batch_size", batch_size)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed={seed!r} is not allowed; it must be {SEED_RULE}")
    if len(agents) < MIN_AGENTS:
        raise ValueError(
            "a tournament compares agents: give at least two (the same agent twice plays it against itself)"
        )
    games, seed, batch_size = int(games), int(seed), int(batch_size)
    layout = game.observation_layout(game_params)
    players = game.num_players(game_params)
    arrangements = seat_arrangements(len(agents), players)
    built, identities = _build_agents(agents, env_id, layout, seed)
    names = _unique_names([agent.name for agent in built])
    num_deals = -(-games // len(arrangements))
    header = {
        "format": RESULTS_FORMAT,
        "env_id": env_id,
        "params": dataclasses.asdict(game_params),
        "seed": seed,
        "games": num_deals * len(arrangements),
        "agents": [{"name": name, "identity": identity} for name, identity in zip(names, identities, strict=True)],
        "arrangements": arrangements,
    }
    path = Path(results_path) if results_path is not None else RESULTS_DIR / f"{env_id}-{_header_hash(header)}.jsonl"
    results = ResultsFile(path, header)
    jobs = [
        (deal * len(arrangements) + a, deal, a)
        for deal in range(num_deals)
        for a in range(len(arrangements))
        if deal * len(arrangements) + a not in results.done
    ]
    from tqdm.auto import tqdm

    bar = tqdm(
        total=header["games"], initial=header["games"] - len(jobs), desc=env_id, unit="game", disable=not progress,
        dynamic_ncols=True,
    )
    deal_seeds = {deal: cardenvs.game_seed(seed, deal) for _, deal, _ in jobs}

    def record(job: tuple[int, int, int], returns: np.ndarray, truncated: bool, length: int) -> None:
        index, deal, arrangement = job
        results.append({
            "game": index, "deal": deal, "arrangement": arrangement, "seed": deal_seeds[deal],
            "seats": arrangements[arrangement], "rewards": returns.tolist(), "truncated": truncated,
            "length": length,
        })
        bar.update(1)

    try:
        if all(getattr(agent, "acts_in_batches", True) for agent in built):
            _play_batched(env_id, game_params, built, arrangements, jobs, deal_seeds, record, batch_size)
        else:
            _play_aec(env_id, game_params, built, arrangements, jobs, deal_seeds, record)
    finally:
        bar.close()
        results.close()
    return TournamentResult.from_records(
        env_id, names, results.records, params=header["params"], seed=seed, arrangements=arrangements,
        results_path=str(path), new_games=len(jobs), seconds=time.perf_counter() - started,
    )


class ResultsFileError(ValueError):
    """A results file that holds another tournament, or a line that is not a game result."""


class ResultsFile:
    """A tournament's JSON-lines results file: its header line, then one line per finished game.

    Opening reads the games already in the file (a last line cut short by an interruption is dropped) and
    refuses a file whose header is not ``header``; :meth:`append` writes one game and flushes it.

    Args:
        path: the file (its folder is created).
        header: the tournament's arguments, the file's first line.

    Raises:
        ResultsFileError: the file holds another tournament, or a line that is not a game result.
    """

    def __init__(self, path: Path, header: dict[str, Any]):
        self.path = path
        self.records: list[dict[str, Any]] = []
        self.done: set[int] = set()
        text = path.read_text() if path.exists() else ""
        complete = text[: text.rfind("\n") + 1]  # an interrupted write leaves a last line without its newline
        lines = complete.splitlines()
        if lines:
            try:
                found = json.loads(lines[0]).get("tournament")
            except (json.JSONDecodeError, AttributeError):
                found = None
            if found != header:
                raise ResultsFileError(
                    f"{path} holds the results of another tournament (different game, parameters, seed, games "
                    "or agents); choose another results path or delete that file"
                )
            for number, line in enumerate(lines[1:], start=2):
                try:
                    result = json.loads(line)
                    index = int(result["game"])
                except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                    raise ResultsFileError(
                        f"{path}:{number} is not a game result; delete the file to start over") from None
                if index not in self.done:
                    self.done.add(index)
                    self.records.append(result)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w") as stream:  # rewritten without any cut-short last line
            stream.write(json.dumps({"tournament": header}) + "\n")
            stream.writelines(json.dumps(result) + "\n" for result in self.records)
        self._stream = open(path, "a")  # noqa: SIM115 -- kept open across appends, closed by close()

    def append(self, result: dict[str, Any]) -> None:
        """Write one finished game."""
        self._stream.write(json.dumps(result) + "\n")
        self._stream.flush()
        self.done.add(result["game"])
        self.records.append(result)

    def close(self) -> None:
        self._stream.close()


Job = tuple[int, int, int]  # (game index, deal, arrangement)
Recorder = Callable[[Job, np.ndarray, bool, int], None]


def _play_batched(
    env_id: str, params: Any, agents: list[Agent], arrangements: list[list[int]], jobs: list[Job],
    deal_seeds: dict[int, int], record: Recorder, batch_size: int,
) -> None:
    """Play ``jobs`` on the batched env, up to ``batch_size`` at once, each finished slot taking the next job; agents
    that follow games are told every step of theirs (module docstring), each game keyed by its index."""
    if not jobs:
        return
    size = min(batch_size, len(jobs))
    venv = cardenvs.vector_env(env_id, size, **dataclasses.asdict(params))
    owners_of = np.array(arrangements, np.int64)
    slot_jobs = list(jobs[:size])
    next_job = size
    obs, masks, players = venv.reset(seeds=[deal_seeds[deal] for _, deal, _ in slot_jobs])
    seat_owners = owners_of[[arrangement for _, _, arrangement in slot_jobs]]  # [size, seats]
    following = [agent for agent in agents if agent.follows_games]
    slot_games = [index for index, _, _ in slot_jobs]  # each slot's game key: the game's index
    begin_rows(agents, seat_owners, venv, np.arange(size), slot_games)
    returns = np.zeros((size, venv.num_players))
    lengths = np.zeros(size, np.int64)
    active = np.ones(size, np.bool_)
    actions = np.zeros(size, np.int64)
    while active.any():
        act_on_rows(agents, seat_owners, obs, masks, players, actions, rows=active, venv=venv, games=slot_games)
        lengths[active] += 1
        actors = players.copy()
        obs, masks, players, rewards, terminated, truncated = venv.step(actions, active=active)
        returns[active] += rewards[active]
        observe_rows(agents, seat_owners, venv, np.flatnonzero(active), slot_games, actors, actions)
        ended = np.flatnonzero(active & (terminated | truncated))
        for i in ended:
            record(slot_jobs[i], returns[i], bool(truncated[i]), int(lengths[i]))
            for agent in following:
                agent.end_game(slot_games[i])
        refilled = ended[: len(jobs) - next_job]
        active[ended[len(refilled):]] = False
        if refilled.size:
            new_jobs = jobs[next_job : next_job + refilled.size]
            next_job += refilled.size
            for i, job in zip(refilled, new_jobs, strict=True):
                slot_jobs[i] = job
                slot_games[i] = job[0]
            seat_owners[refilled] = owners_of[[arrangement for _, _, arrangement in new_jobs]]
            returns[refilled] = 0
            lengths[refilled] = 0
            obs, masks, players = venv.reset_games(refilled, [deal_seeds[deal] for _, deal, _ in new_jobs])
            begin_rows(agents, seat_owners, venv, refilled, slot_games)


def _play_aec(
    env_id: str, params: Any, agents: list[Agent], arrangements: list[list[int]], jobs: list[Job],
    deal_seeds: dict[int, int], record: Recorder,
) -> None:
    """Play ``jobs`` one by one on the AEC env, every agent through ``act``; agents that follow games are told every
    step of theirs (module docstring), each game keyed by its index."""
    env = cardenvs.env(env_id, **dataclasses.asdict(params))
    seat_of = {name: seat for seat, name in enumerate(env.possible_agents)}
    for job in jobs:
        index, deal, arrangement = job
        owners = arrangements[arrangement]
        followed = [seat for seat, owner in enumerate(owners) if agents[owner].follows_games]
        env.reset(seed=deal_seeds[deal])
        for seat in followed:
            agents[owners[seat]].begin_game(index, view_in_env(env, seat, index))
        returns = np.zeros(len(env.possible_agents))
        length = 0
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            seat_name = env.agent_selection
            actor = seat_of[seat_name]
            action = int(act_in_env(agents[owners[actor]], env, env.observe(seat_name), index))
            env.step(action)
            length += 1
            for name, reward in env.rewards.items():
                returns[seat_of[name]] += reward
            for seat in followed:
                agents[owners[seat]].observe_game(index, view_in_env(env, seat, index),
                                                  action if seat == actor else None)
        record(job, returns, any(env.truncations.values()), length)
        for owner in {owners[seat] for seat in followed}:
            agents[owner].end_game(index)


def _game_params(game: Game, num_players: int | None, params: dict[str, Any] | None) -> Any:
    """The game's validated parameters from ``params`` and ``num_players``."""
    if not isinstance(params, (dict, type(None))):
        raise ValueError(f"params must be a dict of game parameters, got {type(params).__name__}")
    values = dict(params or {})
    if num_players is not None:
        if values.get("num_players", num_players) != num_players:
            raise ValueError(f"num_players={num_players} contradicts params num_players={values['num_players']}")
        values["num_players"] = num_players
    return game.make_params(**values)


def _check_positive(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name}={value!r} is not allowed; it must be a positive integer")


def _build_agents(
    agents: Sequence[str | Agent], env_id: str, layout: Any, seed: int
) -> tuple[list[Agent], list[dict[str, Any]]]:
    """The agents (specs made through the registry) and their identities for the results header.

    Trained policies given by path are named by the shortest ending of their paths that tells them apart
    (``ppo:a/model`` and ``ppo:b/model``), so that two checkpoints of the same file name stay recognisable.
    """
    from cardenvs.agents.registry import (
        TRAINED_KINDS,
        check_spec,
        checkpoint_names,
        checkpoint_sha256,
        make_agent,
        shipped_checkpoint,
    )

    for agent in agents:
        if isinstance(agent, str):
            check_spec(agent)
            if agent == "human":
                raise ValueError(
                    "human cannot play in a tournament: every deal is played again with the seats swapped, so a "
                    "person would know the cards; play one game against the agents with: cardenvs play GAME"
                )
        elif not isinstance(agent, Agent):
            raise ValueError(f"agent {agent!r} is neither an agent spec nor an Agent")
    built, identities = [], []
    for index, agent in enumerate(agents):
        if isinstance(agent, Agent):
            built.append(agent)
            identities.append(_instance_identity(agent))
            continue
        identity: dict[str, Any] = {"spec": agent}
        kind, _, argument = agent.partition(":")
        if kind == "ppo":
            checkpoint = Path(argument)
            if not checkpoint.is_file():
                raise ValueError(f"agent {agent!r}: no checkpoint file at {checkpoint}")
            identity["checkpoint_sha256"] = checkpoint_sha256(checkpoint)
        else:
            nested = [Path(path) for path in NESTED_MODEL.findall(argument) if Path(path).is_file()]
            if nested:
                identity["option_checkpoints_sha256"] = [checkpoint_sha256(path) for path in nested]
        shipped = shipped_checkpoint(env_id)
        if agent not in NETWORK_FREE_SPECS and shipped is not None:
            identity["shipped_sha256"] = checkpoint_sha256(shipped)
        agent_seed = cardenvs.game_seed(seed ^ _AGENT_SEED_SALT, index)
        built.append(make_agent(agent, env_id, layout, seed=agent_seed))
        if kind == "rllib":
            identity["checkpoint_sha256"] = built[-1].checkpoint_sha256
        identities.append(identity)
    for kind in TRAINED_KINDS:
        indices = [i for i, agent in enumerate(agents) if isinstance(agent, str) and agent.startswith(f"{kind}:")]
        names = checkpoint_names([agents[i].partition(":")[2] for i in indices])
        for i, name in zip(indices, names, strict=True):
            built[i].name = f"{kind}:{name}"
    return built, identities


def _instance_identity(agent: Agent) -> dict[str, Any]:
    identity: dict[str, Any] = {"class": f"{type(agent).__module__}.{type(agent).__qualname__}", "name": agent.name}
    try:
        identity["state_sha256"] = hashlib.sha256(pickle.dumps(agent)).hexdigest()
    except Exception:  # anything unpicklable: never resume its results
        identity["unpicklable"] = uuid.uuid4().hex
    return identity


def _unique_names(names: Sequence[str]) -> list[str]:
    """``names`` with repeats suffixed ``#2``, ``#3``, ..."""
    unique: list[str] = []
    for name in names:
        candidate, count = name, 1
        while candidate in unique:
            count += 1
            candidate = f"{name}#{count}"
        unique.append(candidate)
    return unique


def _header_hash(header: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(header, sort_keys=True).encode()).hexdigest()[:_HASH_DIGITS]


def _finite_or_none(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def plus_minus(mean: float | None, ci95: float | None) -> str:
    """A mean and its 95% CI half-width as every results table prints them, ``+0.123 ± 0.045`` (``± ?`` for an
    interval that is missing or not finite, ``?`` for a missing mean).

    Args:
        mean: the mean (None: not measured).
        ci95: the half-width of its 95% confidence interval (None or not finite: unknown).
    """
    if mean is None:
        return "?"
    return f"{mean:+.3f} ± {ci95:.3f}" if ci95 is not None and math.isfinite(ci95) else f"{mean:+.3f} ± ?"
