"""The issue's reproducers on the real default model, default settings, through the CLI as a user runs
it: each ends exact, or declined with the file untouched (exit 1: the snippet fits two readings;
exit 3: the answer broke an invariant or a check) — never exit 0 with a wrong file. Where the model
decided, the report says it ran."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.model
ROOT = Path(__file__).resolve().parent.parent / "corpus" / "adversarial"


def _reproducers() -> Any:
    spec = importlib.util.spec_from_file_location("adversarial_cases_model", ROOT / "cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["adversarial_cases_model"] = module
    spec.loader.exec_module(module)
    return module.REPRODUCERS


@pytest.mark.parametrize("case", _reproducers(), ids=lambda c: c.name)
def test_reproducer_on_the_real_model(case: Any, tmp_path: Path) -> None:
    target = tmp_path / f"t{case.ext}"
    target.write_text(case.before)
    (tmp_path / "e.txt").write_text(case.snippet)
    env = {**os.environ, "APPLYEDIT_DEVICE": "cpu"}
    proc = subprocess.run(
        [sys.executable, "-m", "applyedit", target.name, "--edit", "e.txt", "--in-place", "--report-json", "r.json"],
        cwd=tmp_path, env=env, capture_output=True, timeout=1200,
    )
    err = proc.stderr.decode()
    assert "Traceback" not in err
    if proc.returncode == 0:
        assert case.after is not None and target.read_text() == case.after, err
    else:
        assert proc.returncode in (1, 3), err
        assert target.read_text() == case.before
    if (tmp_path / "r.json").exists():  # a run that reached an answer or a checked refusal
        report = json.loads((tmp_path / "r.json").read_text())
        ran = report.get("report", {}).get("answer", {}).get("model_ran")
        assert ran in (True, False, None)
