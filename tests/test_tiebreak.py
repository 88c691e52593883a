"""The tie-break scorer (spec/tiebreak.py): its log-likelihoods equal those of a plain forward pass
over the whole context and candidate, on the fp32 tiny models, and it computes the shared prefix once."""

from __future__ import annotations

import pytest
import torch
from fakes import VOCAB, prompt_for, tiny_model

from applyedit.models.backend import TorchModel
from applyedit.spec.tiebreak import Scored, pick, score


class Counting(TorchModel):
    """The torch backend, counting the tokens each forward pass computes (the prefill's included)."""

    fed: list[int]

    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor:
        self.fed.append(len(ids))
        return super().forward(ids, num_logits)


def _candidates(seed: int) -> list[list[int]]:
    g = torch.Generator().manual_seed(7 + seed)
    shared = torch.randint(2, VOCAB, (30,), generator=g).tolist()
    tail = torch.randint(2, VOCAB, (40,), generator=g).tolist()
    spans = [torch.randint(2, VOCAB, (n,), generator=g).tolist() for n in (3, 0, 7)]  # an edit, a deletion, more
    return [shared + s + tail for s in spans]


def _reference(seed: int, context: list[int], cand: list[int], start: int, count: int) -> float:
    """log p(cand[start:start+count] | context + cand[:start]) from one plain forward pass."""
    ids = torch.tensor([context + cand])
    with torch.no_grad():
        logits = tiny_model(seed)(ids).logits[0].float().log_softmax(-1)
    at = len(context) + start
    return sum(float(logits[at + i - 1, cand[start + i]]) for i in range(count))


@pytest.mark.parametrize("seed", range(6))
def test_scores_equal_a_plain_forward_and_the_prefix_is_computed_once(seed: int) -> None:
    model = Counting(model=tiny_model(seed), eos_ids=frozenset())
    model.fed = []
    context, cands = prompt_for(seed), _candidates(seed)
    got = score(model, context, cands, window=5)
    assert [s.start for s in got] == [30, 30, 30]
    assert [s.tokens for s in got] == [3 + 5, 0 + 5, 7 + 5]  # the divergent span and 5 tokens after it
    for s, cand in zip(got, cands, strict=True):
        assert s.logprob == pytest.approx(_reference(seed, context, cand, s.start, s.tokens), abs=1e-3)
    # one prefill of the context and the shared prefix (less its last token), then each span with that token
    assert model.fed == [len(context) + 30 - 1, 1 + 8, 1 + 5, 1 + 12]
    assert model.cached_len == len(context) + 30 - 1


def test_pick_needs_the_margin() -> None:
    scored = [Scored(0, -10.0, 5, 0), Scored(1, -4.0, 5, 0), Scored(2, -7.5, 5, 0)]
    assert pick(scored, margin=3.0) == 1
    assert pick(scored, margin=3.6) is None
    assert pick(scored[:1], margin=0.0) is None
    with pytest.raises(ValueError):
        score(Counting(model=tiny_model(0), eos_ids=frozenset()), [1, 2], [[3]])
