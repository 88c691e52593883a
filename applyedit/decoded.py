"""What a decode hands back, as plain data: one `Step` per verify pass, and the run's `DecodeResult`.

Owns the two record types and nothing else. They stand in the base layer so that every layer may name
them, for a type too: the errors (a refused output carries its decode), the backend seam (a backend that
decodes whole requests returns one), the report, the run and the loop that fills them
(speculative/loop.py). Computes nothing; knows nothing of models, proposers or text.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Step:
    """One verify pass. `emitted` = accepted draft tokens + the bonus, after any stop cut."""

    index: int
    k: int  # draft length the policy allowed (the draft itself may be shorter)
    draft: tuple[int, ...]  # what the proposer offered (at most k)
    num_accepted: int  # leading draft tokens kept: equal to the target's argmax (greedy) or kept by the rule
    emitted: tuple[int, ...]
    start_s: float  # since decoding began (after prefill)
    time_s: float  # this pass, forward + bookkeeping
    state: str = ""  # the K policy's alignment after this step ("aligned" | "in-edit")
    # where time_s went (the rest of it is the loop's own bookkeeping: observe, stop rules, this record)
    draft_s: float = 0.0  # proposer + K policy (step 2)
    forward_s: float = 0.0  # the verify pass and its verdict: argmax read back and matched, or the sampling rule
    crop_s: float = 0.0  # cropping the cache to the accepted prefix
    drafter: str = ""  # who drafted: "copy" | "draft-model" | "" (no draft: a plain pass)
    forced: int = 0  # leading tokens of `emitted` that the constraint forced (fed with the block, not drafted)


@dataclass
class DecodeResult:
    """One decode's record, filled as the loop runs (speculative/loop.py's `decode`; a backend that
    decodes whole requests returns one too): the tokens, one `Step` per verify pass, why it stopped,
    the prefill's figures and the clocks."""

    tokens: list[int] = field(default_factory=list)  # emitted tokens, without the stop token (EOS) itself
    steps: list[Step] = field(default_factory=list)
    stop_reason: str = ""  # set when the decode ends: "eos" | "stop" (the StopCheck cut) | "budget"
    prompt_tokens: int = 0
    prefill_s: float = 0.0
    decode_s: float = 0.0  # from the end of the prefill to the end of the last step
    prefilled: int = 0  # prompt tokens computed by the prefill (0 when a cached prefill was reused)
    started_at: float = 0.0  # time.perf_counter() when the prefill began (the first forward)
