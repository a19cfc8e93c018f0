"""Game records (cardenvs.records) and ``cardenvs replay``: round trips, exact replays, and bad files refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cardenvs
from cardenvs.cli import main
from cardenvs.records import GameRecord, play_recorded, replay


def _played(env_id: str = "slabberjan_v0", seed: int = 2, **params) -> GameRecord:
    """A whole game of seeded random play, recorded."""
    rng = np.random.default_rng(seed)
    seats = len(cardenvs.env(env_id, **params).possible_agents)
    return play_recorded(env_id, params, seed, lambda _, observation: rng.choice(
        np.flatnonzero(observation["action_mask"])), agents=["random"] * seats)


@pytest.fixture(scope="module")
def record() -> GameRecord:
    return _played(num_players=3)


def test_a_record_survives_save_and_load(record, tmp_path):
    path = tmp_path / "game.json"
    record.save(path)
    assert GameRecord.load(path) == record
    assert json.loads(path.read_text())["format"] == 1


def test_replay_reaches_the_recorded_end_with_the_recorded_rewards(record):
    final: dict[str, float] = {}
    steps = list(replay(record, final_rewards=final))
    assert [action for _, _, action in steps] == record.actions
    assert list(final.values()) == record.rewards
    env = steps[-1][0]
    assert env.unwrapped.state_record.terminated


def test_replay_of_a_deal_record_starts_from_the_deal():
    deal = {"dealer": 1, "pieces": ["knight", "fool", "cat"]}
    record = GameRecord("slabberjan_v0", {"num_players": 3}, 0, actions=[], deal=deal)
    env = record.new_env()
    assert env.unwrapped.state_record.piece.tolist() == [20, 0, 18]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(actions=d["actions"] + [0]), "the game ended after"),
        (lambda d: d.update(rewards=[9.0] * len(d["rewards"])), "differ from the record's"),
        (lambda d: d["actions"].__setitem__(0, 7), "record action 0 (7) is not legal"),
    ],
)
def test_replay_refuses_a_record_that_does_not_fit_its_game(record, change, message):
    data = record.to_dict()
    change(data)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        list(replay(GameRecord.from_dict(data)))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"format": 2}, "not a cardenvs game record of format 1"),
        ({"format": 1, "env_id": "slap_v0"}, "game record lacks params, seed, actions"),
        ({"format": 1, "env_id": "slap_v0", "params": {}, "seed": 1, "actions": [], "moves": []}, "unknown field"),
        ({"format": 1, "env_id": 3, "params": {}, "seed": 1, "actions": []}, "'env_id' must be a string"),
        ({"format": 1, "env_id": "slap_v0", "params": [], "seed": 1, "actions": []}, "'params' must be an object"),
        ({"format": 1, "env_id": "slap_v0", "params": {}, "seed": "1", "actions": []}, "'seed' must be an integer"),
        ({"format": 1, "env_id": "slap_v0", "params": {}, "seed": 1, "actions": [1, "x"]}, "list of integers"),
        ({"format": 1, "env_id": "slap_v0", "params": {}, "seed": 1, "actions": [True]}, "list of integers"),
        ({"format": 1, "env_id": "slap_v0", "params": {}, "seed": 1, "actions": [], "rewards": "1"}, "numbers"),
    ],
)
def test_from_dict_refuses_malformed_records(data, message):
    with pytest.raises(ValueError, match=message):
        GameRecord.from_dict(data)


# ------------------------------------------------------------------ cardenvs replay


def test_replay_command_prints_every_step_named_and_the_final_rewards(record, tmp_path, capsys):
    path = tmp_path / "game.json"
    record.save(path)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    game = cardenvs.get_game(record.env_id)
    params = game.make_params(**record.params)
    steps = [line for line in out.splitlines() if line.startswith("step ")]
    assert len(steps) == len(record.actions)
    for number, (line, action) in enumerate(zip(steps, record.actions, strict=True), start=1):
        assert line.startswith(f"step {number}: player_")
        assert line.endswith(f" chooses {game.action_name(params, action)} ({action})")
    assert out.count("Slabberjan, round") == len(record.actions) + 1  # a table before each step and at the end
    assert out.rstrip().endswith(
        "final rewards: " + ", ".join(f"player_{s} {r:+g}" for s, r in enumerate(record.rewards)))


def test_replay_command_with_a_seat_shows_its_private_view(record, tmp_path, capsys):
    path = tmp_path / "game.json"
    record.save(path)
    assert main(["replay", str(path), "--seat", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("player_2 (you): ") == len(record.actions) + 1
    assert "player_0 (you)" not in out
    assert main(["replay", str(path), "--seat", "3"]) == 2
    assert "--seat must be a seat from 0 to 2" in capsys.readouterr().err


def test_replay_command_of_an_unfinished_record_says_so(tmp_path, capsys):
    path = tmp_path / "part.json"
    GameRecord("clabber_v0", {}, 3, actions=[24, 25]).save(path)
    assert main(["replay", str(path)]) == 0
    assert "the record ends here, after 2 actions: the game was not finished" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "cannot read a game record"),
        ("[1, 2]", "is not a cardenvs game record"),
        ('{"format": 1, "env_id": "chess_v0", "params": {}, "seed": 1, "actions": []}', "unknown env id 'chess_v0'"),
        ('{"format": 1, "env_id": "clabber_v0", "params": {"num_players": 3}, "seed": 1, "actions": []}',
         "unknown parameter(s) num_players"),
        ('{"format": 1, "env_id": "clabber_v0", "params": {}, "seed": 3, "actions": [24, 0]}',
         "record action 1 (0) is not legal for player_1"),
        ('{"format": 1, "env_id": "slabberjan_v0", "params": {}, "seed": 3, "actions": [], "deal": {"x": 1}}',
         "unknown deal keys"),
    ],
)
def test_replay_command_refuses_bad_files_with_a_message_and_exit_code_1(content, message, tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_replay_command_refuses_a_missing_file(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "none.json")]) == 1
    assert "cannot read a game record" in capsys.readouterr().err
