"""The bench's baselines besides applyedit's loop: `model.generate` greedy (optionally with
transformers' prompt lookup) on torch, and llama.cpp's own greedy loop, each timed as one `Run`.

Owns timing a baseline (end to end and the first token) and counting its target forward passes (a
forward pre-hook on the torch model). Knows nothing of which methods a bench runs or how its runs
are summarised: bench.py chooses, benchrecord.py records.
"""

from __future__ import annotations

import time
from typing import Any

from applyedit import api
from applyedit.tools.benchrecord import Run


class _FirstTokenClock:
    """A `generate` streamer that only notes when the first new token arrived (its 2nd `put`)."""

    def __init__(self) -> None:
        self.calls = 0
        self.first: float | None = None

    def put(self, _value: Any) -> None:
        self.calls += 1
        if self.calls == 2:
            self.first = time.perf_counter()

    def end(self) -> None:
        pass


def count_forwards(model: Any) -> tuple[list[int], Any]:
    """A counter of `model`'s forward calls, and the hook's handle (`.remove()` it when done)."""
    counter = [0]

    def hook(*_: Any) -> None:
        counter[0] += 1

    return counter, model.register_forward_pre_hook(hook)


def generate(engine: api.Engine, job: api.Job, lookup: int, counter: list[int]) -> Run:
    """One `model.generate` run (greedy, optionally with prompt lookup), timed. Every forward counts
    as a target pass, the prefill too (it yields the first token), as in the loop, whose prefill
    yields none: plain greedy needs one pass per token either way."""
    import torch

    ids = torch.tensor([job.prompt_ids], device=engine.device)
    eos = sorted(engine.model.eos_ids)
    extra = {"prompt_lookup_num_tokens": lookup} if lookup else {}
    clock, before = _FirstTokenClock(), counter[0]
    t0 = time.perf_counter()
    out = engine.model.model.generate(
        ids, attention_mask=torch.ones_like(ids), do_sample=False, max_new_tokens=job.budget, eos_token_id=eos,
        pad_token_id=eos[0], top_p=None, top_k=None, temperature=None, streamer=clock, **extra)
    wall = time.perf_counter() - t0
    tokens = out[0, len(job.prompt_ids):].tolist()
    while tokens and tokens[-1] in engine.model.eos_ids:
        tokens.pop()
    ttft = (clock.first or time.perf_counter()) - t0
    return Run(tokens, wall, ttft, counter[0] - before)


def llama_greedy(engine: api.Engine, job: api.Job) -> Run:
    """llama.cpp's own plain greedy loop (what an Ollama user runs), timed like `generate`: the
    prompt's prefill yields the first token, then one pass per token."""
    t0 = time.perf_counter()
    tokens, ttft = engine.model.greedy(job.prompt_ids, job.budget)
    wall = time.perf_counter() - t0
    return Run(tokens, wall, ttft, len(tokens))
