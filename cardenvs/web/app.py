"""The card table in the browser: play against agents, watch agents, replay records (``cardenvs serve``).

Pages (``GAME`` is an env id such as ``slap_v0``):

- ``/``: the games, each with its *play* and *watch* links, and the *replay* upload form;
- ``/play/GAME``: choose your seat and the agents in the other seats; the table then shows what your seat may
  see, the legal actions as buttons (only those), what the others did since your last turn, and a link that
  saves the game as a record;
- ``/watch/GAME``: choose an agent per seat; step one decision at a time, play to the end, or play on by
  itself at a chosen speed, from any seat's point of view or with every hand open;
- ``/replay``: upload a record (``cardenvs play --save``, a golden playthrough) and step forwards and back,
  from any seat's point of view or with every hand open.

Games live in server memory per browser session (a cookie): a reload shows the same table. Every form posts,
then redirects to the table's page. A refused request (an unknown game, an illegal action, a corrupt upload, a
table that is no longer open) shows a page with the reason and changes nothing.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

import cardenvs
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
)

SESSION_COOKIE = "cardenvs_session"
#: the largest record file the replay page takes
MAX_UPLOAD_BYTES = 20_000_000
#: the watch page's speeds, decisions per second
WATCH_SPEEDS = (1, 2, 5, 10)
#: decisions the watch page lists
WATCH_LOG_LINES = 10
#: seeds the pages draw stay below this, so they are short to type again
DRAWN_SEED_LIMIT = 1_000_000
#: the player counts the pages probe for a game with a ``num_players`` parameter
MAX_PLAYERS_PROBED = 64
DEFAULT_CHECKPOINTS = SHIPPED_CHECKPOINTS  # the trained agents installed with the package, by env id

_templates = Environment(loader=PackageLoader("cardenvs.web", "templates"), autoescape=select_autoescape())
_templates.filters["agent_label"] = agent_label


def _page(name: str, status: int = 200, **context) -> HTMLResponse:
    return HTMLResponse(_templates.get_template(name).render(**context), status_code=status)


def _error_page(error: TableError) -> HTMLResponse:
    return _page("error.html", error.status, message=error.message)


def _session(request: Request) -> str | None:
    return request.cookies.get(SESSION_COOKIE)


def _redirect(request: Request, url: str, session: str) -> RedirectResponse:
    response = RedirectResponse(url, status_code=303)
    if _session(request) != session:
        response.set_cookie(SESSION_COOKIE, session, httponly=True, samesite="strict")
    return response


def _int(value: object, what: str, low: int, high: int) -> int:
    text = str(value if value is not None else "").strip()
    if not re.fullmatch(r"-?\d+", text) or not low <= int(text) <= high:
        raise TableError(f"{what} must be a whole number from {low} to {high}; got {text!r}")
    return int(text)


def _view(value: str | None, num_players: int, default: str) -> tuple[str, int | None, bool]:
    """A ``view`` query value (``public``, ``all`` or a seat number): (value, seat, open hands)."""
    view = value or default
    if view == "all":
        return view, None, True
    if view == "public":
        return view, None, False
    return view, _int(view, "view", 0, num_players - 1), False


def _picture(table, seat: int | None, open_hands: bool) -> Markup:
    return Markup(table.env.table_svg(seat=seat, open_hands=open_hands))


class TableApp:
    """The pages' handlers over one :class:`TableStore` (one per app)."""

    def __init__(self, checkpoints: Path | None):
        self.checkpoints = checkpoints
        self.store = TableStore()

    def game_info(self, env_id: str) -> dict:
        if env_id not in cardenvs.available_envs():
            new_env(env_id, {})  # raises the unknown-game error
        game = get_game(env_id)  # no env yet: the front page compiles nothing
        return {"env_id": env_id, "players": game.num_players(game.make_params()),
                "player_range": _player_range(game), "agents": agent_choices(env_id, self.checkpoints),
                "short": short_game_params(env_id)}

    async def index(self, request: Request) -> Response:
        games = [self.game_info(env_id) for env_id in cardenvs.available_envs()]
        return _page("index.html", games=games)

    async def new_form(self, request: Request) -> Response:
        mode = request.url.path.split("/")[1]
        try:
            info = self.game_info(request.path_params["env_id"])
            players = request.query_params.get("players")
            if players is not None:
                low, high = info["player_range"]
                info["players"] = _int(players, "players", low, high)
        except TableError as error:
            return _error_page(error)
        return _page("new.html", mode=mode, game=info)

    async def new_table(self, request: Request) -> Response:
        mode = request.url.path.split("/")[1]
        env_id = request.path_params["env_id"]
        form = await request.form()
        try:
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
            table = LiveTable(env_id, params, seed, specs, human, self.checkpoints)
        except TableError as error:
            return _error_page(error)
        session = _session(request) or self.store.new_session_id()
        table_id = self.store.add(session, table)
        return _redirect(request, f"/table/{table_id}", session)

    async def show_table(self, request: Request) -> Response:
        try:
            table: LiveTable = self.store.get(_session(request), request.path_params["table_id"], "live")
            default = "public" if table.human is None else str(table.human)
            view, seat, open_hands = _view(request.query_params.get("view"), table.num_players, default)
            speed = request.query_params.get("speed")
            speed = _int(speed, "speed", min(WATCH_SPEEDS), max(WATCH_SPEEDS)) if speed else None
        except TableError as error:
            return _error_page(error)
        return self._live_page(table, request.path_params["table_id"], view, seat, open_hands, speed)

    def _live_page(self, table: LiveTable, table_id: str, view: str, seat: int | None, open_hands: bool,
                   speed: int | None, error: str | None = None, status: int = 200) -> Response:
        # A person sees what the others did since their last decision; a watcher the latest decisions.
        new = table.log[table.human_log_start:] if table.human is not None else table.log[-WATCH_LOG_LINES:]
        return _page(
            "table.html", status, table=table, table_id=table_id, picture=_picture(table, seat, open_hands),
            text=table.text(table.human if table.human is not None else seat), view=view, speed=speed,
            speeds=WATCH_SPEEDS, new=new, error=error, open_hands=open_hands,
            legal=table.legal_actions() if table.to_act == table.human and table.human is not None else [],
        )

    async def act(self, request: Request) -> Response:
        table_id = request.path_params["table_id"]
        try:
            table: LiveTable = self.store.get(_session(request), table_id, "live")
        except TableError as error:
            return _error_page(error)
        form = await request.form()
        what = request.path_params["what"]
        try:
            if what == "play":
                table.play(_int(form.get("action"), "action", 0, table.env.num_actions - 1))
            elif what == "step":
                table.step()
            elif what == "end":
                table.run_to_end()
            else:
                raise TableError(f"unknown request {what!r}", 404)
        except TableError as error:
            default = "public" if table.human is None else str(table.human)
            view, seat, open_hands = _view(None, table.num_players, default)
            return self._live_page(table, table_id, view, seat, open_hands, None, error.message, error.status)
        query = str(form.get("query") or "")
        return RedirectResponse(f"/table/{table_id}" + (f"?{query}" if _safe_query(query) else ""), status_code=303)

    async def record(self, request: Request) -> Response:
        try:
            table: LiveTable = self.store.get(_session(request), request.path_params["table_id"], "live")
        except TableError as error:
            return _error_page(error)
        body = table.record.to_dict()
        name = f"{table.record.env_id}_seed{table.record.seed}.json"
        return Response(json.dumps(body) + "\n", media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def replay_live(self, request: Request) -> Response:
        session = _session(request)
        try:
            table: LiveTable = self.store.get(session, request.path_params["table_id"], "live")
            replay_table = ReplayTable(table.record)
        except TableError as error:
            return _error_page(error)
        return _redirect(request, f"/replay/{self.store.add(session, replay_table)}?view=all", session)

    async def replay_form(self, request: Request) -> Response:
        return _page("replay_new.html")

    async def replay_upload(self, request: Request) -> Response:
        try:
            form = await request.form(max_part_size=MAX_UPLOAD_BYTES)
            upload = form.get("record")
            if upload is None or isinstance(upload, str) or not upload.filename:
                raise TableError("choose a record file to upload")
            table = ReplayTable(load_record(await upload.read(), upload.filename))
        except TableError as error:
            return _error_page(error)
        session = _session(request) or self.store.new_session_id()
        return _redirect(request, f"/replay/{self.store.add(session, table)}?view=all", session)

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
        return _page("replay.html", table=table, table_id=table_id, view=view,
                     picture=_picture(table, seat, open_hands), text=table.text(shown_seat))


async def _not_found(request: Request, exc: Exception) -> Response:
    return _error_page(TableError(f"there is no page {request.url.path}; start from the front page", 404))


def create_app(checkpoints: Path | None = DEFAULT_CHECKPOINTS) -> Starlette:
    """The web app. ``checkpoints``: the folder of trained agents offered as ``trained`` (None: none)."""
    handlers = TableApp(checkpoints)
    routes = [
        Route("/", handlers.index),
        Route("/play/{env_id}", handlers.new_form, methods=["GET"]),
        Route("/play/{env_id}", handlers.new_table, methods=["POST"]),
        Route("/watch/{env_id}", handlers.new_form, methods=["GET"]),
        Route("/watch/{env_id}", handlers.new_table, methods=["POST"]),
        Route("/table/{table_id}", handlers.show_table),
        Route("/table/{table_id}/record.json", handlers.record),
        Route("/table/{table_id}/replay", handlers.replay_live, methods=["POST"]),
        Route("/table/{table_id}/{what}", handlers.act, methods=["POST"]),
        Route("/replay", handlers.replay_form, methods=["GET"]),
        Route("/replay", handlers.replay_upload, methods=["POST"]),
        Route("/replay/{table_id}", handlers.show_replay),
    ]

    app = Starlette(routes=routes, exception_handlers={404: _not_found})
    app.state.tables = handlers.store  # the tests read the engine's state through it
    return app


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
    return re.fullmatch(r"(view=(all|public|\d+))?(&?speed=\d+)?", query) is not None
