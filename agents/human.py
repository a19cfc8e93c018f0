"""A person at the terminal as an agent: shows the table and the legal actions, reads a choice.

Each time the agent is asked to act it prints the public table (the game's ``render``) and what only its seat
sees (``render_private``), when it is bound to an env with :meth:`HumanAgent.bind`, then the legal actions,
numbered from 1, with their names. The person answers with

- a number from the list;
- an action's name, case-insensitive, or any unambiguous start of it; the first word may be left out, so
  ``10s`` picks ``play 10S`` and ``exch`` picks ``exchange (...)``; a suit symbol may be typed as its letter
  (c ♣, d ♦, h ♥, s ♠), so ``4c`` and ``play 4c`` pick ``play 4♣``;
- ``table`` (show the table again), ``actions`` (list the actions again), ``?`` or ``help``;
- ``q`` or ``quit`` (or end of input) to stop: :meth:`HumanAgent.act` raises :class:`QuitGame`.

Anything else is answered with a message and asked again; only a legal action is ever returned.

A game whose ``action_name`` takes a ``state`` keyword names actions from the current position (Gin
Slaughtre's arrangements name the upcards they make); the agent passes it the bound env's record.
``cardenvs play`` (:mod:`cardenvs.commands.play`) seats one against the baseline agents.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from cardenvs.agents.base import Agent
from cardenvs.core.game import ObservationLayout
from cardenvs.core.registry import get_game

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "help")
TABLE_WORDS = ("table",)
ACTIONS_WORDS = ("actions",)
#: the width the action list is laid out in columns for
LIST_WIDTH = 100
PROMPT = "your move> "
#: suit symbols and the letter a person may type for each (white and black forms alike)
SUIT_LETTERS = str.maketrans({"♣": "c", "♧": "c", "♦": "d", "♢": "d", "♥": "h", "♡": "h", "♠": "s", "♤": "s"})

HELP_TEXT = """\
Type the number of an action from the list, or its name (any unambiguous start of it; the first word,
such as "play", may be left out; type suits as letters: c d h s, so "4c" is 4♣). Other commands:
  table    show the table again
  actions  list the legal actions again
  ?, help  this help
  q, quit  stop playing (end of input and Ctrl-C stop too)"""


def typed_form(text: str) -> str:
    """``text`` as it is compared with what a person types: lower case, single spaces, suit symbols as letters."""
    return " ".join(text.lower().translate(SUIT_LETTERS).split())


class QuitGame(Exception):  # noqa: N818 -- a choice of the person, not an error
    """The person asked to stop playing (``q``, ``quit`` or end of input)."""


class HumanAgent(Agent):
    """An agent whose decisions a person types at the terminal.

    Args:
        env_id: the game's env id.
        layout: the env's observation layout (kept for the common agent signature; a person reads the table).
        input_fn: reads one line given a prompt, like :func:`input` (which raises EOFError at end of input).
        output: shows one piece of text, like :func:`print`.
        params: the game's parameters, for action names; by default those of the env given to :meth:`bind`, or
            the game's defaults.
    """

    name = "human"
    #: a person decides one game at a time: batched callers must step this agent's games one by one
    acts_in_batches = False

    def __init__(
        self,
        env_id: str,
        layout: ObservationLayout,
        input_fn: Callable[[str], str] = input,
        output: Callable[[str], Any] = print,
        params: Any = None,
    ):
        self.game = get_game(env_id)
        self.layout = layout
        self.input_fn = input_fn
        self.output = output
        self.params = params if params is not None else self.game.make_params()
        self.env: Any = None
        self.player: int | None = None
        # whether the game can name actions from the current position
        self.names_from_state = "state" in inspect.signature(self.game.action_name).parameters

    def bind(self, env: Any, player: int) -> None:
        """Show ``env``'s table and seat ``player``'s private view before each decision.

        Args:
            env: the AEC env the agent plays in (wrapped or not).
            player: the seat the person plays.
        """
        self.env = env.unwrapped
        self.player = int(player)
        self.params = self.env.params

    def action_name(self, action: int) -> str:
        """The game's name of ``action``, from the bound env's position where the game can (its id where the game
        has no name for it)."""
        try:
            if self.names_from_state and self.env is not None:
                return self.game.action_name(self.params, int(action), state=self.env.state_record)
            return self.game.action_name(self.params, int(action))
        except (ValueError, IndexError):
            return f"action {int(action)}"

    def table(self) -> str:
        """The public table and the bound seat's private view ("" when not bound to an env)."""
        if self.env is None:
            return ""
        record = self.env.state_record
        text = self.game.render(record, self.env.params)
        private = self.game.render_private(record, self.env.params, self.player)
        return f"{text}\n{private}" if private else text

    def actions_text(self, legal: np.ndarray) -> str:
        """The legal actions numbered from 1, in as many columns as fit in :data:`LIST_WIDTH`."""
        entries = [f"{k + 1:>{len(str(len(legal)))}}  {self.action_name(a)}" for k, a in enumerate(legal)]
        width = max(len(entry) for entry in entries) + 3
        per_row = max(1, LIST_WIDTH // width)
        rows = [entries[i : i + per_row] for i in range(0, len(entries), per_row)]
        return "\n".join("  " + "".join(entry.ljust(width) for entry in row).rstrip() for row in rows)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Show the table and the legal actions; return the legal action the person picks.

        Raises:
            QuitGame: the person typed ``q``/``quit`` or the input ended.
            ValueError: the mask allows no action (nobody should ask this agent then).
        """
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("asked to act with no legal action")
        table = self.table()
        if table:
            self.output("\n" + table)
        self.output("legal actions:\n" + self.actions_text(legal))
        while True:
            try:
                line = self.input_fn(PROMPT)
            except EOFError:
                raise QuitGame("end of input") from None
            action, message = self.parse(line, legal)
            if action is not None:
                return action
            self.output(message)

    def parse(self, line: str, legal: np.ndarray) -> tuple[int | None, str]:
        """Read one answer: ``(action, "")`` for a legal action, else ``(None, what to tell the person)``.

        Raises:
            QuitGame: the answer is ``q``, ``quit`` or ``exit``.
        """
        text = typed_form(line)
        if text in QUIT_WORDS:
            raise QuitGame("you quit")
        if text in HELP_WORDS:
            return None, HELP_TEXT
        if text in TABLE_WORDS:
            return None, self.table() or "(no table to show)"
        if text in ACTIONS_WORDS:
            return None, "legal actions:\n" + self.actions_text(legal)
        if not text:
            return None, f"type a number from 1 to {len(legal)}, an action's name, or ? for help"
        if text.isdigit():
            number = int(text)
            if 1 <= number <= len(legal):
                return int(legal[number - 1]), ""
            return None, f"{number} is not in the list: type a number from 1 to {len(legal)} (? for help)"
        return self._match_name(text, legal)

    def _match_name(self, text: str, legal: np.ndarray) -> tuple[int | None, str]:
        names = {int(a): typed_form(self.action_name(a)) for a in legal}
        # The full name, or the name without its first word ("play 10s" -> "10s").
        forms = {a: (name, name.partition(" ")[2]) for a, name in names.items()}
        for matches in (
            [a for a, pair in forms.items() if text in pair],
            [a for a, pair in forms.items() if any(form.startswith(text) for form in pair if form)],
        ):
            if len(matches) == 1:
                return matches[0], ""
            if len(matches) > 1:
                shown = ", ".join(self.action_name(a) for a in matches[:6])
                more = ", …" if len(matches) > 6 else ""
                return None, f"{text!r} could be {shown}{more}: type more of the name, or a number"
        return None, f"no legal action is called {text!r}: type a number from 1 to {len(legal)} (? for help)"
