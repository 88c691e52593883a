"""Run statistics as data: what one decode cost, where its time went, and what each region cost.

Owns the metric definitions (below, and the region metrics in `LEGEND`; the report's legend and
docs/benchmarks.md quote them), `Summary` and `Profile` of one decode, and `attribute`: every emitted token,
draft token and verify pass given to exactly one region of the output (report/regions.py), so the regions
add up to the totals. Knows nothing of rendering (report/__init__.py) or of how the regions were found.

Metric definitions:
- tokens: emitted output tokens (accepted draft tokens + bonus tokens), the stop token excluded.
- passes: target forward passes after the prefill (one per verify step).
- tokens per pass: tokens / passes; plain greedy decoding gets 1.0. Includes the bonus token.
- drafted / accepted: draft tokens offered to the target / draft tokens it agreed with.
- acceptance: accepted / drafted.
- speedup in passes: tokens / passes (the passes a plain decoder would need, over ours).
- tokens/s: tokens / (prefill + decode wall time); decode tokens/s leaves the prefill out.
- forward: time in the target's verify passes and their verdict (argmax or sampling rule; waits for the device).
- drafting: time in the proposer and the K policy, choosing each step's draft.
- cache: time cropping the KV cache to the accepted prefix (after the anchor's re-join check).
- loop: the rest of each step: stop rules, observing acceptance, building the step record.
- outside: decode time between steps, spent by whoever consumes them (progress display, timeout watch).
- startup: from process start to the first forward (the prefill), imports and weight loading included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from applyedit.decoded import DecodeResult, Step
from applyedit.report.regions import Region
from applyedit.speculative.sampling import Sampling

__all__ = [
    "LEGEND",
    "Profile",
    "RegionStats",
    "Summary",
    "anchored_lines",
    "attribute",
    "merge_profile",
    "merge_summary",
    "process_age_s",
    "profile",
    "summarise",
]

LEGEND = """\
- lines: output lines of the file body in the region; a deleted region has none (it shows the original lines it lost).
- mean K: the draft length asked for, averaged over the region's passes (a proposer may offer fewer).
- time: the wall time of the region's passes summed (forward + bookkeeping); the prefill is in no region.
- region of a token: the region holding its output line; the closing fence and anything after the body go to "end".
- region of a draft token: its output position; a rejected draft token, the position of the correction token.
- region of a pass: the region of its first emitted token (with the pass's time and K).
- forced: tokens the anchor forced (original lines an unambiguous merge keeps, fed without drafting or verifying).
- anchored lines: output lines every token of which was forced.
- drafted by: which proposer drafted the region's draft tokens (copy, draft-model), with its share of them.
- plain passes: passes a plain greedy decoder needs for the same output, one per token.
- first / last emit: when the pass that emitted the region's first / last token ended, on the decode clock.
- time to first / last token: from the start of the prefill to the end of the pass that emitted it.
"""


class PassRates:
    """The rates of a run or a region over its `tokens`, `passes`, `drafted` and `accepted` counts,
    and its JSON-ready dict with the rates (`DERIVED`) beside the counts."""

    __slots__ = ()
    DERIVED: ClassVar[tuple[str, ...]] = ("tokens_per_pass", "acceptance")
    tokens: int
    passes: int
    drafted: int
    accepted: int

    @property
    def tokens_per_pass(self) -> float:
        return self.tokens / self.passes if self.passes else 0.0

    @property
    def acceptance(self) -> float:
        return self.accepted / self.drafted if self.drafted else 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {name: getattr(self, name) for name in self.DERIVED}  # type: ignore[call-overload]


@dataclass(frozen=True, slots=True)
class Summary(PassRates):
    """What one decode produced and cost, with the run's settings."""

    DERIVED: ClassVar[tuple[str, ...]] = (
        "wall_s",
        "tokens_per_pass",
        "acceptance",
        "tokens_per_s",
        "decode_tokens_per_s",
    )
    model: str
    device: str
    dtype: str
    proposer: str
    prompt_tokens: int
    tokens: int
    passes: int
    drafted: int
    accepted: int
    prefill_s: float
    decode_s: float
    first_token_s: float  # from the start of prefill to the end of the first verify pass
    stop_reason: str  # the decode's ("eos" | "stop" | "budget"), or "merge": the merge answered, no decode ran
    backend: str = "torch"  # "torch" | "llamacpp"
    backend_reason: str = ""  # why that backend ran: "the CPU default", "--backend torch", "CUDA", ...
    temperature: float = 0.0  # 0: greedy decoding
    top_p: float = 1.0
    seed: int | None = None  # the seed that reproduces a sampling run

    @property
    def wall_s(self) -> float:
        return self.prefill_s + self.decode_s

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def decode_tokens_per_s(self) -> float:
        return self.tokens / self.decode_s if self.decode_s > 0 else 0.0


@dataclass(frozen=True, slots=True)
class Profile:
    """Where one decode's wall time went (seconds); the parts add up to prefill + decode."""

    prefill_s: float
    forward_s: float
    drafting_s: float
    cache_s: float
    loop_s: float
    outside_s: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def profile(result: DecodeResult) -> Profile:
    steps = result.steps
    forward = sum(s.forward_s for s in steps)
    drafting = sum(s.draft_s for s in steps)
    cache = sum(s.crop_s for s in steps)
    in_steps = sum(s.time_s for s in steps)
    return Profile(
        prefill_s=result.prefill_s,
        forward_s=forward,
        drafting_s=drafting,
        cache_s=cache,
        loop_s=max(0.0, in_steps - forward - drafting - cache),
        outside_s=max(0.0, result.decode_s - in_steps),
    )


def merge_profile(wall_s: float) -> Profile:
    """Where the time of a run the snippet's merge answered went: no decode step ran, so all of it is
    outside the steps. (The steps' parts are the integer 0 an empty sum gives, as a report has always
    written them.)"""
    return Profile(prefill_s=0.0, forward_s=0, drafting_s=0, cache_s=0, loop_s=0.0, outside_s=wall_s)


def process_age_s(at: float | None = None) -> float | None:
    """Seconds from this process's start to `at` (a time.perf_counter() value; default now), from
    /proc (Linux; 10 ms resolution). None where /proc is not there."""
    import os
    import time

    try:
        start_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    age_now = uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    return age_now - (time.perf_counter() - at if at is not None else 0.0)


def summarise(
    result: DecodeResult,
    *,
    model: str,
    device: str,
    dtype: str,
    proposer: str,
    backend: str = "torch",
    backend_reason: str = "",
    sampling: Sampling | None = None,
) -> Summary:
    sampling = sampling or Sampling()
    first = result.steps[0].time_s if result.steps else 0.0
    return Summary(
        model=model,
        device=device,
        dtype=dtype,
        proposer=proposer,
        prompt_tokens=result.prompt_tokens,
        tokens=len(result.tokens),
        passes=len(result.steps),
        drafted=sum(len(s.draft) for s in result.steps),
        accepted=sum(s.num_accepted for s in result.steps),
        prefill_s=result.prefill_s,
        decode_s=result.decode_s,
        first_token_s=result.prefill_s + first,
        stop_reason=result.stop_reason,
        backend=backend,
        backend_reason=backend_reason,
        temperature=sampling.temperature,
        top_p=sampling.top_p,
        seed=None if sampling.greedy else sampling.seed,
    )


def merge_summary(wall_s: float, how: str = "certain: one reading, every invariant holds") -> Summary:
    """The summary of a run a reading of the snippet answered (outcome.answer_by_merge): no decode ran, so
    every count is 0; `wall_s` is the reading's own time, `stop_reason` is "merge" and `backend_reason`
    says how the reading was decided (`how`: certain, taken by --reading, or chosen by the model)."""
    return Summary(
        model="",
        device="",
        dtype="",
        proposer="none",
        prompt_tokens=0,
        tokens=0,
        passes=0,
        drafted=0,
        accepted=0,
        prefill_s=0.0,
        decode_s=wall_s,
        first_token_s=0.0,
        stop_reason="merge",
        backend="none",
        backend_reason=how,
    )


@dataclass
class RegionStats(PassRates):
    """What one region (or the whole run) cost: an accumulator fed by `attribute`."""

    DERIVED: ClassVar[tuple[str, ...]] = ("time_s", "acceptance", "tokens_per_pass", "mean_k")

    lines: int = 0
    tokens: int = 0  # emitted
    drafted: int = 0
    accepted: int = 0
    forced: int = 0  # emitted tokens the anchor forced
    passes: int = 0
    k_sum: int = 0  # K asked for, summed over passes
    time_ns: int = 0  # integer nanoseconds, so that region times add up to the total exactly
    first_emit_s: float | None = None  # decode clock: end of the pass emitting the first token here
    last_emit_s: float | None = None  # ... and the last one
    drafted_by: dict[str, int] = field(default_factory=dict)  # drafter ("copy" | "draft-model") -> drafted
    accepted_by: dict[str, int] = field(default_factory=dict)  # drafter -> accepted

    def observe_token(self, step: Step, forced: bool = False) -> None:
        """One emitted token of `step` (steps come in order: the first seen is the earliest)."""
        self.tokens += 1
        self.forced += forced
        self.last_emit_s = step.start_s + step.time_s
        self.first_emit_s = self.last_emit_s if self.first_emit_s is None else self.first_emit_s

    def observe_draft(self, accepted: bool, drafter: str = "copy") -> None:
        self.drafted += 1
        self.accepted += accepted
        self.drafted_by[drafter] = self.drafted_by.get(drafter, 0) + 1
        self.accepted_by[drafter] = self.accepted_by.get(drafter, 0) + accepted

    def observe_pass(self, step: Step) -> None:
        self.passes += 1
        self.k_sum += step.k
        self.time_ns += round(step.time_s * 1e9)

    @property
    def time_s(self) -> float:
        return self.time_ns / 1e9

    @property
    def mean_k(self) -> float:
        return self.k_sum / self.passes if self.passes else 0.0


def attribute(
    regions: Sequence[Region], steps: Sequence[Step], token_lines: Sequence[int], num_body_tokens: int
) -> tuple[list[RegionStats], RegionStats, RegionStats]:
    """Per-region stats, the "end" pseudo-region's, and the totals, by the rules of `LEGEND` (region of a
    token, of a draft token, of a pass).

    `token_lines`: the 0-based output line of each emitted token (spans.token_lines); the first
    `num_body_tokens` tokens are the file body. Output positions past the body — the closing fence,
    draft tokens accepted past a stop cut, passes that emitted nothing (EOS at once) — belong to "end".
    Invariant: regions + end add up to the totals, field by field; the totals are the sums over steps.
    """
    owner: dict[int, int] = {}  # 0-based output line -> region index
    for index, region in enumerate(regions):
        owner.update(dict.fromkeys(range(region.start_line - 1, region.end_line), index))
    per_region = [RegionStats(lines=r.lines) for r in regions]
    end = RegionStats()
    totals = RegionStats(lines=sum(r.lines for r in regions))

    def at(position: int) -> RegionStats:
        if position >= min(num_body_tokens, len(token_lines)):
            return end
        index = owner.get(token_lines[position])
        return end if index is None else per_region[index]

    position = 0  # output position of the step's first emitted token
    for step in steps:
        assert step.num_accepted <= len(step.draft) <= step.k, "accepted <= drafted <= k"
        for target in (at(position), totals):
            target.observe_pass(step)
        for i in range(len(step.draft)):  # a rejected one (i >= num_accepted): where the correction goes
            for target in (at(position + step.forced + min(i, step.num_accepted)), totals):
                target.observe_draft(i < step.num_accepted, step.drafter or "copy")
        for i in range(len(step.emitted)):
            for target in (at(position + i), totals):
                target.observe_token(step, i < step.forced)
        position += len(step.emitted)
    return per_region, end, totals


def anchored_lines(steps: Sequence[Step], pieces: Sequence[bytes], num_lines: int) -> list[tuple[int, int]]:
    """1-based inclusive ranges of the first `num_lines` output lines whose every byte, newline
    included, came from a forced token (`pieces`: each emitted token's bytes, `spans.token_bytes`)."""
    forced = [i < s.forced for s in steps for i in range(len(s.emitted))]
    lines: list[bool] = []  # per completed line: all its bytes forced
    current = True
    for data, was in zip(pieces, forced, strict=False):
        for byte in data:
            current = current and was
            if byte == 10:
                lines.append(current)
                current = True
    ranges: list[tuple[int, int]] = []
    for n, was in enumerate(lines[:num_lines], 1):
        if not was:
            continue
        if ranges and ranges[-1][1] == n - 1:
            ranges[-1] = (ranges[-1][0], n)
        else:
            ranges.append((n, n))
    return ranges
