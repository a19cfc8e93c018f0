"""Write the example notebooks from the cells below, execute them and keep their outputs.

The notebooks are committed with their outputs so that they read well on GitHub without running; CI runs them
again with nbmake. Edit a notebook here, never in Jupyter, then rebuild it::

    python notebooks/build.py                    # every notebook built here
    python notebooks/build.py 02_games           # one of them
    python notebooks/build.py --no-execute       # write the cells only (outputs empty)

Each notebook runs with ``notebooks/`` as its working directory, as under nbmake. After running, the outputs are
checked: no error output, and no absolute path of this machine (the repository, the home folder, the temporary
folder). Only the notebooks named in this script are written; any other notebook in the folder is left alone.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS_DIR = Path(__file__).resolve().parent
REPO_ROOT = NOTEBOOKS_DIR.parent
#: seconds one cell may run before the build fails
CELL_TIMEOUT_S = 600
KERNEL_NAME = "python3"
KERNELSPEC = {"name": KERNEL_NAME, "display_name": "Python 3 (ipykernel)", "language": "python"}


def md(text: str) -> nbformat.NotebookNode:
    """A markdown cell (the text is dedented and stripped)."""
    return nbformat.v4.new_markdown_cell(textwrap.dedent(text).strip())


def code(text: str) -> nbformat.NotebookNode:
    """A code cell (the text is dedented and stripped)."""
    return nbformat.v4.new_code_cell(textwrap.dedent(text).strip())


# ------------------------------------------------------------------------------------------------ 01_quickstart
def quickstart() -> list[nbformat.NotebookNode]:
    """From ``import cardenvs`` to the batched env, seeding, snapshots and chosen deals, on Clabber."""
    return [
        md("""
        # Quick start

        `cardenvs` serves five card games as [PettingZoo](https://pettingzoo.farama.org) AEC environments and as
        batched environments that step thousands of games per call. This notebook walks through everything an
        experiment needs, on **Clabber** (`clabber_v0`: four players in two partnerships, bidding, tricks, melds;
        rules in [docs/rules/clabber.md](../docs/rules/clabber.md)):

        1. the AEC loop and rendering
        2. observations and action masks, read through the documented layout
        3. illegal actions
        4. the batched env and its auto-reset
        5. seeding: the same seed gives the same game, in either front end
        6. snapshots and copies
        7. chosen deals
        """),
        code("""
        import copy
        import json

        import numpy as np
        from IPython.display import Markdown, display

        import cardenvs
        from agents.registry import make_agent
        from cardenvs.games.clabber.cards import NUM_CARDS, card_name

        print(cardenvs.available_envs())
        """),
        md("""
        ## 1. The AEC loop

        `cardenvs.env(env_id, **params)` is a PettingZoo `AECEnv`, used exactly as PettingZoo documents it.
        `render_mode="ansi"` makes `env.render()` return the public table as text (`"human"` prints it).
        """),
        code("""
        env = cardenvs.env("clabber_v0", render_mode="ansi")
        env.reset(seed=0)
        space = env.observation_space("player_0")
        print(env.possible_agents, env.action_space("player_0"))
        print("observation:", space["observation"].shape, space["observation"].dtype,
              "| action_mask:", space["action_mask"].shape, space["action_mask"].dtype, end="\\n\\n")
        print(env.render())
        """),
        md("""
        The standard loop: `agent_iter()` yields the agent to act, `last()` gives its observation and the reward
        it collected since it last acted, and a finished agent is stepped with `None`. Here every seat plays a
        uniformly random legal action; a whole game to 500 points takes a few dozen decisions.
        """),
        code("""
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
        """),
        md("""
        ## 2. Observations and action masks

        An observation is a dict: `"observation"`, a flat float32 vector seen from the observing seat (seats are
        relative: 0 = itself, 1 = its left, 2 = its partner, 3 = its right), and `"action_mask"`, an int8 vector
        with a 1 for every legal action. The vector is a sequence of named blocks, documented in the game's
        rules page ([Observation](../docs/rules/clabber.md#observation)); `env.unwrapped.layout` is that table
        in code, and `layout.markdown()` prints it:
        """),
        code("""
        layout = env.unwrapped.layout
        display(Markdown(layout.markdown()))
        """),
        md("""
        `layout.split(vector)` cuts a vector (or a batch of them) into those named views, without copying. The
        mask only has ones for the agent to act; an agent that is waiting gets an all-zero mask. Action ids and
        their names are in the [Actions](../docs/rules/clabber.md#actions-discrete-30-or-32-with-optional_declare)
        table; `game.action_name(params, action)` names one.
        """),
        code("""
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
        """),
        md("""
        ## 3. Illegal actions

        An action outside the mask raises `cardenvs.IllegalActionError`, says what is legal, and changes nothing.
        (With `cardenvs.env(..., illegal_action="penalize")` the game's documented penalty applies instead and the
        game ends, for training loops that must not crash.) Playing a card during the bidding:
        """),
        code("""
        card_not_held = next(c for c in range(NUM_CARDS) if not views["own_hand"][c])
        decisions_before = int(env.unwrapped.state_record.step_count)
        try:
            env.step(card_not_held)
        except cardenvs.IllegalActionError as error:
            print("IllegalActionError:", error)
        print("still to act:", env.agent_selection,
              "| decisions taken:", decisions_before, "->", int(env.unwrapped.state_record.step_count))
        """),
        md("""
        ## 4. The batched env

        `cardenvs.vector_env(env_id, num_envs)` holds `num_envs` games and steps them all in one compiled call:

        * `reset(seed)` returns `(obs[N, D], action_mask[N, A], current_player[N])`: row `i` is what the player
          to act in game `i` sees;
        * `step(actions)` takes one action per game and returns
          `(obs, action_mask, current_player, rewards[N, P], terminated[N], truncated[N])`;
        * `sample_actions()` draws a uniformly random legal action per game (from the env's own generators).

        **Auto-reset:** when game `i` ends in a step, that step reports its final rewards in `rewards[i]` (one per
        seat) and `terminated[i]` (or `truncated[i]`), while `obs[i]`, `action_mask[i]` and `current_player[i]`
        already belong to the first decision of the next game. The arrays are buffers the env overwrites: copy
        what you keep.
        """),
        code("""
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
        """),
        md("""
        Agents act on whole batches too: `Agent.act_batch(obs, action_mask)` returns one action per game.
        `agents.registry.make_agent("heuristic", env_id, layout)` is the game's rule-based agent. Below, the
        rule-based agent holds seats 0 and 2 of every game and random play the others, until 512 games have ended.
        """),
        code("""
        heuristic = make_agent("heuristic", "clabber_v0", venv.layout)
        obs, action_mask, current_player = venv.reset(seed=1)
        finished, team_0_wins = 0, 0
        while finished < venv.num_envs:
            actions = np.where(current_player % 2 == 0, heuristic.act_batch(obs, action_mask), venv.sample_actions())
            obs, action_mask, current_player, rewards, terminated, truncated = venv.step(actions)
            finished += int(terminated.sum() + truncated.sum())
            team_0_wins += int((rewards[:, 0] > 0).sum())
        print(f"{finished} games: the rule-based team won {team_0_wins} ({team_0_wins / finished:.0%})")
        """),
        md("""
        ## 5. Seeding

        Each game draws its chance (shuffles, first dealer) from its own generator inside its state, so a game
        depends only on its seed and the actions taken: the same seed and the same actions give the same game.
        """),
        code("""
        def random_game(seed: int) -> str:
            \"\"\"The final table of a game of random legal actions (the policy seeded like the game).\"\"\"
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
        """),
        md("""
        Game `i` of a batched env reset with `seed` is exactly the AEC game reset with
        `cardenvs.game_seed(seed, i)`, whatever the batch size. Below, game 3 of a batch of 8 and the AEC env are
        fed the same actions and compared at every decision until the game ends:
        """),
        code("""
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
        """),
        md("""
        `venv.reset(seeds=[...])` takes one explicit seed per game instead: game `i` is then the AEC game
        `env.reset(seed=seeds[i])`.

        ## 6. Snapshots and copies

        `env.unwrapped.snapshot()` is a JSON-serialisable dict of the whole state (every field of the state
        record, the game's generator included); `env.unwrapped.restore(snapshot)` continues from it, in this env
        or in a fresh one with the same parameters. The future after a restore is the same as after the snapshot,
        chance included (here the next deals):
        """),
        code("""
        def play_on(env, decisions: int, seed: int) -> str:
            \"\"\"Play random legal actions (from a generator seeded with ``seed``); return the table.\"\"\"
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
        """),
        md("""
        `copy.deepcopy(env)` (and `pickle`) copy an env with its state: the copy and the original then go their
        own ways, e.g. to look ahead in a search.
        """),
        code("""
        clone = copy.deepcopy(env)
        before = env.render()
        play_on(clone, 5, seed=2)
        print("the original is untouched:", env.render() == before, "| the copy moved on:", clone.render() != before)
        """),
        md("""
        ## 7. Chosen deals

        `env.reset(options={"deal": ...})` starts from a chosen deal instead of a shuffled one, for scenario tests
        and teaching. Each game's rules page gives the format; for Clabber
        ([Chosen deals](../docs/rules/clabber.md#chosen-deals)) it is the dealer, every seat's six cards and the
        turn-up (by default the dealer's last listed card). Here `player_1` gets four hearts with the Jack and
        the 9, the two best trumps, and the turn-up is the King of hearts:
        """),
        code("""
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
        """),
        md("""
        The player left of the dealer bids first. The rule-based agent accepts hearts with this hand; it is now the
        maker, and as it also leads the first trick, the engine declares its meld (J-10-9 of hearts) at once
        ([rule 16](../docs/rules/clabber.md#rules)):
        """),
        code("""
        agent = make_agent("heuristic", "clabber_v0", env.unwrapped.layout)
        observation, *_ = env.last()
        action = agent.act(observation)
        print(f"{env.agent_selection} chooses {env.unwrapped.game.action_name(params, action)!r}")
        env.step(action)
        print(env.render())
        """),
        md("""
        Next: [02_games.ipynb](02_games.ipynb) plays all five games with the rule-based agents and finds each
        game's signature rule in action; [04_benchmarks.ipynb](04_benchmarks.ipynb) measures the speed.
        """),
    ]


# ------------------------------------------------------------------------------------------------ 02_games
def games() -> list[nbformat.NotebookNode]:
    """The five games played by the rule-based agents, each with its key rule found by a seed search."""
    return [
        md("""
        # The five games

        Each game below is played out by its rule-based agent in every seat
        (`agents.registry.make_agent("heuristic", env_id, layout)`) and rendered. Then one rule that makes the
        game what it is is shown as it happens. Where a rule happens depends on the cards, so the notebook finds
        the moment itself: it plays games of seed 0, 1, 2, … and reads each state record
        (`env.unwrapped.state_record`, its fields documented in each rules page under *Snapshot fields*) before
        and after every decision until the rule fires.

        | env id | game | rule shown |
        |---|---|---|
        | `slabberjan_v0` | Slabberjan | a Cat: the exchange that undoes every exchange |
        | `gin_slaughtre_v0` | Gin Slaughtre | a burn: a 9 on top of the pile |
        | `clabber_v0` | Clabber | a meld declared at the first trick, and the Bell |
        | `stabby_jack_v0` | Stabby Jack | an Ace: a compulsory Stat swap with an opponent |
        | `slap_v0` | Slap | a slap that wins the pile |
        """),
        code("""
        from collections.abc import Callable, Iterator
        from dataclasses import dataclass

        import numpy as np

        import cardenvs
        from agents.registry import make_agent

        #: how many seeds a search tries before giving up
        MAX_SEEDS = 200


        @dataclass
        class Decision:
            \"\"\"One decision of a game: who acted, what, and the state record just before and just after.\"\"\"

            seed: int
            index: int  # decisions taken before this one
            agent: str
            action: str
            before: np.record
            after: np.record


        def decisions(env_id: str, seed: int, **params) -> Iterator[Decision]:
            \"\"\"Play one game with the rule-based agent in every seat, yielding each decision.\"\"\"
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
            \"\"\"The first decision, over games of seed 0, 1, 2, …, after which ``starts(before, after)`` holds;
            with ``ends``, followed by the next decisions up to the first one after which ``ends`` holds.\"\"\"
            for seed in range(MAX_SEEDS):
                found: list[Decision] = []
                for decision in decisions(env_id, seed, **params):
                    if found or starts(decision.before, decision.after):
                        found.append(decision)
                        if ends is None or ends(decision.before, decision.after):
                            return found
            raise RuntimeError(f"no such moment in {env_id} games of seed 0 to {MAX_SEEDS - 1}")


        def show(env_id: str, record: np.record, heading: str = "", **params) -> None:
            \"\"\"Print a state record as the env renders it, under ``heading``.\"\"\"
            game = cardenvs.get_game(env_id)
            if heading:
                print(heading)
            print(game.render(record, game.make_params(**params)))


        def play_out(env_id: str, seed: int, **params) -> None:
            \"\"\"Play a whole game with the rule-based agents, printing the table at the start and at the end.\"\"\"
            env = cardenvs.env(env_id, render_mode="ansi", **params)
            agents = {name: make_agent("heuristic", env_id, env.unwrapped.layout) for name in env.possible_agents}
            env.reset(seed=seed)
            print(env.render(), end="\\n\\n")
            steps = 0
            for name in env.agent_iter():
                observation, _, terminated, truncated, _ = env.last()
                env.step(None if terminated or truncated else agents[name].act(observation))
                steps += 1
            state = env.unwrapped.state_record
            how = "ended by the rules" if state.terminated else "truncated"
            print(env.render())
            print(f"\\nseed {seed}: {int(state.step_count)} decisions, {steps} env.step calls, {how}")


        def first_decided_seed(env_id: str, **params) -> int:
            \"\"\"The first seed whose game between rule-based agents ends by the rules, not by truncation.\"\"\"
            for seed in range(MAX_SEEDS):
                *_, last = decisions(env_id, seed, **params)
                if last.after.terminated:
                    return seed
            raise RuntimeError(f"every {env_id} game of seed 0 to {MAX_SEEDS - 1} was truncated")
        """),
        # ------------------------------------------------------------------ Slabberjan
        md("""
        ## Slabberjan (`slabberjan_v0`)

        One piece each; pass a poor piece to the left, and the lowest pieces pay a chip at the showdown; the
        last player with chips wins ([rules](../docs/rules/slabberjan.md)). Four players, three chips each:
        """),
        code("""
        play_out("slabberjan_v0", seed=0)
        """),
        md("""
        ### The Cat ([rule 9](../docs/rules/slabberjan.md#rules))

        The four matadors refuse an exchange (R7), each in its own way. Trying to swap with the holder of the
        **Cat** ("Meow") costs the attacker a chip, and *every exchange made this round is undone*: each player
        gets back the piece dealt to it, and what players learnt from those exchanges is void. The search below
        looks for a decision after which some seat has announced the Cat (`announced` field, kind 18).
        """),
        code("""
        from cardenvs.games.slabberjan.pieces import CAT, kind_name

        cat = find("slabberjan_v0", lambda before, after: (after.announced == CAT).any()
                   and not (before.announced == CAT).any())[0]
        print(f"seed {cat.seed}, decision {cat.index}: {cat.agent} chooses {cat.action!r}\\n")
        show("slabberjan_v0", cat.before, "before:")
        show("slabberjan_v0", cat.after, "\\nafter:")

        print(f"\\n{'seat':<10}{'held before':<14}{'held after':<14}dealt this round")
        for seat in range(int(cat.after.num_players)):
            print(f"player_{seat:<3}{kind_name(int(cat.before.piece[seat])):<14}"
                  f"{kind_name(int(cat.after.piece[seat])):<14}{kind_name(int(cat.after.original[seat]))}")
        assert (cat.after.piece == cat.after.original).all()
        """),
        md("""
        The attacker's chip went to the centre, the Cat holder announced it, and every piece that had changed
        hands this round went back to the seat it was dealt to (the *held after* column equals *dealt this
        round*). Play then continues left of the attacker.
        """),
        # ------------------------------------------------------------------ Gin Slaughtre
        md("""
        ## Gin Slaughtre (`gin_slaughtre_v0`)

        A two-player shedding game: lay a card, a set or a run at or above the pile's top card, or take the pile;
        the first player out of cards wins ([rules](../docs/rules/gin_slaughtre.md)). Games between two copies of
        the same rule-based agent often go on until the `max_turns` limit (2000 decisions) truncates them, so
        the game shown is the first seed that ends by the rules:
        """),
        code("""
        play_out("gin_slaughtre_v0", seed=first_decided_seed("gin_slaughtre_v0"))
        """),
        md("""
        ### Burning the pile ([rules 10 and 12](../docs/rules/gin_slaughtre.md#rules))

        A **9** may be played at any time, and a 9 on top of the pile (a single, a set of 9s, or a run that ends
        in 9) **burns** it: the pile leaves the game, and the same player refills its hand and plays again on the
        empty pile (R12). (Four cards of one rank on top burn it too, R11.) The search looks for a decision after
        which the `burnt_count` grew and a 9 went from the acting player's cards (`location` field) to the burnt
        cards.
        """),
        code("""
        from cardenvs.games.gin_slaughtre.rules import LOC_BURNT, LOC_HAND, LOC_UP

        NINE = 8  # rank index: Ace 0, 2 -> 1, ..., 9 -> 8
        NINES = [NINE * 4 + suit for suit in range(4)]


        def nine_burns(before, after) -> bool:
            seat = int(before.current_player)
            own = (LOC_HAND + seat, LOC_UP + seat)
            moved = [card for card in NINES if before.location[card] in own and after.location[card] == LOC_BURNT]
            return after.burnt_count > before.burnt_count and bool(moved)


        burn = find("gin_slaughtre_v0", nine_burns)[0]
        print(f"seed {burn.seed}, decision {burn.index}: {burn.agent} plays {burn.action!r}\\n")
        show("gin_slaughtre_v0", burn.before, "before:")
        show("gin_slaughtre_v0", burn.after, "\\nafter:")
        """),
        md("""
        The trick ends in a 9, so pile and trick went to the burnt cards (the burnt count grew by the pile plus
        the trick), and the same player is to act again on an empty pile.
        """),
        # ------------------------------------------------------------------ Clabber
        md("""
        ## Clabber (`clabber_v0`)

        Four players in two partnerships (`player_0` + `player_2` against `player_1` + `player_3`), 24 cards,
        two bidding rounds for trump, six tricks, melds and the Bell, a game to 500
        ([rules](../docs/rules/clabber.md)):
        """),
        code("""
        play_out("clabber_v0", seed=0)
        """),
        md("""
        ### A meld and the Bell ([rules 16–20](../docs/rules/clabber.md#rules))

        At each player's turn in the first trick the engine declares the player's best melds (R16): four of a
        kind or a sequence of 3+ in one suit, e.g. K-Q-J of spades (R17). When the first trick ends, only the team
        with the better best meld scores its melds (R19). Apart from that, a player dealt **both the trump King
        and Queen** scores 20 for the team when playing the second of them: the **Bell** (R20).

        The search plays single hands (`single_hand=True`) until one hand has both: it starts at the decision
        after which a seat's `meld_status` became *declared* and ends at the one after which `bell_points` became
        non-zero.
        """),
        code("""
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
        print(f"\\ndecision {compared.index}: {compared.agent} plays {compared.action!r}; the first trick ends and "
              f"the melds are compared:")
        show("clabber_v0", compared.after, single_hand=True)
        print(f"\\ndecision {bell.index}: player_{int(bell.after.bell_holder)} plays {bell.action!r}, "
              "the second of the trump King and Queen:")
        show("clabber_v0", bell.after, single_hand=True)
        """),
        md("""
        Declared melds are public (cards, points and category, in the render and in everyone's observation);
        the `melds:` line shows which team scored them after the first trick, and the `Bell:` line appears when
        the Bell's holder plays its second card.
        """),
        # ------------------------------------------------------------------ Stabby Jack
        md("""
        ## Stabby Jack (`stabby_jack_v0`)

        A role-playing card game: every player builds a face-up row of Stat cards (♥ hit points, ♦ magic,
        ♠ attack, ♣ luck) and each turn trains, fights or rests; a player wins with 10 XP, more power than every
        opponent's hit points left and the most luck, all at once ([rules](../docs/rules/stabby_jack.md)). Two
        copies of the rule-based agent tend to stall each other until the 1000-turn limit, so this game has
        three players and is the first seed that ends with a winner:
        """),
        code("""
        play_out("stabby_jack_v0", seed=first_decided_seed("stabby_jack_v0", num_players=3), num_players=3)
        """),
        md("""
        ### The Ace swap ([rule 13](../docs/rules/stabby_jack.md#rules))

        An Ace drawn while training or fighting forces a swap: the drawer picks one of its own Stats, then a Stat
        of any opponent with the same suit or the same value, and the two change places. The swap can help the
        drawer, hurt the target, or even kill either of them (R9, R17). The search starts at the decision after
        which the game is in the *Ace: own Stat* or *Ace: target Stat* phase (`phase` 5 or 6) and ends when it
        leaves them.
        """),
        code("""
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
            print(f"\\n{decision.agent} chooses {decision.action!r}:")
            show("stabby_jack_v0", decision.after)

        first, last = swap[0].before, swap[-1].after
        for seat in range(int(first.num_players)):
            old = sorted(card_name(int(c)) for c in first.stats[seat, : first.stats_count[seat]])
            new = sorted(card_name(int(c)) for c in last.stats[seat, : last.stats_count[seat]])
            gave = sorted(set(old) - set(new))
            got = sorted(set(new) - set(old))
            print(f"player_{seat}: gave {gave or 'nothing'}, got {got or 'nothing'}")
        """),
        md("""
        The drawer first chose its own Stat (`slot i`), then the opponent's Stat to take (`ace: seat +r slot j`:
        the opponent `r` seats to the left; a half with only one option is taken by the engine, R24). The two
        matching cards changed rows, every derived value (HP, magic, attack, luck) was recomputed, and the Ace
        went to the discard pile. A player left without a Heart has 1 HP (R3), so a swap that gives away the
        last Heart makes its owner easy to kill.
        """),
        # ------------------------------------------------------------------ Slap
        md("""
        ## Slap (`slap_v0`)

        Egyptian Ratscrew: players turn cards onto a centre pile, face cards start challenges, and when the top
        cards make a pattern (a double, a sandwich, two cards adding to ten, …) the first to slap the pile takes
        it; whoever ends with every card wins ([rules](../docs/rules/slap.md)). The rule-based agent slaps
        exactly when the pile is slappable. Card plays are automatic; a decision is a SLAP or PASS:
        """),
        code("""
        play_out("slap_v0", seed=0)
        """),
        md("""
        ### A slap that wins the pile ([rules 7, 19 and 22](../docs/rules/slap.md#rules))

        After every card every player still in secretly chooses SLAP or PASS (R7); the window is resolved once the
        last seat has chosen. If the pile is slappable, one of the slappers, drawn by the game's own chance when
        several slapped at once (R22), takes the whole pile under its stack and plays next (R19). The search
        looks for the last choice of a window (`window_index` = `window_size` − 1) after which `last_winner` names
        a seat; `slap_matches` tells which slap rule matched.
        """),
        code("""
        from cardenvs.games.slap.params import SLAP_RULES
        from cardenvs.games.slap.rules import PHASE_WINDOW


        def slap_won(before, after) -> bool:
            last_choice = before.phase == PHASE_WINDOW and before.window_index == before.window_size - 1
            return bool(last_choice and after.last_winner >= 0)


        slap = find("slap_v0", slap_won)[0]
        rules = [name for bit, name in enumerate(SLAP_RULES) if int(slap.before.slap_matches) >> bit & 1]
        print(f"seed {slap.seed}, decision {slap.index}: the pile matches {rules}; {slap.agent}, the last to choose, "
              f"chooses {slap.action!r}\\n")
        show("slap_v0", slap.before, "before:")
        show("slap_v0", slap.after, "\\nafter:")
        winner = int(slap.after.last_winner)
        print(f"\\nplayer_{winner} won the slap: {int(slap.before.stack_size[winner])} -> "
              f"{int(slap.after.stack_size[winner])} cards (the pile, less the card it has already played next)")
        """),
        md("""
        The render after the window names who slapped and who won: the game's chance chose `last_winner` among
        the correct slappers, and that player took the pile and turned the next card at once (card plays are
        automatic), so the new pile holds just that card and a new window is open. Nobody's observation shows
        the choices of an open window: the agents decide at the same time in effect.

        Next: [04_benchmarks.ipynb](04_benchmarks.ipynb) measures how fast all this runs.
        """),
    ]


# ------------------------------------------------------------------------------------------------ 04_benchmarks
def benchmarks() -> list[nbformat.NotebookNode]:
    """A small run of benchmarks/run.py, its table, and a plot of steps/s beside the peers and the targets."""
    return [
        md("""
        # Benchmarks

        `benchmarks/run.py` ([README](../benchmarks/README.md)) measures every game in both front ends, beside a
        no-op PettingZoo env and the peer libraries installed on the machine. This notebook runs it with a small
        budget (half a second per measurement, no first-creation timings), reads the JSON it writes and plots
        the result. For numbers to quote, run the full benchmark on an idle machine:
        `python benchmarks/run.py`.

        The batched env runs each call on all cores through numba's threads, and every call waits for the
        slowest of them. When other processes keep the cores busy, a thread that the system pauses stalls the
        whole call, so on a busy machine (1-minute load average at least half the number of cores) the notebook
        measures the batched envs with one numba thread (`--numba-threads 1`).
        """),
        code("""
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
                raise RuntimeError(f"benchmarks/run.py failed:\\n{run.stderr[-3000:]}")
            results = json.loads(json_path.read_text())
            table = table_path.read_text()

        display(Markdown(table))
        """),
        md("""
        ## What each bar means

        * **AEC steps/s** (left): the standard PettingZoo loop, `agent_iter()` → `last()` → a random legal action
          → `step()`, with `reset()` when a game ends, on one game at a time. Every `env.step` call counts.
        * **no-op ceiling** (dashed line): the same loop on a PettingZoo AEC env that does nothing (defined in the
          script). It is the cost of the protocol itself in Python: no env can go faster through this loop.
          The target is that every game runs at least at **half** of it (dotted line).
        * **batched steps/s** (right): `venv.step(venv.sample_actions())` on `cardenvs.vector_env(env_id,
          num_envs)`: games × calls / seconds. Target: **2,000,000 steps/s** (dotted line).
        * **Peers** (grey), measured in the same run when installed: PettingZoo classic (`texas_holdem_v4`,
          `leduc_holdem_v4`, through rlcard, with PettingZoo's standard wrappers), OpenSpiel (`leduc_poker`,
          `kuhn_poker`, `hearts`, through its Python API: legal actions and apply, no observations, chance nodes
          not counted) and Pgx (`leduc_holdem`: one jitted call that `vmap`s a step over as many games). They are
          different games, so the comparison is of the machinery's cost, not of equal work.
        """),
        code("""
        OURS, PEER = "tab:blue", "tab:gray"

        noop = results["noop"]["aec"]["steps_per_s"]
        targets = results["targets"]
        aec = {row["env_id"]: row["aec"]["steps_per_s"] for row in results["envs"] if "aec" in row}
        batched = {row["env_id"]: row["batched"]["steps_per_s"] for row in results["envs"] if "batched" in row}
        aec_peers = {f"{p['library']}\\n{p['name']}": p["aec"]["steps_per_s"] for p in results["peers"] if "aec" in p}
        batched_peers = {
            f"{p['library']}\\n{p['name']}": p["batched"]["steps_per_s"] for p in results["peers"] if "batched" in p
        }
        skipped = [f"{p['library']} {p['name']}" for p in results["peers"] if "aec" not in p and "batched" not in p]


        def short(rate: float) -> str:
            \"\"\"A rate as 123k or 1.2M, for the labels on the bars.\"\"\"
            return f"{rate / 1e6:.1f}M" if rate >= 1e6 else f"{rate / 1e3:.0f}k"


        def bars(ax, ours: dict, peers: dict, title: str) -> None:
            \"\"\"cardenvs bars then peer bars, each labelled with its rate, on a log scale.\"\"\"
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
        """),
        md("""
        ## Reading the numbers

        * The AEC bars are bounded by the no-op line: an AEC env pays PettingZoo's Python protocol on every step,
          so the question is how much the game's rules add to it. Above the dotted line means the game's own work
          costs at most as much as the protocol's.
        * The batched bars are not bounded that way: each call steps every game in compiled code, so they grow
          with `num_envs` and the number of cores. This notebook uses 1024 games and half-second measurements;
          the full benchmark uses 4096 games and 3 seconds.
        * **A busy machine understates the envs.** Other processes take CPU time from the measurement, and the
          batched env suffers most: each call waits for its slowest numba thread, so one preempted thread stalls
          the whole batch (hence one thread on a busy machine, see above; with every thread on a busy machine the
          batched rates can fall by one or two orders of magnitude). The script records the load average (in the
          title above and the JSON) and warns when it shows other work; on a machine shared with other jobs,
          treat these numbers as lower bounds.
        """),
        code("""
        print(f"load average (1 min) at the start: {results['load_average_1m_at_start']:.1f}, at the end: "
              f"{machine['load_average_1m']:.1f}, on {machine['cpu_count']} cores; numba threads: "
              f"{machine['numba_threads']}")
        print(f"whole run: {results['total_seconds']:.0f} s")
        """),
    ]


def train_and_evaluate() -> list[nbformat.NotebookNode]:
    """A short MaskablePPO run (training/ppo.py), its learning curve from TensorBoard, a tournament, its ladder."""
    return [
        md("""
        # Train and evaluate an agent

        A short MaskablePPO run on Slabberjan with `training/ppo.py` (the same script as `bash scripts/main.sh`,
        here with a budget of seconds), its learning curve read from the TensorBoard logs, then a duplicate-deal
        tournament of the trained agent against the random and rule-based agents, with its ladder plot. See
        [docs/training.md](../docs/training.md) and [docs/evaluation.md](../docs/evaluation.md).
        """),
        code("""
        import shutil
        import sys
        import warnings
        from pathlib import Path

        import matplotlib.pyplot as plt
        from IPython.display import Image
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        ROOT = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "training" / "ppo.py").is_file())
        sys.path.insert(0, str(ROOT))  # training/ is a folder of scripts, not an installed package

        from training import ppo  # noqa: E402 (after the path is set)

        RUN_DIR = Path("runs") / "notebook_ppo"  # relative to this notebook; runs/ is git-ignored
        shutil.rmtree(RUN_DIR, ignore_errors=True)
        """),
        md("""
        ## Train

        The learner holds one seat of 16 games in lockstep (`cardenvs.training.LearnerVecEnv` over the batched env);
        random and rule-based opponents hold the others. Every 8,192 steps it plays a 200-game tournament against
        the rule-based agent (`eval/*` in TensorBoard); at the end, a tournament against both.
        """),
        code("""
        # stable-baselines3 imports tqdm.auto, which warns when the notebook widgets are not installed
        warnings.filterwarnings("ignore", message="IProgress not found")
        exit_code = ppo.main([
            "--env-id", "slabberjan_v0", "--total-timesteps", "40960", "--eval-every", "8192", "--eval-games", "200",
            "--checkpoint-every", "20480", "--final-games", "400", "--run-dir", str(RUN_DIR), "--no-progress-bar",
        ])
        assert exit_code == 0
        """),
        md("""
        ## The learning curve

        `rollout/ep_rew_mean` is the learner's mean final reward in its recent games against the pool (+1 a win,
        −1 a loss); `eval/mean_reward_vs_heuristic` the periodic tournaments' mean reward.
        """),
        code("""
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
        """),
        md("""
        ## A tournament with its ladder

        `run_tournament` replays every deal with the agents in every seat arrangement and reports each agent's mean
        reward with its 95% confidence interval, win rate and openskill rating. `ppo:PATH` is the trained model.
        """),
        code("""
        from cardenvs.evaluation import run_tournament
        from cardenvs.evaluation.plot import plot_ladder

        result = run_tournament("slabberjan_v0", [f"ppo:{RUN_DIR / 'model.zip'}", "random", "heuristic"], games=600,
                                seed=7, progress=False, results_path=RUN_DIR / "tournament.jsonl")
        print(result.table())
        Image(filename=str(plot_ladder(result, RUN_DIR / "ladder.png")))
        """),
    ]


#: notebook name -> the function returning its cells
NOTEBOOKS: dict[str, Callable[[], list[nbformat.NotebookNode]]] = {
    "01_quickstart": quickstart,
    "02_games": games,
    "03_train_and_evaluate": train_and_evaluate,
    "04_benchmarks": benchmarks,
}


def machine_paths() -> list[str]:
    """Absolute paths of this machine that must not appear in a committed output."""
    paths = {str(REPO_ROOT), str(Path.home()), tempfile.gettempdir(), sys.prefix}
    return sorted(p for p in paths if len(p) > 1)


def output_texts(notebook: nbformat.NotebookNode) -> list[str]:
    """Every text of every output (streams, results, errors; images are left out)."""
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                texts.append(output.get("text", ""))
            elif output.get("output_type") == "error":
                texts.append("\n".join(output.get("traceback", [])))
            for mime, value in output.get("data", {}).items():
                if not mime.startswith("image/"):
                    texts.append(value if isinstance(value, str) else "".join(value))
    return texts


def check_outputs(name: str, notebook: nbformat.NotebookNode) -> None:
    """Raise if an output is an error, went to stderr, or shows a path of this machine."""
    problems = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                problems.append(f"error output: {output.get('ename')}: {output.get('evalue')}")
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                problems.append(f"stderr output: {output.get('text', '')[:300]}")
    for text in output_texts(notebook):
        problems.extend(f"machine path {path!r} in an output" for path in machine_paths() if path in text)
    if problems:
        raise RuntimeError(f"{name}: " + "; ".join(sorted(set(problems))))


def build(name: str, execute: bool) -> float:
    """Write (and run) one notebook; returns the seconds its execution took."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = NOTEBOOKS[name]()
    notebook.metadata["kernelspec"] = KERNELSPEC
    notebook.metadata["language_info"] = {"name": "python"}
    seconds = 0.0
    if execute:
        start = time.perf_counter()
        client = NotebookClient(
            notebook, timeout=CELL_TIMEOUT_S, kernel_name=KERNEL_NAME, record_timing=False,
            resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
        )
        client.execute()
        seconds = time.perf_counter() - start
        check_outputs(name, notebook)
    notebook.metadata["language_info"] = {"name": "python"}  # not the kernel's version details
    nbformat.validate(notebook)
    nbformat.write(notebook, NOTEBOOKS_DIR / f"{name}.ipynb")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write and execute the example notebooks (outputs kept).")
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"notebooks to build (default: all): {', '.join(NOTEBOOKS)}"
    )
    parser.add_argument("--no-execute", action="store_true", help="write the cells without running them")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in NOTEBOOKS]
    if unknown:
        parser.error(f"unknown notebook(s) {', '.join(unknown)}; choose from {', '.join(NOTEBOOKS)}")
    os.chdir(NOTEBOOKS_DIR)
    for name in args.names or list(NOTEBOOKS):
        seconds = build(name, execute=not args.no_execute)
        print(f"{name}.ipynb written" + ("" if args.no_execute else f", executed in {seconds:.1f} s"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
