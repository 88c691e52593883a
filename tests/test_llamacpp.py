"""The llama.cpp backend on the default model's GGUF (real weights, real llama.cpp; fast on a CPU).

Strict equality with plain decoding is the torch fp32 path's contract; here the seam's own contracts
are exact (the memory holds exactly the fed tokens, rollback restores the same logits), and the
speculative output's agreement with the same backend's plain decoding is measured.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from applyedit import api
from applyedit.errors import ModelError
from applyedit.models import modelstore
from applyedit.speculative import registry, sampling
from applyedit.speculative.logits import reads
from applyedit.speculative.loop import run
from applyedit.speculative.policy import AdaptiveK, FixedK
from applyedit.speculative.proposers import NullProposer
from applyedit.speculative.runwatch import FenceStop

pytest.importorskip("llama_cpp")
pytestmark = pytest.mark.model  # the real default model's GGUF, on llama.cpp

FIXTURES = Path(__file__).parent.parent / "fixtures"
CASE = FIXTURES / "py_change_constant_instr"


@pytest.fixture(scope="module")
def engine() -> api.Engine:
    return api.Engine.open(backend="llamacpp")


def test_engine_runs_the_gguf_without_converting(engine: api.Engine) -> None:
    assert engine.backend == "llamacpp" and engine.dtype_name == "gguf"
    assert engine.model.path == modelstore.default_gguf_path()
    assert engine.context == modelstore.gguf_context_length(engine.model.path) >= 32768


def test_rollback_restores_the_same_logits(engine: api.Engine) -> None:
    """Crop after a verify block, feed the same block again: bit-identical logits, exact lengths."""
    model = engine.model
    prefix = engine.encode("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n")
    block = engine.encode("    return a - b\n")
    assert model.prefill(prefix) == len(prefix) and model.cached_len == len(prefix)
    first = model.forward(block, num_logits=len(block))
    assert isinstance(first, np.ndarray) and first.dtype == np.float32  # numpy: no torch on this path
    assert tuple(first.shape) == (len(block), first.shape[1]) and first.shape[1] >= len(engine.tokenizer)
    assert model.cached_len == len(prefix) + len(block)
    model.crop_to(len(prefix) + 1)
    model.crop_to(len(prefix))
    again = model.forward(block, num_logits=len(block))
    assert (first == again).all()
    # the text continues as written: each position predicts the next token of the block
    assert first[:-1].argmax(axis=-1).tolist()[:2] == block[1:3]
    assert model.prefill(prefix) == 0 and model.cached_len == len(prefix)  # exact-hit reuse
    assert model.prefill(prefix[:-1] + [prefix[-1] + 1]) == len(prefix)  # anything else: from scratch


def test_context_overflow_is_a_model_error(engine: api.Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A block that would run past the context fails with one clear error and leaves the memory as it was."""
    model = engine.model
    model.prefill([100] * 8)
    monkeypatch.setattr(model, "n_ctx", 12)
    with pytest.raises(ModelError, match="context full"):
        model.forward([101] * 5, num_logits=1)
    assert model.cached_len == 8


def _reads(rows: np.ndarray, targets: list[int]) -> list[float]:
    return reads(rows, targets)[0]


def test_continuations_read_side_by_side_see_only_their_own_sequence(engine: api.Engine) -> None:
    """forward_branches (the tie-break's readings, one sequence each in one batch): a span reads as it
    does fed alone after the same lead (llama.cpp's kernels differ between batch sizes, so to within
    their rounding), never as if another span's tokens stood before it; rows come in order, every one
    once, and the memory holds exactly what it held before (the next block's logits are the same bits)."""
    model = engine.model
    prefix = engine.encode("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n")
    lead = engine.encode("    return")
    # a rare name early in the first span and late in the last: read after the first's, the last's
    # would be copied, its tokens nats likelier
    spans = [
        engine.encode(" zebra_quux_42(a) - b\n\n\ndef mul(a, b):\n    return a * b\n"),
        engine.encode(" b - a\n"),
        [],
        engine.encode(" a - b if a else zebra_quux_42(b)\n"),
    ]
    model.prefill(prefix)
    probe = model.forward(lead, num_logits=1)
    model.crop_to(len(prefix))
    alone = []
    for span in spans:  # each fed after the lead, one at a time
        rows = model.forward([*lead, *span], num_logits=len(lead) + len(span))
        alone.append(_reads(rows[len(lead) - 1 : len(lead) - 1 + len(span)], span))
        model.crop_to(len(prefix))
    got: dict[int, list[float]] = {k: [] for k in range(len(spans))}
    for k, at, rows in model.forward_branches(lead, spans):
        assert at == len(got[k]) and len(rows) > 0
        got[k] += _reads(rows, spans[k][at : at + len(rows)])
    assert model.cached_len == len(prefix)
    assert (model.forward(lead, num_logits=1) == probe).all()
    model.crop_to(len(prefix))
    for span, side, one in zip(spans, got.values(), alone, strict=True):
        assert len(side) == len(one) == len(span)
        assert side == pytest.approx(one, abs=0.5)  # a token read after another span's would differ by nats


def test_speculative_agrees_with_plain_decoding(engine: api.Engine) -> None:
    """Copy drafting with adaptive and fixed K against one-token decoding on the same backend: the
    outputs agree (llama.cpp's block kernels could flip a near-tie; on this case none does)."""
    job = api.prepare(CASE / "before.py", (CASE / "edit.txt").read_text(), engine, cwd=CASE)
    stop = FenceStop(engine.decode, job.fence)
    plain = run(engine.model, job.prompt_ids, NullProposer(), FixedK(0), job.budget, stop=stop)
    for policy in (AdaptiveK(cost=engine.cost_curve(), k_max=64), FixedK(8)):
        proposer = registry.make_proposer("copy", engine, job.src.text, job.fence, job.edit, job.kind)
        spec = run(engine.model, job.prompt_ids, proposer, policy, job.budget, stop=stop)
        assert spec.tokens == plain.tokens
        assert len(spec.steps) * 4 < len(plain.steps)


def test_sampling_runs_on_numpy_logits(engine: api.Engine) -> None:
    """At a temperature the exact rule runs on llama.cpp's numpy logits with numpy's random stream: a
    seed reproduces the run, and where the distribution is flat (a temperature of 100) two seeds are two
    streams; every token is in the vocabulary. (On this prompt the model is sure enough at 1.5 that two
    seeds write the same first 24 tokens.)"""
    job = api.prepare(CASE / "before.py", (CASE / "edit.txt").read_text(), engine, cwd=CASE)

    def sampled(temperature: float, seed: int) -> list[int]:
        proposer = registry.make_proposer("copy", engine, job.src.text, job.fence, job.edit, job.kind)
        setting = sampling.settings(temperature=temperature, seed=seed)
        return run(engine.model, job.prompt_ids, proposer, FixedK(8), 24, sampling=setting).tokens

    first = sampled(1.5, 11)
    assert first == sampled(1.5, 11) and 0 < len(first) <= 24
    flat = sampled(100.0, 12)
    assert flat != sampled(100.0, 13)
    assert all(0 <= t < engine.vocab_size for t in [*first, *flat])


def test_apply_end_to_end_matches_the_expected_file(engine: api.Engine) -> None:
    result = api.apply(CASE / "before.py", (CASE / "edit.txt").read_text(), engine=engine, cwd=CASE)
    assert result.after == (CASE / "after.py").read_text()
    assert result.answer == "model" and result.report["answer"]["model_ran"] is True  # an instruction: the model's
    assert result.summary.backend == "llamacpp" and result.summary.tokens_per_pass > 4


def test_llamacpp_own_greedy_is_the_plain_baseline(engine: api.Engine) -> None:
    """llama.cpp's own greedy loop (bench's baseline on this backend) writes what applyedit's loop
    without drafts writes on the same backend, up to the closing fence where the loop stops."""
    job = api.prepare(CASE / "before.py", (CASE / "edit.txt").read_text(), engine, cwd=CASE)
    plain = run(
        engine.model, job.prompt_ids, NullProposer(), FixedK(0), job.budget, stop=FenceStop(engine.decode, job.fence)
    )
    budget = len(plain.tokens) + 5
    tokens, first = engine.model.greedy(job.prompt_ids, budget)
    assert tokens[: len(plain.tokens)] == plain.tokens and 0 < first
    assert len(tokens) < budget and engine.model.cached_len == len(job.prompt_ids) + len(tokens)  # ended at EOS
    assert engine.model.greedy(job.prompt_ids, 3)[0] == plain.tokens[:3]  # a budget stops it,
    assert engine.model.cached_len == len(job.prompt_ids) + 2  # before feeding the last token


def test_llama_cpp_python_prompt_lookup_is_greedy(engine: api.Engine) -> None:
    """The bench's llama-cpp-python baseline (its own prompt lookup decoding) writes llama.cpp's
    greedy output, on a prompt longer than that package's default batch of 512 tokens, with fewer
    evaluations than tokens; a second run prefills in full again (no prompt reused across repeats)."""
    from applyedit.tools.baselines import PromptLookup

    case = CASE.parent / "py_bench_150_snippet"
    job = api.prepare(case / "before.py", (case / "edit.txt").read_text(), engine, cwd=case)
    assert len(job.prompt_ids) > 512
    budget = 120
    greedy, _ = engine.model.greedy(job.prompt_ids, budget)
    lookup = PromptLookup(engine.source.gguf, engine.threads, engine.model.eos_ids)
    fed: list[int] = []  # tokens per evaluation of the second run
    try:
        first = lookup.run(job.prompt_ids, budget, 10)
        (llm,) = lookup._loaded.values()
        plain_eval = llm.eval
        llm.eval = lambda tokens: (fed.append(len(tokens)), plain_eval(tokens))[1]
        again = lookup.run(job.prompt_ids, budget, 10)
    finally:
        lookup.close()
    assert first.tokens == greedy == again.tokens
    assert first.passes < len(first.tokens) and 0 < first.ttft_s < first.wall_s
    # The prompt was evaluated again in full, not taken from a cache (counted, not timed).
    assert fed and fed[0] == len(job.prompt_ids) and len(fed) == again.passes
