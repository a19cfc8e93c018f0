"""Search agents think in worker processes, never on the server's event loop, each decision within a time budget.

A search agent (``pimc``, ``ismcts``) plays thousands of games per decision in compiled code that holds the
interpreter while it runs: in the server's own process it would stop every other page for as long as it thinks.
:class:`Thinkers` keeps a few worker processes (:data:`THINKERS`); a table's thread hands a worker one decision (the
game, the true state, the seat, the agent's spec) and waits for the action, at most :data:`DECISION_SECONDS` once
the agent is ready (a worker's first use of an agent builds it and loads or compiles the game's code first, within
:data:`PREPARE_SECONDS`). A worker that runs past its budget is stopped and replaced, and the decision fails with
:class:`OutOfTimeError`; :meth:`Thinkers.close` stops every worker, a table that is closed stops the worker
thinking for it, and a decision waited on then fails with :class:`ThinkingStoppedError`.

Workers keep the agents they built (at most :data:`AGENTS_KEPT`, the least recently used go first), so a
decision does not load a network again.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import secrets
import threading
import time
from collections import OrderedDict
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from cardenvs.core.rng import SEED_LIMIT

#: worker processes: search agents of this many tables think at once; the others wait for one
THINKERS = max(1, min(2, os.cpu_count() or 1))
#: seconds one search decision may take; then the worker is stopped and the decision fails
DECISION_SECONDS = 10.0
#: seconds a worker may take to get an agent ready (build it, load the game's compiled code, or compile it on a
#: machine that never ran the game: minutes) before its first decision
PREPARE_SECONDS = 600.0
#: the smallest budget of each search agent, for the decision that loads a game's compiled code in a worker
WARM_BUDGET = {"pimc": {"determinizations": 1, "rollouts": 1}, "ismcts": {"iterations": 2}}
#: agents a worker keeps built (a network loaded, the playouts' buffers)
AGENTS_KEPT = 8
#: how often a thread waiting for a free worker looks whether the thinkers were closed, seconds
WAIT_POLL_SECONDS = 0.2
#: seconds a closed worker is given to end by itself before it is killed
WORKER_EXIT_SECONDS = 2.0
#: threads a worker's compiled playouts run on: one core fewer than the machine has (at least one)
WORKER_NUMBA_THREADS = max(1, (os.cpu_count() or 1) - 1)


class ThinkingStoppedError(Exception):
    """The thinkers were closed (the server is shutting down): no decision will come."""


class OutOfTimeError(Exception):
    """A search agent's decision ran past its budget, or its worker failed; the message says which."""


def _warm_spec(spec: str) -> str:
    """``spec`` with the smallest budget: a decision of it compiles what the spec's decisions run, in no time."""
    kind, _, argument = spec.partition(":")
    options = dict(part.partition("=")[::2] for part in filter(None, argument.split(",")))
    options.update(WARM_BUDGET.get(kind, {}))
    return kind + ":" + ",".join(f"{name}={value}" for name, value in options.items())


def _act(agents: OrderedDict, task: dict, connection: Connection) -> int:
    """One decision in a worker: the agent of ``task`` (built once and kept) at the task's seat and state. Sends
    ``("ready", None)`` once the agent is built and the game's compiled code is loaded (a decision of the agent
    at its smallest budget, on a first use), before the decision proper."""
    import cardenvs
    from cardenvs.agents.base import act_at_seat
    from cardenvs.agents.registry import make_agent

    game = cardenvs.get_game(task["env_id"])
    params = game.make_params(**task["params"])
    layout = game.observation_layout(params)
    record = np.frombuffer(task["record"], dtype=game.state_dtype(params)).copy().view(np.recarray)[0]
    decision = (game, params, record, task["seat"], task["observation"], task["mask"])
    key = (task["env_id"], json.dumps(task["params"], sort_keys=True), task["spec"])
    agent = agents.pop(key, None)
    if agent is None:
        agent = make_agent(task["spec"], task["env_id"], layout, seed=secrets.randbelow(SEED_LIMIT))
        act_at_seat(make_agent(_warm_spec(task["spec"]), task["env_id"], layout, seed=0), *decision)
    agents[key] = agent
    while len(agents) > AGENTS_KEPT:
        agents.popitem(last=False)
    connection.send(("ready", None))
    return int(act_at_seat(agent, *decision))


def _worker(connection: Connection) -> None:
    """A worker process: decisions in, actions (or the error's message) out, until ``None`` or the pipe closes.
    Its compiled playouts use :data:`WORKER_NUMBA_THREADS` threads, so that a core is left for the server."""
    import numba

    numba.set_num_threads(min(WORKER_NUMBA_THREADS, numba.config.NUMBA_NUM_THREADS))
    agents: OrderedDict = OrderedDict()
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            connection.send(("action", _act(agents, task, connection)))
        except Exception as error:  # any failure of the agent is this decision's answer
            connection.send(("error", f"{type(error).__name__}: {error}"))


class _Worker:
    """One worker process and the end of its pipe."""

    def __init__(self, context: Any):
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker, args=(child,), daemon=True, name="cardenvs-thinker")
        self.process.start()
        child.close()

    def kill(self) -> None:
        """End the process at once (it may be thinking): a thread waiting on its pipe then reads the pipe's end."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(WORKER_EXIT_SECONDS)

    def stop(self) -> None:
        """End the process and close the pipe (only by the thread that holds the worker, or for an idle one)."""
        self.kill()
        self.connection.close()


class Thinkers:
    """Worker processes in which search agents make their decisions.

    Args:
        processes: how many workers at most (started when first needed).
        decision_seconds: the budget of one decision.
    """

    def __init__(self, processes: int = THINKERS, decision_seconds: float = DECISION_SECONDS):
        self.processes = processes
        self.decision_seconds = decision_seconds
        self._context = multiprocessing.get_context("spawn")
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._started = 0
        self._busy: set[_Worker] = set()
        self._lock = threading.Lock()
        self.closed = False

    def _take(self) -> _Worker:
        """An idle worker (a new one while fewer than ``processes`` run); waits for one otherwise."""
        while True:
            if self.closed:
                raise ThinkingStoppedError("the server is shutting down")
            with self._lock:
                if self._idle.empty() and self._started < self.processes:
                    self._started += 1
                    worker = _Worker(self._context)
                    self._busy.add(worker)
                    return worker
            try:
                worker = self._idle.get(timeout=WAIT_POLL_SECONDS)
            except queue.Empty:
                continue
            with self._lock:
                self._busy.add(worker)
            return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            self._busy.discard(worker)
            if self.closed:
                worker.stop()
            else:
                self._idle.put(worker)

    def _retire(self, worker: _Worker) -> None:
        """Stop a worker that failed or ran out of time; a new one starts when next needed."""
        with self._lock:
            self._busy.discard(worker)
            self._started -= 1
        worker.stop()

    def decide(self, env_id: str, params: dict[str, Any], record: np.record, seat: int, observation: np.ndarray,
               mask: np.ndarray, spec: str, cancelled: threading.Event | None = None) -> int:
        """The action of the agent ``spec`` at ``seat`` (the seat to act in ``record``), thought in a worker: the
        agent gets ready within :data:`PREPARE_SECONDS`, then decides within the decision budget.

        Args:
            env_id: the game.
            params: its parameters (a dict of the parameters dataclass's fields).
            record: the true state record.
            seat: the seat to act.
            observation: its observation.
            mask: its legal mask.
            spec: the agent's spec (a search agent).
            cancelled: set it to stop waiting (the worker thinking is stopped; ThinkingStoppedError).

        Raises:
            OutOfTimeError: the decision ran past its budget or the agent failed (the message says which).
            ThinkingStoppedError: the thinkers were closed, or ``cancelled`` set, meanwhile.
        """
        worker = self._take()
        task = {"env_id": env_id, "params": params, "record": record.tobytes(), "seat": int(seat),
                "observation": np.asarray(observation), "mask": np.asarray(mask), "spec": spec}
        try:
            worker.connection.send(task)
            ready = self._answer(worker, PREPARE_SECONDS, cancelled)
            started = time.monotonic()
            answer = self._answer(worker, self.decision_seconds, cancelled) if ready and ready[0] == "ready" \
                else ready
        except ThinkingStoppedError:
            self._retire(worker)
            raise
        except (EOFError, OSError):
            answer = ("error", "its worker process ended")
        if answer is None:
            self._retire(worker)
            raise OutOfTimeError(f"it thought for {time.monotonic() - started:.0f} s, past its budget of "
                                 f"{self.decision_seconds:g} s" if ready else
                                 f"it was not ready within {PREPARE_SECONDS:g} s")
        kind, value = answer
        if kind != "action":
            self._retire(worker)
            raise OutOfTimeError(f"it failed ({str(value)[:200]})")
        self._give_back(worker)
        return int(value)

    def _answer(self, worker: _Worker, seconds: float, cancelled: threading.Event | None) -> tuple | None:
        """The worker's next message within ``seconds`` (None after that); ThinkingStoppedError as soon as the
        thinkers are closed or ``cancelled`` is set."""
        deadline = time.monotonic() + seconds
        while True:
            if self.closed or (cancelled is not None and cancelled.is_set()):
                raise ThinkingStoppedError("the thinking was stopped")
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if worker.connection.poll(min(left, WAIT_POLL_SECONDS)):
                return worker.connection.recv()

    def close(self) -> None:
        """Stop every worker, thinking or not; decisions waited on fail with :class:`ThinkingStoppedError`."""
        with self._lock:
            self.closed = True
            busy = list(self._busy)
            idle = []
            while not self._idle.empty():
                idle.append(self._idle.get_nowait())
        for worker in busy:
            worker.kill()  # the thread that waits on it closes its pipe
        for worker in idle:
            worker.stop()

    def pids(self) -> list[int]:
        """The process ids of the workers running now (for the memory measurement and the tests)."""
        with self._lock:
            workers = list(self._busy) + list(self._idle.queue)
        return [worker.process.pid for worker in workers if worker.process.pid is not None]
