"""What the web tests share: starting a table as a page does (with the page's form token), posting a decision with
the game's decision count, and waiting for a table's agents to finish their run."""

from __future__ import annotations

import re
import socket
import time
import warnings

with warnings.catch_warnings():  # Starlette's test client names its preferred HTTP client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from cardenvs.web.app import SESSION_COOKIE

#: seconds a table's agents may take for one run in a test (generous: a busy machine, a first compilation)
IDLE_SECONDS = 600


def free_port() -> int:
    """A loopback port that nothing listens on now (for a test's own server)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def page_token(page: str) -> str:
    """The form token a page's forms carry."""
    match = re.search(r'name="token" value="([^"]+)"', page)
    assert match, "the page has no form token"
    return match.group(1)


def session_token(client: TestClient) -> str:
    """The form token of the client's session (what its pages' forms carry)."""
    return client.app.state.tables.form_token(client.cookies.get(SESSION_COOKIE))


def table_of(client: TestClient, location: str, kind: str = "live"):
    """The engine-side table behind a table's location."""
    return client.app.state.tables.get(client.cookies.get(SESSION_COOKIE), location.split("?")[0].split("/")[-1], kind)


def idle(table, seconds: float = IDLE_SECONDS) -> None:
    """Wait until the table's agents have finished their run."""
    deadline = time.monotonic() + seconds
    while table.running:
        assert time.monotonic() < deadline, f"the table's agents were still thinking after {seconds} s"
        time.sleep(0.02)


def start(client: TestClient, env_id: str = "slabberjan_v0", mode: str = "play", **form) -> str:
    """Open the game's page (which hands out the session), start a table with its form: the table's location,
    once its agents have moved."""
    page = client.get(f"/{mode}/{env_id}")
    assert page.status_code == 200
    fields = {"token": page_token(page.text), "seat": "0", "seed": "7",
              **{f"agent_{s}": "heuristic" for s in range(8)}, **form}
    response = client.post(f"/{mode}/{env_id}", data=fields, follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    idle(table_of(client, location))
    return location


def act(client: TestClient, location: str, what: str, **form):
    """Post one of the table's forms (``play``, ``step``, ``end``, ``resume``) as its page would, with the session's
    token and the game's decision count; the response, once the agents it started are done."""
    table = table_of(client, location)
    fields = {"token": session_token(client), "decision": str(table.decisions), **form}
    response = client.post(f"{location}/{what}", data=fields)
    idle(table)
    return response


def upload(client: TestClient, body: bytes, name: str = "game.json", **kwargs):
    """Upload a record as the replay page's form does (with the session's token)."""
    if not client.app.state.tables.known(client.cookies.get(SESSION_COOKIE)):
        client.get("/replay")
    return client.post("/replay", data={"token": session_token(client)},
                       files={"record": (name, body, "application/json")}, **kwargs)
