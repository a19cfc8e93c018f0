"""The wheel, as a pip user gets it: built from the repository, installed with ``[train,web]`` into a fresh virtual
environment, and used from a directory outside the repository.

It proves what a checkout cannot: the wheel installs exactly one top-level import package (``cardenvs``), ships the
trained agents and the rules pages, and its commands work without the repository (the quick start, a tournament
against ``trained``, ``cardenvs train`` with checkpoint, resume and load as an agent, ``cardenvs serve``). Then the
OpenAI Agents SDK, which installs a top-level ``agents`` package, goes into the same environment: both work side by
side. A read-only install plays (numba's compiled cache goes to the user's cache folder, and nothing at all is
written into the package), and uninstalling cardenvs after a game leaves nothing of it in site-packages and the SDK
whole.

The test run's own torch is reused (linked into the new environment by a ``.pth`` file) so that nothing installs a
second copy of it; the other dependencies come from the package index.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the one import package the wheel may install (besides its .dist-info folder)
PACKAGE = "cardenvs"
#: a package whose top-level import name is ``agents``, as cardenvs's used to be
OTHER_AGENTS_PACKAGE = "openai-agents"
#: seconds any one command of this test may take (an install, a training run)
COMMAND_TIMEOUT = 900
#: seconds ``cardenvs serve`` may take to answer its first request
SERVE_TIMEOUT = 120
GAME = "slabberjan_v0"
#: the environment variables of the test run that choose numba's cache folder or silence the compile notice: a pip
#: user has none of them (the wheel's processes use the platform's cache folder, under a test folder)
CACHE_VARIABLES = ("NUMBA_CACHE_DIR", "CARDENVS_CACHE_DIR", "CARDENVS_COMPILE_NOTICE", "XDG_CACHE_HOME")

QUICK_START = """
import numpy as np
import cardenvs

env = cardenvs.env("slabberjan_v0", num_players=5, render_mode="ansi")
env.reset(seed=0)
steps = 0
for agent in env.agent_iter():
    observation, reward, terminated, truncated, info = env.last()
    action = None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0])
    env.step(action)
    steps += 1
assert steps > 5 and env.render()

venv = cardenvs.vector_env("slabberjan_v0", num_envs=64, num_players=5)
venv.reset(seed=0)
for _ in range(100):
    venv.step(venv.sample_actions())

from cardenvs.agents import RandomAgent
from cardenvs.agents.registry import make_agent, shipped_checkpoint
assert shipped_checkpoint("slabberjan_v0") is not None
agent = make_agent("trained", "slabberjan_v0", cardenvs.env("slabberjan_v0").unwrapped.layout)  # default seats
print("quick start ok", agent.name, RandomAgent.__name__)
"""

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="building the wheel needs git's file list")


def run(command: list[str], cwd: Path, environ: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``command``; fail the test with its output if it exits non-zero."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, env=environ)
    assert done.returncode == 0, (f"{' '.join(command)} exited {done.returncode}:\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def torch_entries() -> list[Path]:
    """The installed torch's top-level folders and files (its package, metadata and companions) in site-packages."""
    distribution = importlib.metadata.distribution("torch")
    tops = {Path(str(file)).parts[0] for file in distribution.files or [] if not str(file).startswith("..")}
    root = Path(str(distribution.locate_file("")))
    return sorted(root / top for top in tops if (root / top).exists() and not top.startswith("__pycache__"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, Path]:
    """A fresh virtual environment with the wheel and its ``train`` and ``web`` extras; the wheel's path."""
    pytest.importorskip("torch")
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist),
         str(REPO)], cwd=base)
    wheel = next(dist.glob(f"{PACKAGE}-*.whl"))
    venv = base / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=base)
    python = venv / "bin" / "python"
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=base)
                .stdout.strip())
    shared = base / "shared_torch"  # the test run's torch, seen by the new environment through a .pth file
    shared.mkdir()
    for entry in torch_entries():
        (shared / entry.name).symlink_to(entry)
    (site / "shared_torch.pth").write_text(f"{shared}\n")
    run([str(python), "-m", "pip", "install", "--quiet", f"{wheel}[train,web]"], cwd=base)
    outside = base / "elsewhere"
    outside.mkdir()
    return {"wheel": wheel, "python": python, "bin": venv / "bin", "outside": outside, "site": site,
            "user_cache": base / "user-cache"}


def clean_environ(installed: dict[str, Path], user_cache: Path | None = None) -> dict[str, str]:
    """The process environment without anything that would put the repository on the import path or choose numba's
    cache folder; the platform's per-user cache folder (``XDG_CACHE_HOME`` on Linux) under ``user_cache``, by
    default the environment's own."""
    dropped = ("PYTHONPATH", "VIRTUAL_ENV", *CACHE_VARIABLES)
    environ = {key: value for key, value in os.environ.items() if key not in dropped}
    environ["PATH"] = f"{installed['bin']}{os.pathsep}{environ.get('PATH', '')}"
    environ["XDG_CACHE_HOME"] = str(user_cache or installed["user_cache"])
    return environ


def cache_files(folder: Path) -> list[Path]:
    """numba's index and data files under ``folder``."""
    return sorted(path for pattern in ("*.nbi", "*.nbc") for path in folder.rglob(pattern))


def package_entries(site: Path) -> list[Path]:
    """The entries of site-packages that belong to cardenvs: its package and its metadata."""
    return sorted(entry for entry in site.iterdir() if entry.name.lower().startswith(PACKAGE))


def package_files(site: Path) -> dict[str, tuple[int, int, int]]:
    """Every file and folder of the installed package and its metadata: mode, size and modification time."""
    found = {}
    for entry in package_entries(site):
        for path in [entry, *entry.rglob("*")]:
            status = path.lstat()
            found[str(path.relative_to(site))] = (status.st_mode, status.st_size, status.st_mtime_ns)
    return found


def test_the_wheel_installs_one_top_level_package_with_the_trained_agents_and_the_rules(installed):
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    tops = {name.split("/")[0] for name in names}
    assert {top for top in tops if not top.endswith(".dist-info")} == {PACKAGE}
    for env_id in ("slabberjan_v0", "clabber_v0", "gin_slaughtre_v0", "stabby_jack_v0", "slap_v0"):
        assert f"{PACKAGE}/agents/checkpoints/{env_id}.pt" in names
    assert f"{PACKAGE}/rules/clabber.md" in names
    assert not any(name.startswith((f"{PACKAGE}/tests", "tests/", "experiments/")) for name in names)


def test_the_quick_start_runs_outside_the_repository(installed):
    done = run([str(installed["python"]), "-c", QUICK_START], cwd=installed["outside"],
               environ=clean_environ(installed))
    assert "quick start ok trained RandomAgent" in done.stdout
    where = run([str(installed["python"]), "-c", "import cardenvs; print(cardenvs.__file__)"],
                cwd=installed["outside"], environ=clean_environ(installed)).stdout
    assert str(REPO) not in where  # the installed copy, not the checkout


def test_a_tournament_against_the_shipped_trained_agent_and_the_rules_page(installed):
    environ = clean_environ(installed)
    results = installed["outside"] / "tournament.json"
    done = run(["cardenvs", "tournament", GAME, "--agents", "trained", "heuristic", "--games", "20",
                "--no-progress", "--json", str(results), "--results", str(installed["outside"] / "t.jsonl")],
               cwd=installed["outside"], environ=environ)
    assert "trained" in done.stdout
    assert json.loads(results.read_text())
    rules = run(["cardenvs", "rules", "clabber_v0"], cwd=installed["outside"], environ=environ).stdout
    assert rules.startswith("# Clabber")


@pytest.mark.slow  # checkpoint and resume stay tested from the checkout (tests/training); here with the wheel
def test_train_checkpoint_resume_and_play_the_model(installed):
    environ = clean_environ(installed)
    run_dir = installed["outside"] / "run"
    common = ["--run-dir", str(run_dir), "--num-envs", "128", "--final-games", "0", "--eval-every", "0",
              "--no-progress-bar"]
    run(["cardenvs", "train", GAME, "--total-decisions", "10000", *common], cwd=installed["outside"],
        environ=environ)
    assert (run_dir / "checkpoint.pt").is_file()
    first = json.loads((run_dir / "model.json").read_text())["decisions"]
    resumed = run(["cardenvs", "train", GAME, "--total-decisions", "20000", "--resume", *common],
                  cwd=installed["outside"], environ=environ)
    assert "resumed" in resumed.stdout
    assert json.loads((run_dir / "model.json").read_text())["decisions"] >= 20000 > first
    played = run(["cardenvs", "tournament", GAME, "--agents", f"ppo:{run_dir / 'model.pt'}", "random",
                  "--games", "10", "--no-progress", "--results", str(installed["outside"] / "m.jsonl")],
                 cwd=installed["outside"], environ=environ)
    assert "model" in played.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_serve_answers_a_request(installed):
    port = free_port()
    server = subprocess.Popen(["cardenvs", "serve", "--port", str(port)], cwd=installed["outside"],
                              env=clean_environ(installed), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    try:
        deadline = time.monotonic() + SERVE_TIMEOUT
        page = None
        while page is None and time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    page = (response.status, response.read().decode())
            except OSError:
                time.sleep(0.5)
        assert page is not None, f"cardenvs serve did not answer: {server.poll()}"
        assert page[0] == 200 and "clabber_v0" in page[1]
    finally:
        server.terminate()
        server.wait(timeout=30)


#: a game played in a process that records every attempt to write, create, rename or remove anything under the
#: installed package or its metadata (Python's audit hooks see them all, whoever runs it: the folder's modes are read
#: only, but a superuser's writes would succeed regardless); ends by printing the game's length and the attempts
AUDITED_GAME = """
import json, os, sys, sysconfig
PACKAGE = os.path.join(sysconfig.get_path("purelib"), "cardenvs")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
CHANGES = {"os.mkdir", "os.rename", "os.replace", "os.remove", "os.rmdir", "os.chmod", "os.chown", "os.utime",
           "os.truncate", "os.link", "os.symlink", "shutil.rmtree", "shutil.move", "shutil.copyfile"}
attempts = []


def inside(path):
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False  # a file descriptor
    return os.path.abspath(os.fsdecode(path)).startswith(PACKAGE)


def audit(event, args):
    if event == "open":
        path, mode, flags = args
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & WRITE_FLAGS)
        if writes and inside(path):
            attempts.append([event, os.fsdecode(path)])
    elif event in CHANGES and any(inside(arg) for arg in args):
        attempts.append([event, repr(args)])


sys.addaudithook(audit)
import numpy as np
import cardenvs

env = cardenvs.env("slabberjan_v0", num_players=5)  # the quick start's layout
env.reset(seed=1)
steps = 0
for agent in env.agent_iter(400):
    observation, reward, terminated, truncated, info = env.last()
    env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[-1]))
    steps += 1
print(json.dumps({"steps": steps, "attempts": attempts}))
"""


def notices(stderr: str) -> list[str]:
    """The first-compile notices among a process's error output."""
    return [line for line in stderr.splitlines() if line.startswith("cardenvs: compiling")]


def test_the_other_agents_package_installs_beside_it(installed):
    environ = clean_environ(installed)
    python = str(installed["python"])
    run([python, "-m", "pip", "install", "--quiet", OTHER_AGENTS_PACKAGE], cwd=installed["outside"],
        environ=environ)
    both = ("from agents import Agent, Runner\n"
            "import cardenvs\n"
            "from cardenvs.agents import RandomAgent\n"
            "print(Agent(name='a', instructions='b').name, RandomAgent(seed=0).name, cardenvs.available_envs()[0])")
    assert run([python, "-c", both], cwd=installed["outside"], environ=environ).stdout.split() == [
        "a", "random", "clabber_v0"]


def test_a_read_only_install_plays_and_writes_nothing_into_the_package(installed, tmp_path):
    site, python = installed["site"], str(installed["python"])
    user_cache = tmp_path / "user-cache"  # a cache of its own: the first game here compiles, the second loads
    environ = clean_environ(installed, user_cache)
    before = package_files(site)
    writable = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    entries = [path for entry in package_entries(site) for path in [entry, *entry.rglob("*")]]
    modes = {path: path.lstat().st_mode for path in entries}
    for path in entries:
        path.chmod(modes[path] & ~writable)
    try:
        locked = package_files(site)
        first = run([python, "-c", AUDITED_GAME], cwd=installed["outside"], environ=environ)
        second = run([python, "-c", AUDITED_GAME], cwd=installed["outside"], environ=environ)
        assert package_files(site) == locked
    finally:
        for path in reversed(entries):
            path.chmod(modes[path])
    assert package_files(site) == before
    played = [json.loads(done.stdout) for done in (first, second)]
    assert played[0] == played[1] and played[0]["steps"] > 5
    assert played[0]["attempts"] == []
    if sys.platform.startswith("linux"):
        assert cache_files(user_cache / PACKAGE)
    assert [line.split("'s rules")[0] for line in notices(first.stderr)] == [f"cardenvs: compiling {GAME}"]
    assert notices(second.stderr) == []  # loaded from the cache it filled


def test_uninstall_after_a_game_leaves_nothing_of_cardenvs_and_the_other_agents_package_whole(installed):
    environ = clean_environ(installed)
    python, site = str(installed["python"]), installed["site"]
    run([python, "-m", "pip", "install", "--quiet", OTHER_AGENTS_PACKAGE], cwd=installed["outside"],
        environ=environ)
    assert json.loads(run([python, "-c", AUDITED_GAME], cwd=installed["outside"], environ=environ).stdout)["steps"]
    assert package_entries(site)
    run([python, "-m", "pip", "uninstall", "--yes", "--quiet", PACKAGE], cwd=installed["outside"], environ=environ)
    assert package_entries(site) == []
    assert not (installed["bin"] / "cardenvs").exists()
    gone = subprocess.run([python, "-c", "import cardenvs"], cwd=installed["outside"], env=environ,
                          capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
    assert gone.returncode != 0 and "ModuleNotFoundError" in gone.stderr
    if sys.platform.startswith("linux"):
        assert cache_files(installed["user_cache"] / PACKAGE)  # the compiled rules stay in the user's cache folder
    sdk = "from agents import Agent, Runner; print(Agent(name='still', instructions='here').name)"
    assert run([python, "-c", sdk], cwd=installed["outside"], environ=environ).stdout.strip() == "still"
    assert f"Name: {OTHER_AGENTS_PACKAGE}" in run([python, "-m", "pip", "show", OTHER_AGENTS_PACKAGE],
                                                   cwd=installed["outside"], environ=environ).stdout
