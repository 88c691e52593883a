"""The bench's baselines besides applyedit's loop, each timed as one `Run`: transformers' `generate`
(plain greedy, or with its prompt lookup) on torch, llama.cpp's own greedy loop, and
llama-cpp-python's prompt lookup decoding (`Llama(draft_model=LlamaPromptLookupDecoding(...))`), as
a user of that package would switch it on.

Owns timing a baseline (end to end and the first token), counting its target passes (a forward
pre-hook on the torch model; `Llama.eval` calls), and loading llama-cpp-python's `Llama` once per
GGUF and context size (not timed: every baseline runs on an already loaded model). What that needs
to stay correct past one batch and fit in memory: a draft model turns on `logits_all` for
evaluation, but the score buffer is sized by the `logits_all` argument (`n_batch` rows without it),
so a prompt longer than one batch (512 tokens) fails to store its logits unless `logits_all=True` is
passed too; the package then keeps a float32 row of logits for every context position (`n_ctx ×
vocab`: about 20 GB at the model's 32k context), so the context is sized to the prompt plus the
output budget; `temp=0` selects llama.cpp's greedy sampler, the repeat penalty is turned off (1.0)
and top-k is 1, so its output is plain greedy's; the model is reset before each run, or `generate`
would reuse the previous run's cached prompt. Knows nothing of applyedit's loop or of which methods
a bench runs (bench.py).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from applyedit import api
from applyedit.errors import InputError
from applyedit.tools.benchrecord import Run

if TYPE_CHECKING:
    from applyedit.models.llamacpp import LlamaCppModel
    from applyedit.models.torchmodel import TorchModel

CONTEXT_STEP = 1024  # the context is rounded up to this, so cases of similar size share one load


class PromptLookup:
    """llama-cpp-python with its prompt-lookup draft model, loaded lazily and kept across runs."""

    def __init__(self, gguf: Path, threads: int, eos_ids: frozenset[int]) -> None:
        self.gguf, self.threads, self.eos_ids = gguf, threads, eos_ids
        self._loaded: dict[tuple[int, int], Any] = {}  # (n_ctx, num_pred_tokens) -> Llama

    def _llama(self, n_ctx: int, num_pred_tokens: int) -> Any:
        from llama_cpp import Llama
        from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

        from applyedit.models.llamacpp import safe_defaults

        key = (n_ctx, num_pred_tokens)
        if key not in self._loaded:
            for old in self._loaded.values():  # one at a time: each holds n_ctx × vocab floats
                old.close()
            with safe_defaults():  # the backend's model parameters (llama.cpp's AMX layout crashes)
                llm = Llama(
                    model_path=str(self.gguf),
                    n_ctx=n_ctx,
                    n_threads=self.threads,
                    n_threads_batch=self.threads,
                    n_gpu_layers=0,
                    verbose=False,
                    logits_all=True,
                    draft_model=LlamaPromptLookupDecoding(num_pred_tokens=num_pred_tokens),
                )
            self._loaded = {key: llm}
        return self._loaded[key]

    def run(self, prompt: list[int], budget: int, num_pred_tokens: int) -> Run:
        """One greedy run with prompt lookup: the tokens up to EOS (left out) or the budget, timed from
        the start of the prompt's evaluation; passes counted as `Llama.eval` calls (the prompt's one
        call yields the first token, as plain greedy's prefill does)."""
        n_ctx = -(-(len(prompt) + budget + 8) // CONTEXT_STEP) * CONTEXT_STEP
        llm = self._llama(n_ctx, num_pred_tokens)
        evals = [0]
        original = llm.eval

        def counted(tokens: Any) -> None:
            evals[0] += 1
            original(tokens)

        llm.eval = counted
        tokens: list[int] = []
        first = 0.0
        llm.reset()  # n_tokens 0: generate() then reuses no cached prefix (every run prefills in full)
        try:
            t0 = time.perf_counter()
            for token in llm.generate(prompt, top_k=1, top_p=1.0, min_p=0.0, temp=0.0, repeat_penalty=1.0, reset=True):
                if not tokens:
                    first = time.perf_counter() - t0
                if token in self.eos_ids:
                    break
                tokens.append(int(token))
                if len(tokens) >= budget:
                    break
            wall = time.perf_counter() - t0
        finally:
            llm.eval = original
        return Run(tokens, wall, first, evals[0])

    def close(self) -> None:
        for llm in self._loaded.values():
            llm.close()
        self._loaded = {}


class Lookups:
    """llama-cpp-python's prompt lookup on the GGUF of the first engine that asks, opened on first use."""

    def __init__(self) -> None:
        self.opened: PromptLookup | None = None

    def __call__(self, engine: api.Engine) -> PromptLookup:
        if self.opened is None:
            if engine.source.gguf is None:
                raise InputError("--baseline llamacpp-lookup needs a GGUF model")
            self.opened = PromptLookup(engine.source.gguf, engine.threads, engine.model.eos_ids)
        return self.opened

    def close(self) -> None:
        if self.opened is not None:
            self.opened.close()


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

    model = cast("TorchModel", engine.model)  # generate runs on the torch backend's transformers model
    ids = torch.tensor([job.prompt_ids], device=engine.device)
    eos = sorted(model.eos_ids)
    extra = {"prompt_lookup_num_tokens": lookup} if lookup else {}
    clock, before = _FirstTokenClock(), counter[0]
    t0 = time.perf_counter()
    out = model.model.generate(
        ids,
        attention_mask=torch.ones_like(ids),
        do_sample=False,
        max_new_tokens=job.budget,
        eos_token_id=eos,
        pad_token_id=eos[0],
        top_p=None,
        top_k=None,
        temperature=None,
        streamer=clock,
        **extra,
    )
    wall = time.perf_counter() - t0
    tokens = out[0, len(job.prompt_ids) :].tolist()
    while tokens and tokens[-1] in model.eos_ids:
        tokens.pop()
    ttft = (clock.first or time.perf_counter()) - t0
    return Run(tokens, wall, ttft, counter[0] - before)


def llama_greedy(engine: api.Engine, job: api.Job) -> Run:
    """llama.cpp's own plain greedy loop (what an Ollama user runs), timed like `generate`: the
    prompt's prefill yields the first token, then one pass per token."""
    t0 = time.perf_counter()
    tokens, ttft = cast("LlamaCppModel", engine.model).greedy(job.prompt_ids, job.budget)
    wall = time.perf_counter() - t0
    return Run(tokens, wall, ttft, len(tokens))
