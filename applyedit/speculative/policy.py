"""K policies: how many draft tokens to verify at the next step.

Owns the `KPolicy` contract the decode loop calls, the choice of k from what the last steps accepted,
the proposer's support for its next draft and the measured cost curve, the `Alignment` state
machine (aligned / in-edit) that the adaptive policy drives and the hybrid proposer reads, and the
per-token acceptance estimate (`acceptance_ema`) that the policy and the draft model both keep.
Policies see three values per step (the draft length the proposer offers, its support: how many
recent output tokens agree with where it copies from, and who drafted it) and get
`observe(num_drafted, num_accepted, drafter)` afterwards. Knows nothing of tensors, text or regions.

`AdaptiveK` has two states. *aligned*: the output is copying an unchanged stretch; K ramps up
(doubling after each fully accepted draft) to the k that maximises expected tokens per second,
E(k)/t(k) with E(k) = (1 − α^(k+1))/(1 − α) for the per-token acceptance estimate α and t the
measured cost curve. *in-edit*: after a rejection K is 0 (plain one-token passes, the cheapest on
CPUs) until the proposer's support reaches `support_min`, then a probe of `k_probe` tokens; a fully
accepted probe re-aligns. Aligned with an estimate so low that k 0 pays best, the same probe rule
still drafts (a pass of k 0 teaches the estimate nothing, so it would never rise again). A failed
probe doubles the support the next one needs (up to
`PROBE_SUPPORT_MAX`), until the output is aligned again: short n-grams recur in new code, and a
source that keeps agreeing for a few tokens and failing (an unrelated file) soon stops costing
probes. That probe rule is the `Alignment`'s (`probes`, `need_after_failure`), shared with the
hybrid proposer. Drafts a draft model made (`drafter` "draft-model") pass through at the length the proposer
chose (`draft_k`) and are no evidence about copy alignment: they leave the state alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from applyedit.models.costmodel import CostCurve, prior
from applyedit.speculative.proposers import COPY, MODEL, Drafter

ALIGNED, IN_EDIT = "aligned", "in-edit"
SUPPORT_MIN = 3  # output tokens agreeing with the copy source that count as re-aligned
EMA = 0.3  # weight of a new step in an acceptance estimate
PROBE_SUPPORT_MAX = 32  # the most support a probe inside an edit is made to wait for
ALPHA_MAX = 0.995  # an acceptance estimate never reaches 1 (E(k) would not depend on k)


@dataclass
class Alignment:
    """Whether the output is copying an unchanged stretch ("aligned") or is inside an edit ("in-edit"),
    and the one probe rule inside an edit.

    Copy drafts move it: a rejected one enters an edit, a fully accepted one re-aligns; a draft
    model's drafts and plain passes are no evidence and leave it alone. Inside an edit a copy draft
    is a probe when its support reaches `need` (`probes`): `support_min` at first, and after a failed
    probe the support `need_after_failure` says, until the output is aligned again. The adaptive K
    policy drives it (`observe`); the hybrid proposer reads the same object to choose its drafter, so
    the two never disagree on what makes a probe.
    """

    state: str = ALIGNED
    support_min: int = SUPPORT_MIN
    need: int = field(init=False)  # the support the next probe inside an edit needs

    def __post_init__(self) -> None:
        self.need = self.support_min

    @property
    def aligned(self) -> bool:
        return self.state == ALIGNED

    def probes(self, support: int) -> bool:
        """Whether a copy draft with this support is worth a probe inside an edit."""
        return support >= max(self.support_min, self.need)

    @staticmethod
    def need_after_failure(support: int) -> int:
        """The support the next probe needs after one at `support` was rejected: the source agreed
        this much and was still wrong, so twice as much (up to `PROBE_SUPPORT_MAX`)."""
        return min(2 * support, PROBE_SUPPORT_MAX)

    def observe(self, num_drafted: int, num_accepted: int, drafter: Drafter = COPY, probe: int | None = None) -> None:
        """One verified step; `probe`: the support of the copy draft when it was a probe inside an edit."""
        if not num_drafted or drafter != COPY:
            return
        rejected = num_accepted < num_drafted
        if probe is not None and rejected:
            self.need = self.need_after_failure(probe)
        self.state = IN_EDIT if rejected else ALIGNED
        if self.aligned:
            self.need = self.support_min


class KPolicy(Protocol):
    """How many draft tokens to verify next; the decode loop's side of a policy."""

    alignment: Alignment  # the region state after the last step (fixed policies stay aligned)

    @property
    def cap(self) -> int:
        """The longest draft this policy could ask for at the next step."""
        ...

    def next_k(self, offered: int, support: int, drafter: Drafter = COPY) -> int:
        """K for this step, given the draft length on offer, the proposer's support for it and who
        drafted it ("copy" | "draft-model")."""
        ...

    def observe(self, num_drafted: int, num_accepted: int, drafter: Drafter = COPY) -> None: ...


def acceptance_ema(alpha: float, num_drafted: int, num_accepted: int) -> float:
    """The per-token acceptance estimate after a step that kept `num_accepted` of `num_drafted`
    (`num_drafted` > 0): an exponential average with this step's own estimate, accepted / (accepted
    + misses), a truncated geometric's (a fully kept draft has no miss)."""
    misses = 1 if num_accepted < num_drafted else 0
    sample = num_accepted / (num_accepted + misses)
    return min(ALPHA_MAX, (1 - EMA) * alpha + EMA * sample)


@dataclass
class FixedK:
    """Always ask for `k` tokens; the alignment never moves."""

    k: int
    alignment: Alignment = field(default_factory=Alignment)

    @property
    def cap(self) -> int:
        return self.k

    def next_k(self, offered: int, support: int, drafter: Drafter = COPY) -> int:
        return self.k

    def observe(self, num_drafted: int, num_accepted: int, drafter: Drafter = COPY) -> None:
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
    rides on the catch-up feed, so k − 1 are counted). At least 1 when `k_limit` is (the caller chose
    to use the draft); 0 only for a `k_limit` of 0."""
    if k_limit <= 1:
        return max(0, k_limit)
    return max(range(1, k_limit + 1), key=lambda k: expected_tokens(k, alpha) / (cost(k) + (k - 1) * draft_token_s))


@dataclass
class AdaptiveK:
    """Region-aware K: large while aligned with the original, 0 inside edits (see module docstring)."""

    cost: CostCurve = field(default_factory=prior)
    # The cap (--k): a run's setting, so the caller passes it (its default is options.py's, above this layer).
    k_max: int = field(kw_only=True)
    k_probe: int = 8  # first draft after re-aligning
    support_min: int = SUPPORT_MIN  # copy support that makes a probe inside an edit (see `Alignment`)
    alpha: float = 0.9  # per-token acceptance estimate while aligned
    k_allowed: int = 8  # the ramp: doubles after each fully accepted draft
    alignment: Alignment = field(init=False)
    _probe: int | None = field(init=False, default=None)  # the support of the pending probe (None: no probe)

    def __post_init__(self) -> None:
        self.k_probe = max(1, min(self.k_probe, self.k_max))
        self.k_allowed = self.k_probe
        self.alignment = Alignment(support_min=self.support_min)

    @property
    def cap(self) -> int:
        return self.k_max

    def next_k(self, offered: int, support: int, drafter: Drafter = COPY) -> int:
        if self.k_max <= 0 or offered == 0:
            return 0
        if drafter == MODEL:  # its length was chosen with this cost curve (draft_k)
            return min(offered, self.k_max)
        self._probe = None
        if self.alignment.aligned:
            k = best_k(self.alpha, self.cost, min(self.k_allowed, self.k_max))
            if k > 0 or not self.alignment.probes(support):
                return k
            # Aligned, but the estimate says a draft does not pay. A pass of k 0 is no evidence, so the
            # estimate would stay where the last misses left it for good (a prediction that starts with
            # no fence, then copies the whole answer: 8 tokens accepted of 1,000): a source the output
            # keeps agreeing with gets a probe, as inside an edit, and a kept one raises the estimate.
        elif not self.alignment.probes(support):
            return 0
        self._probe = support
        return self.k_probe

    def observe(self, num_drafted: int, num_accepted: int, drafter: Drafter = COPY) -> None:
        if num_drafted == 0 or drafter == MODEL:
            return  # a plain pass, or a draft model's: no evidence about copy alignment
        rejected = num_accepted < num_drafted
        if self.alignment.aligned or not rejected:
            self.alpha = acceptance_ema(self.alpha, num_drafted, num_accepted)
        self.alignment.observe(num_drafted, num_accepted, drafter, probe=self._probe)
        if rejected:
            self.k_allowed = self.k_probe
        else:
            self.k_allowed = min(self.k_max, 2 * max(self.k_allowed, num_drafted))
