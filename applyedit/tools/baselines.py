"""The bench's outside baselines that are not transformers' `generate`: llama-cpp-python's own prompt
lookup decoding (`Llama(draft_model=LlamaPromptLookupDecoding(...))`), as a user of that package would
switch it on.

Owns loading that package's `Llama` once per GGUF and context size (not timed: every baseline runs on an
already loaded model) and one timed greedy run through `Llama.generate`. What it needs to stay correct
past one batch and fit in memory: a draft model turns on `logits_all` for evaluation, but the score
buffer is sized by the `logits_all` argument (`n_batch` rows without it), so a prompt longer than one
batch (512 tokens) fails to store its logits unless `logits_all=True` is passed too; the package then
keeps a float32 row of logits for every context position (`n_ctx × vocab`: about 20 GB at the model's
32k context), so the context is sized to the prompt plus the output budget; `temp=0` selects llama.cpp's
greedy sampler, the repeat penalty is turned off (1.0) and top-k is 1, so its output is plain greedy's;
the model is reset before each run, or `generate` would reuse the previous run's cached prompt. Knows
nothing of applyedit's loop.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from applyedit.tools.benchrecord import Run

CONTEXT_STEP = 1024  # the context is rounded up to this, so cases of similar size share one load


class PromptLookup:
    """llama-cpp-python with its prompt-lookup draft model, loaded lazily and kept across runs."""

    def __init__(self, gguf: Path, threads: int, eos_ids: frozenset[int]) -> None:
        self.gguf, self.threads, self.eos_ids = gguf, threads, eos_ids
        self._loaded: dict[tuple[int, int], Any] = {}  # (n_ctx, num_pred_tokens) -> Llama

    def _llama(self, n_ctx: int, num_pred_tokens: int) -> Any:
        from llama_cpp import Llama
        from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

        key = (n_ctx, num_pred_tokens)
        if key not in self._loaded:
            for old in self._loaded.values():  # one at a time: each holds n_ctx × vocab floats
                old.close()
            self._loaded = {key: Llama(model_path=str(self.gguf), n_ctx=n_ctx, n_threads=self.threads,
                                       n_threads_batch=self.threads, n_gpu_layers=0, verbose=False, logits_all=True,
                                       draft_model=LlamaPromptLookupDecoding(num_pred_tokens=num_pred_tokens))}
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
            for token in llm.generate(prompt, top_k=1, top_p=1.0, min_p=0.0, temp=0.0, repeat_penalty=1.0,
                                      reset=True):
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
