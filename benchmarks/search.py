"""How fast the search agents think: rollout decisions per second and search decisions per second, per game, in one run.

For each game (default parameters, Clabber as a single hand, unless ``--params-json`` says otherwise), from positions
of play (``--positions`` games of a batched env after ``--settle`` random steps, each one where the seat to act has
at least two legal actions, so that every searched decision is a real search):

1. **resample calls/s**: ``Game.resample`` on those positions, one call per position in turn;
2. **random rollout decisions/s**: ``compiled_playouts`` (cardenvs.core.playout: the whole playout in one compiled,
   multi-threaded kernel) over ``--playouts`` resampled records, each first playing a random legal action; the
   decisions counted are the records' ``step_count`` after minus before;
3. **heuristic rollout decisions/s**: the same with the rule-based agent as the rollout policy, the way the search
   agents play it. Where the agent has a compiled policy (Gin Slaughtre, Clabber), that is ``compiled_playouts`` with
   the ``rule_based`` policy, measured as above (the table marks it "compiled"). Elsewhere it is ``Playouts.returns``
   (agents/search.py: a batched env stepped once per decision, the policy acting in Python between steps) over
   ``--heuristic-playouts`` records; a decision is one game stepped in one of those steps (one ``step_count``
   increment), counted on the playouts' env as it steps, since a finished game restarts there;
4. **search decisions/s** of each ``--pimc`` and ``--ismcts`` budget: ``agent.act_views`` on every position at once,
   as a tournament hands a search agent every game in which it is to act; decisions/s is positions × calls /
   seconds, so it is the compute per decision at that batch size.

Every measurement runs one untimed call first (numba compiles, the playouts' env is made at its size), then repeats
its call for ``--seconds`` (at least once). Rollout decisions are the engine steps a search spends its time on; a
search decision costs about (its budget × the playout's length) of them.

Usage::

    python benchmarks/search.py                          # every game, default budgets (many minutes)
    python benchmarks/search.py --quick                  # smoke run: short games, tiny budgets, 8 positions
    python benchmarks/search.py --envs slabberjan_v0 --pimc determinizations=8,rollouts=1,rollout=random

It prints a markdown table and writes every number to JSON (``--json``, default
``benchmarks/results/search.json``) and optionally the table to ``--markdown PATH``.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import tyro

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere: this checkout's modules

import cardenvs
from benchmarks.run import _load_average, fmt_rate, machine_info, progress, usage_error
from cardenvs.agents.base import SeatView, seat_views
from cardenvs.agents.registry import make_agent
from cardenvs.agents.search import ISMCTSOptions, Playouts, _records, _reseeded, parse_options
from cardenvs.core.playout import compiled_playouts

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO_ROOT / "benchmarks" / "results" / "search.json"
#: parameters each game is measured with unless ``--params-json`` says otherwise (Clabber: one hand is one game)
DEFAULT_PARAMS: dict[str, dict[str, Any]] = {"clabber_v0": {"single_hand": True}}
#: the search budgets measured by default, small to large (the part of an agent spec after ``pimc:`` / ``ismcts:``);
#: the compiled random rollout at every size, the rule-based rollout (the agents' default) at the small one; every
#: playout runs to the end (``depth=0``), so that a column measures the same search in every game (a game's
#: ``search_defaults`` would otherwise stop some at a depth, with a value network)
DEFAULT_PIMC = (
    "determinizations=4,rollouts=1,rollout=random,depth=0",
    "determinizations=16,rollouts=2,rollout=random,depth=0",
    "determinizations=32,rollouts=2,rollout=random,depth=0",
    "determinizations=4,rollouts=1,rollout=heuristic,depth=0",
)
DEFAULT_ISMCTS = (
    "iterations=25,rollout=random,depth=0",
    "iterations=100,rollout=random,depth=0",
    "iterations=400,rollout=random,depth=0",
    "iterations=25,rollout=heuristic,depth=0",
)
#: ``--quick``: budgets small enough for a smoke run
QUICK_PIMC = (
    "determinizations=2,rollouts=1,rollout=random,depth=0",
    "determinizations=2,rollouts=1,rollout=heuristic,depth=0",
)
QUICK_ISMCTS = ("iterations=4,rollout=random,depth=0", "iterations=4,rollout=heuristic,depth=0")
#: the rollout policy of measurement 3 (the search agents' default rollout)
HEURISTIC = "heuristic"
#: random steps after which positions are taken; more are taken, one step apart, until there are enough
MAX_POSITION_STEPS = 10_000


@dataclass
class Options:
    """Everything the benchmark can be told: each field is the ``--option`` of the same name (``_`` written ``-``)
    and its docstring, on one line, is the option's help.
    """

    envs: Annotated[
        list[str] | None,
        tyro.conf.arg(metavar="ENV_ID [ENV_ID ...]", help_behavior_hint="(default: every game with a resampler)"),
    ] = None
    """env ids to benchmark"""
    seconds: float = 3.0
    """seconds each measurement repeats its call for (at least one call, after one untimed call)"""
    positions: int = 64
    """positions searched at once (one act_views call), also the positions resampled and played out from"""
    settle: int = 10
    """random steps of the batched env before positions are taken"""
    playouts: int = 4096
    """records per compiled random-playout call"""
    heuristic_playouts: int = 256
    """records per heuristic-playout call stepped from Python (each decision a round trip through Python); a
    compiled rule-based policy plays ``--playouts`` records per call"""
    pimc: Annotated[list[str], tyro.conf.arg(metavar="OPTIONS [OPTIONS ...]")] = field(
        default_factory=lambda: list(DEFAULT_PIMC)
    )
    """pimc budgets to measure, each the part of a spec after 'pimc:'"""
    ismcts: Annotated[list[str], tyro.conf.arg(metavar="OPTIONS [OPTIONS ...]")] = field(
        default_factory=lambda: list(DEFAULT_ISMCTS)
    )
    """ismcts budgets to measure, each the part of a spec after 'ismcts:'"""
    params_json: Annotated[
        str | None, tyro.conf.arg(metavar="JSON", help_behavior_hint="(default: defaults; Clabber single_hand)")
    ] = None
    """game parameters, JSON text or a JSON file: {env_id: {param: value}} per env"""
    seed: int = 0
    """seed of the positions, the resampling and the agents"""
    note: str = ""
    """free text stored in the JSON and printed under the table (e.g. what else the machine was doing)"""
    quick: bool = False
    """smoke run: each game's short quick_params, 0.5 s per measurement, 8 positions, 256 / 32 playouts, tiny budgets"""
    json: Annotated[Path, tyro.conf.arg(metavar="PATH")] = DEFAULT_JSON
    """where to write every number as JSON (directory created)"""
    markdown: Annotated[
        Path | None, tyro.conf.arg(metavar="PATH", help_behavior_hint="(default: none)")
    ] = None
    """also write the table here"""


def parse_args(argv: Sequence[str] | None = None) -> Options:
    """Options from the command line (tyro: one ``--option`` per `Options` field), checked."""
    opts = tyro.cli(Options, args=argv, description=(__doc__ or "").split("\n\n")[0],
                    config=(tyro.conf.FlagCreatePairsOff,))
    if opts.quick:
        opts.seconds, opts.positions, opts.playouts, opts.heuristic_playouts = 0.5, 8, 256, 32
        opts.pimc, opts.ismcts = list(QUICK_PIMC), list(QUICK_ISMCTS)
    if not (opts.seconds > 0 and opts.positions >= 1 and opts.playouts >= 1 and opts.heuristic_playouts >= 1):
        usage_error("--seconds must be > 0 and --positions, --playouts, --heuristic-playouts >= 1")
    if opts.settle < 0:
        usage_error("--settle must be >= 0")
    for kind, budgets in (("pimc", opts.pimc), ("ismcts", opts.ismcts)):
        for budget in budgets:
            try:
                parse_options(kind, budget)
            except ValueError as error:
                usage_error(str(error))
    return opts


def budget_label(kind: str, budget: str) -> str:
    """A short column name for a budget: ``pimc 16×2 random``, ``ismcts 200 heuristic`` (``ismcts 200×4 random``
    with 4 playouts an iteration)."""
    options = parse_options(kind, budget)
    if isinstance(options, ISMCTSOptions):
        playouts = f"×{options.rollouts}" if options.rollouts > 1 else ""
        return f"ismcts {options.iterations}{playouts} {options.rollout}"
    return f"pimc {options.determinizations}×{options.rollouts} {options.rollout}"


def game_params(opts: Options, env_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The parameters of each game: ``--params-json``'s, else (``--quick``) its quick_params, else the defaults
    here."""
    given: dict[str, Any] = {}
    if opts.params_json is not None:
        text = opts.params_json
        if not text.lstrip().startswith("{") and Path(text).is_file():
            text = Path(text).read_text()
        given = json.loads(text)
        if not isinstance(given, dict) or not all(isinstance(v, dict) for v in given.values()):
            usage_error("--params-json must be a JSON object {env_id: {param: value}}")
    chosen = {}
    for env_id in env_ids:
        fallback = cardenvs.get_game(env_id).quick_params if opts.quick else DEFAULT_PARAMS.get(env_id, {})
        chosen[env_id] = dict(given.get(env_id, fallback))
    return chosen


# ----------------------------------------------------------------------------------------------------- timing
def repeat_timed(call: Callable[[], int], seconds: float) -> dict[str, float]:
    """Run ``call`` once untimed, then again and again for ``seconds`` (at least once); ``call`` returns the work
    it did (decisions). The rate is work over the timed calls' wall time."""
    call()
    work = calls = 0
    start = time.perf_counter()
    while True:
        work += call()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {"per_s": work / elapsed, "work": work, "calls": calls, "seconds": elapsed,
            "seconds_per_call": elapsed / calls}


def take_positions(env_id: str, params: dict, count: int, settle: int, seed: int) -> tuple[Any, list[SeatView]]:
    """``count`` seat views of positions of random play where the seat to act has a choice: the games of a
    ``count``-game batched env after ``settle`` random steps, stepped on until enough such positions were seen."""
    venv = cardenvs.vector_env(env_id, count, **params)
    venv.reset(seed=seed)
    for _ in range(settle):
        venv.step(venv.sample_actions())
    views: list[SeatView] = []
    for _ in range(MAX_POSITION_STEPS):
        rows = np.flatnonzero((venv.action_masks != 0).sum(axis=1) >= 2)[: count - len(views)]
        views += seat_views(venv, rows, venv.current_players, venv.observations, venv.action_masks)
        if len(views) == count:
            return venv, views
        venv.step(venv.sample_actions())
    raise RuntimeError(f"{env_id}: fewer than {count} positions with a choice in {MAX_POSITION_STEPS} steps")


def playout_batch(views: Sequence[SeatView], size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``size`` resampled records, the positions in turn, and a random legal first action for each."""
    records = _records([views[k % len(views)].resample(rng) for k in range(size)])
    first = np.array([rng.choice(np.flatnonzero(views[k % len(views)].action_mask)) for k in range(size)], np.int64)
    return records, first


def time_resample(views: Sequence[SeatView], seconds: float, rng: np.random.Generator) -> dict[str, float]:
    """Resample calls/s over the positions in turn."""
    def call() -> int:
        for view in views:
            view.resample(rng)
        return len(views)

    return repeat_timed(call, seconds)


def time_compiled_playouts(
    views: Sequence[SeatView], opts: Options, rng: np.random.Generator, policy: str = "random"
) -> dict[str, float]:
    """Decisions/s of compiled playouts with ``policy`` from ``--playouts`` resampled records (freshly reseeded
    each call, so each call plays new games)."""
    records, first = playout_batch(views, opts.playouts, rng)
    num_actions = views[0].action_mask.shape[0]
    observation_size = views[0].observation.shape[0]
    before = records["step_count"].astype(np.int64)

    def call() -> int:
        played = _reseeded(records.copy(), rng)
        compiled_playouts(played, first, num_actions, policy, observation_size)
        return int((played["step_count"] - before).sum())

    result = repeat_timed(call, opts.seconds)
    result["records"] = opts.playouts
    return result


class _CountingStep:
    """Stands in for a batched env's ``step``: counts the games each call steps (the active ones), then steps."""

    def __init__(self, step: Callable[..., Any]):
        self.step = step
        self.decisions = 0

    def __call__(self, actions: np.ndarray, active: np.ndarray | None = None, **kwargs: Any) -> Any:
        self.decisions += len(actions) if active is None else int(np.count_nonzero(active))
        return self.step(actions, active=active, **kwargs)


def time_policy_playouts(
    env_id: str, views: Sequence[SeatView], opts: Options, rng: np.random.Generator, rollout: str = HEURISTIC
) -> dict[str, float]:
    """Decisions/s of ``Playouts.returns`` with ``rollout`` at every seat over ``--heuristic-playouts`` resampled
    records (a decision: one game stepped once on the playouts' env)."""
    records, first = playout_batch(views, opts.heuristic_playouts, rng)
    playouts = Playouts(env_id, views[0].params, rollout, opts.seed)
    venv = playouts._env(len(records))  # made now, so that every call steps this env and the count sees it all
    counter = _CountingStep(venv.step)
    venv.step = counter

    def call() -> int:
        counted = counter.decisions
        playouts.returns(_reseeded(records.copy(), rng), first)
        return counter.decisions - counted

    result = repeat_timed(call, opts.seconds)
    result["records"] = opts.heuristic_playouts
    return result


def time_search(env_id: str, spec: str, views: Sequence[SeatView], opts: Options) -> dict[str, float]:
    """Search decisions/s of the agent ``spec``: ``act_views`` on every position at once; for ``ismcts`` also
    ``iterations_per_s``, tree iterations of one search a second (decisions/s × iterations)."""
    agent = make_agent(spec, env_id, cardenvs.get_game(env_id).observation_layout(views[0].params), opts.seed)

    def call() -> int:
        agent.act_views(views)
        return len(views)

    result = repeat_timed(call, opts.seconds)
    if isinstance(agent.options, ISMCTSOptions):
        result["iterations_per_s"] = result["per_s"] * agent.options.iterations
    return result


def attempt(row: dict[str, Any], key: str, measure: Callable[[], Any]) -> None:
    """``row[key] = measure()``; a failure is recorded as ``row[key + "_error"]`` and the other measurements run."""
    try:
        row[key] = measure()
    except Exception as exc:  # a game whose resampler or agent fails must not stop the others
        row[f"{key}_error"] = f"{type(exc).__name__}: {exc}"
        progress(f"  {key}: {row[f'{key}_error']}")


def bench_game(env_id: str, params: dict, opts: Options) -> dict[str, Any]:
    """Every measurement of one game."""
    row: dict[str, Any] = {"env_id": env_id, "params": params, "search": {}}
    rng = np.random.default_rng(opts.seed)
    try:
        _, views = take_positions(env_id, params, opts.positions, opts.settle, opts.seed)
    except Exception as exc:
        row["positions_error"] = f"{type(exc).__name__}: {exc}"
        return row
    row["mean_legal_actions"] = float(np.mean([np.count_nonzero(view.action_mask) for view in views]))
    progress(f"{env_id} {params or '(defaults)'}: resample, random and heuristic playouts ...")
    attempt(row, "resample", lambda: time_resample(views, opts.seconds, rng))
    attempt(row, "random_playouts", lambda: time_compiled_playouts(views, opts, rng))
    row["heuristic_compiled"] = Playouts(env_id, views[0].params, HEURISTIC, opts.seed).compiled_rollout is not None
    if row["heuristic_compiled"]:
        attempt(row, "heuristic_playouts", lambda: time_compiled_playouts(views, opts, rng, "rule_based"))
    else:
        attempt(row, "heuristic_playouts", lambda: time_policy_playouts(env_id, views, opts, rng))
    for kind, budgets in (("pimc", opts.pimc), ("ismcts", opts.ismcts)):
        for budget in budgets:
            spec = f"{kind}:{budget}"
            progress(f"  {spec} ...")
            attempt(row["search"], spec, lambda spec=spec: time_search(env_id, spec, views, opts))
    return row


# ----------------------------------------------------------------------------------------------------- report
def _rate(row: dict, key: str) -> str:
    if f"{key}_error" in row:
        return "error"
    return fmt_rate(row[key]["per_s"]) if key in row else "—"


def _playout_length(row: dict, key: str) -> str:
    if key not in row:
        return "—"
    return f"{row[key]['work'] / (row[key]['calls'] * row[key]['records']):.0f}"


def markdown_table(results: dict[str, Any]) -> str:
    """Two tables (the engine's rates; search decisions/s per budget) and the machine line."""
    opts = results["options"]
    specs = [f"pimc:{b}" for b in opts["pimc"]] + [f"ismcts:{b}" for b in opts["ismcts"]]
    lines = [
        "| game | resample calls/s | random rollout decisions/s | decisions per random playout "
        "| heuristic rollout decisions/s | decisions per heuristic playout | legal actions per position |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in results["envs"]:
        legal = row.get("mean_legal_actions")
        heuristic = _rate(row, "heuristic_playouts") + (" (compiled)" if row.get("heuristic_compiled") else "")
        cells = (env_label(row), _rate(row, "resample"), _rate(row, "random_playouts"),
                 _playout_length(row, "random_playouts"), heuristic,
                 _playout_length(row, "heuristic_playouts"), "—" if legal is None else f"{legal:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    labels = [budget_label(*spec.split(":", 1)) for spec in specs]
    lines += ["", "| game | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(specs)]
    for row in results["envs"]:
        lines.append("| " + " | ".join([env_label(row)] + [_search_cell(row["search"], spec) for spec in specs]) + " |")
    lines += ["", *_legend(results)]
    return "\n".join(lines) + "\n"


def _search_cell(search: dict, spec: str) -> str:
    if f"{spec}_error" in search:
        return "error"
    if spec not in search:
        return "—"
    return f"{search[spec]['per_s']:,.2f}" if search[spec]["per_s"] < 100 else fmt_rate(search[spec]["per_s"])


def _legend(results: dict[str, Any]) -> list[str]:
    opts, m = results["options"], results["machine"]
    lines = [
        f"Search decisions/s: {opts['positions']} positions per act_views call (positions with a choice, after "
        f"{opts['settle']} random steps); pimc D×R: D determinizations × R playouts per legal action; ismcts N: "
        "N iterations (N×R: R playouts an iteration); the last word is the rollout policy.",
        f"Rollouts: {opts['playouts']} records per compiled playout call (random, and rule-based where marked "
        f"compiled), {opts['heuristic_playouts']} per heuristic call stepped from Python; each measurement repeats "
        f"its call for {opts['seconds']:g} s after one untimed call.",
        f"Machine: {m['cpu']} · {m['cpu_count']} cores · numba {m['numba']} (threads: {m['numba_threads']}) · "
        f"Python {m['python']} · numpy {m['numpy']} · cardenvs {m['cardenvs']} ({m['git']})",
    ]
    loads = [load for load in (m["load_average_1m"], results.get("load_average_1m_at_start")) if load is not None]
    if loads and max(loads) > 0.5 * (m["cpu_count"] or 1):
        lines.append(f"Warning: 1-minute load average {max(loads):.1f} on {m['cpu_count']} cores: other processes "
                     "were running, so these numbers understate the speed of an idle machine.")
    if opts["note"]:
        lines.append(f"Note: {opts['note']}")
    return lines


def env_label(row: dict[str, Any]) -> str:
    """The env id and its parameters, as the table shows them."""
    params = row["params"]
    return row["env_id"] + (" " + ", ".join(f"{k}={v}" for k, v in params.items()) if params else "")


# ------------------------------------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the benchmark; print the tables, write the JSON (and markdown); return the results."""
    opts = parse_args(argv)
    began, load_at_start = time.perf_counter(), _load_average()
    searchable = [env_id for env_id in cardenvs.available_envs() if cardenvs.get_game(env_id).resample is not None]
    env_ids = opts.envs or searchable
    unknown = [env_id for env_id in env_ids if env_id not in searchable]
    if unknown:
        usage_error(f"no game with a resampler named {', '.join(unknown)}; choose from {', '.join(searchable)}")
    params = game_params(opts, env_ids)
    results: dict[str, Any] = {
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "options": {k: (str(v) if isinstance(v, Path) else v) for k, v in dataclasses.asdict(opts).items()},
        "envs": [bench_game(env_id, params[env_id], opts) for env_id in env_ids],
        "load_average_1m_at_start": load_at_start,
    }
    results["machine"] = machine_info(cardenvs)
    results["total_seconds"] = time.perf_counter() - began
    table = markdown_table(results)
    print(table, end="")
    opts.json.parent.mkdir(parents=True, exist_ok=True)
    opts.json.write_text(json.dumps(results, indent=2) + "\n")
    progress(f"wrote {opts.json} ({results['total_seconds']:.0f} s in all)")
    if opts.markdown is not None:
        opts.markdown.parent.mkdir(parents=True, exist_ok=True)
        opts.markdown.write_text(table)
        progress(f"wrote {opts.markdown}")
    return results


if __name__ == "__main__":
    main()
