"""Issue 17 through the real CLI with a scripted model (tests/fakes.py): outputs that only look like
success are refused or answered by the merge, never written with exit 0; anchoring forces what the
merge keeps (those tests pass `--answer model`: by default an unambiguous merge answers without the
model). Everything after the forward pass is the product.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clihelp import PY, Run, model, run, work  # noqa: F401  (fixtures)

NUMBERS = "".join(f"line_{i} = {i}\n" for i in range(30))
SNIPPET = "# ... existing code ...\nline_9 = 9\nline_10 = 100\nline_11 = 11\n# ... existing code ...\n"
EXPECTED = NUMBERS.replace("line_10 = 10\n", "line_10 = 100\n")


def test_unchanged_output_for_a_changing_snippet(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    """The model returns the original: refused without a fallback, answered by the merge with one."""
    (work / "n.py").write_text(NUMBERS)
    model(NUMBERS + "```\n")
    refused = run(
        "n.py", "--edit-text", SNIPPET, "--answer", "model", "--fallback", "none", "--anchor", "none", "--in-place"
    )
    assert refused.code == 3
    refused.one_line("the output equals the original although the edit is an update snippet that changes the file")
    assert (work / "n.py").read_text() == NUMBERS
    allowed = run(
        "n.py",
        "--edit-text",
        SNIPPET,
        "--answer",
        "model",
        "--fallback",
        "none",
        "--anchor",
        "none",
        "--allow-unchanged",
    )
    assert allowed.code == 0 and allowed.out == b"" and "accepted (--allow-unchanged)" in allowed.err
    answered = run(
        "n.py", "--edit-text", SNIPPET, "--answer", "model", "--anchor", "none", "--in-place", "--report-json", "r.json"
    )
    assert answered.code == 0, answered.err
    assert (work / "n.py").read_text() == EXPECTED
    assert (
        "answered with the snippet's merge: the model's output was refused (the output equals the original"
        in answered.err
    )
    assert json.loads((work / "r.json").read_text())["answer"] == "merge"


def test_unchanged_output_for_an_instruction_is_refused(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    model(PY + "```\n")
    r = run("f.py", "--edit-text", "Make a() return 10.")
    assert r.code == 3
    r.one_line(
        "the output equals the original although the edit is an instruction; nothing was written "
        "(--allow-unchanged to accept it)"
    )
    ok = run("f.py", "--edit-text", "Make a() return 10.", "--allow-unchanged")
    assert ok.code == 0 and ok.out == b"" and "no change" in ok.err


def test_output_lacking_the_snippets_new_lines(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    """Two new lines in the snippet, one in the output: refused; answered by the merge by default."""
    snippet = "def a():\n    x = 5\n    return 10\n\n\ndef b():\n# ... existing code ...\n"
    model(PY.replace("return 1\n", "return 10\n") + "```\n")
    r = run("f.py", "--edit-text", snippet, "--answer", "model", "--fallback", "none")
    assert r.code == 3
    r.one_line(
        "the output lacks 1 of the snippet's 2 new lines (first: 'x = 5'); nothing was written "
        "(--allow-mismatch to accept it)"
    )
    assert run("f.py", "--edit-text", snippet, "--answer", "model", "--fallback", "none", "--allow-mismatch").code == 0
    answered = run("f.py", "--edit-text", snippet, "--answer", "model", "--in-place")
    assert answered.code == 0 and "answered with the snippet's merge" in answered.err
    assert (work / "f.py").read_text() == "def a():\n    x = 5\n    return 10\n\n\ndef b():\n    return 2\n"


def test_output_lacking_new_lines_without_a_merge_is_refused(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    """No unambiguous merge to answer with (f() twice): by default the snippet is refused as ambiguous
    (exit 1, no model); the model's answer with `--answer model` is refused too, exit 3, nothing written."""
    (work / "twice.py").write_text("def f():\n    return 1\n\n\ndef f():\n    return 1\n")
    engine = model("def f():\n    return 1\n\n\ndef f():\n    return 1\n\n\ndef g():\n    pass\n```\n")
    snippet = "# ... existing code ...\ndef f():\n    return 2\n# ... existing code ...\n"
    ambiguous = run("twice.py", "--edit-text", snippet, "--in-place")
    assert ambiguous.code == 1 and engine._model.num_forwards == 0
    ambiguous.one_line(
        "the update snippet is ambiguous: segment 1 (from 'def f():') could stand at original lines 1 and 5"
    )
    r = run("twice.py", "--edit-text", snippet, "--answer", "model", "--in-place")
    assert r.code == 3
    r.one_line("the output lacks 1 of the snippet's 1 new lines (first: 'return 2')")
    assert (work / "twice.py").read_text().count("return 1") == 2


def test_output_far_longer_than_original_plus_snippet(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    snippet = "def a():\n    return 10\n\n\ndef b():\n# ... existing code ...\n"
    new = PY.replace("return 1\n", "return 10\n")
    model(new + "\n\n" + new * 3 + "```\n")  # the file, then three more copies
    r = run("f.py", "--edit-text", snippet, "--answer", "model", "--fallback", "none")
    assert r.code == 3
    r.one_line("the output has 26 lines, far more than the original (6) plus the snippet (6)")
    # the copies also define a() and b() again: that check refuses too, until it is allowed as well
    again = run("f.py", "--edit-text", snippet, "--answer", "model", "--fallback", "none", "--allow-mismatch")
    assert again.code == 3 and "defines 'def a():' twice" in again.err
    allowed = ("--allow-mismatch", "--allow-lost-definitions")
    assert run("f.py", "--edit-text", snippet, "--answer", "model", "--fallback", "none", *allowed).code == 0
    answered = run("f.py", "--edit-text", snippet, "--answer", "model", "--in-place")
    assert answered.code == 0 and (work / "f.py").read_text() == new


def test_dropped_code_is_answered_by_the_merge(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    snippet = "def a():\n    return 10\n\n\ndef b():\n# ... existing code ...\n"
    model("def a():\n    return 10\n```\n")  # b() vanished
    r = run("f.py", "--edit-text", snippet, "--answer", "model", "--in-place")
    assert r.code == 0, r.err
    assert (work / "f.py").read_text() == PY.replace("return 1\n", "return 10\n")
    assert (
        "answered with the snippet's merge: the model's output was refused (the output dropped 2 original lines"
        in r.err
    )


def test_anchoring_forces_what_the_merge_keeps(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    """Lines 1-8 are forced from the start; the model writes 9-13 (the hunk, its margins and the
    re-join line 13); 14-30 and the fence are forced: fewer passes, same file."""
    (work / "n.py").write_text(NUMBERS)
    engine = model(EXPECTED + "```\n")
    r = run("n.py", "--edit-text", SNIPPET, "--answer", "model", "--in-place", "--report-json", "r.json")
    assert r.code == 0, r.err
    assert (work / "n.py").read_text() == EXPECTED
    data = json.loads((work / "r.json").read_text())
    assert data["answer"] == "model" and data["report"]["anchored_lines"] == [[1, 8], [14, 30]]
    anchored_forwards = engine._model.num_forwards
    (work / "n.py").write_text(NUMBERS)
    engine = model(EXPECTED + "```\n")
    plain = run(
        "n.py", "--edit-text", SNIPPET, "--answer", "model", "--in-place", "--anchor", "none", "--report-json", "p.json"
    )
    assert plain.code == 0 and (work / "n.py").read_text() == EXPECTED
    assert json.loads((work / "p.json").read_text())["report"]["anchored_lines"] == []
    assert anchored_forwards < engine._model.num_forwards


def test_output_that_differs_from_an_unambiguous_merge(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    """The model writes the snippet's line but also changes a line the snippet does not show: refused
    without a fallback (`--allow-mismatch` accepts it); answered by the merge by default."""
    (work / "n.py").write_text(NUMBERS)
    strayed = EXPECTED.replace("line_20 = 20\n", "line_20 = 2000\n")
    model(strayed + "```\n")
    r = run("n.py", "--edit-text", SNIPPET, "--answer", "model", "--fallback", "none", "--anchor", "none", "--in-place")
    assert r.code == 3
    r.one_line(
        "the output differs from the snippet's unambiguous merge from line 21 (the output has "
        "'line_20 = 2000'; 30 lines against the merge's 30); nothing was written (--allow-mismatch to accept it)"
    )
    assert (work / "n.py").read_text() == NUMBERS
    kept = run(
        "n.py",
        "--edit-text",
        SNIPPET,
        "--answer",
        "model",
        "--fallback",
        "none",
        "--anchor",
        "none",
        "--allow-mismatch",
        "--in-place",
    )
    assert kept.code == 0 and (work / "n.py").read_text() == strayed
    (work / "n.py").write_text(NUMBERS)
    answered = run(
        "n.py", "--edit-text", SNIPPET, "--answer", "model", "--anchor", "none", "--in-place", "--report-json", "r.json"
    )
    assert answered.code == 0, answered.err
    assert (work / "n.py").read_text() == EXPECTED
    assert "answered with the snippet's merge: the model's output was refused (the output differs" in answered.err
    assert json.loads((work / "r.json").read_text())["answer"] == "merge"


def test_a_marker_less_piece_of_the_file_is_an_update_snippet(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    """Both markers left out, the changed line between context lines of the file: read as an update
    snippet (a note says so), so the checks and the merge apply; the model returning the original is
    answered by the merge. Prose stays an instruction."""
    (work / "n.py").write_text(NUMBERS)
    bare = "line_9 = 9\nline_10 = 100\nline_11 = 11\n"
    model(NUMBERS + "```\n")
    r = run("n.py", "--edit-text", bare, "--in-place", "--report-json", "r.json")
    assert r.code == 0, r.err
    assert (work / "n.py").read_text() == EXPECTED
    assert "read as an update snippet that keeps the code before and after it" in r.err
    data = json.loads((work / "r.json").read_text())
    assert data["kind"] == "snippet" and data["answer"] == "merge"
    (work / "n.py").write_text(NUMBERS)
    model(NUMBERS + "```\n")
    prose = run("n.py", "--edit-text", "Set line_10 to 100.\nKeep line_9 = 9\nand line_11 = 11\n")
    assert prose.code == 3 and "although the edit is an instruction" in prose.err


def test_a_merge_answer_has_no_decode(tmp_path: Path) -> None:
    """The merge's answer says no decode ran (no DecodeResult, no tokens, no model output) and its
    report is whole as built: the regions, then no anchored lines, the merge as the answer and no
    prompt; its summary's stop reason is "merge" and all its time is outside any step."""
    from applyedit import api

    (tmp_path / "n.py").write_text(NUMBERS)
    result = api.apply(tmp_path / "n.py", SNIPPET, cwd=tmp_path)
    assert result.answer == "merge" and result.after == EXPECTED
    assert result.decode is None and result.tokens == [] and result.output == ""
    assert result.summary.stop_reason == "merge" and result.summary.passes == result.summary.tokens == 0
    report = result.report
    assert list(report) == [
        *("run", "regions", "end", "totals", "profile", "legend"),
        *("anchored_lines", "answer", "prompt_cache"),
    ]
    assert report["anchored_lines"] == [] and report["answer"] == {"by": "merge", "model_ran": False, "notes": []}
    assert report["prompt_cache"] == {"prompt_tokens": 0, "reused": 0, "prefilled": 0}
    assert report["run"]["stop_reason"] == "merge" and report["profile"]["outside_s"] == result.summary.wall_s


def test_an_unambiguous_merge_answers_without_the_model(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    """By default the merge is the answer and no model runs: the scripted model (which would return
    the original) is never called, and the report says so. `--answer model` runs it (and its
    unchanged output is then answered by the merge with a warning); an ambiguous snippet still runs it."""
    (work / "n.py").write_text(NUMBERS)
    engine = model(NUMBERS + "```\n")
    r = run("n.py", "--edit-text", SNIPPET, "--in-place", "--report-json", "r.json")
    assert r.code == 0, r.err
    assert (work / "n.py").read_text() == EXPECTED
    assert "answered by the snippet's merge" in r.err and "no model ran" in r.err and "warning" not in r.err
    data = json.loads((work / "r.json").read_text())
    assert data["answer"] == "merge" and data["report"]["answer"] == {"by": "merge", "model_ran": False, "notes": []}
    assert data["summary"]["passes"] == 0 and data["tokens"] == []
    assert engine._model.num_forwards == 0
    (work / "n.py").write_text(NUMBERS)
    ran = run("n.py", "--edit-text", SNIPPET, "--answer", "model", "--in-place", "--report-json", "m.json")
    assert ran.code == 0 and (work / "n.py").read_text() == EXPECTED
    assert engine._model.num_forwards > 0 and "the model's output was refused" in ran.err
    assert json.loads((work / "m.json").read_text())["report"]["answer"]["model_ran"] is True
    bad = run("n.py", "--edit-text", SNIPPET, "--answer", "maybe")
    assert bad.code != 0 and "maybe" in bad.err


def test_an_ambiguous_merge_or_an_unchanging_one_runs_the_model(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    """f() twice: the snippet fits both places, so it is refused (exit 1) without the model unless
    `--answer model` lets the model choose; a snippet whose merge equals the file is no confident
    answer either: refused by default, the model runs with `--answer auto`."""
    (work / "twice.py").write_text("def f():\n    return 1\n\n\ndef f():\n    return 1\n")
    engine = model("def f():\n    return 2\n\n\ndef f():\n    return 1\n```\n")
    snippet = "def f():\n    return 2\n# ... existing code ...\n"
    refused = run("twice.py", "--edit-text", snippet, "--in-place")
    assert refused.code == 1 and engine._model.num_forwards == 0
    refused.one_line("the update snippet is ambiguous")
    r = run("twice.py", "--edit-text", snippet, "--answer", "model", "--in-place")
    assert r.code == 0, r.err
    assert engine._model.num_forwards > 0 and "no model ran" not in r.err
    (work / "n.py").write_text(NUMBERS)
    engine = model(NUMBERS + "```\n")
    unchanged = "# ... existing code ...\nline_10 = 10\n# ... existing code ...\n"
    refused = run("n.py", "--edit-text", unchanged)
    assert refused.code == 1 and engine._model.num_forwards == 0
    refused.one_line("its merge changes nothing in the file")
    same = run("n.py", "--edit-text", unchanged, "--answer", "auto")
    assert engine._model.num_forwards > 0 and "no model ran" not in same.err
