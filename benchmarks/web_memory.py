"""How much memory the web table holds with many search-agent tables open, against the bound its design claims.

The server runs as ``cardenvs serve`` runs it (``create_app`` with the shipped trained agents and the loopback
hosts, ``server_config``, uvicorn on a socket bound by the command's own ``listen``), in a process of its own on a
free local port, offering ``ismcts`` besides the default agents so that both search agents can be seated. The
script is its browser: ``--sessions`` cookie sessions open ``--tables`` tables in all (each session filled up to
``TABLES_PER_SESSION`` in turn), the games in turn, half of them a person's table against search agents (seat 0
plays the first legal action) and half of them watched tables of search agents; every seat's agent is ``pimc`` or
``ismcts`` at the game's default budget. Each table then makes ``--moves`` moves (a person's move and the agents'
answers, or one watched decision), so that the worker processes build the agents and their search buffers. Then the
first session opens ``--overflow`` more tables, and its oldest tables beyond ``TABLES_PER_SESSION`` are closed.

Meanwhile the resident memory (``VmRSS``, and the peak ``VmHWM``) of the server process and of each of its child
processes (the thinking workers) is read from ``/proc/PID/status`` every ``--sample-seconds``, and the server's own
estimate of its tables' bytes (``TableStore.footprint``) and its live tables are read from it (a route of this
script's own, ``/_memory``, wrapped around the app; the app is unchanged).

The bound the design claims:

- **server**: its tables' estimate stays within ``SERVER_BYTES_KEPT``, so the server stays within its base (the
  process once every game's compiled code is loaded: after the first table of each game) plus
  ``SERVER_BYTES_KEPT``. The script also sets the real growth per table against the estimate per table.
- **worker**: at most its base (a fresh interpreter with the worker's imports) plus ``AGENTS_KEPT`` agents plus
  one decision's ``SEARCH_BYTES_LIMIT``. What an agent takes is measured first by a probe (``--skip-probe`` leaves
  it out): one worker (``Thinkers(1)``, the server's own class) builds every (game, search agent) in turn and makes
  one decision with it; an agent's bytes are the worker's growth over that, its game's compiled code and the torch
  of a trained rollout included where it is the first to load them. The bound adds the ``AGENTS_KEPT`` largest.

Usage::

    python benchmarks/web_memory.py                              # 40 tables, 3 sessions (a few minutes)
    python benchmarks/web_memory.py --tables 10 --sessions 2 --moves 1 --skip-probe   # a short trial

It prints a markdown report and writes every sample and number to JSON (``--json``, default
``benchmarks/results/web_memory.json``; ``--markdown PATH`` also writes the report).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import multiprocessing
import re
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import tyro

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere: this checkout's modules

import cardenvs
from benchmarks.run import _load_average, machine_info, progress, usage_error
from cardenvs.web.tables import (
    BUILT_IN_AGENTS,
    SEARCH_BYTES_LIMIT,
    SERVER_BYTES_KEPT,
    SESSION_BYTES_KEPT,
    TABLES_PER_SESSION,
    search_bytes,
    table_games,
)
from cardenvs.web.thinking import AGENTS_KEPT, THINKERS, Thinkers

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO_ROOT / "benchmarks" / "results" / "web_memory.json"
#: the search agents seated, each at its game's default budget
SEARCH_SPECS = ("pimc", "ismcts")
#: the route of this script's own that reports the server's table accounting (on the server's event loop)
REPORT_PATH = "/_memory"
#: seconds the server may take to start, a request to be answered, and the tables' agents to finish their runs
START_SECONDS = 120
REQUEST_SECONDS = 120
IDLE_SECONDS = 900
#: seconds between two looks at a table whose agents are thinking
POLL_SECONDS = 0.5
#: seconds the server is given to stop after SIGTERM (its graceful shutdown is 10 s)
STOP_SECONDS = 30
#: what a thinking worker's command line holds (a process started by multiprocessing's spawn)
WORKER_COMMAND = "spawn_main"
#: the seed of the probe's positions
PROBE_SEED = 7
MB = 10**6
KIB = 1024

_REFRESH = '<meta http-equiv="refresh"'
_TOKEN = re.compile(r'name="token" value="([^"]+)"')
_DECISION = re.compile(r'name="decision" value="([0-9]+)"')
_ACTION = re.compile(r'name="action" value="([0-9]+)"')


@dataclass
class Options:
    """Everything the benchmark can be told: each field is the ``--option`` of the same name (``_`` written ``-``)
    and its docstring, on one line, is the option's help.
    """

    tables: int = 40
    """tables opened (and kept open) over all sessions, the games in turn"""
    sessions: int = 3
    """browser sessions (cookies) the tables are opened from, each filled up to TABLES_PER_SESSION in turn"""
    moves: int = 2
    """moves made at each table after it opens: a person's move and the agents' answers, or one watched decision"""
    overflow: int = 4
    """tables the first session opens at the end (its oldest beyond TABLES_PER_SESSION are then closed)"""
    envs: Annotated[
        list[str] | None,
        tyro.conf.arg(metavar="ENV_ID [ENV_ID ...]", help_behavior_hint="(default: every game the table serves)"),
    ] = None
    """games, in turn"""
    sample_seconds: float = 0.25
    """seconds between two readings of the processes' memory"""
    skip_probe: bool = False
    """leave out the probe of each search agent's bytes in a worker (the worker bound is then not checked)"""
    json: Annotated[Path, tyro.conf.arg(metavar="PATH")] = DEFAULT_JSON
    """where every sample and number goes"""
    markdown: Annotated[
        Path | None, tyro.conf.arg(metavar="PATH", help_behavior_hint="(default: none)")
    ] = None
    """also write the report there"""


def parse_args(argv: Sequence[str] | None = None) -> Options:
    """Options from the command line (tyro: one ``--option`` per `Options` field), checked."""
    opts = tyro.cli(Options, args=argv, description=(__doc__ or "").split("\n\n")[0],
                    config=(tyro.conf.FlagCreatePairsOff,))
    if opts.tables < 1 or opts.sessions < 1 or opts.moves < 0 or opts.overflow < 0:
        usage_error("--tables and --sessions must be >= 1, --moves and --overflow >= 0")
    if opts.tables > opts.sessions * TABLES_PER_SESSION:
        usage_error(f"--tables {opts.tables} do not stay open in {opts.sessions} sessions of at most "
                    f"{TABLES_PER_SESSION} tables; give more --sessions")
    if not opts.sample_seconds > 0:  # NaN fails too
        usage_error("--sample-seconds must be > 0")
    served = table_games()
    unknown = [env_id for env_id in opts.envs or [] if env_id not in served]
    if unknown:
        usage_error(f"unknown game(s) {', '.join(unknown)}; the table serves {', '.join(served)}")
    return opts


# ------------------------------------------------------------------------------------------ reading /proc
def memory_of(pid: int) -> dict[str, int] | None:
    """The process's resident bytes now (``rss``) and at its peak (``hwm``); None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    values = dict(re.findall(r"^(VmRSS|VmHWM):\s+([0-9]+) kB", text, re.MULTILINE))
    if "VmRSS" not in values:  # a process that is ending (a zombie) has no memory lines
        return None
    return {"rss": int(values["VmRSS"]) * KIB, "hwm": int(values["VmHWM"]) * KIB}


def children_of(pid: int) -> list[int]:
    """The process ids of the process's children (every thread's)."""
    found: list[int] = []
    for listing in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(child) for child in listing.read_text().split()]
        except OSError:
            continue
    return found


def command_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


# ------------------------------------------------------------------------------------------ the server
def _serve(port_out: Any) -> None:
    """The server process: ``cardenvs serve``'s app and uvicorn configuration on a free loopback port (sent back
    through ``port_out``), ``ismcts`` offered besides the default agents, and :data:`REPORT_PATH` answered from the
    app's table store. Runs until SIGTERM (uvicorn's graceful shutdown, which closes the tables and the workers)."""
    import uvicorn

    from cardenvs.commands.serve import listen
    from cardenvs.web.app import DEFAULT_CHECKPOINTS, LOOPBACK_HOSTS, create_app
    from cardenvs.web.server import server_config

    app = create_app(DEFAULT_CHECKPOINTS, allowed_hosts=LOOPBACK_HOSTS, offered=(*BUILT_IN_AGENTS, "ismcts"))
    store, thinkers = app.state.tables, app.state.handlers.thinkers

    async def with_report(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == REPORT_PATH:
            live = store.live_tables()
            body = json.dumps({"estimated_bytes": store.footprint(), "live_tables": len(live),
                               "running": sum(table.running for table in live),
                               "worker_pids": thinkers.pids()}).encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    sock = listen("127.0.0.1", 0)
    port_out.send(sock.getsockname()[1])
    port_out.close()
    with sock:
        uvicorn.Server(server_config(with_report)).run(sockets=[sock])


class Sampler(threading.Thread):
    """Reads the server's and its children's memory every ``seconds``, and the server's table accounting about
    once a second; keeps every sample and each process's peak."""

    def __init__(self, server_pid: int, url: str, seconds: float):
        super().__init__(daemon=True, name="memory-sampler")
        import httpx

        self.server_pid, self.seconds = server_pid, seconds
        self.client = httpx.Client(base_url=url, timeout=REQUEST_SECONDS)
        self.samples: list[dict[str, Any]] = []
        self.peaks: dict[int, dict[str, Any]] = {}  # pid -> rss, hwm, role, first and last seen
        self.worker_pids: set[int] = set()
        self.report: dict[str, Any] = {}
        self.peak_estimate = 0
        self.began = time.monotonic()
        self._done = threading.Event()
        self._lock = threading.Lock()

    def server_report(self) -> dict[str, Any]:
        report = self.client.get(REPORT_PATH).json()
        with self._lock:
            self.report = report
            self.worker_pids.update(report["worker_pids"])
            self.peak_estimate = max(self.peak_estimate, report["estimated_bytes"])
        return report

    def sample(self) -> dict[str, Any]:
        """One reading of every process, kept."""
        now = time.monotonic() - self.began
        processes = {}
        for pid in [self.server_pid, *children_of(self.server_pid)]:
            memory = memory_of(pid)
            if memory is None:
                continue
            processes[pid] = memory
            with self._lock:
                peak = self.peaks.setdefault(pid, {"rss": 0, "hwm": 0, "first_s": now, "command": command_of(pid)})
                peak["rss"] = max(peak["rss"], memory["rss"])
                peak["hwm"] = max(peak["hwm"], memory["hwm"])
                peak["last_s"] = now
        with self._lock:
            record = {"t": round(now, 2), "rss": {str(pid): m["rss"] for pid, m in processes.items()},
                      "total_rss": sum(m["rss"] for m in processes.values()),
                      "estimated_bytes": self.report.get("estimated_bytes"),
                      "live_tables": self.report.get("live_tables")}
            self.samples.append(record)
        return record

    def run(self) -> None:
        last_report = 0.0
        while not self._done.is_set():
            if time.monotonic() - last_report >= 1.0:
                last_report = time.monotonic()
                with contextlib.suppress(Exception):  # the server is stopping; the memory readings go on
                    self.server_report()
            self.sample()
            self._done.wait(self.seconds)

    def stop(self) -> None:
        self._done.set()
        self.join()
        self.client.close()


# ------------------------------------------------------------------------------------------ the browser
@dataclass
class Table:
    """One table the script opened: its session, game, mode, agents and id."""

    index: int
    session: int
    env_id: str
    mode: str  # play (seat 0 a person, the script) or watch
    specs: dict[int, str]
    table_id: str = ""
    moves: int = 0
    evicted: bool = False


def plan_tables(opts: Options, games: list[str], count: int, first_index: int = 0,
                session: int | None = None) -> list[Table]:
    """``count`` tables: the games in turn; per round of games a person's table, then a watched one, with pimc and
    ismcts alternating by seat (the first seat's kind changes every two rounds); sessions filled in turn."""
    tables = []
    for index in range(first_index, first_index + count):
        env_id = games[index % len(games)]
        rounds = index // len(games)
        mode = ("play", "watch")[rounds % 2]
        first_kind = (rounds // 2) % len(SEARCH_SPECS)
        game = cardenvs.get_game(env_id)
        players = game.num_players(game.make_params())
        seats = range(1, players) if mode == "play" else range(players)
        specs = {seat: SEARCH_SPECS[(first_kind + seat) % len(SEARCH_SPECS)] for seat in seats}
        owner = index // TABLES_PER_SESSION if session is None else session
        tables.append(Table(index, owner, env_id, mode, specs))
    return tables


def _page(client: Any, path: str) -> str:
    response = client.get(path)
    if response.status_code != 200:
        raise RuntimeError(f"GET {path}: {response.status_code}: {response.text[-300:]}")
    return response.text


def open_table(client: Any, table: Table) -> None:
    """Open the table as its page's form does (the agents start their run; the answer comes within seconds)."""
    page = _page(client, f"/{table.mode}/{table.env_id}")
    fields = {"token": _TOKEN.search(page).group(1), "seat": "0",
              **{f"agent_{seat}": spec for seat, spec in table.specs.items()}}
    response = client.post(f"/{table.mode}/{table.env_id}", data=fields)
    if response.status_code != 303:
        raise RuntimeError(f"opening {table}: {response.status_code}: {response.text[-300:]}")
    table.table_id = response.headers["location"].rsplit("/", 1)[-1]


def idle_page(client: Any, table: Table) -> str:
    """The table's page once its agents have finished their run."""
    deadline = time.monotonic() + IDLE_SECONDS
    while True:
        page = _page(client, f"/table/{table.table_id}")
        if _REFRESH not in page:
            return page
        if time.monotonic() > deadline:
            raise RuntimeError(f"table {table.index} ({table.env_id}) still thinking after {IDLE_SECONDS} s")
        time.sleep(POLL_SECONDS)


def move(client: Any, table: Table) -> bool:
    """One move at an idle table (the person's first legal action, or one watched decision): whether one was
    made (not at a finished game)."""
    page = idle_page(client, table)
    decision = _DECISION.search(page)
    if decision is None:
        return False
    fields = {"token": _TOKEN.search(page).group(1), "decision": decision.group(1)}
    if table.mode == "play":
        action = _ACTION.search(page)
        if action is None:
            return False
        fields["action"] = action.group(1)
    response = client.post(f"/table/{table.table_id}/{'play' if table.mode == 'play' else 'step'}", data=fields)
    if response.status_code != 303:
        raise RuntimeError(f"move at table {table.index}: {response.status_code}: {response.text[-300:]}")
    table.moves += 1
    return True


def is_open(client: Any, table: Table) -> bool:
    return client.get(f"/table/{table.table_id}").status_code == 200


# ------------------------------------------------------------------------------------------ the probe
def _bare_worker_memory(out: Any) -> None:
    """A fresh interpreter with the imports a worker makes before it builds an agent: its memory, sent back."""
    import numba  # noqa: F401

    import cardenvs  # noqa: F401
    from cardenvs.agents.base import act_at_seat  # noqa: F401
    from cardenvs.agents.registry import make_agent  # noqa: F401

    out.send(memory_of(multiprocessing.current_process().pid))
    out.close()


def bare_worker_memory() -> dict[str, int]:
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_bare_worker_memory, args=(sender,))
    process.start()
    sender.close()
    memory = receiver.recv()
    process.join()
    return memory


def probe_agents(games: list[str], bare: dict[str, int]) -> list[dict[str, Any]]:
    """One worker builds every (game, search agent) in turn and makes one decision with it at a fresh deal's first
    decision: the worker's memory after each, its growth over the one before (the first's over the ``bare``
    worker), and the design's estimate of the decision's search bytes."""
    thinkers = Thinkers(1)
    rows = []
    try:
        before = bare
        for env_id in games:
            env = cardenvs.env(env_id)
            env.reset(seed=PROBE_SEED)
            seat = env.possible_agents.index(env.agent_selection)
            observation = env.observe(env.agent_selection)
            params = dataclasses.asdict(env.params)
            for spec in SEARCH_SPECS:
                started = time.perf_counter()
                thinkers.decide(env_id, params, env.state_record.copy(), seat, observation["observation"],
                                observation["action_mask"], spec)
                seconds = time.perf_counter() - started
                memory = memory_of(thinkers.pids()[0])
                grown = memory["rss"] - before["rss"]
                rows.append({"env_id": env_id, "spec": spec, "seconds": seconds, "rss": memory["rss"],
                             "hwm": memory["hwm"], "grown": grown, "search_bytes": search_bytes(spec, env)})
                before = memory
                progress(f"probe {env_id} {spec}: worker {memory['rss'] / MB:.0f} MB "
                         f"(peak {memory['hwm'] / MB:.0f} MB), {seconds:.1f} s")
    finally:
        thinkers.close()
    return rows


# ------------------------------------------------------------------------------------------ the run
def run_tables(opts: Options, games: list[str]) -> dict[str, Any]:
    """Start the server, open and play the tables while sampling; every number of the run."""
    import httpx

    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    server = context.Process(target=_serve, args=(sender,), name="cardenvs-serve")
    server.start()
    sender.close()
    if not receiver.poll(START_SECONDS):
        server.kill()
        raise RuntimeError("the server did not start")
    url = f"http://127.0.0.1:{receiver.recv()}"
    clients = [httpx.Client(base_url=url, timeout=REQUEST_SECONDS) for _ in range(opts.sessions)]
    sampler = Sampler(server.pid, url, opts.sample_seconds)
    marks: dict[str, dict[str, Any]] = {}

    def mark(name: str) -> None:
        """The server's memory and accounting at a point of the run."""
        report = sampler.server_report()
        marks[name] = {**sampler.sample(), "server": memory_of(server.pid), "report": report}
        progress(f"{name}: server {marks[name]['server']['rss'] / MB:.0f} MB, tables' estimate "
                 f"{report['estimated_bytes'] / MB:.1f} MB, {report['live_tables']} live tables")

    tables = plan_tables(opts, games, opts.tables)
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:  # the server answers once uvicorn has started
            try:
                _page(clients[0], "/")
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(POLL_SECONDS)
        sampler.start()
        mark("started")  # the front page was served: every game's agent choices were read
        for table in tables:
            open_table(clients[table.session], table)
            if table.index == min(len(games), len(tables)) - 1:
                mark("every game loaded")
        progress(f"opened {len(tables)} tables")
        for _ in range(opts.moves):
            for table in tables:
                move(clients[table.session], table)
        for table in tables:
            idle_page(clients[table.session], table)
        mark("tables played")
        extra = plan_tables(opts, games, opts.overflow, first_index=len(tables), session=0)
        for table in extra:
            open_table(clients[0], table)
        for table in extra:
            idle_page(clients[0], table)
        for table in tables + extra:
            table.evicted = not is_open(clients[table.session], table)
        mark("after overflow")
    finally:
        server.terminate()  # first, so that the server never outlives a failed run
        server.join(STOP_SECONDS)
        if server.is_alive():
            server.kill()
        if sampler.is_alive():
            sampler.stop()
        for client in clients:
            client.close()
    return {"tables": [dataclasses.asdict(table) for table in tables + extra], "marks": marks,
            "peaks": {str(pid): peak for pid, peak in sampler.peaks.items()},
            "worker_pids": sorted(sampler.worker_pids), "server_pid": server.pid,
            "peak_estimate": sampler.peak_estimate, "samples": sampler.samples}


# ------------------------------------------------------------------------------------------ the report
def _mb(value: float | None) -> str:
    return "–" if value is None else f"{value / MB:,.0f} MB"


def summarize(opts: Options, run: dict[str, Any], probe: list[dict[str, Any]] | None,
              bare: dict[str, int] | None) -> dict[str, Any]:
    """The bound checks: the server's and each worker's peak against the bound the design claims."""
    marks, peaks = run["marks"], run["peaks"]
    server = peaks[str(run["server_pid"])]
    workers = {pid: peak for pid, peak in peaks.items()
               if int(pid) != run["server_pid"]
               and (int(pid) in run["worker_pids"] or WORKER_COMMAND in peak["command"])}
    others = {pid: peak for pid, peak in peaks.items() if pid not in workers and int(pid) != run["server_pid"]}
    base = marks["every game loaded"]["server"]["rss"]
    played = marks["tables played"]
    later_tables = opts.tables - min(len(run["games"]), opts.tables)
    grown = played["server"]["rss"] - base
    estimate_grown = played["report"]["estimated_bytes"] - marks["every game loaded"]["report"]["estimated_bytes"]
    summary: dict[str, Any] = {
        "server_base_rss": base, "server_start_rss": marks["started"]["server"]["rss"],
        "server_peak_hwm": server["hwm"], "server_bound": base + SERVER_BYTES_KEPT,
        "server_holds": server["hwm"] <= base + SERVER_BYTES_KEPT and run["peak_estimate"] <= SERVER_BYTES_KEPT,
        "peak_estimate": run["peak_estimate"], "later_tables": later_tables,
        "real_bytes_per_table": grown / later_tables if later_tables else None,
        "estimated_bytes_per_table": estimate_grown / later_tables if later_tables else None,
        "total_peak_rss": max(sample["total_rss"] for sample in run["samples"]),
        "workers": workers, "others": others,
        "evicted": sum(table["evicted"] for table in run["tables"]),
        "live": marks["after overflow"]["report"]["live_tables"],
        "expected_evicted": max(0, min(opts.tables, TABLES_PER_SESSION) + opts.overflow - TABLES_PER_SESSION),
    }
    if probe and bare:
        agents = sorted((row["grown"] for row in probe), reverse=True)
        bound = bare["rss"] + sum(agents[:AGENTS_KEPT]) + SEARCH_BYTES_LIMIT
        summary.update(worker_base=bare["rss"], worker_agents_kept_bytes=sum(agents[:AGENTS_KEPT]),
                       worker_bound=bound,
                       worker_holds=all(peak["hwm"] <= bound for peak in workers.values()),
                       largest_search_bytes=max(row["search_bytes"] for row in probe))
    return summary


def report(opts: Options, run: dict[str, Any], probe: list[dict[str, Any]] | None, summary: dict[str, Any],
           machine: dict[str, Any]) -> str:
    lines = [f"Web table memory: {opts.tables} tables of search agents ({', '.join(SEARCH_SPECS)} at each game's "
             f"default budget) from {opts.sessions} sessions, {opts.moves} moves each, then {opts.overflow} more "
             f"tables in the first session; {THINKERS} workers.", ""]
    lines += ["| process | peak RSS (VmHWM) | bound the design claims | holds |", "|---|---:|---:|---|"]
    lines.append(f"| server | {_mb(summary['server_peak_hwm'])} | {_mb(summary['server_bound'])} (base "
                 f"{_mb(summary['server_base_rss'])} + SERVER_BYTES_KEPT {_mb(SERVER_BYTES_KEPT)}) | "
                 f"{'yes' if summary['server_holds'] else 'NO'} |")
    bound = summary.get("worker_bound")
    for pid, peak in summary["workers"].items():
        holds = "–" if bound is None else "yes" if peak["hwm"] <= bound else "NO"
        claim = "– (no probe)" if bound is None else (
            f"{_mb(bound)} (base {_mb(summary['worker_base'])} + {AGENTS_KEPT} largest agents "
            f"{_mb(summary['worker_agents_kept_bytes'])} + SEARCH_BYTES_LIMIT {_mb(SEARCH_BYTES_LIMIT)})")
        lines.append(f"| worker {pid} ({peak['first_s']:.0f}–{peak['last_s']:.0f} s) | {_mb(peak['hwm'])} | "
                     f"{claim} | {holds} |")
    for pid, peak in summary["others"].items():
        lines.append(f"| other child {pid} (`{peak['command'][:60]}`) | {_mb(peak['hwm'])} | – | – |")
    lines.append(f"| all processes at once (largest sampled sum of VmRSS) | {_mb(summary['total_peak_rss'])} | – | – |")
    lines += ["", "| tables | value |", "|---|---:|"]
    lines.append(f"| live at the end / opened | {summary['live']} / {len(run['tables'])} |")
    lines.append(f"| closed to make room (expected by TABLES_PER_SESSION {TABLES_PER_SESSION}) | "
                 f"{summary['evicted']} ({summary['expected_evicted']}) |")
    lines.append(f"| server's estimate of its tables, peak (SERVER_BYTES_KEPT) | "
                 f"{summary['peak_estimate'] / MB:.1f} MB "
                 f"({_mb(SERVER_BYTES_KEPT)}); per session at most {_mb(SESSION_BYTES_KEPT)} |")
    if summary["real_bytes_per_table"] is not None:
        lines.append(f"| server growth per table after the first of each game, real / estimated | "
                     f"{summary['real_bytes_per_table'] / MB:.2f} MB / "
                     f"{summary['estimated_bytes_per_table'] / MB:.2f} MB |")
    lines.append("| server RSS: started / every game loaded / played / after overflow | "
                 + " / ".join(_mb(run["marks"][name]["server"]["rss"])
                              for name in ("started", "every game loaded", "tables played", "after overflow"))
                 + " |")
    if probe:
        lines += ["", "| probe: game, agent | decision s | worker RSS after | growth | estimated search bytes |",
                  "|---|---:|---:|---:|---:|"]
        for row in probe:
            lines.append(f"| {row['env_id']} {row['spec']} | {row['seconds']:.1f} | {_mb(row['rss'])} | "
                         f"{_mb(row['grown'])} | {row['search_bytes'] / MB:.1f} MB |")
    loads = [f"{load:.1f}" if load is not None else "?"
             for load in (machine.get("load_average_start"), machine.get("load_average_end"))]
    lines += ["", f"Machine: {machine.get('cpu', '?')} · {machine.get('cpu_count', '?')} cores · git "
              f"{machine.get('git', '?')} · 1-minute load average {loads[0]} at the start, {loads[1]} at the end."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    opts = parse_args(argv)
    games = opts.envs or table_games()
    load_at_start = _load_average()
    began = time.perf_counter()
    bare = probe = None
    if not opts.skip_probe:
        bare = bare_worker_memory()
        progress(f"bare worker: {bare['rss'] / MB:.0f} MB")
        probe = probe_agents(games, bare)
    run = run_tables(opts, games)
    run["games"] = games
    summary = summarize(opts, run, probe, bare)
    machine = {**machine_info(cardenvs), "load_average_start": load_at_start, "load_average_end": _load_average()}
    text = report(opts, run, probe, summary, machine)
    print(text)
    results = {"options": {k: str(v) if isinstance(v, Path) else v for k, v in dataclasses.asdict(opts).items()},
               "machine": machine, "seconds": time.perf_counter() - began, "summary": summary, "probe": probe,
               "bare_worker": bare, "run": run, "created": datetime.datetime.now().isoformat(timespec="seconds")}
    opts.json.parent.mkdir(parents=True, exist_ok=True)
    opts.json.write_text(json.dumps(results, indent=1, default=str))
    if opts.markdown is not None:
        opts.markdown.parent.mkdir(parents=True, exist_ok=True)
        opts.markdown.write_text(text + "\n")
    return results


if __name__ == "__main__":
    main()
