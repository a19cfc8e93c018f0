# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Benchmarks
#
# `benchmarks/run.py` ([README](../benchmarks/README.md)) measures every game in both front ends, beside a
# no-op PettingZoo env and the peer libraries installed on the machine. This notebook runs it with a small
# budget (half a second per measurement, no first-creation timings), reads the JSON it writes and plots
# the result. For numbers to quote, run the full benchmark on an idle machine:
# `python benchmarks/run.py`.
#
# The batched env runs each call on all cores through numba's threads, and every call waits for the
# slowest of them. When other processes keep the cores busy, a thread that the system pauses stalls the
# whole call, so on a busy machine (1-minute load average at least half the number of cores) the notebook
# measures the batched envs with one numba thread (`--numba-threads 1`).

# %%
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
from IPython.display import Markdown, display

# The notebook runs with its own folder as the working directory; the benchmark lives beside it.
ROOT = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "benchmarks" / "run.py").is_file())
BUDGET = ["--seconds", "0.5", "--warmup", "0.2", "--num-envs", "1024", "--skip-compile-timing"]

cores, load = os.cpu_count() or 1, os.getloadavg()[0]
busy = load >= cores / 2
if busy:
    BUDGET += ["--numba-threads", "1"]
print(f"load average {load:.1f} on {cores} cores: batched envs on "
      f"{'one numba thread (busy machine)' if busy else 'all numba threads'}")

with tempfile.TemporaryDirectory() as scratch:
    json_path, table_path = Path(scratch, "bench.json"), Path(scratch, "bench.md")
    run = subprocess.run(
        [sys.executable, "benchmarks/run.py", *BUDGET, "--json", str(json_path), "--markdown", str(table_path)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    if run.returncode != 0:
        raise RuntimeError(f"benchmarks/run.py failed:\n{run.stderr[-3000:]}")
    results = json.loads(json_path.read_text())
    table = table_path.read_text()

machine = results["machine"]
# The load beside the figures: other work on the machine lowers every rate, the batched ones most.
display(Markdown(
    f"Measured on {machine['cpu']}, {machine['cpu_count']} cores, commit `{machine['git'] or 'unknown'}`; "
    f"1-minute load average {results['load_average_1m_at_start']:.1f} at the start and "
    f"{machine['load_average_1m']:.1f} at the end (idle: below 0.5)."
))
display(Markdown(table))

# %% [markdown]
# ## What each bar means
#
# * **AEC steps/s** (left): the standard PettingZoo loop, `agent_iter()` → `last()` → a random legal action
#   → `step()`, with `reset()` when a game ends, on one game at a time. Every `env.step` call counts.
# * **no-op ceiling** (dashed line): the same loop on a PettingZoo AEC env that does nothing (defined in the
#   script). It is the cost of the protocol itself in Python: no env can go faster through this loop.
#   The target is that every game runs at least at **half** of it (dotted line).
# * **batched steps/s** (right): `venv.step(venv.sample_actions())` on `cardenvs.vector_env(env_id,
#   num_envs)`: games × calls / seconds. Target: **2,000,000 steps/s** (dotted line).
# * **Peers** (grey), measured in the same run when installed: PettingZoo classic (`texas_holdem_v4`,
#   `leduc_holdem_v4`, through rlcard, with PettingZoo's standard wrappers), OpenSpiel (`leduc_poker`,
#   `kuhn_poker`, `hearts`, through its Python API: legal actions and apply, no observations, chance nodes
#   not counted) and Pgx (`leduc_holdem`: one jitted call that `vmap`s a step over as many games). They are
#   different games, so the comparison is of the machinery's cost, not of equal work.

# %%
OURS, PEER = "tab:blue", "tab:gray"

noop = results["noop"]["aec"]["steps_per_s"]
targets = results["targets"]
aec = {row["env_id"]: row["aec"]["steps_per_s"] for row in results["envs"] if "aec" in row}
batched = {row["env_id"]: row["batched"]["steps_per_s"] for row in results["envs"] if "batched" in row}
aec_peers = {f"{p['library']}\n{p['name']}": p["aec"]["steps_per_s"] for p in results["peers"] if "aec" in p}
batched_peers = {
    f"{p['library']}\n{p['name']}": p["batched"]["steps_per_s"] for p in results["peers"] if "batched" in p
}
skipped = [f"{p['library']} {p['name']}" for p in results["peers"] if "aec" not in p and "batched" not in p]


def short(rate: float) -> str:
    """A rate as 123k or 1.2M, for the labels on the bars."""
    return f"{rate / 1e6:.1f}M" if rate >= 1e6 else f"{rate / 1e3:.0f}k"


def bars(ax, ours: dict, peers: dict, title: str) -> None:
    """cardenvs bars then peer bars, each labelled with its rate, on a log scale."""
    labels, values = [*ours, *peers], [*ours.values(), *peers.values()]
    drawn = ax.bar(range(len(labels)), values, color=[OURS] * len(ours) + [PEER] * len(peers))
    for label in ax.bar_label(drawn, [short(v) for v in values], fontsize=8, padding=2):
        label.set_bbox({"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 0.5})
    ax.set_xticks(range(len(labels)), labels, rotation=40, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(axis="y", which="major", alpha=0.3)


widths = [max(len(aec) + len(aec_peers), 1), max(len(batched) + len(batched_peers), 1)]
fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.5), sharey=True, width_ratios=widths)
bars(left, aec, aec_peers, "AEC env: one game, PettingZoo loop")
left.axhline(noop, color="black", linestyle="--", label=f"no-op PettingZoo AEC env (ceiling): {noop:,.0f}")
left.axhline(targets["aec_ratio_to_noop"] * noop, color="tab:red", linestyle=":",
             label=f"target: {targets['aec_ratio_to_noop']} × no-op")
left.set_ylabel("steps per second (log scale)")
left.legend(loc="upper left", fontsize=8)

num_envs, machine = results["options"]["num_envs"], results["machine"]
threads = f"{machine['numba_threads']} numba thread{'s' if machine['numba_threads'] > 1 else ''}"
bars(right, batched, batched_peers, f"batched env: {num_envs} games per call, {threads}")
right.axhline(targets["batched_steps_per_s"], color="tab:red", linestyle=":",
              label=f"target: {targets['batched_steps_per_s']:,} steps/s")
right.legend(loc="upper left", fontsize=8)
# Room above the highest bar or line for the legends.
highest = max([noop, targets["batched_steps_per_s"], *aec.values(), *batched.values(),
               *aec_peers.values(), *batched_peers.values()])
left.set_ylim(top=highest * 5)

fig.suptitle(f"cardenvs (blue) beside peers (grey) · {machine['cpu']}, {machine['cpu_count']} cores, "
             f"1-minute load {machine['load_average_1m']:.1f}")
fig.tight_layout()
plt.show()
if skipped:
    print("peers not measured (not installed):", ", ".join(skipped))

# %% [markdown]
# ## Reading the numbers
#
# * The AEC bars are bounded by the no-op line: an AEC env pays PettingZoo's Python protocol on every step,
#   so the question is how much the game's rules add to it. Above the dotted line means the game's own work
#   costs at most as much as the protocol's.
# * The batched bars are not bounded that way: each call steps every game in compiled code, so they grow
#   with `num_envs` and the number of cores. This notebook uses 1024 games and half-second measurements;
#   the full benchmark uses 4096 games and 3 seconds.
# * **A busy machine understates the envs.** Other processes take CPU time from the measurement, and the
#   batched env suffers most: each call waits for its slowest numba thread, so one preempted thread stalls
#   the whole batch (hence one thread on a busy machine, see above; with every thread on a busy machine the
#   batched rates can fall by one or two orders of magnitude). The script records the load average (in the
#   title above and the JSON) and warns when it shows other work; on a machine shared with other jobs,
#   treat these numbers as lower bounds.

# %%
print(f"load average (1 min) at the start: {results['load_average_1m_at_start']:.1f}, at the end: "
      f"{machine['load_average_1m']:.1f}, on {machine['cpu_count']} cores; numba threads: "
      f"{machine['numba_threads']}")
print(f"whole run: {results['total_seconds']:.0f} s")
