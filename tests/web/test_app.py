"""The web table's pages over HTTP (Starlette's test client): bad requests get a clear message and change nothing."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import cardenvs

pytest.importorskip("starlette", reason="the web extra is not installed")
with warnings.catch_warnings():  # Starlette's test client names its preferred HTTP client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from cardenvs.records import GameRecord
from cardenvs.web.app import SESSION_COOKIE, create_app
from cardenvs.web.tables import TABLES_PER_SESSION


@pytest.fixture
def client():
    return TestClient(create_app(checkpoints=None))


def _start(client, env_id="slabberjan_v0", mode="play", **form):
    fields = {"seat": "0", "seed": "7", **{f"agent_{s}": "heuristic" for s in range(8)}, **form}
    response = client.post(f"/{mode}/{env_id}", data=fields, follow_redirects=False)
    assert response.status_code == 303, response.text
    return response.headers["location"]


def _table(client, location):
    return client.app.state.tables.get(client.cookies.get(SESSION_COOKIE), location.split("/")[-1], "live")


def test_the_front_page_lists_every_game_with_its_pages(client):
    page = client.get("/").text
    for env_id in cardenvs.available_envs():
        assert f'href="/play/{env_id}"' in page and f'href="/watch/{env_id}"' in page


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_every_game_opens_its_play_and_watch_pages_and_a_watched_game_plays_to_its_end(client, env_id):
    assert client.get(f"/play/{env_id}").status_code == 200
    assert client.get(f"/watch/{env_id}").status_code == 200
    location = _start(client, env_id, mode="watch", short="1", players=str(_players(env_id)))
    table = _table(client, location)
    for view in ("public", "all", "0"):
        assert client.get(f"{location}?view={view}").status_code == 200
    assert client.post(f"{location}/step", data={"query": "view=all"}).status_code == 200
    assert len(table.log) == 1
    assert client.post(f"{location}/end", data={}).status_code == 200 and table.over
    assert 'id="result"' in client.get(location).text


def _players(env_id: str) -> int:
    game = cardenvs.get_game(env_id)
    return game.num_players(game.make_params())


def test_an_unknown_game_is_refused_with_the_list_of_games(client):
    for response in (client.get("/play/poker_v0"), client.post("/watch/poker_v0", data={})):
        assert response.status_code == 404
        assert "unknown game &#39;poker_v0&#39;; the games are clabber_v0" in response.text


def test_a_game_is_kept_per_browser_session_and_a_reload_shows_the_same_table(client):
    location = _start(client)
    first = client.get(location).text
    assert client.get(location).text == first
    stranger = TestClient(client.app)  # another browser: no cookie, so not its table
    response = stranger.get(location)
    assert response.status_code == 404 and "not open in this browser session" in response.text


def test_an_illegal_action_is_refused_and_changes_nothing(client):
    location = _start(client, "gin_slaughtre_v0")
    table = _table(client, location)
    before, log = table.env.state_record.tobytes(), len(table.log)
    mask = table.env.observe(table.env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    for action in (str(illegal), "x", "-1", "100000"):
        response = client.post(f"{location}/play", data={"action": action})
        assert response.status_code == 400 and 'id="error"' in response.text
        assert table.env.state_record.tobytes() == before and len(table.log) == log
    assert "is not legal now; the legal actions are" in client.post(f"{location}/play",
                                                                   data={"action": str(illegal)}).text


def test_a_legal_action_moves_the_game_and_the_agents_play_until_the_person_s_turn(client):
    location = _start(client, "clabber_v0", short="1")
    table = _table(client, location)
    while not table.over:
        assert table.to_act == 0
        action = table.legal_actions()[0][0]
        assert client.post(f"{location}/play", data={"action": str(action)}).status_code == 200
    record = GameRecord.from_dict(json.loads(client.get(f"{location}/record.json").text))
    assert record.rewards == table.rewards() and record.actions == table.record.actions
    assert record.agents == ["human", "heuristic", "heuristic", "heuristic"]


def test_only_offered_agents_can_be_seated(client):
    for spec in ("ppo:/etc/passwd", "human", "rllib:x"):
        response = client.post("/play/slap_v0", data={"seat": "0", "agent_1": spec, "agent_2": "random",
                                                      "agent_3": "random"})
        assert response.status_code == 400 and "is not offered" in response.text
    response = client.post("/play/slap_v0", data={"seat": "9"})
    assert response.status_code == 400 and "your seat must be a whole number from 0 to 3" in response.text


def test_a_corrupt_upload_is_refused_with_the_reason(client):
    good = GameRecord("slap_v0", {"num_players": 2}, 1, actions=[0, 0]).to_dict()
    cases = {
        b"\xff\xfe not json": "is not a JSON game record",
        b"[1, 2]": "is not a cardenvs game record",
        json.dumps({"format": 1, "env_id": "slap_v0"}).encode(): "game record lacks params, seed, actions",
        json.dumps({**good, "env_id": "go_v0"}).encode(): "records an unknown game",
        json.dumps({**good, "actions": [5]}).encode(): "cannot be replayed: record action 0 (5) is not legal",
    }
    for body, message in cases.items():
        response = client.post("/replay", files={"record": ("game.json", body, "application/json")})
        assert response.status_code == 400 and message in response.text.replace("&#39;", "'"), body
    assert "choose a record file" in client.post("/replay", data={}).text


def test_a_replay_steps_forwards_and_back_and_refuses_a_step_outside_it(client):
    record = GameRecord("slap_v0", {"num_players": 2, "max_cards_played": 20}, 4)
    env = record.new_env()
    while env.agents:
        observation, _, done, cut, _ = env.last()
        action = None if done or cut else int(np.flatnonzero(observation["action_mask"])[0])
        if action is not None:
            record.actions.append(action)
        env.step(action)
    response = client.post("/replay", files={"record": ("r.json", json.dumps(record.to_dict()).encode())},
                           follow_redirects=False)
    location = response.headers["location"].split("?")[0]
    steps = len(record.actions)
    assert f'data-step="{steps}" data-steps="{steps}"' in client.get(f"{location}?step={steps}").text
    assert 'data-step="1"' in client.get(f"{location}?step=1&view=0").text
    response = client.get(f"{location}?step={steps + 1}")
    assert response.status_code == 400 and f"step must be a whole number from 0 to {steps}" in response.text


def test_a_session_keeps_a_bounded_number_of_tables(client):
    locations = [_start(client) for _ in range(TABLES_PER_SESSION + 1)]
    assert client.get(locations[0]).status_code == 404
    assert client.get(locations[-1]).status_code == 200


def test_the_slap_log_keeps_a_window_s_choices_secret_until_it_closes(client):
    location = _start(client, "slap_v0", seat="1")
    page = client.get(location).text
    assert "chooses (shown when the window closes)" in page
    assert ": slap\n" not in page and ": pass\n" not in page


def test_serve_refuses_a_bad_port_or_checkpoint_folder_with_a_message(tmp_path, capsys):
    from cardenvs.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be from 1 to 65535" in capsys.readouterr().err
    assert main(["serve", "--checkpoints", str(tmp_path / "missing")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_serve_listens_on_this_machine_only_by_default():
    from cardenvs.cli import build_parser

    assert build_parser().parse_args(["serve"]).host == "127.0.0.1"
