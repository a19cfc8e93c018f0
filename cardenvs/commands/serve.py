"""Serve the card table in the browser: play against agents, watch them, replay records.

Opens nothing by itself: it prints the address (http://127.0.0.1:8000 by default) to open in a browser. It
listens on this machine only unless ``--host`` says otherwise. The trained agents offered are the
``<env_id>.pt`` files in ``--checkpoints`` (default: the repository's agents/checkpoints).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cardenvs.commands import USAGE_ERROR

HELP = "serve the card table in the browser (play, watch, replay)"
PORT_LIMIT = 65535


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on; 127.0.0.1 is this machine only (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")
    parser.add_argument("--checkpoints", default=None, metavar="DIR",
                        help="folder of trained agents, <env_id>.pt (default: agents/checkpoints)")


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port <= PORT_LIMIT:
        print(f"cardenvs serve: --port must be from 1 to {PORT_LIMIT}", file=sys.stderr)
        return USAGE_ERROR
    try:
        import uvicorn

        from cardenvs.web.app import DEFAULT_CHECKPOINTS, create_app
    except ImportError as error:
        print(f"cardenvs serve: the web extra is not installed ({error}); pip install 'cardenvs[web]'",
              file=sys.stderr)
        return USAGE_ERROR
    checkpoints = DEFAULT_CHECKPOINTS if args.checkpoints is None else Path(args.checkpoints)
    if not checkpoints.is_dir():
        if args.checkpoints is not None:
            print(f"cardenvs serve: --checkpoints {checkpoints} is not a folder", file=sys.stderr)
            return USAGE_ERROR
        print(f"cardenvs: no trained agents at {checkpoints} (not a repository checkout?): offering random and "
              "heuristic only")
        checkpoints = None
    print(f"cardenvs: the card table is at http://{args.host}:{args.port}/ (Ctrl-C stops it)")
    try:
        uvicorn.run(create_app(checkpoints), host=args.host, port=args.port, log_level="warning")
    except OSError as error:  # the port is taken, the address is not this machine's
        print(f"cardenvs serve: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1
    return 0
