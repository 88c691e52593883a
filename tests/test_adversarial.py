"""The adversarial snippets (corpus/adversarial/cases.py) and the issue's reproducers: never a wrong
file with exit 0.

At the merge: a confirmed merge (the answer without the model) is the expected file, every time; a
"must decline" snippet is never confirmed; the invariants accept every expected file and refuse
every wrong answer recorded beside it. Through the real CLI with a scripted model: each reproducer
ends exact or declined by default, and a model that writes the wrong file is refused (exit 3, the
file untouched).
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from clihelp import Run, model, run, work  # noqa: F401  (fixtures)

from applyedit import invariants
from applyedit.merge import confirm, reindent

ROOT = Path(__file__).resolve().parent.parent / "corpus" / "adversarial"


def _load() -> Any:
    if "adversarial_cases" in sys.modules:
        return sys.modules["adversarial_cases"]
    spec = importlib.util.spec_from_file_location("adversarial_cases", ROOT / "cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["adversarial_cases"] = module
    spec.loader.exec_module(module)
    return module


CASES = _load().cases()
REPRODUCERS = _load().REPRODUCERS


def test_the_suite_is_big_and_varied() -> None:
    assert len(CASES) >= 100
    per_language = Counter(c.language for c in CASES)
    assert len(per_language) >= 7 and min(n for lang, n in per_language.items() if lang != "cpp") >= 10
    assert sum(c.after is None for c in CASES) >= 30  # must decline
    assert sum(c.wrong is not None for c in CASES) >= 60
    assert len({c.name for c in CASES}) == len(CASES)
    assert {r.name for r in REPRODUCERS} <= {c.name for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_confirmed_merge_is_the_expected_file(case: Any) -> None:
    snippet = reindent.to_file_style(case.before, case.snippet)
    result = confirm.confirmed(case.before, snippet, case.language)
    if result.ok and result.merged != case.before:
        assert case.after is not None, f"must decline, but the merge answered: {result.merged!r}"
        assert result.merged == case.after


@pytest.mark.parametrize("case", [c for c in CASES if c.after is not None], ids=lambda c: c.name)
def test_the_invariants_accept_the_expected_file(case: Any) -> None:
    snippet = reindent.to_file_style(case.before, case.snippet)
    assert invariants.violations(case.before, case.after, snippet, "snippet", case.language) == []


WRONG = [c for c in CASES if c.wrong is not None and (c.after is not None or c.shape == "file-head")]


@pytest.mark.parametrize("case", WRONG, ids=lambda c: c.name)
def test_the_invariants_refuse_the_wrong_answer(case: Any) -> None:
    """A wrong answer is refused by an invariant: where the snippet has one right reading, and at the
    file's head. (For a snippet that fits two readings the product refuses before any answer.)"""
    snippet = reindent.to_file_style(case.before, case.snippet)
    assert invariants.violations(case.before, case.wrong, snippet, "snippet", case.language)


def test_the_merge_answers_most_plain_cases_alone() -> None:
    """Not a ratchet on guessing: the shapes that need the model are the hard ones; plain ones stay fast."""
    plain = [c for c in CASES if c.shape in ("plain", "deletion", "rename") and c.after is not None]
    alone = [c for c in plain if confirm.confirmed(c.before, c.snippet, c.language).ok]
    assert len(plain) >= 20 and len(alone) >= 0.8 * len(plain)


@pytest.mark.parametrize("case", REPRODUCERS, ids=lambda c: c.name)
def test_reproducer_through_the_cli(case: Any, work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    """Default settings: exact, or declined with nothing written. A model that writes the wrong file
    is refused (exit 3); one that writes the expected file is accepted."""
    target = work / f"t{case.ext}"
    target.write_text(case.before)
    (work / "e.txt").write_text(case.snippet)
    engine = model(case.wrong + "```\n")
    r = run(str(target.name), "--edit", "e.txt", "--in-place")
    if r.code == 0:
        assert case.after is not None and target.read_text() == case.after, r.err
    else:
        assert target.read_text() == case.before and r.code in (1, 3), r.err
        assert "Traceback" not in r.err
    if engine._model.num_forwards:  # the model decided: it wrote the wrong file, so it was refused
        assert r.code == 3
    # the model's wrong file is refused even when it is asked for
    target.write_text(case.before)
    refused = run(str(target.name), "--edit", "e.txt", "--in-place", "--answer", "model", "--fallback", "none")
    assert refused.code == 3 and target.read_text() == case.before, refused.err
    if case.after is not None:  # and the right one accepted
        model(case.after + "```\n")
        ok = run(str(target.name), "--edit", "e.txt", "--in-place", "--answer", "model")
        assert ok.code == 0 and target.read_text() == case.after, ok.err
