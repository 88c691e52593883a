"""K policies: how many draft tokens to verify at the next step.

Owns the choice of k from what the last steps accepted, the proposer's support for its next draft
and the measured cost curve. Policies see two numbers per step (the draft length the proposer
offers and its support: how many recent output tokens agree with where it copies from) and get
`observe(num_drafted, num_accepted)` afterwards. Knows nothing of tensors, text or regions.

`AdaptiveK` (DESIGN.md §4) has two states. *aligned*: the output is copying an unchanged stretch;
K ramps up (doubling after each fully accepted draft) to the k that maximises expected tokens per
second, E(k)/t(k) with E(k) = (1 − α^(k+1))/(1 − α) for the per-token acceptance estimate α and t
the measured cost curve. *in-edit*: after a rejection K is 0 (plain one-token passes, the cheapest
on CPUs) until the proposer's support reaches `support_min`, then a probe of `k_probe` tokens; a
fully accepted probe re-aligns. Drafts a draft model made (`drafter` "draft-model") pass through at
the length the proposer chose (`draft_k`) and are no evidence about copy alignment: they leave the
state alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from applyedit.models.costmodel import CostCurve, prior
from applyedit.options import DEFAULT_K

ALIGNED, IN_EDIT = "aligned", "in-edit"


@dataclass
class FixedK:
    """Always ask for `k` tokens."""

    k: int
    state: str = ALIGNED

    @property
    def cap(self) -> int:
        return self.k

    def next_k(self, offered: int, support: int, drafter: str = "copy") -> int:
        return self.k

    def observe(self, num_drafted: int, num_accepted: int, drafter: str = "copy") -> None:
        pass


def expected_tokens(k: int, alpha: float) -> float:
    """Tokens a pass emits on average with a k-token draft and per-token acceptance alpha."""
    if alpha >= 1.0:
        return k + 1.0
    return (1.0 - alpha ** (k + 1)) / (1.0 - alpha)


def best_k(alpha: float, cost: CostCurve, k_limit: int) -> int:
    """The k in [0, k_limit] that maximises expected tokens per second."""
    candidates = {0, k_limit} | {k for k in (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128) if k <= k_limit}
    return max(sorted(candidates), key=lambda k: expected_tokens(k, alpha) / cost(k))


def draft_k(alpha: float, cost: CostCurve, draft_token_s: float, k_limit: int) -> int:
    """The draft-model draft length in [1, k_limit] that maximises expected tokens per second, a pass
    costing the target's verify t(k) plus k draft forwards (`draft_token_s` each; the first of them
    rides on the catch-up feed, so k − 1 are counted). Never 0: the caller chose to use the draft."""
    if k_limit <= 1:
        return max(0, k_limit)
    return max(range(1, k_limit + 1),
               key=lambda k: expected_tokens(k, alpha) / (cost(k) + (k - 1) * draft_token_s))


@dataclass
class AdaptiveK:
    """Region-aware K: large while aligned with the original, 0 inside edits (see module docstring)."""

    cost: CostCurve = field(default_factory=prior)
    k_max: int = DEFAULT_K  # the cap (--k)
    k_probe: int = 8  # first draft after re-aligning
    support_min: int = 3  # output tokens agreeing with the copy source that count as re-aligned
    alpha: float = 0.9  # per-token acceptance estimate while aligned
    state: str = ALIGNED
    k_allowed: int = 8  # the ramp: doubles after each fully accepted draft

    def __post_init__(self) -> None:
        self.k_probe = max(1, min(self.k_probe, self.k_max))
        self.k_allowed = self.k_probe

    @property
    def cap(self) -> int:
        return self.k_max

    def next_k(self, offered: int, support: int, drafter: str = "copy") -> int:
        if self.k_max <= 0 or offered == 0:
            k = 0
        elif drafter == "draft-model":  # its length was chosen with this cost curve (draft_k)
            k = min(offered, self.k_max)
        elif self.state == IN_EDIT:
            k = self.k_probe if support >= self.support_min else 0
        else:
            k = best_k(self.alpha, self.cost, min(self.k_allowed, self.k_max))
        return k

    def observe(self, num_drafted: int, num_accepted: int, drafter: str = "copy") -> None:
        if num_drafted == 0 or drafter == "draft-model":
            return  # a plain pass, or a draft model's: no evidence about copy alignment
        rejected = num_accepted < num_drafted
        # Per-token acceptance from this step (a truncated geometric): accepted / (accepted + misses).
        sample = num_accepted / (num_accepted + (1 if rejected else 0))
        if self.state == ALIGNED or not rejected:
            self.alpha = min(0.995, 0.7 * self.alpha + 0.3 * sample)
        if rejected:
            self.state = IN_EDIT
            self.k_allowed = self.k_probe
        else:
            self.state = ALIGNED
            self.k_allowed = min(self.k_max, 2 * max(self.k_allowed, num_drafted))
