"""The decode layer on numpy logits (llama.cpp's kind, which needs no torch) against torch tensors: the
same greedy choices, log-probabilities and fitted rows (speculative/logits.py), the same warp, and an
exact sampling rule on numpy arrays with numpy's random stream (speculative/sampling.py), held to the
same chain check as the torch rule (tests/test_sampling.py); the loop and the draft model on a numpy
backend write what they write on the same model's torch logits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
import torch
from fakes import prompt_for, reference, tiny_model
from test_sampling import (
    DRAFTERS,
    PASS_P,
    exact_chain,
    fit_p,
    marginal,
    marginal_exact,
    simulate,
    total_variation,
)

from applyedit.models.torchmodel import TorchModel
from applyedit.speculative import logits as rows
from applyedit.speculative.draftmodel import DraftModelProposer
from applyedit.speculative.loop import run
from applyedit.speculative.policy import FixedK
from applyedit.speculative.proposers import NullProposer
from applyedit.speculative.sampling import Sampling, accept, draw, generator, warp


def _tensor(seed: int, shape: tuple[int, ...], scale: float = 3.0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)) * scale


def test_greedy_reads_and_fits_agree_between_the_kinds() -> None:
    """argmax, each target's log-probability and greedy flag, a row cut or padded, rows stacked: the
    numpy answers are the torch ones (to float32 rounding for the log-probabilities)."""
    logits = _tensor(1, (7, 300))
    logits[2, 17] = logits[2, 18] = logits[2].max() + 1  # a tie: both kinds take the first
    array = logits.numpy().copy()
    assert rows.is_numpy(array) and not rows.is_numpy(logits)
    assert rows.argmax(array) == rows.argmax(logits) and rows.argmax(array)[2] == 17
    targets = [3, 17, 17, 299, 0, 5, 9]
    logprobs, greedy = rows.reads(array, targets)
    expected, expected_greedy = rows.reads(logits, targets)
    assert logprobs == pytest.approx(expected, abs=1e-5) and greedy == expected_greedy
    for vocab in (250, 300, 320):
        fitted = rows.fit(array[0], vocab)
        assert fitted.shape == (vocab,) and np.array_equal(fitted, rows.fit(logits[0], vocab).numpy())
    assert np.array_equal(rows.stack([array[0], array[1]]), array[:2])


@pytest.mark.parametrize(("temperature", "top_p"), [(1.0, 1.0), (0.7, 0.9), (1.5, 0.5), (1e-300, 1.0), (0.3, 0.05)])
def test_warp_on_numpy_is_warp_on_torch(temperature: float, top_p: float) -> None:
    logits = _tensor(3, (16, 50))
    logits[0, :4] = float("-inf")  # padded entries: never any mass
    ours = warp(logits.numpy().copy(), temperature, top_p)
    assert ours.dtype == np.float32 and np.allclose(ours, warp(logits, temperature, top_p).numpy(), atol=1e-6)
    assert (ours[0, :4] == 0).all() and np.allclose(ours.sum(-1), 1.0, atol=1e-5)


def _numpy_rule(seed: int) -> Any:
    """sampling.accept on numpy copies of the chain's p and q, drawing from numpy's stream (seeded once)."""
    rng = np.random.default_rng(seed)

    def rule(p: torch.Tensor, draft: Sequence[int], q: torch.Tensor | None, g: torch.Generator) -> tuple[int, int]:
        return accept(p.numpy().copy(), draft, None if q is None else q.numpy().copy(), rng)

    return rule


@pytest.mark.parametrize("drafter", DRAFTERS)
def test_the_numpy_rule_matches_the_target_on_a_chain(drafter: str) -> None:
    """Copied and sampled drafts: under the numpy rule the first token and the first three tokens
    jointly follow p exactly (the torch rule's check; its broken rules fail it, tests/test_sampling.py)."""
    exact = exact_chain()
    counts = simulate(_numpy_rule(0), DRAFTERS[drafter])
    first = marginal(counts, 1)
    assert fit_p(first, marginal_exact(exact, 1)) > PASS_P
    assert total_variation(first, marginal_exact(exact, 1)) < 0.025
    assert fit_p(counts, exact) > PASS_P


def test_numpy_draws_reproduce_and_skip_zero_weights() -> None:
    weights = np.array([0.0, 0.25, 0.0, 0.75], dtype=np.float32)
    first = draw(weights, generator(5, weights))
    stream = generator(5, weights)
    seen = [draw(weights, stream) for _ in range(2_000)]
    assert first == seen[0] and set(seen) == {1, 3}
    assert seen.count(3) / len(seen) == pytest.approx(0.75, abs=0.04)


class NumpyLogits:
    """A torch backend seen through llama.cpp's kind: every forward's logits handed over as numpy."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.eos_ids = model.eos_ids

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)

    def forward(self, ids: list[int], num_logits: int) -> np.ndarray:
        return self.model.forward(ids, num_logits).numpy().copy()


@pytest.mark.parametrize("seed", range(3))
def test_the_loop_on_numpy_logits_writes_plain_greedy(seed: int, one_thread: Any) -> None:
    """The loop, with a draft model drafting on numpy logits too, writes transformers' plain greedy output."""
    target = NumpyLogits(TorchModel(model=tiny_model(seed), eos_ids=frozenset()))
    draft = NumpyLogits(TorchModel(model=tiny_model(seed + 100), eos_ids=frozenset()))
    prompt = prompt_for(seed)
    plain = run(target, prompt, NullProposer(), FixedK(0), len(reference(seed)))
    assert tuple(plain.tokens) == reference(seed)
    proposer = DraftModelProposer(draft, tuple(prompt), k_max=4)
    assert tuple(run(target, prompt, proposer, FixedK(4), len(reference(seed))).tokens) == reference(seed)
    sampled = Sampling(temperature=0.8, seed=seed)
    proposer = DraftModelProposer(draft, tuple(prompt), k_max=4, sampling=sampled)
    again = DraftModelProposer(draft, tuple(prompt), k_max=4, sampling=sampled)
    first = run(target, prompt, proposer, FixedK(4), 12, sampling=sampled).tokens
    assert first == run(target, prompt, again, FixedK(4), 12, sampling=sampled).tokens  # a seed reproduces it
