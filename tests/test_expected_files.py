"""Every expected file meets every invariant: an invariant never refuses a right answer.

Each case in the fixture format (fixtures/, and every `sample` folder under corpus/: a before file,
the edit, the expected after file) and each adversarial case with an expected file
(corpus/adversarial/cases.py) is read as a run reads it (`api.read_inputs`: the edit's kind, implied
markers, the snippet re-indented to the file's style), and its expected file is held to every
invariant (invariants.py), instructions included.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from applyedit import api, invariants, textio
from applyedit.tools import evaluate

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [ROOT / "fixtures", *sorted(p for p in (ROOT / "corpus").rglob("sample") if p.is_dir())]
CASES = [c for folder in FOLDERS for c in evaluate.discover(folder)]


def _adversarial() -> list[Any]:
    if "adversarial_cases" not in sys.modules:
        spec = importlib.util.spec_from_file_location("adversarial_cases", ROOT / "corpus" / "adversarial" / "cases.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["adversarial_cases"] = module
        spec.loader.exec_module(module)
    return [c for c in sys.modules["adversarial_cases"].cases() if c.after is not None]


ADVERSARIAL = _adversarial()


def test_the_cases_are_found() -> None:
    kinds = {api.read_inputs(c.before, c.edit.read_text(encoding="utf-8")).kind for c in CASES}
    assert len(CASES) >= 200 and kinds == {"snippet", "instruction"}
    assert len(ADVERSARIAL) >= 50


@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c.dir.relative_to(ROOT)))
def test_the_expected_file_meets_every_invariant(case: Any) -> None:
    got = api.read_inputs(case.before, case.edit.read_text(encoding="utf-8"))
    after = textio.source_from(case.after, case.after.read_bytes(), got.src.language).text
    found = invariants.violations(got.src.text, after, got.edit, got.kind, got.src.language, str(case.before))
    assert found == [], f"{got.kind}: {found}"


@pytest.mark.parametrize("case", ADVERSARIAL, ids=lambda c: c.name)
def test_the_adversarial_expected_file_meets_every_invariant(case: Any, tmp_path: Path) -> None:
    before = tmp_path / f"before{case.ext}"
    before.write_text(case.before, encoding="utf-8")
    got = api.read_inputs(before, case.snippet)
    found = invariants.violations(got.src.text, case.after, got.edit, got.kind, got.src.language, str(before))
    assert found == [], f"{got.kind}: {found}"
