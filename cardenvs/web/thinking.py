"""Search agents think in worker processes, never on the server's event loop, each decision within a time budget.

A search agent (``pimc``, ``ismcts``) plays thousands of games per decision in compiled code that holds the
interpreter while it runs: in the server's own process it would stop every other page for as long as it thinks.
:class:`Thinkers` keeps a few worker processes (:data:`THINKERS`); a table's thread hands a worker one decision (the
game, the true state, the seat, the agent's spec) and waits for the action, at most :data:`DECISION_SECONDS`
(:data:`FIRST_DECISION_SECONDS` for a worker's first decision of a game, which loads or compiles its rules). A
worker that runs past its budget is stopped and replaced, and the decision fails with :class:`OutOfTimeError`;
:meth:`Thinkers.close` stops every worker, and every decision waited on fails with :class:`ThinkingStoppedError`.

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

#: worker processes: search agents of this many tables think at once; the others wait for one
THINKERS = max(1, min(2, os.cpu_count() or 1))
#: seconds one search decision may take; then the worker is stopped and the decision fails
DECISION_SECONDS = 10.0
#: seconds a worker's first decision of a game may take: it loads the game's compiled rules (or compiles them,
#: on a machine that never ran the game: minutes)
FIRST_DECISION_SECONDS = 600.0
#: agents a worker keeps built (a network loaded, the playouts' buffers)
AGENTS_KEPT = 8
#: how often a thread waiting for a free worker looks whether the thinkers were closed, seconds
WAIT_POLL_SECONDS = 0.2
#: seconds a closed worker is given to end by itself before it is killed
WORKER_EXIT_SECONDS = 2.0
#: threads a worker's compiled playouts run on: one core fewer than the machine has (at least one)
WORKER_NUMBA_THREADS = max(1, (os.cpu_count() or 1) - 1)
#: the agents' seeds are drawn below this (numpy generators take any such integer)
AGENT_SEED_LIMIT = 2**63


class ThinkingStoppedError(Exception):
    """The thinkers were closed (the server is shutting down): no decision will come."""


class OutOfTimeError(Exception):
    """A search agent's decision ran past its budget, or its worker failed; the message says which."""


def _act(agents: OrderedDict, task: dict) -> int:
    """One decision in a worker: the agent of ``task`` (built once, kept) at the task's seat and state."""
    import cardenvs
    from cardenvs.agents.base import act_at_seat
    from cardenvs.agents.registry import make_agent

    game = cardenvs.get_game(task["env_id"])
    params = game.make_params(**task["params"])
    key = (task["env_id"], json.dumps(task["params"], sort_keys=True), task["spec"])
    agent = agents.pop(key, None)
    if agent is None:
        agent = make_agent(task["spec"], task["env_id"], game.observation_layout(params),
                           seed=secrets.randbelow(AGENT_SEED_LIMIT))
    agents[key] = agent
    while len(agents) > AGENTS_KEPT:
        agents.popitem(last=False)
    record = np.frombuffer(task["record"], dtype=game.state_dtype(params)).copy().view(np.recarray)[0]
    return int(act_at_seat(agent, game, params, record, task["seat"], task["observation"], task["mask"]))


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
            connection.send(("action", _act(agents, task)))
        except Exception as error:  # any failure of the agent is this decision's answer
            connection.send(("error", f"{type(error).__name__}: {error}"))


class _Worker:
    """One worker process and the end of its pipe, and the games it has decided in."""

    def __init__(self, context: Any):
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker, args=(child,), daemon=True, name="cardenvs-thinker")
        self.process.start()
        child.close()
        self.games: set[str] = set()

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
               mask: np.ndarray, spec: str) -> int:
        """The action of the agent ``spec`` at ``seat`` (the seat to act in ``record``), thought in a worker.

        Args:
            env_id: the game.
            params: its parameters (a dict of the parameters dataclass's fields).
            record: the true state record.
            seat: the seat to act.
            observation: its observation.
            mask: its legal mask.
            spec: the agent's spec (a search agent).

        Raises:
            OutOfTimeError: the decision ran past its budget or the agent failed (the message says which).
            ThinkingStoppedError: the thinkers were closed meanwhile.
        """
        worker = self._take()
        budget = self.decision_seconds if env_id in worker.games else max(self.decision_seconds,
                                                                          FIRST_DECISION_SECONDS)
        task = {"env_id": env_id, "params": params, "record": record.tobytes(), "seat": int(seat),
                "observation": np.asarray(observation), "mask": np.asarray(mask), "spec": spec}
        started = time.monotonic()
        try:
            worker.connection.send(task)
            ready = worker.connection.poll(budget)
            answer = worker.connection.recv() if ready else None
        except (EOFError, OSError, BrokenPipeError):
            answer = ("error", "its worker process ended")
        if self.closed:
            self._retire(worker)
            raise ThinkingStoppedError("the server is shutting down")
        if answer is None:
            self._retire(worker)
            raise OutOfTimeError(f"it thought for {time.monotonic() - started:.0f} s, past its budget of {budget:g} s")
        kind, value = answer
        if kind != "action":
            self._retire(worker)
            raise OutOfTimeError(f"it failed ({str(value)[:200]})")
        worker.games.add(env_id)
        self._give_back(worker)
        return int(value)

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
