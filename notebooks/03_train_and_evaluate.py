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
# # Train and evaluate an agent
#
# A short self-play run on Slabberjan with `cardenvs train` (the trainer of `bash scripts/main.sh`, here with
# 1,000,000 decisions instead of its recipe's 24,000,000), its learning curve, then a duplicate-deal tournament of
# the trained agent against the random and rule-based agents, with its ladder plot. See
# [docs/training.md](../docs/training.md) and [docs/evaluation.md](../docs/evaluation.md).

# %%
import json
import shutil
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
from IPython.display import Image

from cardenvs.cli import main as cardenvs_command

RUN_DIR = Path("runs") / "notebook_selfplay"  # relative to this notebook; runs/ is git-ignored
shutil.rmtree(RUN_DIR, ignore_errors=True)

# %% [markdown]
# ## Train
#
# One shared policy plays every seat of 1,024 games in lockstep on the batched env; half the games seat the
# rule-based agent, random or a snapshot of the policy on one side of the table. Every 200,000 decisions it
# plays a 400-game tournament against the rule-based agent; at the end, a match against each of them.

# %%
# the trainer's progress bar comes from tqdm.auto, which warns when the notebook widgets are not installed
warnings.filterwarnings("ignore", message="IProgress not found")
exit_code = cardenvs_command([
    "train", "slabberjan_v0", "--total-decisions", "1000000", "--eval-every", "200000", "--eval-games", "400",
    "--final-games", "1000", "--run-dir", str(RUN_DIR), "--no-progress-bar",
])
assert exit_code == 0

# %% [markdown]
# ## The learning curve
#
# `model.json` keeps each periodic tournament: the trained agent's mean reward (+1 a win, −1 a loss; in
# Slabberjan one of four seats wins) with its 95% confidence interval, against minutes of training.

# %%
info = json.loads((RUN_DIR / "model.json").read_text())
points = info["evaluations"]
minutes = [p["train_seconds"] / 60 for p in points]
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.errorbar(minutes, [p["mean_reward"] for p in points], yerr=[p["ci95"] for p in points], marker="o",
            label="trained")
ax.plot(minutes, [p["heuristic_mean_reward"] for p in points], linestyle="--", label="rule-based")
ax.set_xlabel("minutes of training")
ax.set_ylabel("mean reward, head-to-head")
ax.set_title(f"self-play on slabberjan_v0: {info['decisions']:,} decisions, {info['decisions_per_second']:,}/s")
ax.legend()
plt.show()

# %% [markdown]
# ## A tournament with its ladder
#
# `run_tournament` replays every deal with the agents in every seat arrangement and reports each agent's mean
# reward with its 95% confidence interval, win rate and openskill rating. `ppo:PATH` loads the trained model.

# %%
from cardenvs.evaluation import run_tournament
from cardenvs.evaluation.plot import plot_ladder

result = run_tournament("slabberjan_v0", [f"ppo:{RUN_DIR / 'model.pt'}", "random", "heuristic"], games=600,
                        seed=7, progress=False, results_path=RUN_DIR / "tournament.jsonl")
print(result.table())
Image(filename=str(plot_ladder(result, RUN_DIR / "ladder.png")))

# %% [markdown]
# ## The shipped trained agents
#
# Every game's agent trained by its recipe (`cardenvs train GAME`, minutes on two cores) is installed with the
# package and plays by the spec `trained`. Here the run above meets Slabberjan's shipped agent and the rule-based
# agent; in any game, `trained` stands beside `random` and `heuristic` wherever an agent spec is taken
# (`cardenvs play`, `cardenvs tournament`, the browser table).

# %%
import cardenvs
from cardenvs.agents.registry import shipped_checkpoint

print({env_id: shipped_checkpoint(env_id) is not None for env_id in cardenvs.available_envs()})
result = run_tournament("slabberjan_v0", ["trained", f"ppo:{RUN_DIR / 'model.pt'}", "heuristic"], games=600,
                        seed=8, progress=False, results_path=RUN_DIR / "shipped.jsonl")
print(result.table())
