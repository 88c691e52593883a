"""The decode loop: lossless speculative greedy decoding over token ids (DESIGN.md §2).

Owns the one loop: prefill, then per step draft → verify `[last] + draft` in one forward pass →
keep the matching prefix plus the target's own next token (the bonus) → crop the cache → update K.
It yields one `Step` record per verify pass; `run()` collects them. Invariant: for any proposer and
any K schedule the emitted tokens equal plain greedy decoding of the same model. A `Constraint`
(anchor.py: the stretches of the original an unambiguous merge keeps) may force tokens: they are
fed with the next verify block like a prefill, need no acceptance, and the model decides only the
other positions; the invariant then holds against plain greedy under the same constraint. With sampling
(temperature > 0) step 3 hands the block to sampling.py's exact rule instead, and the output is
distributed as sampling from the model alone. Knows nothing of text, files, regions or rendering;
stopping on text (the closing fence) comes in as a callback.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from applyedit.models.backend import TargetModel
from applyedit.proposers import Proposer
from applyedit.sampling import Sampler, Sampling

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


class KPolicy(Protocol):
    state: str  # "aligned" | "in-edit", for progress displays

    @property
    def cap(self) -> int:
        """The longest draft this policy could ask for at the next step."""
        ...

    def next_k(self, offered: int, support: int, drafter: str = "copy") -> int:
        """K for this step, given the draft length on offer, the proposer's support for it and who
        drafted it ("copy" | "draft-model")."""
        ...

    def observe(self, num_drafted: int, num_accepted: int, drafter: str = "copy") -> None: ...


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
    state: str = ""  # the K policy's state after this step ("aligned" | "in-edit")
    # where time_s went (the rest of it is the loop's own bookkeeping: accept, observe, stop rules)
    draft_s: float = 0.0  # proposer + K policy (step 1)
    forward_s: float = 0.0  # the verify pass, up to reading its argmax back (step 2; sampling: up to its logits)
    crop_s: float = 0.0  # matching the draft and cropping the cache (steps 3-4)
    drafter: str = ""  # who drafted: "copy" | "draft-model" | "" (no draft: a plain pass)
    forced: int = 0  # leading tokens of `emitted` that the constraint forced (fed with the block, not drafted)


@dataclass
class DecodeResult:
    tokens: list[int]  # emitted tokens, without the stop token (EOS) itself
    steps: list[Step]
    stop_reason: str  # "eos" | "stop" (the StopCheck cut) | "budget"
    prompt_tokens: int
    prefill_s: float
    decode_s: float
    prefilled: int = 0  # prompt tokens computed by the prefill (0 when a cached prefill was reused)
    started_at: float = 0.0  # time.perf_counter() when the prefill began (the first forward)


def decode(
    model: TargetModel,
    prompt: Sequence[int],
    proposer: Proposer,
    policy: KPolicy,
    max_new_tokens: int,
    stop: StopCheck | None = None,
    state: dict[str, object] | None = None,
    sampling: Sampling | None = None,
    constraint: Constraint | None = None,
) -> Iterator[Step]:
    """Yield verify steps until EOS, `stop` or `max_new_tokens`; `state` receives the stop reason.

    `sampling` with a temperature above 0 samples (its seed seeds this run's one random stream);
    None or temperature 0 is greedy decoding. `constraint` forces tokens (see the module docstring).
    """
    assert len(prompt) >= 1 and max_new_tokens >= 1
    state = state if state is not None else {}
    sampler = Sampler(sampling) if sampling is not None and not sampling.greedy else None
    output: list[int] = []
    # 0. Prefill all prompt tokens but the last: the last one opens the first verify block, so even
    #    the first output tokens can be drafted. A cache that already holds exactly this prefix is
    #    reused (`bench` runs several methods on one prompt).
    t0 = state["started_at"] = time.perf_counter()
    state["prefilled"] = model.prefill(list(prompt[:-1]))
    state["prefill_s"] = time.perf_counter() - t0
    last = prompt[-1]
    t_start = time.perf_counter()
    index = 0
    while True:
        t_step = time.perf_counter()
        # 1. Forced: the tokens the constraint fixes next (an anchored stretch), never past the budget.
        #    They ride at the head of this pass's block like a prefill chunk; nothing verifies them.
        forced = list(constraint.forced(output))[: max_new_tokens - len(output)] if constraint else []
        head = [*output, *forced] if forced else output
        # 2. Draft: the proposer offers up to the policy's cap after the forced tokens; the policy
        #    picks k from the offer and the proposer's support; never more than the budget leaves room
        #    for (the bonus token takes one slot, so a fully accepted draft cannot overshoot).
        offer = proposer.propose(head, policy.cap)
        drafter = getattr(proposer, "drafter", "copy")  # a copy proposer unless it says otherwise
        k = policy.next_k(len(offer), getattr(proposer, "support", 0), drafter)
        room = max_new_tokens - len(head) - 1  # -1: the forced tokens fill the budget, no bonus
        draft = offer[: max(0, min(k, room))]
        # A proposer that samples its drafts (a draft model) says from which distribution q, one row
        # per offered token, in `draft_probs`; copied tokens have none (point masses).
        draft_probs = getattr(proposer, "draft_probs", None) if sampler is not None else None
        if draft_probs is not None:
            assert draft_probs.shape[0] == len(offer), "one draft distribution per offered token"
            draft_probs = draft_probs[: len(draft)]
        t_draft = time.perf_counter()
        # 3. Verify: one forward pass over [last] + forced + draft gives len(draft) + 1 next-token
        #    predictions after the forced tokens (a long forced run goes first, in a pass of its own,
        #    so a verify block always fits one backend batch).
        base = model.cached_len
        block = [last, *forced]
        if len(block) + len(draft) > FORCED_BLOCK:
            model.forward(block[:-1], num_logits=1)
            block = block[-1:]
        logits = model.forward([*block, *draft], num_logits=len(draft) + 1)
        if sampler is None:
            predicted = logits.argmax(dim=-1).tolist()  # (len(draft) + 1,)
        t_forward = time.perf_counter()
        # 4. Accept the longest draft prefix the target agrees with, then one token of its own:
        #    the bonus after a fully accepted draft, or the correction at the first mismatch. Where
        #    the constraint forces again (the output re-joined an anchored stretch) the block ends
        #    there, without a token of the model's own: the next pass feeds the forced ones.
        if sampler is None:
            num_accepted = 0
            while num_accepted < len(draft) and draft[num_accepted] == predicted[num_accepted]:
                num_accepted += 1
            token = predicted[num_accepted]
        else:
            # Sampling: keep each draft token with the exact rule's probability; the correction comes
            # from the residual, the bonus from the target's distribution (sampling.py).
            num_accepted, token = sampler.verify(logits, draft, draft_probs)
        rejoin = constraint.first_forced(head, draft[:num_accepted]) if constraint else None
        if rejoin is not None:  # the draft past the re-join was never the model's to decide: not offered
            draft, num_accepted = draft[:rejoin], rejoin
        own = [token] if rejoin is None and room >= 0 else []
        emitted = [*forced, *draft[:num_accepted], *own]
        # 5. Crop the cache back to the accepted prefix: it held [last] + forced + draft; it keeps
        #    [last] + every emitted token but the newest, which is the next step's `last`.
        model.crop_to(base + len(emitted))
        t_crop = time.perf_counter()
        proposer.observe(len(draft), num_accepted)
        policy.observe(len(draft), num_accepted, drafter)
        # 6. Stop rules, in emission order: EOS ends the output before itself; the text stop check
        #    may cut inside the block; the budget is checked last (never exceeded, by construction).
        reason = None
        for i, token in enumerate(emitted):
            if token in model.eos_ids:
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
        assert len(output) <= max_new_tokens
        assert reason is not None or model.cached_len == len(prompt) - 1 + len(output), "cache = accepted prefix"
        now = time.perf_counter()
        yield Step(index, k, tuple(draft), num_accepted, tuple(emitted), t_step - t_start, now - t_step,
                   policy.state, t_draft - t_step, t_forward - t_draft, t_crop - t_forward, drafter if draft else "",
                   min(len(forced), len(emitted)))
        index += 1
        if reason is not None:
            state["stop_reason"] = reason
            state["decode_s"] = time.perf_counter() - t_start
            return
        last = output[-1]


def run(
    model: TargetModel,
    prompt: Sequence[int],
    proposer: Proposer,
    policy: KPolicy,
    max_new_tokens: int,
    stop: StopCheck | None = None,
    on_step: Callable[[Step, int], None] | None = None,
    sampling: Sampling | None = None,
    constraint: Constraint | None = None,
) -> DecodeResult:
    """Collect `decode` into a `DecodeResult`; `on_step(step, tokens_so_far)` drives progress displays."""
    state: dict[str, object] = {}
    steps: list[Step] = []
    tokens: list[int] = []
    for step in decode(model, prompt, proposer, policy, max_new_tokens, stop, state, sampling, constraint):
        steps.append(step)
        tokens.extend(step.emitted)
        if on_step is not None:
            on_step(step, len(tokens))
    return DecodeResult(
        tokens=tokens,
        steps=steps,
        stop_reason=str(state["stop_reason"]),
        prompt_tokens=len(prompt),
        prefill_s=float(state["prefill_s"]),  # type: ignore[arg-type]
        decode_s=float(state["decode_s"]),  # type: ignore[arg-type]
        prefilled=int(state["prefilled"]),  # type: ignore[call-overload]
        started_at=float(state["started_at"]),  # type: ignore[arg-type]
    )
