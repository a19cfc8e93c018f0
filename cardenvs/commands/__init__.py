"""The ``cardenvs`` subcommands, one module each.

Every module here defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int`` (a process
exit code). User errors print a message and return a non-zero code; they never raise.
"""
