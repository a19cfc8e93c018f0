"""The global state (``env.state()``, ``env.state_space``, ``VectorEnv.global_states()``) of every game.

It holds what every seat's observation holds (each observation is rebuilt from the state's blocks alone) and
every hidden card (its blocks decode to the state record: every hand, stack, face-down card and pile content);
it is not in any observation; reading it is deterministic and changes nothing; the batched env's rows are the
AEC env's states; PettingZoo's state tests pass (its api_test runs in test_env_contract.py); each rules page's
index table is the layout's; and it runs as plain Python (``NUMBA_DISABLE_JIT=1``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

import cardenvs
from tests.helpers import make_env

ROOT = Path(__file__).parents[1]
ENV_IDS = cardenvs.available_envs()
DEFAULT_CASES = [pytest.param(env_id, {}, id=env_id) for env_id in ENV_IDS]
# Parameter sets whose blocks differ in shape or content from the defaults'.
VARIANT_CASES = [
    pytest.param("slabberjan_v0", {"num_players": 7, "fool_knocks": True}, id="slabberjan_v0-7"),
    pytest.param("slap_v0", {"num_players": 3, "expose_play_action": True}, id="slap_v0-3"),
    pytest.param("stabby_jack_v0", {"num_players": 3, "max_players": 8, "jokers": True}, id="stabby_jack_v0-3of8"),
    pytest.param("gin_slaughtre_v0", {"num_downcards": 3}, id="gin_slaughtre_v0-downcards"),
]


# ---------------------------------------------------------------------------------------------------------------
# Each observation block from the state's blocks: how a seat sees each state block.

#: observation block -> state block holding it for every seat (row ``player`` of a per-seat block)
OWN_BLOCKS = {
    "slabberjan_v0": {"own_piece": "pieces", "own_original": "originals"},
    "clabber_v0": {"own_hand": "hands"},
    "gin_slaughtre_v0": {"own_hand": "hands", "own_upcards": "upcards"},
}
#: observation block -> state block holding it for every seat (the row of the observer's opponent)
OPPONENT_BLOCKS = {"gin_slaughtre_v0": {"opponent_upcards": "upcards"}}
#: blocks with one row per seat: the observation's rows are relative to the observer, the state's absolute
SEAT_BLOCKS = {
    "slabberjan_v0": {
        "chips", "in_game", "owes", "dealer", "to_act", "acted", "announced", "fool_knocked", "last_shown",
        "last_paid",
    },
    "clabber_v0": {
        "dealer", "to_act", "bids_first", "bids_second", "maker", "played", "trick_leader", "meld_cards",
        "meld_category", "meld_points", "meld_turn_done",
    },
    "slap_v0": {
        "stack_sizes", "eliminated", "played_last", "challenger", "payer", "last_slapped", "last_winner",
    },
    "stabby_jack_v0": {
        "present", "to_act", "dealer", "stat_suits", "stat_values", "stat_counts", "stats_count", "damage",
        "hit_points", "magic", "attack", "luck", "xp", "xp_monsters", "xp_monarchs", "win_conditions",
    },
    "gin_slaughtre_v0": {"hand_sizes", "to_act", "dealer", "downcards"},
}
#: Clabber's blocks with one row per team: (own team, opponents) in the observation, (team 0, team 1) in the state
TEAM_BLOCKS = {"clabber_v0": {"bell", "trick_points", "tricks_won", "scores"}}


def _relative_rows(block: np.ndarray, player: int, num_players: int, rows: int) -> np.ndarray:
    """A block of ``rows`` absolute rows (the first ``num_players`` used) as seen from ``player``."""
    table = block.reshape(rows, -1)
    seen = np.zeros_like(table)
    seen[:num_players] = table[(player + np.arange(num_players)) % num_players]
    return seen.reshape(-1)


def _special_block(env_id: str, name: str, state: dict, player: int, n: int) -> np.ndarray | None:
    """The observation blocks that combine state blocks, or None for the others."""
    if env_id == "slabberjan_v0" and name == "known_pieces":  # row ``player`` of the seats × seats matrix
        return _relative_rows(state["known_pieces"].reshape(n, -1)[player], player, n, n)
    if env_id == "clabber_v0" and name == "meld_winner":  # (team 0, team 1, nobody) -> (own, opponents, nobody)
        team = player % 2
        return np.concatenate([_relative_rows(state[name][:2], team, 2, 2), state[name][2:]])
    if env_id == "gin_slaughtre_v0" and name == "opponent_known_hand":
        return state["hands"].reshape(n, -1)[(player + 1) % n] * state["public_hand_cards"]
    return None


def observation_from_state(env, state: np.ndarray, player: int) -> np.ndarray:
    """Seat ``player``'s observation rebuilt from the global state vector alone."""
    env_id = env.game.env_id
    n = len(env.possible_agents)
    blocks = env.state_layout.split(state)
    parts = []
    for view in env.layout.views:
        name = view.name
        special = _special_block(env_id, name, blocks, player, n)
        if special is not None:
            parts.append(special)
        elif name in OWN_BLOCKS.get(env_id, {}):
            parts.append(blocks[OWN_BLOCKS[env_id][name]].reshape(n, -1)[player])
        elif name in OPPONENT_BLOCKS.get(env_id, {}):
            parts.append(blocks[OPPONENT_BLOCKS[env_id][name]].reshape(n, -1)[(player + 1) % n])
        elif name in SEAT_BLOCKS.get(env_id, set()):
            rows = blocks[name].size // (view.size // _seat_rows(env, name, n))
            parts.append(_relative_rows(blocks[name], player, n, rows))
        elif name in TEAM_BLOCKS.get(env_id, set()):
            parts.append(_relative_rows(blocks[name], player % 2, 2, 2))
        else:
            parts.append(blocks[name])
    return np.concatenate(parts)


def _seat_rows(env, name: str, n: int) -> int:
    """Rows of a per-seat observation block: one per seat, or per seat the spaces are sized for (Stabby Jack)."""
    return int(env.state_record.max_players) if env.game.env_id == "stabby_jack_v0" else n


# ---------------------------------------------------------------------------------------------------------------
# Each state block against the record: every hidden card is in the state.


def _cards(bits: np.ndarray) -> set[int]:
    return {int(card) for card in np.flatnonzero(bits)}


def _check_slabberjan(record, blocks: dict, n: int) -> None:
    pieces = blocks["pieces"].reshape(n, -1)
    originals = blocks["originals"].reshape(n, -1)
    for seat in range(n):
        held = [int(record.piece[seat])] if record.piece[seat] >= 0 else []
        dealt = [int(record.original[seat])] if record.original[seat] >= 0 else []
        assert list(np.flatnonzero(pieces[seat])) == held
        assert list(np.flatnonzero(originals[seat])) == dealt
    known = blocks["known_pieces"].reshape(n, n, -1)
    unknown_slot = known.shape[2] - 1
    expected = np.where(record.known >= 0, record.known, unknown_slot)
    assert np.array_equal(known.argmax(axis=2), expected) and (known.sum(axis=2) == 1).all()
    bag = Counter(int(kind) for kind in record.bag[: record.bag_size])
    assert {kind: int(count) for kind, count in enumerate(blocks["bag"]) if count} == dict(bag)
    assert np.array_equal(blocks["out_order"], record.out_order)


def _check_clabber(record, blocks: dict, n: int) -> None:
    hands = blocks["hands"].reshape(n, -1)
    for seat in range(n):
        assert _cards(hands[seat]) == {c for c in range(hands.shape[1]) if (int(record.hand[seat]) >> c) & 1}


def _check_slap(record, blocks: dict, n: int) -> None:
    from cardenvs.games.slap.rules import pile_cards, stack_cards

    stacks = blocks["stacks"].reshape(n, -1)
    for seat in range(n):
        assert _cards(stacks[seat]) == set(stack_cards(record, seat))
    pile = pile_cards(record)
    face_up = int(record.face_up)
    assert _cards(blocks["face_up_cards"]) == set(pile[len(pile) - face_up:])
    assert _cards(blocks["burnt_cards"]) == set(pile[: len(pile) - face_up])
    assert np.array_equal(blocks["slap_choices"], record.slap_choice)
    to_act = [int(record.current_player)] if record.current_player >= 0 else []
    assert list(np.flatnonzero(blocks["to_act"])) == to_act
    # every card in play is in exactly one place
    places = np.concatenate([stacks, blocks["face_up_cards"][None], blocks["burnt_cards"][None]])
    assert np.array_equal(places.sum(axis=0), record.in_play)


def _check_stabby_jack(record, blocks: dict, n: int) -> None:
    draw_pile = Counter(int(kind) for kind in record.deck[: record.deck_size])
    assert {kind: int(count) for kind, count in enumerate(blocks["deck_composition"]) if count} == dict(draw_pile)
    m = int(record.max_players)
    values = blocks["stat_values"].reshape(m, -1)
    for seat in range(n):
        count = int(record.stats_count[seat])
        assert np.count_nonzero(values[seat]) == count
    assert np.array_equal(blocks["damage"][:n], record.damage)


def _check_gin_slaughtre(record, blocks: dict, n: int) -> None:
    from cardenvs.games.gin_slaughtre.rules import LOC_BURNT, LOC_DOWN, LOC_HAND, LOC_PILE, LOC_STOCK, LOC_UP

    location = record.location
    hands = blocks["hands"].reshape(n, -1)
    upcards = blocks["upcards"].reshape(n, -1)
    for seat in range(n):
        assert _cards(hands[seat]) == set(np.flatnonzero(location == LOC_HAND + seat))
        assert _cards(upcards[seat]) == set(np.flatnonzero(location == LOC_UP + seat))
    assert _cards(blocks["stock_cards"]) == set(np.flatnonzero(location == LOC_STOCK))
    assert _cards(blocks["pile_cards"]) == set(np.flatnonzero(location == LOC_PILE))
    assert _cards(blocks["burnt"]) == set(np.flatnonzero(location == LOC_BURNT))
    in_hand = (location >= LOC_HAND) & (location < LOC_UP)
    assert _cards(blocks["public_hand_cards"]) == set(np.flatnonzero(in_hand & (record.known != 0)))
    if "downcard_cards" in blocks:  # num_downcards=3 only
        face_down = blocks["downcard_cards"].reshape(n, record.downcards.shape[1], -1)
        for seat in range(n):
            for slot in range(record.downcards.shape[1]):
                card = int(record.downcards[seat, slot])
                assert _cards(face_down[seat, slot]) == ({card} if card >= 0 else set())
                if card >= 0:
                    assert location[card] == LOC_DOWN + seat
    else:
        assert not (location >= LOC_DOWN).any()
    chosen = blocks["arrangements"].reshape(n, -1)
    for seat in range(n):
        choice = int(record.pending_arrangement[seat])
        assert list(np.flatnonzero(chosen[seat])) == ([choice] if choice >= 0 else [])


RECORD_CHECKS = {
    "slabberjan_v0": _check_slabberjan,
    "clabber_v0": _check_clabber,
    "slap_v0": _check_slap,
    "stabby_jack_v0": _check_stabby_jack,
    "gin_slaughtre_v0": _check_gin_slaughtre,
}


def check_state(env) -> None:
    """The state now: within its space, decoding to the record, and holding every seat's observation."""
    state = env.state()
    assert state.dtype == np.float32 and state.shape == env.state_space.shape
    assert env.state_space.contains(state)
    n = len(env.possible_agents)
    RECORD_CHECKS[env.game.env_id](env.state_record, env.state_layout.split(state), n)
    for player, agent in enumerate(env.possible_agents):
        observation = env.observe(agent)["observation"]
        assert np.array_equal(observation_from_state(env, state, player), observation), agent


def play_and_check(env_id: str, params: dict, seed: int, steps: int) -> int:
    """Random legal play from ``seed``, the state checked at every decision; returns the decisions checked."""
    env = make_env(env_id, params)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    checked = 0
    for agent in env.agent_iter(steps):
        check_state(env)
        checked += 1
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    return checked


# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("env_id", "params"), DEFAULT_CASES + VARIANT_CASES)
def test_the_state_holds_every_observation_and_every_hidden_card(env_id, params):
    assert play_and_check(env_id, params, seed=5, steps=300) > 20


@pytest.mark.parametrize(("env_id", "params"), DEFAULT_CASES)
def test_the_state_is_a_documented_box_and_no_part_of_any_observation(env_id, params):
    env = make_env(env_id, params)
    game = env.game
    layout = game.state_layout(env.params)
    assert isinstance(env.state_space, spaces.Box) and env.state_space.dtype == np.float32
    assert env.state_space.shape == (layout.size,)
    assert np.array_equal(env.state_space.low, layout.low()) and np.array_equal(env.state_space.high, layout.high())
    assert (layout.low() < layout.high()).all()
    # the observations keep their own layout: the state adds nothing to them
    observation_size = game.observation_layout(env.params).size
    for agent in env.possible_agents:
        assert env.observation_space(agent)["observation"].shape == (observation_size,)
    env.reset(seed=1)
    assert env.observe(env.possible_agents[0])["observation"].shape == (observation_size,)


@pytest.mark.parametrize(("env_id", "params"), DEFAULT_CASES)
def test_reading_the_state_is_deterministic_and_changes_nothing(env_id, params):
    first, second = make_env(env_id, params), make_env(env_id, params)
    first.reset(seed=9)
    second.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(40):
        if first.terminations[first.agent_selection] or first.truncations[first.agent_selection]:
            break
        record = first.state_record.tobytes()
        observations = [first.observe(agent)["observation"] for agent in first.possible_agents]
        state = first.state()
        assert first.state_record.tobytes() == record  # no draw from the game's generator, no change at all
        assert np.array_equal(first.state(), state)
        assert np.array_equal(second.state(), state)  # the same game gives the same state
        for agent, observation in zip(first.possible_agents, observations, strict=True):
            assert np.array_equal(first.observe(agent)["observation"], observation)
        state[:] = -1.0  # a copy: changing it changes nothing
        assert first.state_record.tobytes() == record
        action = int(rng.choice(np.flatnonzero(first.observe(first.agent_selection)["action_mask"])))
        first.step(action)
        second.step(action)  # second never read its state between steps: the games stay equal
        assert first.state_record.tobytes() == second.state_record.tobytes()


@pytest.mark.parametrize(("env_id", "params"), DEFAULT_CASES)
def test_pettingzoo_state_tests_pass(env_id, params):
    # PettingZoo's test samples actions without the mask: an illegal one ends the game by the penalty
    env = make_env(env_id, params, illegal_action="penalize")
    pettingzoo_state_space_test(env)
    pettingzoo_state_test(env, num_cycles=100, seed=3)


@pytest.mark.parametrize(("env_id", "params"), DEFAULT_CASES)
def test_the_batched_global_states_are_the_aec_states(env_id, params):
    num_games, seed = 3, 17
    venv = cardenvs.vector_env(env_id, num_games, **params)
    venv.reset(seed=seed)
    envs = [make_env(env_id, params) for _ in range(num_games)]
    for i, env in enumerate(envs):
        env.reset(seed=cardenvs.game_seed(seed, i))
    out = np.zeros((num_games, envs[0].state_layout.size), np.float32)
    for _ in range(60):
        states = venv.global_states()
        assert states.shape == out.shape and states.dtype == np.float32
        assert venv.global_states(out=out) is out and np.array_equal(out, states)
        live = [i for i, env in enumerate(envs) if not (env.terminations[env.agent_selection]
                                                       or env.truncations[env.agent_selection])]
        if len(live) < num_games:
            break  # a finished batched game restarts at once: compare only while all go on
        for i, env in enumerate(envs):
            assert np.array_equal(states[i], env.state()), i
        actions = venv.sample_actions().copy()
        venv.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))


def test_the_batched_state_needs_a_reset_and_a_matching_buffer():
    venv = cardenvs.vector_env("slap_v0", 2)
    with pytest.raises(RuntimeError, match="reset"):
        venv.global_states()
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="float32"):
        venv.global_states(out=np.zeros((3, venv.global_states().shape[1]), np.float32))


def test_the_state_needs_a_reset():
    env = cardenvs.env("slap_v0")
    with pytest.raises(RuntimeError, match="reset"):
        env.state()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_rules_page_has_the_state_table(env_id):
    game = cardenvs.get_game(env_id)
    doc = (ROOT / "docs" / "rules" / f"{game.name}.md").read_text()
    assert "## Global state" in doc
    assert game.state_layout(game.make_params()).markdown() in doc


def test_the_state_as_plain_python():
    """Under NUMBA_DISABLE_JIT=1 the same checks pass for every game (a short game each)."""
    script = textwrap.dedent(
        """
        import numpy as np
        import cardenvs
        from tests.test_global_state import play_and_check

        for env_id in cardenvs.available_envs():
            assert play_and_check(env_id, {}, seed=2, steps=25) > 5
            venv = cardenvs.vector_env(env_id, 2)
            venv.reset(seed=0)
            env = cardenvs.env(env_id)
            env.reset(seed=cardenvs.game_seed(0, 0))
            assert np.array_equal(venv.global_states()[0], env.state())
            print(env_id, "ok")
        """
    )
    environment = dict(os.environ, NUMBA_DISABLE_JIT="1")
    result = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", script],
        capture_output=True, text=True, env=environment, timeout=600, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for env_id in ENV_IDS:
        assert f"{env_id} ok" in result.stdout
