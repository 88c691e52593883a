"""Golden fixtures on the real default model (CPU, fp32): a representative subset of `fixtures/`.

The whole suite runs through `applyedit eval fixtures` (it takes longer than CI's budget on this CPU);
here, every case tagged `easy` must match its hand-written expected file byte for byte, and its diff
must pass `git apply --check` (known failures are reported as expected failures, never skipped).
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from applyedit import api
from applyedit.tools import evaluate

FIXTURES = Path(__file__).parent.parent / "fixtures"
CASES = [c for c in evaluate.discover(FIXTURES) if "easy" in c.meta.get("tags", [])]
pytestmark = [pytest.mark.model, pytest.mark.timeout(1800)]  # a case on torch fp32: minutes on a CPU


@pytest.fixture(scope="module")
def engine() -> api.Engine:
    return api.Engine.open(device="cpu", dtype="fp32", backend="torch")  # the exactness reference


def test_subset_is_representative() -> None:
    """The subset covers snippets and instructions, and CRLF / no-final-newline files."""
    kinds = {c.meta["kind"] for c in CASES}
    tags = {t for c in CASES for t in c.meta.get("tags", [])}
    assert kinds == {"snippet", "instruction"}
    assert {"crlf", "no-final-newline"} <= tags


def _param(case: evaluate.Case) -> object:
    # A known failure still runs; strict xfail turns an unexpected pass into a failure to look at.
    marks = (
        [pytest.mark.xfail(strict=True, reason=case.meta.get("known_failure_reason", ""))] if case.known_failure else []
    )
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_golden_case(engine: api.Engine, case: evaluate.Case) -> None:
    """The model's edit equals the expected file exactly and its diff applies with git. The model always
    runs (`answer="model"`): by default a snippet whose merge is confirmed is answered without it."""
    result = evaluate.run_case(engine, case, answer="model")
    assert result.error is None, result.error
    assert result.regions["answer"]["model_ran"] and result.answer == "model", result.regions.get("answer")
    assert result.passes > 0 and result.tokens > 0
    if not result.exact:
        expected = case.after.read_text(encoding="utf-8")
        diff = difflib.unified_diff(
            expected.splitlines(True),
            (result.produced or "").splitlines(True),
            f"expected/{case.after.name}",
            f"produced/{case.after.name}",
        )
        pytest.fail(f"{case.name}: output differs from {case.after.name}:\n{''.join(diff)}")
    assert result.git_apply_ok in (True, None)
    assert result.syntax_ok in (True, None)
