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
# # Quick start
#
# `cardenvs` serves five card games as [PettingZoo](https://pettingzoo.farama.org) AEC environments and as
# batched environments that step thousands of games per call. This notebook walks through everything an
# experiment needs, on **Clabber** (`clabber_v0`: four players in two partnerships, bidding, tricks, melds;
# rules in [docs/rules/clabber.md](../docs/rules/clabber.md)):
#
# 1. the AEC loop and rendering
# 2. observations and action masks, read through the documented layout
# 3. illegal actions
# 4. the batched env and its auto-reset
# 5. seeding: the same seed gives the same game, in either front end
# 6. snapshots and copies
# 7. chosen deals

# %%
import copy
import json

import numpy as np
from IPython.display import Markdown, display

import cardenvs
from cardenvs.agents.registry import make_agent
from cardenvs.games.clabber.cards import NUM_CARDS, card_name

print(cardenvs.available_envs())

# %% [markdown]
# ## 1. The AEC loop
#
# `cardenvs.env(env_id, **params)` is a PettingZoo `AECEnv`, used exactly as PettingZoo documents it.
# `render_mode="ansi"` makes `env.render()` return the public table as text (`"human"` prints it).

# %%
env = cardenvs.env("clabber_v0", render_mode="ansi")
env.reset(seed=0)
space = env.observation_space("player_0")
print(env.possible_agents, env.action_space("player_0"))
print("observation:", space["observation"].shape, space["observation"].dtype,
      "| action_mask:", space["action_mask"].shape, space["action_mask"].dtype, end="\n\n")
print(env.render())

# %% [markdown]
# The standard loop: `agent_iter()` yields the agent to act, `last()` gives its observation and the reward
# it collected since it last acted, and a finished agent is stepped with `None`. Here every seat plays a
# uniformly random legal action; a whole game to 500 points takes a few dozen decisions.

# %%
rng = np.random.default_rng(0)
returns = dict.fromkeys(env.possible_agents, 0.0)
steps = 0
for agent in env.agent_iter():
    observation, reward, terminated, truncated, info = env.last()
    returns[agent] += reward
    # PettingZoo's convention: a finished agent is stepped with None.
    action = None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"])))
    env.step(action)
    steps += 1
print(f"{steps} env.step calls; returns: {returns}")
print(env.render())

# %% [markdown]
# ## 2. Observations and action masks
#
# An observation is a dict: `"observation"`, a flat float32 vector seen from the observing seat (seats are
# relative: 0 = itself, 1 = its left, 2 = its partner, 3 = its right), and `"action_mask"`, an int8 vector
# with a 1 for every legal action. The vector is a sequence of named blocks, documented in the game's
# rules page ([Observation](../docs/rules/clabber.md#observation)); `env.unwrapped.layout` is that table
# in code, and `layout.markdown()` prints it:

# %%
layout = env.unwrapped.layout
display(Markdown(layout.markdown()))

# %% [markdown]
# `layout.split(vector)` cuts a vector (or a batch of them) into those named views, without copying. The
# mask only has ones for the agent to act; an agent that is waiting gets an all-zero mask. Action ids and
# their names are in the [Actions](../docs/rules/clabber.md#actions-discrete-30-or-32-with-optional_declare)
# table; `game.action_name(params, action)` names one.

# %%
env.reset(seed=1)
game, params = env.unwrapped.game, env.unwrapped.params
observation, *_ = env.last()
views = layout.split(observation["observation"])
print(f"{env.agent_selection} holds", [card_name(c) for c in np.flatnonzero(views["own_hand"])])
print("turn-up:", card_name(int(views["turn_up"].argmax())))
print("relative seat of the dealer:", int(views["dealer"].argmax()))
print("phase (first bidding, second bidding, declare, play):", views["phase"])
legal = np.flatnonzero(observation["action_mask"])
print("legal now:", {int(a): game.action_name(params, int(a)) for a in legal})
waiting = next(a for a in env.agents if a != env.agent_selection)
print(f"{waiting} is waiting: its mask has {int(env.observe(waiting)['action_mask'].sum())} legal actions")

# %% [markdown]
# ## 3. Illegal actions
#
# An action outside the mask raises `cardenvs.IllegalActionError`, says what is legal, and changes nothing.
# (With `cardenvs.env(..., illegal_action="penalize")` the game's documented penalty applies instead and the
# game ends, for training loops that must not crash.) Playing a card during the bidding:

# %%
card_not_held = next(c for c in range(NUM_CARDS) if not views["own_hand"][c])
decisions_before = int(env.unwrapped.state_record.step_count)
try:
    env.step(card_not_held)
except cardenvs.IllegalActionError as error:
    print("IllegalActionError:", error)
print("still to act:", env.agent_selection,
      "| decisions taken:", decisions_before, "->", int(env.unwrapped.state_record.step_count))

# %% [markdown]
# ## 4. The batched env
#
# `cardenvs.vector_env(env_id, num_envs)` holds `num_envs` games and steps them all in one compiled call:
#
# * `reset(seed)` returns `(obs[N, D], action_mask[N, A], current_player[N])`: row `i` is what the player
#   to act in game `i` sees;
# * `step(actions)` takes one action per game and returns
#   `(obs, action_mask, current_player, rewards[N, P], terminated[N], truncated[N])`;
# * `sample_actions()` draws a uniformly random legal action per game (from the env's own generators).
#
# **Auto-reset:** when game `i` ends in a step, that step reports its final rewards in `rewards[i]` (one per
# seat) and `terminated[i]` (or `truncated[i]`), while `obs[i]`, `action_mask[i]` and `current_player[i]`
# already belong to the first decision of the next game. The arrays are buffers the env overwrites: copy
# what you keep.

# %%
venv = cardenvs.vector_env("clabber_v0", num_envs=512)
obs, action_mask, current_player = venv.reset(seed=0)
print("obs", obs.shape, obs.dtype, "| mask", action_mask.shape, action_mask.dtype,
      "| current_player", current_player.shape)

steps = 0
while True:
    obs, action_mask, current_player, rewards, terminated, truncated = venv.step(venv.sample_actions())
    steps += 1
    if terminated.any():
        break
i = int(np.flatnonzero(terminated)[0])
print(f"after {steps} steps game {i} ended: terminated={terminated[i]}, final rewards {rewards[i]}")
state = venv.states[i]  # the game's state record, now the next game's
print(f"its row already shows the next game: {int(state.step_count)} decisions taken, "
      f"scores {state.scores}, player_{current_player[i]} to act")

# %% [markdown]
# Agents act on whole batches too: `Agent.act_batch(obs, action_mask)` returns one action per game.
# `cardenvs.agents.registry.make_agent("heuristic", env_id, layout)` is the game's rule-based agent. Below, the
# rule-based agent holds seats 0 and 2 of every game and random play the others, until 512 games have ended.

# %%
heuristic = make_agent("heuristic", "clabber_v0", venv.layout)
obs, action_mask, current_player = venv.reset(seed=1)
finished, team_0_wins = 0, 0
while finished < venv.num_envs:
    actions = np.where(current_player % 2 == 0, heuristic.act_batch(obs, action_mask), venv.sample_actions())
    obs, action_mask, current_player, rewards, terminated, truncated = venv.step(actions)
    finished += int(terminated.sum() + truncated.sum())
    team_0_wins += int((rewards[:, 0] > 0).sum())
print(f"{finished} games: the rule-based team won {team_0_wins} ({team_0_wins / finished:.0%})")


# %% [markdown]
# ## 5. Seeding
#
# Each game draws its chance (shuffles, first dealer) from its own generator inside its state, so a game
# depends only on its seed and the actions taken: the same seed and the same actions give the same game.

# %%
def random_game(seed: int) -> str:
    """The final table of a game of random legal actions (the policy seeded like the game)."""
    env = cardenvs.env("clabber_v0", render_mode="ansi")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        env.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return env.render()

print("seed 5 twice, same game:", random_game(5) == random_game(5))
print("seed 5 and seed 6, same game:", random_game(5) == random_game(6))

# %% [markdown]
# Game `i` of a batched env reset with `seed` is exactly the AEC game reset with
# `cardenvs.game_seed(seed, i)`, whatever the batch size. Below, game 3 of a batch of 8 and the AEC env are
# fed the same actions and compared at every decision until the game ends:

# %%
seed, i = 7, 3
venv = cardenvs.vector_env("clabber_v0", num_envs=8)
obs, action_mask, current_player = venv.reset(seed=seed)
env = cardenvs.env("clabber_v0")
env.reset(seed=cardenvs.game_seed(seed, i))
print(f"game_seed({seed}, {i}) = {cardenvs.game_seed(seed, i)}")

decisions = 0
while True:
    agent = env.agent_selection
    seen = env.observe(agent)
    assert agent == f"player_{current_player[i]}"
    assert np.array_equal(seen["observation"], obs[i]) and np.array_equal(seen["action_mask"], action_mask[i])
    actions = venv.sample_actions().copy()
    env.step(int(actions[i]))
    obs, action_mask, current_player, rewards, terminated, truncated = venv.step(actions)
    decisions += 1
    if terminated[i] or truncated[i]:
        break
print(f"identical observations and masks at all {decisions} decisions")
print("final rewards, batched:", rewards[i], "| AEC:", [env.rewards[a] for a in env.possible_agents])


# %% [markdown]
# `venv.reset(seeds=[...])` takes one explicit seed per game instead: game `i` is then the AEC game
# `env.reset(seed=seeds[i])`.
#
# ## 6. Snapshots and copies
#
# `env.unwrapped.snapshot()` is a JSON-serialisable dict of the whole state (every field of the state
# record, the game's generator included); `env.unwrapped.restore(snapshot)` continues from it, in this env
# or in a fresh one with the same parameters. The future after a restore is the same as after the snapshot,
# chance included (here the next deals):

# %%
def play_on(env, decisions: int, seed: int) -> str:
    """Play random legal actions (from a generator seeded with ``seed``); return the table."""
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        observation, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return env.render()

env = cardenvs.env("clabber_v0", render_mode="ansi")
env.reset(seed=3)
play_on(env, 10, seed=0)
text = json.dumps(env.unwrapped.snapshot())
print(f"snapshot: {len(text):,} characters of JSON")

first = play_on(env, 30, seed=1)
fresh = cardenvs.env("clabber_v0", render_mode="ansi")
fresh.unwrapped.restore(json.loads(text))
print("same 30 decisions after the restore, same table:", play_on(fresh, 30, seed=1) == first)
print(first)

# %% [markdown]
# `copy.deepcopy(env)` (and `pickle`) copy an env with its state: the copy and the original then go their
# own ways, e.g. to look ahead in a search.

# %%
clone = copy.deepcopy(env)
before = env.render()
play_on(clone, 5, seed=2)
print("the original is untouched:", env.render() == before, "| the copy moved on:", clone.render() != before)

# %% [markdown]
# ## 7. Chosen deals
#
# `env.reset(options={"deal": ...})` starts from a chosen deal instead of a shuffled one, for scenario tests
# and teaching. Each game's rules page gives the format; for Clabber
# ([Chosen deals](../docs/rules/clabber.md#chosen-deals)) it is the dealer, every seat's six cards and the
# turn-up (by default the dealer's last listed card). Here `player_1` gets four hearts with the Jack and
# the 9, the two best trumps, and the turn-up is the King of hearts:

# %%
deal = {
    "dealer": 0,
    "hands": [
        ["AC", "KC", "QC", "JC", "10C", "KH"],
        ["JH", "9H", "AH", "10H", "AS", "10S"],
        ["9C", "AD", "KD", "QD", "JD", "10D"],
        ["9D", "QH", "KS", "QS", "JS", "9S"],
    ],
    "turn_up": "KH",
}
env = cardenvs.env("clabber_v0", render_mode="ansi")
env.reset(seed=0, options={"deal": deal})
record, params = env.unwrapped.state_record, env.unwrapped.params
for seat in range(len(env.possible_agents)):
    print(env.unwrapped.game.render_private(record, params, seat))  # what only that seat sees
print(env.render())

# %% [markdown]
# The player left of the dealer bids first. The rule-based agent accepts hearts with this hand; it is now the
# maker, and as it also leads the first trick, the engine declares its meld (J-10-9 of hearts) at once
# ([`rule:meld_declaring`](../docs/rules/clabber.md#rules)):

# %%
agent = make_agent("heuristic", "clabber_v0", env.unwrapped.layout)
observation, *_ = env.last()
action = agent.act(observation)
print(f"{env.agent_selection} chooses {env.unwrapped.game.action_name(params, action)!r}")
env.step(action)
print(env.render())

# %% [markdown]
# Next: [02_games.ipynb](02_games.ipynb) plays all five games with the rule-based agents and finds each
# game's signature rule in action; [04_benchmarks.ipynb](04_benchmarks.ipynb) measures the speed.
