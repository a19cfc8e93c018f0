"""The card table in the browser: play against agents, watch agents, replay records (``cardenvs serve``).

Pages (``GAME`` is an env id such as ``slap_v0``):

- ``/``: the games, each with its *play*, *watch* and *rules* links, and the *replay* upload form;
- ``/play/GAME``: choose your seat and the agents in the other seats; the table then shows what your seat may
  see, the legal actions as buttons (only those), every decision since your last turn (yours, the others' and
  the moves the rules made by themselves) in the game's words, and at the end every hand and who won and why;
- ``/watch/GAME``: choose an agent per seat; step one decision at a time, play to the end, or play on by
  itself at a chosen speed, from any seat's point of view or with every hand open;
- ``/replay``: upload a record (``cardenvs play --save``, a golden playthrough) and step forwards and back,
  from any seat's point of view or with every hand open;
- ``/rules/GAME``: the game's rules page.

Fair play: while a person's game is on, nothing the person can request shows more than their seat may see: no
other seat's view, no open hands, no record or replay of the game (all of them once it is over). A game's deal
comes from the operating system's random source over the whole seed range unless the person asks for a known
deal (a seed of their choice; the page then says so), and while any person plays a deal, no watched table or
replay of the same game and seed shows its hidden cards. A watched table (agents only) shows everything.

One decision per turn: every form that makes a decision carries the game's decision count, and a post whose count
is not the game's (a repeated, stale or concurrent post) is refused with 409 and changes nothing. Posts from other
sites are refused: every form carries the session's form token, and a post whose ``Origin`` or
``Sec-Fetch-Site`` names another origin is refused before it is read.

Agents never think on the server's event loop: a table's run of agent decisions goes to a thread, search agents
think in worker processes (:mod:`cardenvs.web.thinking`) with a time budget per decision, and a run has a
thinking budget of its own (:data:`~cardenvs.web.tables.RUN_SECONDS`). A request waits at most
:data:`PAGE_WAIT_SECONDS` for its agents; the page then shows them thinking and reloads itself until they are
done. Shutting the server down stops every thinking table.

Games live in server memory per browser session (a cookie handed out by the pages that start games): a reload
shows the same table. Every form posts, then redirects to the table's page. A refused request (an unknown
game, an illegal action, a corrupt or oversized upload, a body that does not arrive in time, a table that is no
longer open, a number out of range) shows the app's page with the reason and a 4xx status, and changes nothing.
Request bodies are bounded in size and in time while they are read; every response carries a
Content-Security-Policy (scripts only the app's own, no framing) and ``X-Content-Type-Options: nosniff``; given
``allowed_hosts``, a request naming another host is refused (a defence against DNS rebinding for a server on this
machine).
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import contextlib
import dataclasses
import gc
import hashlib
import html
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from cardenvs.agents.registry import SHIPPED_CHECKPOINTS
from cardenvs.core.registry import get_game, rules_text
from cardenvs.core.rng import SEED_LIMIT
from cardenvs.web.tables import (
    BUILT_IN_AGENTS,
    LiveTable,
    ReplayTable,
    TableError,
    TableStore,
    agent_choices,
    agent_label,
    load_record,
    new_env,
    short_game_params,
    table_games,
)
from cardenvs.web.thinking import DECISION_SECONDS, THINKERS, Thinkers
from cardenvs.web.words import action_namer, caption, card_symbols, outcome, seat_name

SESSION_COOKIE = "cardenvs_session"
#: the largest request body the replay upload takes (a record of the longest game is well under this)
MAX_UPLOAD_BYTES = 2_000_000
#: the largest request body of any other form
MAX_FORM_BYTES = 16_000
#: seconds a request body may take to arrive (a stalled upload is refused with 408 after this)
BODY_SECONDS = 10.0
#: the most digits a number in a form or a query may have (a seed below 2**64 has 20)
MAX_NUMBER_DIGITS = 20
#: seconds a request waits for the agents' decisions it started before its page is shown (the page then shows
#: them thinking, and reloads itself until they are done)
PAGE_WAIT_SECONDS = 2.0
#: seconds between the reloads of a page whose agents are thinking
THINKING_RELOAD_SECONDS = 1
#: threads the tables' runs of agent decisions go to (a run waiting for a search worker holds one)
RUN_THREADS = 64
#: the watch page's speeds, decisions per second
WATCH_SPEEDS = (1, 2, 5, 10)
#: decisions the watch page lists
WATCH_LOG_LINES = 10
#: the player counts the pages probe for a game with a ``num_players`` parameter
MAX_PLAYERS_PROBED = 64
DEFAULT_CHECKPOINTS = SHIPPED_CHECKPOINTS  # the trained agents installed with the package, by env id
#: the host names a server listening on this machine only answers to (``serve`` passes them)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
#: the request methods that change something: refused from another site
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: the ``Sec-Fetch-Site`` values of a request a page of this server made (or the person typed)
OWN_SITE_FETCHES = frozenset({"same-origin", "none"})
#: the watch page's script: the next decision is asked for one interval after this page's request began
#: (the interval in ``data-interval`` of the step form), so the speed is what the page says
WATCH_SCRIPT = (
    'var form = document.getElementById("step-form");'
    "setTimeout(function () { form.submit(); },"
    " Math.max(0, Number(form.dataset.interval) - performance.now()));"
)
#: the arrangement script (Gin Slaughtre's upcards): clicking a card of the person's seat in the picture marks it
#: (clicking it again unmarks it; "undo" unmarks the last one); once the marked cards are those an arrangement
#: button names (its ``data-cards``), the confirm button submits that arrangement
ARRANGE_SCRIPT = (
    '(function () {'
    'var form = document.getElementById("actions");'
    'var seat = document.getElementById("game").dataset.human;'
    'var confirm = document.getElementById("arrange-confirm");'
    'var undo = document.getElementById("arrange-undo");'
    'var shown = document.getElementById("arrange-chosen");'
    'if (!form || !confirm || seat === "") { return; }'
    'var buttons = Array.prototype.slice.call(form.querySelectorAll("button[data-cards]"));'
    'var key = function (labels) { return labels.slice().sort().join(" "); };'
    'var chosen = [];'
    'var update = function () {'
    ' var labels = chosen.map(function (c) { return c.dataset.card; });'
    ' shown.textContent = labels.length ? labels.join(" ") : "none yet";'
    ' var match = buttons.filter(function (b) { return key(b.dataset.cards.split(" ")) === key(labels); })[0];'
    ' confirm.disabled = !match; confirm.value = match ? match.value : "";'
    ' undo.disabled = chosen.length === 0;'
    '};'
    'var mark = function (card, on) {'
    ' if (on) { card.setAttribute("data-chosen", "1"); card.style.opacity = "0.5"; }'
    ' else { card.removeAttribute("data-chosen"); card.style.opacity = ""; }'
    '};'
    'document.querySelectorAll(\'svg .seat[data-seat="\' + seat + \'"] .card\').forEach(function (card) {'
    ' if (card.dataset.card === "back") { return; }'
    ' card.style.cursor = "pointer";'
    ' card.addEventListener("click", function () {'
    '  var at = chosen.indexOf(card);'
    '  if (at >= 0) { chosen.splice(at, 1); mark(card, false); }'
    '  else if (chosen.length < 3) { chosen.push(card); mark(card, true); }'
    '  update();'
    ' });'
    '});'
    'undo.addEventListener("click", function () {'
    ' var card = chosen.pop(); if (card) { mark(card, false); } update(); });'
    'update();'
    '})();'
)
#: what an arrangement action's name starts with; the cards it makes upcards follow
ARRANGEMENT_PREFIX = "upcards: "
SCRIPTS = {"watch": WATCH_SCRIPT, "arrange": ARRANGE_SCRIPT}
#: the Content-Security-Policy of every page: nothing from elsewhere, the app's own scripts only, no framing
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'; script-src "
    + " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in SCRIPTS.values())
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),  # a browser then names this origin in its posts (not "null")
]

_templates = Environment(loader=PackageLoader("cardenvs.web", "templates"), autoescape=select_autoescape())
_templates.filters["agent_label"] = agent_label
_templates.filters["cards"] = card_symbols
_templates.globals["scripts"] = {name: Markup(f"<script>{text}</script>") for name, text in SCRIPTS.items()}
_templates.globals["seat_name"] = seat_name


def _page(name: str, status: int = 200, **context) -> HTMLResponse:
    return HTMLResponse(_templates.get_template(name).render(**context), status_code=status)


def error_page(message: str, status: int) -> HTMLResponse:
    """The app's page for a refused request: the reason, a link back, the status.

    Args:
        message: why the request was refused.
        status: the HTTP status (4xx).
    """
    return _page("error.html", status, message=message)


def _error_page(error: TableError) -> HTMLResponse:
    return error_page(error.message, error.status)


def _session(request: Request) -> str | None:
    return request.cookies.get(SESSION_COOKIE)


def _with_cookie(response: Response, session: str | None) -> Response:
    if session is not None:
        response.set_cookie(SESSION_COOKIE, session, httponly=True, samesite="strict")
    return response


def _int(value: object, what: str, low: int, high: int) -> int:
    """A whole number of ASCII digits (at most :data:`MAX_NUMBER_DIGITS`) from ``low`` to ``high``."""
    text = str(value if value is not None else "").strip()
    if not re.fullmatch(rf"-?[0-9]{{1,{MAX_NUMBER_DIGITS}}}", text) or not low <= int(text) <= high:
        shown = text if len(text) <= MAX_NUMBER_DIGITS + 1 else f"{text[:MAX_NUMBER_DIGITS]}… ({len(text)} characters)"
        raise TableError(f"{what} must be a whole number from {low} to {high}; got {shown!r}")
    return int(text)


def _view(value: str | None, num_players: int, default: str) -> tuple[str, int | None, bool]:
    """A ``view`` query value (``public``, ``all`` or a seat number): (value, seat, open hands)."""
    view = value or default
    if view == "all":
        return view, None, True
    if view == "public":
        return view, None, False
    return view, _int(view, "view", 0, num_players - 1), False


#: the refusal of a view of a deal a person plays elsewhere on the server
DEAL_IN_PLAY = ("this deal (the same game and seed) is being played at a table of this server right now: its "
                "hidden cards stay hidden everywhere until that game is over; only the public table is shown")


def _picture(table, seat: int | None, open_hands: bool) -> Markup:
    return Markup(table.env.table_svg(seat=seat, open_hands=open_hands))


async def _form(request: Request, limit: int) -> FormData:
    """The request's form, its body read at most ``limit`` bytes (the Content-Length and the bytes that come) and
    within :data:`BODY_SECONDS`; TableError (413) beyond the size, (408) past the time, (400) for a body that is
    no form."""
    declared = request.headers.get("content-length", "")
    if declared and (not re.fullmatch(r"[0-9]{1,12}", declared) or int(declared) > limit):
        raise TableError(f"the request is larger than this form takes ({limit:,} bytes)", 413)
    chunks, size = [], 0
    try:
        with anyio.fail_after(BODY_SECONDS):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise TableError(f"the request is larger than this form takes ({limit:,} bytes)", 413)
                chunks.append(chunk)
    except TimeoutError as error:
        raise TableError(f"the request's body did not arrive within {BODY_SECONDS:g} s", 408) from error
    except ClientDisconnect as error:
        raise TableError("the request was cut off") from error
    request._body = b"".join(chunks)  # Starlette's form parser reads the body kept here
    try:
        return await request.form(max_files=1, max_fields=MAX_PLAYERS_PROBED + 16, max_part_size=limit)
    except (HTTPException, ValueError, KeyError, UnicodeDecodeError) as error:
        detail = getattr(error, "detail", None) or str(error)
        raise TableError(f"the form could not be read: {detail}") from error


class TableApp:
    """The pages' handlers over one :class:`TableStore` (one per app), the threads the tables' agents run in and
    the worker processes search agents think in.

    Args:
        checkpoints: the folder of trained agents (``<env_id>.pt``) offered as ``trained``, or None.
        offered: the agent specs the pages offer besides ``trained``.
        thinkers: the worker processes of the search agents (None: as many as :data:`THINKERS`, each decision
            within :data:`DECISION_SECONDS`).
    """

    def __init__(self, checkpoints: Path | None, offered: tuple[str, ...] = BUILT_IN_AGENTS,
                 thinkers: Thinkers | None = None):
        self.checkpoints = checkpoints
        self.offered = tuple(offered)
        self.store = TableStore()
        self.thinkers = thinkers if thinkers is not None else Thinkers(THINKERS, DECISION_SECONDS)
        self.runs = concurrent.futures.ThreadPoolExecutor(RUN_THREADS, thread_name_prefix="cardenvs-table")
        self._settled: set[str] = set()  # the games whose first table was made (see _settle)

    def _settle(self, env_id: str) -> None:
        """After the first table of a game: the objects alive now (the game's compiled rules, loaded once and kept)
        are moved out of the garbage collector's sight (:func:`gc.freeze`), so that a full collection, which would
        otherwise walk them all and pause every page for most of a second, walks only what came since."""
        if env_id not in self._settled:
            self._settled.add(env_id)
            gc.freeze()

    def close(self) -> None:
        """Stop every table's agents and the worker processes (the server shuts down)."""
        self.store.close()
        self.thinkers.close()
        self.runs.shutdown(wait=False, cancel_futures=True)

    def game_info(self, env_id: str, players: int | None = None) -> dict:
        if env_id not in table_games():
            new_env(env_id, {})  # raises the unknown-game error
        game = get_game(env_id)  # no env yet: the front page compiles nothing
        default = game.num_players(game.make_params())
        low, high = _player_range(game)
        players = default if players is None else players
        params = {"num_players": players} if (low, high) != (players, players) else {}
        return {"env_id": env_id, "players": players, "player_range": (low, high),
                "agents": agent_choices(env_id, self.checkpoints, params, self.offered),
                "default_agents": agent_choices(env_id, self.checkpoints, None, self.offered), "params": params,
                "short": short_game_params(env_id), "rules": _has_rules(env_id)}

    def _page_session(self, request: Request) -> tuple[str, str | None]:
        """(the session a page's forms post as, the new session id to hand out with the page or None)."""
        session = _session(request)
        if self.store.known(session):
            return session, None
        issued = self.store.issue()
        return issued, issued

    def _refused(self, request: Request, error: TableError) -> Response:
        """The error page of a request that may come without a known session: it hands one out."""
        _, issued = self._page_session(request)
        return _with_cookie(_error_page(error), issued)

    async def index(self, request: Request) -> Response:
        games = [self.game_info(env_id) for env_id in table_games()]
        session, issued = self._page_session(request)
        return _with_cookie(_page("index.html", games=games, token=self.store.form_token(session)), issued)

    async def new_form(self, request: Request) -> Response:
        mode = request.url.path.split("/")[1]
        try:
            game = get_game(request.path_params["env_id"]) if request.path_params["env_id"] in table_games() \
                else None
            players = request.query_params.get("players")
            count = None
            if players is not None and game is not None:
                low, high = _player_range(game)
                count = _int(players, "players", low, high)
            info = self.game_info(request.path_params["env_id"], count)
            seat = request.query_params.get("seat")
            seat = _int(seat, "your seat", 0, info["players"] - 1) if seat and mode == "play" else 0
        except TableError as error:
            return _error_page(error)
        session, issued = self._page_session(request)
        return _with_cookie(_page("new.html", mode=mode, game=info, seat=seat, token=self.store.form_token(session)),
                            issued)

    async def new_table(self, request: Request) -> Response:
        mode = request.url.path.split("/")[1]
        env_id = request.path_params["env_id"]
        session = _session(request)
        try:
            form = await _form(request, MAX_FORM_BYTES)
            info = self.game_info(env_id)
            self.store.require(session)  # before any game is built
            self.store.check_token(session, form.get("token"))
            low, high = info["player_range"]
            players = _int(form.get("players", info["players"]), "players", low, high)
            params = {"num_players": players} if (low, high) != (players, players) else {}
            if form.get("short"):
                params.update(info["short"])
            seed_text = str(form.get("seed") or "").strip()
            known_deal = bool(seed_text)
            seed = _int(seed_text, "seed", 0, SEED_LIMIT - 1) if known_deal else TableStore.random_seed()
            human = _int(form.get("seat"), "your seat", 0, players - 1) if mode == "play" else None
            specs = {seat: str(form.get(f"agent_{seat}", "")) for seat in range(players) if seat != human}
            table = await run_in_threadpool(LiveTable, env_id, params, seed, specs, human, self.checkpoints,
                                            self.thinkers, known_deal, self.offered)
            table_id = self.store.add(session, table)
            self._settle(env_id)
        except TableError as error:
            return self._refused(request, error)
        if table.claim("turn", table.decisions, quiet=True):  # agents before the person's first turn
            await self._run(table, "turn")
        return RedirectResponse(f"/table/{table_id}", status_code=303)

    async def _run(self, table: LiveTable, run: str) -> None:
        """Run ``table``'s agents (it was claimed for ``run``) in a thread; wait for them at most
        :data:`PAGE_WAIT_SECONDS` (the run goes on after that)."""
        done = asyncio.wrap_future(self.runs.submit(table.run, run))
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(done), PAGE_WAIT_SECONDS)

    async def show_table(self, request: Request) -> Response:
        try:
            table: LiveTable = self.store.get(_session(request), request.path_params["table_id"], "live")
            speed = request.query_params.get("speed")
            speed = _int(speed, "speed", min(WATCH_SPEEDS), max(WATCH_SPEEDS)) if speed else None
            with table.lock:
                view, seat, open_hands = self._live_view(table, request.query_params.get("view"))
                return self._live_page(request, table, request.path_params["table_id"], view, seat, open_hands,
                                       speed)
        except TableError as error:
            return _error_page(error)

    def _live_view(self, table: LiveTable, value: str | None) -> tuple[str, int | None, bool]:
        """The view of a live table a request asks for (every hand open at the end by default); while a person's
        game is on, only their own seat's (or the public table), and where another table's person plays this
        deal, only the public table: TableError (403) for any other."""
        default = "all" if table.over else "public" if table.human is None else str(table.human)
        guarded = not table.hides_cards and self.store.deal_in_play(table.record.env_id, table.record.seed, table)
        if guarded and value is None:
            default = "public"
        view, seat, open_hands = _view(value, table.num_players, default)
        if table.hides_cards and (open_hands or seat not in (None, table.human)):
            raise TableError("while your game is on you see only your own seat's cards; every view opens when the "
                             "game is over", 403)
        if guarded and (open_hands or seat is not None):
            raise TableError(DEAL_IN_PLAY, 403)
        return view, seat, open_hands

    def _live_page(self, request: Request, table: LiveTable, table_id: str, view: str, seat: int | None,
                   open_hands: bool, speed: int | None, error: str | None = None, status: int = 200) -> Response:
        """The table's page (hold the table's lock)."""
        # A person sees every decision since their own last one; a watcher the latest decisions.
        new = table.log if table.human is not None else table.log[-WATCH_LOG_LINES:]
        viewer = table.human if table.human is not None else seat
        lines = [(line, line.visible(viewer, open_hands)) for line in new]
        namer = action_namer(table.game)
        state = table.env.state_record
        legal = [] if table.running or table.to_act != table.human or table.human is None else [
            _button(action, card_symbols(namer(table.params, action, state))) for action, _ in table.legal_actions()]
        result = None
        if table.over:
            result = outcome(table.game, table.params, state, table.rewards(), table.human)
        session = _session(request) or ""
        return _page(
            "table.html", status, table=table, table_id=table_id, picture=_picture(table, seat, open_hands),
            text=table.text(viewer), view=view, speed=speed, speeds=WATCH_SPEEDS, lines=lines, error=error,
            open_hands=open_hands, legal=legal, result=result, rules=_has_rules(table.record.env_id),
            interval=None if speed is None else round(1000 / speed), trick=caption(table.game, state),
            token=self.store.form_token(session), reload=THINKING_RELOAD_SECONDS if table.running else None,
        )

    async def act(self, request: Request) -> Response:
        table_id = request.path_params["table_id"]
        session = _session(request)
        try:
            table: LiveTable = self.store.get(session, table_id, "live")
            form = await _form(request, MAX_FORM_BYTES)
            self.store.check_token(session, form.get("token"))
        except TableError as error:
            return _error_page(error)
        what = request.path_params["what"]
        try:
            decision = _int(form.get("decision"), "decision", 0, 2**31 - 1)
            if what == "play":
                run = "turn" if table.play(_int(form.get("action"), "action", 0, table.env.num_actions - 1),
                                           decision) else None
            elif what in ("step", "end", "resume"):
                run = {"step": "step", "end": "end", "resume": "turn"}[what]
                speed = form.get("speed")
                speed = _int(speed, "speed", min(WATCH_SPEEDS), max(WATCH_SPEEDS)) if speed else None
                run = run if table.claim(run, decision, speed=speed) else None
            else:
                raise TableError(f"unknown request {what!r:.40}", 404)
        except TableError as error:
            with table.lock:
                view, seat, open_hands = self._live_view(table, None)
                return self._live_page(request, table, table_id, view, seat, open_hands, None, error.message,
                                       error.status)
        if run is not None:
            await self._run(table, run)
        self.store.touched(session)
        query = str(form.get("query") or "")
        return RedirectResponse(f"/table/{table_id}" + (f"?{query}" if _safe_query(query) else ""), status_code=303)

    def _finished(self, request: Request) -> LiveTable:
        """The request's live table, once nothing of it is hidden from the person any more."""
        table: LiveTable = self.store.get(_session(request), request.path_params["table_id"], "live")
        if table.hides_cards:
            raise TableError("the record and the replay of your game open when it is over: they show every "
                             "hand", 403)
        return table

    async def record(self, request: Request) -> Response:
        try:
            table = self._finished(request)
            with table.lock:
                body = table.record.to_dict()
        except TableError as error:
            return _error_page(error)
        name = f"{table.record.env_id}_seed{table.record.seed}.json"
        return Response(json.dumps(body) + "\n", media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def replay_live(self, request: Request) -> Response:
        session = _session(request)
        try:
            table = self._finished(request)
            form = await _form(request, MAX_FORM_BYTES)
            self.store.check_token(session, form.get("token"))
            with table.lock:
                record = dataclasses.replace(table.record, actions=list(table.record.actions))
            replay_table = await run_in_threadpool(ReplayTable, record)
            replay_id = self.store.add(session, replay_table)
        except TableError as error:
            return _error_page(error)
        return RedirectResponse(f"/replay/{replay_id}", status_code=303)

    async def replay_form(self, request: Request) -> Response:
        session, issued = self._page_session(request)
        return _with_cookie(_page("replay_new.html", token=self.store.form_token(session)), issued)

    async def replay_upload(self, request: Request) -> Response:
        session = _session(request)
        try:
            self.store.require(session)  # before the body is read
            form = await _form(request, MAX_UPLOAD_BYTES)
            self.store.check_token(session, form.get("token"))
            upload = form.get("record")
            if upload is None or isinstance(upload, str) or not upload.filename:
                raise TableError("choose a record file to upload")
            name = upload.filename[:80]
            record = load_record(await upload.read(), name)
            table = await run_in_threadpool(ReplayTable, record)
            table_id = self.store.add(session, table)
        except TableError as error:
            return self._refused(request, error)
        return RedirectResponse(f"/replay/{table_id}", status_code=303)

    async def show_replay(self, request: Request) -> Response:
        table_id = request.path_params["table_id"]
        try:
            table: ReplayTable = self.store.get(_session(request), table_id, "replay")
            guarded = self.store.deal_in_play(table.record.env_id, table.record.seed)
            value = request.query_params.get("view")
            view, seat, open_hands = _view(value, table.num_players, "public" if guarded else "all")
            if guarded and (open_hands or seat is not None):
                raise TableError(DEAL_IN_PLAY, 403)
            position = request.query_params.get("step")
            table.show(0 if position is None else _int(position, "step", 0, table.steps))
        except TableError as error:
            return _error_page(error)
        shown_seat = seat if not open_hands else None
        result = None
        if table.position == table.steps and table.final and not table.env.agents:
            result = outcome(table.game, table.params, table.env.state_record, table.final, None)
        return _page("replay.html", table=table, table_id=table_id, view=view, next_move=table.next_move(),
                     result=result, picture=_picture(table, seat, open_hands), text=table.text(shown_seat),
                     trick=caption(table.game, table.env.state_record), guarded=guarded)

    async def rules(self, request: Request) -> Response:
        env_id = request.path_params["env_id"]
        try:
            text = rules_text(env_id)
        except ValueError as error:
            return _error_page(TableError(str(error)[:300], 404))
        return _page("rules.html", env_id=env_id, body=Markup(_markdown(text)))


def _button(action: int, name: str) -> tuple[int, str, str]:
    """(action, name, the cards an arrangement makes upcards, space-separated, or '')."""
    return action, name, name.removeprefix(ARRANGEMENT_PREFIX) if name.startswith(ARRANGEMENT_PREFIX) else ""


def _has_rules(env_id: str) -> bool:
    try:
        rules_text(env_id)
    except ValueError:
        return False
    return True


def _markdown(text: str) -> str:
    """A rules page's Markdown as minimal HTML, every character escaped: headings and paragraphs, the rest
    (tables, lists, code) as preformatted text."""
    blocks = []
    for block in re.split(r"\n\s*\n", text.strip()):
        heading = re.fullmatch(r"(#{1,4}) (.+)", block.strip())
        if heading:
            level = len(heading.group(1)) + 1
            blocks.append(f"<h{level}>{html.escape(heading.group(2))}</h{level}>")
        elif re.match(r"\s*([|*`-]|\d+\.|```)", block):
            blocks.append(f'<pre class="text">{html.escape(block)}</pre>')
        else:
            blocks.append(f"<p>{html.escape(block)}</p>")
    return "\n".join(blocks)



async def _http_error(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 400)
    if status == 404:
        message = f"there is no page {request.url.path[:200]}; start from the front page"
    elif status == 405:
        message = f"{request.method} is not how this page is asked for; follow the links of the pages"
    else:
        message = f"the request was refused: {str(getattr(exc, 'detail', ''))[:200]}"
    return error_page(message, status)


class SecurityLayer:
    """ASGI middleware: the security headers on every response, and the app's error page for a request refused
    before the app sees it: a Host header naming another host (given ``allowed_hosts``) or given twice (400), and a
    post from another site (403: its ``Sec-Fetch-Site`` is not this origin's, or its ``Origin`` names another).

    Args:
        app: the app it wraps.
        allowed_hosts: the host names the server answers to (without the port), or None for any.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: tuple[str, ...] | None):
        self.app = app
        self.allowed_hosts = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def _refusal(self, scope: Scope) -> Response | None:
        """The error page of a request refused before the app sees it, or None."""
        hosts = [value for name, value in scope.get("headers", []) if name == b"host"]
        if len(hosts) > 1:
            return error_page("the request names its host more than once", 400)
        if self.allowed_hosts is not None and _host(scope) not in self.allowed_hosts:
            return error_page("this server answers only to the address it printed "
                              f"({', '.join(sorted(self.allowed_hosts))})", 400)
        if scope.get("method", "GET") in UNSAFE_METHODS and not _same_origin(scope):
            return error_page("a page of another site cannot post to this server: open the page here and use its "
                              "form", 403)
        return None


def _header(scope: Scope, name: bytes) -> str | None:
    """The first value of the header ``name`` (lower case), or None."""
    return next((value.decode("latin-1") for key, value in scope.get("headers", []) if key == name), None)


def _same_origin(scope: Scope) -> bool:
    """Whether a post comes from this server's own pages as far as the browser says: its ``Sec-Fetch-Site``, if
    any, is same-origin (or none: typed by the person), and its ``Origin``, if any, is this host and port."""
    fetch_site = _header(scope, b"sec-fetch-site")
    if fetch_site is not None and fetch_site.strip().lower() not in OWN_SITE_FETCHES:
        return False
    origin = _header(scope, b"origin")
    if origin is None:
        return True
    parts = urlsplit(origin.strip().lower())
    host = (_header(scope, b"host") or "").strip().lower()
    default_port = {"http": "80", "https": "443"}.get(parts.scheme)
    try:
        port = parts.port
    except ValueError:  # a port that is no number
        return False
    if default_port is None or not parts.hostname:
        return False  # "null" (a sandboxed page, a file) or no origin a browser sends
    netloc = parts.netloc if port is not None else f"{parts.netloc}:{default_port}"
    return netloc == (host if ":" in host.rsplit("]", 1)[-1] else f"{host}:{default_port}")


def _host(scope: Scope) -> str:
    """The host name of the request's Host header, without the port, lower case ('' if none)."""
    host = next((value.decode("latin-1") for name, value in scope.get("headers", []) if name == b"host"), "")
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def create_app(checkpoints: Path | None = DEFAULT_CHECKPOINTS, allowed_hosts: tuple[str, ...] | None = None,
               offered: tuple[str, ...] = BUILT_IN_AGENTS, thinkers: Thinkers | None = None) -> Any:
    """The web app (an ASGI app; its Starlette app's state holds the tables as ``.state.tables`` and the handlers
    as ``.state.handlers``). Shutting it down (its lifespan's end) stops every table's agents.

    Args:
        checkpoints: the folder of trained agents offered as ``trained`` (None: none).
        allowed_hosts: the host names requests may name (e.g. :data:`LOOPBACK_HOSTS`); None: any.
        offered: the agent specs the pages offer besides ``trained`` (e.g. a search agent of a larger budget).
        thinkers: the worker processes search agents think in (None: :data:`THINKERS` of them, each decision within
            :data:`DECISION_SECONDS`).
    """
    handlers = TableApp(checkpoints, offered, thinkers)
    routes = [
        Route("/", handlers.index),
        Route("/play/{env_id}", handlers.new_form, methods=["GET"]),
        Route("/play/{env_id}", handlers.new_table, methods=["POST"]),
        Route("/watch/{env_id}", handlers.new_form, methods=["GET"]),
        Route("/watch/{env_id}", handlers.new_table, methods=["POST"]),
        Route("/rules/{env_id}", handlers.rules, methods=["GET"]),
        Route("/table/{table_id}", handlers.show_table),
        Route("/table/{table_id}/record.json", handlers.record),
        Route("/table/{table_id}/replay", handlers.replay_live, methods=["POST"]),
        Route("/table/{table_id}/{what}", handlers.act, methods=["POST"]),
        Route("/replay", handlers.replay_form, methods=["GET"]),
        Route("/replay", handlers.replay_upload, methods=["POST"]),
        Route("/replay/{table_id}", handlers.show_replay),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        gc.freeze()  # what the server holds from its start on is never garbage: no full collection walks it
        try:
            yield
        finally:
            handlers.close()

    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error}, lifespan=lifespan)
    app.state.tables = handlers.store  # the tests read the engine's state through it
    app.state.handlers = handlers
    layer = SecurityLayer(app, allowed_hosts)
    layer.state = app.state
    return layer


def _player_range(game) -> tuple[int, int]:
    """The numbers of players the game allows (from its parameters' check)."""
    low = high = game.num_players(game.make_params())
    if "num_players" not in {f.name for f in dataclasses.fields(game.params_type)}:
        return (low, high)
    while low > 1 and _allowed(game, low - 1):
        low -= 1
    while high < MAX_PLAYERS_PROBED and _allowed(game, high + 1):
        high += 1
    return (low, high)


def _allowed(game, players: int) -> bool:
    try:
        game.make_params(num_players=players)
    except ValueError:
        return False
    return True


def _safe_query(query: str) -> bool:
    """Only a view and a speed go back into a redirect (never a URL from the form)."""
    return re.fullmatch(r"(view=(all|public|[0-9]{1,2}))?(&?speed=[0-9]{1,2})?", query) is not None
