"""experiments/report.py: the main the analysis scripts share."""

from dataclasses import dataclass

import pytest

from cardenvs.core.exit_codes import EXIT_USAGE
from experiments.report import run_report

DOC = """Count to a number.

A second paragraph that --help leaves out.
"""


@dataclass
class Options:
    """The count."""

    upto: int = 3
    """the number to count to"""


def _count(options: Options) -> str:
    if options.upto < 1:
        raise ValueError(f"upto must be 1 or more, got {options.upto}")
    return " ".join(str(n) for n in range(1, options.upto + 1))


def test_the_report_of_the_parsed_options_is_printed(capsys):
    assert run_report(Options, DOC, _count, ["--upto", "4"]) == 0
    assert capsys.readouterr().out == "1 2 3 4\n"


def test_a_value_error_is_the_user_s_and_exits_2_with_its_message(capsys):
    assert run_report(Options, DOC, _count, ["--upto", "0"]) == EXIT_USAGE == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "error: upto must be 1 or more, got 0\n"


def test_help_describes_the_script_by_the_first_paragraph_of_its_docstring(capsys):
    with pytest.raises(SystemExit) as exit_info:
        run_report(Options, DOC, _count, ["--help"])
    assert exit_info.value.code == 0
    shown = capsys.readouterr().out
    assert "Count to a number." in shown and "--upto" in shown and "the number to count to" in shown
    assert "second paragraph" not in shown
