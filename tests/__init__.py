"""The test suite. A regular package, so that a stray top-level ``tests`` package some libraries install (pgx
does) cannot shadow it in the subprocesses the tests start."""
