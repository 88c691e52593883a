"""Draft-model and hybrid proposers (issue 8) on tiny random Qwen2 models built in-process (fp32, CPU).

Lossless: whatever the draft model proposes, greedy output equals plain greedy decoding token for
token (50 seeds, a perturbed copy of the target as the draft, the target itself as a perfect draft,
and the hybrid). Exact pass counts with a perfect draft; the draft's cache holds exactly the prompt
plus the accepted output; the hybrid drafts the new stretch with the model and the rest by copying,
in fewer passes than copy alone. The packaged draft model's error path and its policy hooks too.
"""

from __future__ import annotations

import copy
import math
from functools import lru_cache
from typing import Any

import pytest
import torch
from transformers import Qwen2ForCausalLM

from applyedit.tools import benchmethods
from applyedit.models import modelstore
from applyedit.models.torchmodel import TorchModel
from applyedit.speculative.loop import run
from applyedit.speculative.draftmodel import DraftModelProposer, HybridProposer
from applyedit.errors import ModelError
from applyedit.speculative.policy import ALIGNED, IN_EDIT, AdaptiveK, FixedK, draft_k
from applyedit.speculative.proposers import MODEL, CopyProposer, Source
from applyedit.report import drafted_by
from fakes import CPU, GPU, MAX_NEW, POLICIES, SEEDS, VOCAB, noisy_copy_source, prompt_for, reference, tiny_model

pytestmark = pytest.mark.usefixtures("one_thread")


@lru_cache(maxsize=None)
def perturbed(seed: int, noise: float = 0.02) -> Qwen2ForCausalLM:
    """The target with noise on every weight: a draft that agrees often, not always."""
    model = copy.deepcopy(tiny_model(seed))
    g = torch.Generator().manual_seed(7 + seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=g) * noise * p.abs().mean())
    return model


def draft_proposer(seed: int, model: Qwen2ForCausalLM, k_max: int = 4, cost: Any = None) -> DraftModelProposer:
    return DraftModelProposer(
        TorchModel(model=model, eos_ids=frozenset()), tuple(prompt_for(seed)), k_max=k_max, cost=cost, vocab=VOCAB
    )


def edited_source(seed: int, lo: int = 12, hi: int = 30) -> Source:
    """The reference with [lo, hi) replaced by tokens it never emits there: new code copy cannot draft."""
    ref = list(reference(seed))
    return Source("original", tuple(t if not lo <= i < hi else (t * 7 + 3) % VOCAB for i, t in enumerate(ref)))


def hybrid(seed: int, source: Source, policy: Any, draft: DraftModelProposer) -> HybridProposer:
    return HybridProposer(CopyProposer([source]), draft, policy.alignment)


def tiny_run(seed: int, proposer: Any, policy: Any) -> Any:
    return run(TorchModel(model=tiny_model(seed), eos_ids=frozenset()), prompt_for(seed), proposer, policy, MAX_NEW)


DRAFTS = {
    "perturbed": lambda seed, policy: draft_proposer(seed, perturbed(seed)),
    "perfect": lambda seed, policy: draft_proposer(seed, tiny_model(seed)),
    "perturbed, cost-chosen length": lambda seed, policy: draft_proposer(seed, perturbed(seed), k_max=8, cost=CPU),
    "hybrid": lambda seed, policy: hybrid(seed, noisy_copy_source(seed), policy, draft_proposer(seed, perturbed(seed))),
}


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", DRAFTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_draft_model_output_equals_generate(seed: int, name: str, policy: str) -> None:
    """With a draft model alone or in the hybrid, greedy output equals model.generate(do_sample=False)."""
    chosen = POLICIES[policy]()
    result = tiny_run(seed, DRAFTS[name](seed, chosen), chosen)
    assert tuple(result.tokens) == reference(seed)
    assert result.stop_reason == "budget"


def test_the_perturbed_draft_is_neither_perfect_nor_useless() -> None:
    """Across seeds the perturbed draft has its tokens both kept and rejected: both branches ran."""
    drafted = accepted = 0
    for seed in range(10):
        result = tiny_run(seed, draft_proposer(seed, perturbed(seed)), FixedK(4))
        drafted += sum(len(s.draft) for s in result.steps)
        accepted += sum(s.num_accepted for s in result.steps)
        assert all(s.drafter == MODEL for s in result.steps if s.draft)
    assert 0.2 * drafted < accepted < 0.98 * drafted


@pytest.mark.parametrize("k", [1, 3, 4, 7])
@pytest.mark.parametrize("seed", range(5))
def test_perfect_draft_model_pass_count(seed: int, k: int) -> None:
    """The target as its own draft, fixed K: every draft kept, ceil(max_new / (k + 1)) passes, and the
    draft's cache never needed a crop: each token was fed to it once."""
    draft = draft_proposer(seed, tiny_model(seed), k_max=k)
    result = tiny_run(seed, draft, FixedK(k))
    assert tuple(result.tokens) == reference(seed)
    assert len(result.steps) == math.ceil(MAX_NEW / (k + 1))
    assert all(s.num_accepted == len(s.draft) == k for s in result.steps[:-1])
    assert draft.num_fed == len(draft._fed) == draft.model.cached_len


@pytest.mark.parametrize("seed", range(10))
def test_draft_cache_is_the_prompt_plus_accepted_output(seed: int) -> None:
    """After every verify the draft's cache holds a prefix of prompt + output (rejected tokens cropped),
    and at the next propose it is brought up to prompt + output exactly (the bonus fed lazily)."""
    draft = draft_proposer(seed, perturbed(seed))
    prompt = prompt_for(seed)
    output: list[int] = []
    model = TorchModel(model=tiny_model(seed), eos_ids=frozenset())
    from applyedit.speculative.loop import decode

    for step in decode(model, prompt, draft, FixedK(4), MAX_NEW):
        output.extend(step.emitted)
        fed = draft._fed
        assert fed == [*prompt, *output][: len(fed)] and draft.model.cached_len == len(fed)
        assert len(fed) >= len(prompt) + len(output) - 1 - len(step.emitted)  # only the unseen tail is missing
    assert tuple(output) == reference(seed)


def test_hybrid_drafts_new_code_with_the_model() -> None:
    """A source that covers all but a new stretch: copy-only decodes the stretch about one token per
    pass, the hybrid drafts it with the (perfect) draft model: the same output, never more passes, at
    least 30% fewer over 8 seeds, and the steps say who drafted what: the opening stretch copied, the
    new one by the model. (Some tiny models repeat themselves, so copy alone does well on them.)"""
    passes = {"copy": 0, "hybrid": 0}
    for seed in range(8):
        source = edited_source(seed)
        copy_only = tiny_run(seed, CopyProposer([source]), AdaptiveK(k_max=8, k_probe=4, support_min=2))
        policy = AdaptiveK(k_max=8, k_probe=4, support_min=2)
        mixed = tiny_run(seed, hybrid(seed, source, policy, draft_proposer(seed, tiny_model(seed))), policy)
        assert tuple(copy_only.tokens) == tuple(mixed.tokens) == reference(seed)
        assert len(mixed.steps) <= len(copy_only.steps)
        passes["copy"] += len(copy_only.steps)
        passes["hybrid"] += len(mixed.steps)
        position, by_position = 0, {}
        for s in mixed.steps:
            by_position[position] = s.drafter
            position += len(s.emitted)
        assert by_position[0] == "copy"
        if len(mixed.steps) < len(copy_only.steps):  # the saving came from the model, in the new stretch (12-29)
            assert MODEL in {d for p, d in by_position.items() if 12 <= p < 30}
    assert passes["hybrid"] <= 0.7 * passes["copy"]


def test_policy_passes_draft_model_drafts_through_and_keeps_its_state() -> None:
    """In an edit a copy draft without support gets K = 0, a draft model's offer passes whole; its
    accepted or rejected drafts do not move the aligned / in-edit state."""
    p = AdaptiveK(cost=CPU, k_max=32, k_probe=4, support_min=3)
    p.observe(8, 2)
    assert p.alignment.state == IN_EDIT
    assert p.next_k(offered=10, support=0) == 0
    assert p.next_k(offered=5, support=0, drafter=MODEL) == 5
    p.observe(5, 5, MODEL)
    assert p.alignment.state == IN_EDIT
    p.observe(4, 4)  # a copy probe fully accepted re-aligns
    assert p.alignment.state == ALIGNED
    p.observe(5, 1, MODEL)
    assert p.alignment.state == ALIGNED


@pytest.mark.parametrize(
    ("alpha", "cost", "token_s", "limit", "expected"),
    [
        (0.5, CPU, 0.0, 8, 1),  # a coin-flip draft on CPU: the shortest draft (never 0: the draft was chosen)
        (0.95, CPU, 0.0, 8, 8),  # a reliable draft: the longest
        (0.7, GPU, 0.0, 8, 8),  # a flat curve: long drafts cost the target nothing
        (0.7, GPU, 0.02, 8, 1),  # ... unless the draft's own forwards cost as much as the target's pass
        (0.9, CPU, 0.0, 1, 1),
    ],
)
def test_draft_k_weighs_target_and_draft_costs(
    alpha: float, cost: Any, token_s: float, limit: int, expected: int
) -> None:
    assert draft_k(alpha, cost, token_s, limit) == expected


def test_drafted_by_names_the_shares() -> None:
    assert drafted_by({}) == "–"
    assert drafted_by({"copy": 4}) == "copy"
    assert drafted_by({"copy": 7, MODEL: 3}) == "copy 70% model 30%"
    assert drafted_by({"copy": 0, MODEL: 3}) == "model"


def test_bench_names_the_draft_methods() -> None:
    methods = benchmethods.parse_methods(["draft", "hybrid", "hybrid:4,8"], ["adaptive"], [64], draft_model="x.gguf")
    assert [(m.name, m.proposer, m.draft_model, m.draft_k) for m in methods] == [
        ("draft model only", "draft", "x.gguf", None),
        ("hybrid", "hybrid", "x.gguf", None),
        ("hybrid, draft K=4", "hybrid", "x.gguf", 4),
        ("hybrid, draft K=8", "hybrid", "x.gguf", 8),
        ("adaptive K≤64", "copy", None, None),
    ]


def test_missing_draft_package_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Without the draft extra the error names the pip command, on one line, before anything loads."""
    monkeypatch.setenv("APPLYEDIT_HOME", str(tmp_path))
    monkeypatch.setattr(modelstore, "DRAFT_SLICE_PACKAGES", ["applyedit-test-no-such-package-part1"])
    with pytest.raises(ModelError) as info:
        modelstore.assemble_draft_gguf()
    message = str(info.value)
    assert "\n" not in message and "pip install 'applyedit[draft]'" in message
    assert "applyedit-test-no-such-package-part1" in message


def _needs_the_draft_extra() -> None:
    """The test extra installs the draft model's slices; a developer without them gets a skip that says so."""
    try:
        modelstore.draft_slice_files()
    except ModelError as e:
        pytest.skip(f"the draft extra is not installed (pip install -e '.[test]' or '.[draft]'): {e}")


def test_packaged_draft_model_assembles_to_its_checksum() -> None:
    """With the draft extra installed, the slices assemble to the documented size and SHA-256."""
    _needs_the_draft_extra()
    path = modelstore.assemble_draft_gguf()
    assert path.stat().st_size == modelstore.DRAFT_GGUF_BYTES
    assert modelstore._verified(path, modelstore.DRAFT_GGUF_BYTES, modelstore.DRAFT_GGUF_SHA256)


@pytest.mark.model
@pytest.mark.timeout(1800)
def test_real_draft_model_drafts_for_the_real_target(tmp_path: Any) -> None:
    """The packaged 0.5B draft model drafting for the real default model (both GGUFs on llama.cpp): the
    edit is the hand-written expected file, the target model ran, and drafts of the draft model were kept."""
    _needs_the_draft_extra()
    pytest.importorskip("llama_cpp")
    from applyedit import api

    source = "RATE = 3\n\n\ndef fee(amount):\n    return amount * RATE\n"
    (tmp_path / "fees.py").write_text(source)
    engine = api.Engine.open(backend="llamacpp")
    result = api.apply(
        tmp_path / "fees.py", "Set RATE to 5.", engine=engine, cwd=tmp_path, answer="model", proposer="draft"
    )
    assert result.after == "RATE = 5\n\n\ndef fee(amount):\n    return amount * RATE\n"
    assert result.answer == "model" and result.report["answer"]["model_ran"] is True and result.summary.passes > 0
    totals = result.report["totals"]
    assert totals["drafted_by"].get("draft-model", 0) > 0 and totals["accepted_by"].get("draft-model", 0) > 0, totals
