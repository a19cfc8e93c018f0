"""The web-memory benchmark (benchmarks/web_memory.py) refuses a bad command line before it starts any server: the
message names what is wrong and the exit status is a usage error.

The measurement itself (40 tables, about 3 minutes) is not run here: its result is a table in benchmarks/README.md.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from cardenvs.core.exit_codes import EXIT_USAGE

REPO_ROOT = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("benchmark_web_memory", REPO_ROOT / "benchmarks" / "web_memory.py")
web_memory = importlib.util.module_from_spec(SPEC)
sys.modules["benchmark_web_memory"] = web_memory
pytest.importorskip("starlette", reason="the web extra is not installed")
SPEC.loader.exec_module(web_memory)


@pytest.mark.parametrize(("argv", "message"), [
    (["--tables", "0"], "--tables and --sessions must be >= 1"),
    (["--sessions", "0"], "--tables and --sessions must be >= 1"),
    (["--moves", "-1"], "--moves and --overflow >= 0"),
    (["--tables", "40", "--sessions", "1"], "give more --sessions"),
    (["--sample-seconds", "nan"], "--sample-seconds must be > 0"),
    (["--sample-seconds", "0"], "--sample-seconds must be > 0"),
    (["--envs", "chess_v0"], "unknown game(s) chess_v0"),
])
def test_a_bad_command_line_is_a_usage_error_that_says_what_is_wrong(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        web_memory.parse_args(argv)
    assert exit_info.value.code == EXIT_USAGE
    assert message in capsys.readouterr().err


def test_the_defaults_are_the_measured_run():
    options = web_memory.parse_args([])
    assert (options.tables, options.sessions) == (40, 3)
