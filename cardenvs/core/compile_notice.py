"""A one-line notice while a game's rules compile for the first time on a machine.

numba compiles a game's kernels once per version of cardenvs and state-record layout, and caches them
(:mod:`cardenvs.core.compile_cache`): the first run on a machine spends seconds to a minute or two compiling
before anything moves, every later run loads the compiled rules in about a second. So that a first run does not
look stuck, the first real compile of a game's rules in a process logs one line naming the game, what it is
compiled for, how long that usually takes and where the result is kept::

    cardenvs: compiling slap_v0's rules for cardenvs.core.vector on this machine, usually 10 s to a minute (once:
    later runs load them from ~/.cache/cardenvs)

numba announces each compile that it actually runs (a cache miss, never a load from the cache) as a
``numba:compile`` event; the listener here takes those of cardenvs functions whose arguments hold a game's state
record, and names that game once per process and front end (the module of the outermost function being
compiled: the batched env compiles the rules again after the AEC env, for about as long). A warm cache therefore
logs nothing, and neither does ``NUMBA_DISABLE_JIT=1``.

The line goes to the ``cardenvs.compile`` logger at WARNING level, so that it reaches stderr without any logging
set-up (Python's last-resort handler prints the bare message) and follows the application's logging where there
is one (pytest captures it). Silence it with ``logging.getLogger("cardenvs.compile").setLevel(logging.ERROR)``
(or the same on ``"cardenvs"``), or for every process of a run with ``CARDENVS_COMPILE_NOTICE=0``.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from numba.core import event, types

from cardenvs.core.compile_cache import source_dirs
from cardenvs.core.dispatch import registered_game

#: the logger of the notice
LOGGER_NAME = "cardenvs.compile"
#: the environment variable that silences the notice when set to ``0``
NOTICE_VARIABLE = "CARDENVS_COMPILE_NOTICE"
#: what a game's first compile usually costs: one front end's kernels take 10-20 s on two busy cores, the batched
#: env's and an agent's kernels after them up to about a minute
USUAL_FIRST_COMPILE = "usually 10 s to a minute"

_LOGGER = logging.getLogger(LOGGER_NAME)
_COMPILE_EVENT = "numba:compile"


def notice_enabled() -> bool:
    """Whether the notice is on: unless ``CARDENVS_COMPILE_NOTICE`` is ``0`` (the logger's level still applies)."""
    return os.environ.get(NOTICE_VARIABLE, "").strip() != "0"


def game_of(argument_types: tuple) -> str | None:
    """The env id of the game whose state record (a record, or an array of records) is among a compiled
    function's argument types; None if there is none, or its record belongs to no registered game.

    Args:
        argument_types: the numba types of the function's arguments, as numba's ``numba:compile`` event gives them.
    """
    for argument in argument_types:
        record = argument.dtype if isinstance(argument, types.Array) else argument
        if isinstance(record, types.Record):
            try:
                return registered_game(tuple(record.fields)).env_id
            except TypeError:
                continue
    return None


def _source_file(dispatcher: Any) -> str:
    code = getattr(getattr(dispatcher, "py_func", None), "__code__", None)
    return os.path.abspath(code.co_filename) if code is not None else ""


def _is_cardenvs_function(dispatcher: Any) -> bool:
    return any(_source_file(dispatcher).startswith(folder + os.sep) for folder in source_dirs())


def _module_of(dispatcher: Any) -> str:
    return getattr(getattr(dispatcher, "py_func", None), "__module__", None) or "?"


def _cache_root(dispatcher: Any) -> str | None:
    """The cache folder the dispatcher writes to (the parent of its source folder's subfolder), or None."""
    path = getattr(getattr(dispatcher, "stats", None), "cache_path", None)
    return os.path.dirname(path) if path else None


class FirstCompileNotice(event.Listener):
    """Logs the notice for the first compile of each game's rules into each front end in this process.

    A front end is named by the module of the outermost function being compiled (``cardenvs.core.single`` for the
    AEC env, ``cardenvs.core.vector`` for the batched env, ...): the game's own functions compile inside it, and a
    second front end compiles the rules again, for about as long.
    """

    def __init__(self) -> None:
        self._announced: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self._local = threading.local()  # the modules of the compiles in progress in this thread, outermost first

    def _compiling(self) -> list[str]:
        if not hasattr(self._local, "modules"):
            self._local.modules = []
        return self._local.modules

    def on_start(self, compile_event: event.Event) -> None:
        """Log the notice if a cardenvs function that takes a game's state record starts to compile, for a game
        and front end not announced yet.

        Args:
            compile_event: numba's ``numba:compile`` event, whose data holds the dispatcher and argument types.
        """
        dispatcher = compile_event.data["dispatcher"]
        compiling = self._compiling()
        compiling.append(_module_of(dispatcher))
        if not notice_enabled() or not _is_cardenvs_function(dispatcher):
            return
        env_id = game_of(tuple(compile_event.data["args"]))
        if env_id is None:
            return
        key = (env_id, compiling[0])
        with self._lock:
            if key in self._announced:
                return
            self._announced.add(key)
        root = _cache_root(dispatcher)
        kept = f"once: later runs load them from {root}" if root else "not cached"
        _LOGGER.warning(
            "cardenvs: compiling %s's rules for %s on this machine, %s (%s)", env_id, compiling[0],
            USUAL_FIRST_COMPILE, kept,
        )

    def on_end(self, compile_event: event.Event) -> None:
        """Close the compile that :meth:`on_start` opened (it ended, or failed).

        Args:
            compile_event: numba's ``numba:compile`` event.
        """
        compiling = self._compiling()
        if compiling:
            compiling.pop()


_LISTENER = FirstCompileNotice()
_installed: list[bool] = []


def install() -> None:
    """Listen to numba's compile events (idempotent)."""
    if not _installed:
        event.register(_COMPILE_EVENT, _LISTENER)
        _installed.append(True)
