"""The eval runner and the CLI's output checks with a scripted target behind the real model seam.

The tokenizer is the default model's real one; the forward pass is scripted (tests/fakes.py), so the
runner, proposer, fence handling, checks and diff writer run for real in seconds.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from applyedit import api
from applyedit.tools import bench, evaluate
from applyedit.errors import DecodeError, OutputCheckError
from fakes import scripted_engine

FIXTURES = Path(__file__).parent.parent / "fixtures"


def case(name: str) -> evaluate.Case:
    return evaluate.discover(FIXTURES, name)[0]


def test_runner_scores_a_correct_output_as_exact(tokenizer) -> None:  # noqa: ANN001
    """A target that writes the expected file: exact, whitespace match, git apply ok, syntax ok."""
    c = case("py_change_constant_instr")
    expected = c.after.read_text()
    engine = scripted_engine(tokenizer, expected + "\n```\n")  # the model always ends lines with \n
    r = evaluate.run_case(engine, c)
    assert r.error is None and r.exact and r.whitespace_match
    assert r.git_apply_ok is True and r.syntax_ok is True
    assert r.tokens_per_pass > 5  # copy drafting accepted long blocks from the original
    assert r.regions["totals"]["tokens"] == r.tokens and any(g["kind"] == "edited" for g in r.regions["regions"])


def test_runner_reports_a_wrong_output(tokenizer) -> None:  # noqa: ANN001
    """A target that writes the original unchanged for an instruction: refused (never a silent empty
    diff), not exact, no diff to check; with --allow-unchanged it is a plain wrong answer."""
    c = case("py_change_constant_instr")
    engine = scripted_engine(tokenizer, c.before.read_text() + "\n```\n")
    r = evaluate.run_case(engine, c)
    assert not r.exact and r.git_apply_ok is None and "the output equals the original" in (r.error or "")
    r = evaluate.run_case(engine, c, allow_unchanged=True)
    assert not r.exact and r.git_apply_ok is None and r.error is None


@pytest.mark.parametrize("with_case_toml", [True, False])
def test_runner_reports_a_syntax_break(tokenizer, tmp_path: Path, with_case_toml: bool) -> None:  # noqa: ANN001
    """An output that no longer parses is refused as the CLI would (eval runs its checks), and with
    --allow-syntax-errors flagged (syntax_ok False) while the diff still applies; a user's case folder
    without case.toml gets its language from the file's extension."""
    shutil.copytree(case("py_change_constant_instr").dir, tmp_path / "c")
    if not with_case_toml:
        (tmp_path / "c" / "case.toml").unlink()
    c = evaluate.discover(tmp_path)[0]
    broken = c.after.read_text().replace("MAX_RETRIES = 5", "MAX_RETRIES = (5")
    r = evaluate.run_case(scripted_engine(tokenizer, broken + "\n```\n"), c)
    assert not r.exact and "no longer parses as python" in (r.error or "") and r.raw_output
    r = evaluate.run_case(scripted_engine(tokenizer, broken + "\n```\n"), c, allow_syntax_errors=True)
    assert r.syntax_ok is False and r.git_apply_ok is True and not r.exact


def test_truncated_output_is_an_error_not_a_diff(tokenizer, tmp_path: Path) -> None:  # noqa: ANN001
    """Output that ends before the closing fence is refused; nothing is produced."""
    src = tmp_path / "f.py"
    shutil.copy(FIXTURES / "py_change_constant_instr" / "before.py", src)
    engine = scripted_engine(tokenizer, "import logging\n")  # then end-of-turn, no closing fence
    with pytest.raises(DecodeError, match="cut short"):
        api.apply(src, "Set MAX_RETRIES to 5.", engine=engine, cwd=tmp_path)
    with pytest.raises(DecodeError, match="budget"):
        api.apply(src, "Set MAX_RETRIES to 5.", engine=engine, cwd=tmp_path, max_new_tokens=3)


def test_eval_keeps_the_raw_output_of_a_refused_case(tokenizer) -> None:  # noqa: ANN001
    """A case whose output fails a check records the error and what the model wrote, for diagnosis."""
    r = evaluate.run_case(scripted_engine(tokenizer, "import logging\n"), case("py_change_constant_instr"))
    assert r.error is not None and "cut short" in r.error and not r.exact
    assert r.raw_output == "import logging\n" and r.tokens > 0 and r.passes > 0 and r.produced is None


def test_leftover_lazy_marker_is_refused(tokenizer, tmp_path: Path) -> None:  # noqa: ANN001
    """An output that still holds `# ... existing code ...` is an output-check error (exit 3)."""
    src = tmp_path / "f.py"
    src.write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    engine = scripted_engine(tokenizer, "def a():\n    return 3\n\n\n# ... existing code ...\n```\n")
    with pytest.raises(OutputCheckError, match="lazy marker at line 5") as info:
        api.apply(
            src,
            "# ... existing code ...\ndef a():\n    return 3\n",
            engine=engine,
            cwd=tmp_path,
            fallback="none",
            answer="model",
        )
    assert info.value.exit_code == 3
    result = api.apply(src, "x", engine=engine, cwd=tmp_path, allow_markers=True, allow_lost_definitions=True)
    assert "# ... existing code ..." in result.after


def test_empty_output_for_nonempty_file_is_refused(tokenizer, tmp_path: Path) -> None:  # noqa: ANN001
    """The model emptying a non-empty file is never taken as an edit."""
    src = tmp_path / "f.py"
    src.write_text("x = 1\n")
    with pytest.raises(OutputCheckError, match="empty file"):
        api.apply(src, "Set x to 2.", engine=scripted_engine(tokenizer, "```\n"), cwd=tmp_path)


SHOP = "class Cart:\n    def __init__(self):\n        self.items = []\n\n\nclass Price:\n    def __init__(self, cents):\n        self.cents = cents\n\n    def euros(self):\n        return self.cents / 100\n"
SHOP_SNIPPET = "# ... existing code ...\n\nclass Price:\n    def __init__(self, cents):\n        self.cents = cents\n\n    def euros(self):\n        return round(self.cents / 100, 2)\n"


def test_dropped_code_is_refused(tokenizer, tmp_path: Path) -> None:  # noqa: ANN001
    """A snippet hides class Cart behind a marker; an output without it fails the dropped-code check
    (exit 3) naming the lost lines; --allow-drops takes it with a warning; a faithful output passes."""
    src = tmp_path / "shop.py"
    src.write_text(SHOP)
    lossy = SHOP_SNIPPET.removeprefix("# ... existing code ...\n\n")
    with pytest.raises(OutputCheckError, match=r"dropped 3 original lines .*original lines 1-3\)") as info:
        api.apply(
            src,
            SHOP_SNIPPET,
            engine=scripted_engine(tokenizer, lossy + "```\n"),
            cwd=tmp_path,
            fallback="none",
            anchor="none",
            answer="model",
        )  # anchoring would force class Cart back in
    assert info.value.exit_code == 3 and src.read_text() == SHOP
    taken = api.apply(
        src,
        SHOP_SNIPPET,
        engine=scripted_engine(tokenizer, lossy + "```\n"),
        cwd=tmp_path,
        allow_drops=True,
        anchor="none",
        answer="model",
    )
    assert taken.after == lossy and "--allow-drops" in taken.notes[0]
    good = SHOP.replace("return self.cents / 100", "return round(self.cents / 100, 2)")
    ok = api.apply(src, SHOP_SNIPPET, engine=scripted_engine(tokenizer, good + "```\n"), cwd=tmp_path, answer="model")
    assert ok.after == good and ok.notes == () and ok.answer == "model"


def test_dropped_code_check_says_when_it_cannot_run(tokenizer, tmp_path: Path) -> None:  # noqa: ANN001
    src = tmp_path / "f.py"
    src.write_text("def f():\n    return 1\n\n\ndef f():\n    return 1\n")
    snippet = "# ... existing code ...\ndef f():\n    return 2\n# ... existing code ...\n"
    out = "def f():\n    return 2\n\n\ndef f():\n    return 1\n"
    result = api.apply(src, snippet, engine=scripted_engine(tokenizer, out + "```\n"), cwd=tmp_path, answer="model")
    assert result.after == out and "could not run" in result.notes[0]


def test_a_shorter_closing_fence_before_end_of_turn_is_accepted(tokenizer) -> None:  # noqa: ANN001
    """py_empty_original_instr's edit holds a ``` block, so the reply opens with ````; the default model
    writes the file, closes with ``` and ends its turn (seen in the eval): that is the file, exact."""
    c = case("py_empty_original_instr")
    r = evaluate.run_case(scripted_engine(tokenizer, c.after.read_text() + "```"), c)
    assert r.error is None and r.exact
    cut = evaluate.run_case(scripted_engine(tokenizer, c.after.read_text()), c)  # no close at all
    assert cut.error is not None and "cut short" in cut.error


def test_eval_from_a_relative_folder_names_the_file_as_in_its_case(tokenizer, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """`applyedit eval fixtures` (a relative folder, as docs/benchmarks.md runs it) must put `before.py` in
    the prompt and the diff, as a user in the case folder would, so git apply --check passes there."""
    monkeypatch.chdir(FIXTURES.parent)
    c = evaluate.discover(Path("fixtures"), "py_change_constant_instr")[0]
    assert not c.dir.is_absolute()
    engine = scripted_engine(tokenizer, c.after.read_text() + "\n```\n")
    seen: list[list[int]] = []
    real_prefill = engine.model.prefill
    engine.model.prefill = lambda ids: seen.append(ids) or real_prefill(ids)  # type: ignore[method-assign]
    r = evaluate.run_case(engine, c)
    assert r.exact and r.git_apply_ok is True
    prompt = engine.decode(seen[0])
    assert "before.py" in prompt and "fixtures/" not in prompt
    b = bench.targets(Path("fixtures"), None, "py_change_constant", everything=False)[0]
    assert b.file.is_absolute() and b.cwd is not None and b.cwd.is_absolute()


def test_eval_drafts_with_the_draft_model_it_is_given(
    tokenizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001
    """`applyedit eval --proposer draft --draft-model DIR --draft-k 3` reaches the loop: a tiny random
    draft model (the real tokenizer) drafts every step, 3 tokens at a time, and the output stays exact."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    monkeypatch.setenv("APPLYEDIT_HOME", str(tmp_path / "home"))
    _, tok = tokenizer
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
    )
    draft = tmp_path / "draft"
    Qwen2ForCausalLM(config).save_pretrained(draft)
    tok.save_pretrained(draft)
    c = case("py_change_constant_instr")
    engine = scripted_engine(tokenizer, c.after.read_text() + "\n```\n")
    monkeypatch.setattr(api.Engine, "vocab_size", property(lambda self: len(tok)))  # the scripted target's rows
    report = evaluate.evaluate(
        FIXTURES,
        "py_change_constant_instr",
        engine=engine,
        proposer="draft",
        draft_model=str(draft),
        draft_backend="torch",
        draft_k=3,
    )
    r = report["cases"][0]
    assert r["exact"] and r["error"] is None
    totals = r["regions"]["totals"]
    assert totals["drafted_by"] == {"draft-model": totals["drafted"]}  # every draft was the model's
    assert totals["passes"] < totals["drafted"] <= 3 * totals["passes"]  # K=3 drafts, never more
