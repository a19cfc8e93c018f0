"""The ``cardenvs`` command line: one subcommand per module of :mod:`cardenvs.commands`.

``cardenvs demo ENV_ID`` plays one rendered game between the rule-based agents; ``cardenvs COMMAND --help``
describes each command.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: subcommand -> the module implementing it (``HELP``, ``add_arguments(parser)``, ``run(args) -> int``)
COMMANDS: dict[str, str] = {
    "demo": "cardenvs.commands.demo",
    "play": "cardenvs.commands.play",
    "replay": "cardenvs.commands.replay",
    "tournament": "cardenvs.commands.tournament",
    "baselines": "cardenvs.commands.baselines",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardenvs", description="Five card games as RL environments.")
    subparsers = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for command, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        module.add_arguments(subparsers.add_parser(command, help=module.HELP, description=module.__doc__))
        modules[command] = module
    args = parser.parse_args(argv)
    try:
        return modules[args.command].run(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
