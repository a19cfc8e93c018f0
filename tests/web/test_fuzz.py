"""The web table under hostile requests: malformed, oversized and out-of-range values to every route and form
field, corrupt, deep, huge and hostile record uploads, and requests with no or forged session cookies.

A bounded run (:data:`REQUESTS` requests, at most :data:`TIME_LIMIT_SECONDS`) through Starlette's test client,
with the app's exceptions turned into responses instead of raised: no response may be a 5xx, no traceback may
reach the log, the process's memory may grow by at most :data:`MEMORY_GROWTH_BOUND` bytes, and the tables of a
session that was playing before the run must be exactly as they were.
"""

from __future__ import annotations

import json
import logging
import random
import sys
import time
import warnings
from urllib.parse import quote

import pytest

import cardenvs

pytest.importorskip("starlette", reason="the web extra is not installed")
with warnings.catch_warnings():  # Starlette's test client names its preferred HTTP client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from cardenvs.records import GameRecord
from cardenvs.web.app import MAX_UPLOAD_BYTES, SESSION_COOKIE, create_app
from cardenvs.web.tables import SERVER_BYTES_KEPT, table_games

resource = pytest.importorskip("resource", reason="the memory bound is read with the Unix resource module")

#: hostile requests sent (the test asserts at least MIN_HOSTILE of them were sent)
REQUESTS = 1500
MIN_HOSTILE = 1000
#: the run stops sending after this long (the assertions then still hold for what was sent)
TIME_LIMIT_SECONDS = 240
#: how much the process's peak memory may grow over the run
MEMORY_GROWTH_BOUND = 400_000_000
#: uploads larger than the limit, sent now and then (each is read only up to the limit)
OVERSIZED_EVERY = 50

#: values that a form field or query parameter must survive
HOSTILE_VALUES = (
    "", " ", "-1", "0", "1", "3", "63", "64", "-0", "+1", "1.5", "1e3", "0x10", "٣", "１", "²", "1" * 19, "9" * 19,
    "9" * 20, "-" + "9" * 19, "1" * 5000, "1" * 100_000, "\x00", "%00", "%ff", "<script>alert(1)</script>",
    "../../etc/passwd", "ppo:/etc/passwd", "rllib:/tmp", "human", "trained", "random", "heuristic", "all",
    "public", "ALL", "view=all", "view=all&speed=10", "speed=999", "http://evil.example/", "//evil.example",
    "a" * 70_000, "🂡", "None", "null", "true", "NaN", "-inf",
)
FORGED_SESSIONS = ("x", "a" * 4000, "-4WFN_r6fWRgcRgTrd67bg", "%00", "null")
FORM_FIELDS = ("players", "seat", "seed", "short", "action", "query", *(f"agent_{seat}" for seat in range(10)))
QUERY_FIELDS = ("view", "speed", "step", "players", "seat")
METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")


def _hostile_records(rng: random.Random) -> list[bytes]:
    """Record files no record page should choke on: corrupt, deep, huge in every field, hostile values."""
    good = GameRecord("slap_v0", {"num_players": 2}, 1, actions=[0, 0]).to_dict()
    golden = {"golden_format": 1, "record": good, "steps": [{"obs": [[0, 1]] * 3}]}
    records = [
        b"", b"\x00" * 1000, b"\xff\xfe\xfd", b"{", b"}", b"[]", b"null", b"1" * 10_000, b'"' + b"a" * 100_000,
        b"[" * 50_000, b"{\"a\":" * 20_000 + b"1" + b"}" * 20_000, b"[" * 17 + b"]" * 17,
        json.dumps({**good, "seed": -1}).encode(), json.dumps({**good, "seed": 2 ** 70}).encode(),
        json.dumps(good).replace('"seed": 1', '"seed": ' + "7" * 5000).encode(),
        json.dumps({**good, "actions": [-1]}).encode(), json.dumps({**good, "actions": [10 ** 18]}).encode(),
        json.dumps({**good, "actions": [0] * 59_999}).encode(), json.dumps({**good, "actions": "0"}).encode(),
        json.dumps({**good, "params": {"num_players": 10 ** 9}}).encode(),
        json.dumps({**good, "params": {"num_players": "x"}}).encode(),
        json.dumps({**good, "params": {"max_cards_played": -5}}).encode(),
        json.dumps({**good, "params": {"x" * 200: 1}}).encode(), json.dumps({**good, "deal": {"stacks": "x"}}).encode(),
        json.dumps({**good, "deal": [[1] * 1000] * 50}).encode(),
        json.dumps({**good, "agents": ["a" * 250] * 50}).encode(),
        json.dumps({**good, "rewards": [1e308, -1e308]}).encode(), json.dumps({**good, "format": 2}).encode(),
        json.dumps({**good, "env_id": "../../x"}).encode(), json.dumps({**good, "extra": 1}).encode(),
        json.dumps(golden).encode(), json.dumps({**golden, "record": [good]}).encode(),
        b'{"format": 1, "env_id": "slap_v0", "params": {}, "seed": NaN, "actions": []}',
        b'{"format": 1, "env_id": "slap_v0", "params": {}, "seed": 1, "actions": [Infinity]}',
    ]
    for env_id in cardenvs.available_envs():
        game = cardenvs.get_game(env_id)
        actions = [rng.randrange(-3, 600) for _ in range(rng.randrange(1, 40))]
        records.append(json.dumps({"format": 1, "env_id": env_id, "params": dict(game.quick_params), "seed": 3,
                                   "actions": actions, "deal": {key: [0] for key in game.deal_keys} or None}).encode())
    return records


def _victim_game(client: TestClient) -> str:
    """A session playing a game before the run: the location of its table."""
    client.get("/play/clabber_v0")
    response = client.post("/play/clabber_v0", data={"seat": "0", "seed": "5", "short": "1", "agent_1": "heuristic",
                                                     "agent_2": "random", "agent_3": "heuristic"},
                           follow_redirects=False)
    assert response.status_code == 303
    return response.headers["location"]


def _snapshot(client: TestClient, location: str) -> tuple:
    table = client.app.state.tables.get(client.cookies.get(SESSION_COOKIE), location.split("/")[-1], "live")
    return table.env.state_record.tobytes(), list(table.record.actions), len(table.log), table.decisions


class _Fuzzer:
    """Builds and sends the hostile requests; counts them and the statuses."""

    def __init__(self, client: TestClient, rng: random.Random, table_ids: list[str]):
        self.client, self.rng, self.table_ids = client, rng, table_ids
        self.records = _hostile_records(rng)
        self.sent = 0
        self.statuses: dict[int, int] = {}
        self.failures: list[str] = []

    def value(self) -> str:
        return self.rng.choice(HOSTILE_VALUES)

    def path(self) -> str:
        env_id = self.rng.choice([*cardenvs.available_envs(), "poker_v0", "../x", "%2e%2e", "a" * 3000, ""])
        table_id = self.rng.choice([*self.table_ids, "x", "a" * 3000, "%00", ""])
        return self.rng.choice([
            "/", f"/play/{env_id}", f"/watch/{env_id}", f"/rules/{env_id}", "/replay", f"/replay/{table_id}",
            f"/table/{table_id}", f"/table/{table_id}/record.json", f"/table/{table_id}/replay",
            f"/table/{table_id}/{self.rng.choice(['play', 'step', 'end', 'x', 'record.json'])}", "/nowhere",
            "/" + "a/" * 500, "/static/../../etc/passwd",
        ])

    def send(self, method: str, url: str, **kwargs) -> None:
        if self.rng.random() < 0.2:  # no cookie, or a forged one
            self.client.cookies.clear()
            if self.rng.random() < 0.5:
                self.client.cookies.set(SESSION_COOKIE, self.rng.choice(FORGED_SESSIONS))
        response = self.client.request(method, url, **kwargs)
        self.sent += 1
        self.statuses[response.status_code] = self.statuses.get(response.status_code, 0) + 1
        if response.status_code >= 500 or "Traceback" in response.text:
            self.failures.append(f"{method} {url[:120]} -> {response.status_code}: {response.text[-300:]}")

    def one(self) -> None:
        kind = self.rng.random()
        query = "&".join(f"{self.rng.choice(QUERY_FIELDS)}={quote(self.value()[:3000], safe='=&/:')}"
                         for _ in range(self.rng.randrange(0, 4)))
        url = self.path() + (f"?{query}" if query else "")
        if kind < 0.35:
            self.send(self.rng.choice(METHODS), url)
        elif kind < 0.7:
            form = {self.rng.choice(FORM_FIELDS): self.value() for _ in range(self.rng.randrange(0, 8))}
            self.send("POST", url, data=form)
        elif kind < 0.8:
            body = self.rng.choice([b"\xff" * 100, b"a=%%%&&==", b"--x\r\n\r\n", b"x" * 20_000, b""])
            content_type = self.rng.choice(["multipart/form-data", "multipart/form-data; boundary=x",
                                            "application/x-www-form-urlencoded", "text/plain", "application/json"])
            self.send("POST", url, content=body, headers={"content-type": content_type})
        else:
            self.client.get("/replay")  # a session for the upload (sometimes dropped again by send)
            oversized = self.sent % OVERSIZED_EVERY == 0
            body = b" " * (MAX_UPLOAD_BYTES + 1) if oversized else self.rng.choice(self.records)
            name = self.rng.choice(["r.json", "", "a" * 5000, "../../x.json", "\x00.json"])
            self.send("POST", "/replay", files={"record": (name, body, "application/json")})


def test_a_thousand_hostile_requests_break_nothing_and_disturb_no_session(caplog, capfd):
    app = create_app(checkpoints=None)
    victim = TestClient(app)
    location = _victim_game(victim)
    table = app.state.tables.get(victim.cookies.get(SESSION_COOKIE), location.split("/")[-1], "live")
    for _ in range(2):  # a few moves, so that the table has a history
        victim.post(f"{location}/play", data={"action": str(table.legal_actions()[0][0])})
    before = _snapshot(victim, location)
    page_before = victim.get(location).text

    client = TestClient(app, raise_server_exceptions=False)
    client.get("/")
    fuzzer = _Fuzzer(client, random.Random(27), [location.split("/")[-1], "abc"])
    for env_id in table_games():  # the fuzzer's own games, so that table routes see real tables
        client.get(f"/watch/{env_id}")
        response = client.post(f"/watch/{env_id}", data={f"agent_{s}": "random" for s in range(8)},
                                follow_redirects=False)
        if response.status_code == 303:
            fuzzer.table_ids.append(response.headers["location"].split("/")[-1])
    caplog.set_level(logging.WARNING)
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * _RSS_UNIT
    deadline = time.monotonic() + TIME_LIMIT_SECONDS
    while fuzzer.sent < REQUESTS and time.monotonic() < deadline:
        fuzzer.one()
    peak_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * _RSS_UNIT

    assert fuzzer.sent >= MIN_HOSTILE, f"only {fuzzer.sent} requests within {TIME_LIMIT_SECONDS} s"
    assert not fuzzer.failures, "\n".join(fuzzer.failures[:5])
    assert all(400 <= status < 500 or status in (200, 303) for status in fuzzer.statuses), fuzzer.statuses
    assert sum(n for status, n in fuzzer.statuses.items() if status >= 400) >= MIN_HOSTILE // 2
    logged = [record for record in caplog.records if record.levelno >= logging.ERROR or record.exc_info]
    assert not logged, logged[0].getMessage()
    assert "Traceback" not in capfd.readouterr().err
    assert peak_after - peak_before <= MEMORY_GROWTH_BOUND
    assert app.state.tables.footprint() <= SERVER_BYTES_KEPT
    assert _snapshot(victim, location) == before  # the playing session's table is exactly as it was
    assert victim.get(location).text == page_before
    assert victim.post(f"{location}/play", data={"action": str(table.legal_actions()[0][0])}).status_code == 200


#: ru_maxrss is in kilobytes on Linux, in bytes on macOS
_RSS_UNIT = 1 if sys.platform == "darwin" else 1024
