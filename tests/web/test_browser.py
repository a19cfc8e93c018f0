"""The card table in a real browser: headless Chromium, driven by Playwright, plays and replays every game.

The server runs in this process (uvicorn in a thread), so each test reads the engine's own state record behind
the page and checks the page against it at every step: whose turn it is, the legal actions offered as buttons
(exactly the legal mask), the table as text, and at the end the rewards. These tests skip, saying why, where no
Chromium is installed (Debian's ``chromium`` package) or Playwright is missing; ``.ci/run`` installs Chromium and
sets ``CARDENVS_REQUIRE_BROWSER=1``, under which a missing browser fails the run instead.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.records import GameRecord, replay

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: set (as .ci/run does) to make a missing browser a failure instead of a skip
REQUIRED = os.environ.get("CARDENVS_REQUIRE_BROWSER") == "1"
if CHROMIUM is None:
    reason = "no Chromium installed (Debian: apt-get install chromium); .ci/run installs it"
    if REQUIRED:
        pytest.fail(f"CARDENVS_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)
if REQUIRED:  # an ImportError then fails the run
    import uvicorn
    from playwright import sync_api
else:
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (the dev extra has it)")
    uvicorn = pytest.importorskip("uvicorn", reason="uvicorn is not installed (the web extra has it)")

from cardenvs.agents.registry import shipped_checkpoint  # noqa: E402
from cardenvs.games.clabber.resample import known_mask as clabber_known_mask  # noqa: E402
from cardenvs.web.app import DEFAULT_CHECKPOINTS, SESSION_COOKIE, create_app  # noqa: E402
from cardenvs.web.server import server_config  # noqa: E402
from cardenvs.web.tables import table_games  # noqa: E402
from cardenvs.web.words import action_namer, card_symbols, outcome  # noqa: E402
from tests.web.web_helpers import free_port  # noqa: E402

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
#: the flags that keep Chromium from reaching for the network on a closed machine
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: clicks a person makes at most in one short game (the short games take a few dozen)
MAX_CLICKS = 400
SERVER_START_SECONDS = 20
#: a page may wait for a game's first compilation (a cold numba cache takes tens of seconds)
PAGE_TIMEOUT_MS = 180_000
#: player_0's partner in Clabber
PARTNER = 2


@pytest.fixture(scope="module")
def server():
    app = create_app(DEFAULT_CHECKPOINTS)
    port = free_port()
    server = uvicorn.Server(server_config(app, host="127.0.0.1", port=port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + SERVER_START_SECONDS
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield app, f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(accept_downloads=True)
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    yield context.new_page()
    context.close()


def _go(page, target) -> None:
    """Clicks ``target`` (a selector or a locator), which opens another page, and waits until that page has
    loaded. A click alone may return before the next page is there (a form's submission is queued), and
    ``count`` or ``evaluate_all`` do not wait for the elements they read: they would read the page before."""
    with page.expect_navigation():
        (page.locator(target) if isinstance(target, str) else target).click()


def _table(app, page, kind: str):
    """The engine-side table behind the page shown now."""
    session = next(c["value"] for c in page.context.cookies() if c["name"] == SESSION_COOKIE)
    table_id = page.url.split("?")[0].rstrip("/").split("/")[-1]
    return app.state.tables.get(session, table_id, kind)


def _settled(page, table) -> None:
    """Wait until the table's agents have moved and the page shows it (it reloads itself while they think)."""
    deadline = time.monotonic() + PAGE_TIMEOUT_MS / 1000
    while table.running or page.locator("#game").get_attribute("data-running") == "1":
        assert time.monotonic() < deadline, "the agents did not finish"
        page.wait_for_timeout(200)


def _decision_buttons(page):
    """The page's buttons that make a decision (one per legal action)."""
    return page.locator("#actions button[data-action]")


def _click_decision(page, button) -> None:
    """Press a decision button (opening the list of arrangements first, where it is folded away)."""
    if page.locator("#actions details").count() and not page.locator("#actions details").get_attribute("open"):
        page.click("#actions summary")
    _go(page, button)


def _check_turn(page, table) -> None:
    """The page shows what the engine holds: the seat to act, the legal actions, the table text."""
    game = page.locator("#game")
    assert game.get_attribute("data-to-act") == str(table.to_act)
    assert page.locator(f'svg .seat[data-seat="{table.to_act}"]').get_attribute("data-to-act") == "1"
    offered = sorted(int(a) for a in _decision_buttons(page).evaluate_all(
        "buttons => buttons.map(b => b.dataset.action)"))
    mask = table.env.observe(table.env.agent_selection)["action_mask"]
    assert offered == np.flatnonzero(mask).tolist()
    assert page.locator("#table-text").text_content() == table.text(table.human)


@pytest.mark.parametrize("env_id", table_games())
def test_a_person_finishes_a_game_by_clicking_against_the_trained_agent(server, page, env_id, tmp_path):
    if shipped_checkpoint(env_id) is None:
        pytest.skip(f"{env_id} has no shipped trained agent")
    app, url = server
    page.goto(url)
    _go(page, f"#play-{env_id}")
    choices = page.locator("#new-game select[id^=agent_]")
    game = cardenvs.get_game(env_id)
    assert choices.count() == game.num_players(game.make_params()) - 1  # every seat but the person's
    for seat in range(choices.count()):  # the trained agent in every other seat (the default choice)
        assert choices.nth(seat).input_value() == "trained"
    if page.locator("#short").count():  # a game whose default is already short has no such box
        page.check("#short")
    page.fill("#seed", "11")
    _go(page, "#start")
    table = _table(app, page, "live")
    assert table.human == 0 and table.record.seed == 11
    clicks = random.Random(env_id)
    for _ in range(MAX_CLICKS):
        _settled(page, table)
        if page.locator("#game").get_attribute("data-over") == "1":
            break
        _check_turn(page, table)
        buttons = _decision_buttons(page)
        _click_decision(page, buttons.nth(clicks.randrange(buttons.count())))
    else:
        pytest.fail(f"the game did not end within {MAX_CLICKS} clicks")
    assert table.over
    said = page.locator("#result").text_content()
    assert said == "Game over: " + outcome(table.game, table.params, table.env.state_record, table.rewards(), 0)
    shown = page.locator("#rewards").text_content()
    for seat, reward in enumerate(table.rewards()):
        assert f"player_{seat}{' (you)' if seat == 0 else ''} {reward:+g}" in shown
    assert page.locator("#actions").count() == 0
    with page.expect_download() as download:
        page.click("#save")
    saved = tmp_path / "game.json"
    download.value.save_as(saved)
    record = GameRecord.load(saved)
    final: dict[str, float] = {}
    for _ in replay(record, final_rewards=final):
        pass
    assert list(final.values()) == table.rewards() == record.rewards


def _golden_of(env_id: str) -> Path:
    return next(path for path in sorted(GOLDEN.glob("*.json"))
                if json.loads(path.read_text())["record"]["env_id"] == env_id)


#: the games whose golden record the default run replays in the browser (every game's with --runslow): the replay
#: page is the same code for every game, and each replay takes half a minute of clicking
REPLAYED_BY_DEFAULT = ("slabberjan_v0", "clabber_v0")


@pytest.mark.parametrize("env_id", [
    pytest.param(env_id, marks=() if env_id in REPLAYED_BY_DEFAULT else pytest.mark.slow) for env_id in table_games()
])
def test_a_golden_record_replays_forwards_and_back(server, page, env_id):
    app, url = server
    golden = _golden_of(env_id)
    record = GameRecord.from_dict(json.loads(golden.read_text())["record"])
    expected = []  # (public text, seat 0's private text, action name) before each recorded action
    env = None
    for env, agent, action in replay(record):
        state, game, params = env.state_record, env.game, env.params
        expected.append((game.render(state, params), game.render_private(state, params, 0),
                         f"{agent} chooses {card_symbols(action_namer(game)(params, action, state))}"))
    page.goto(f"{url}/replay")
    page.set_input_files("input[name=record]", str(golden))
    _go(page, "#upload")
    table = _table(app, page, "replay")
    assert table.steps == len(record.actions)
    for step, (text, _, move) in enumerate(expected):
        assert page.locator("#game").get_attribute("data-step") == str(step)
        assert page.locator("#table-text").text_content() == text
        assert page.locator("#next-move").text_content() == f"Next: {move}"
        _go(page, "#forward")
    assert page.locator("#game").get_attribute("data-step") == str(len(expected))
    assert page.locator("#table-text").text_content() == env.game.render(env.state_record, env.params)
    _go(page, "#back")
    assert page.locator("#table-text").text_content() == expected[-1][0]
    _go(page, "#view-0")  # seat 0's point of view adds what only it saw
    private = expected[-1][1]
    assert page.locator("#table-text").text_content() == (f"{expected[-1][0]}\n{private}" if private else
                                                          expected[-1][0])


def test_watching_agents_step_by_step_then_to_the_end(server, page):
    app, url = server
    page.goto(f"{url}/watch/clabber_v0")
    page.check("#short")
    page.fill("#seed", "3")
    _go(page, "#start")
    table = _table(app, page, "live")
    assert table.human is None
    for decisions in range(1, 4):
        _go(page, "#step")
        _settled(page, table)
        assert page.locator("#game").get_attribute("data-decisions") == str(decisions) == str(table.decisions)
    _go(page, "#view-all")
    hidden = page.locator('svg .card[data-card="back"]').count()
    assert hidden == 0  # every hand open
    _go(page, "#to-end")
    _settled(page, table)
    assert page.locator("#game").get_attribute("data-over") == "1" and table.over


def test_an_illegal_action_posted_by_hand_is_refused_and_changes_nothing(server, page):
    app, url = server
    page.goto(f"{url}/play/gin_slaughtre_v0")
    page.fill("#seed", "5")
    _go(page, "#start")
    table = _table(app, page, "live")
    _settled(page, table)
    before = table.env.state_record.copy()
    mask = table.env.observe(table.env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    form = {name: page.locator(f'#actions input[name="{name}"]').get_attribute("value")
            for name in ("token", "decision")}
    response = page.request.post(page.url + "/play", form={**form, "action": str(illegal)})
    assert response.status == 400 and "is not legal now" in response.text()
    assert table.env.state_record.tobytes() == before.tobytes()


def _log_steps(page) -> list[int]:
    return [int(step) for step in page.locator("#log .move").evaluate_all("moves => moves.map(m => m.dataset.step)")]


def test_a_scripted_clabber_game_lists_every_move_hides_the_other_hands_and_ends_in_words(server, page):
    app, url = server
    page.goto(f"{url}/play/clabber_v0")
    page.select_option("#agent_1", "heuristic")
    page.select_option("#agent_2", "random")
    page.select_option("#agent_3", "heuristic")
    page.check("#short")
    page.fill("#seed", "21")
    _go(page, "#start")
    table = _table(app, page, "live")
    table_url = page.url
    listed = []  # every decision of the game, as the move lists showed them
    for _ in range(MAX_CLICKS):
        _settled(page, table)
        if page.locator("#game").get_attribute("data-over") == "1":
            break
        assert page.locator("#view-all").count() == 0 and page.locator("#save").count() == 0
        assert page.request.get(f"{table_url}?view=all").status == 403
        assert page.request.get(f"{table_url}?view=2").status == 403
        assert page.request.get(f"{table_url}/record.json").status == 403
        record = table.env.state_record  # the partner's cards stay face down, but for the melds it has shown
        hidden = int(record.hand[PARTNER]) & ~int(clabber_known_mask(record, 0, PARTNER))
        backs = page.locator(f'svg .seat[data-seat="{PARTNER}"] .card[data-card="back"]').count()
        assert backs == hidden.bit_count()
        decided = table.decisions
        _go(page, _decision_buttons(page).first)
        _settled(page, table)
        steps = _log_steps(page)
        assert steps == list(range(decided, table.decisions))  # yours first, then every other, none left out
        listed += steps
    else:
        pytest.fail(f"the game did not end within {MAX_CLICKS} clicks")
    assert listed == list(range(table.decisions))
    moves = page.locator("#log").text_content()
    assert "player_0 (you)" in moves and not any(  # the cards named as the pictures name them
        f"{rank}{suit}" in moves for rank in ("9", "10", "J", "Q", "K", "A") for suit in "CDHS")
    said = page.locator("#result").text_content()
    assert (" win the hand" in said or "A draw" in said) and "one hand played" in said and "ends" not in said
    _go(page, "#view-all")
    assert page.locator("#game").get_attribute("data-over") == "1"
    assert page.request.get(f"{table_url}/record.json").status == 200


def test_gin_slaughtre_s_upcards_are_chosen_by_clicking_cards_with_undo_and_a_confirm(server, page):
    app, url = server
    page.goto(f"{url}/play/gin_slaughtre_v0")
    page.select_option("#agent_1", "heuristic")
    page.fill("#seed", "8")
    _go(page, "#start")
    table = _table(app, page, "live")
    _settled(page, table)
    named = {button.get_attribute("data-cards"): int(button.get_attribute("value"))
             for button in _decision_buttons(page).all()}
    hand = page.locator('svg .seat[data-seat="0"] .card')
    labels = hand.evaluate_all("cards => cards.map(c => c.dataset.card)")
    assert {card for cards in named for card in cards.split()} == set(labels)  # one name for a card everywhere
    cards = next(iter(named))
    chosen = cards.split()
    assert not page.locator("#actions details").get_attribute("open")  # the list of 35 is folded away
    card = {label: page.locator(f'svg .seat[data-seat="0"] .card[data-card="{label}"]') for label in chosen}
    other = next(label for label in labels if label not in chosen)
    confirm = page.locator("#arrange-confirm")
    decided = table.decisions
    card[chosen[0]].click()
    page.locator(f'svg .seat[data-seat="0"] .card[data-card="{other}"]').click()
    assert page.locator("#arrange-chosen").text_content() == f"{chosen[0]} {other}"
    page.click("#arrange-undo")  # the last card clicked is unmarked
    assert page.locator("#arrange-chosen").text_content() == chosen[0] and confirm.is_disabled()
    for label in chosen[1:]:
        card[label].click()
    assert table.decisions == decided and not confirm.is_disabled()  # three cards choose nothing until confirmed
    _go(page, confirm)
    _settled(page, table)
    assert table.record.actions[decided] == named[cards]
    assert f"upcards: {cards}" in page.locator("#log").text_content()


#: for each game: the words a person prefers to click (the first button naming one), and the words the move list
#: must have used over the game for its key events
KEY_EVENTS = {
    "slap_v0": (("pass",), ("player_1 plays ", "the slap window closes")),
    "stabby_jack_v0": (("fight",), ("fights the monster", " damage (")),
    "slabberjan_v0": (("exchange",), ("showdown: ", " pays 1 chip")),
    "clabber_v0": (("accept", "play"), ("wins the trick for team", "hand over: points")),
    "gin_slaughtre_v0": (("upcards", "take the pile"), ("both players reveal their upcards", " starts ",
                                                        "picks up the pile")),
}


@pytest.mark.parametrize("env_id", table_games())
def test_the_move_list_says_what_happened_and_the_end_shows_every_hand_and_who_won(server, page, env_id):
    app, url = server
    preferred, expected = KEY_EVENTS[env_id]
    page.goto(f"{url}/play/{env_id}")
    for select in page.locator("#new-game select[id^=agent_]").all():
        select.select_option("heuristic")
    if page.locator("#short").count():
        page.check("#short")
    page.fill("#seed", "2")
    _go(page, "#start")
    table = _table(app, page, "live")
    said = []  # every move list the person saw
    for _ in range(MAX_CLICKS):
        _settled(page, table)
        said.append(page.locator("#log").text_content())
        if page.locator("#game").get_attribute("data-over") == "1":
            break
        buttons = _decision_buttons(page)
        names = buttons.all_text_contents()
        choice = next((i for word in preferred for i, name in enumerate(names) if word in name), 0)
        _click_decision(page, buttons.nth(choice))
    else:
        pytest.fail(f"the game did not end within {MAX_CLICKS} clicks")
    everything = "\n".join(said)
    for words in expected:
        assert words in everything, f"the move list never said {words!r}"
    # the end: every hand face up, and one sentence of who won and why, in the game's words
    shown = page.locator("svg .seat .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
    opened = table.env.table_svg(open_hands=True)
    assert sorted(shown) == sorted(re.findall(r'class="card" data-card="([^"]*)"', _seats_only(opened)))
    names = [f"player_{seat}" + (" (you)" if seat == 0 else "") for seat in range(table.num_players)]
    sentence = table.game.final_words(table.env.state_record, table.params, names)
    assert page.locator("#result").text_content() == f"Game over: {sentence}"


def _seats_only(svg: str) -> str:
    """The seats' part of a table picture (the centre's piles left out)."""
    return svg[svg.index('<g class="seat"'):]


#: the watch speed tested, decisions per second, and how long it is watched
WATCHED_SPEED = 10
WATCHED_SECONDS = 4


def test_the_watch_speed_is_what_the_page_says(server, page):
    app, url = server
    page.goto(f"{url}/watch/slap_v0")
    page.fill("#seed", "4")
    _go(page, "#start")
    table = _table(app, page, "live")
    _go(page, f"#speed-{WATCHED_SPEED}")
    page.wait_for_timeout(1000)  # the first pages, compiling nothing more
    start, decided = time.monotonic(), table.decisions
    page.wait_for_timeout(WATCHED_SECONDS * 1000)
    rate = (table.decisions - decided) / (time.monotonic() - start)
    assert abs(rate - WATCHED_SPEED) <= 0.1 * WATCHED_SPEED, f"{rate:.2f} decisions/s at {WATCHED_SPEED}/s"


#: WCAG AA: the least contrast of normal text with its background
AA_CONTRAST = 4.5


def _luminance(rgb: str) -> float:
    """Relative luminance (WCAG) of a computed colour ``rgb(r, g, b)``."""
    channels = [int(part) / 255 for part in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(first: str, second: str) -> float:
    light, dark = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_text_on_every_seat_panel_is_readable(server, page):
    _, url = server
    page.goto(f"{url}/play/slabberjan_v0")
    _go(page, "#start")
    pairs = page.locator("svg .seat").evaluate_all("""seats => seats.flatMap(seat => {
        const panel = getComputedStyle(seat.querySelector(':scope > rect')).fill;
        return Array.from(seat.querySelectorAll('text')).filter(t => !t.closest('.card'))
            .map(t => [seat.dataset.seat, seat.dataset.toAct, getComputedStyle(t).fill, panel]);
    })""")
    assert any(to_act == "1" for _, to_act, _, _ in pairs)
    for seat, to_act, ink, panel in pairs:
        assert _contrast(ink, panel) >= AA_CONTRAST, (seat, to_act, ink, panel, _contrast(ink, panel))
