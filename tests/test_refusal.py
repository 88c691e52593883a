"""A refusal keeps the work (issue 20): a refused output is saved in FILE.rej (or --reject-file), its
summary and the next steps are printed, exit 3; the user's file and unrelated files stay as they were.

Through the real CLI in-process with the scripted target (tests/fakes.py), as test_robustness does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from applyedit import refusal
from clihelp import PY, Run, model, run, work  # noqa: F401  (fixtures)

SNIPPET = "def a():\n    return 10\n\n\ndef b():\n# ... existing code ...\n"
DROPPED = "def a():\n    return 10\n"  # b() vanished: the dropped-code check refuses it


def test_refused_run_keeps_the_output_in_a_rej_file(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    model(DROPPED + "```\n")
    r = run("f.py", "--fallback", "none", "--answer", "model", "--edit-text", SNIPPET, "--in-place")
    assert r.code == 3 and r.out == b""
    r.one_line("the output dropped 2 original lines")
    assert (work / "f.py").read_text() == PY  # never written
    assert (work / "f.py.rej").read_text() == DROPPED  # the model's output, kept
    assert "the refused output is kept in f.py.rej (+1 -5 lines against f.py" in r.err
    assert "accept it as it is with --allow-drops" in r.err and "smaller edit" in r.err and "--model" in r.err


def test_an_existing_file_is_never_overwritten_by_the_reject(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    (work / "f.py.rej").write_text("someone else's notes\n")
    model(DROPPED + "```\n")
    assert run("f.py", "--fallback", "none", "--answer", "model", "--edit-text", SNIPPET).code == 3
    r = run("f.py", "--fallback", "none", "--answer", "model", "--edit-text", SNIPPET)
    assert r.code == 3 and "kept in f.py.rej.2" in r.err
    assert (work / "f.py.rej").read_text() == "someone else's notes\n"
    assert (work / "f.py.rej.1").read_text() == DROPPED == (work / "f.py.rej.2").read_text()


def test_reject_file_flag_and_its_checks(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    model(DROPPED + "```\n")
    run(
        "f.py", "--fallback", "none", "--answer", "model", "--edit-text", SNIPPET, "--reject-file", "out/refused.py"
    ).one_line("no such folder")  # before the run
    (work / "out").mkdir()
    r = run(
        "f.py", "--fallback", "none", "--answer", "model", "--edit-text", SNIPPET, "--reject-file", "out/refused.py"
    )
    assert r.code == 3 and (work / "out" / "refused.py").read_text() == DROPPED
    assert not (work / "f.py.rej").exists()
    run("f.py", "--fallback", "none", "--answer", "model", "--edit-text", SNIPPET, "--reject-file", "f.py").one_line(
        "is the file being edited"
    )
    assert (work / "f.py").read_text() == PY


def test_an_accepted_or_failed_decode_leaves_no_reject(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    model(DROPPED + "```\n")
    accepted = run(
        "f.py", "--fallback", "none", "--answer", "model", "--edit-text", SNIPPET, "--allow-drops", "--allow-mismatch"
    )
    assert accepted.code == 0
    model("```\n")  # an empty output: nothing worth keeping
    assert run("f.py", "--edit-text", "Make a() return 10.").code == 3
    assert sorted(p.name for p in work.iterdir()) == ["f.py"]


def test_next_steps_name_the_accepting_flag() -> None:
    assert "with --allow-markers" in refusal.next_steps("... nothing was written (--allow-markers to accept it)")
    assert "accept it" not in refusal.next_steps("the model returned an empty file")
    assert refusal.diff_summary("a\nb\nc\n", "a\nB\nc\nd\n") == (2, 1)
