"""The decode loop: lossless speculative greedy decoding over token ids.

Owns the one loop: prefill, then per step draft → verify `[last] + draft` in one forward pass →
keep the matching prefix plus the target's own next token (the bonus) → crop the cache → update K.
It reads a proposer only through the `Draft` it returns and a K policy only through `policy.KPolicy`;
it fills one `DecodeResult` as it goes (decoded.py: the tokens, one `Step` per verify pass, the
prefill's figures, the stop reason) and yields each step; `run()` drives it to the end. The timing
is the `Clock`'s (one lap per phase of a step), kept apart from the steps themselves.

Invariant: for any proposer and any K schedule the emitted tokens equal plain greedy decoding of the
same model. A `Constraint` (speculative/anchor.py: the stretches of the original an unambiguous merge
keeps) may force tokens: they are fed with the next verify block like a prefill, need no acceptance,
and the model decides only the other positions; the invariant then holds against plain greedy under
the same constraint. With sampling (temperature > 0) `verify` hands the block to
speculative/sampling.py's exact rule instead, and the output is distributed as sampling from the
model alone. Knows nothing of text, files, regions or rendering; stopping on text (the closing
fence) comes in as a callback.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol, TypedDict

from applyedit.decoded import DecodeResult, Step
from applyedit.models.base import TargetModel
from applyedit.speculative import logits as rows
from applyedit.speculative.policy import KPolicy
from applyedit.speculative.proposers import Draft, Proposer, common_prefix
from applyedit.speculative.sampling import Sampler, Sampling

if TYPE_CHECKING:
    from applyedit.speculative.logits import Logits

# Given all output tokens so far, return the length the output should be cut to, or None to go on.
StopCheck = Callable[[Sequence[int]], "int | None"]
FORCED_BLOCK = 256  # a pass feeds at most this many forced + draft tokens at once (backend batches hold 512)


class Constraint(Protocol):
    """Tokens the output must hold next, as a function of the output so far (the loop only grows it)."""

    def forced(self, output: Sequence[int]) -> Sequence[int]:
        """The tokens that must follow `output`; empty when the model decides the next one."""
        ...

    def first_forced(self, output: Sequence[int], more: Sequence[int]) -> int | None:
        """The least i in 1..len(more) with `forced(output + more[:i])` non-empty, else None
        (`output` ends at a free position: `forced(output)` is empty)."""
        ...


class StepTimes(TypedDict):
    """A step's clock readings, as `Step` records them."""

    start_s: float
    time_s: float
    draft_s: float
    forward_s: float
    crop_s: float


class Clock:
    """The loop's timing, kept apart from its steps: when the prefill began, how long it took, and each
    step's start and laps (`lap("draft")`, `lap("forward")`, `lap("crop")`: the time since the last)."""

    def __init__(self) -> None:
        self.started_at = self.decoding_at = self.step_at = self.mark = time.perf_counter()
        self.laps: dict[str, float] = {}

    def prefilled(self) -> float:
        """The prefill's seconds; decoding starts now."""
        self.decoding_at = time.perf_counter()
        return self.decoding_at - self.started_at

    def step(self) -> None:
        self.step_at = self.mark = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name], self.mark = now - self.mark, now

    def times(self) -> StepTimes:
        """This step's readings, its time counted to now."""
        return StepTimes(
            start_s=self.step_at - self.decoding_at,
            time_s=time.perf_counter() - self.step_at,
            draft_s=self.laps["draft"],
            forward_s=self.laps["forward"],
            crop_s=self.laps["crop"],
        )

    def decoding_s(self) -> float:
        """Seconds since the prefill ended."""
        return time.perf_counter() - self.decoding_at


def verify(
    logits: Logits, draft: Sequence[int], sampler: Sampler | None = None, draft_probs: Logits | None = None
) -> tuple[int, int]:
    """`(num_accepted, token)` for the verify pass's logits `(len(draft) + 1, V)` over `[last] + draft`:
    the leading draft tokens kept, then the target's own token after them (the correction at the first
    rejection, or the bonus after a fully kept draft). Greedy (`sampler` None): the draft prefix equal
    to the target's argmax, then its argmax. Sampling: speculative/sampling.py's exact rule (`draft_probs`: the
    draft's q rows, None for point masses)."""
    if sampler is None:
        predicted = rows.argmax(logits)
        num_accepted = common_prefix(draft, predicted)
        return num_accepted, predicted[num_accepted]
    return sampler.verify(logits, draft, draft_probs)


def decode(
    model: TargetModel,
    prompt: Sequence[int],
    proposer: Proposer,
    policy: KPolicy,
    max_new_tokens: int,
    *,
    state: DecodeResult | None = None,
    stop: StopCheck | None = None,
    sampling: Sampling | None = None,
    constraint: Constraint | None = None,
) -> Iterator[Step]:
    """Yield verify steps until EOS, `stop` or `max_new_tokens`; `state` (a fresh `DecodeResult`) is
    filled as it goes: the tokens, the steps, the prefill's figures, the stop reason and the clocks.

    `sampling` with a temperature above 0 samples (its seed seeds this run's one random stream);
    None or temperature 0 is greedy decoding. `constraint` forces tokens (see the module docstring).
    """
    assert len(prompt) >= 1 and max_new_tokens >= 1
    state = state if state is not None else DecodeResult(prompt_tokens=len(prompt))
    assert not state.tokens and not state.steps, "a fresh record"
    sampler = Sampler(sampling) if sampling is not None and not sampling.greedy else None
    output, clock = state.tokens, Clock()
    # 0. Prefill all prompt tokens but the last: the last one opens the first verify block, so even
    #    the first output tokens can be drafted. A cache that already holds exactly this prefix is
    #    reused (`bench` runs several methods on one prompt).
    state.started_at = clock.started_at
    state.prefilled = model.prefill(list(prompt[:-1]))
    state.prefill_s = clock.prefilled()
    last = prompt[-1]
    while True:
        clock.step()
        # 1. Forced: the tokens the constraint fixes next (an anchored stretch), never past the budget.
        #    They ride at the head of this pass's block like a prefill chunk; nothing verifies them.
        forced = list(constraint.forced(output))[: max_new_tokens - len(output)] if constraint else []
        head = [*output, *forced] if forced else output
        # 2. Draft: the proposer offers up to the policy's cap after the forced tokens; the policy
        #    picks k from the offer, its support and its drafter; never more than the budget leaves
        #    room for (the bonus token takes one slot, so a fully accepted draft cannot overshoot).
        offer = proposer.propose(head, policy.cap)
        k = policy.next_k(len(offer.ids), offer.support, offer.drafter)
        room = max_new_tokens - len(head) - 1  # -1: the forced tokens fill the budget, no bonus
        draft = list(offer.ids[: max(0, min(k, room))])
        # A sampled draft (a draft model's) carries the q it was drawn from; copied tokens are point masses.
        draft_probs = offer.probs[: len(draft)] if sampler is not None and offer.probs is not None else None
        clock.lap("draft")
        # 3. Verify: one forward pass over [last] + forced + draft gives len(draft) + 1 next-token
        #    predictions after the forced tokens (a long forced run goes first, in a pass of its own,
        #    so a verify block always fits one backend batch). Keep the longest draft prefix the target
        #    agrees with (or the sampling rule keeps), then one token of its own: the bonus after a
        #    fully accepted draft, or the correction at the first mismatch.
        base = model.cached_len
        logits = _forward_block(model, [last, *forced], draft)
        num_accepted, token = verify(logits, draft, sampler, draft_probs)
        clock.lap("forward")
        # 4. Where the constraint forces again (the output re-joined an anchored stretch) the block
        #    ends there, without a token of the model's own: the next pass feeds the forced ones.
        #    (Timed with the crop: `Step.crop_s`.)
        rejoin = constraint.first_forced(head, draft[:num_accepted]) if constraint else None
        if rejoin is not None:  # the draft past the re-join was never the model's to decide: not offered
            draft, num_accepted = draft[:rejoin], rejoin
        own = [token] if rejoin is None and room >= 0 else []
        emitted = [*forced, *draft[:num_accepted], *own]
        # 5. Crop the cache back to the accepted prefix: it held [last] + forced + draft; it keeps
        #    [last] + every emitted token but the newest, which is the next step's `last`.
        model.crop_to(base + len(emitted))
        clock.lap("crop")
        proposer.observe(len(draft), num_accepted)
        policy.observe(len(draft), num_accepted, offer.drafter)
        # 6. Stop rules (`stop_rules`): the output grows by what of `emitted` stands before the stop.
        emitted, reason = stop_rules(output, emitted, model.eos_ids, stop, max_new_tokens)
        assert len(output) <= max_new_tokens
        assert reason is not None or model.cached_len == len(prompt) - 1 + len(output), "cache = accepted prefix"
        yield _record(state, clock, policy, offer, k, draft, num_accepted, emitted, len(forced))
        if reason is not None:
            state.stop_reason, state.decode_s = reason, clock.decoding_s()
            return
        last = output[-1]


def _record(
    state: DecodeResult,
    clock: Clock,
    policy: KPolicy,
    offer: Draft,
    k: int,
    draft: list[int],
    num_accepted: int,
    emitted: list[int],
    forced: int,
) -> Step:
    """This pass's `Step`, appended to the run's record: `forced` of the block's tokens were forced (those of
    `emitted` before a stop cut count)."""
    step = Step(
        index=len(state.steps),
        k=k,
        draft=tuple(draft),
        num_accepted=num_accepted,
        emitted=tuple(emitted),
        state=policy.alignment.state,
        drafter=offer.drafter if draft else "",
        forced=min(forced, len(emitted)),
        **clock.times(),
    )
    state.steps.append(step)
    return step


def _forward_block(model: TargetModel, block: list[int], draft: list[int]) -> Logits:
    """One verify pass over `block` ([last] + forced) and `draft`: the logits of the draft's positions
    and the one after it. A long forced run goes first, in a pass of its own, so a verify block always
    fits one backend batch."""
    if len(block) + len(draft) > FORCED_BLOCK:
        model.forward(block[:-1], num_logits=1)
        block = block[-1:]
    return model.forward([*block, *draft], num_logits=len(draft) + 1)


def stop_rules(
    output: list[int], emitted: list[int], eos_ids: frozenset[int], stop: StopCheck | None, max_new_tokens: int
) -> tuple[list[int], str | None]:
    """A step's stop rules, in emission order: EOS ends the output before itself; the text stop check
    may cut inside the block; the budget is checked last (never exceeded, by construction). `output`
    grows by the emitted tokens it keeps; returns those and the stop reason (None: go on)."""
    reason = None
    for i, token in enumerate(emitted):
        if token in eos_ids:
            emitted, reason = emitted[:i], "eos"
            break
    output.extend(emitted)
    if reason is None and stop is not None:
        cut = stop(output)
        if cut is not None:
            del emitted[len(emitted) - (len(output) - cut) :]
            del output[cut:]
            reason = "stop"
    if reason is None and len(output) >= max_new_tokens:
        reason = "budget"
    return emitted, reason


def run(
    model: TargetModel,
    prompt: Sequence[int],
    proposer: Proposer,
    policy: KPolicy,
    max_new_tokens: int,
    *,
    stop: StopCheck | None = None,
    on_step: Callable[[Step, int], None] | None = None,
    sampling: Sampling | None = None,
    constraint: Constraint | None = None,
) -> DecodeResult:
    """Run `decode` to its end and return its `DecodeResult`; `on_step(step, tokens_so_far)` drives
    progress displays."""
    result = DecodeResult(prompt_tokens=len(prompt))
    steps = decode(
        model,
        prompt,
        proposer,
        policy,
        max_new_tokens,
        state=result,
        stop=stop,
        sampling=sampling,
        constraint=constraint,
    )
    for step in steps:
        if on_step is not None:
            on_step(step, len(result.tokens))
    return result
