"""K policies: how many tokens to draft at the next step, from what the last step accepted.

Owns `next_k` as pure functions bounded by `[k_min, k_max]`. This is the simple schedule of issue 2
(double on a fully accepted draft, drop on a rejection); the region-aware policy of DESIGN.md §4
replaces it later behind the same two methods. Knows nothing of tensors or text.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class FixedK:
    """Always ask for `k` tokens."""

    k: int

    def next_k(self) -> int:
        return self.k

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        pass


@dataclass
class GrowShrinkK:
    """Double K after a fully accepted draft, fall to `k_min` after a rejection.

    A rejected token inside an edit costs a verify slot; a fully accepted draft means the output is
    copying an unchanged stretch, where a longer draft is almost free on the same forward pass.
    """

    k_max: int = 32
    k_min: int = 2
    k: int = 8

    def __post_init__(self) -> None:
        self.k_min = min(self.k_min, self.k_max)
        self.k = max(self.k_min, min(self.k, self.k_max))

    def next_k(self) -> int:
        return self.k

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        if num_drafted == 0:
            return  # nothing was drafted (no match): no evidence either way
        if num_accepted == num_drafted:
            self.k = min(self.k_max, max(self.k, num_drafted) * 2)
        else:
            self.k = max(self.k_min, min(self.k // 2, num_accepted + 1))
