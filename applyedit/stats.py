"""Run statistics as data: what one decode cost and how much the drafts saved.

Metric definitions (the report's legend quotes these):
- tokens: emitted output tokens (accepted draft tokens + bonus tokens), the stop token excluded.
- passes: target forward passes after the prefill (one per verify step).
- tokens per pass: tokens / passes; plain greedy decoding gets 1.0. Includes the bonus token.
- drafted / accepted: draft tokens offered to the target / draft tokens it agreed with.
- acceptance: accepted / drafted.
- speedup in passes: tokens / passes (the passes a plain decoder would need, over ours).
- tokens/s: tokens / (prefill + decode wall time); decode tokens/s leaves the prefill out.
Knows nothing of rendering: `report`-style output lives in the CLI.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from applyedit.decode import DecodeResult


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


def summarise(result: DecodeResult, *, model: str, device: str, dtype: str, proposer: str,
              backend: str = "torch") -> Summary:
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
    )
