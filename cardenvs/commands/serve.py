"""Serve the card table in the browser: play against agents, watch them, replay records.

Opens nothing by itself: it prints the address (http://127.0.0.1:8000 by default) to open in a browser. It
listens on this machine only unless ``--host`` says otherwise; then it warns that anyone who can reach the
address can use the tables, and prints an address to open. The port is taken before anything is printed: a
port in use or an address that is not this machine's is a clear message and exit status 1. Listening on this
machine only, the server answers only requests that name this machine (a defence against DNS rebinding). The
trained agents offered are the ``<env_id>.pt`` files in ``--checkpoints`` (default: the shipped ones). Ctrl-C or
SIGTERM stops the server within seconds, the agents of every table included.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import socket
import sys
from pathlib import Path

from cardenvs.core.exit_codes import EXIT_FAILURE, EXIT_USAGE

HELP = "serve the card table in the browser (play, watch, replay)"
PORT_LIMIT = 65535
#: connections waiting to be accepted
LISTEN_BACKLOG = 128


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on; 127.0.0.1 is this machine only, 0.0.0.0 every network the "
                             "machine is on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")
    parser.add_argument("--checkpoints", default=None, metavar="DIR",
                        help="folder of trained agents, <env_id>.pt (default: the shipped trained agents)")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is an address (or the name ``localhost``) of this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def browser_url(host: str, port: int) -> str:
    """An address to open in a browser for a server listening on ``host``: a wildcard address (0.0.0.0, ::) is
    not one, so this machine's name stands for it."""
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to (host, port) and listening; OSError where it cannot be (a port in use)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(LISTEN_BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port <= PORT_LIMIT:
        print(f"cardenvs serve: --port must be from 1 to {PORT_LIMIT}", file=sys.stderr)
        return EXIT_USAGE
    try:
        import uvicorn

        from cardenvs.web.app import DEFAULT_CHECKPOINTS, LOOPBACK_HOSTS, create_app
        from cardenvs.web.server import server_config
    except ImportError as error:
        print(f"cardenvs serve: the web extra is not installed ({error}); pip install 'cardenvs[web]'",
              file=sys.stderr)
        return EXIT_USAGE
    checkpoints = DEFAULT_CHECKPOINTS if args.checkpoints is None else Path(args.checkpoints)
    if not checkpoints.is_dir():
        if args.checkpoints is not None:
            print(f"cardenvs serve: --checkpoints {checkpoints} is not a folder", file=sys.stderr)
            return EXIT_USAGE
        print("cardenvs: no trained agents installed: offering random and heuristic only")
        checkpoints = None
    try:
        sock = listen(args.host, args.port)
    except OSError as error:  # the port is taken, the address is not this machine's
        reason = "the port is in use (another server?)" if error.errno == errno.EADDRINUSE else error.strerror
        print(f"cardenvs serve: cannot listen on {args.host}:{args.port}: {reason or error}; choose another "
              "--port", file=sys.stderr)
        return EXIT_FAILURE
    loopback = is_loopback(args.host)
    if not loopback:
        print(f"cardenvs serve: warning: listening on {args.host}, so anyone who can reach this machine can open "
              "the card table (there are no accounts or passwords); use --host 127.0.0.1 for this machine only",
              file=sys.stderr)
    app = create_app(checkpoints, allowed_hosts=LOOPBACK_HOSTS if loopback else None)
    print(f"cardenvs: the card table is at {browser_url(args.host, args.port)} (Ctrl-C stops it)", flush=True)
    with sock:
        uvicorn.Server(server_config(app)).run(sockets=[sock])
    return 0
