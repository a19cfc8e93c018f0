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
# # The games in OpenSpiel
#
# [OpenSpiel](https://github.com/google-deepmind/open_spiel) holds the game-theory and multi-agent RL
# algorithms: IS-MCTS, MCCFR, NFSP, policy gradients, evaluation tools. `cardenvs.openspiel` registers every
# cardenvs game there as a Python game, over the same compiled engine, so those algorithms run on the games
# unchanged. It needs the `openspiel` extra (`pip install 'cardenvs[openspiel]'`). This notebook:
#
# 1. loads a game in OpenSpiel and runs OpenSpiel's own random simulation test on it
# 2. plays IS-MCTS (OpenSpiel's Python bot, with the game's hidden-card resampler) against the cardenvs
#    rule-based agent, wrapped as an OpenSpiel bot
# 3. runs outcome-sampling MCCFR and OpenSpiel's PyTorch A2C on a small variant, two-player Slabberjan
# 4. measures the speed of the bridge, and says what is too big
#
# The design (chance, strings, resampling, what works with which algorithm) is in
# [docs/openspiel.md](../docs/openspiel.md).

# %%
import time

import numpy as np
import pyspiel
import torch
from IPython.display import Markdown, display
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts, outcome_sampling_mccfr
from open_spiel.python.bots import uniform_random
from open_spiel.python.pytorch import policy_gradient

import cardenvs
from cardenvs import openspiel as bridge

print(bridge.GAME_NAMES)

# %% [markdown]
# ## 1. Loading a game
#
# Every parameter of a game is an OpenSpiel parameter with the cardenvs default; `rng_seed` seeds the deals.
# Chance lives inside the state (the games are `SAMPLED_STOCHASTIC`: no chance nodes), and each state knows the
# cardenvs seed it was dealt from, so `cardenvs.env(...).reset(seed=state.seed)` is the same game.

# %%
game = pyspiel.load_game("cardenvs_clabber", {"single_hand": True, "rng_seed": 0})
game_type = game.get_type()
print(game_type.long_name, "|", game_type.utility, "|", game_type.chance_mode)
print(f"{game.num_players()} players, {game.num_distinct_actions()} actions, "
      f"returns in [{game.min_utility():.2f}, {game.max_utility():.2f}], at most {game.max_game_length()} decisions")

state = game.new_initial_state()
print(state.observation_string(0))
print("legal:", [state.action_to_string(action) for action in state.legal_actions()])

env = cardenvs.env("clabber_v0", single_hand=True)
env.reset(seed=state.seed)
print("same observation as the AEC env:",
      np.array_equal(state.observation_tensor(0), env.observe("player_0")["observation"]))

# %% [markdown]
# OpenSpiel's own test suite for a game, `pyspiel.random_sim_test`, plays random games and checks clones, legal
# actions, returns within the utility bounds and the length bound. It passes on every example parameter set of
# every game (`tests/openspiel/test_bridge.py`); here on a few games:

# %%
for name, params in [("cardenvs_clabber", {"single_hand": True}), ("cardenvs_slabberjan", {"num_players": 3}),
                     ("cardenvs_slap", {"num_players": 3, "max_cards_played": 200})]:
    start = time.perf_counter()
    pyspiel.random_sim_test(pyspiel.load_game(name, {**params, "rng_seed": 1}), num_sims=3, serialize=False,
                            verbose=False)
    print(f"{name} {params}: passed in {time.perf_counter() - start:.1f} s")

# %% [markdown]
# ## 2. IS-MCTS against the rule-based agent
#
# OpenSpiel's Python IS-MCTS bot samples the worlds it searches with `resample_from_infostate`; the bridge
# answers it with the game's hidden-card resampler (`Game.resample`: the cards the seat has not seen dealt again,
# the state's generator reseeded, so the search sees neither the other hands nor the future draws). Here one
# Clabber partnership is IS-MCTS, the other the cardenvs rule-based agent (`bridge.AgentBot`, any agent spec as
# an OpenSpiel bot), over single hands with the seats swapped every other hand.

# %%
SIMULATIONS = 40
HANDS = 8


def ismcts_bot(seed: int) -> ismcts.ISMCTSBot:
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=SIMULATIONS,
                           random_state=np.random.RandomState(seed))
    bot.set_resampler(bridge.seeded_resampler(seed))
    return bot


margins, decisions, seconds = [], 0, 0.0
for hand in range(HANDS):
    search_team = hand % 2  # seats 0 and 2 are team 0, seats 1 and 3 team 1
    bots = [ismcts_bot(seat) if seat % 2 == search_team else bridge.AgentBot(game, seat, "heuristic")
            for seat in range(game.num_players())]
    state = game.new_initial_state()
    while not state.is_terminal():
        seat = state.current_player()
        start = time.perf_counter()
        action = bots[seat].step(state)
        if seat % 2 == search_team:
            decisions += 1
            seconds += time.perf_counter() - start
        state.apply_action(action)
    margins.append(state.returns()[search_team] * 162)  # the return is the point margin / 162
print(f"IS-MCTS ({SIMULATIONS} simulations) minus the rule-based team, points per hand: {np.round(margins)}")
print(f"mean {np.mean(margins):+.1f} ± {np.std(margins, ddof=1) / np.sqrt(HANDS):.1f} (standard error), "
      f"{seconds / decisions * 1000:.0f} ms per IS-MCTS decision")

# %% [markdown]
# Eight hands are too few to tell the two apart (a hand's margin swings by a hundred points and more); the point
# here is that the search runs on the real rules, with the real hidden information, at the cost per decision
# shown. Every one of the five games has a resampler, so IS-MCTS runs on all of them: below, one searched decision
# in each game (its quick parameters), from the first position where the seat to act has a choice.

# %%
for env_id in cardenvs.available_envs():
    quick = pyspiel.load_game(bridge.short_name(env_id), {**cardenvs.get_game(env_id).quick_params, "rng_seed": 0})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    searcher = ismcts.ISMCTSBot(quick, evaluator, uct_c=2.0, max_simulations=8, random_state=np.random.RandomState(0))
    searcher.set_resampler(bridge.seeded_resampler(0))
    position = quick.new_initial_state()
    while len(position.legal_actions()) == 1:
        position.apply_action(position.legal_actions()[0])
    action = searcher.step(position)
    print(f"{env_id}: seat {position.current_player()} chooses {position.action_to_string(action)} "
          f"among {len(position.legal_actions())} legal actions")

# %% [markdown]
# ## 3. MCCFR and a policy gradient on two-player Slabberjan
#
# Outcome-sampling MCCFR keeps a regret table per information-state string and samples one trajectory per
# iteration, so it needs neither chance nodes nor the whole tree. Two-player Slabberjan is the smallest variant
# (each player decides once or twice per round). Its average policy plays against uniform random play, beside the
# rule-based agent and random play for scale.

# %%
ITERATIONS = 3000
EVALUATION_GAMES = 400

slabberjan = pyspiel.load_game("cardenvs_slabberjan", {"num_players": 2, "rng_seed": 3})
solver = outcome_sampling_mccfr.OutcomeSamplingSolver(slabberjan)
start = time.perf_counter()
for _ in range(ITERATIONS):
    solver.iteration()
mccfr_seconds = time.perf_counter() - start
average = solver.average_policy()
table_size = len(average._infostates)  # the regret table, shared with the average policy
print(f"{ITERATIONS} iterations in {mccfr_seconds:.1f} s ({ITERATIONS / mccfr_seconds:.0f} per second), "
      f"{table_size} information states in the table")


class PolicyBot(pyspiel.Bot):
    """Plays a policy's action probabilities (MCCFR's average policy); uniform where the table has no entry."""

    def __init__(self, policy, rng: np.random.RandomState):
        pyspiel.Bot.__init__(self)
        self.policy, self.rng = policy, rng

    def restart_at(self, state):
        pass

    def inform_action(self, state, player_id, action):
        pass

    def step(self, state):
        actions, probabilities = zip(*self.policy.action_probabilities(state).items(), strict=True)
        probabilities = np.asarray(probabilities) / np.sum(probabilities)
        return int(self.rng.choice(actions, p=probabilities))


class AgentPolicyBot(PolicyBot):
    """Plays an OpenSpiel RL agent greedily-by-its-policy from the state's observation tensor."""

    def step(self, state):
        seat = state.current_player()
        observations = {"info_state": [state.observation_tensor(p) for p in range(2)],
                        "legal_actions": [state.legal_actions(p) for p in range(2)], "current_player": seat}
        time_step = rl_environment.TimeStep(observations=observations, rewards=None, discounts=None,
                                            step_type=rl_environment.StepType.MID)
        return self.policy[seat].step(time_step, is_evaluation=True).action


def mean_return(make_bot, games: int) -> float:
    """Mean return of ``make_bot(seat)`` against uniform random play, seats alternating."""
    rng = np.random.RandomState(1)
    total = 0.0
    for index in range(games):
        seat = index % 2
        bots = [make_bot(seat) if s == seat else uniform_random.UniformRandomBot(s, rng) for s in range(2)]
        total += evaluate_bots.evaluate_bots(slabberjan.new_initial_state(), bots, rng)[seat]
    return total / games


players_rng = np.random.RandomState(2)  # one generator across the evaluation games of the players compared
mccfr_return = mean_return(lambda seat: PolicyBot(average, players_rng), EVALUATION_GAMES)

# %% [markdown]
# The information-state strings hold the whole public table and every move, so nearly every iteration meets
# information states never seen before (the table grows by about sixteen an iteration) and the average policy
# stays close to uniform: tabular MCCFR is too big even for this variant at a notebook's budget. OpenSpiel's
# PyTorch A2C (`policy_gradient`) learns from the observation tensor instead, in self-play through
# `rl_environment`:

# %%
TRAINING_STEPS = 20_000

torch.manual_seed(0)
environment = rl_environment.Environment(slabberjan)
size = environment.observation_spec()["info_state"][0]
num_actions = environment.action_spec()["num_actions"]
learners = [policy_gradient.PolicyGradient(seat, size, num_actions, hidden_layers_sizes=(64,), batch_size=16)
            for seat in range(2)]
steps, start = 0, time.perf_counter()
while steps < TRAINING_STEPS:
    time_step = environment.reset()
    while not time_step.last():
        seat = time_step.observations["current_player"]
        time_step = environment.step([learners[seat].step(time_step).action])
        steps += 1
    for learner in learners:
        learner.step(time_step)
print(f"{steps} steps of self-play in {time.perf_counter() - start:.1f} s")

a2c_return = mean_return(lambda seat: AgentPolicyBot(learners, players_rng), EVALUATION_GAMES)
heuristic_return = mean_return(lambda seat: bridge.AgentBot(slabberjan, seat, "heuristic"), EVALUATION_GAMES)
random_return = mean_return(lambda seat: uniform_random.UniformRandomBot(seat, players_rng), EVALUATION_GAMES)
display(Markdown(
    f"| player against uniform random ({EVALUATION_GAMES} games) | mean return (+1 win, −1 loss) |\n|---|---:|\n"
    f"| MCCFR average policy ({ITERATIONS} iterations) | {mccfr_return:+.3f} |\n"
    f"| A2C ({TRAINING_STEPS:,} self-play steps) | {a2c_return:+.3f} |\n"
    f"| cardenvs rule-based agent | {heuristic_return:+.3f} |\n"
    f"| uniform random | {random_return:+.3f} |"
))

# %% [markdown]
# At these budgets neither learner is far from random play, while the rule-based agent shows how much there is
# to gain: both algorithms run on the real rules through the bridge, and learning the game takes far longer runs
# than a notebook's.

# %% [markdown]
# ## 4. Speed, and what is too big
#
# Random play through OpenSpiel's Python API (`legal_actions`, `apply_action`), the loop `benchmarks/run.py`
# uses for its OpenSpiel rows, on each game's short variant, beside OpenSpiel's own C++ games:

# %%
SECONDS = 1.0


def steps_per_second(name: str, params: dict) -> float:
    """State steps per second of random legal play (chance nodes, where a game has them, not counted)."""
    loaded = pyspiel.load_game(name, params)
    rng = np.random.default_rng(0)
    steps, state = 0, loaded.new_initial_state()
    deadline = time.perf_counter() + SECONDS
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        if state.is_terminal():
            state = loaded.new_initial_state()
        elif state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


rows = []
for env_id in cardenvs.available_envs():
    params = {**cardenvs.get_game(env_id).quick_params, "rng_seed": 0}
    steps_per_second(bridge.short_name(env_id), params)  # compile the engine first
    rows.append((f"{bridge.short_name(env_id)} {cardenvs.get_game(env_id).quick_params}",
                 steps_per_second(bridge.short_name(env_id), params)))
for name in ("kuhn_poker", "leduc_poker", "hearts", "gin_rummy"):
    rows.append((f"{name} (OpenSpiel C++)", steps_per_second(name, {})))
display(Markdown("| game | state steps/s |\n|---|---:|\n"
                 + "\n".join(f"| {name} | {rate:,.0f} |" for name, rate in rows)))

# %% [markdown]
# What works: everything that samples (IS-MCTS with the resampler, outcome- and external-sampling MCCFR, NFSP,
# DQN, policy gradients, `evaluate_bots`, `rl_environment`), at the speed above: a Python state costs a few
# microseconds of engine time and the rest is OpenSpiel's Python game machinery, which is what its own Python
# games pay too. What is too big: tabular CFR, exploitability and sequence-form methods walk the whole game tree
# (`get_all_states`), which needs explicit chance nodes the games do not have and, for any full game, more
# states than memory holds (a single Clabber hand alone deals 24!/(6!)⁴ hands before a card is played). For
# those, a game would need explicit chance; the sampling algorithms are the ones to use.
