"""Human play: each game's private view, the HumanAgent's reading of answers, and ``cardenvs play``.

``cardenvs play`` is driven through its ``input_fn``/``output`` arguments and once as a subprocess with stdin.
"""

from __future__ import annotations

import argparse
import copy
import os
import subprocess
import sys
from collections.abc import Callable, Iterator

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.human import HELP_TEXT, HumanAgent, QuitGame
from cardenvs.agents.registry import make_agent
from cardenvs.commands import play
from cardenvs.core.aec import CardEnv
from cardenvs.core.game import no_private_view
from cardenvs.games.clabber.cards import card_name as clabber_card_name
from cardenvs.games.gin_slaughtre.cards import NUM_CARDS as GIN_CARDS
from cardenvs.games.gin_slaughtre.cards import pretty_name
from cardenvs.games.gin_slaughtre.rules import LOC_HAND, LOC_STOCK, LOC_UP
from cardenvs.records import GameRecord, replay

#: a short game of every env (its manifest's ``quick_params``), for playing whole games quickly
SHORT_GAMES = {env_id: cardenvs.get_game(env_id).quick_params for env_id in cardenvs.available_envs()}
#: the games where every seat sees only the public table
PUBLIC_ONLY = [env_id for env_id in cardenvs.available_envs()
               if cardenvs.get_game(env_id).render_private is no_private_view]


# ------------------------------------------------------------------ private views


def _positions(env_id: str, params: dict, seed: int, every: int = 3) -> Iterator[CardEnv]:
    """Copies of a random game's env at every ``every``-th decision."""
    env = cardenvs.env(env_id, **params)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for number, _agent in enumerate(env.agent_iter(400)):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if number % every == 0:
            yield copy.deepcopy(env)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def _private(env: CardEnv, player: int) -> str:
    core = env.unwrapped
    return core.game.render_private(core.state_record, core.params, player)


def _check_private_view(env_id: str, params: dict, hide: Callable, reveal: Callable, seeds=(0, 1), every=3) -> int:
    """For each seat at many positions: ``hide`` (a change to what that seat cannot see) keeps its private view,
    ``reveal`` (a change to its own hidden cards) changes it. Returns the positions checked."""
    checked = 0
    for seed in seeds:
        for env in _positions(env_id, params, seed, every):
            for player in range(len(env.possible_agents)):
                text = _private(env, player)
                assert text.startswith(f"player_{player} (you)"), text
                hidden = copy.deepcopy(env)
                if hide(hidden.unwrapped.state_record, player):
                    assert _private(hidden, player) == text, f"seat {player} sees a hidden change"
                    checked += 1
                shown = copy.deepcopy(env)
                if reveal(shown.unwrapped.state_record, player):
                    assert _private(shown, player) != text, f"seat {player} does not see its own change"
    return checked


def test_slabberjan_private_view_shows_own_and_known_pieces_and_nothing_of_others():
    def hide(state, player):
        others = [s for s in range(state.num_players) if s != player and state.in_game[s]]
        if len(others) < 2:
            return False
        rolled = np.roll([int(state.piece[s]) for s in others], 1)
        for seat, kind in zip(others, rolled, strict=True):
            if state.known[player, seat] == -1:  # a piece the seat knows stays; the rest may move
                state.piece[seat] = kind
            state.original[seat] = (int(state.original[seat]) + 1) % 21
            state.known[seat, :] = -1
        state.bag[: state.bag_size] = state.bag[: state.bag_size][::-1]
        return True

    def reveal(state, player):
        if not state.in_game[player]:
            return False
        state.piece[player] = (int(state.piece[player]) + 1) % 21
        return True

    assert _check_private_view("slabberjan_v0", {"num_players": 4}, hide, reveal) > 20


def test_slabberjan_private_view_names_the_piece_held():
    env = cardenvs.env("slabberjan_v0", num_players=3)
    env.reset(seed=0, options={"deal": {"dealer": 2, "pieces": ["knight", "7", "fool"]}})
    assert _private(env, 0).startswith("player_0 (you): you hold the knight (dealt the knight this round)")
    assert "the 7" in _private(env, 1) and "knight" not in _private(env, 1) and "fool" not in _private(env, 1)


def _gin_hand(state, seat):
    return [c for c in range(GIN_CARDS) if state.location[c] == LOC_HAND + seat]


def test_gin_slaughtre_private_view_shows_own_hand_only():
    def hide(state, player):
        other = 1 - player
        hidden = [c for c in _gin_hand(state, other) if not state.known[c]]
        stock = [c for c in range(GIN_CARDS) if state.location[c] == LOC_STOCK]
        state.pending_arrangement[other] = 7 if state.pending_arrangement[other] != 7 else 8
        if hidden and stock:  # an unknown card of the opponent's hand trades places with one in the stock
            state.location[hidden[0]], state.location[stock[0]] = LOC_STOCK, LOC_HAND + other
        return True

    def reveal(state, player):
        hand = _gin_hand(state, player)
        stock = [c for c in range(GIN_CARDS) if state.location[c] == LOC_STOCK]
        if not hand or not stock:
            return False
        state.location[hand[0]], state.location[stock[0]] = LOC_STOCK, LOC_HAND + player
        return True

    for params in ({}, {"num_downcards": 3, "min_set_size": 2}):
        assert _check_private_view("gin_slaughtre_v0", params, hide, reveal, every=8) > 20


def test_gin_slaughtre_private_view_never_names_the_opponents_hidden_cards():
    for env in _positions("gin_slaughtre_v0", {}, seed=5, every=1):
        state = env.unwrapped.state_record
        for player in (0, 1):
            words = set(_private(env, player).split())
            hidden = [c for c in _gin_hand(state, 1 - player) if not state.known[c]]
            assert not words & {pretty_name(c) for c in hidden}


def test_gin_slaughtre_arrangement_numbers_the_seven_cards_as_the_actions_do():
    env = cardenvs.env("gin_slaughtre_v0")
    env.reset(seed=3)
    state = env.unwrapped.state_record
    seat = int(state.current_player)
    text = _private(env, seat)
    dealt = sorted(c for c in range(GIN_CARDS) if state.location[c] in (LOC_HAND + seat, LOC_UP + seat))
    assert "your cards by id: " + "  ".join(f"#{k + 1} {pretty_name(c)}" for k, c in enumerate(dealt)) in text
    env.step(0)  # upcards = cards #1, #2, #3
    assert f"you chose as upcards (revealed when both have chosen): {' '.join(pretty_name(c) for c in dealt[:3])}" \
        in _private(env, seat)
    assert "you chose" not in _private(env, 1 - seat)


def test_clabber_private_view_shows_own_hand_only():
    def hide(state, player):
        first, second = [s for s in range(4) if s != player][:2]
        state.hand[first], state.hand[second] = state.hand[second], state.hand[first]
        state.dealt[first], state.dealt[second] = state.dealt[second], state.dealt[first]
        return True

    def reveal(state, player):
        if not state.hand[player]:
            return False
        state.hand[player] = int(state.hand[player]) & (int(state.hand[player]) - 1)  # drop its lowest card
        return True

    assert _check_private_view("clabber_v0", {"optional_declare": True}, hide, reveal) > 20


def test_clabber_private_view_never_names_another_seats_cards():
    for env in _positions("clabber_v0", {}, seed=2, every=1):
        state = env.unwrapped.state_record
        for player in range(4):
            words = set(_private(env, player).split())
            for other in range(4):
                if other != player:
                    cards = [c for c in range(24) if (int(state.hand[other]) >> c) & 1]
                    assert not words & {clabber_card_name(c) for c in cards}


@pytest.mark.parametrize("env_id", PUBLIC_ONLY)
def test_games_without_private_information_add_nothing(env_id):
    for env in _positions(env_id, SHORT_GAMES[env_id], seed=0, every=5):
        for player in range(len(env.possible_agents)):
            assert _private(env, player) == ""


# ------------------------------------------------------------------ HumanAgent


def _human(env_id: str, answers: list[str], **params) -> tuple[HumanAgent, CardEnv, list[str]]:
    env = cardenvs.env(env_id, **params)
    shown: list[str] = []
    replies = iter(answers)

    def read(prompt: str) -> str:
        try:
            return next(replies)
        except StopIteration:
            raise EOFError from None

    agent = make_agent("human", env_id, env.unwrapped.layout)
    agent.input_fn, agent.output = read, shown.append
    return agent, env, shown


def test_human_agent_shows_table_private_view_and_numbered_actions_and_reads_a_number():
    agent, env, shown = _human("clabber_v0", ["2"])
    env.reset(seed=3)
    agent.bind(env, env.unwrapped.state_record.current_player)
    assert agent.acts_in_batches is False
    assert agent.act(env.last()[0]) == 25  # the 2nd legal action of the first bid: accept
    text = "\n".join(shown)
    core = env.unwrapped
    assert core.game.render(core.state_record, core.params) in text
    assert _private(env, agent.player) in text
    assert "1  pass" in text and "2  accept" in text


@pytest.mark.parametrize(
    ("answers", "expected", "messages"),
    [
        (["accept"], 25, []),
        (["  ACC "], 25, []),
        (["foo", "0", "3", "", "?", "table", "actions", "p"], 24, [
            "no legal action is called 'foo'", "0 is not in the list", "3 is not in the list",
            "type a number from 1 to 2", HELP_TEXT, "Clabber, deal 1", "1  pass"]),
    ],
)
def test_human_agent_re_prompts_on_bad_input_with_a_message(answers, expected, messages):
    agent, env, shown = _human("clabber_v0", answers)
    env.reset(seed=3)
    agent.bind(env, env.unwrapped.state_record.current_player)
    before = len(shown)
    assert agent.act(env.last()[0]) == expected
    replies = shown[before:]
    for message in messages:
        assert any(message in reply for reply in replies), (message, replies)


def test_human_agent_names_match_without_the_verb_and_ambiguity_is_reported():
    agent, _, _ = _human("clabber_v0", [])
    legal = np.array([0, 4, 18, 22])  # play AC, play 10C, play AS, play 10S
    assert agent.parse("10s", legal) == (22, "")
    assert agent.parse("play as", legal) == (18, "")
    action, message = agent.parse("a", legal)
    assert action is None and "could be play AC, play AS" in message
    action, message = agent.parse("play", legal)
    assert action is None and "could be" in message


@pytest.mark.parametrize("answer", ["q", "QUIT", "exit"])
def test_human_agent_quits_on_q_and_at_end_of_input(answer):
    agent, env, _ = _human("slabberjan_v0", [answer])
    env.reset(seed=0)
    with pytest.raises(QuitGame):
        agent.act(env.last()[0])
    agent, env, _ = _human("slabberjan_v0", [])
    env.reset(seed=0)
    with pytest.raises(QuitGame):
        agent.act(env.last()[0])


@pytest.mark.parametrize("env_id", sorted(SHORT_GAMES))
def test_human_agent_returns_only_legal_actions_whatever_is_typed(env_id):
    rng = np.random.default_rng(7)
    words = ["1", "2", "3", "9", "99", "-1", "0", "play", "p", "s", "slot", "take", "x y", "", "pass", "?", "1.5",
             "actions", "stand", "10", "jh", "a"]
    agent, env, _ = _human(env_id, [], **SHORT_GAMES[env_id])
    agent.input_fn = lambda prompt: str(rng.choice(words))
    env.reset(seed=1)
    for name in env.agent_iter(300):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        agent.bind(env, env.possible_agents.index(name))
        action = agent.act(observation)
        assert observation["action_mask"][action] == 1
        env.step(action)


# ------------------------------------------------------------------ cardenvs play


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    return parser.parse_args(list(argv))


def _run(argv: list[str], answers: Callable[[str], str]) -> tuple[int, str]:
    shown: list[str] = []
    code = play.run(_args(*argv), input_fn=answers, output=lambda text: shown.append(str(text)))
    return code, "\n".join(shown)


@pytest.mark.parametrize("env_id", sorted(SHORT_GAMES))
def test_play_a_whole_game_saves_a_record_that_replays_to_the_same_rewards(env_id, tmp_path):
    import json

    path = tmp_path / "game.json"
    params = json.dumps(SHORT_GAMES[env_id])
    code, text = _run([env_id, "--seed", "4", "--seat", "1", "--opponents", "random", "--params-json", params,
                       "--save", str(path)], lambda prompt: "1")
    assert code == 0
    record = GameRecord.load(path)
    assert record.rewards is not None and record.agents[1] == "human" and record.seed == 4
    final: dict[str, float] = {}
    for _ in replay(record, final_rewards=final):
        pass
    assert list(final.values()) == record.rewards
    assert "final rewards: " + ", ".join(
        f"player_{s}{' (you)' if s == 1 else ''} {r:+g}" for s, r in enumerate(record.rewards)) in text
    assert "you are player_1" in text and "player_0 (random): " in text and "\nyou: " in text


def test_play_quit_abandons_the_game_with_exit_code_0_and_saves_an_unfinished_record(tmp_path):
    path = tmp_path / "quit.json"
    answers = iter(["2", "nonsense", "q"])
    code, text = _run(["clabber_v0", "--seed", "3", "--save", str(path)], lambda prompt: next(answers))
    assert code == 0
    assert "no legal action is called 'nonsense'" in text
    record = GameRecord.load(path)
    taken = len(record.actions)
    assert f"you quit: the game is abandoned after {taken} action{'' if taken == 1 else 's'}\n" in text
    assert record.rewards is None and record.actions[0] == 25 and record.agents[0] == "human"
    assert len(list(replay(record))) == len(record.actions)


@pytest.mark.parametrize("stop", [EOFError, KeyboardInterrupt])
def test_play_end_of_input_and_ctrl_c_quit_cleanly(stop):
    def answer(prompt: str) -> str:
        raise stop

    code, text = _run(["slabberjan_v0", "--seed", "0"], answer)
    assert code == 0 and "the game is abandoned" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["clabber_v0", "--seat", "4"], "--seat must be a seat from 0 to 3"),
        (["clabber_v0", "--seat", "north"], "--seat must be a seat from 0 to 3"),
        (["clabber_v0", "--opponents", "human"], "opponents cannot be 'human'"),
        (["clabber_v0", "--opponents", "random", "heuristic"], "one spec for all or one per other seat (3)"),
        (["clabber_v0", "--opponents", "genius"], "unknown agent 'genius'"),
        (["clabber_v0", "--players", "3"], "unknown parameter(s) num_players"),
        (["slap_v0", "--players", "1"], "num_players=1 is not allowed"),
        (["slap_v0", "--params-json", "{nope"], "--params-json is not valid JSON"),
        (["slap_v0", "--params-json", "[1]"], "--params-json must be a JSON object"),
    ],
)
def test_play_bad_arguments_exit_2_with_a_message(argv, message, capsys):
    code, _ = _run(argv, lambda prompt: "q")
    assert code == 2
    assert message in capsys.readouterr().err


def test_play_seat_random_and_opponents_per_seat():
    code, text = _run(["slabberjan_v0", "--players", "3", "--seed", "5", "--seat", "random",
                       "--opponents", "random", "heuristic"], lambda prompt: "q")
    seat = 5 % 3
    others = [s for s in range(3) if s != seat]
    assert code == 0
    assert f"you are player_{seat}; player_{others[0]} random, player_{others[1]} heuristic" in text


def test_play_as_a_subprocess_reads_stdin_and_never_shows_a_traceback():
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "cardenvs.cli", "play", "clabber_v0", "--seed", "3"]
    done = subprocess.run(command, input="xyz\n9\nacc\n", capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "no legal action is called 'xyz'" in done.stdout and "9 is not in the list" in done.stdout
    assert "you: accept" in done.stdout and "end of input: the game is abandoned" in done.stdout
    assert "player_0 (you): hand " in done.stdout
