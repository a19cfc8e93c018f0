"""Benchmark every registered cardenvs env beside a no-op PettingZoo AEC env (the ceiling) and peer libraries.

One run measures, for each env (default parameters unless ``--params-json`` says otherwise):

1. AEC agent steps/s of the standard PettingZoo loop (``agent_iter`` / ``last`` / random legal action /
   ``step``, re-resetting when a game ends) for a fixed wall time after a warm-up;
2. batched agent steps/s of ``venv.step(venv.sample_actions())`` with ``--num-envs`` games
   (num_envs × calls / seconds);
3. the first env creation time (import, ``env()``, ``reset``, one ``step``) in a fresh interpreter with an
   empty numba cache (cold) and again with the cache that run filled (warm).

The same loop and the same random-legal-action code drive a bare no-op AEC env defined here (2 agents,
100-step episodes, no wrappers): the protocol's own cost, so ``× no-op`` is the share of the ceiling an env
reaches. Peers are measured when importable and skipped with a note otherwise: PettingZoo classic
``texas_holdem_v4`` / ``leduc_holdem_v4`` (need ``rlcard``), OpenSpiel (``pyspiel``, random play through the
Python ``legal_actions`` / ``apply_action`` API) and Pgx (``pgx`` + ``jax``, jitted ``vmap`` step); beside the
OpenSpiel games, each benchmarked cardenvs game through OpenSpiel's API (``cardenvs.openspiel``, the same loop).

Targets: AEC ≥ 0.5× no-op, batched ≥ 2,000,000 steps/s, cold creation ≤ 30 s, warm creation ≤ 2 s.

Usage::

    python benchmarks/run.py                       # every env, 3 s per measurement
    python benchmarks/run.py --quick               # smoke run: 1 s per measurement, 256 games
    python benchmarks/run.py --envs slabberjan_v0 --params-json '{"slabberjan_v0": {"num_players": 5}}'

It prints a markdown table and writes every number to JSON (``--json``, default
``benchmarks/results/latest.json``) and optionally the table to ``--markdown PATH``.
"""

from __future__ import annotations

import dataclasses
import datetime
import importlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, NoReturn

import numba
import numpy as np
import tyro
from gymnasium import spaces
from pettingzoo import AECEnv

from cardenvs.core.exit_codes import EXIT_USAGE

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO_ROOT / "benchmarks" / "results" / "latest.json"

TARGET_AEC_RATIO = 0.5  #: AEC steps/s ≥ this × the no-op env's
TARGET_BATCHED = 2_000_000  #: batched agent steps/s
TARGET_COLD_S = 30.0  #: first creation with an empty numba cache
TARGET_WARM_S = 2.0  #: first creation with a warm numba cache

PEER_PZ = ("texas_holdem_v4", "leduc_holdem_v4")
PEER_OPENSPIEL = ("leduc_poker", "kuhn_poker", "hearts", "gin_rummy")
#: the peer rows of the cardenvs games played through OpenSpiel's API (cardenvs.openspiel)
BRIDGE_LIBRARY = "OpenSpiel bridge"
PEER_PGX = ("leduc_holdem",)


@dataclass
class Options:
    """Everything the benchmark can be told: each field is the ``--option`` of the same name (``_`` written ``-``)
    and its docstring, on one line, is the option's help.
    """

    envs: Annotated[
        list[str] | None,
        tyro.conf.arg(metavar="ENV_ID [ENV_ID ...]", help_behavior_hint="(default: every registered env)"),
    ] = None
    """env ids to benchmark"""
    seconds: float = 3.0
    """seconds per measurement (after warm-up)"""
    warmup: float = 0.5
    """warm-up seconds before each measurement (after any compilation)"""
    num_envs: int = 4096
    """games per batched env (and per Pgx batch)"""
    params_json: Annotated[
        str | None, tyro.conf.arg(metavar="JSON", help_behavior_hint="(default: each game's defaults)")
    ] = None
    """game parameters, JSON text or a JSON file: {env_id: {param: value}} per env, or one {param: value} for all"""
    example_params: bool = False
    """also benchmark every parameter set in each game's example_params"""
    numba_threads: Annotated[
        int | None, tyro.conf.arg(metavar="INT", help_behavior_hint="(default: numba's own)")
    ] = None
    """numba threads for the batched envs"""
    seed: int = 0
    """seed of the games and of the random policy"""
    skip_compile_timing: bool = False
    """skip the cold/warm first-creation timings (fresh interpreters)"""
    compile_timeout: float = 600.0
    """seconds before a first-creation subprocess is abandoned"""
    skip_peers: bool = False
    """skip the peer libraries (PettingZoo classic, OpenSpiel, Pgx) and the OpenSpiel bridge rows"""
    skip_openspiel_bridge: bool = False
    """skip the rows of the cardenvs games played through OpenSpiel's API (cardenvs.openspiel)"""
    quick: bool = False
    """smoke run: 1 s per measurement, 0.2 s warm-up, 256 games (overrides those)"""
    json: Annotated[Path, tyro.conf.arg(metavar="PATH")] = DEFAULT_JSON
    """where to write every number as JSON (directory created)"""
    markdown: Annotated[
        Path | None, tyro.conf.arg(metavar="PATH", help_behavior_hint="(default: none)")
    ] = None
    """also write the table here"""


def usage_error(message: str) -> NoReturn:
    """End the script as a malformed command line does: the message on one line, exit code 2."""
    print(f"{Path(sys.argv[0]).name}: error: {message}", file=sys.stderr)
    sys.exit(EXIT_USAGE)


def parse_args(argv: Sequence[str] | None = None) -> Options:
    """Options from the command line (tyro: one ``--option`` per `Options` field), checked."""
    # FlagCreatePairsOff: a switch is one --flag (no --no-flag twin), as every switch here defaults to off.
    opts = tyro.cli(Options, args=argv, description=(__doc__ or "").split("\n\n")[0],
                    config=(tyro.conf.FlagCreatePairsOff,))
    if opts.quick:
        opts.seconds, opts.warmup, opts.num_envs = 1.0, 0.2, 256
    if not (opts.seconds > 0 and opts.warmup >= 0 and opts.num_envs >= 1):  # NaN fails too
        usage_error("--seconds must be > 0, --warmup >= 0 and --num-envs >= 1")
    if opts.numba_threads is not None and not 1 <= opts.numba_threads <= numba.config.NUMBA_NUM_THREADS:
        usage_error(f"--numba-threads must be from 1 to {numba.config.NUMBA_NUM_THREADS}")
    return opts


def import_cardenvs() -> ModuleType:
    """``cardenvs``, installed or else from the checkout this script lives in."""
    try:
        return importlib.import_module("cardenvs")
    except ImportError:
        sys.path.insert(0, str(REPO_ROOT))
        return importlib.import_module("cardenvs")


# --------------------------------------------------------------------------------------------- policy & loops
class RandomLegal:
    """A uniformly random legal action, as cheap as Python allows and shared by every env measured.

    Uniforms are drawn up front from a seeded numpy Generator; each call takes the next one and indexes the
    legal actions (``mask.nonzero()[0]``) with it.
    """

    def __init__(self, seed: int, size: int = 1 << 16):
        self._uniforms: list[float] = np.random.default_rng(seed).random(size).tolist()
        self._last = size - 1
        self._next = 0

    def index(self, count: int) -> int:
        """A uniform index in ``range(count)``."""
        i = self._next
        self._next = 0 if i == self._last else i + 1
        return int(self._uniforms[i] * count)

    def uniform(self) -> float:
        """The next uniform in [0, 1)."""
        i = self._next
        self._next = 0 if i == self._last else i + 1
        return self._uniforms[i]

    def __call__(self, mask: np.ndarray) -> int:
        legal = mask.nonzero()[0]
        return int(legal[self.index(len(legal))])


def aec_loop(env: AECEnv, policy: RandomLegal, seconds: float) -> tuple[int, int, float]:
    """Play random legal games with the standard AEC loop for ``seconds``; (agent steps, episodes, elapsed).

    Every ``env.step`` call counts as an agent step, including the ``None`` steps of done agents.
    """
    steps = episodes = 0
    start = now = time.perf_counter()
    deadline = start + seconds
    while now < deadline:
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            action = None if terminated or truncated else policy(obs["action_mask"])
            env.step(action)
            steps += 1
            if not steps & 255 and time.perf_counter() >= deadline:
                break
        else:
            episodes += 1
            env.reset()
        now = time.perf_counter()
    return steps, episodes, now - start


def time_aec(env: AECEnv, policy: RandomLegal, opts: Options) -> dict[str, float]:
    """AEC agent steps/s of ``env`` after a warm-up."""
    env.reset(seed=opts.seed)
    aec_loop(env, policy, opts.warmup)
    env.reset(seed=opts.seed + 1)
    steps, episodes, elapsed = aec_loop(env, policy, opts.seconds)
    return {
        "steps_per_s": steps / elapsed,
        "episodes_per_s": episodes / elapsed,
        "steps": steps,
        "episodes": episodes,
        "seconds": elapsed,
    }


def time_batched(venv: Any, opts: Options) -> dict[str, float]:
    """Batched agent steps/s of ``venv.step(venv.sample_actions())`` after a warm-up (≥ 3 calls)."""
    venv.reset(seed=opts.seed)
    calls, start = 0, time.perf_counter()
    while calls < 3 or time.perf_counter() - start < opts.warmup:
        venv.step(venv.sample_actions())
        calls += 1
    calls = episodes = 0
    start = time.perf_counter()
    deadline = start + opts.seconds
    while True:
        _obs, _mask, _player, _rewards, terminated, truncated = venv.step(venv.sample_actions())
        episodes += int(np.count_nonzero(terminated | truncated))
        calls += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    return {
        "steps_per_s": venv.num_envs * calls / elapsed,
        "episodes_per_s": episodes / elapsed,
        "num_envs": venv.num_envs,
        "calls": calls,
        "seconds": elapsed,
    }


# ---------------------------------------------------------------------------------------------- no-op ceiling
class NoOpEnv(AECEnv):
    """The cheapest honest PettingZoo AEC env: 2 agents taking turns, nothing computed, no wrappers.

    Observations are ``{"observation": float32[8], "action_mask": int8[2]}`` (fresh copies, as an env must
    hand out); after ``episode_length`` decisions every agent terminates (+1 / -1) and is stepped with
    ``None``.
    """

    metadata = {"name": "noop_v0", "render_modes": [], "is_parallelizable": True}  # noqa: RUF012

    def __init__(self, episode_length: int = 100, obs_size: int = 8):
        super().__init__()
        self.episode_length = episode_length
        self.possible_agents = ["player_0", "player_1"]
        space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (2,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(2))
        self._obs = np.zeros(obs_size, np.float32)
        self._mask = np.ones(2, np.int8)
        self._turn = 0
        self._count = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._turn = 0
        self._count = 0
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._count += 1
        if self._count >= self.episode_length:
            self.rewards = {"player_0": 1.0, "player_1": -1.0}
            for name in self.agents:
                self.terminations[name] = True
            self.agent_selection = self.agents[0]
        else:
            self._turn = 1 - self._turn
            self.agent_selection = self.possible_agents[self._turn]
        self._accumulate_rewards()


# ---------------------------------------------------------------------------------------------- cardenvs envs
COMPILE_PROBE = """
import time
t = time.perf_counter()
import json, sys
import cardenvs
env = cardenvs.env(sys.argv[1], **json.loads(sys.argv[2]))
env.reset(seed=0)
mask = env.observe(env.agent_selection)["action_mask"]
env.step(int(mask.nonzero()[0][0]))
print(time.perf_counter() - t)
"""


def time_first_creation(cardenvs: ModuleType, env_id: str, params: dict, timeout: float) -> dict[str, Any]:
    """Import + ``env()`` + ``reset`` + one ``step`` in fresh interpreters: empty numba cache, then warm.

    A failing interpreter ends the timing with ``error`` and the end of its stderr in the result.
    """
    package_root = str(Path(cardenvs.__file__).resolve().parent.parent)
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="cardenvs-numba-cache-") as cache_dir:
        environ = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
        environ["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
        for label in ("cold", "warm"):
            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-c", COMPILE_PROBE, env_id, json.dumps(params)],
                env=environ,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            wall = time.perf_counter() - start
            if proc.returncode != 0:
                lines = proc.stderr.strip().splitlines() or ["?"]
                result["error"] = f"{label} creation subprocess failed: {lines[-1]}"
                result["stderr_tail"] = "\n".join(lines[-25:])
                return result
            result[f"{label}_s"] = float(proc.stdout.strip().splitlines()[-1])
            result[f"{label}_process_wall_s"] = wall
    return result


def bench_env(
    cardenvs: ModuleType, env_id: str, params: dict, opts: Options, policy: RandomLegal, compile_timing: bool
) -> dict[str, Any]:
    """Every measurement of one env with one parameter set; a failing part is recorded, the rest runs."""
    row: dict[str, Any] = {"env_id": env_id, "params": params}
    try:
        start = time.perf_counter()
        env = cardenvs.env(env_id, **params)
        env.reset(seed=opts.seed)
        row["in_process_creation_s"] = time.perf_counter() - start
        row["aec"] = time_aec(env, policy, opts)
        env.close()
    except Exception as exc:  # a game under construction must not stop the others
        row["aec_error"] = f"{type(exc).__name__}: {exc}"
    try:
        start = time.perf_counter()
        venv = cardenvs.vector_env(env_id, opts.num_envs, **params)
        venv.reset(seed=opts.seed)
        venv.step(venv.sample_actions())
        row["batched_first_call_s"] = time.perf_counter() - start
        row["batched"] = time_batched(venv, opts)
        del venv
    except Exception as exc:
        row["batched_error"] = f"{type(exc).__name__}: {exc}"
    if compile_timing:
        try:
            row["creation"] = time_first_creation(cardenvs, env_id, params, opts.compile_timeout)
            if "error" in row["creation"]:
                row["creation_error"] = row["creation"].pop("error")
        except Exception as exc:
            row["creation_error"] = f"{type(exc).__name__}: {exc}"
    return row


def load_params(opts: Options, env_ids: Sequence[str], registered: Sequence[str]) -> dict[str, dict]:
    """``--params-json`` as {env_id: params} for the selected envs (missing ones get ``{}``, the defaults)."""
    if opts.params_json is None:
        return {env_id: {} for env_id in env_ids}
    text = opts.params_json
    if not text.lstrip().startswith("{") and Path(text).is_file():
        text = Path(text).read_text()
    data = json.loads(text)
    if not isinstance(data, dict):
        raise SystemExit("--params-json must be a JSON object")
    if data and all(key in registered for key in data):
        return {env_id: dict(data.get(env_id, {})) for env_id in env_ids}
    return {env_id: dict(data) for env_id in env_ids}


# ------------------------------------------------------------------------------------------------------ peers
def bench_pettingzoo_classic(name: str, opts: Options, policy: RandomLegal) -> dict[str, Any]:
    """A PettingZoo classic env from its standard ``env()`` factory (wrappers and all), same loop/policy."""
    module = importlib.import_module(f"pettingzoo.classic.{name}")
    env = module.env()
    return {"aec": time_aec(env, policy, opts)}


def bench_openspiel(name: str, opts: Options, policy: RandomLegal, params: dict | None = None) -> dict[str, Any]:
    """Random legal play through OpenSpiel's Python API; chance nodes are sampled and not counted as steps.

    ``params`` are the game's OpenSpiel parameters (its defaults when None).
    """
    import pyspiel

    game = pyspiel.load_game(name, params or {})

    def play(seconds: float) -> tuple[int, int, int, float]:
        steps = chance = episodes = 0
        state = game.new_initial_state()
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            if state.is_terminal():
                episodes += 1
                state = game.new_initial_state()
            elif state.is_chance_node():
                u, total = policy.uniform(), 0.0
                outcomes = state.chance_outcomes()
                action = outcomes[-1][0]
                for outcome, probability in outcomes:
                    total += probability
                    if u < total:
                        action = outcome
                        break
                state.apply_action(action)
                chance += 1
            else:
                legal = state.legal_actions()
                state.apply_action(legal[policy.index(len(legal))])
                steps += 1
                if not steps & 255 and time.perf_counter() >= deadline:
                    return steps, chance, episodes, time.perf_counter() - start

    play(opts.warmup)
    steps, chance, episodes, elapsed = play(opts.seconds)
    return {
        "aec": {
            "steps_per_s": steps / elapsed,
            "episodes_per_s": episodes / elapsed,
            "chance_steps_per_s": chance / elapsed,
            "steps": steps,
            "episodes": episodes,
            "seconds": elapsed,
        }
    }


def bench_openspiel_bridge(env_id: str, params: dict, opts: Options, policy: RandomLegal) -> dict[str, Any]:
    """A cardenvs game through OpenSpiel's Python API (``cardenvs.openspiel``), with the loop of the OpenSpiel
    peers: state steps per second of the bridge, beside OpenSpiel's own C++ games."""
    from cardenvs import openspiel as bridge

    loaded = {**params, bridge.SEED_PARAMETER: opts.seed}
    return bench_openspiel(bridge.short_name(env_id), opts, policy, loaded)


def bench_pgx(name: str, opts: Options) -> dict[str, Any]:
    """Pgx: one jitted call samples a legal action per game and ``vmap``-steps all games (with auto-reset)."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(name)
    num_envs = opts.num_envs
    step_one = jax.vmap(auto_reset(env.step, env.init))

    def body(state: Any, key: Any) -> tuple[Any, Any]:
        key, act_key, step_key = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(act_key, logits, axis=-1)
        return step_one(state, action, jax.random.split(step_key, num_envs)), key

    body = jax.jit(body)
    key = jax.random.PRNGKey(opts.seed)
    key, init_key = jax.random.split(key)
    start = time.perf_counter()
    state = jax.jit(jax.vmap(env.init))(jax.random.split(init_key, num_envs))
    state, key = jax.block_until_ready(body(state, key))
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    while time.perf_counter() - start < opts.warmup:
        state, key = jax.block_until_ready(body(state, key))
    calls = 0
    start = time.perf_counter()
    deadline = start + opts.seconds
    while True:
        state, key = jax.block_until_ready(body(state, key))
        calls += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    return {
        "batched": {
            "steps_per_s": num_envs * calls / elapsed,
            "num_envs": num_envs,
            "calls": calls,
            "seconds": elapsed,
        },
        "jit_compile_s": compile_s,
        "jax_version": jax.__version__,
        "pgx_version": pgx.__version__,
        "jax_backend": jax.default_backend(),
    }


def run_peer(library: str, name: str, bench: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """One peer measurement; an import failure becomes a 'skipped' note, any other failure an error."""
    row: dict[str, Any] = {"library": library, "name": name}
    try:
        row.update(bench())
    except ImportError as exc:
        row["skipped"] = f"not installed ({exc})"
    except Exception as exc:
        kind = type(exc).__name__
        if "DependencyNotInstalled" in kind:
            row["skipped"] = f"not installed ({exc})"
        else:
            row["error"] = f"{kind}: {exc}"
    return row


def bench_peers(opts: Options, policy: RandomLegal, bridged: Sequence[tuple[str, dict]] = ()) -> list[dict[str, Any]]:
    """Every peer that imports (Pgx last: jax keeps threads around), then the ``bridged`` (env id, parameters)
    through OpenSpiel's API."""
    peers: list[tuple[str, str, Callable[[], dict[str, Any]]]] = [
        *(("PettingZoo classic", n, partial(bench_pettingzoo_classic, n, opts, policy)) for n in PEER_PZ),
        *(("OpenSpiel", n, partial(bench_openspiel, n, opts, policy)) for n in PEER_OPENSPIEL),
        *(
            (BRIDGE_LIBRARY, env_label({"env_id": env_id, "params": params}),
             partial(bench_openspiel_bridge, env_id, params, opts, policy))
            for env_id, params in bridged
        ),
        *(("Pgx", n, partial(bench_pgx, n, opts)) for n in PEER_PGX),
    ]
    rows = []
    for library, name, bench in peers:
        progress(f"peer {library} {name} ...")
        rows.append(run_peer(library, name, bench))
    return rows


# ----------------------------------------------------------------------------------------------------- report
def machine_info(cardenvs: ModuleType) -> dict[str, Any]:
    """CPU model, cores, numba threads and the versions that matter."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    import pettingzoo

    return {
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": _threading_layer(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "pettingzoo": pettingzoo.__version__,
        "cardenvs": getattr(cardenvs, "__version__", "?"),
        "platform": platform.platform(),
        "load_average_1m": _load_average(),
        "git": commit,
    }


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def _threading_layer() -> str:
    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        return "not initialised"


def fmt_rate(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def _get(row: dict, *keys: str) -> Any:
    for key in keys:
        if not isinstance(row, dict) or key not in row:
            return None
        row = row[key]
    return row


def env_label(row: dict[str, Any]) -> str:
    params = row["params"]
    if not params:
        return row["env_id"]
    return f"{row['env_id']} " + ", ".join(f"{k}={v}" for k, v in params.items())


def markdown_table(results: dict[str, Any]) -> str:
    """The results as a markdown table, a targets legend and the machine line."""
    noop = results["noop"]["aec"]["steps_per_s"]
    lines = [
        "| env | AEC steps/s | × no-op | batched steps/s | cold / warm creation s | notes |",
        "|---|---:|---:|---:|---:|---|",
        f"| no-op PettingZoo AEC env (ceiling) | {fmt_rate(noop)} | 1.00 | — | — | 2 agents, no wrappers |",
    ]
    for row in results["envs"]:
        aec = _get(row, "aec", "steps_per_s")
        ratio = "—" if aec is None else f"{aec / noop:.2f} {_mark(aec / noop >= TARGET_AEC_RATIO)}"
        batched = _get(row, "batched", "steps_per_s")
        batched_cell = "—" if batched is None else f"{fmt_rate(batched)} {_mark(batched >= TARGET_BATCHED)}"
        cold, warm = _get(row, "creation", "cold_s"), _get(row, "creation", "warm_s")
        if cold is None or warm is None:
            creation = "—"
        else:
            cold_mark, warm_mark = _mark(cold <= TARGET_COLD_S), _mark(warm <= TARGET_WARM_S)
            creation = f"{cold:.1f} {cold_mark} / {warm:.2f} {warm_mark}"
        errors = [f"{k}: {v}" for k, v in row.items() if k.endswith("_error")]
        size = _get(row, "batched", "num_envs") or "—"
        notes = "; ".join(_short(e) for e in errors) if errors else f"N={size}"
        cells = (env_label(row), fmt_rate(aec), ratio, batched_cell, creation, notes)
        lines.append("| " + " | ".join(cells) + " |")
    for row in results["peers"]:
        label = f"peer: {row['library']} {row['name']}"
        if "skipped" in row or "error" in row:
            note = row.get("skipped") or f"error: {row['error']}"
            lines.append(f"| {label} | — | — | — | — | {_short(note)} |")
            continue
        aec = _get(row, "aec", "steps_per_s")
        batched = _get(row, "batched", "steps_per_s")
        ratio = "—" if aec is None else f"{aec / noop:.2f}"
        if row["library"] == "OpenSpiel":
            note = "Python API, legal_actions/apply_action, no observation; chance not counted"
        elif row["library"] == BRIDGE_LIBRARY:
            note = "cardenvs.openspiel: the same loop as the OpenSpiel rows, through the Python game"
        elif row["library"] == "Pgx":
            size, backend = row["batched"]["num_envs"], row["jax_backend"]
            note = f"jit+vmap, N={size}, {backend}, compile {row['jit_compile_s']:.1f} s"
        else:
            note = "standard env() with wrappers"
        lines.append(f"| {label} | {fmt_rate(aec)} | {ratio} | {fmt_rate(batched)} | — | {note} |")
    m, opts = results["machine"], results["options"]
    lines += [
        "",
        f"Targets: AEC ≥ {TARGET_AEC_RATIO}× no-op · batched ≥ {TARGET_BATCHED:,} steps/s · "
        f"cold creation ≤ {TARGET_COLD_S:g} s · warm creation ≤ {TARGET_WARM_S:g} s (✓ met, ✗ missed).",
        f"{opts['seconds']:g} s per measurement after {opts['warmup']:g} s warm-up; "
        "AEC steps count every env.step call (None steps of done agents included).",
        f"Machine: {m['cpu']} · {m['cpu_count']} cores · numba {m['numba']} "
        f"(threads: {m['numba_threads']}, {m['numba_threading_layer']}) · Python {m['python']} · "
        f"numpy {m['numpy']} · PettingZoo {m['pettingzoo']} · cardenvs {m['cardenvs']} ({m['git']})",
    ]
    loads = (m["load_average_1m"], results.get("load_average_1m_at_start"))
    busy = [load for load in loads if load is not None]
    if busy and max(busy) > 0.5 * (m["cpu_count"] or 1):
        lines.append(
            f"Warning: 1-minute load average {max(busy):.1f} on {m['cpu_count']} cores: other processes were "
            "running, so these numbers (batched ones above all) understate the envs' speed."
        )
    return "\n".join(lines) + "\n"


def _short(text: str, limit: int = 90) -> str:
    text = text.replace("|", "/").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the benchmark; print the table, write the JSON (and markdown); return the results."""
    opts = parse_args(argv)
    began, load_at_start = time.perf_counter(), _load_average()
    cardenvs = import_cardenvs()
    registered = cardenvs.available_envs()
    env_ids = opts.envs or registered
    unknown = [env_id for env_id in env_ids if env_id not in registered]
    if unknown:
        raise SystemExit(f"unknown env id(s) {', '.join(unknown)}; registered: {', '.join(registered)}")
    params = load_params(opts, env_ids, registered)
    policy = RandomLegal(opts.seed)
    if opts.numba_threads is not None:
        numba.set_num_threads(opts.numba_threads)

    progress("no-op AEC env (ceiling) ...")
    results: dict[str, Any] = {
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "options": {k: (str(v) if isinstance(v, Path) else v) for k, v in dataclasses.asdict(opts).items()},
        "targets": {
            "aec_ratio_to_noop": TARGET_AEC_RATIO,
            "batched_steps_per_s": TARGET_BATCHED,
            "cold_creation_s": TARGET_COLD_S,
            "warm_creation_s": TARGET_WARM_S,
        },
        "noop": {"aec": time_aec(NoOpEnv(), policy, opts)},
        "envs": [],
        "peers": [],
        "load_average_1m_at_start": load_at_start,
    }
    noop_rate = results["noop"]["aec"]["steps_per_s"]

    for env_id in env_ids:
        param_sets = [params[env_id]]
        if opts.example_params:
            try:
                examples = [dict(p) for p in cardenvs.get_game(env_id).example_params]
            except Exception as exc:
                progress(f"  {env_id}: no example_params ({type(exc).__name__}: {exc})")
                examples = []
            param_sets += [p for p in examples if p != params[env_id]]
        for i, env_params in enumerate(param_sets):
            progress(f"{env_id} {env_params or '(defaults)'} ...")
            compile_timing = i == 0 and not opts.skip_compile_timing
            row = bench_env(cardenvs, env_id, env_params, opts, policy, compile_timing)
            aec = _get(row, "aec", "steps_per_s")
            if aec is not None:
                row["aec"]["ratio_to_noop"] = aec / noop_rate
            results["envs"].append(row)
            for key, value in row.items():
                if key.endswith("_error"):
                    progress(f"  {key}: {value}")

    if not opts.skip_peers:
        bridged = [] if opts.skip_openspiel_bridge else [(env_id, params[env_id]) for env_id in env_ids]
        results["peers"] = bench_peers(opts, policy, bridged)
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
