"""End to end on the real default model (CPU, torch, fp32): the CLI's diff applies with git apply,
the result is the hand-written expected file, and speculative output equals plain greedy decoding.
The runs pass `--answer model`: by default this snippet's unambiguous merge would answer without the model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "e2e"
pytestmark = pytest.mark.model


def run_cli(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "APPLYEDIT_DEVICE": "cpu"}
    return subprocess.run([sys.executable, "-m", "applyedit", *args], cwd=repo, env=env,
                          capture_output=True, timeout=1200)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("e2e")
    shutil.copy(DATA / "before.py", repo / "inventory.py")
    shutil.copy(DATA / "edit.txt", repo / "edit.txt")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    return repo


@pytest.fixture(scope="module")
def runs(repo: Path) -> dict[str, tuple[subprocess.CompletedProcess[bytes], dict]]:
    out = {}
    for proposer in ("copy", "none"):
        report = repo / f"report-{proposer}.json"
        proc = run_cli(repo, "inventory.py", "--edit", "edit.txt", "--backend", "torch", "--device", "cpu",
                       "--dtype", "fp32", "--proposer", proposer, "--answer", "model", "--report-json", str(report))
        assert proc.returncode == 0, proc.stderr.decode()
        out[proposer] = (proc, json.loads(report.read_text()))
    return out


def test_cli_diff_applies_with_git_and_matches_expected(repo: Path, runs: dict) -> None:
    """`applyedit inventory.py --edit edit.txt | git apply` yields the hand-written expected file."""
    proc, _ = runs["copy"]
    assert proc.stdout.startswith(b"diff --git a/inventory.py b/inventory.py\n")
    subprocess.run(["git", "apply", "--check", "-"], cwd=repo, input=proc.stdout, check=True)
    subprocess.run(["git", "apply", "-"], cwd=repo, input=proc.stdout, check=True)
    assert (repo / "inventory.py").read_bytes() == (DATA / "after.py").read_bytes()
    shutil.copy(DATA / "before.py", repo / "inventory.py")


def test_speculative_output_equals_plain_greedy(runs: dict) -> None:
    """Copy-drafted speculative decoding emits exactly the tokens of plain greedy (--proposer none)."""
    (spec_proc, spec), (plain_proc, plain) = runs["copy"], runs["none"]
    assert spec["tokens"] == plain["tokens"]
    assert spec_proc.stdout == plain_proc.stdout
    # Plain greedy: one pass per token the model decided (the anchor's forced tokens ride along at the
    # head of the next pass), plus the pass whose token was the end-of-turn (not emitted).
    eos_pass = 1 if plain["summary"]["stop_reason"] == "eos" else 0
    forced = plain["report"]["totals"]["forced"]
    assert forced > 0  # the snippet merges unambiguously: its untouched lines were anchored
    assert plain["summary"]["passes"] == plain["summary"]["tokens"] - forced + eos_pass
    # Speculation must have saved passes on this mostly-copied file.
    assert spec["summary"]["passes"] * 3 <= spec["summary"]["tokens"]


def test_summary_on_stderr(runs: dict) -> None:
    """The brief summary goes to stderr (tokens, time, tokens per pass, acceptance, the edited region);
    the report names the model and device."""
    proc, report = runs["copy"]
    err = proc.stderr.decode()
    for word in ("tokens", "tok/pass", "accepted", "edited", "def total_value"):
        assert word in err
    assert (report["summary"]["model"], report["summary"]["device"]) == ("Qwen2.5-Coder-1.5B-Instruct", "cpu")
    assert (report["summary"]["backend"], report["summary"]["backend_reason"]) == ("torch", "--backend torch")
