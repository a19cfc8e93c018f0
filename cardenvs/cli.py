"""The ``cardenvs`` command line: one subcommand per module of :mod:`cardenvs.commands`.

``cardenvs demo ENV_ID`` plays one rendered game between the rule-based agents; ``cardenvs COMMAND --help``
describes each command.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys

from cardenvs.core.exit_codes import EXIT_INTERRUPTED, EXIT_USAGE

#: subcommand -> the module implementing it (``HELP``, ``add_arguments(parser)``, ``run(args) -> int``)
COMMANDS: dict[str, str] = {
    "demo": "cardenvs.commands.demo",
    "play": "cardenvs.commands.play",
    "replay": "cardenvs.commands.replay",
    "tournament": "cardenvs.commands.tournament",
    "baselines": "cardenvs.commands.baselines",
    "exploit": "cardenvs.commands.exploit",
    "leaderboard": "cardenvs.commands.leaderboard",
    "serve": "cardenvs.commands.serve",
    "rules": "cardenvs.commands.rules",
}
#: subcommands with a command line of their own (built by tyro from their options dataclass): the rest of the
#: arguments go to the module's ``main(argv) -> int``
DELEGATED: dict[str, tuple[str, str]] = {
    "train": ("cardenvs.training.selfplay", "train a self-play agent on a game by its recipe (cardenvs[train])"),
}
DESCRIPTION = (
    "Five card games as RL environments: watch, play, replay and rate agents at the terminal or in the browser."
)
EPILOG = "Run 'cardenvs COMMAND --help' for a command's arguments, e.g. 'cardenvs play --help'."

# Sphinx markup of the docstrings the help texts are made from, and what a terminal shows instead.
_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")  # :mod:`x`, :class:`~a.B`
_LITERAL = re.compile(r"``([^`]+)``")
_LITERAL_BLOCK = re.compile(r"::$", re.MULTILINE)  # "Example::" opens an indented literal block


def plain_text(docstring: str | None) -> str:
    """A docstring as a terminal shows it: Sphinx roles and literal markup removed."""
    text = _ROLE.sub(r"\1", docstring or "")
    text = _LITERAL.sub(r"\1", text)
    return _LITERAL_BLOCK.sub(":", text).strip()


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the descriptions' paragraphs and examples as written, and shows every option's default once.

    An option whose help already says its default (it holds the word "default") is left as it is: that is how
    defaults that are not a plain value (``None``: "drawn and printed") are described.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        help_text = action.help or ""
        default = action.default
        if (
            not action.option_strings
            or "default" in help_text
            or any(default is nothing for nothing in (None, False, argparse.SUPPRESS))  # 0 is a default to show
            or action.nargs == 0  # flags: present or not
        ):
            return help_text
        shown = " ".join(map(str, default)) if isinstance(default, (list, tuple)) else str(default)
        return f"{help_text} (default: {shown.replace('%', '%%')})"


def build_parser() -> argparse.ArgumentParser:
    """The ``cardenvs`` parser with every subcommand's arguments (``args.run`` is the command to call)."""
    parser = argparse.ArgumentParser(
        prog="cardenvs", description=DESCRIPTION, epilog=EPILOG, formatter_class=HelpFormatter
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        subparser = subparsers.add_parser(
            command, help=module.HELP, description=plain_text(module.__doc__), formatter_class=HelpFormatter
        )
        module.add_arguments(subparser)
        subparser.set_defaults(run=module.run)
    for command, (_, text) in DELEGATED.items():
        subparsers.add_parser(command, help=text, add_help=False)  # listed here; its own main parses the rest
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default: the process's); returns the exit code, also for bad arguments."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in DELEGATED:
        try:
            return importlib.import_module(DELEGATED[argv[0]][0]).main(argv[1:])
        except SystemExit as done:  # --help, or the command line's own message about a bad argument
            return done.code if isinstance(done.code, int) else EXIT_USAGE
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, or argparse's message about a bad argument
        return done.code if isinstance(done.code, int) else EXIT_USAGE
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print(f"\ncardenvs {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
