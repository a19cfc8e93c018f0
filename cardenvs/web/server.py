"""The HTTP server of the card table: uvicorn with the app's own page for requests that are not valid HTTP.

uvicorn answers a request that breaks HTTP (a malformed chunked body, a Host header given twice, a header too
long) with a plain-text 400 of its own, and where the app was already reading that request's body, the app's answer
then met a closed connection and put a traceback in the log. :class:`AppPageH11Protocol` answers such a request with
the app's error page (and its security headers) and tells the app the client went away, so that the app's own
answer goes nowhere quietly. :func:`server_config` is the one configuration ``cardenvs serve`` and the tests use.
"""

from __future__ import annotations

from typing import Any

import h11
from uvicorn import Config
from uvicorn.protocols.http.h11_impl import H11Protocol

from cardenvs.web.app import SECURITY_HEADERS, error_page

#: seconds a shutting-down server waits for open requests (each waits at most a few seconds for its agents)
GRACEFUL_SHUTDOWN_SECONDS = 10
#: seconds an idle kept-alive connection stays open
KEEP_ALIVE_SECONDS = 5


class AppPageH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, answering a request that is not valid HTTP with the app's error page."""

    def send_400_response(self, msg: str) -> None:
        """The app's page, 400, for a request h11 could not read; the connection is closed after it."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the app reading the body gets a disconnect; its answer is dropped
            cycle.message_event.set()
            if cycle.response_started:  # part of the app's answer went out: nothing can follow it
                self.transport.close()
                return
        page = error_page("the request is not valid HTTP, so the server cannot read it", 400)
        headers = [(b"content-type", b"text/html; charset=utf-8"), (b"connection", b"close"), *SECURITY_HEADERS]
        try:
            for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                          h11.Data(data=page.body), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
        except h11.LocalProtocolError:  # the connection is past answering (a response already began)
            pass
        self.transport.close()


def server_config(app: Any, **options: Any) -> Config:
    """uvicorn's configuration of the card table: :class:`AppPageH11Protocol`, a bounded graceful shutdown (it
    then stops every thinking table), warnings only in the log.

    Args:
        app: the ASGI app (:func:`cardenvs.web.app.create_app`).
        **options: further ``uvicorn.Config`` options (``host``, ``port``, ``log_level``...).
    """
    settings = {"http": AppPageH11Protocol, "log_level": "warning", "lifespan": "on",
                "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_SECONDS, "timeout_keep_alive": KEEP_ALIVE_SECONDS,
                **options}
    return Config(app, **settings)
