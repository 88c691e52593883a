"""`applyedit bench FILE --edit E --reader` (tools/benchreader.py): a certain snippet is timed in process
and through a real CLI process (its merge answer, the user's file untouched); a snippet with two
readings is timed through the tie-break against one prefill of the same prompt on the same engine (a
scripted model here: the timing is the product's own `tiebreak.score`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from applyedit.errors import InputError
from applyedit.tools import benchreader

FILE = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(12)) + (
    "def g(y):\n    y = y * 2\n    return y\n\n\ndef k(y):\n    y = y * 2\n    return y - 1\n"
)
CERTAIN = "# ... existing code ...\ndef f3(x):\n    return x + 33\n# ... existing code ...\n"
TWO_PLACES = "# ... existing code ...\n    y = y * 2\n    y += 1\n# ... existing code ...\n"  # in g or in k


def test_a_certain_snippet_is_timed_in_process_and_through_the_cli(tmp_path: Path) -> None:
    file, edit = tmp_path / "m.py", tmp_path / "e.txt"
    file.write_text(FILE, encoding="utf-8")
    edit.write_text(CERTAIN, encoding="utf-8")
    opened: list[int] = []
    report = benchreader.run(file, edit, 2, lambda: opened.append(1))
    assert report["certain"] and report["readings"] == 1 and report["lines"] == FILE.count("\n")
    assert len(report["reading_s"]) == 2 and len(report["cli_s"]) == 2 and all(t > 0 for t in report["cli_s"])
    assert not opened and "tiebreak_s" not in report  # no model for a certain reading
    assert file.read_text(encoding="utf-8") == FILE  # the CLI ran on a copy
    lines = benchreader.render(report)
    assert any("merge answer, whole CLI" in x for x in lines) and "(certain)" in lines[0]


def test_two_readings_are_timed_through_the_tiebreak(tmp_path: Path, tokenizer: Any) -> None:
    from fakes import scripted_engine

    file, edit = tmp_path / "m.py", tmp_path / "e.txt"
    file.write_text(FILE, encoding="utf-8")
    edit.write_text(TWO_PLACES, encoding="utf-8")
    report = benchreader.run(file, edit, 1, lambda: scripted_engine(tokenizer, FILE + "```\n"))
    assert not report["certain"] and 2 <= report["readings"] <= 5, report
    assert report["prompt_tokens"] > report["shared_tokens"] > 0 and report["scored_tokens"] > 0
    timed = ("prefill_s", "tiebreak_s", "spans_s", "shared_s")
    assert [len(report[k]) for k in timed] == [1, 1, 1, 1]
    assert any("tie-break" in x and "x the prefill" in x for x in benchreader.render(report))
    bound = f"the {report['scored_tokens']} tokens scored"
    assert any("prefill + spans (bound)" in x and bound in x for x in benchreader.render(report))
    # the lines of the file the tie-break's prompt held, where not all: this record's window, or the cut at
    # the top that records before the window kept
    lines = report["lines"]
    assert not any("the file's lines" in x for x in benchreader.render({**report, "prompt_window": [0, 0]}))
    held = f"(the file's lines 4 to {lines - 2})"
    assert any(held in x for x in benchreader.render({**report, "prompt_window": [3, 2]}))
    old = {k: v for k, v in report.items() if k != "prompt_window"}
    assert any(f"(the file's lines 8 to {lines})" in x for x in benchreader.render({**old, "prompt_cut": 7}))


def test_an_instruction_is_not_a_reader_bench(tmp_path: Path) -> None:
    file, edit = tmp_path / "m.py", tmp_path / "e.txt"
    file.write_text(FILE, encoding="utf-8")
    edit.write_text("Rename g to h.", encoding="utf-8")
    with pytest.raises(InputError, match="instruction"):
        benchreader.run(file, edit, 1, lambda: None)
