"""``rllib_train --address`` joins a Ray cluster started by ``ray start --head``, with its token authentication.

The test starts its own head, bound to the loopback interface only, light (2 CPUs, no dashboard, no usage
stats, its own temp dir and ports), in the way a first-time user would: the token comes from ``ray
get-auth-token --generate`` into ``~/.ray/auth_token`` (a home of the test's own), and ``ray start --head``, which
finds it, turns token authentication on. Then the script, with no ``RAY_AUTH_MODE`` set, trains two iterations
on a remote EnvRunner, checkpoints, and resumes for a third.

Ray resolves ``--node-ip-address 127.0.0.1`` to the machine's routable address on Linux
(``ray._private.services.resolve_ip_for_localhost``); only with ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` does it
keep the loopback address, for a single-node cluster. Both the head and the driver get that setting.

The head is stopped by signalling its own ``ray start --block`` process, which stops the processes it started
(``ray stop`` would stop every Ray process on the machine, other users' included); anything of its session still
alive after the grace period is killed, and the test fails if anything was left.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the [rllib] extra is not installed")
if not sys.platform.startswith("linux"):
    pytest.skip("Ray clusters run on Linux (Ray supports no multi-node cluster on macOS or Windows)",
                allow_module_level=True)

ENV_ID = "clabber_v0"
#: the ``ray`` command of this Python (its console script may not be on the PATH)
RAY_CLI = [sys.executable, "-m", "ray.scripts.scripts"]
#: what the head's log says once it serves
HEAD_READY = "Ray runtime started"
HEAD_START_SECONDS = 120
HEAD_STOP_SECONDS = 60
#: how long a SIGKILLed process may take to disappear
KILL_SECONDS = 10
#: one run of the script: joining, shipping the package, starting an EnvRunner, a couple of tiny iterations
DRIVER_SECONDS = 420
#: tiny sizes: an iteration samples a couple of games and makes a handful of gradient steps
TINY = ["--env-id", ENV_ID, "--train-batch-size", "200", "--minibatch-size", "100", "--update-epochs", "1",
        "--hidden", "16", "--final-games", "0", "--num-env-runners", "1", "--sampler", "pettingzoo"]
#: the name Ray gives the log of an actor of RLlib's multi-agent EnvRunner
ENV_RUNNER_ACTOR = ":actor_name:MultiAgentEnvRunner"


@dataclass
class Head:
    """A running Ray head: its address, the environment its drivers run in, its process and its log."""

    address: str
    environ: dict[str, str]
    process: subprocess.Popen
    temp_dir: Path


def free_port() -> int:
    """A TCP port of the loopback interface that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def session_processes(session_id: int) -> dict[int, str]:
    """The live processes of the session ``session_id`` (those started in it and their descendants): pid -> command.

    Read from ``/proc``: Ray clusters run on Linux.
    """
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            if os.getsid(pid) != session_id:
                continue
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except (ProcessLookupError, PermissionError, FileNotFoundError):
            continue
        if state != "Z":  # a zombie has ended; only its parent's wait is missing
            found[pid] = command
    return found


def end_session(leader: subprocess.Popen, grace_seconds: float) -> list[str]:
    """SIGTERM ``leader`` (a session leader), wait, then SIGKILL whatever of its session is left; what was left."""
    if leader.poll() is None:
        leader.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            leader.wait(grace_seconds)
    deadline = time.monotonic() + grace_seconds
    while session_processes(leader.pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    left = session_processes(leader.pid)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if leader.poll() is None:
        leader.kill()
        leader.wait(KILL_SECONDS)
    deadline = time.monotonic() + KILL_SECONDS
    while session_processes(leader.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [command[:120] for command in left.values()]


@pytest.fixture
def head(tmp_path) -> Iterator[Head]:
    # Ray's socket paths live under the temp dir and must stay short (a Unix socket path is at most 107 bytes).
    temp_dir = Path(tempfile.mkdtemp(prefix="ray_", dir="/tmp"))
    home = tmp_path / "home"
    home.mkdir()
    environ = {name: value for name, value in os.environ.items()
               if not name.startswith(("RAY_AUTH", "RAY_ADDRESS"))}
    environ.update(HOME=str(home), RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    subprocess.run([*RAY_CLI, "get-auth-token", "--generate"], env=environ, check=True, capture_output=True,
                   timeout=HEAD_START_SECONDS)
    assert (home / ".ray" / "auth_token").is_file()
    port = free_port()
    log_path = tmp_path / "head.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [*RAY_CLI, "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--port", str(port),
             "--ray-client-server-port", str(free_port()), "--dashboard-port", str(free_port()),
             "--dashboard-agent-listen-port", str(free_port()), "--num-cpus", "2", "--include-dashboard", "false",
             "--disable-usage-stats", "--temp-dir", str(temp_dir)],
            env=environ, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + HEAD_START_SECONDS
        while HEAD_READY not in log_path.read_text():
            assert process.poll() is None, f"the head stopped:\n{log_path.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"no head after {HEAD_START_SECONDS} s:\n{log_path.read_text()[-3000:]}"
            time.sleep(0.5)
        assert "Token authentication is enabled" in log_path.read_text()
        yield Head(f"127.0.0.1:{port}", environ, process, temp_dir)
    finally:
        left = end_session(process, HEAD_STOP_SECONDS)
        shutil.rmtree(temp_dir, ignore_errors=True)
    assert not left, f"processes of the head were still running after it stopped: {left}"


def run_in_session(command: list[str], environ: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """Run ``command`` in a session of its own, ended whole (nothing of it left running) when it is done."""
    process = subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        end_session(process, grace_seconds=5)
        stdout, stderr = process.communicate()
        pytest.fail(f"{command[:3]} ran past {timeout} s:\n{stderr[-3000:]}")
    finally:
        left = end_session(process, grace_seconds=5)
    assert not left, f"{command[:3]} left processes running: {left}"
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def rllib_train(argv: list[str], environ: dict[str, str]) -> subprocess.CompletedProcess:
    """``python -m cardenvs.training.rllib_train *argv``, bounded in time."""
    return run_in_session([sys.executable, "-m", "cardenvs.training.rllib_train", *argv], environ, DRIVER_SECONDS)


def env_runner_logs(temp_dir: Path) -> list[Path]:
    """The head's logs of RLlib EnvRunner actors (each actor's log names the actor's class)."""
    return [path for path in temp_dir.glob("session_*/logs/worker-*.out") if ENV_RUNNER_ACTOR in path.read_text()]


@pytest.mark.slow  # two minutes of a Ray head starting and training; the remote EnvRunner smoke tests stay fast
def test_rllib_train_joins_a_token_authenticated_cluster_trains_on_a_remote_env_runner_and_resumes(head, tmp_path):
    # The cluster does require the token: a driver that joins HOST:PORT the plain way is refused.
    refused = run_in_session([sys.executable, "-c", f"import ray; ray.init(address={head.address!r})"],
                             head.environ, timeout=HEAD_START_SECONDS)
    assert refused.returncode != 0 and "AuthenticationError" in refused.stderr, refused.stderr[-2000:]

    # A driver with another token is refused, and says where the cluster's token goes.
    wrong = rllib_train([*TINY, "--iterations", "1", "--address", head.address, "--run-dir", str(tmp_path / "wrong")],
                        {**head.environ, "RAY_AUTH_TOKEN": "not-the-cluster-s-token"})
    assert wrong.returncode == 1
    assert wrong.stderr.splitlines()[-1].startswith(f"rllib_train: the Ray cluster at {head.address!r} refused")
    assert "~/.ray/auth_token" in wrong.stderr.splitlines()[-1]

    run_dir = tmp_path / "run"
    joined = ["--address", head.address, "--run-dir", str(run_dir)]
    first = rllib_train([*TINY, "--iterations", "2", "--checkpoint-every", "1", *joined], head.environ)
    assert first.returncode == 0, first.stderr[-3000:]
    assert f"Connecting to existing Ray cluster at address: {head.address}" in first.stderr
    assert "iter    1 |" in first.stdout and "iter    2 |" in first.stdout
    checkpoint = run_dir / "checkpoint"
    assert first.stdout.count(f"saved to {checkpoint.resolve()}") == 2
    assert (checkpoint / "rllib_checkpoint.json").is_file()
    assert env_runner_logs(head.temp_dir), "an EnvRunner actor ran in the cluster"

    resumed = rllib_train(["--run-dir", str(run_dir), "--resume", "--iterations", "3", "--address", head.address],
                         head.environ)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "iter    3 |" in resumed.stdout and "iter    1 |" not in resumed.stdout
    assert f"checkpoint of iteration 3 saved to {checkpoint.resolve()}" in resumed.stdout
