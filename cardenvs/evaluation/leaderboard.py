"""The leaderboard of a game: every shipped agent in a round robin of duplicate-deal matches, rated, and each
agent's approximate exploitability at one budget.

:func:`run_leaderboard` plays one duplicate-deal match (:func:`cardenvs.evaluation.run_tournament`) per pair of
agents, all on the same deals, and rates every agent with openskill's Plackett-Luce model over all their games
(interleaved deal by deal, so that no match counts more for coming first). Then, for each agent, its approximate
exploitability at the stated budget from the measure its caller hands it (:class:`ExploitabilityMeasure`): the
gain of a best response trained against the agent (docs/exploitability.md). Training a best response is the
training layer's (``cardenvs.training.exploit.leaderboard_exploitability``, the ``train`` extra), which this layer
never imports: ``cardenvs leaderboard`` passes it in, and a leaderboard without one is the round robin alone.

With ``jobs`` above 1 the round robin's matches, the agents' own games that the pool's gains need, and then the
agents' exploitability measures are run that many at a time in worker processes (a match, or a BR against a search
agent, keeps about one core busy). Every game's seed is fixed, so the matches' results are the same as one at a
time; a BR trained for a number of minutes beside another trains on a share of the cores, so it makes fewer
decisions in its budget (its run says how many).

Everything is saved under a results folder (default ``runs/leaderboard/<env_id>``): each match's results file
(a rerun plays only the games missing), each agent's BR run (reused when its settings are the same), and
``leaderboard.json``. So a table of several games can be built one game, or one agent, at a time.
:func:`plot_rating_vs_exploitability` draws rating against exploitability, one panel per game.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

import cardenvs
from cardenvs.agents.base import Agent
from cardenvs.core.rng import checked_seed
from cardenvs.evaluation.tournament import agent_rewards, duplicate_mean_ci, plus_minus, two_sided_zero_sum

#: where a leaderboard keeps its matches, BR runs and JSON: ``runs/leaderboard/<env_id>``
RESULTS_DIR = Path("runs") / "leaderboard"
#: the agents of every game, then those that need a trained network or a hidden-card resampler
BASE_AGENTS = ("random", "heuristic")
TRAINED_AGENT = "trained"
#: the search agents at the leaderboard's budgets: pimc at its game's default, ismcts at 25 iterations, an eighth of
#: its default, so that a match of it takes minutes rather than an hour (docs/exploitability.md)
SEARCH_AGENTS = ("pimc", "ismcts:iterations=25")
#: games per match and per BR's final match, and the BR's budget in minutes
DEFAULT_GAMES = 2000
DEFAULT_EXPLOIT_MINUTES = 10.0
#: the worker processes' start method: a fresh interpreter, never a fork of threads (numba's, torch's) mid-run
WORKER_START_METHOD = "spawn"
#: threads each worker process lets a torch or OpenMP library use, so that ``jobs`` workers share ``jobs`` cores
WORKER_THREADS = "1"
#: the file names under a game's results folder
JSON_NAME, MATCHES_DIR, EXPLOIT_DIR = "leaderboard.json", "matches", "exploit"
#: the figure: width per game panel and height, in inches
PANEL_WIDTH, PANEL_HEIGHT, DPI = 5.0, 4.0, 120


#: the trained responders of an exploitability row, as ``cardenvs.training.exploit`` names them
RESPONDERS = ("learned BR", "search BR")
#: the responder of an exploitability of 0: the agent itself is a response that gains 0
NO_RESPONDER = "the agent itself"


def strongest_response(gains: dict[str, tuple[float, float]]) -> tuple[str, float, float]:
    """The responder with the largest gain, its gain and the gain's CI95; ``(NO_RESPONDER, 0, 0)`` where none
    gains more than 0: what an agent's exploitability is, a lower bound at least as high as every gain known.

    Args:
        gains: responder -> (gain, CI95) against one agent.
    """
    best = max(gains, key=lambda name: gains[name][0], default=None)
    if best is None or not gains[best][0] > 0:
        return NO_RESPONDER, 0.0, 0.0
    return best, float(gains[best][0]), float(gains[best][1])


class ExploitabilityMeasure(Protocol):
    """Measures an agent's approximate exploitability for a leaderboard, or reads back one measured before.

    Called once per agent with the leaderboard's budget; returns the row the leaderboard keeps (``gain``,
    ``gain_ci95``, ``margin``, ``margin_ci95``, ``games``, ``two_sided``, ``decisions``, ``train_seconds``, ``start``,
    ``policy``, ``run_dir``, ``command``), or None where there is none to read and ``train`` is False.
    """

    def __call__(self, env_id: str, spec: str, run_dir: Path, *, minutes: float, games: int, seed: int, train: bool,
                 settings: dict[str, Any] | None) -> dict[str, Any] | None:
        """The row of agent ``spec`` of ``env_id``.

        Args:
            env_id: the game.
            spec: the agent's spec.
            run_dir: the folder of the agent's measurement (reused when it holds one of the same settings).
            minutes: the best response's training budget.
            games: games of its final match.
            seed: the run's seed.
            train: measure it where none is saved (False: only read a saved one).
            settings: more settings of the measurement (the learning curve's size, the start network, ...).
        """
        ...


def game_records(path: str | Path) -> list[dict[str, Any]]:
    """The games of a tournament's results file (its lines after the header), in game order."""
    lines = Path(path).read_text().splitlines()[1:]
    return sorted((json.loads(line) for line in lines if line.strip()), key=lambda record: record["game"])


def shipped_agents(env_id: str) -> list[str]:
    """The specs of every agent shipped for ``env_id``: random, the rule-based agent, the trained agent where the
    game ships one, and the search agents (at :data:`SEARCH_AGENTS`' budgets) where the registry has them and the
    game has a resampler."""
    from cardenvs.agents.registry import SPEC_KINDS, shipped_checkpoint

    game = cardenvs.get_game(env_id)
    agents = list(BASE_AGENTS if game.rule_based_agent else BASE_AGENTS[:1])
    if shipped_checkpoint(env_id) is not None:
        agents.append(TRAINED_AGENT)
    if game.resample is not None:
        agents += [spec for spec in SEARCH_AGENTS if spec.partition(":")[0] in SPEC_KINDS]
    return agents


def agent_key(agent: str | Agent) -> str:
    """A folder or file name for an agent (a match's results file, a best response's run folder): its spec (or an
    instance's name) with every character but letters, digits, ``-``, ``_``, ``.`` and ``=`` written as ``_``.

    Args:
        agent: an agent spec or an Agent.
    """
    text = agent if isinstance(agent, str) else agent.name
    return "".join(c if c.isalnum() or c in "-_.=" else "_" for c in text)


@dataclass
class Leaderboard:
    """A game's leaderboard (what ``leaderboard.json`` holds).

    Attributes:
        env_id: the game.
        agents: the agents' specs, in the order given.
        games: games per match.
        seed: the matches' seed (the same deals in every match).
        ratings: spec -> openskill ``[mu, sigma]`` over every game of every match.
        mean_reward: spec -> ``[mean, ci95]``: its mean reward per game over its matches (each match counted
            alike).
        head_to_head: ``"a|b"`` -> ``[mean difference a - b, ci95]`` of the match of ``a`` and ``b``.
        exploitability: spec -> the BR's result (``gain``, ``gain_ci95``, ``margin``, ``margin_ci95``, ``games``,
            ``decisions``, ``policy``, ``run_dir``, ``command``, ...), or None where it was not measured.
        exploit_minutes: the BR budget.
        exploit_games: games of each BR's final match.
    """

    env_id: str
    agents: list[str]
    games: int
    seed: int
    ratings: dict[str, list[float]]
    mean_reward: dict[str, list[float]]
    head_to_head: dict[str, list[float]]
    exploitability: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    exploit_minutes: float = DEFAULT_EXPLOIT_MINUTES
    exploit_games: int = DEFAULT_GAMES

    def to_dict(self) -> dict[str, Any]:
        """Everything as JSON values (non-finite numbers as None)."""
        return _finite(self.__dict__)

    @classmethod
    def load(cls, path: str | Path) -> Leaderboard:
        """The leaderboard saved at ``path`` (:meth:`save`)."""
        data = json.loads(Path(path).read_text())
        return cls(**{name: value for name, value in data.items() if name in cls.__dataclass_fields__})

    def save(self, path: str | Path) -> Path:
        """Write the leaderboard as JSON at ``path``; returns the path."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        return path

    def ranking(self) -> list[str]:
        """The agents, highest rating first."""
        return sorted(self.agents, key=lambda spec: -self.ratings[spec][0])

    def table(self) -> str:
        """The leaderboard as markdown: one row per agent, then the head-to-head margins."""
        budget = (f"the largest gain of a learned BR ({self.exploit_minutes:g} min from the shipped trained network, "
                  f"{self.exploit_games} games), a search BR and every other agent of the round robin, or 0")
        lines = [f"{self.env_id}: round robin of {self.games} games per match (seed {self.seed}); "
                 f"exploitability: {budget}", "",
                 "| agent | rating (μ ± σ) | mean reward vs the others ± CI95 | exploitability ± CI95 | by | "
                 "learned BR gain | search BR gain |", "|---|---|---|---|---|---|---|"]
        for spec in self.ranking():
            mu, sigma = self.ratings[spec]
            found = self.exploitability.get(spec)
            gains = (found or {}).get("gains", {})
            cells = [plus_minus(found["gain"], found["gain_ci95"]), found.get("responder", "learned BR")] if found \
                else ["—", "—"]
            cells += [plus_minus(*gains[name]) if name in gains else "—" for name in RESPONDERS]
            lines.append(f"| {spec} | {mu:.1f} ± {sigma:.1f} | {plus_minus(*self.mean_reward[spec])} | "
                         + " | ".join(cells) + " |")
        ranking = self.ranking()
        lines += ["", "head to head, row minus column (mean reward per game ± CI95):", "",
                  "| | " + " | ".join(ranking) + " |", "|---" * (len(ranking) + 1) + "|"]
        for row in ranking:
            cells = ["" if row == column else plus_minus(*self.difference(row, column)) for column in ranking]
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def difference(self, first: str, second: str) -> tuple[float, float]:
        """``first``'s mean reward minus ``second``'s in their match, and its CI95."""
        if f"{first}|{second}" in self.head_to_head:
            mean, ci = self.head_to_head[f"{first}|{second}"]
            return mean, ci
        mean, ci = self.head_to_head[f"{second}|{first}"]
        return -mean, ci


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def pairwise_ratings(agents: Sequence[str], matches: dict[tuple[str, str], np.ndarray]) -> dict[str, list[float]]:
    """openskill Plackett-Luce ``[mu, sigma]`` of each agent over the games of every pairwise match.

    Args:
        agents: the agents.
        matches: ``(a, b)`` -> ``rewards[games, 2]`` of their match (``a``'s, then ``b``'s), in game order.

    The games are rated in rounds: game ``g`` of every match (in the order of ``matches``), then game ``g + 1``,
    so that the order of the matches barely matters.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {spec: model.rating() for spec in agents}
    longest = max((len(rewards) for rewards in matches.values()), default=0)
    for game in range(longest):
        for (first, second), rewards in matches.items():
            if game < len(rewards):
                [[ratings[first]], [ratings[second]]] = model.rate([[ratings[first]], [ratings[second]]],
                                                                   scores=rewards[game].tolist())
    return {spec: [float(rating.mu), float(rating.sigma)] for spec, rating in ratings.items()}


def run_leaderboard(env_id: str, agents: Sequence[str] | None = None, games: int = DEFAULT_GAMES, seed: int = 0,
                    exploit_minutes: float = DEFAULT_EXPLOIT_MINUTES, exploit_games: int = DEFAULT_GAMES,
                    results_dir: str | Path | None = None, exploit: bool = True, progress: bool = False,
                    exploit_settings: dict[str, Any] | None = None,
                    exploit_agents: Sequence[str] | None = None,
                    measure: ExploitabilityMeasure | None = None, jobs: int = 1) -> Leaderboard:
    """Play the round robin, measure (or reuse) each agent's exploitability, save and return the leaderboard.

    Args:
        env_id: a registered env id.
        agents: agent specs (default: :func:`shipped_agents`); at least two.
        games: games per match (rounded up to whole duplicate sets).
        seed: the matches' seed; the BRs' runs take it too.
        exploit_minutes: each BR's training budget.
        exploit_games: games of each BR's final match.
        results_dir: the game's results folder (default ``runs/leaderboard/<env_id>``).
        exploit: measure exploitability (False: only the round robin, with any BR runs already saved).
        progress: show the matches' progress bars.
        exploit_settings: more settings of every BR run, handed to ``measure`` (``cardenvs exploit``'s ``start``,
            ``decisions``, ``curve_points``, ``curve_games``, ``options``); a saved run is reused only where they
            are the same.
        exploit_agents: the agents whose BR is trained where none is saved (default: every agent); the others
            show a saved BR of this budget, or none.
        measure: what measures an agent's exploitability (None: none is measured or read, the column stays
            empty).
        jobs: matches, then measures, run at a time, each in a worker process (1: one after another in this
            process).

    Raises:
        ValueError: an unknown game or spec, fewer than two agents, an exploit agent not among the agents, a seed
            outside the seed rule, ``jobs`` below 1; all before anything is played.
    """
    from cardenvs.agents.registry import check_spec
    from cardenvs.evaluation import run_tournament

    agents = list(agents or shipped_agents(env_id))
    if env_id not in cardenvs.available_envs():
        raise ValueError(f"unknown env id {env_id!r}; choose from {', '.join(cardenvs.available_envs())}")
    seed = checked_seed(seed)
    if len(set(agents)) < len(agents) or len(agents) < 2:
        raise ValueError("a leaderboard needs two or more different agents")
    for spec in agents:
        check_spec(spec)
    exploit_agents = agents if exploit_agents is None else list(exploit_agents)
    strangers = [spec for spec in exploit_agents if spec not in agents]
    if strangers:
        raise ValueError(f"exploit agents {', '.join(strangers)} are not among the leaderboard's agents")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a whole number of at least 1, not {jobs!r}")
    folder = Path(results_dir) if results_dir is not None else RESULTS_DIR / env_id
    matches_folder = folder / MATCHES_DIR
    pairs = list(itertools.combinations(agents, 2))
    play_in_workers(env_id, [(list(pair), match_path(matches_folder, *pair)) for pair in slowest_first(pairs)],
                    games, seed, jobs)
    matches: dict[tuple[str, str], np.ndarray] = {}
    head_to_head: dict[str, list[float]] = {}
    rewards_of: dict[str, list[tuple[float, float]]] = {spec: [] for spec in agents}
    for first, second in pairs:
        path = match_path(matches_folder, first, second)
        result = run_tournament(env_id, [first, second], games, seed=seed, progress=progress, results_path=path)
        matches[first, second] = agent_rewards(game_records(path), 2)
        head_to_head[f"{first}|{second}"] = [result.head_to_head.mean_difference, result.head_to_head.ci95]
        for spec, name in zip((first, second), result.agents, strict=True):
            rewards_of[spec].append((result.stats[name].mean_reward, result.stats[name].ci95))
    board = Leaderboard(
        env_id=env_id, agents=agents, games=games, seed=seed, ratings=pairwise_ratings(agents, matches),
        mean_reward={spec: _combined(found) for spec, found in rewards_of.items()}, head_to_head=head_to_head,
        exploit_minutes=exploit_minutes, exploit_games=exploit_games)
    if measure is not None and exploit:  # the own games the BRs' pool gains will need, played now, jobs at a time
        needed = [spec for spec in exploit_agents if needs_own_games(spec, agents, matches_folder)]
        play_in_workers(env_id, [([spec, spec], own_path(matches_folder, spec)) for spec in slowest_first(needed)],
                        games, seed, jobs)
    measured = {} if measure is None else call_in_workers(measure, {
        spec: {"env_id": env_id, "spec": spec, "run_dir": folder / EXPLOIT_DIR / agent_key(spec),
               "minutes": exploit_minutes, "games": exploit_games, "seed": seed,
               "train": exploit and spec in exploit_agents, "settings": exploit_settings}
        for spec in slowest_first(agents)}, jobs)
    board.exploitability = {spec: measured.get(spec) for spec in agents}
    for spec, found in board.exploitability.items():
        if found is not None:
            pool = pool_gains(env_id, spec, agents, games, seed, matches_folder, progress)
            found["gains"] = {**found.get("gains", {}), **{f"pool: {other}": gain for other, gain in pool.items()}}
            found["responder"], found["gain"], found["gain_ci95"] = strongest_response(
                {name: tuple(gain) for name, gain in found["gains"].items()})
    folder.mkdir(parents=True, exist_ok=True)
    board.save(folder / JSON_NAME)
    return board


def pool_gains(env_id: str, spec: str, agents: Sequence[str], games: int, seed: int, folder: Path,
               progress: bool = False) -> dict[str, list[float]]:
    """What every other agent of the round robin gains against ``spec``, with its CI95: its mean reward in their
    match minus ``spec``'s own result in the same seats of the same deals (docs/exploitability.md's gain).

    In a game of two zero-sum sides that is half the head-to-head margin; otherwise ``spec``'s own games on the
    round robin's deals are played (``spec`` in every seat; kept as ``own--SPEC.jsonl`` beside the matches).

    Args:
        env_id: the game.
        spec: the agent answered.
        agents: the round robin's agents.
        games: games per match.
        seed: the matches' seed.
        folder: the matches' folder.
        progress: show the own games' progress bar.
    """
    from cardenvs.evaluation import run_tournament

    matches = {}
    for other in agents:
        if other == spec:
            continue
        first, second = (other, spec) if agents.index(other) < agents.index(spec) else (spec, other)
        records = game_records(match_path(folder, first, second))
        matches[other] = (records, 0 if first == other else 1)
    found: dict[str, list[float]] = {}
    own = None
    if needs_own_games(spec, agents, folder):
        path = own_path(folder, spec)
        run_tournament(env_id, [spec, spec], games, seed=seed, progress=progress, results_path=path)
        own = agent_rewards(game_records(path), 2)
    for other, (records, slot) in matches.items():
        rewards = agent_rewards(records, 2)
        if own is None:  # two zero-sum sides: the agent's own result in either side averages 0 over a deal set
            difference = (rewards[:, slot] - rewards[:, 1 - slot]) / 2
        else:
            difference = rewards[:, slot] - own[: len(records), slot]
        means, cis = duplicate_mean_ci(difference[:, None], np.array([record["deal"] for record in records]))
        found[other] = [float(means[0]), float(cis[0])]
    return found


def needs_own_games(spec: str, agents: Sequence[str], folder: Path) -> bool:
    """Whether :func:`pool_gains` needs ``spec``'s own games: not every saved match of ``spec`` with another of
    ``agents`` (in the matches ``folder``) is between two zero-sum sides."""
    return not all(two_sided_zero_sum(game_records(match_path(folder, *pair)))
                   for pair in itertools.combinations(agents, 2) if spec in pair)


def match_path(folder: Path, first: str, second: str) -> Path:
    """The results file of the match of ``first`` and ``second`` in a leaderboard's matches folder."""
    return folder / f"{agent_key(first)}--{agent_key(second)}.jsonl"


def own_path(folder: Path, spec: str) -> Path:
    """The results file of ``spec``'s own games (``spec`` in every seat) in a leaderboard's matches folder."""
    return folder / f"own--{agent_key(spec)}.jsonl"


def slowest_first(items: Sequence[Any]) -> list[Any]:
    """Matches (pairs of agent specs) or agents (specs) with the most search agents first, else in their order: the
    games of search agents take longest, so started first they do not keep one worker busy after the others are
    done."""
    from cardenvs.agents.registry import SEARCH_KINDS

    def searches(item: Any) -> int:
        specs = (item,) if isinstance(item, str) else item
        return sum(spec.partition(":")[0] in SEARCH_KINDS for spec in specs)

    return sorted(items, key=lambda item: -searches(item))


def play_in_workers(env_id: str, lineups: Sequence[tuple[list[str], Path]], games: int, seed: int,
                    jobs: int) -> None:
    """Play the matches of ``lineups`` (agent specs, results file) to ``games`` games each, ``jobs`` at a time in
    worker processes, and return when all are saved; with ``jobs`` 1 nothing is played here (the caller's
    :func:`~cardenvs.evaluation.run_tournament` plays each match in this process, with its progress bar).

    Args:
        env_id: the game.
        lineups: each match's agents and results file.
        games: games per match.
        seed: the matches' seed.
        jobs: worker processes.
    """
    if jobs > 1:
        call_in_workers(_play_match, {path: {"env_id": env_id, "agents": agents, "games": games, "seed": seed,
                                             "path": path} for agents, path in lineups}, jobs)


def call_in_workers(function: Any, calls: dict[Any, dict[str, Any]], jobs: int) -> dict[Any, Any]:
    """``function(**arguments)`` for every call, ``jobs`` at a time in worker processes (with ``jobs`` 1, or one
    call, here, one after another); key -> its result. ``function`` and its arguments must pickle (a module's
    function). A worker's error is raised here.

    Args:
        function: what each call runs.
        calls: key -> the call's keyword arguments.
        jobs: worker processes.
    """
    if jobs < 2 or len(calls) < 2:
        return {key: function(**arguments) for key, arguments in calls.items()}
    context = multiprocessing.get_context(WORKER_START_METHOD)
    with context.Pool(processes=min(jobs, len(calls)), initializer=_start_worker) as pool:  # exit: workers killed
        pending = {key: pool.apply_async(function, kwds=arguments) for key, arguments in calls.items()}
        results = {key: result.get() for key, result in pending.items()}
        pool.close()  # all done: let the workers end on their own, their resources released
        pool.join()
    return results


def _play_match(env_id: str, agents: list[str], games: int, seed: int, path: Path) -> None:
    """A worker's match: played to ``games`` games and saved at ``path`` (the result is read back from the file)."""
    from cardenvs.evaluation import run_tournament

    run_tournament(env_id, agents, games, seed=seed, progress=False, results_path=path)


def _start_worker() -> None:
    """A worker's start: one thread for torch and OpenMP, set before either is imported; Ctrl-C left to the parent,
    which stops every worker at once (a match's games are saved as they end, so a rerun goes on from there)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = WORKER_THREADS


def saved_leaderboard(env_id: str, results_dir: str | Path | None = None) -> Leaderboard:
    """The leaderboard of ``env_id`` that :func:`run_leaderboard` saved in ``results_dir`` (default
    ``runs/leaderboard/<env_id>``).

    Raises:
        ValueError: there is none, or it cannot be read.
    """
    path = (Path(results_dir) if results_dir is not None else RESULTS_DIR / env_id) / JSON_NAME
    try:
        board = Leaderboard.load(path)
    except (OSError, ValueError, TypeError) as error:
        raise ValueError(f"no saved leaderboard of {env_id} can be read at {path} ({error}); run the leaderboard "
                         "first") from None
    if board.env_id != env_id:
        raise ValueError(f"{path} holds the leaderboard of {board.env_id}, not {env_id}")
    return board


def _combined(results: Sequence[tuple[float, float]]) -> list[float]:
    """The mean of independent matches' means, and its CI95 (their half-widths added in quadrature)."""
    means, cis = np.array([mean for mean, _ in results]), np.array([ci for _, ci in results])
    return [float(means.mean()), float(np.sqrt((cis**2).sum()) / len(cis))]


def plot_rating_vs_exploitability(boards: Sequence[Leaderboard], path: str | Path) -> Path:
    """Draw each game's agents as rating (openskill μ ± σ) against exploitability (± CI95), one panel per game,
    as a PNG at ``path``; returns the path. Agents without a measured exploitability are left out."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(PANEL_WIDTH * len(boards), PANEL_HEIGHT), layout="constrained")
    axes_list = np.atleast_1d(figure.subplots(1, len(boards)))
    for axes, board in zip(axes_list, boards, strict=True):
        for spec in board.agents:
            found = board.exploitability.get(spec)
            if not found:
                continue
            mu, sigma = board.ratings[spec]
            ci = found["gain_ci95"] if found["gain_ci95"] is not None else 0.0
            axes.errorbar(found["gain"], mu, xerr=ci, yerr=sigma, fmt="o", capsize=4)
            axes.annotate(spec, (found["gain"], mu), textcoords="offset points", xytext=(6, 6))
        axes.set_title(board.env_id)
        axes.set_xlabel(f"exploitability (largest gain of any response; {board.exploit_minutes:g} min learned BR)")
        axes.set_ylabel("openskill rating μ")
        axes.grid(alpha=0.3)
    path = Path(path)
    figure.savefig(path, format="png", dpi=DPI)
    return path
