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
fully accepted probe re-aligns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from applyedit.costmodel import CostCurve, prior

ALIGNED, IN_EDIT = "aligned", "in-edit"


@dataclass
class FixedK:
    """Always ask for `k` tokens."""

    k: int
    state: str = ALIGNED

    @property
    def cap(self) -> int:
        return self.k

    def next_k(self, offered: int, support: int) -> int:
        return self.k

    def observe(self, num_drafted: int, num_accepted: int) -> None:
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


@dataclass
class AdaptiveK:
    """Region-aware K: large while aligned with the original, 0 inside edits (see module docstring)."""

    cost: CostCurve = field(default_factory=prior)
    k_max: int = 64  # the cap (--k)
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

    def next_k(self, offered: int, support: int) -> int:
        if self.k_max <= 0 or offered == 0:
            k = 0
        elif self.state == IN_EDIT:
            k = self.k_probe if support >= self.support_min else 0
        else:
            k = best_k(self.alpha, self.cost, min(self.k_allowed, self.k_max))
        return k

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        if num_drafted == 0:
            return  # a plain pass: no evidence about the drafts
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
