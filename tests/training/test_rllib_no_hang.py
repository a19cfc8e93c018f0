"""``rllib_train --address`` never hangs: an address where nothing answers, a port that answers but is no Ray
head, and a SIGTERM while Ray's client waits each end the driver within a stated time, with one line that says why.

Each case runs the script in a session of its own and bounds it; the bounds are the script's own limits
(``PROBE_SECONDS``, ``--join-seconds``, ``STOP_GRACE_SECONDS``) plus :data:`START_SECONDS` for Python, torch,
Ray and the game's compiled rules to load on a busy machine.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray", reason="the [rllib] extra is not installed")

from ray._private.services import canonicalize_bootstrap_address

from cardenvs.core.exit_codes import EXIT_FAILURE, EXIT_INTERRUPTED
from cardenvs.training.rllib_train import (
    LOOPBACK_CLUSTER_VARIABLE,
    PROBE_SECONDS,
    STOP_GRACE_SECONDS,
    unreachable,
)

#: the port of the discard service: nothing listens on it here, and connecting is refused at once
NOTHING_THERE = "127.0.0.1:9"
#: what the driver needs before it looks at the address: Python, torch, Ray and the game's rules loaded
START_SECONDS = 60
#: --join-seconds of the run against a port that is no Ray head
JOIN_SECONDS = 5
#: Ray's log line when the driver begins to join
CONNECTING = "Connecting to existing Ray cluster"
#: the options of a run that would be tiny if it ever started
TINY = ["--env-id", "clabber_v0", "--iterations", "1", "--train-batch-size", "200", "--minibatch-size", "100",
        "--hidden", "16", "--final-games", "0"]


def listener(host: str) -> Iterator[str]:
    """A TCP port of ``host`` that accepts connections and never says anything: ``HOST:PORT``."""
    with socket.socket() as server:
        server.bind((host, 0))
        server.listen(64)
        yield f"{'127.0.0.1' if host == '0.0.0.0' else host}:{server.getsockname()[1]}"


@pytest.fixture
def silent_port() -> Iterator[str]:
    """A port open on every interface that is no Ray head, addressed as ``127.0.0.1:PORT``."""
    yield from listener("0.0.0.0")


@pytest.fixture
def loopback_port() -> Iterator[str]:
    """A port open on the loopback interface only, as a head started with RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0."""
    yield from listener("127.0.0.1")


def start_driver(address: str, run_dir: Path, *options: str, stderr: Any = subprocess.PIPE) -> subprocess.Popen:
    """``python -m cardenvs.training.rllib_train`` joining ``address``, in a session of its own, its stderr to
    ``stderr``."""
    environ = {name: value for name, value in os.environ.items() if not name.startswith("RAY_")}
    return subprocess.Popen([sys.executable, "-m", "cardenvs.training.rllib_train", *TINY, "--address", address,
                             "--run-dir", str(run_dir), *options],
                            env=environ, stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True)


def finish(driver: subprocess.Popen, seconds: float) -> tuple[int, str, float]:
    """Wait up to ``seconds`` for the driver: its exit code, its stderr and how long it took (its session killed if
    it ran past, and the test failed)."""
    started = time.monotonic()
    try:
        _, stderr = driver.communicate(timeout=seconds)
        stderr = stderr or ""
    except subprocess.TimeoutExpired:
        os.killpg(driver.pid, signal.SIGKILL)
        _, stderr = driver.communicate()
        pytest.fail(f"the driver ran past {seconds} s:\n{stderr[-2000:]}")
    return driver.returncode, stderr, time.monotonic() - started


def last_line(stderr: str) -> str:
    """The last line the driver printed to stderr."""
    return stderr.strip().splitlines()[-1]


def test_an_address_where_nothing_answers_fails_at_once_with_one_line(tmp_path):
    code, stderr, _ = finish(start_driver(NOTHING_THERE, tmp_path / "run"), START_SECONDS + 2 * PROBE_SECONDS)
    assert code == EXIT_FAILURE
    assert last_line(stderr).startswith(f"rllib_train: cannot reach the Ray cluster at {NOTHING_THERE!r}: nothing "
                                        "answers there")
    assert CONNECTING not in stderr  # Ray never began its minutes of retries
    assert not (tmp_path / "run").exists()


def test_a_port_that_is_no_ray_head_fails_after_join_seconds(silent_port, tmp_path):
    code, stderr, _ = finish(start_driver(silent_port, tmp_path / "run", "--join-seconds", str(JOIN_SECONDS)),
                             START_SECONDS + PROBE_SECONDS + JOIN_SECONDS)
    assert code == EXIT_FAILURE
    assert CONNECTING in stderr
    assert last_line(stderr) == (
        f"rllib_train: cannot join the Ray cluster at {silent_port!r}: its port answers but no cluster let the driver "
        f"in within {JOIN_SECONDS} s (--join-seconds); is it a Ray head of this Ray version?")


def test_sigterm_stops_a_driver_that_waits_for_a_cluster(silent_port, tmp_path):
    log = tmp_path / "driver.log"
    with log.open("w") as stderr_file:
        driver = start_driver(silent_port, tmp_path / "run", stderr=stderr_file)
        deadline = time.monotonic() + START_SECONDS + PROBE_SECONDS
        while CONNECTING not in log.read_text():  # then Ray's client is waiting for the cluster
            assert driver.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.2)
        driver.send_signal(signal.SIGTERM)
        code, _, took = finish(driver, STOP_GRACE_SECONDS + PROBE_SECONDS)
    stderr = log.read_text()
    assert code == EXIT_INTERRUPTED
    assert last_line(stderr).startswith("interrupted before the first checkpoint; start the run over with")
    assert took <= STOP_GRACE_SECONDS + PROBE_SECONDS


def test_a_head_on_loopback_only_is_named_with_the_variable_the_driver_needs(loopback_port):
    dialed = canonicalize_bootstrap_address(loopback_port)
    if dialed == loopback_port:
        pytest.skip("this machine has no routable address: Ray dials the loopback address as given")
    reason = unreachable(loopback_port)
    assert reason == (f"the Ray head at {loopback_port} listens on the loopback interface only, and Ray dials "
                      f"{dialed} for it on this machine; run this driver with {LOOPBACK_CLUSTER_VARIABLE}=0 as the "
                      "head was started (docs/rllib.md)")


def test_an_answering_port_and_auto_pass_the_probe(silent_port):
    assert unreachable(silent_port) is None
    assert unreachable("auto") is None


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.1:port", "ray://"])
def test_an_address_without_a_port_is_refused(address):
    with pytest.raises(ValueError, match="--address must be HOST:PORT, auto or ray://HOST:PORT"):
        unreachable(address)
