"""K policies: state transitions, bounds and the cost-model choice, on hand-built tables."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import torch
from fakes import CPU, GPU

from applyedit.speculative.draftmodel import HybridProposer
from applyedit.models.costmodel import CostCurve, load_or_calibrate
from applyedit.speculative.policy import (
    ALIGNED,
    IN_EDIT,
    PROBE_SUPPORT_MAX,
    AdaptiveK,
    Alignment,
    FixedK,
    acceptance_ema,
    best_k,
    expected_tokens,
)
from applyedit.speculative.proposers import COPY, MODEL, Draft


@pytest.mark.parametrize(
    "k, alpha, expected",
    [
        (0, 0.9, 1.0),  # no draft: just the target's own token
        (3, 1.0, 4.0),  # perfect acceptance: k + 1
        (1, 0.5, 1.5),  # 1 + 0.5
        (2, 0.5, 1.75),  # 1 + 0.5 + 0.25
    ],
)
def test_expected_tokens(k: int, alpha: float, expected: float) -> None:
    """E(k) = (1 - a^(k+1)) / (1 - a): tokens per pass for k drafts at per-token acceptance a."""
    assert expected_tokens(k, alpha) == pytest.approx(expected)


@pytest.mark.parametrize(
    "alpha, cost, limit, expected",
    [
        (0.99, CPU, 64, 64),  # copying reliably on CPU: the longest draft pays
        (0.5, CPU, 64, 0),  # inside an edit on CPU: a plain pass beats any draft (not 1 or 2)
        (0.5, GPU, 64, 4),  # on a flat GPU curve even a coin-flip draft is worth a few tokens
        (0.99, CPU, 16, 16),  # never above the ramp's limit
        (0.9, CPU, 64, 16),  # 0.9: E(16)=8.3 in 2.5 s beats E(32)=9.7 in 3.1 s (not 32)
    ],
)
def test_best_k_maximises_tokens_per_second(alpha: float, cost: CostCurve, limit: int, expected: int) -> None:
    """The cost model picks the k with the best expected tokens per second."""
    assert best_k(alpha, cost, limit) == expected


def test_cost_curve_interpolates_and_extrapolates() -> None:
    """t(k) is piecewise linear between measured points and extends the last slope."""
    assert CPU(8) == pytest.approx(2.2)
    assert CPU(12) == pytest.approx(2.35)
    assert CPU(96) == pytest.approx(4.5 + 32 * (4.5 - 3.1) / 32)


def test_adaptive_ramps_drops_and_realigns() -> None:
    """aligned: K doubles per full accept up to the cap; a rejection drops to 0 until support returns."""
    p = AdaptiveK(cost=CPU, k_max=32, k_probe=4, alpha=0.99)
    assert p.alignment.state == ALIGNED and p.next_k(offered=100, support=0) == 4
    p.observe(4, 4)
    assert p.next_k(100, 10) == 8
    p.observe(8, 8)
    assert p.next_k(100, 10) == 16
    p.observe(16, 16)
    assert p.next_k(100, 10) == 32
    p.observe(32, 32)
    assert p.next_k(100, 10) == 32  # capped at k_max
    p.observe(32, 5)  # an edit starts: rejected after 5 tokens
    assert p.alignment.state == IN_EDIT
    assert p.next_k(100, support=1) == 0  # weak support: plain passes
    p.observe(0, 0)  # plain passes change nothing
    assert p.alignment.state == IN_EDIT and p.next_k(100, support=2) == 0
    assert p.next_k(100, support=3) == 4  # re-aligned: probe with k_probe
    p.observe(4, 1)  # the probe failed: still in the edit
    assert p.alignment.state == IN_EDIT and p.next_k(100, support=0) == 0
    assert p.next_k(100, support=5) == 0 and p.next_k(100, support=6) == 4  # the next probe needs twice the support
    p.observe(4, 0)
    assert p.next_k(100, support=11) == 0 and p.next_k(100, support=12) == 4
    p.observe(4, 2)
    assert p.next_k(100, support=23) == 0 and p.next_k(100, support=24) == 4
    p.observe(4, 2)
    assert p.next_k(100, support=31) == 0 and p.next_k(100, support=32) == 4  # capped at PROBE_SUPPORT_MAX
    p.observe(4, 4)  # a probe fully accepted
    assert p.alignment.state == ALIGNED and p.next_k(100, 10) == 8
    p.observe(8, 3)  # the next edit: probes need support_min again
    assert p.next_k(100, support=3) == 4


@pytest.mark.parametrize("offered", [0])
def test_nothing_offered_means_k_zero(offered: int) -> None:
    """With no draft on offer the adaptive policy asks for none."""
    assert AdaptiveK(cost=CPU, k_max=64).next_k(offered, 10) == 0


@pytest.mark.parametrize("k_max", [0, 1, 7, 64])
def test_adaptive_k_stays_within_bounds(k_max: int) -> None:
    """Whatever happens, 0 <= k <= k_max."""
    p = AdaptiveK(cost=GPU, k_max=k_max, alpha=0.99)
    for drafted, accepted in [(1, 1), (8, 8), (64, 64), (64, 0), (0, 0), (5, 5), (128, 128)]:
        k = p.next_k(100, 10)
        assert 0 <= k <= k_max
        p.observe(min(drafted, k), min(accepted, k))


def test_fixed_k() -> None:
    """Fixed K always asks for the same k, and its alignment never moves."""
    p = FixedK(6)
    assert p.next_k(100, 0) == 6 and p.cap == 6
    p.observe(6, 1)
    assert p.alignment.aligned


def test_alignment_moves_on_copy_drafts_only() -> None:
    """A rejected copy draft enters an edit and a fully kept one re-aligns; plain passes and a draft
    model's drafts are no evidence."""
    a = Alignment()
    a.observe(4, 1)
    assert a.state == IN_EDIT and not a.aligned
    a.observe(0, 0)
    a.observe(5, 5, MODEL)
    assert a.state == IN_EDIT
    a.observe(3, 3)
    assert a.aligned
    a.observe(5, 0, MODEL)
    assert a.aligned


def test_the_policy_and_the_hybrid_share_one_alignment() -> None:
    """The adaptive policy moves the alignment it was built with; its support_min is the alignment's."""
    p = AdaptiveK(cost=CPU, k_max=64, support_min=5)
    shared = p.alignment
    p.observe(8, 2)
    assert shared.state == IN_EDIT and shared.support_min == 5
    assert p.next_k(10, support=4) == 0 and p.next_k(10, support=5) == p.k_probe


def test_the_probe_rule_is_the_alignments() -> None:
    """Inside an edit a copy draft probes from support_min on; a failed probe at support s makes the
    next one wait for 2s (at most PROBE_SUPPORT_MAX) until the output re-aligns; plain passes, draft
    model drafts and a first rejection while aligned do not move what a probe needs."""
    a = Alignment(support_min=3)
    assert not a.probes(2) and a.probes(3)
    a.observe(8, 2)  # entering the edit is no failed probe
    assert a.state == IN_EDIT and a.probes(3)
    a.observe(4, 1, probe=5)
    assert a.need == Alignment.need_after_failure(5) == 10 and not a.probes(9) and a.probes(10)
    a.observe(0, 0, probe=10)
    a.observe(4, 0, MODEL, probe=10)
    assert a.need == 10
    a.observe(4, 0, probe=20)
    assert a.need == PROBE_SUPPORT_MAX == Alignment.need_after_failure(20)
    a.observe(4, 4, probe=32)  # the probe held: aligned, and the next edit probes from support_min
    assert a.aligned and a.need == 3


class CopyAt:
    """A copy proposer whose draft always has the support the test sets."""

    support = 0

    def propose(self, output: Sequence[int], k: int) -> Draft:
        return Draft(tuple(range(k)), self.support)

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        pass


class ModelDrafts:
    """A draft model: always offers k tokens."""

    def propose(self, output: Sequence[int], k: int) -> Draft:
        return Draft((1,) * k, drafter=MODEL)

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        pass


def test_after_a_failed_probe_the_hybrid_keeps_the_draft() -> None:
    """After a failed probe at support 5, a step at support 7 or 9 still verifies a draft: the hybrid
    and the policy follow one probe rule, so the hybrid never picks a copy draft the policy then
    refuses (a plain pass with the draft model skipped); at support 10 both probe the copy draft."""
    p = AdaptiveK(cost=CPU, k_max=8, k_probe=4, support_min=3)
    copy = CopyAt()
    hybrid = HybridProposer(copy, ModelDrafts(), p.alignment)  # type: ignore[arg-type]

    def step(support: int, accepted: int | None = None) -> tuple[Any, int]:
        copy.support = support
        offer = hybrid.propose([], p.cap)
        k = p.next_k(len(offer.ids), offer.support, offer.drafter)
        if accepted is not None:
            hybrid.observe(k, accepted)
            p.observe(k, accepted, offer.drafter)
        return offer.drafter, k

    p.observe(8, 2)  # an edit starts
    assert step(5, accepted=1) == (COPY, p.k_probe)  # a probe at support 5, rejected
    for support in (7, 9):
        drafter, k = step(support)
        assert k > 0 and drafter == MODEL, support
    assert step(7, accepted=3) == (MODEL, p.k_max)  # the draft model's drafts leave the probe rule alone
    assert step(9)[0] == MODEL and step(10) == (COPY, p.k_probe)


@pytest.mark.parametrize(
    ("alpha", "drafted", "accepted", "expected"),
    [
        (0.9, 4, 4, 0.93),  # fully kept: the step's own estimate is 1
        (0.9, 4, 3, 0.855),  # 3 kept, 1 miss: 3/4
        (0.5, 4, 0, 0.35),  # nothing kept: 0
        (0.995, 8, 8, 0.995),  # never above the cap
    ],
)
def test_acceptance_ema(alpha: float, drafted: int, accepted: int, expected: float) -> None:
    assert acceptance_ema(alpha, drafted, accepted) == pytest.approx(expected)


class Clocked:
    """A target whose pass takes `delay` seconds per position: calibration must see that shape."""

    eos_ids = frozenset()

    def __init__(self, delay: float) -> None:
        self.delay, self.n = delay, 0

    def reset(self) -> None:
        self.n = 0

    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor:
        time.sleep(self.delay * len(ids) if num_logits > 1 or len(ids) < 64 else 0)
        self.n += len(ids)
        return torch.zeros(num_logits, 8)

    def crop_to(self, length: int) -> None:
        self.n = length

    @property
    def cached_len(self) -> int:
        return self.n


class Disturbed(Clocked):
    """Clocked, with a burst of other work: the first `burst` passes of one block length take 50× as long."""

    def __init__(self, delay: float, k: int, burst: int) -> None:
        super().__init__(delay)
        self.k, self.burst = k, burst

    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor:
        if len(ids) == self.k + 1 and num_logits > 1 and self.burst:
            self.burst -= 1
            time.sleep(50 * self.delay * len(ids))
        return super().forward(ids, num_logits)


def test_calibration_sees_through_a_burst_of_other_work() -> None:
    """Rounds over every k, the minimum per k: a burst that spoils three passes of k=4 (more than the
    three default rounds) is measured again until the curve no longer inverts, and the result never
    decreases in k."""
    from applyedit.models.costmodel import calibrate, inverted, monotone

    curve = calibrate(Disturbed(0.002, k=4, burst=3), prefix_len=16)
    assert curve(4) < curve(8) and curve(4) < 3 * curve(2)  # the burst is gone
    ks = sorted(curve.points)
    assert all(curve.points[a] <= curve.points[b] for a, b in zip(ks, ks[1:], strict=False))
    assert inverted({0: 2.6, 1: 1.7, 64: 11.4}) and not inverted({0: 0.1, 1: 0.105, 64: 3.5})
    assert monotone({0: 2.6, 1: 1.7, 2: 2.2, 64: 11.4}) == {0: 1.7, 1: 1.7, 2: 2.2, 64: 11.4}


def test_calibration_is_cached_and_fresh_measures_again(tmp_path: Path) -> None:
    slow = load_or_calibrate(Clocked(0.002), tmp_path, "m")
    assert slow.source == "calibrated" and slow(32) > slow(0) * 10  # 33 positions vs 1
    cached = load_or_calibrate(Clocked(0.0), tmp_path, "m")
    assert cached.source == "cache" and cached.points == slow.points
    fresh = load_or_calibrate(Clocked(0.0), tmp_path, "m", fresh=True)
    assert fresh.source == "calibrated" and fresh(32) < slow(32) / 5
    assert load_or_calibrate(Clocked(0.0), tmp_path, "m").points == fresh.points
    # a cached curve disturbed by other work (cost(0) above cost(1)) is measured again
    path = next((tmp_path / "calibration").glob("*.json"))
    path.write_text('{"0": 2.6, "1": 1.7, "2": 2.2, "64": 11.4}')
    again = load_or_calibrate(Clocked(0.002), tmp_path, "m")
    assert again.source == "calibrated" and again(64) > again(0) * 10
