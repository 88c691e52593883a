"""`applyedit eval` plumbing without a model: case discovery, the floor, and the git apply check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from applyedit.tools import evaluate
from applyedit.diff import unified_diff

FIXTURES = Path(__file__).parent.parent / "fixtures"


def test_discovers_every_fixture_case() -> None:
    """Every fixture folder with before/edit/after is a case; case.toml is read."""
    cases = evaluate.discover(FIXTURES)
    names = {c.name for c in cases}
    folders = {p.name for p in FIXTURES.iterdir() if (p / "edit.txt").is_file()}
    assert names == folders and len(cases) >= 24
    assert sum(c.bench for c in cases) >= 5
    assert all(c.meta.get("kind") in ("snippet", "instruction") for c in cases)


def test_filter_and_user_folders(tmp_path: Path) -> None:
    """Any folder in the format works; --filter narrows by name; incomplete folders are ignored."""
    for name in ("alpha_case", "beta_case"):
        d = tmp_path / name
        d.mkdir()
        (d / "before.py").write_text("x = 1\n")
        (d / "after.py").write_text("x = 2\n")
        (d / "edit.txt").write_text("Set x to 2.\n")
    (tmp_path / "incomplete").mkdir()
    assert [c.name for c in evaluate.discover(tmp_path)] == ["alpha_case", "beta_case"]
    assert [c.name for c in evaluate.discover(tmp_path, "beta")] == ["beta_case"]
    assert evaluate.discover(tmp_path)[0].meta == {}


def test_floor_is_read_from_the_suite(tmp_path: Path) -> None:
    """The committed floor file sets the minimum exact-match count (0 when absent)."""
    assert evaluate.read_floor(tmp_path) == 0
    (tmp_path / "floor.toml").write_text("exact_match_floor = 7\n")
    assert evaluate.read_floor(tmp_path) == 7


def test_git_apply_check(tmp_path: Path) -> None:
    """A diff made from the case's own before applies; a diff against other text does not."""
    case = evaluate.discover(FIXTURES, "py_change_constant")[0]
    before = case.before.read_text()
    good = unified_diff(before, before.replace("MAX_RETRIES = 3", "MAX_RETRIES = 4"), case.before.name)
    bad = unified_diff("nothing like it\n", "something else\n", case.before.name)
    assert evaluate.git_apply_check(case, good)
    assert not evaluate.git_apply_check(case, bad)


def test_whitespace_normalisation() -> None:
    """Trailing spaces, CRLF and trailing blank lines do not count for the whitespace match."""
    assert evaluate._strip_ws("a  \r\nb\n\n") == evaluate._strip_ws("a\nb")
    assert evaluate._strip_ws(" a\n") != evaluate._strip_ws("a\n")


def test_committed_floor_is_reachable() -> None:
    """The floor never exceeds the cases that are not known failures: a suite that cannot pass
    would hide every new regression behind a permanent failure."""
    fixtures = Path(__file__).parent.parent / "fixtures"
    cases = evaluate.discover(fixtures)
    assert len(cases) >= 24
    assert 0 < evaluate.read_floor(fixtures) <= sum(not c.known_failure for c in cases)


def test_eval_records_the_merge_answer_and_the_models_output(tokenizer, tmp_path: Path) -> None:
    """A case whose model output drops code (the model run with `answer="model"`): eval answers with
    the merge (exact), records that the merge answered, the model's own output and the options it ran
    with; --fallback none refuses, and the refused case still records the model's output and passes.
    By default the merge answers without the model."""
    from fakes import scripted_engine

    case = tmp_path / "cases" / "drop"
    case.mkdir(parents=True)
    original = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    (case / "before.py").write_text(original)
    (case / "after.py").write_text(original.replace("return 1", "return 10"))
    (case / "edit.txt").write_text("def a():\n    return 10\n\n\ndef b():\n# ... existing code ...\n")
    raw = "def a():\n    return 10\n```\n"
    report = evaluate.evaluate(
        tmp_path / "cases", engine=scripted_engine(tokenizer, raw), fallback="merge", answer="model"
    )
    r = report["cases"][0]
    assert r["exact"] and r["answer"] == "merge" and r["raw_output"] == raw and r["passes"] > 0
    assert report["options"] == {"fallback": "merge", "answer": "model"}
    default = evaluate.evaluate(tmp_path / "cases", engine=scripted_engine(tokenizer, raw))["cases"][0]
    assert default["exact"] and default["answer"] == "merge" and default["passes"] == 0 and not default["raw_output"]
    refused = evaluate.evaluate(
        tmp_path / "cases", engine=scripted_engine(tokenizer, raw), fallback="none", answer="model"
    )
    r = refused["cases"][0]
    assert not r["exact"] and "dropped 2 original lines" in r["error"]
    assert r["raw_output"] == raw and r["passes"] > 0 and r["tokens"] > 0  # what the refusal carried


def test_eval_saves_after_every_case_and_resumes(tokenizer, tmp_path: Path) -> None:
    """--json is written after each case; --resume keeps the saved cases (their engine never runs them
    again) and runs only the rest; without --json, --resume is a usage error."""
    from fakes import scripted_engine

    from applyedit.errors import UsageError

    original = "x = 1\ny = 2\n"
    for name in ("a_case", "b_case"):
        case = tmp_path / "cases" / name
        case.mkdir(parents=True)
        (case / "before.py").write_text(original)
        (case / "after.py").write_text("x = 10\ny = 2\n")
        (case / "edit.txt").write_text("Set x to 10.")
    saved = tmp_path / "eval.json"
    seen: list[str] = []
    first = evaluate.evaluate(
        tmp_path / "cases", "a_case", engine=scripted_engine(tokenizer, "x = 10\ny = 2\n```\n"), json_path=saved
    )
    assert [c["name"] for c in json.loads(saved.read_text())["cases"]] == ["a_case"] and first["exact"] == 1
    record = json.loads(saved.read_text())
    record["cases"][0]["passed"] = True  # a field an older version wrote: left out on resume
    saved.write_text(json.dumps(record))
    # b's engine writes a wrong file: a_case, already saved, must keep its exact result and not run again
    second = evaluate.evaluate(
        tmp_path / "cases",
        engine=scripted_engine(tokenizer, "x = 3\ny = 2\n```\n"),
        json_path=saved,
        resume=True,
        on_start=lambda n, t, c: seen.append(c.name),
    )
    assert seen == ["b_case"]
    assert [(c["name"], c["exact"]) for c in second["cases"]] == [("a_case", True), ("b_case", False)]
    assert json.loads(saved.read_text())["total"] == 2
    with pytest.raises(UsageError, match="--resume needs --json"):
        evaluate.evaluate(tmp_path / "cases", engine=scripted_engine(tokenizer, ""), resume=True)
