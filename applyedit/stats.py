"""Run statistics as data: what one decode cost and how much the drafts saved.

Metric definitions (the report's legend quotes these):
- tokens: emitted output tokens (accepted draft tokens + bonus tokens), the stop token excluded.
- passes: target forward passes after the prefill (one per verify step).
- tokens per pass: tokens / passes; plain greedy decoding gets 1.0. Includes the bonus token.
- drafted / accepted: draft tokens offered to the target / draft tokens it agreed with.
- acceptance: accepted / drafted.
- speedup in passes: tokens / passes (the passes a plain decoder would need, over ours).
- tokens/s: tokens / (prefill + decode wall time); decode tokens/s leaves the prefill out.
- forward: time in the target's verify passes, up to reading their argmax back (waits for the device).
- drafting: time in the proposer and the K policy, choosing each step's draft.
- cache: time matching each draft against the target's choices and cropping the KV cache.
- loop: the rest of each step: stop rules, observing acceptance, building the step record.
- outside: decode time between steps, spent by whoever consumes them (progress display, timeout watch).
- startup: from process start to the first forward (the prefill), imports and weight loading included.
Knows nothing of rendering: `report`-style output lives in the CLI.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from applyedit.decode import DecodeResult
from applyedit.sampling import Sampling


@dataclass(frozen=True, slots=True)
class Summary:
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
    stop_reason: str
    backend: str = "torch"  # "torch" | "llamacpp"
    backend_reason: str = ""  # why that backend ran: "the CPU default", "--backend torch", "CUDA", ...
    temperature: float = 0.0  # 0: greedy decoding
    top_p: float = 1.0
    seed: int | None = None  # the seed that reproduces a sampling run

    @property
    def wall_s(self) -> float:
        return self.prefill_s + self.decode_s

    @property
    def tokens_per_pass(self) -> float:
        return self.tokens / self.passes if self.passes else 0.0

    @property
    def acceptance(self) -> float:
        return self.accepted / self.drafted if self.drafted else 0.0

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def decode_tokens_per_s(self) -> float:
        return self.tokens / self.decode_s if self.decode_s > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for name in ("wall_s", "tokens_per_pass", "acceptance", "tokens_per_s", "decode_tokens_per_s"):
            data[name] = getattr(self, name)
        return data


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
    return Profile(prefill_s=result.prefill_s, forward_s=forward, drafting_s=drafting, cache_s=cache,
                   loop_s=max(0.0, in_steps - forward - drafting - cache),
                   outside_s=max(0.0, result.decode_s - in_steps))


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


def summarise(result: DecodeResult, *, model: str, device: str, dtype: str, proposer: str,
              backend: str = "torch", backend_reason: str = "", sampling: Sampling | None = None) -> Summary:
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
