"""The exit codes of every cardenvs command line: ``cardenvs`` and its subcommands, the trainers' scripts and the
benchmarks. A command that fails prints one line saying why and returns one of these; it never raises.
"""

from __future__ import annotations

#: something the command needs is missing or failed (an extra not installed, a record that cannot be read, a
#: port taken, a cluster that cannot be joined)
EXIT_FAILURE = 1
#: an argument that is not allowed (argparse's and tyro's own code for a bad command line)
EXIT_USAGE = 2
#: stopped with Ctrl-C (128 + SIGINT, as shells report it)
EXIT_INTERRUPTED = 130
