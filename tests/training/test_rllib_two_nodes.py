"""A Ray cluster of two nodes on this machine: ``rllib_train`` samples on the worker node and learns on the head.

The head (``ray start --head --num-cpus 0``) and the worker node (``ray start --address HEAD --num-cpus 1``) are
each their own ``ray start --block`` process in a session of its own, on the machine's own address: Ray refuses a
second node when ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` keeps the cluster on 127.0.0.1 ("Multi-node Ray clusters
are not supported"). The head lends no CPU, so the batched EnvRunner (one CPU) can only run on the worker node; the
learner runs in the driver, joined to the head as ``127.0.0.1:PORT``. Two iterations with a checkpoint each, then a
resumed third; both nodes are stopped through their own processes and the test fails if anything of theirs is
left. Token authentication is off here (``RAY_AUTH_MODE=disabled``; test_rllib_cluster.py covers it). It runs in
the default test run: under a minute on 2 cores, with a training run on the same cores.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the [rllib] extra is not installed")
if not sys.platform.startswith("linux"):
    pytest.skip("Ray runs multi-node clusters on Linux only", allow_module_level=True)

from tests.training.test_rllib_cluster import (
    HEAD_READY,
    HEAD_START_SECONDS,
    HEAD_STOP_SECONDS,
    RAY_CLI,
    end_session,
    free_port,
    rllib_train,
)

#: tiny sizes: 16 games on one remote EnvRunner, an iteration of 16 steps of each, one small update
TINY = ["--env-id", "clabber_v0", "--num-env-runners", "1", "--num-envs-per-env-runner", "16", "--train-batch-size",
        "256", "--minibatch-size", "128", "--update-epochs", "1", "--hidden", "16", "--final-games", "0"]
#: the name Ray gives the log of a batched EnvRunner actor
ENV_RUNNER_ACTOR = ":actor_name:BatchedEnvRunner"


def start_node(arguments: list[str], environ: dict[str, str], log_path: Path) -> subprocess.Popen:
    """``ray start --block *arguments`` in a session of its own, waited for until it serves."""
    with log_path.open("w") as log:
        process = subprocess.Popen([*RAY_CLI, "start", "--block", "--disable-usage-stats", *arguments], env=environ,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + HEAD_START_SECONDS
    while HEAD_READY not in log_path.read_text():
        assert process.poll() is None, f"the node stopped:\n{log_path.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"no node after {HEAD_START_SECONDS} s:\n{log_path.read_text()[-3000:]}"
        time.sleep(0.5)
    return process


def test_sampling_on_the_worker_node_and_learning_on_the_head_train_checkpoint_and_resume(tmp_path):
    temp_dir = Path(tempfile.mkdtemp(prefix="ray_", dir="/tmp"))  # Ray's socket paths must stay short
    environ = {name: value for name, value in os.environ.items()
               if not name.startswith(("RAY_ADDRESS", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_AUTH"))}
    # no token authentication (test_rllib_cluster.py covers it): a token in ~/.ray would turn it on for the head,
    # and `ray start --address HOST:PORT` does not present it
    environ["RAY_AUTH_MODE"] = "disabled"
    port = free_port()
    nodes = []
    try:
        nodes.append(start_node(["--head", "--port", str(port), "--num-cpus", "0", "--include-dashboard", "false",
                                 "--ray-client-server-port", str(free_port()), "--temp-dir", str(temp_dir)],
                                environ, tmp_path / "head.log"))
        nodes.append(start_node(["--address", f"127.0.0.1:{port}", "--num-cpus", "1"], environ,
                                tmp_path / "worker.log"))
        run_dir = tmp_path / "run"
        joined = ["--address", f"127.0.0.1:{port}", "--run-dir", str(run_dir)]
        first = rllib_train([*TINY, "--iterations", "2", "--checkpoint-every", "1", *joined], environ)
        assert first.returncode == 0, first.stderr[-3000:]
        assert "iter    1 |" in first.stdout and "iter    2 |" in first.stdout
        # the batched EnvRunner ran, and only the worker node has a CPU to give it (the nodes share the temp dir)
        assert [log for log in temp_dir.glob("session_*/logs/worker-*.out") if ENV_RUNNER_ACTOR in log.read_text()]
        checkpoint = (run_dir / "checkpoint").resolve()
        assert first.stdout.count(f"saved to {checkpoint}") == 2
        resumed = rllib_train(["--run-dir", str(run_dir), "--resume", "--iterations", "3", "--address",
                               f"127.0.0.1:{port}"], environ)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert "iter    3 |" in resumed.stdout and "iter    1 |" not in resumed.stdout
        assert f"checkpoint of iteration 3 saved to {checkpoint}" in resumed.stdout
    finally:
        left = [command for node in reversed(nodes) for command in end_session(node, HEAD_STOP_SECONDS)]
        shutil.rmtree(temp_dir, ignore_errors=True)
    assert not left, f"processes of the nodes were still running after they stopped: {left}"
