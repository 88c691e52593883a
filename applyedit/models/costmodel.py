"""What one verify pass costs as a function of the draft length k, per model and device.

Owns the cost curve t(k): measured once per (model, device, dtype, threads) by timing forward passes
over blocks of k + 1 tokens on top of a cached prefix and cached as JSON under `APPLYEDIT_HOME`. It is
not refined online: a run's pass pattern depends only on the cached curve, never on how busy the machine
was during the run, so bench runs and replays stay comparable. CPU curves are far from linear (on a
2-core AVX2 CPU, the 1.5B model in fp32 on oneDNN: one token 0.3-0.5 s, a block of 2 tokens ~1.5-2×
that, of 33 tokens ~3.5×), which is why the K policy reads the measured curve instead of assuming
`a + b·(k+1)`.
Knows nothing of proposers, text or regions.
"""

from __future__ import annotations

import bisect
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from applyedit import files
from applyedit.errors import InputError

logger = logging.getLogger(__name__)

PROBE_KS = (0, 1, 2, 4, 8, 16, 32, 64)


class Timed(Protocol):
    """What calibration needs of a model (`models.base.TargetModel` has it): a cache to fill, extend by a
    block and crop. Its own contract, so the model seam and the cost curve import neither the other."""

    def reset(self) -> None: ...

    def forward(self, ids: list[int], num_logits: int) -> Any: ...

    def crop_to(self, length: int) -> None: ...


@dataclass
class CostCurve:
    """t(k) in seconds for a pass verifying k draft tokens (k + 1 positions), piecewise linear in k."""

    points: dict[int, float]  # k -> seconds
    source: str = "prior"  # "prior" | "calibrated" | "cache"
    _ks: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._ks = sorted(self.points)

    def __call__(self, k: int) -> float:
        ks = self._ks
        if k <= ks[0]:
            return self.points[ks[0]]
        if k >= ks[-1]:  # extrapolate with the last segment's slope
            a, b = ks[-2], ks[-1]
            return self.points[b] + (k - b) * (self.points[b] - self.points[a]) / (b - a)
        i = bisect.bisect_left(ks, k)
        if ks[i] == k:
            return self.points[k]
        a, b = ks[i - 1], ks[i]
        return self.points[a] + (k - a) * (self.points[b] - self.points[a]) / (b - a)

    def to_json(self) -> dict[str, float]:
        return {str(k): v for k, v in self.points.items()}

    def perfect(self, num_tokens: int, k_cap: int) -> list[float]:
        """The passes of the perfect drafter, priced: it drafts the output itself, up to `k_cap` tokens
        a pass, and every draft is kept, so each pass yields its draft plus the bonus token. The
        seconds of each pass, in order (the first yields the first token): the bound no drafter beats
        on this curve."""
        costs, left = [], num_tokens
        while left > 0:
            k = max(0, min(k_cap, left - 1))
            costs.append(self(k))
            left -= k + 1
        return costs


def prior() -> CostCurve:
    """A shape-only guess used until a calibration exists: one token cheap, blocks ~4× that."""
    return CostCurve({0: 1.0, 1: 2.0, 2: 2.6, 4: 3.2, 8: 3.6, 16: 4.2, 32: 5.2, 64: 7.5}, "prior")


def calibrate(
    model: Timed, prefix_len: int = 512, ks: tuple[int, ...] = PROBE_KS, reps: int = 3, max_reps: int = 8
) -> CostCurve:
    """Time forward passes of k + 1 tokens over a `prefix_len` cache: `reps` rounds over every k
    (interleaved, so a burst of other work spoils one round's points, not all of one k's), the
    minimum per k. Other work only ever adds time, and a longer block never costs less: while a point
    costs more than a longer block's (by over 10%), more rounds run, up to `max_reps`; then each point
    is capped by the longer blocks' (`monotone`)."""
    model.reset()
    model.forward(probe_ids(prefix_len), num_logits=1)
    points = time_blocks(model, prefix_len, ks, reps, max_reps)
    model.reset()
    return CostCurve(monotone(points), "calibrated")


def probe_ids(n: int) -> list[int]:
    """The prefix calibration runs over: `n` fixed, spread-out token ids (their values do not matter)."""
    return [(i * 7919) % 30000 + 100 for i in range(n)]


def time_blocks(
    model: Timed, prefix_len: int, ks: tuple[int, ...] = PROBE_KS, reps: int = 3, max_reps: int = 8
) -> dict[int, float]:
    """t(k) over the `prefix_len` tokens the model's cache holds now: `reps` interleaved rounds of a
    pass of k + 1 tokens per k, each cropped away again, the minimum per k; more rounds, up to
    `max_reps`, while the points are `inverted`. The cache is left holding the prefix."""
    blocks = {k: [(i * 104729) % 30000 + 100 for i in range(k + 1)] for k in ks}
    points = {k: float("inf") for k in ks}
    for rep in range(max_reps):
        for k in ks:
            t0 = time.perf_counter()
            model.forward(blocks[k], num_logits=k + 1)
            points[k] = min(points[k], time.perf_counter() - t0)
            model.crop_to(prefix_len)
        if rep + 1 >= reps and not inverted(points):
            break
    return points


def inverted(points: dict[int, float], slack: float = 1.1) -> bool:
    """Whether some block costs more than `slack` times a longer one: a sign of a disturbed measurement."""
    ks = sorted(points)
    return any(points[a] > slack * points[b] for i, a in enumerate(ks) for b in ks[i + 1 :])


def monotone(points: dict[int, float]) -> dict[int, float]:
    """Each point capped by the cheapest longer block: t(k) never decreases in k."""
    out, cap = {}, float("inf")
    for k in sorted(points, reverse=True):
        cap = min(cap, points[k])
        out[k] = cap
    return dict(sorted(out.items()))


def cache_path(home: Path, key: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in key)
    return home / "calibration" / f"{safe}.json"


def load_or_calibrate(model: Timed, home: Path, key: str, fresh: bool = False, save: bool = True) -> CostCurve:
    """The cached curve for `key`, else (or when `fresh`) a new calibration written to the cache
    (unless not `save`).

    A calibration taken while other work loads the CPU is wrong for as long as it is cached:
    `applyedit model calibrate` measures again. A cached curve that inverts (see `inverted`; written
    before calibrations capped it) is measured again."""
    path = cache_path(home, key)
    try:
        points = {int(k): float(v) for k, v in json.loads(path.read_text()).items()}
        if points and not fresh and not inverted(points):
            return CostCurve(points, "cache")
        if points and not fresh:  # an older calibration disturbed by other work: measure again
            logger.warning(
                "the cached cost calibration %s inverts (a block costs more than a longer one): measuring again", path
            )
    except (OSError, ValueError):
        pass
    curve = calibrate(model)
    if not save:
        return curve
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomic(path, json.dumps(curve.to_json()).encode(), follow=False)
    except (OSError, InputError) as e:  # InputError: files.py's word for a write that failed
        logger.warning("could not cache the cost calibration in %s: %s", path, e)
    return curve
