"""The web table's pages over HTTP (Starlette's test client): bad requests get a clear message and change nothing."""

from __future__ import annotations

import html
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import cardenvs

pytest.importorskip("starlette", reason="the web extra is not installed")
with warnings.catch_warnings():  # Starlette's test client names its preferred HTTP client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from cardenvs.records import GameRecord
from cardenvs.web.app import SESSION_COOKIE, create_app
from cardenvs.web.tables import TABLES_PER_SESSION, table_games
from tests.web.web_helpers import act, page_token, session_token, start, table_of, upload


@pytest.fixture
def client():
    return TestClient(create_app(checkpoints=None))


_start = start
_table = table_of


def test_the_front_page_lists_every_game_with_its_pages(client):
    page = client.get("/").text
    for env_id in table_games():
        assert f'href="/play/{env_id}"' in page and f'href="/watch/{env_id}"' in page


@pytest.mark.parametrize("env_id", table_games())
def test_every_game_opens_its_play_and_watch_pages_and_a_watched_game_plays_to_its_end(client, env_id):
    assert client.get(f"/play/{env_id}").status_code == 200
    assert client.get(f"/watch/{env_id}").status_code == 200
    location = _start(client, env_id, mode="watch", short="1", players=str(_players(env_id)))
    table = _table(client, location)
    for view in ("public", "all", "0"):
        assert client.get(f"{location}?view={view}").status_code == 200
    assert act(client, location, "step", query="view=all").status_code == 200
    assert len(table.log) == table.decisions == 1
    assert act(client, location, "end").status_code == 200 and table.over
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
        response = act(client, location, "play", action=action)
        assert response.status_code == 400 and 'id="error"' in response.text
        assert table.env.state_record.tobytes() == before and len(table.log) == log
    assert "is not legal now; the legal actions are" in act(client, location, "play", action=str(illegal)).text


def test_a_legal_action_moves_the_game_and_the_agents_play_until_the_person_s_turn(client):
    location = _start(client, "clabber_v0", short="1")
    table = _table(client, location)
    while not table.over:
        assert table.to_act == 0
        action = table.legal_actions()[0][0]
        assert act(client, location, "play", action=str(action)).status_code == 200
    record = GameRecord.from_dict(json.loads(client.get(f"{location}/record.json").text))
    assert record.rewards == table.rewards() and record.actions == table.record.actions
    assert record.agents == ["human", "heuristic", "heuristic", "heuristic"]


def test_only_offered_agents_can_be_seated(client):
    client.get("/play/slap_v0")
    token = session_token(client)
    for spec in ("ppo:/etc/passwd", "human", "rllib:x"):
        response = client.post("/play/slap_v0", data={"token": token, "seat": "0", "agent_1": spec,
                                                      "agent_2": "random", "agent_3": "random"})
        assert response.status_code == 400 and "is not offered" in response.text
    response = client.post("/play/slap_v0", data={"token": token, "seat": "9"})
    assert response.status_code == 400 and "your seat must be a whole number from 0 to 3" in response.text


def test_a_corrupt_upload_is_refused_with_the_reason(client):
    good = GameRecord("slap_v0", {"num_players": 2}, 1, actions=[0, 0]).to_dict()
    cases = {
        b"\xff\xfe not json": "is not a JSON game record",
        b"[1, 2]": "is not a cardenvs game record",
        json.dumps({"format": 1, "env_id": "slap_v0"}).encode(): "game record lacks params, seed, actions",
        json.dumps({**good, "env_id": "go_v0"}).encode(): "records a game the table does not serve",
        json.dumps({**good, "actions": [5]}).encode(): "cannot be replayed: record action 0 (5) is not legal",
    }
    client.get("/replay")
    for body, message in cases.items():
        response = upload(client, body)
        assert response.status_code == 400 and message in response.text.replace("&#39;", "'"), body
    assert "choose a record file" in client.post("/replay", data={"token": session_token(client)}).text


def test_a_replay_steps_forwards_and_back_and_refuses_a_step_outside_it(client):
    record = GameRecord("slap_v0", {"num_players": 2, "max_cards_played": 20}, 4)
    env = record.new_env()
    while env.agents:
        observation, _, done, cut, _ = env.last()
        action = None if done or cut else int(np.flatnonzero(observation["action_mask"])[0])
        if action is not None:
            record.actions.append(action)
        env.step(action)
    response = upload(client, json.dumps(record.to_dict()).encode(), "r.json", follow_redirects=False)
    location = response.headers["location"]
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


# ---------------------------------------------------------------- fair play
SVG = "{http://www.w3.org/2000/svg}"


def _seat_cards(page: str) -> dict[int, list[str]]:
    """Each seat's cards (``data-card``, ``back`` face down) in the page's table picture."""
    import xml.etree.ElementTree as ElementTree

    match = re.search(r"<svg.*?</svg>", page, re.S)
    assert match, "the page has no table picture"
    root = ElementTree.fromstring(match.group())
    return {int(g.get("data-seat")): [c.get("data-card") for c in g.iter(f"{SVG}g") if c.get("class") == "card"]
            for g in root.iter(f"{SVG}g") if g.get("class") == "seat"}


def _hidden_from(table, seat: int) -> dict[int, set[str]]:
    """The engine's cards of the other seats that ``seat`` may not see: shown with every hand open, not in the
    engine's picture of what ``seat`` sees."""
    everything = _seat_cards(table.env.table_svg(open_hands=True))
    own = _seat_cards(table.env.table_svg(seat=seat))
    return {other: set(everything[other]) - set(own[other]) - {"back"} for other in everything if other != seat}


def _private_texts(table, seat: int) -> list[str]:
    """The engine's private text of every other seat that differs from what ``seat`` sees."""
    state, params, game = table.env.state_record, table.params, table.game
    own = game.render_private(state, params, seat)
    return [text for other in range(table.num_players) if other != seat
            for text in [game.render_private(state, params, other)] if text and text != own]


@pytest.mark.parametrize("env_id", table_games())
def test_nothing_a_person_requests_during_their_game_shows_a_hidden_card(client, env_id):
    location = _start(client, env_id, seat="1", players=str(_players(env_id)))
    table = _table(client, location)
    session = client.cookies.get(SESSION_COOKIE)
    tables_before = len(client.app.state.tables._sessions[session])
    hidden = _hidden_from(table, 1)
    private = _private_texts(table, 1)
    if env_id in ("clabber_v0", "gin_slaughtre_v0"):  # hands the others may not see at the start
        assert any(hidden.values()) or private, "the check needs a position with hidden cards"
    views = ["", "public", "all", "ALL", "-1", "99", "x", *map(str, range(table.num_players))]
    responses = [client.get(f"{location}?view={view}") for view in views]
    token = session_token(client)
    responses += [client.get(f"{location}?view=all&view=0"), client.get(f"{location}?speed=10&view=all"),
                  client.get(f"{location}/record.json"), client.post(f"{location}/replay", data={"token": token}),
                  act(client, location, "step", query="view=all"), act(client, location, "end", query="view=0"),
                  act(client, location, "play", action="-5"),
                  client.get(f"/replay/{location.split('/')[-1]}?view=all")]
    for response in responses:
        assert response.status_code < 500
        text = response.text
        assert not text.lstrip().startswith("{"), "a record of the unfinished game"
        for words in private:
            assert words not in text
        if "<svg" in text:
            for other, cards in _seat_cards(text).items():
                if other != 1:
                    assert not set(cards) & hidden[other], (response.url, other, set(cards) & hidden[other])
    assert client.get(f"{location}?view=all").status_code == 403
    assert client.get(f"{location}/record.json").status_code == 403
    assert len(client.app.state.tables._sessions[session]) == tables_before  # no replay table was opened


def test_every_view_record_and_replay_opens_once_the_person_s_game_is_over(client):
    location = _start(client, "clabber_v0", short="1")
    table = _table(client, location)
    while not table.over:
        act(client, location, "play", action=str(table.legal_actions()[0][0]))
    for view in ("all", "1", "public"):
        assert client.get(f"{location}?view={view}").status_code == 200
    record = json.loads(client.get(f"{location}/record.json").text)
    assert record["actions"] == table.record.actions
    response = client.post(f"{location}/replay", data={"token": session_token(client)}, follow_redirects=False)
    assert response.status_code == 303


def test_a_watched_table_keeps_its_open_views(client):
    location = _start(client, "gin_slaughtre_v0", mode="watch")
    table = _table(client, location)
    page = client.get(f"{location}?view=all").text
    shown = _seat_cards(page)
    assert shown == _seat_cards(table.env.table_svg(open_hands=True)) and "back" not in shown[0] + shown[1]
    assert client.get(f"{location}/record.json").status_code == 200


# ---------------------------------------------------------------- requests that must not break anything
def test_numbers_are_bounded_in_length_and_ascii_digits_only(client):
    location = _start(client, "gin_slaughtre_v0")
    table = _table(client, location)
    before = table.env.state_record.tobytes()
    long_number = "1" * 5000
    token = session_token(client)
    for response in (client.get(f"{location}?view={long_number}"), client.get(f"{location}?speed={long_number}"),
                     act(client, location, "play", action=long_number),
                     act(client, location, "play", action="١"),  # an Arabic-Indic digit one
                     act(client, location, "play", action="1", decision=long_number),
                     client.get(f"/play/slap_v0?players={long_number}"), client.get("/play/slap_v0?players=٣"),
                     client.post("/play/slap_v0", data={"token": token, "seat": "0", "seed": long_number}),
                     client.post("/play/slap_v0", data={"token": token, "seat": "٠", "seed": "1"})):
        assert response.status_code == 400 and 'id="error"' in response.text, response.text[-300:]
        assert "whole number" in response.text and long_number not in response.text
    assert table.env.state_record.tobytes() == before


_upload = upload


def test_hostile_records_are_refused_with_the_app_s_page(client):
    good = GameRecord("slap_v0", {"num_players": 2}, 1, actions=[0, 0]).to_dict()
    client.get("/replay")
    cases = {
        b"[" * 100_000 + b"]" * 100_000: "nests its JSON",
        json.dumps(good).replace('"seed": 1', '"seed": ' + "1" * 5000).encode(): "digits",
        json.dumps({**good, "agents": ["x" * 300_000, "y"]}).encode(): "characters",
        json.dumps({**good, "actions": [0] * 70_000}).encode(): "items",
        json.dumps({**good, "rewards": [float("nan"), 0]}).encode(): "is not a number",
        json.dumps({**good, "params": {"num_players": 2, "deck": {"a": [[[]]]}}}).encode(): "unknown parameter",
    }
    for body, message in cases.items():
        response = _upload(client, body)
        assert 400 <= response.status_code < 500 and message in response.text, (message, response.text[-400:])


def test_an_upload_is_bounded_while_it_streams(client):
    from cardenvs.web.app import MAX_UPLOAD_BYTES

    client.get("/replay")
    response = _upload(client, b" " * (MAX_UPLOAD_BYTES + 1))
    assert response.status_code == 413 and 'id="error"' in response.text

    def chunks():  # no Content-Length: the server counts the bytes as they come
        for _ in range(MAX_UPLOAD_BYTES // 65536 + 2):
            yield b"x" * 65536

    response = client.post("/replay", content=chunks(),
                           headers={"content-type": "multipart/form-data; boundary=b"})
    assert response.status_code == 413 and "larger than this form takes" in response.text


def test_a_corrupt_form_body_gets_the_app_s_page(client):
    client.get("/replay")
    cut_off = b'--b\r\nContent-Disposition: form-data; name="record"; filename="a"\r\n\r\nxx'
    for body, content_type in ((cut_off, "multipart/form-data; boundary=b"), (b"garbage", "multipart/form-data"),
                               (b"\xff\xfe=%%%", "application/x-www-form-urlencoded")):
        response = client.post("/replay", content=body, headers={"content-type": content_type})
        assert 400 <= response.status_code < 500 and 'id="error"' in response.text, response.text[:200]


def test_requests_without_a_session_start_nothing_and_push_nobody_out(client):
    location = _start(client)
    stranger = TestClient(client.app)
    for _ in range(5):
        response = stranger.post("/play/slap_v0", data={"seat": "0", "agent_1": "random", "agent_2": "random",
                                                        "agent_3": "random"}, follow_redirects=False)
        assert response.status_code == 403 and "open the game" in response.text
        stranger.cookies.clear()
    assert client.app.state.tables.footprint() == _table(client, location).footprint()
    assert client.get(location).status_code == 200


def test_a_session_s_kept_bytes_are_bounded(client, monkeypatch):
    import cardenvs.web.tables as tables

    first = _start(client)
    monkeypatch.setattr(tables, "SESSION_BYTES_KEPT", int(_table(client, first).footprint() * 2.5))
    locations = [_start(client) for _ in range(3)]
    session = client.cookies.get(SESSION_COOKIE)
    assert client.app.state.tables.footprint(session) <= tables.SESSION_BYTES_KEPT
    assert client.get(first).status_code == 404 and client.get(locations[-1]).status_code == 200


def test_every_page_carries_the_security_headers(client):
    for response in (client.get("/"), client.get("/nowhere"), client.post("/"), client.get("/replay")):
        policy = response.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        assert 'id="error"' in response.text or response.status_code == 200


def test_a_loopback_server_refuses_another_host_name():
    from cardenvs.web.app import LOOPBACK_HOSTS

    app = create_app(checkpoints=None, allowed_hosts=LOOPBACK_HOSTS)
    assert TestClient(app, base_url="http://127.0.0.1:8000").get("/").status_code == 200
    assert TestClient(app, base_url="http://localhost:8000").get("/").status_code == 200
    response = TestClient(app, base_url="http://attacker.example:8000").get("/")
    assert response.status_code == 400 and "answers only to" in response.text


def test_error_pages_do_not_show_the_server_s_checkpoint_folder(tmp_path):
    from cardenvs.agents.registry import SHIPPED_CHECKPOINTS

    folder = tmp_path / "secret_models"
    folder.mkdir()
    (folder / "slap_v0.pt").write_bytes((SHIPPED_CHECKPOINTS / "slap_v0.pt").read_bytes()[:1000])  # corrupt
    client = TestClient(create_app(checkpoints=folder))
    pages = [client.get("/"), client.get("/play/slap_v0")]
    pages.append(client.post("/play/slap_v0", data={"token": session_token(client), "seat": "0",
                                                    "agent_1": "trained"}))
    for page in pages:
        assert str(tmp_path) not in page.text and "secret_models" not in page.text


def test_serve_says_a_port_is_in_use_before_claiming_the_server_is_up(capsys):
    import socket

    from cardenvs.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--checkpoints", str(Path(__file__).parent)]) == 1
    out, err = capsys.readouterr()
    assert "the card table is at" not in out and f"cannot listen on 127.0.0.1:{port}: the port is in use" in err


def test_serve_warns_when_it_listens_beyond_this_machine_and_prints_an_address_to_open():
    from cardenvs.commands.serve import browser_url, is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert "0.0.0.0" not in browser_url("0.0.0.0", 8000) and browser_url("::1", 80) == "http://[::1]:80/"


# ---------------------------------------------------------------- a game a person can follow
def test_the_move_list_shows_every_decision_since_the_person_s_last_turn_with_the_pictures_card_names(client):
    location = _start(client, "clabber_v0", short="1")
    table = _table(client, location)
    while not table.over:
        decided = table.decisions
        action = table.legal_actions()[0][0]
        page = act(client, location, "play", action=str(action)).text
        steps = [int(step) for step in re.findall(r'class="move" data-step="(\d+)"', page)]
        assert steps == list(range(decided, table.decisions))  # own decision first, none left out
        assert re.search(r"\b(10|[2-9AKQJ])[CDHS]\b", page.split('id="log"')[1].split("</ol>")[0]) is None
    page = client.get(location).text
    result = re.search(r'id="result">(.*?)</p>', page, re.S).group(1)
    assert re.search(r"player_\d.* win the hand|A draw", result), result
    assert "one hand played" in result and "the game ends" not in result


def test_clabber_s_forced_plays_appear_in_the_move_list(client):
    from cardenvs.games.clabber.words import move_words

    env = cardenvs.env("clabber_v0", single_hand=True)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    forced = []
    while env.agents:
        observation, _, done, cut, _ = env.last()
        if done or cut:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        before = env.state_record.copy()
        env.step(action)
        forced += [line for line, _ in move_words(before, env.state_record.copy(), env.params, action)
                   if "forced" in line]
    played = sum(len(line.split("plays ")[1].split(" (")[0].split()) for line in forced)
    decisions_played = 24 - played  # every one of the 24 cards is played, by a decision or by force
    assert forced and 0 < decisions_played < 24


def test_gin_slaughtre_arrangements_name_the_cards(client):
    location = _start(client, "gin_slaughtre_v0")
    page = client.get(location).text
    buttons = re.findall(r'data-action="\d+" data-cards="([^"]*)">([^<]*)<', page)
    assert buttons and all(re.fullmatch(r"upcards: (\S+ ){2}\S+", name) for _, name in buttons)
    form = page.split('id="actions"')[1].split("</form>")[0]
    assert all(name == f"upcards: {cards}" for cards, name in buttons) and "#" not in form
    assert 'id="arrange-hint"' in page


def test_the_rules_page_is_linked_and_served_escaped(client):
    page = client.get("/").text
    for env_id in table_games():
        assert f'href="/rules/{env_id}"' in page
        rules = client.get(f"/rules/{env_id}")
        assert rules.status_code == 200 and "<h2>" in rules.text
    assert client.get("/rules/poker_v0").status_code == 404
    location = _start(client, "slap_v0")
    assert 'href="/rules/slap_v0"' in client.get(location).text


def test_player_counts_offer_only_agents_that_can_play_them(tmp_path):
    from cardenvs.agents.registry import SHIPPED_CHECKPOINTS

    pytest.importorskip("torch", reason="the trained agents need torch")
    client = TestClient(create_app(checkpoints=SHIPPED_CHECKPOINTS))
    assert 'value="trained"' in client.get("/play/slap_v0").text
    page = client.get("/play/slap_v0?players=3").text
    assert 'value="trained"' not in page and 'id="no-trained"' in page
    response = client.post("/play/slap_v0", data={"token": session_token(client), "players": "3", "seat": "0",
                                                  "agent_1": "trained", "agent_2": "random"})
    assert response.status_code == 400 and "is not offered" in response.text


def test_the_play_form_asks_no_agent_for_the_person_s_own_seat(client):
    page = client.get("/play/slap_v0?seat=2").text
    assert 'id="agent_2"' not in page and 'id="agent_0"' in page and 'name="seat" id="seat" value="2"' in page


def test_a_replay_names_arrangements_by_their_cards_and_ends_in_words(client):
    record = GameRecord("gin_slaughtre_v0", {"max_turns": 60}, 3)
    env = record.new_env()
    rng = np.random.default_rng(1)
    while env.agents:
        observation, _, done, cut, _ = env.last()
        action = None if done or cut else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        if action is not None:
            record.actions.append(action)
        env.step(action)
    location = upload(client, json.dumps(record.to_dict()).encode(), "r.json",
                      follow_redirects=False).headers["location"]
    first = client.get(f"{location}?step=0").text
    assert re.search(r'id="next-move">Next: player_\d chooses upcards: \S+ \S+ \S+</p>', first), first[-2000:]
    last = client.get(f"{location}?step={len(record.actions)}").text
    assert re.search(r'id="result">Game over: (player_\d wins|A draw)', last)
    unfinished = GameRecord("gin_slaughtre_v0", {}, 3, actions=record.actions[:2])
    location = upload(client, json.dumps(unfinished.to_dict()).encode(), "u.json",
                      follow_redirects=False).headers["location"]
    assert "the game was not finished" in client.get(f"{location}?step=2").text


def test_the_trick_on_the_table_names_who_played_each_card(client):
    from cardenvs.games.clabber.cards import card_name
    from cardenvs.web.words import card_symbols

    location = _start(client, "clabber_v0", short="1")
    table = _table(client, location)
    while not table.over and int(table.env.state_record.leader) < 0:  # through the bidding
        act(client, location, "play", action=str(table.legal_actions()[0][0]))
    captions = 0
    while not table.over:
        act(client, location, "play", action=str(table.legal_actions()[0][0]))
        state = table.env.state_record
        caption = re.search(r'id="trick">Trick: (.*?)</p>', client.get(location).text)
        shown = [entry.split() for entry in caption.group(1).split(" · ")] if caption else []
        leader = int(state.leader)
        expected = [[f"player_{(leader + i) % 4}", card_symbols(card_name(int(card)))]
                    for i, card in enumerate(state.trick) if card >= 0]
        assert shown == expected
        captions += bool(shown)
    assert captions


def test_a_move_list_too_long_to_keep_says_how_many_decisions_it_leaves_out(client, monkeypatch):
    import cardenvs.web.tables as tables

    monkeypatch.setattr(tables, "LOG_LINES_KEPT", 2)
    location = _start(client, "clabber_v0", short="1")
    table = _table(client, location)
    while not table.over and table.decisions - table.log_from <= 2:
        page = act(client, location, "play", action=str(table.legal_actions()[0][0])).text
    left_out = table.decisions - table.log_from - 2
    assert len(table.log) == 2 and f'id="log-cut">… {left_out} earlier decisions' in page
    assert re.findall(r'class="move" data-step="(\d+)"', page) == [str(table.decisions - 2), str(table.decisions - 1)]


# ---------------------------------------------------------------- one decision per turn, no post from elsewhere
def test_a_repeated_or_stale_decision_is_refused_and_changes_nothing(client):
    location = _start(client, "gin_slaughtre_v0", seed="")
    table = _table(client, location)
    decision = table.decisions
    action = str(table.legal_actions()[0][0])
    assert act(client, location, "play", action=action).status_code == 200  # applied: the agents then moved
    state, actions = table.env.state_record.tobytes(), list(table.record.actions)
    repeated = client.post(f"{location}/play", data={"token": session_token(client), "decision": str(decision),
                                                      "action": action})
    assert repeated.status_code == 409 and "this page is out of date" in repeated.text
    ahead = client.post(f"{location}/play", data={"token": session_token(client),
                                                   "decision": str(table.decisions + 5), "action": action})
    assert ahead.status_code == 409
    assert table.env.state_record.tobytes() == state and table.record.actions == actions


def test_forms_without_the_session_s_token_or_from_another_site_are_refused(client):
    location = _start(client, "slap_v0")
    table = _table(client, location)
    state = table.env.state_record.tobytes()
    fields = {"decision": str(table.decisions), "action": "0"}
    for token in (None, "", "x" * 32, "0" * 10_000):
        data = fields if token is None else {**fields, "token": token}
        response = client.post(f"{location}/play", data=data)
        assert response.status_code == 403 and "did not come from a page of this server" in response.text
    good = {**fields, "token": session_token(client)}
    cross_site = ({"origin": "http://127.0.0.1:9999"}, {"origin": "null"}, {"origin": "http://evil.example"},
                  {"sec-fetch-site": "same-site"}, {"sec-fetch-site": "cross-site"},
                  {"origin": "http://testserver:81", "sec-fetch-site": "same-origin"})
    tables_before = len(client.app.state.tables.live_tables())
    for headers in cross_site:
        for url, data in ((f"{location}/play", good), ("/play/slap_v0", {**good, "seat": "0"})):
            response = client.post(url, data=data, headers=headers)
            assert response.status_code == 403 and "another site" in response.text, (headers, url)
    assert table.env.state_record.tobytes() == state
    assert len(client.app.state.tables.live_tables()) == tables_before
    same_origin = client.post(f"{location}/play", data=good, headers={"origin": "http://testserver",
                                                                    "sec-fetch-site": "same-origin"})
    assert same_origin.status_code == 200 and table.decisions > int(fields["decision"])


# ---------------------------------------------------------------- deals that cannot be learnt
def test_a_drawn_deal_comes_from_the_whole_seed_range_and_shows_at_the_end(client):
    from cardenvs.core.rng import SEED_LIMIT

    seeds = []
    for _ in range(8):
        location = _start(client, "slap_v0", seed="", short="1", agent_1="random")
        table = _table(client, location)
        seeds.append(table.record.seed)
        assert 0 <= table.record.seed < SEED_LIMIT and not table.known_deal
        assert str(table.record.seed) not in client.get(location).text  # not while the game is on
    assert max(seeds) >= 2**40  # eight draws all below 2**40 would happen once in 2**192 runs
    while not table.over:
        act(client, location, "play", action=str(table.legal_actions()[0][0]))
    assert f"seed {table.record.seed}" in client.get(location).text


def test_a_known_deal_is_one_the_person_asked_for_and_the_page_says_so(client):
    page = client.get(_start(client, "clabber_v0", seed="12345")).text
    assert 'id="known-deal"' in page and "seed 12345" in page
    assert 'id="known-deal"' not in client.get(_start(client, "clabber_v0", seed="")).text


def test_no_other_route_shows_the_hidden_cards_of_a_deal_a_person_is_playing(client):
    location = _start(client, "clabber_v0", seed="5", short="1")
    player = _table(client, location)
    other = TestClient(client.app)  # another browser: a watcher of the same deal, an uploader of its record
    watched = _start(other, "clabber_v0", mode="watch", seed="5", short="1")
    assert "back" in str(_seat_cards(other.get(watched).text))  # shown as the public table
    for view in ("all", "0", "2"):
        response = other.get(f"{watched}?view={view}")
        assert response.status_code == 403 and "is being played at a table of this server" in response.text
    record = GameRecord("clabber_v0", {"single_hand": True}, 5).to_dict()
    replayed = upload(other, json.dumps(record).encode(), follow_redirects=False).headers["location"]
    assert 'id="deal-in-play"' in other.get(replayed).text
    assert other.get(f"{replayed}?view=all").status_code == 403
    assert other.get(f"{replayed}?view=1").status_code == 403
    while not player.over:  # once the person's game is over, everything opens
        act(client, location, "play", action=str(player.legal_actions()[0][0]))
    assert other.get(f"{watched}?view=all").status_code == 200
    assert other.get(f"{replayed}?view=all").status_code == 200


# ---------------------------------------------------------------- the end of a game
@pytest.mark.parametrize("env_id", table_games())
def test_the_end_shows_every_hand_and_one_sentence_of_the_game_s_own_words(client, env_id):
    location = _start(client, env_id, seed="3", short="1", players=str(_players(env_id)))
    table = _table(client, location)
    while not table.over:
        act(client, location, "play", action=str(table.legal_actions()[-1][0]))
    page = client.get(location).text
    assert _seat_cards(page) == _seat_cards(table.env.table_svg(open_hands=True))  # every hand face up
    names = [f"player_{seat}" + (" (you)" if seat == 0 else "") for seat in range(table.num_players)]
    sentence = table.game.final_words(table.env.state_record, table.params, names)
    result = re.search(r'id="result">Game over: (.*?)</p>', page, re.S).group(1)
    assert result == html.escape(sentence, quote=True) and sentence.count(". ") == 0 and sentence.endswith(".")


def test_the_web_words_name_no_game():
    import inspect

    import cardenvs.web.words as words

    assert "game.name" not in inspect.getsource(words)
    for env_id in table_games():
        game = cardenvs.get_game(env_id)
        assert game.move_words is not None and game.final_words is not None, env_id


# ---------------------------------------------------------------- memory
def test_a_table_counts_its_agents_and_refuses_a_search_larger_than_a_worker_may_take(client):
    from cardenvs.web.tables import AGENT_BYTES, SEARCH_BYTES_LIMIT, TABLE_BASE_BYTES, search_bytes

    searching = _table(client, _start(client, "clabber_v0", mode="watch",
                                      **{f"agent_{seat}": "pimc" for seat in range(4)}))
    assert search_bytes("pimc", searching.env) > 1_000_000  # 64 draws × 32 actions × 4 playouts of a Clabber record
    # the search agents think in worker processes: here only the fallback agent (random legal moves) is kept
    assert searching.footprint() == TABLE_BASE_BYTES + AGENT_BYTES
    huge = "pimc:determinizations=100000,rollouts=64"
    assert search_bytes(huge, searching.env) > SEARCH_BYTES_LIMIT
    app = create_app(checkpoints=None, offered=("heuristic", huge))
    other = TestClient(app)
    page = other.get("/watch/clabber_v0").text
    response = other.post("/watch/clabber_v0", data={"token": page_token(page), "agent_0": huge,
                                                     **{f"agent_{seat}": "heuristic" for seat in range(1, 4)}})
    assert response.status_code == 413 and "more than a thinking process may use" in response.text
    assert not app.state.tables.live_tables()
