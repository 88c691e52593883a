"""A prediction drafts from wherever the answer rejoins it. The general chat's K policy (AdaptiveK) on a
CPU-like cost curve, where one draft token costs almost a pass: a first draft missed (the answer opens
with a fence the bare file lacks), the estimate fell below what drafting pays for, K went to 0 while
aligned, and a pass of K 0 taught the estimate nothing again: 8 prediction tokens accepted of a whole
file. Drafts are verified, so only the drafting is at stake: the text is the script either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from applyedit.models.costmodel import CostCurve
from applyedit.speculative.policy import AdaptiveK, best_k

# One token cheap, then about half a pass per draft token more (the shape of a CPU's measured curve).
STEEP = CostCurve({0: 1.0, 1: 1.9, 2: 2.5, 4: 3.5, 8: 5.0, 16: 8.0, 32: 14.0, 64: 26.0}, "calibrated")


def test_an_aligned_policy_whose_estimate_fell_still_probes_and_ramps_up() -> None:
    policy = AdaptiveK(cost=STEEP, k_max=32)
    first = policy.next_k(32, 0)
    assert first > 0
    policy.observe(first, 0)  # the answer's first token is not the prediction's
    assert policy.next_k(32, 3) == policy.k_probe  # rejoined: a probe
    policy.observe(policy.k_probe, policy.k_probe)  # kept whole: aligned again
    assert policy.alignment.aligned and best_k(policy.alpha, STEEP, 32) == 0  # the estimate alone says k 0
    ks = []
    for support in range(11, 200, 9):  # the source keeps agreeing: every draft is kept
        k = policy.next_k(32, support)
        ks.append(k)
        policy.observe(k, k)
    assert 0 not in ks and max(ks) > policy.k_probe, ks


def test_a_probe_that_fails_while_aligned_raises_the_support_the_next_needs() -> None:
    policy = AdaptiveK(cost=STEEP, k_max=32)
    policy.observe(policy.next_k(32, 0), 0)
    policy.observe(policy.next_k(32, 3), policy.k_probe)
    k = policy.next_k(32, 5)
    assert k == policy.k_probe  # a probe, as inside an edit
    policy.observe(k, 2)  # it failed
    assert not policy.alignment.aligned and policy.next_k(32, 5) == 0 and policy.next_k(32, 10) == policy.k_probe


@pytest.mark.parametrize(
    "opening",
    ["```python\n", "Here is the file, with the new default:\n\n```python\n", "# a changed first line\n"],
)
def test_a_bare_file_as_the_prediction_drafts_most_of_an_answer_that_opens_otherwise(
    tokenizer: tuple[Path, Any], opening: str
) -> None:
    from fakes import scripted_engine

    from applyedit.serve import generate

    source = "".join(f"def f{i}(x, end=None):\n    return x + {i}\n\n\n" for i in range(40))
    body = source.replace("def f7(x, end=None)", "def f7(x, end=0)")
    answer = opening + (body.split("\n", 1)[1] if opening.startswith("#") else body + "```\n")
    engine = scripted_engine(tokenizer, answer)
    engine.cost_curve = lambda: STEEP  # type: ignore[method-assign]
    chat = generate.Chat(messages=(("user", "Change the default of `end` in f7."),), prediction=source, max_tokens=3000)
    done = generate.run(engine, chat)
    assert done.text == answer and done.finish_reason == "stop"
    assert done.accepted >= done.completion_tokens / 2, (done.accepted, done.rejected, done.completion_tokens)
