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
# A short MaskablePPO run on Slabberjan with `training/ppo.py` (the same script as `bash scripts/main.sh`,
# here with a budget of seconds), its learning curve read from the TensorBoard logs, then a duplicate-deal
# tournament of the trained agent against the random and rule-based agents, with its ladder plot. See
# [docs/training.md](../docs/training.md) and [docs/evaluation.md](../docs/evaluation.md).

# %%
import shutil
import sys
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
from IPython.display import Image
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

ROOT = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "training" / "ppo.py").is_file())
sys.path.insert(0, str(ROOT))  # training/ is a folder of scripts, not an installed package

from training import ppo

RUN_DIR = Path("runs") / "notebook_ppo"  # relative to this notebook; runs/ is git-ignored
shutil.rmtree(RUN_DIR, ignore_errors=True)

# %% [markdown]
# ## Train
#
# The learner holds one seat of 16 games in lockstep (`cardenvs.learning.LearnerVecEnv` over the batched env);
# random and rule-based opponents hold the others. Every 8,192 steps it plays a 200-game tournament against
# the rule-based agent (`eval/*` in TensorBoard); at the end, a tournament against both.

# %%
# stable-baselines3 imports tqdm.auto, which warns when the notebook widgets are not installed
warnings.filterwarnings("ignore", message="IProgress not found")
exit_code = ppo.main([
    "--env-id", "slabberjan_v0", "--total-timesteps", "40960", "--eval-every", "8192", "--eval-games", "200",
    "--checkpoint-every", "20480", "--final-games", "400", "--run-dir", str(RUN_DIR), "--no-progress-bar",
])
assert exit_code == 0

# %% [markdown]
# ## The learning curve
#
# `rollout/ep_rew_mean` is the learner's mean final reward in its recent games against the pool (+1 a win,
# −1 a loss); `eval/mean_reward_vs_heuristic` the periodic tournaments' mean reward.

# %%
events = EventAccumulator(str(next((RUN_DIR / "tb").iterdir())))
events.Reload()
fig, ax = plt.subplots(figsize=(7, 3.5))
for tag, label in [("rollout/ep_rew_mean", "against the pool"),
                   ("eval/mean_reward_vs_heuristic", "tournament vs rule-based")]:
    points = events.Scalars(tag)
    ax.plot([p.step for p in points], [p.value for p in points], marker="o", label=label)
ax.set_xlabel("learner steps")
ax.set_ylabel("mean final reward")
ax.set_title("MaskablePPO on slabberjan_v0")
ax.legend()
plt.show()

# %% [markdown]
# ## A tournament with its ladder
#
# `run_tournament` replays every deal with the agents in every seat arrangement and reports each agent's mean
# reward with its 95% confidence interval, win rate and openskill rating. `ppo:PATH` is the trained model.

# %%
from cardenvs.evaluation import run_tournament
from cardenvs.evaluation.plot import plot_ladder

result = run_tournament("slabberjan_v0", [f"ppo:{RUN_DIR / 'model.zip'}", "random", "heuristic"], games=600,
                        seed=7, progress=False, results_path=RUN_DIR / "tournament.jsonl")
print(result.table())
Image(filename=str(plot_ladder(result, RUN_DIR / "ladder.png")))
