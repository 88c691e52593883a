"""The decode loop on tiny random Qwen2 models built in-process (fp32, CPU): lossless and exact counts."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import pytest
import torch
from fakes import (
    MAX_NEW,
    POLICIES,
    SEEDS,
    VOCAB,
    Contrarian,
    Oracle,
    noisy_copy_source,
    prompt_for,
    reference,
    tiny_model,
)

from applyedit.decoded import Step
from applyedit.speculative.loop import run, verify
from applyedit.models.torchmodel import TorchModel
from applyedit.speculative.policy import FixedK
from applyedit.speculative.proposers import CopyProposer, Draft, NullProposer, Source
from applyedit.report.stats import process_age_s, profile


def loop(seed: int, proposer, policy, max_new: int = MAX_NEW, eos: int | None = None):
    model = TorchModel(model=tiny_model(seed), eos_ids=frozenset({eos} if eos is not None else ()))
    return run(model, prompt_for(seed), proposer, policy, max_new)


PROPOSERS = {
    "perfect": lambda seed: Oracle(reference(seed)),
    "always-wrong": lambda seed: Contrarian(reference(seed)),
    "empty": lambda seed: NullProposer(),
    "copy": lambda seed: CopyProposer([noisy_copy_source(seed), Source("edit", tuple(prompt_for(seed)))]),
}


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", PROPOSERS)
@pytest.mark.parametrize("seed", SEEDS)
def test_speculative_equals_generate(seed: int, name: str, policy: str) -> None:
    """For every proposer and K policy, the output equals model.generate(do_sample=False) exactly."""
    result = loop(seed, PROPOSERS[name](seed), POLICIES[policy]())
    assert tuple(result.tokens) == reference(seed)
    assert result.stop_reason == "budget"


def test_greedy_verify_keeps_the_agreeing_prefix_then_the_targets_token() -> None:
    """Greedy verification: the draft tokens equal to the target's argmax, then its argmax after them
    (the correction at the first mismatch, or the bonus after a fully kept draft)."""
    logits = torch.nn.functional.one_hot(torch.tensor([5, 6, 9, 2]), VOCAB).float()
    assert verify(logits, [5, 6, 7]) == (2, 9)  # mismatch at the third: the target's 9 instead
    assert verify(logits, [5, 6, 9]) == (3, 2)  # all kept: the bonus
    assert verify(logits, [4, 6, 9]) == (0, 5)  # nothing kept after a first mismatch, even if later ones agree
    assert verify(logits[:1], []) == (0, 5)  # no draft: a plain pass


@pytest.mark.parametrize("k", [1, 3, 4, 7])
@pytest.mark.parametrize("seed", range(5))
def test_perfect_draft_pass_count(seed: int, k: int) -> None:
    """With a perfect draft and fixed K, the loop needs exactly ceil(max_new / (k + 1)) passes."""
    result = loop(seed, Oracle(reference(seed)), FixedK(k))
    assert tuple(result.tokens) == reference(seed)
    assert len(result.steps) == math.ceil(MAX_NEW / (k + 1))
    assert all(s.num_accepted == len(s.draft) for s in result.steps)


@pytest.mark.parametrize("seed", range(5))
def test_always_wrong_pass_count(seed: int) -> None:
    """With a draft that is always wrong, every pass emits exactly one token: max_new passes."""
    result = loop(seed, Contrarian(reference(seed)), FixedK(5))
    assert tuple(result.tokens) == reference(seed)
    assert len(result.steps) == MAX_NEW
    assert all(s.num_accepted == 0 and len(s.emitted) == 1 for s in result.steps)


@pytest.mark.parametrize("seed", range(10))
def test_eos_inside_accepted_block(seed: int) -> None:
    """EOS emitted in the middle of a fully accepted block ends the output right before it."""
    ref = reference(seed)
    # The first token that did not occur earlier (0 for a degenerate one-token reference).
    position = next((i for i in range(1, MAX_NEW) if ref[i] not in ref[:i]), 0)
    eos = ref[position]
    expected = reference(seed, eos=eos)
    assert expected == ref[:position]
    # The oracle drafts past EOS (it knows the budget-long reference); K=8 puts EOS inside a block.
    result = loop(seed, Oracle(ref), FixedK(8), eos=eos)
    assert tuple(result.tokens) == expected
    assert result.stop_reason == "eos"
    assert len(result.steps) == math.ceil((position + 1) / 9)


@pytest.mark.parametrize("max_new", [1, 2, 9, 10, 11, 17])
def test_budget_never_exceeded_by_bonus(max_new: int) -> None:
    """A fully accepted draft plus its bonus token never runs past max_new_tokens."""
    seed = 3
    ref = reference(seed)
    result = loop(seed, Oracle(ref), FixedK(4), max_new=max_new)
    assert tuple(result.tokens) == ref[:max_new]
    assert len(result.tokens) == max_new
    assert result.stop_reason == "budget"
    assert sum(len(s.emitted) for s in result.steps) == max_new


@pytest.mark.parametrize("seed", range(5))
def test_copy_over_reproduced_reference_accepts_whole_blocks(seed: int) -> None:
    """Copy-drafting from the exact reference accepts every block: ceil(N / (k + 1)) passes."""
    ref = reference(seed)
    proposer = CopyProposer([Source("original", tuple(ref))])
    result = loop(seed, proposer, FixedK(6))
    assert tuple(result.tokens) == ref
    assert len(result.steps) == math.ceil(MAX_NEW / 7)
    assert all(s.num_accepted == len(s.draft) == 6 for s in result.steps[:-1])


def test_stop_check_cuts_inside_a_block() -> None:
    """A text stop rule that fires mid-block cuts the output there, like greedy stopping at that token."""
    seed = 5
    ref = reference(seed)
    result = run(
        TorchModel(model=tiny_model(seed), eos_ids=frozenset()),
        prompt_for(seed),
        Oracle(ref),
        FixedK(8),
        MAX_NEW,
        stop=lambda out: 13 if len(out) >= 13 else None,
    )
    assert tuple(result.tokens) == ref[:13]
    assert result.stop_reason == "stop"


@pytest.mark.parametrize("seed", range(5))
def test_prefill_is_reused_only_for_the_same_prompt(seed: int) -> None:
    """A second run on the same prompt reuses the cached prefill (0 tokens computed) and gives the
    same output; a prompt that shares only a prefix is prefilled from scratch, and is still exact."""
    model = TorchModel(model=tiny_model(seed), eos_ids=frozenset())
    prompt = prompt_for(seed)
    first = run(model, prompt, Oracle(reference(seed)), FixedK(4), MAX_NEW)
    again = run(model, prompt, NullProposer(), FixedK(0), MAX_NEW)
    assert first.prefilled == len(prompt) - 1 and again.prefilled == 0
    assert first.tokens == again.tokens == list(reference(seed))
    other = [*prompt[:-3], (prompt[-3] + 1) % VOCAB, *prompt[-2:]]
    third = run(model, other, NullProposer(), FixedK(0), 8)
    assert third.prefilled == len(other) - 1
    expected = tiny_model(seed).generate(
        torch.tensor([other]),
        attention_mask=torch.ones(1, len(other), dtype=torch.long),
        do_sample=False,
        max_new_tokens=8,
        pad_token_id=VOCAB - 1,
    )
    assert third.tokens == expected[0, len(other) :].tolist()


class SlowDrafter(Oracle):
    """The oracle, sleeping 5 ms per proposal: the profile must put that time under drafting."""

    def propose(self, output: Sequence[int], k: int) -> Draft:
        time.sleep(0.005)
        return super().propose(output, k)


def test_profile_puts_each_cost_where_it_was_spent() -> None:
    """Drafting, forward and outside time land in their own parts, and the parts add up to the wall time."""
    seed = 0
    model = TorchModel(model=tiny_model(seed), eos_ids=frozenset())
    slept: list[float] = []

    def consumer(step: Step, tokens: int) -> None:  # a slow progress display
        time.sleep(0.004)
        slept.append(0.004)

    result = run(model, prompt_for(seed), SlowDrafter(reference(seed)), FixedK(3), MAX_NEW, on_step=consumer)
    p = profile(result)
    passes = len(result.steps)
    assert tuple(result.tokens) == reference(seed)
    assert p.drafting_s >= 0.005 * passes
    assert p.outside_s >= 0.004 * passes
    assert p.drafting_s < p.drafting_s + p.forward_s < result.decode_s  # the forward passes took time too
    assert p.forward_s > 0 and p.cache_s > 0 and p.loop_s > 0
    # The parts of a step are consecutive stretches of its time: the loop's own rest is never negative.
    assert all(s.draft_s + s.forward_s + s.crop_s < s.time_s for s in result.steps)
    parts = p.prefill_s + p.forward_s + p.drafting_s + p.cache_s + p.loop_s + p.outside_s
    assert parts == pytest.approx(result.prefill_s + result.decode_s, rel=1e-6)
    assert 0 < result.started_at <= time.perf_counter()


def test_process_age_counts_from_process_start() -> None:
    """Seconds since this process started: positive, growing, and earlier for an earlier clock reading."""
    then = time.perf_counter()
    time.sleep(0.05)
    before = time.perf_counter()
    now_age, then_age = process_age_s(), process_age_s(then)
    after = time.perf_counter()
    assert now_age is not None and then_age is not None
    assert 0 < then_age < now_age
    # The gap is the time from `then` to the readings, however long the machine stalled in between;
    # the only slack is /proc's 10 ms clock, read twice (no fixed duration is assumed).
    assert before - then - 0.021 <= now_age - then_age <= after - then + 0.021
