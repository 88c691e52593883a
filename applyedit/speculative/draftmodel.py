"""Draft-model drafting: a small model with the target's tokenizer proposes the next tokens,
alone (`DraftModelProposer`) or inside edits only, with copy drafts elsewhere (`HybridProposer`).

Owns the draft model's cache discipline: the draft runs behind the same `TargetModel` seam as the
target (torch or llama.cpp), and its cache holds the prompt plus the output it has seen. After each
verify it is cropped to the accepted prefix; the tokens it has not seen (the bonus, or a run the
copy proposer drafted) are fed lazily, in one block, at its next `propose`. Drafts are drawn one
token per forward: greedily, or when sampling from q warped like the target, with a generator of its
own, and q goes to the loop in the `Draft`'s `probs` (its logits of either array kind:
speculative/logits.py). Owns the hybrid's switch: copy drafts while the shared `policy.Alignment`
says the output is aligned (or the copy draft makes a probe, by the alignment's rule, the one the K
policy follows), the draft model otherwise. The draft length comes from `policy.draft_k`. Knows
nothing of text, regions or the target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from applyedit.models.base import TargetModel
from applyedit.models.costmodel import CostCurve
from applyedit.speculative import logits as rows_of
from applyedit.speculative.policy import Alignment, acceptance_ema, draft_k
from applyedit.speculative.proposers import COPY, MODEL, CopyProposer, Draft, Drafter, common_prefix
from applyedit.speculative.sampling import Sampling, draw, generator, warp

if TYPE_CHECKING:
    from applyedit.speculative.logits import Logits

SEED_SALT = 0x5EED_D4AF7  # the draft's random stream: derived from the run's seed, but not the same stream


@dataclass
class DraftModelProposer:
    """Drafts with a small model that keeps its own cache = prompt + accepted output (see module docstring).

    The draft length is `min(k, k_max)` when `cost` is None, else `policy.draft_k` from the target's
    cost curve, the draft's own seconds per one-token forward (`token_s`, from its calibrated cost
    curve: a measured constant, so a run's passes do not depend on the machine's load) and its
    acceptance so far.
    """

    model: TargetModel  # the draft model, behind the same seam as the target
    prompt: tuple[int, ...]  # the target's prompt: the draft's context starts with it
    k_max: int = 8  # the longest draft it offers
    cost: CostCurve | None = None  # the target's verify-pass cost curve (None: always k_max)
    sampling: Sampling | None = None  # the run's sampling settings; None or greedy: argmax drafts
    vocab: int | None = None  # the target's vocabulary size: draft logits are cut or padded to it
    alpha: float = 0.7  # per-token acceptance estimate of this draft model
    token_s: float = 0.0  # seconds per one-token draft forward (its calibrated t(0); 0: free)
    num_fed: int = 0  # tokens fed to the draft model (prefill and catch-up included)
    _fed: list[int] = field(default_factory=list, repr=False)  # what the draft's cache holds
    _started: bool = False
    _offered_at: int | None = None  # context length when the last draft was offered (None: no offer pending)
    _generator: Any = field(default=None, repr=False)  # the draws' stream (sampling.generator), once sampling

    def length(self, k: int) -> int:
        """How many tokens to draft when the loop allows `k`."""
        limit = min(k, self.k_max)
        if self.cost is None or limit <= 0:
            return max(0, limit)
        return draft_k(self.alpha, self.cost, self.token_s, limit)

    def propose(self, output: Sequence[int], k: int) -> Draft:
        n = self.length(k)
        if n <= 0:
            return Draft(drafter=MODEL)
        logits = self._catch_up(output)
        self._offered_at = len(self._fed)
        draft: list[int] = []
        rows: list[Logits] = []
        while True:
            draft.append(self._choose(logits, rows))
            if len(draft) == n:
                break
            logits = self._feed([draft[-1]])  # one token per forward: the next draft token depends on it
        return Draft(tuple(draft), drafter=MODEL, probs=rows_of.stack(rows) if rows else None)

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        if self._offered_at is not None:
            # Crop now to what the target kept (the loop may have cut the offer short: near the budget
            # it verifies fewer tokens, even none); the bonus token is fed at the next propose.
            self._crop(self._offered_at + num_accepted)
            self._offered_at = None
        if num_drafted:
            self.alpha = acceptance_ema(self.alpha, num_drafted, num_accepted)

    def _catch_up(self, output: Sequence[int]) -> Logits:
        """Bring the cache to prompt + output and return the draft's logits `(V,)` for the next token."""
        context = [*self.prompt, *output]
        if not self._started:  # the first draft: a fresh cache, its prefill counted in this run's drafting
            self.model.reset()
            self._fed, self._started = [], True
        keep = min(common_prefix(self._fed, context), len(context) - 1)
        self._crop(keep)
        return self._feed(context[keep:])

    def _feed(self, ids: list[int]) -> Logits:
        logits = self.model.forward(ids, num_logits=1)[0]
        self._fed.extend(ids)
        self.num_fed += len(ids)
        assert self.model.cached_len == len(self._fed), "draft cache = the tokens fed to it"
        return logits

    def _crop(self, length: int) -> None:
        if length < len(self._fed):
            self.model.crop_to(length)
            del self._fed[length:]

    def _choose(self, logits: Logits, rows: list[Logits]) -> int:
        """The next draft token: the argmax, or a draw from q (appended to `rows`) when sampling."""
        if self.vocab is not None:  # a token the target cannot score is never drafted
            logits = rows_of.fit(logits, self.vocab)
        if self.sampling is None or self.sampling.greedy:
            return int(logits.argmax())
        q = warp(logits, self.sampling.temperature, self.sampling.top_p)
        if self._generator is None:
            self._generator = generator((self.sampling.seed or 0) ^ SEED_SALT, q)
        rows.append(q)
        return draw(q, self._generator)


@dataclass
class HybridProposer:
    """Copy drafts while aligned with a source, draft-model drafts inside edits.

    Copies when the copy proposer has a draft and the shared `alignment` (the K policy drives it) is
    aligned, or the copy draft's support (output tokens agreeing with the copy source) makes a probe
    (`alignment.probes`: the policy then probes the copy draft, by the same rule); otherwise the
    draft model drafts. What a failed probe changes is the alignment's, moved by the policy.
    """

    copy: CopyProposer
    model: DraftModelProposer
    alignment: Alignment  # the K policy's region state and probe rule, read here, moved by the policy
    _drafter: Drafter = COPY  # who drafted the pending proposal

    def propose(self, output: Sequence[int], k: int) -> Draft:
        offer = self.copy.propose(output, k)  # always: keeps the copy pointer following the output
        if offer.ids and (self.alignment.aligned or self.alignment.probes(offer.support)):
            self._drafter = COPY
            return offer
        self._drafter = MODEL
        return self.model.propose(output, k)

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        (self.model if self._drafter == MODEL else self.copy).observe(num_drafted, num_accepted)
