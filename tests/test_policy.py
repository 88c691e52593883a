"""K policies: state transitions, bounds and the cost-model choice, on hand-built tables."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch

from applyedit.models.costmodel import CostCurve, load_or_calibrate
from applyedit.policy import ALIGNED, IN_EDIT, AdaptiveK, FixedK, best_k, expected_tokens

# A CPU-like curve: one token cheap, any block ~4x that, slowly rising (seconds per pass).
CPU = CostCurve({0: 0.6, 1: 1.2, 2: 1.6, 4: 2.0, 8: 2.2, 16: 2.5, 32: 3.1, 64: 4.5})
# A GPU-like curve: nearly flat in k.
GPU = CostCurve({0: 0.020, 1: 0.020, 2: 0.021, 4: 0.021, 8: 0.022, 16: 0.023, 32: 0.025, 64: 0.030})


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
    assert p.state == ALIGNED and p.next_k(offered=100, support=0) == 4
    p.observe(4, 4)
    assert p.next_k(100, 10) == 8
    p.observe(8, 8)
    assert p.next_k(100, 10) == 16
    p.observe(16, 16)
    assert p.next_k(100, 10) == 32
    p.observe(32, 32)
    assert p.next_k(100, 10) == 32  # capped at k_max
    p.observe(32, 5)  # an edit starts: rejected after 5 tokens
    assert p.state == IN_EDIT
    assert p.next_k(100, support=1) == 0  # weak support: plain passes
    p.observe(0, 0)  # plain passes change nothing
    assert p.state == IN_EDIT and p.next_k(100, support=2) == 0
    assert p.next_k(100, support=3) == 4  # re-aligned: probe with k_probe
    p.observe(4, 1)  # the probe failed: still in the edit
    assert p.state == IN_EDIT and p.next_k(100, support=0) == 0
    p.observe(4, 4)  # a probe fully accepted
    assert p.state == ALIGNED and p.next_k(100, 10) == 8


@pytest.mark.parametrize("offered", [0])
def test_nothing_offered_means_k_zero(offered: int) -> None:
    """With no draft on offer the adaptive policy asks for none."""
    assert AdaptiveK(cost=CPU).next_k(offered, 10) == 0


@pytest.mark.parametrize("k_max", [0, 1, 7, 64])
def test_adaptive_k_stays_within_bounds(k_max: int) -> None:
    """Whatever happens, 0 <= k <= k_max."""
    p = AdaptiveK(cost=GPU, k_max=k_max, alpha=0.99)
    for drafted, accepted in [(1, 1), (8, 8), (64, 64), (64, 0), (0, 0), (5, 5), (128, 128)]:
        k = p.next_k(100, 10)
        assert 0 <= k <= k_max
        p.observe(min(drafted, k), min(accepted, k))


def test_fixed_k() -> None:
    """Fixed K always asks for the same k."""
    p = FixedK(6)
    assert p.next_k(100, 0) == 6 and p.cap == 6


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


def test_calibration_is_cached_and_fresh_measures_again(tmp_path: Path) -> None:
    slow = load_or_calibrate(Clocked(0.002), tmp_path, "m")
    assert slow.source == "calibrated" and slow(32) > slow(0) * 10  # 33 positions vs 1
    cached = load_or_calibrate(Clocked(0.0), tmp_path, "m")
    assert cached.source == "cache" and cached.points == slow.points
    fresh = load_or_calibrate(Clocked(0.0), tmp_path, "m", fresh=True)
    assert fresh.source == "calibrated" and fresh(32) < slow(32) / 5
    assert load_or_calibrate(Clocked(0.0), tmp_path, "m").points == fresh.points
