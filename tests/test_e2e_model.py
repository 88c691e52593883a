"""End to end on the real default model (CPU, torch, fp32): the CLI's diff applies with git apply,
the result is the hand-written expected file, and speculative output equals plain greedy decoding:
the loop without drafts, and, on one short case, plain `transformers` generate() as an outside reference.
The runs pass `--answer model` (by default this snippet's unambiguous merge would answer without the
model) and check that the model ran."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "e2e"
pytestmark = [pytest.mark.model, pytest.mark.timeout(2400)]  # the module's CLI runs land in its first test


def run_cli(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "APPLYEDIT_DEVICE": "cpu"}
    return subprocess.run(
        [sys.executable, "-m", "applyedit", *args], cwd=repo, env=env, capture_output=True, timeout=1200
    )


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
        proc = run_cli(
            repo,
            "inventory.py",
            "--edit",
            "edit.txt",
            "--backend",
            "torch",
            "--device",
            "cpu",
            "--dtype",
            "fp32",
            "--proposer",
            proposer,
            "--answer",
            "model",
            "--report-json",
            str(report),
        )
        assert proc.returncode == 0, proc.stderr.decode()
        data = json.loads(report.read_text())
        assert data["report"]["answer"]["model_ran"] is True and data["summary"]["passes"] > 0
        out[proposer] = (proc, data)
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


SHORT = "RATE = 3\n\n\ndef fee(amount):\n    return amount * RATE\n"
SHORT_AFTER = "RATE = 5\n\n\ndef fee(amount):\n    return amount * RATE\n"  # written by hand


def test_loop_equals_plain_transformers_generate(tmp_path: Path) -> None:
    """The reference is not the product: on one short case, the tokens of applyedit's loop (copy drafts,
    the model forced to run) equal those of plain `transformers` generate() (greedy, no applyedit code)
    on the same converted weights in fp32, and the edit is the hand-written expected file."""
    import gc

    import torch
    from transformers import AutoModelForCausalLM

    from applyedit import api
    from applyedit.models import modelstore

    (tmp_path / "fees.py").write_text(SHORT)
    engine = api.Engine.open(device="cpu", dtype="fp32", backend="torch")
    result = api.apply(
        tmp_path / "fees.py", "Set RATE to 5.", engine=engine, cwd=tmp_path, answer="model", proposer="copy"
    )
    assert result.after == SHORT_AFTER and result.answer == "model"
    assert result.report["answer"]["model_ran"] is True and result.summary.passes > 0
    prompt = api.prepare(tmp_path / "fees.py", "Set RATE to 5.", engine, cwd=tmp_path).prompt_ids
    tokens = list(result.decode.tokens)
    assert tokens and result.decode.prompt_tokens == len(prompt)
    del engine, result
    gc.collect()
    model = AutoModelForCausalLM.from_pretrained(modelstore.default_model_dir(), dtype=torch.float32).eval()
    ids = torch.tensor([prompt])
    with torch.no_grad():
        # Greedy as the loop is: the model's own generation config would sample and penalise repeats.
        out = model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            do_sample=False,
            max_new_tokens=len(tokens),
            repetition_penalty=1.0,
            pad_token_id=tokens[0],
            top_p=None,
            top_k=None,
            temperature=None,
        )
    assert out[0, len(prompt) :].tolist() == tokens
