"""The merge-first answer on real commits (corpus/commits: clean and messy snippets of 1,722 single-file
commits from 16 repositories): what the product answers without a model, as `api.apply` reads a
snippet (implied markers, re-indented, then `confirm.confirmed`, held to the output checks).

The bar: no answer alone that is not the commit's file, beyond the cases listed, each by name, in
corpus/commits/known_wrong.txt (a new one fails; one that is fixed must leave the list), and at least
the committed share of clean snippets answered alone and exact (it may only rise).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from applyedit import checks, textio
from applyedit.merge import confirm, reindent
from applyedit.errors import ApplyEditError
from applyedit.markers import is_marker
from applyedit.merge import implied_snippet
from applyedit.options import RunOptions

ROOT = Path(__file__).resolve().parent.parent / "corpus" / "commits"
KNOWN_WRONG = ROOT / "known_wrong.txt"
CLEAN_ALONE_FLOOR = 0.795  # clean snippets answered alone and exact, measured; may only rise


def _cases() -> list[Any]:
    spec = importlib.util.spec_from_file_location("commit_cases", ROOT / "cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["commit_cases"] = module
    spec.loader.exec_module(module)
    return list(module.cases())


def answer_alone(before: str, snippet: str, language: str) -> str | None:
    """The file the product writes with no model, or None when the model decides or the run is refused:
    the confirmed merge (merge/confirm.py), held to the output checks as `outcome.answer_by_merge` holds it."""
    if not any(is_marker(x) for x in snippet.split("\n")):
        snippet = implied_snippet(before, snippet, language) or snippet
    snippet = reindent.to_file_style(before, snippet)
    result = confirm.confirmed(before, snippet, language)
    src = textio.source_from(Path("case.txt"), before.encode("utf-8"), language)
    body = checks.merge_answer(src, result)
    if body is None or body == before:
        return None
    try:
        checks.check_all(src, body, snippet, "snippet", result, RunOptions())
    except ApplyEditError:
        return None
    return body


@pytest.fixture(scope="module")
def outcomes() -> dict[str, tuple[str, str]]:
    """case name -> (style, "exact" | "wrong" | "declined")."""
    found = {}
    for c in _cases():
        answer = answer_alone(c.before, c.snippet, c.language)
        found[c.name] = (c.style, "declined" if answer is None else "exact" if answer == c.after else "wrong")
    return found


def test_no_answer_alone_is_wrong_beyond_the_known_list(outcomes: dict[str, tuple[str, str]]) -> None:
    known = {x.split("#")[0].strip() for x in KNOWN_WRONG.read_text().splitlines()} - {""}
    wrong = {name for name, (_, result) in outcomes.items() if result == "wrong"}
    assert sorted(wrong - known) == [], "new wrong answers without the model"
    assert sorted(known - wrong) == [], "fixed: take these out of corpus/commits/known_wrong.txt"


def test_clean_snippets_answered_alone(outcomes: dict[str, tuple[str, str]]) -> None:
    clean = [result for style, result in outcomes.values() if style == "clean"]
    assert len(clean) >= 1000
    assert sum(r == "exact" for r in clean) >= CLEAN_ALONE_FLOOR * len(clean)
