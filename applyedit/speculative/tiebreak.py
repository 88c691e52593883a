"""Multi-candidate verification: the model's log-likelihood of a few candidate outputs after one shared
context, the tree step of speculative decoding used to break a tie between readings of an edit.

Owns the scoring: the candidates' shared prefix is computed once (the prompt prefilled as a decode
run prefills it, then the shared output in blocks), then each candidate's divergent span and a window
of the tokens after it (where the candidates agree again) is fed in one forward pass and scored token
by token, and the cache is cropped back to the shared prefix before the next one. So the cost is one
prefill, the shared output (the caller bounds it: api.led starts the candidates a few hundred lines
above their first difference) and the divergent spans with their windows. `pick` says which
candidate wins by at least a margin (in nats), or none. Reaches the model only through
`TargetModel`; knows nothing of text, readings or files (the caller tokenizes the candidates and
names them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from applyedit.models.base import TargetModel
from applyedit.speculative.proposers import common_prefix

__all__ = ["Scored", "pick", "score"]

WINDOW = 16  # tokens scored past the end of the divergent span, where the candidates agree again
BLOCK = 256  # shared tokens fed in one forward pass (backend batches hold 512)
# The margin (nats) the best reading needs over the next for the model to choose it, and only where plain
# greedy decoding writes it, a token of its own included (api.choose_reading, `pick(..., greedy=True)`);
# None: the model is not asked. Calibrated on the development ties (docs/eval/tiebreak/README.md): under
# that rule every wrong pick had a margin under 5.6 nats (10 of them, release corpus); at 6, 60 right
# picks, none wrong, on 145 ties, and none wrong on the ties scored after it was set.
MARGIN: float | None = 6.0


@dataclass(frozen=True)
class Scored:
    """A candidate's log-likelihood over its scored tokens (the divergent span and the window after it)."""

    index: int  # the candidate's position in the list scored
    logprob: float  # the sum of the scored tokens' log-probabilities (nats)
    tokens: int  # how many tokens were scored
    start: int  # where the scored span starts in the candidate (its shared prefix with the others)
    accepted: int = 0  # how many of the scored tokens, from the first, are the model's own greedy choices
    span: int = 0  # how many of the scored tokens are the divergent span (the rest: the window after it)
    required: int = 0  # how many of the scored tokens, from the first, greedy decoding must write (`greedy`)

    @property
    def greedy(self) -> bool:
        """Whether plain greedy decoding writes this reading where the readings differ: its divergent span
        and the window after it (a deletion shows only there: its span may hold no token), up to the end
        of its text (`score`'s `texts`: what follows, a closing fence, is scored but not required)."""
        return self.accepted >= self.required


def _common_suffix(seqs: Sequence[Sequence[int]], limit: int) -> int:
    n = 0
    while n < limit and all(s[len(s) - 1 - n] == seqs[0][len(seqs[0]) - 1 - n] for s in seqs):
        n += 1
    return n


def score(
    model: TargetModel,
    context: Sequence[int],
    candidates: Sequence[Sequence[int]],
    window: int = WINDOW,
    texts: Sequence[int] | None = None,
) -> list[Scored]:
    """Each candidate's log-likelihood after `context`, over the tokens from the candidates' shared
    prefix to `window` tokens past the start of their shared suffix (clipped to the candidate), and how
    far greedy decoding writes it; `texts`: per candidate, how many of its tokens are its text (the rest,
    a closing fence, is scored but greedy decoding need not write it: its tokenization may differ)."""
    if len(candidates) < 2 or not context:
        raise ValueError("score needs a context and at least two candidates")
    shared = min(len(c) for c in candidates)
    for c in candidates[1:]:
        shared = min(shared, common_prefix(candidates[0], c))
    suffix = _common_suffix(candidates, min(len(c) for c in candidates) - shared)
    # The prompt less its last token is prefilled, as a decode run prefills it (a prompt cache serves
    # it); the last prompt token and the shared output go in blocks, but for the last shared token,
    # which goes with each candidate: its logits score the candidate's first token.
    model.prefill(list(context[:-1]))
    prefix = [context[-1], *candidates[0][:shared]]
    for at in range(0, len(prefix) - 1, BLOCK):
        model.forward(prefix[at : min(at + BLOCK, len(prefix) - 1)], 1)
    base = model.cached_len
    found = []
    for n, cand in enumerate(candidates):
        end = min(len(cand), len(cand) - suffix + window)
        span = list(cand[shared:end])
        fed = [prefix[-1], *span]
        # in blocks (a backend's batch holds BLOCK * 2 tokens): each block's logits score the next tokens
        blocks = [model.forward(fed[at : at + BLOCK], len(fed[at : at + BLOCK])) for at in range(0, len(fed), BLOCK)]
        if len(blocks) > 1:
            import torch  # the backends' logits are torch tensors

            logits = torch.cat(blocks, dim=0)
        else:
            logits = blocks[0]
        logprobs = logits[: len(span)].float().log_softmax(dim=-1)
        best = logprobs.argmax(dim=-1).tolist()
        accepted = next((i for i, t in enumerate(span) if best[i] != t), len(span))
        divergent = max(0, len(cand) - suffix - shared)
        total = sum(float(logprobs[i, t]) for i, t in enumerate(span))
        required = len(span) if texts is None else max(0, min(len(span), texts[n] - shared))
        found.append(Scored(n, total, len(span), shared, accepted, divergent, required))
        model.crop_to(base)
    return found


def pick(scored: Sequence[Scored], margin: float, greedy: bool = False) -> int | None:
    """The index of the candidate whose log-likelihood beats every other's by at least `margin` nats,
    else None (too close to call); with `greedy`, only a candidate that plain greedy decoding would
    write where the readings differ (`Scored.greedy`: the others may all be wrong, and the model then
    writes none of them), and that has a token of its own there (`required`: a deletion at the file's
    end has none, and "writes" it trivially)."""
    ranked = sorted(scored, key=lambda s: s.logprob, reverse=True)
    if len(ranked) < 2 or not math.isfinite(ranked[0].logprob):
        return None
    if greedy and not (ranked[0].greedy and ranked[0].required):
        return None
    return ranked[0].index if ranked[0].logprob - ranked[1].logprob >= margin else None
