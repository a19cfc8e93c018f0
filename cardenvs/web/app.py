"""The card table in the browser: play against agents, watch agents, replay records (``cardenvs serve``).

Pages (``GAME`` is an env id such as ``slap_v0``):

- ``/``: the games, each with its *play*, *watch* and *rules* links, and the *replay* upload form;
- ``/play/GAME``: choose your seat and the agents in the other seats; the table then shows what your seat may
  see, the legal actions as buttons (only those), every decision since your last turn (yours, the others' and
  the moves the rules made by themselves), and at the end who won and why;
- ``/watch/GAME``: choose an agent per seat; step one decision at a time, play to the end, or play on by
  itself at a chosen speed, from any seat's point of view or with every hand open;
- ``/replay``: upload a record (``cardenvs play --save``, a golden playthrough) and step forwards and back,
  from any seat's point of view or with every hand open;
- ``/rules/GAME``: the game's rules page.

Fair play: while a person's game is on, nothing the person can request shows more than their seat may see: no
other seat's view, no open hands, no record or replay of the game (all of them once it is over). A watched
table (agents only) shows everything.

Games live in server memory per browser session (a cookie handed out by the pages that start games): a reload
shows the same table. Every form posts, then redirects to the table's page. A refused request (an unknown
game, an illegal action, a corrupt or oversized upload, a table that is no longer open, a number out of range)
shows the app's page with the reason and a 4xx status, and changes nothing. Request bodies are bounded while
they are read; every response carries a Content-Security-Policy (scripts only the app's own, no framing) and
``X-Content-Type-Options: nosniff``; given ``allowed_hosts``, a request naming another host is refused (a
defence against DNS rebinding for a server on this machine).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from cardenvs.agents.registry import SHIPPED_CHECKPOINTS
from cardenvs.core.registry import get_game
from cardenvs.web.tables import (
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
from cardenvs.web.words import action_namer, card_symbols, outcome, seat_name, trick_caption

SESSION_COOKIE = "cardenvs_session"
#: the largest request body the replay upload takes (a record of the longest game is well under this)
MAX_UPLOAD_BYTES = 2_000_000
#: the largest request body of any other form
MAX_FORM_BYTES = 16_000
#: the most digits a number in a form or a query may have (a seed below 2**63 has 19)
MAX_NUMBER_DIGITS = 19
#: the watch page's speeds, decisions per second
WATCH_SPEEDS = (1, 2, 5, 10)
#: decisions the watch page lists
WATCH_LOG_LINES = 10
#: seeds the pages draw stay below this, so they are short to type again
DRAWN_SEED_LIMIT = 1_000_000
#: the player counts the pages probe for a game with a ``num_players`` parameter
MAX_PLAYERS_PROBED = 64
DEFAULT_CHECKPOINTS = SHIPPED_CHECKPOINTS  # the trained agents installed with the package, by env id
#: the host names a server listening on this machine only answers to (``serve`` passes them)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
#: the watch page's script: the next decision is asked for one interval after this page's request began
#: (the interval in ``data-interval`` of the step form), so the speed is what the page says
WATCH_SCRIPT = (
    'var form = document.getElementById("step-form");'
    "setTimeout(function () { form.submit(); },"
    " Math.max(0, Number(form.dataset.interval) - performance.now()));"
)
#: the arrangement script (Gin Slaughtre's upcards): clicking cards of the person's seat in the picture marks
#: them; once the marked cards are those a button names (its ``data-cards``), that button is pressed
ARRANGE_SCRIPT = (
    '(function () {'
    'var form = document.getElementById("actions");'
    'var seat = document.getElementById("game").dataset.human;'
    'if (!form || seat === "") { return; }'
    'var buttons = Array.prototype.slice.call(form.querySelectorAll("button[data-cards]"));'
    'var key = function (labels) {'
    ' return labels.map(function (l) { return l.replace(/^Jo[0-9]$/, "Jo"); }).sort().join(" "); };'
    'var chosen = [];'
    'document.querySelectorAll(\'svg .seat[data-seat="\' + seat + \'"] .card\').forEach(function (card) {'
    ' card.style.cursor = "pointer";'
    ' card.addEventListener("click", function () {'
    '  var at = chosen.indexOf(card);'
    '  if (at >= 0) { chosen.splice(at, 1); card.removeAttribute("data-chosen"); card.style.opacity = ""; }'
    '  else { chosen.push(card); card.setAttribute("data-chosen", "1"); card.style.opacity = "0.5"; }'
    '  var wanted = key(chosen.map(function (c) { return c.dataset.card; }));'
    '  var match = buttons.filter(function (b) { return key(b.dataset.cards.split(" ")) === wanted; })[0];'
    '  if (match) { match.click(); }'
    ' });'
    '});'
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
    (b"referrer-policy", b"no-referrer"),
]

_templates = Environment(loader=PackageLoader("cardenvs.web", "templates"), autoescape=select_autoescape())
_templates.filters["agent_label"] = agent_label
_templates.filters["cards"] = card_symbols
_templates.globals["scripts"] = {name: Markup(f"<script>{text}</script>") for name, text in SCRIPTS.items()}
_templates.globals["seat_name"] = seat_name


def _page(name: str, status: int = 200, **context) -> HTMLResponse:
    return HTMLResponse(_templates.get_template(name).render(**context), status_code=status)


def _error_page(error: TableError) -> HTMLResponse:
    return _page("error.html", error.status, message=error.message)


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


def _live_view(table: LiveTable, value: str | None) -> tuple[str, int | None, bool]:
    """The view of a live table a request asks for; while a person's game is on, only their own seat's (or the
    public table): TableError (403) for any other."""
    default = "public" if table.human is None else str(table.human)
    view, seat, open_hands = _view(value, table.num_players, default)
    if table.hides_cards and (open_hands or seat not in (None, table.human)):
        raise TableError("while your game is on you see only your own seat's cards; every view opens when the "
                         "game is over", 403)
    return view, seat, open_hands


def _picture(table, seat: int | None, open_hands: bool) -> Markup:
    return Markup(table.env.table_svg(seat=seat, open_hands=open_hands))


async def _form(request: Request, limit: int) -> FormData:
    """The request's form, its body read at most ``limit`` bytes (the Content-Length and the bytes that come);
    TableError (413) beyond it, (400) for a body that is no form."""
    declared = request.headers.get("content-length", "")
    if declared and (not re.fullmatch(r"[0-9]{1,12}", declared) or int(declared) > limit):
        raise TableError(f"the request is larger than this form takes ({limit:,} bytes)", 413)
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise TableError(f"the request is larger than this form takes ({limit:,} bytes)", 413)
            chunks.append(chunk)
    except ClientDisconnect as error:
        raise TableError("the request was cut off") from error
    request._body = b"".join(chunks)  # Starlette's form parser reads the body kept here
    try:
        return await request.form(max_files=1, max_fields=MAX_PLAYERS_PROBED + 16, max_part_size=limit)
    except (HTTPException, ValueError, KeyError, UnicodeDecodeError) as error:
        detail = getattr(error, "detail", None) or str(error)
        raise TableError(f"the form could not be read: {detail}") from error


class TableApp:
    """The pages' handlers over one :class:`TableStore` (one per app).

    Args:
        checkpoints: the folder of trained agents (``<env_id>.pt``) offered as ``trained``, or None.
    """

    def __init__(self, checkpoints: Path | None):
        self.checkpoints = checkpoints
        self.store = TableStore()

    def game_info(self, env_id: str, players: int | None = None) -> dict:
        if env_id not in table_games():
            new_env(env_id, {})  # raises the unknown-game error
        game = get_game(env_id)  # no env yet: the front page compiles nothing
        default = game.num_players(game.make_params())
        low, high = _player_range(game)
        players = default if players is None else players
        params = {"num_players": players} if (low, high) != (players, players) else {}
        return {"env_id": env_id, "players": players, "player_range": (low, high),
                "agents": agent_choices(env_id, self.checkpoints, params),
                "default_agents": agent_choices(env_id, self.checkpoints), "params": params,
                "short": short_game_params(env_id), "rules": _has_rules(env_id)}

    def _issued(self, request: Request) -> str | None:
        """A new session id for a page that starts tables, where the browser holds no known one."""
        return None if self.store.known(_session(request)) else self.store.issue()

    async def index(self, request: Request) -> Response:
        games = [self.game_info(env_id) for env_id in table_games()]
        return _with_cookie(_page("index.html", games=games), self._issued(request))

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
        return _with_cookie(_page("new.html", mode=mode, game=info, seat=seat), self._issued(request))

    async def new_table(self, request: Request) -> Response:
        mode = request.url.path.split("/")[1]
        env_id = request.path_params["env_id"]
        session = _session(request)
        try:
            form = await _form(request, MAX_FORM_BYTES)
            info = self.game_info(env_id)
            low, high = info["player_range"]
            players = _int(form.get("players", info["players"]), "players", low, high)
            params = {"num_players": players} if (low, high) != (players, players) else {}
            if form.get("short"):
                params.update(info["short"])
            seed_text = str(form.get("seed") or "").strip()
            seed = (_int(seed_text, "seed", 0, 2**63 - 1) if seed_text
                    else TableStore.random_below(DRAWN_SEED_LIMIT))
            human = _int(form.get("seat"), "your seat", 0, players - 1) if mode == "play" else None
            specs = {seat: str(form.get(f"agent_{seat}", "")) for seat in range(players) if seat != human}
            self.store.require(session)  # before any game is built
            table = LiveTable(env_id, params, seed, specs, human, self.checkpoints)
            table_id = self.store.add(session, table)
        except TableError as error:
            return _with_cookie(_error_page(error), self._issued(request))
        return RedirectResponse(f"/table/{table_id}", status_code=303)

    async def show_table(self, request: Request) -> Response:
        try:
            table: LiveTable = self.store.get(_session(request), request.path_params["table_id"], "live")
            view, seat, open_hands = _live_view(table, request.query_params.get("view"))
            speed = request.query_params.get("speed")
            speed = _int(speed, "speed", min(WATCH_SPEEDS), max(WATCH_SPEEDS)) if speed else None
        except TableError as error:
            return _error_page(error)
        return self._live_page(table, request.path_params["table_id"], view, seat, open_hands, speed)

    def _live_page(self, table: LiveTable, table_id: str, view: str, seat: int | None, open_hands: bool,
                   speed: int | None, error: str | None = None, status: int = 200) -> Response:
        # A person sees every decision since their own last one; a watcher the latest decisions.
        new = table.log if table.human is not None else table.log[-WATCH_LOG_LINES:]
        namer = action_namer(table.game)
        state = table.env.state_record
        legal = [] if table.to_act != table.human or table.human is None else [
            _button(action, card_symbols(namer(table.params, action, state))) for action, _ in table.legal_actions()]
        result = None
        if table.over:
            result = outcome(table.game, table.params, state, table.rewards(), table.human, table.last_events)
        return _page(
            "table.html", status, table=table, table_id=table_id, picture=_picture(table, seat, open_hands),
            text=table.text(table.human if table.human is not None else seat), view=view, speed=speed,
            speeds=WATCH_SPEEDS, new=new, error=error, open_hands=open_hands, legal=legal, result=result,
            interval=None if speed is None else round(1000 / speed), rules=_has_rules(table.record.env_id),
            trick=trick_caption(table.game, state),
        )

    async def act(self, request: Request) -> Response:
        table_id = request.path_params["table_id"]
        try:
            table: LiveTable = self.store.get(_session(request), table_id, "live")
            form = await _form(request, MAX_FORM_BYTES)
        except TableError as error:
            return _error_page(error)
        what = request.path_params["what"]
        try:
            if what == "play":
                table.play(_int(form.get("action"), "action", 0, table.env.num_actions - 1))
            elif what == "step":
                table.step()
            elif what == "end":
                table.run_to_end()
            else:
                raise TableError(f"unknown request {what!r:.40}", 404)
        except TableError as error:
            view, seat, open_hands = _live_view(table, None)
            return self._live_page(table, table_id, view, seat, open_hands, None, error.message, error.status)
        self.store.touched(_session(request))
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
        except TableError as error:
            return _error_page(error)
        body = table.record.to_dict()
        name = f"{table.record.env_id}_seed{table.record.seed}.json"
        return Response(json.dumps(body) + "\n", media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def replay_live(self, request: Request) -> Response:
        try:
            table = self._finished(request)
            replay_table = ReplayTable(table.record)
            replay_id = self.store.add(_session(request), replay_table)
        except TableError as error:
            return _error_page(error)
        return RedirectResponse(f"/replay/{replay_id}?view=all", status_code=303)

    async def replay_form(self, request: Request) -> Response:
        return _with_cookie(_page("replay_new.html"), self._issued(request))

    async def replay_upload(self, request: Request) -> Response:
        session = _session(request)
        try:
            self.store.require(session)  # before the body is read
            form = await _form(request, MAX_UPLOAD_BYTES)
            upload = form.get("record")
            if upload is None or isinstance(upload, str) or not upload.filename:
                raise TableError("choose a record file to upload")
            name = upload.filename[:80]
            table = ReplayTable(load_record(await upload.read(), name))
            table_id = self.store.add(session, table)
        except TableError as error:
            return _with_cookie(_error_page(error), self._issued(request))
        return RedirectResponse(f"/replay/{table_id}?view=all", status_code=303)

    async def show_replay(self, request: Request) -> Response:
        table_id = request.path_params["table_id"]
        try:
            table: ReplayTable = self.store.get(_session(request), table_id, "replay")
            view, seat, open_hands = _view(request.query_params.get("view"), table.num_players, "all")
            position = request.query_params.get("step")
            table.show(0 if position is None else _int(position, "step", 0, table.steps))
        except TableError as error:
            return _error_page(error)
        shown_seat = seat if not open_hands else None
        result = None
        if table.position == table.steps and table.final and not table.env.agents:
            result = outcome(table.game, table.params, table.env.state_record, table.final, None, [])
        return _page("replay.html", table=table, table_id=table_id, view=view, next_move=table.next_move(),
                     result=result, picture=_picture(table, seat, open_hands), text=table.text(shown_seat),
                     trick=trick_caption(table.game, table.env.state_record))

    async def rules(self, request: Request) -> Response:
        from cardenvs.commands.rules import rules_text

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
    from cardenvs.commands.rules import rules_text

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
    return _error_page(TableError(message, status))


class SecurityLayer:
    """ASGI middleware: the security headers on every response, and (given ``allowed_hosts``) the app's error
    page, 400, for a request whose Host header names another host.

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

        if self.allowed_hosts is not None and _host(scope) not in self.allowed_hosts:
            response = _error_page(TableError("this server answers only to the address it printed "
                                              f"({', '.join(sorted(self.allowed_hosts))})", 400))
            await response(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


def _host(scope: Scope) -> str:
    """The host name of the request's Host header, without the port, lower case ('' if none)."""
    host = next((value.decode("latin-1") for name, value in scope.get("headers", []) if name == b"host"), "")
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def create_app(checkpoints: Path | None = DEFAULT_CHECKPOINTS, allowed_hosts: tuple[str, ...] | None = None) -> Any:
    """The web app (an ASGI app; its Starlette app, with the tables, is ``.starlette``).

    Args:
        checkpoints: the folder of trained agents offered as ``trained`` (None: none).
        allowed_hosts: the host names requests may name (e.g. :data:`LOOPBACK_HOSTS`); None: any.
    """
    handlers = TableApp(checkpoints)
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
    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error})
    app.state.tables = handlers.store  # the tests read the engine's state through it
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
