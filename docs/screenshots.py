"""Take the README's screenshots of the card table: one game of each env, played a few moves into, in Chromium.

Run from the repository root after set-up (Debian's chromium package installed)::

    .venv/bin/python docs/screenshots.py            # every game, into docs/images/table_<env_id>.png
    .venv/bin/python docs/screenshots.py slap_v0    # only these

The games are the registered ones (a game registered from outside with ``CARDENVS_GAME_MODULES`` included). The
server runs in this process, the person's seat is player_0 against the agents the page offers first (the trained
agent where the game has one), every game starts from the same seed and the person always takes the first legal
action, so the pictures are the same each run.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import sys
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

import cardenvs
from cardenvs.web.app import create_app

IMAGES = Path(__file__).resolve().parent / "images"
SEED = 2
#: the person's moves before the picture is taken (into the play, past the opening choices), in any game not in
#: MOVES_IN; fewer where the game ends first
MOVES = 4
#: games whose picture is taken after another number of moves: Slabberjan's round ends after a move or two, and
#: Slap's opening turns only lay cards on the pile
MOVES_IN = {"slabberjan_v0": 1, "slap_v0": 6}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1000, "height": 900}


def _serve() -> tuple[uvicorn.Server, str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help="env ids (default: every game)")
    games = parser.parse_args(argv).games or cardenvs.available_envs()
    unknown = sorted(set(games) - set(cardenvs.available_envs()))
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; choose from {', '.join(cardenvs.available_envs())}")
    chromium = shutil.which("chromium")
    if chromium is None:
        print("docs/screenshots.py: no chromium found; install Debian's chromium package", file=sys.stderr)
        return 1
    server, url = _serve()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        page.set_default_timeout(180_000)  # a cold numba cache compiles each game first
        for env_id in games:
            page.goto(f"{url}/play/{env_id}")
            page.fill("#seed", str(SEED))
            page.click("#start")
            for _ in range(MOVES_IN.get(env_id, MOVES)):
                if page.locator("#actions button").count() == 0:
                    break
                page.locator("#actions button").first.click()
            target = IMAGES / f"table_{env_id}.png"
            page.locator("#game").screenshot(path=str(target))
            print(f"wrote {target}")
        browser.close()
    server.should_exit = True
    return 0


if __name__ == "__main__":
    sys.exit(main())
