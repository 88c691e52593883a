"""The vLLM backend (`--backend vllm`): the target as one vLLM engine that takes whole requests, with
applyedit's copy drafter (vllmdraft.py) inside vLLM's speculative decoding.

Owns `VllmModel`, the runner the engine builds for backend "vllm": it starts `vllm.LLM` on the
prepared model folder (the dequantized Hugging Face copy) and one engine thread that adds requests as
they arrive and steps the engine, so runs from many threads decode together (vLLM's continuous
batching; `decode_request` blocks its caller only, and a run that fails for any reason, its
timeout, its client gone, takes its request out of vLLM before it ends, so `held` counts every
request the engine works on). Owns `replay`: the drafter's passes for one
finished request, re-derived from its tokens with the same drafter code and kept only where they
match, pass by pass, what vLLM itself recorded of that request (`per_request_spec_decode_metrics`),
so the report's per-pass and per-region figures are vLLM's own passes or absent, never a guess.

Knows nothing of prompts, checks or HTTP: api.py hands it prompt ids and a budget and gets a
`DecodeResult`. Not here: the anchored stretches and the merged prediction (vLLM's drafter sees the
prompt only), sampling (greedy only), the prompt cache (vLLM has its own prefix cache).
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NoReturn

from applyedit import interrupt
from applyedit.decoded import DecodeResult, Step
from applyedit.errors import InputError, ModelError, RunTimeout
from applyedit.models.costmodel import CostCurve
from applyedit.models.vllmdraft import RowDrafter, cost_for, find_layout
from applyedit.speculative.proposers import common_prefix

if TYPE_CHECKING:
    from pathlib import Path

    from applyedit.models.base import EngineView
    from applyedit.models.modelstore import ModelSource, Progress

logger = logging.getLogger(__name__)

# vLLM's num_speculative_tokens, the drafter's cap: 32, the fastest on the vLLM bench (docs/scale-out.md)
K = int(os.environ.get("APPLYEDIT_VLLM_K", "32"))
DRAFTER = "applyedit.models.vllmdraft.CopyDrafter"


def available() -> bool:
    import importlib.util

    return importlib.util.find_spec("vllm") is not None


class SerialTokenizer:
    """A tokenizer shared by concurrent runs, one call at a time: Hugging Face's fast tokenizers keep
    per-call settings on the shared Rust object (`split_special_tokens`: a chat template's control
    tokens came out as text when another thread's call set it; measured in the load test)."""

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer
        self._lock = threading.RLock()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return self._tokenizer(*args, **kwargs)

    def __len__(self) -> int:
        return len(self._tokenizer)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._tokenizer, name)
        if not callable(value):
            return value

        def serial(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return value(*args, **kwargs)

        return serial


@dataclass
class _Request:
    ids: list[int]
    max_tokens: int
    done: threading.Event = field(default_factory=threading.Event)
    output: Any = None  # vLLM's RequestOutput, once finished
    error: BaseException | None = None


_POLL = 0.1  # seconds between a waiting run's looks at its deadline and its stop rule
_RELEASE = 60.0  # seconds a failed run waits for the engine thread to take its request out of vLLM


class VllmModel:
    """One vLLM engine for many concurrent runs (see the module docstring)."""

    kernels = ""

    concurrent_runs = 64  # the server runs this many requests at once (vLLM batches them)

    def __init__(self, llm: Any, tokenizer: Any, eos_ids: frozenset[int], k: int, device: str) -> None:
        self.llm = llm
        self.cost = cost_for(device)
        self.tokenizer = tokenizer
        self.eos_ids = eos_ids
        self.k = k
        self.vocab_size = int(llm.llm_engine.model_config.get_vocab_size())
        self._ids = itertools.count()
        self._new: queue.Queue[tuple[str, _Request] | str] = queue.Queue()
        self._held: set[str] = set()  # requests handed to the engine thread and not yet out of vLLM
        self._released = threading.Condition()
        self._thread = threading.Thread(target=self._loop, name="applyedit-vllm", daemon=True)
        self._thread.start()

    # --- the class side the engine reads (models/base.py's Loader) ---
    @classmethod
    def target(cls, engine: EngineView) -> VllmModel:
        if not available():
            raise ModelError("--backend vllm needs vLLM in this venv (docs/vllm.md)")
        from vllm import LLM

        from applyedit.models.tokens import stop_ids

        dtype = cls.dtype_label(engine.dtype)
        llm = LLM(
            model=str(engine.path),
            dtype=dtype,
            max_model_len=engine.context,
            seed=0,
            enforce_eager=engine.device == "cpu",
            speculative_config={"method": "custom_class", "model": DRAFTER, "num_speculative_tokens": K} if K else None,
            per_request_spec_decode_metrics="detailed" if K else "none",
        )
        return cls(llm, engine.tokenizer, stop_ids(engine.tokenizer, None), K, engine.device)

    @staticmethod
    def draft(source: ModelSource, engine: EngineView, progress: Progress | None = None) -> NoReturn:
        """None: vLLM decodes whole requests with applyedit's copy drafter (BACKENDS says so)."""
        raise InputError("--draft-backend vllm: vLLM runs no draft model; use torch or llamacpp")

    @staticmethod
    def check(device: str) -> None:
        pass  # a missing vLLM is refused when the engine starts (`target`)

    @staticmethod
    def prepare(source: ModelSource, progress: Progress | None = None) -> Any:
        """The dequantized Hugging Face copy vLLM starts on."""
        from applyedit.models import modelstore

        return modelstore.prepare(source, progress)

    @staticmethod
    def load_tokenizer(path: Path) -> SerialTokenizer:
        """Hugging Face's tokenizer of the folder, one call at a time: many runs at once share it."""
        from applyedit.models.tokens import load_tokenizer

        return SerialTokenizer(load_tokenizer(path))

    @staticmethod
    def pick_dtype(dtype: str | None, device: str) -> Any:
        """torch's dtype for `--dtype` (models/device.py)."""
        from applyedit.models.device import pick_dtype

        return pick_dtype(dtype, device)

    @staticmethod
    def fixed_cost(device: str) -> CostCurve:
        return cost_for(device)  # vLLM's passes are not timed one by one: its drafter's K policy reads a fixed curve

    @staticmethod
    def thread_count() -> int:
        return len(os.sched_getaffinity(0))

    @staticmethod
    def dtype_label(dtype: Any) -> str:
        return str(dtype).removeprefix("torch.")

    @staticmethod
    def weights_file(source: ModelSource, path: Any) -> None:
        return None  # no disk prompt cache: vLLM keeps its own prefix cache

    # --- runs ---
    def decode_request(
        self,
        prompt: Sequence[int],
        max_new_tokens: int,
        stop: Callable[[Sequence[int]], int | None],
        deadline: float | None,
    ) -> DecodeResult:
        """Greedy tokens for `prompt` from vLLM with the drafter, cut where `stop` says (the closing
        fence), as a `DecodeResult` whose steps are vLLM's own passes where `replay` can confirm them."""
        request = _Request(list(prompt), max_new_tokens)
        rid = f"applyedit-{next(self._ids)}"
        t0 = time.perf_counter()
        with self._released:
            self._held.add(rid)
        self._new.put((rid, request))
        try:  # in short waits (a long one overflows), looking at the deadline and the stop rule between
            while not request.done.wait(_POLL):
                if deadline is not None and time.monotonic() > deadline:
                    raise RunTimeout("stopped by its timeout while vLLM decoded it; nothing was written")
                interrupt.check()  # the client went away (the server's rule)
        except BaseException:  # whatever stops the wait, the request leaves vLLM before the run ends
            self._new.put(rid)
            self._wait_released(rid)
            raise
        if request.error is not None:
            raise ModelError(f"vLLM failed: {request.error}") from request.error
        seconds = time.perf_counter() - t0
        completion = request.output.outputs[0]
        tokens = list(completion.token_ids)
        reason = "budget" if completion.finish_reason == "length" else "eos"
        while tokens and tokens[-1] in self.eos_ids:
            tokens.pop()
        cut = stop(tokens)
        if cut is not None:
            tokens, reason = tokens[:cut], "stop"
        metrics = getattr(completion, "spec_decode_metrics", None)
        output = list(completion.token_ids)
        passes = replay(self.tokenizer, list(prompt), output, self.k, self.cost, metrics) or recorded(output, metrics)
        steps = _timed(passes, seconds)
        kept, n = [], 0  # the passes up to the stop cut, the last one cut with it (as the decode loop does)
        for step in steps:
            if n >= len(tokens):
                break
            emitted = step.emitted[: len(tokens) - n]
            kept.append(replace(step, emitted=emitted, num_accepted=min(step.num_accepted, len(emitted))))
            n += len(emitted)
        return DecodeResult(
            tokens=tokens,
            steps=kept,
            stop_reason=reason,
            prompt_tokens=len(prompt),
            prefill_s=0.0,
            decode_s=seconds,
            prefilled=len(prompt),
            started_at=t0,
        )

    @property
    def held(self) -> int:
        """Requests vLLM holds for runs (or is about to): a run's wait ends only once its own is out."""
        with self._released:
            return len(self._held)

    def _wait_released(self, rid: str) -> None:
        with self._released:
            if not self._released.wait_for(lambda: rid not in self._held, _RELEASE):
                logger.warning("vLLM still holds request %s %.0f s after its run failed", rid, _RELEASE)

    def _release(self, rids: Sequence[str]) -> None:
        with self._released:
            self._held.difference_update(rids)
            self._released.notify_all()

    def _params(self, request: _Request) -> Any:
        """vLLM's sampling settings of a request: greedy, its budget, special tokens kept."""
        from vllm import SamplingParams

        return SamplingParams(temperature=0.0, max_tokens=request.max_tokens, skip_special_tokens=False)

    def _loop(self) -> None:
        engine = self.llm.llm_engine
        running: dict[str, _Request] = {}
        while True:
            try:  # wait for work only when nothing is decoding
                items = [self._new.get(timeout=None if not running else 0.0)]
            except queue.Empty:
                items = []
            while True:
                try:
                    items.append(self._new.get_nowait())
                except queue.Empty:
                    break
            for item in items:
                if isinstance(item, str):  # an abort (of a request that may have finished meanwhile)
                    if running.pop(item, None) is not None:
                        try:
                            engine.abort_request([item])
                        except Exception:  # noqa: BLE001  # logged: the run has failed already
                            logger.exception("vLLM could not abort request %s", item)
                    self._release([item])
                    continue
                rid, request = item
                try:
                    engine.add_request(rid, {"prompt_token_ids": request.ids}, self._params(request))
                    running[rid] = request
                except Exception as e:  # a bad request fails alone
                    request.error = e
                    self._release([rid])
                    request.done.set()
            if not running:
                continue
            try:
                outputs = engine.step()
            except Exception as e:  # the engine failed: every waiting run hears of it
                self._release(list(running))
                for request in running.values():
                    request.error = e
                    request.done.set()
                running.clear()
                continue
            for out in outputs:
                if out.finished and out.request_id in running:
                    request = running.pop(out.request_id)
                    request.output = out
                    self._release([out.request_id])
                    request.done.set()


def replay(
    tokenizer: Any, prompt: list[int], output: list[int], k: int, cost: CostCurve, metrics: Any
) -> list[tuple[tuple[int, ...], int, tuple[int, ...]]] | None:
    """The verify passes of one finished request as (draft, accepted, emitted), re-derived by running
    the drafter over its tokens; None unless the drafted passes match vLLM's own per-request record
    (`metrics.per_step_drafted`, `per_step_accepted`) exactly."""
    from applyedit.report import spans

    if metrics is None or not output:
        return None  # vLLM kept no record of this request's passes: nothing to confirm a replay with
    drafted, accepted = list(metrics.per_step_drafted), list(metrics.per_step_accepted)
    if len(drafted) != len(accepted) or (not drafted and metrics.num_draft_tokens):
        return None
    control = frozenset(int(i) for i in getattr(tokenizer, "added_tokens_decoder", {}))
    row = prompt + output[:1]
    layout = find_layout(row, spans.token_bytes(tokenizer, row), [t in control for t in row])
    drafter = RowDrafter(layout, len(prompt), 0, k, cost) if layout is not None else None
    passes: list[tuple[tuple[int, ...], int, tuple[int, ...]]] = [((), 0, tuple(output[:1]))]  # the prefill's token
    n = 1
    while n < len(output):
        draft = tuple(drafter.step(prompt + output[:n], 1 << 30)) if drafter is not None else ()
        kept = common_prefix(draft, output[n:])
        emitted = tuple(output[n : n + kept + 1])
        passes.append((draft, kept, emitted))
        n += len(emitted)
    if [(len(d), a) for d, a, _ in passes if d] != list(zip(drafted, accepted, strict=True)):
        return None
    return passes


def recorded(output: list[int], metrics: Any) -> list[tuple[tuple[int, ...], int, tuple[int, ...]]]:
    """The passes as far as vLLM's record tells without `replay`: its drafted passes in their order
    (their draft tokens unknown: the accepted ones stand in, then placeholders of -1), then one-token
    passes for the rest of the output. Totals exact (passes, drafted, accepted); where each pass fell
    in the output is not known, so per-region figures are not either."""
    passes: list[tuple[tuple[int, ...], int, tuple[int, ...]]] = [((), 0, tuple(output[:1]))]  # the prefill's
    n = 1
    drafted = list(getattr(metrics, "per_step_drafted", None) or [])
    accepted = list(getattr(metrics, "per_step_accepted", None) or [])
    for d, a in zip(drafted, accepted, strict=False):
        emitted = tuple(output[n : n + a + 1])
        passes.append(((*emitted[:a], *([-1] * (d - a))), min(a, len(emitted)), emitted))
        n += len(emitted)
    passes += [((), 0, (t,)) for t in output[n:]]
    return passes


def _timed(passes: list[tuple[tuple[int, ...], int, tuple[int, ...]]] | None, seconds: float) -> list[Step]:
    """Steps from replayed passes (their time spread evenly: vLLM does not time a request's passes)."""
    if not passes:
        return []
    each = seconds / len(passes)
    return [
        Step(
            index=i,
            k=len(d),
            draft=d,
            num_accepted=a,
            emitted=e,
            start_s=i * each,
            time_s=each,
            drafter="copy" if d else "",
        )
        for i, (d, a, e) in enumerate(passes)
    ]
