"""The issue's reproducers on the real default model, through the CLI as a user runs it, with the model
made to answer (`--answer model --fallback none`: at default settings the merge answers or refuses
some of them without the model, which tests/test_adversarial.py covers): each ends exact (or, for a
snippet with no single right reading, any answer but the known wrong one), or refused with the file
untouched (exit 3: the model's answer broke an invariant or a check), and the report says the model ran."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.model, pytest.mark.timeout(1500)]  # above the CLI run's own 1,200 s
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
        [
            sys.executable,
            "-m",
            "applyedit",
            target.name,
            "--edit",
            "e.txt",
            "--in-place",
            "--report-json",
            "r.json",
            "--answer",
            "model",
            "--fallback",
            "none",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=1200,
    )
    err = proc.stderr.decode()
    assert "Traceback" not in err
    if proc.returncode == 0:
        # A snippet with no single right reading (no expected file) is the model's to choose here: any
        # choice but the known wrong file that passed the checks.
        if case.after is not None:
            assert target.read_text() == case.after, err
        else:
            assert target.read_text() not in (case.wrong, case.before), err
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["report"]["answer"]["model_ran"] is True and report["summary"]["passes"] > 0
    else:
        assert proc.returncode == 3, err  # the model's answer was checked and refused
        assert target.read_text() == case.before
        assert "the model" in err or "output" in err, err
