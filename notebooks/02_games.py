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
# # The five games
#
# Each game below is played out by its rule-based agent in every seat
# (`cardenvs.agents.registry.make_agent("heuristic", env_id, layout)`) and rendered. Then one rule that makes the
# game what it is is shown as it happens. Where a rule happens depends on the cards, so the notebook finds
# the moment itself: it plays games of seed 0, 1, 2, … and reads each state record
# (`env.unwrapped.state_record`, its fields documented in each rules page under *Snapshot fields*) before
# and after every decision until the rule fires.
#
# | env id | game | rule shown |
# |---|---|---|
# | `slabberjan_v0` | Slabberjan | a Cat: the exchange that undoes every exchange |
# | `gin_slaughtre_v0` | Gin Slaughtre | a burn: a 9 on top of the pile |
# | `clabber_v0` | Clabber | a meld declared at the first trick, and the Bell |
# | `stabby_jack_v0` | Stabby Jack | an Ace: a compulsory Stat swap with an opponent |
# | `slap_v0` | Slap | a slap that wins the pile |

# %%
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

import cardenvs
from cardenvs.agents.registry import make_agent

#: how many seeds a search tries before giving up
MAX_SEEDS = 200


@dataclass
class Decision:
    """One decision of a game: who acted, what, and the state record just before and just after."""

    seed: int
    index: int  # decisions taken before this one
    agent: str
    action: str
    before: np.record
    after: np.record


def decisions(env_id: str, seed: int, **params) -> Iterator[Decision]:
    """Play one game with the rule-based agent in every seat, yielding each decision."""
    env = cardenvs.env(env_id, **params)
    game, layout = env.unwrapped.game, env.unwrapped.layout
    agents = {name: make_agent("heuristic", env_id, layout) for name in env.possible_agents}
    env.reset(seed=seed)
    index = 0
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        before = env.unwrapped.state_record.copy()
        action = agents[name].act(observation)
        env.step(action)
        after = env.unwrapped.state_record.copy()
        yield Decision(seed, index, name, game.action_name(env.unwrapped.params, action), before, after)
        index += 1


Event = Callable[[np.record, np.record], bool]


def find(env_id: str, starts: Event, ends: Event | None = None, **params) -> list[Decision]:
    """The first decision, over games of seed 0, 1, 2, …, after which ``starts(before, after)`` holds;
    with ``ends``, followed by the next decisions up to the first one after which ``ends`` holds."""
    for seed in range(MAX_SEEDS):
        found: list[Decision] = []
        for decision in decisions(env_id, seed, **params):
            if found or starts(decision.before, decision.after):
                found.append(decision)
                if ends is None or ends(decision.before, decision.after):
                    return found
    raise RuntimeError(f"no such moment in {env_id} games of seed 0 to {MAX_SEEDS - 1}")


def show(env_id: str, record: np.record, heading: str = "", **params) -> None:
    """Print a state record as the env renders it, under ``heading``."""
    game = cardenvs.get_game(env_id)
    if heading:
        print(heading)
    print(game.render(record, game.make_params(**params)))


def play_out(env_id: str, seed: int, **params) -> None:
    """Play a whole game with the rule-based agents, printing the table at the start and at the end."""
    env = cardenvs.env(env_id, render_mode="ansi", **params)
    agents = {name: make_agent("heuristic", env_id, env.unwrapped.layout) for name in env.possible_agents}
    env.reset(seed=seed)
    print(env.render(), end="\n\n")
    steps = 0
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else agents[name].act(observation))
        steps += 1
    state = env.unwrapped.state_record
    how = "ended by the rules" if state.terminated else "truncated"
    print(env.render())
    print(f"\nseed {seed}: {int(state.step_count)} decisions, {steps} env.step calls, {how}")


def first_decided_seed(env_id: str, **params) -> int:
    """The first seed whose game between rule-based agents ends by the rules, not by truncation."""
    for seed in range(MAX_SEEDS):
        *_, last = decisions(env_id, seed, **params)
        if last.after.terminated:
            return seed
    raise RuntimeError(f"every {env_id} game of seed 0 to {MAX_SEEDS - 1} was truncated")


# %% [markdown]
# ## Slabberjan (`slabberjan_v0`)
#
# One piece each; pass a poor piece to the left, and the lowest pieces pay a chip at the showdown; the
# last player with chips wins ([rules](../docs/rules/slabberjan.md)). Four players, three chips each:

# %%
play_out("slabberjan_v0", seed=0)

# %% [markdown]
# ### The Cat ([`rule:cat`](../docs/rules/slabberjan.md#rules))
#
# The four matadors refuse an exchange (`rule:matadors_refuse`), each in its own way. Trying to swap with the holder of the
# **Cat** ("Meow") costs the attacker a chip, and *every exchange made this round is undone*: each player
# gets back the piece dealt to it, and what players learnt from those exchanges is void. The search below
# looks for a decision after which some seat has announced the Cat (`announced` field, kind 18).

# %%
from cardenvs.games.slabberjan.pieces import CAT, kind_name

cat = find("slabberjan_v0", lambda before, after: (after.announced == CAT).any()
           and not (before.announced == CAT).any())[0]
print(f"seed {cat.seed}, decision {cat.index}: {cat.agent} chooses {cat.action!r}\n")
show("slabberjan_v0", cat.before, "before:")
show("slabberjan_v0", cat.after, "\nafter:")

print(f"\n{'seat':<10}{'held before':<14}{'held after':<14}dealt this round")
for seat in range(int(cat.after.num_players)):
    print(f"player_{seat:<3}{kind_name(int(cat.before.piece[seat])):<14}"
          f"{kind_name(int(cat.after.piece[seat])):<14}{kind_name(int(cat.after.original[seat]))}")
assert (cat.after.piece == cat.after.original).all()

# %% [markdown]
# The attacker's chip went to the centre, the Cat holder announced it, and every piece that had changed
# hands this round went back to the seat it was dealt to (the *held after* column equals *dealt this
# round*). Play then continues left of the attacker.

# %% [markdown]
# ## Gin Slaughtre (`gin_slaughtre_v0`)
#
# A two-player shedding game: lay a card, a set or a run at or above the pile's top card, or take the pile;
# the first player out of cards wins ([rules](../docs/rules/gin_slaughtre.md)). Games between two copies of
# the same rule-based agent often go on until the `max_turns` limit (2000 decisions) truncates them, so
# the game shown is the first seed that ends by the rules:

# %%
play_out("gin_slaughtre_v0", seed=first_decided_seed("gin_slaughtre_v0"))

# %% [markdown]
# ### Burning the pile ([`rule:nines`, `rule:burning`](../docs/rules/gin_slaughtre.md#rules))
#
# A **9** may be played at any time, and a 9 on top of the pile (a single, a set of 9s, or a run that ends
# in 9) **burns** it: the pile leaves the game, and the same player refills its hand and plays again on the
# empty pile (`rule:burning`). (Four cards of one rank on top burn it too, `rule:quartets`.) The search looks for a decision after
# which the `burnt_count` grew and a 9 went from the acting player's cards (`location` field) to the burnt
# cards.

# %%
from cardenvs.games.gin_slaughtre.rules import LOC_BURNT, LOC_HAND, LOC_UP

NINE = 8  # rank index: Ace 0, 2 -> 1, ..., 9 -> 8
NINES = [NINE * 4 + suit for suit in range(4)]


def nine_burns(before, after) -> bool:
    seat = int(before.current_player)
    own = (LOC_HAND + seat, LOC_UP + seat)
    moved = [card for card in NINES if before.location[card] in own and after.location[card] == LOC_BURNT]
    return after.burnt_count > before.burnt_count and bool(moved)


burn = find("gin_slaughtre_v0", nine_burns)[0]
print(f"seed {burn.seed}, decision {burn.index}: {burn.agent} plays {burn.action!r}\n")
show("gin_slaughtre_v0", burn.before, "before:")
show("gin_slaughtre_v0", burn.after, "\nafter:")

# %% [markdown]
# The trick ends in a 9, so pile and trick went to the burnt cards (the burnt count grew by the pile plus
# the trick), and the same player is to act again on an empty pile.

# %% [markdown]
# ## Clabber (`clabber_v0`)
#
# Four players in two partnerships (`player_0` + `player_2` against `player_1` + `player_3`), 24 cards,
# two bidding rounds for trump, six tricks, melds and the Bell, a game to 500
# ([rules](../docs/rules/clabber.md)):

# %%
play_out("clabber_v0", seed=0)

# %% [markdown]
# ### A meld and the Bell ([`rule:meld_declaring` … `rule:bell`](../docs/rules/clabber.md#rules))
#
# At each player's turn in the first trick the engine declares the player's best melds (`rule:meld_declaring`): four of a
# kind or a sequence of 3+ in one suit, e.g. K-Q-J of spades (`rule:meld_values`). When the first trick ends, only the team
# with the better best meld scores its melds (`rule:meld_comparison`). Apart from that, a player dealt **both the trump King
# and Queen** scores 20 for the team when playing the second of them: the **Bell** (`rule:bell`).
#
# The search plays single hands (`single_hand=True`) until one hand has both: it starts at the decision
# after which a seat's `meld_status` became *declared* and ends at the one after which `bell_points` became
# non-zero.

# %%
from cardenvs.games.clabber.rules import MELD_DECLARED, MELDS_UNDECIDED


def meld_declared(before, after) -> bool:
    return bool(((after.meld_status == MELD_DECLARED) & (before.meld_status != MELD_DECLARED)).any())


def bell_scored(before, after) -> bool:
    return bool(after.bell_points.any() and not before.bell_points.any())


hand = find("clabber_v0", meld_declared, bell_scored, single_hand=True)
meld, bell = hand[0], hand[-1]
compared = next(d for d in hand if d.after.meld_winner != MELDS_UNDECIDED)
declarer = int(np.flatnonzero(meld.after.meld_status != meld.before.meld_status)[0])
print(f"seed {meld.seed}; decision {meld.index}: {meld.agent} plays {meld.action!r}; player_{declarer} is next "
      "in the first trick, and the engine declares its melds:")
show("clabber_v0", meld.after, single_hand=True)
print(f"\ndecision {compared.index}: {compared.agent} plays {compared.action!r}; the first trick ends and "
      f"the melds are compared:")
show("clabber_v0", compared.after, single_hand=True)
print(f"\ndecision {bell.index}: player_{int(bell.after.bell_holder)} plays {bell.action!r}, "
      "the second of the trump King and Queen:")
show("clabber_v0", bell.after, single_hand=True)

# %% [markdown]
# Declared melds are public (cards, points and category, in the render and in everyone's observation);
# the `melds:` line shows which team scored them after the first trick, and the `Bell:` line appears when
# the Bell's holder plays its second card.

# %% [markdown]
# ## Stabby Jack (`stabby_jack_v0`)
#
# A role-playing card game: every player builds a face-up row of Stat cards (♥ hit points, ♦ magic,
# ♠ attack, ♣ luck) and each turn trains, fights or rests; a player wins with 10 XP, more power than every
# opponent's hit points left and the most luck, all at once ([rules](../docs/rules/stabby_jack.md)). Two
# copies of the rule-based agent tend to stall each other until the 1000-turn limit, so this game has
# three players and is the first seed that ends with a winner:

# %%
play_out("stabby_jack_v0", seed=first_decided_seed("stabby_jack_v0", num_players=3), num_players=3)

# %% [markdown]
# ### The Ace swap ([`rule:ace`](../docs/rules/stabby_jack.md#rules))
#
# An Ace drawn while training or fighting forces a swap: the drawer picks one of its own Stats, then a Stat
# of any opponent with the same suit or the same value, and the two change places. The swap can help the
# drawer, hurt the target, or even kill either of them (`rule:losing_hearts`, `rule:death_and_rebirth`). The search starts at the decision after
# which the game is in the *Ace: own Stat* or *Ace: target Stat* phase (`phase` 5 or 6) and ends when it
# leaves them.

# %%
from cardenvs.games.stabby_jack.cards import card_name
from cardenvs.games.stabby_jack.rules import PHASE_ACE_OWN, PHASE_ACE_TARGET

ACE_PHASES = (PHASE_ACE_OWN, PHASE_ACE_TARGET)
swap = find(
    "stabby_jack_v0",
    starts=lambda before, after: after.phase in ACE_PHASES and before.phase not in ACE_PHASES,
    ends=lambda before, after: after.phase not in ACE_PHASES,
)
print(f"seed {swap[0].seed}, decision {swap[0].index}; before it:")
show("stabby_jack_v0", swap[0].before)
for decision in swap:
    print(f"\n{decision.agent} chooses {decision.action!r}:")
    show("stabby_jack_v0", decision.after)

first, last = swap[0].before, swap[-1].after
for seat in range(int(first.num_players)):
    old = sorted(card_name(int(c)) for c in first.stats[seat, : first.stats_count[seat]])
    new = sorted(card_name(int(c)) for c in last.stats[seat, : last.stats_count[seat]])
    gave = sorted(set(old) - set(new))
    got = sorted(set(new) - set(old))
    print(f"player_{seat}: gave {gave or 'nothing'}, got {got or 'nothing'}")

# %% [markdown]
# The drawer first chose its own Stat (`slot i`), then the opponent's Stat to take (`ace: seat +r slot j`:
# the opponent `r` seats to the left; a half with only one option is taken by the engine, `rule:forced_decisions`). The two
# matching cards changed rows, every derived value (HP, magic, attack, luck) was recomputed, and the Ace
# went to the discard pile. A player left without a Heart has 1 HP (`rule:stats`), so a swap that gives away the
# last Heart makes its owner easy to kill.

# %% [markdown]
# ## Slap (`slap_v0`)
#
# Egyptian Ratscrew: players turn cards onto a centre pile, face cards start challenges, and when the top
# cards make a pattern (a double, a sandwich, two cards adding to ten, …) the first to slap the pile takes
# it; whoever ends with every card wins ([rules](../docs/rules/slap.md)). The rule-based agent slaps
# exactly when the pile is slappable. Card plays are automatic; a decision is a SLAP or PASS:

# %%
play_out("slap_v0", seed=0)

# %% [markdown]
# ### A slap that wins the pile ([`rule:slap_window`, `rule:correct_slap`, `rule:simultaneous_slaps`](../docs/rules/slap.md#rules))
#
# After every card every player still in secretly chooses SLAP or PASS (`rule:slap_window`); the window is resolved once the
# last seat has chosen. If the pile is slappable, one of the slappers, drawn by the game's own chance when
# several slapped at once (`rule:simultaneous_slaps`), takes the whole pile under its stack and plays next (`rule:correct_slap`). The search
# looks for the last choice of a window (`window_index` = `window_size` − 1) after which `last_winner` names
# a seat; `slap_matches` tells which slap rule matched.

# %%
from cardenvs.games.slap.params import SLAP_RULES
from cardenvs.games.slap.rules import PHASE_WINDOW


def slap_won(before, after) -> bool:
    last_choice = before.phase == PHASE_WINDOW and before.window_index == before.window_size - 1
    return bool(last_choice and after.last_winner >= 0)


slap = find("slap_v0", slap_won)[0]
rules = [name for bit, name in enumerate(SLAP_RULES) if int(slap.before.slap_matches) >> bit & 1]
print(f"seed {slap.seed}, decision {slap.index}: the pile matches {rules}; {slap.agent}, the last to choose, "
      f"chooses {slap.action!r}\n")
show("slap_v0", slap.before, "before:")
show("slap_v0", slap.after, "\nafter:")
winner = int(slap.after.last_winner)
print(f"\nplayer_{winner} won the slap: {int(slap.before.stack_size[winner])} -> "
      f"{int(slap.after.stack_size[winner])} cards (the pile, less the card it has already played next)")

# %% [markdown]
# The render after the window names who slapped and who won: the game's chance chose `last_winner` among
# the correct slappers, and that player took the pile and turned the next card at once (card plays are
# automatic), so the new pile holds just that card and a new window is open. Nobody's observation shows
# the choices of an open window: the agents decide at the same time in effect.
#
# Next: [04_benchmarks.ipynb](04_benchmarks.ipynb) measures how fast all this runs.
