"""The Python API: `apply(file, edit)` returns the new text, the diff and the run's statistics.

Owns one run end to end — read and normalise the inputs, build the prompt, check the budget against
the context before any weights load, decode with a proposer (an unambiguous merge of an update snippet anchors
the lines it keeps: anchor.py), extract and check the output (never silently wrong: an unchanged or
mismatched answer is refused; a refused one may be replaced by the merge), restore the file's text
style, diff — and the `Engine` that keeps a loaded model for several runs (eval,
bench). Writes no files and prints nothing: the CLI does both.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from applyedit import anchor as anchoring
from applyedit import merge, prompts, report, sampling, spans, textio
from applyedit.models import modelstore
from applyedit.models.backend import (TorchModel, chat_ids, check_device, context_length, load_tokenizer, pick_device,
                               pick_dtype, text_ids)
from applyedit.decode import DecodeResult, Step, run
from applyedit.diff import diff_path, unified_diff
from applyedit.errors import (ApplyEditError, DecodeError, InputError, ModelError, OutputCheckError,
                              PromptTooLongError, RunTimeout)
from applyedit.models.costmodel import CostCurve, load_or_calibrate
from applyedit.policy import AdaptiveK, FixedK
from applyedit.promptcache import reuse_report
from applyedit.regions import anchored_lines, attribute, find_regions
from applyedit.proposers import CopyProposer, NullProposer, Proposer, Source
from applyedit.draftmodel import DraftModelProposer, HybridProposer
from applyedit.stats import Summary, process_age_s, profile, summarise

logger = logging.getLogger(__name__)

PROPOSERS = ("copy", "copy-original", "none", "draft", "hybrid")
DRAFT_BACKENDS = ("auto", "torch", "llamacpp")
DRAFT_K_MAX = 8  # the longest draft a draft model makes (its length is chosen by policy.draft_k up to this)
BACKENDS = ("torch", "llamacpp")
K_POLICIES = ("adaptive", "fixed")
ANCHORS = ("merge", "none")  # --anchor: force the original lines an unambiguous merge keeps, or not
FALLBACKS = ("merge", "none")  # --fallback: answer with the merge when the model's output fails a check
LONG_SLACK = 10  # lines an output may run past the original plus the snippet before it is "far longer"
DEFAULT_K = 64
DTYPES = ("fp32", "float32", "bf16", "bfloat16", "fp16", "float16")
DELETION_SHARE = 0.5  # an instruction's output keeping fewer than this share of the non-blank lines is refused
DELETION_MIN_LINES = 3  # ... when it lost at least this many
# An instruction that asks for lines to go: the deletion guard stands aside.
ASKS_TO_DELETE = re.compile(r"\b(delet|remov|drop|strip|eras|cut|trim|purg|eliminat|get rid|shorten|truncat|prun|"
                            r"discard|empty|keep only|only keep|clear out)", re.I)


@dataclass
class Engine:
    """A resolved model with its tokenizer; the weights load on first use and stay loaded."""

    source: modelstore.ModelSource
    path: Path
    tokenizer: Any
    device: str
    dtype: Any  # torch.dtype
    context: int
    cost: CostCurve | None = None  # the verify-pass cost curve; measured once and cached
    backend: str = "torch"  # "torch" (transformers) or "llamacpp" (the GGUF itself)
    _model: Any = field(default=None, repr=False)  # TorchModel | LlamaCppModel, loaded on first use
    _drafts: dict[str, Any] = field(default_factory=dict, repr=False)  # loaded draft models, by source and backend

    @classmethod
    def open(
        cls,
        model: str | None = None,
        device: str | None = None,
        dtype: str | None = None,
        progress: modelstore.Progress | None = None,
        backend: str | None = None,
    ) -> Engine:
        source = modelstore.resolve(model)
        if backend == "llamacpp" and dtype not in (None, "auto"):
            raise InputError("--dtype applies to the torch backend; llama.cpp runs the GGUF's own quantisation")
        dev = pick_device(device)
        chosen = pick_backend(backend, dev)
        if chosen == "llamacpp":
            path = modelstore.prepare_tokenizer(source, progress)
        else:
            path = modelstore.prepare(source, progress)
        return cls(source, path, load_tokenizer(path), dev, pick_dtype(dtype, dev), context_length(path),
                   backend=chosen)

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def model(self) -> Any:
        """The loaded target behind the `TargetModel` seam (the decode loop sees nothing more)."""
        if self._model is None:
            if self.backend == "llamacpp":
                from applyedit.models.backend import stop_ids
                from applyedit.models.llamacpp import LlamaCppModel

                assert self.source.gguf is not None
                self._model = LlamaCppModel.load(self.source.gguf, stop_ids(self.tokenizer, None), self.context)
            else:
                self._model = TorchModel.load(self.path, self.device, self.dtype, self.tokenizer)
        return self._model

    def draft_model(self, spec: str | None = None, backend: str | None = None,
                    progress: modelstore.Progress | None = None) -> Any:
        """The draft model of `--draft-model` (default: the packaged Qwen2.5-Coder-0.5B-Instruct) behind
        the `TargetModel` seam, loaded once. Backend "auto": llama.cpp on the CPU when it is installed
        and the draft is a GGUF (far faster per token there than torch fp32), else torch like the target."""
        from applyedit.models import llamacpp
        from applyedit.models.backend import stop_ids

        source, chosen = self.draft_choice(spec, backend)
        key = f"{source.name}-{chosen}"
        if key not in self._drafts:
            if chosen == "llamacpp":
                gguf = modelstore.draft_gguf(source, progress)
                if gguf is None:
                    raise ModelError(f"--draft-backend llamacpp runs GGUF files; {source.name} is not one")
                if not llamacpp.available():
                    raise ModelError("--draft-backend llamacpp needs llama-cpp-python: pip install -e '.[llamacpp]'")
                self._drafts[key] = llamacpp.LlamaCppModel.load(gguf, stop_ids(self.tokenizer, None), self.context)
            else:
                path = modelstore.prepare(source, progress)
                if source.kind != "draft" and load_tokenizer(path).get_vocab() != self.tokenizer.get_vocab():
                    raise ModelError(f"--draft-model {source.name} has another tokenizer than {self.source.name}; "
                                     "a draft model must share the target's")
                self._drafts[key] = TorchModel.load(path, self.device, self.dtype, self.tokenizer)
        return self._drafts[key]

    def draft_choice(self, spec: str | None, backend: str | None) -> tuple[modelstore.ModelSource, str]:
        """The draft model's source and the backend that runs it (see `draft_model`)."""
        from applyedit.models import llamacpp

        source = modelstore.resolve_draft(spec)
        if backend not in (None, *DRAFT_BACKENDS):
            raise InputError(f"unknown --draft-backend {backend!r}; choose {', '.join(DRAFT_BACKENDS)}")
        chosen = backend if backend not in (None, "auto") else (
            "llamacpp" if self.device == "cpu" and source.gguf is not None and llamacpp.available() else "torch")
        return source, chosen

    def draft_cost(self, spec: str | None = None, backend: str | None = None, fresh: bool = False) -> CostCurve:
        """The draft model's own cost curve (calibrated once per draft, backend and device, and cached;
        `fresh` measures it again): its t(0) is what one draft token costs."""
        source, chosen = self.draft_choice(spec, backend)
        dtype = self.dtype_name if chosen == "torch" else "gguf"
        key = f"draft-{source.name}-{chosen}-{self.device}-{dtype}-{self.threads}t"
        return load_or_calibrate(self.draft_model(spec, backend), modelstore.home(), key, fresh)

    @property
    def vocab_size(self) -> int:
        """The number of rows of the target's logits (its vocabulary, padding included)."""
        model = self.model
        return int(model._n_vocab) if self.backend == "llamacpp" else int(model.model.config.vocab_size)

    def cost_curve(self, fresh: bool = False) -> CostCurve:
        """The verify-pass cost curve of this model, backend, device, dtype and thread count (cached)."""
        if self.cost is None or fresh:
            kernels = getattr(self.model, "kernels", "")  # the CPU matmul kernels change the curve
            key = f"{self.source.name}-{self.backend}-{self.device}-{self.dtype_name}{'-' + kernels if kernels else ''}-{self.threads}t"
            self.cost = load_or_calibrate(self.model, modelstore.home(), key, fresh)
        return self.cost

    @property
    def threads(self) -> int:
        if self.backend == "llamacpp":
            from applyedit.models.llamacpp import threads

            return threads()
        import torch

        return torch.get_num_threads()

    @property
    def dtype_name(self) -> str:
        return "gguf" if self.backend == "llamacpp" else str(self.dtype).removeprefix("torch.")

    def encode(self, text: str) -> list[int]:
        """User text's ids: a special-token string in it (`<|im_end|>`) stays text (backend.text_ids)."""
        return text_ids(self.tokenizer, text)

    def decode(self, ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode(list(ids), skip_special_tokens=False))


def check_options(*, proposer: str | Proposer = "copy", k: int = DEFAULT_K, k_policy: str = "adaptive",
                  device: str | None = None, dtype: str | None = None, backend: str | None = None,
                  max_new_tokens: int | None = None, timeout: float | None = None, draft_k: int | None = None,
                  draft_backend: str | None = None) -> None:
    """Every check of the run's settings that needs no model: `apply` runs it before reading anything."""
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise InputError(f"--timeout must be a number of seconds above 0; got {timeout:g}")
    if max_new_tokens is not None and max_new_tokens < 1:
        raise InputError(f"--max-new-tokens must be 1 or more; got {max_new_tokens}")
    if isinstance(proposer, str) and proposer not in PROPOSERS:
        raise InputError(f"unknown --proposer {proposer!r}; choose one of {', '.join(PROPOSERS)}")
    if k_policy not in K_POLICIES:
        raise InputError(f"unknown --k-policy {k_policy!r}; choose adaptive or fixed")
    if k < 0:
        raise InputError("--k must be 0 or more")
    if draft_k is not None and draft_k < 1:
        raise InputError("--draft-k must be 1 or more")
    if backend not in (None, "auto", *BACKENDS):
        raise InputError(f"unknown --backend {backend!r}; choose torch or llamacpp")
    if draft_backend not in (None, *DRAFT_BACKENDS):
        raise InputError(f"unknown --draft-backend {draft_backend!r}; choose {', '.join(DRAFT_BACKENDS)}")
    if dtype not in (None, "auto", *DTYPES):
        raise InputError(f"unknown --dtype {dtype!r}; use fp32, bf16 or fp16")
    if backend == "llamacpp" and dtype not in (None, "auto"):
        raise InputError("--dtype applies to the torch backend; llama.cpp runs the GGUF's own quantisation")
    check_device(device)


def pick_backend(backend: str | None, device: str) -> str:
    """torch on CUDA and whenever asked; llama.cpp when asked (CPU only). The default stays torch
    until the llama.cpp backend's speed and agreement are measured on the bench suite."""
    if backend in (None, "auto"):
        return "torch"
    if backend not in BACKENDS:
        raise InputError(f"unknown --backend {backend!r}; choose torch or llamacpp")
    if backend == "llamacpp":
        from applyedit.models import llamacpp

        if device != "cpu":
            raise InputError("--backend llamacpp runs on the CPU here; drop --device or use --backend torch")
        if not llamacpp.available():
            raise ModelError("--backend llamacpp needs llama-cpp-python: pip install -e '.[llamacpp]'")
    return backend


@dataclass(frozen=True)
class ApplyResult:
    path: str  # as written in the diff headers
    before: str  # the file as read (original line endings, BOM)
    after: str  # the new file, in the original's text style
    diff: str  # "" when nothing changed
    kind: str  # "snippet" | "instruction"
    output: str  # the model's raw output text (after the pre-filled opening fence)
    decode: DecodeResult
    summary: Summary
    report: dict[str, Any] = field(default_factory=dict)  # per-region statistics (report.report_data)
    notes: tuple[str, ...] = ()  # warnings for the user (e.g. a check that could not run)
    source_sha256: str = ""  # of the file's bytes as read at the start: `--in-place` refuses if they changed
    answer: str = "model"  # "model", or "merge" when the model's output failed a check and the merge answered

    @property
    def changed(self) -> bool:
        return self.before != self.after


class FenceStop:
    """Stops decoding once the output holds the closing fence line (`fence` alone, then a newline)."""

    def __init__(self, engine: Engine, fence: str) -> None:
        self.engine = engine
        self.pattern = re.compile(r"(?:^|\n)" + re.escape(fence) + r"[ \t]*\n")

    def __call__(self, output: Sequence[int]) -> int | None:
        if not self.pattern.search(self.engine.decode(output)):
            return None
        # Cut right after the token that completed the closing line (searching from the end).
        cut = len(output)
        while cut > 0 and self.pattern.search(self.engine.decode(output[: cut - 1])):
            cut -= 1
        return cut


def output_budget(source_tokens: int, edit_tokens: int) -> int:
    """Room for the rewritten file: the original, what the edit may add, and some slack."""
    return int(source_tokens * 1.2) + 2 * edit_tokens + 128


def make_proposer(name: str, engine: Engine, body: str, fence: str, edit: str, kind: str,
                  merged: merge.MergeResult | None = None) -> Proposer:
    """Copy sources, in order of preference: the predicted output, the original, the edit
    ("copy-original": the last two only, to measure what the prediction adds). "hybrid" gets the
    same copy sources as "copy" (its draft model is added by `apply`); "draft" has none.

    The output is the file body followed by the closing fence, so each source text ends the same
    way. For an update snippet that merges unambiguously, the merged file predicts the whole
    output, edits included; otherwise drafts come from the original and the edit's own lines.
    """
    if name in ("none", "draft"):
        return NullProposer()
    sources = []
    if kind == "snippet" and name in ("copy", "hybrid"):  # copy-original: without the predicted output
        merged = merged or merge.merge(body, edit)
        if merged.ok and merged.merged is not None and merged.merged != body:
            sources.append(Source("merged", tuple(engine.encode(merged.merged + fence + "\n"))))
    sources.append(Source("original", tuple(engine.encode(body + fence + "\n"))))
    sources.append(edit_source(engine, edit))
    return CopyProposer(sources)


def edit_source(engine: Engine, edit: str) -> Source:
    """The edit's tokens, with every token on a lazy-marker line blocked from drafting."""
    enc = engine.tokenizer(edit, add_special_tokens=False, return_offsets_mapping=True, split_special_tokens=True)
    ids, offsets = enc["input_ids"], enc["offset_mapping"]
    marker_spans, pos = [], 0
    for line in edit.split("\n"):
        if merge.is_marker(line):
            marker_spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    blocked = tuple(any(s < e2 and s2 < e for s2, e2 in marker_spans) for s, e in offsets)
    return Source("edit", tuple(ids), blocked)


@dataclass(frozen=True)
class Job:
    """One file and edit made ready for decoding: the prompt's token ids and the output budget."""

    engine: Engine
    src: textio.SourceFile
    shown: str  # the path as written in the diff headers
    edit: str  # the edit as the model sees it (unwrapped from a chat fence)
    kind: str  # "snippet" | "instruction"
    fence: str
    prompt_ids: list[int]
    budget: int


def prepare(file: str | Path, edit: str, engine: Engine | Callable[[], Engine], *, max_new_tokens: int | None = None,
            language: str | None = None, encoding: str = "utf-8", cwd: Path | None = None,
            source: bytes | None = None) -> Job:
    """Read the inputs, build the prompt and check it fits the context (no weights needed).

    `engine` may be a function that opens one: bad input then fails before any model is prepared.
    A relative `file` is relative to `cwd` when one is given (the diff's paths are), else to the
    process's working directory. `source`: the file's bytes when they come from elsewhere (stdin);
    `file` then only names it (language, prompt, diff).
    """
    path = Path(file)
    if cwd is not None and not path.is_absolute():
        path = Path(cwd) / path
    src = textio.read_source(path, language, encoding) if source is None else \
        textio.source_from(path, source, language, encoding)
    shown = diff_path(path, cwd)
    edit_text = textio.extract_edit(edit, src.language)
    if foreign := merge.foreign_markers(edit_text, src.language):
        raise InputError(
            f"the edit's lazy markers are {' and '.join(foreign)} comments, which {src.language} does not use: "
            f"is the snippet meant for another file? (pass --language if {path.name} is not {src.language})"
        )
    engine = engine if isinstance(engine, Engine) else engine()
    fence = textio.fence_for(src.text, edit_text)
    prompt = prompts.build(shown, src.language, src.text, edit_text, fence)
    prompt_ids = chat_ids(engine.tokenizer, prompt.system, prompt.user, prompt.assistant_prefix)
    budget = max_new_tokens or output_budget(len(engine.encode(src.text)), len(engine.encode(edit_text)))
    if len(prompt_ids) + budget > engine.context:
        raise PromptTooLongError(
            f"{path}: the prompt ({len(prompt_ids):,} tokens) plus room for the output ({budget:,}) "
            f"exceeds the model's context of {engine.context:,} tokens"
        )
    return Job(engine, src, shown, edit_text, prompt.kind, fence, prompt_ids, budget)


def apply(
    file: str | Path,
    edit: str,
    *,
    model: str | None = None,
    engine: Engine | None = None,
    proposer: str | Proposer = "copy",
    k: int = DEFAULT_K,
    k_policy: str = "adaptive",
    device: str | None = None,
    dtype: str | None = None,
    backend: str | None = None,
    max_new_tokens: int | None = None,
    language: str | None = None,
    encoding: str = "utf-8",
    cwd: Path | None = None,
    allow_markers: bool = False,
    allow_drops: bool = False,
    allow_syntax_errors: bool = False,
    timeout: float | None = None,
    temperature: float = 0.0,
    top_p: float = 1.0,
    seed: int | None = None,
    on_step: Callable[[Step, int], None] | None = None,
    progress: modelstore.Progress | None = None,
    draft_model: str | None = None,
    draft_backend: str | None = None,
    draft_k: int | None = None,
    allow_deletion: bool = False,
    source: bytes | None = None,
    on_phase: Callable[[str, int, int], None] | None = None,
    anchor: str = "merge",
    fallback: str = "merge",
    allow_unchanged: bool = False,
    allow_mismatch: bool = False,
) -> ApplyResult:
    """Apply `edit` (an instruction or an update snippet) to `file` with the local model.

    `timeout` (seconds, from the call) is checked before decoding and between verify passes: a run
    past it stops with `RunTimeout` and returns nothing. `temperature` 0 (the default) decodes
    greedily; above 0 the output is sampled (after `top_p`), exactly as from the model alone, and
    `seed` reproduces it (the summary names the seed a run without one drew). `proposer` "draft"
    drafts with `draft_model` (default: the packaged 0.5B) alone, "hybrid" with copy drafts while
    aligned and the draft model inside edits; `draft_backend` "auto", "torch" or "llamacpp" runs it.
    The draft model's draft length is `draft_k` when given, else chosen per step for the best
    expected tokens per second (`policy.draft_k`; with `k_policy` "fixed": `k`). `source`: the file's
    bytes when they do not come from `file` (stdin), which then only names it. An instruction whose
    output lost most of the file is refused unless it asks to delete or `allow_deletion`.

    `on_phase(name, done, total)` follows the run for progress displays: "loading" (the weights, when
    this call loads them), "prefill" (prompt tokens computed of all), then "decoding" after each
    pass (the output line reached of the original's line count). A refused output (OutputCheckError)
    carries the rejected file, in the original's text style, as `rejected` (None when empty).

    `anchor` "merge": when an update snippet merges unambiguously, the original lines it keeps away
    from every hunk are forced output (anchor.py); the model writes the rest. `fallback` "merge": an
    output that fails a check (markers, dropped code, syntax, `check_answer`) is replaced by the
    merge when that is unambiguous and parses; `ApplyResult.answer` and a note say so.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    check_options(proposer=proposer, k=k, k_policy=k_policy, device=device, dtype=dtype, backend=backend,
                  max_new_tokens=max_new_tokens, timeout=timeout, draft_k=draft_k, draft_backend=draft_backend)
    if anchor not in ANCHORS or fallback not in FALLBACKS:
        raise InputError(f"unknown --anchor {anchor!r} or --fallback {fallback!r}; choose merge or none")
    decoding = sampling.settings(temperature, top_p, seed)
    job = prepare(file, edit, engine or (lambda: Engine.open(model, device, dtype, progress, backend)),
                  max_new_tokens=max_new_tokens, language=language, encoding=encoding, cwd=cwd, source=source)
    engine, src, fence, budget = job.engine, job.src, job.fence, job.budget
    cold = not engine.loaded  # this run loads the weights: its report can show the startup
    if on_phase is not None and cold:
        on_phase("loading", 0, 0)  # the cost curve below may load them already
    # The snippet read against the original: the copy proposer's predicted output and the reference
    # for the dropped-code check.
    merged = merge.merge(src.text, job.edit) if job.kind == "snippet" else None
    if proposer == "none" or k_policy == "fixed":
        policy: FixedK | AdaptiveK = FixedK(0 if proposer == "none" else k)
    else:
        policy = AdaptiveK(cost=engine.cost_curve(), k_max=k)
    # A Proposer object (Python API, `bench`'s break-it mode) drafts instead of the named ones.
    drafter = make_proposer(proposer, engine, src.text, fence, job.edit, job.kind, merged) \
        if isinstance(proposer, str) else proposer
    proposer_name = proposer if isinstance(proposer, str) else type(proposer).__name__
    if proposer in ("draft", "hybrid"):
        small = engine.draft_model(draft_model, draft_backend, progress)
        # Adaptive: the draft length maximises tokens/s on the target's and the draft's cost curves;
        # --draft-k or the fixed policy: always that many.
        chosen = k_policy != "fixed" and draft_k is None
        model_drafts = DraftModelProposer(small, tuple(job.prompt_ids),
                                          k_max=min(k, DRAFT_K_MAX) if chosen else (draft_k or k),
                                          cost=engine.cost_curve() if chosen else None,
                                          sampling=decoding, vocab=engine.vocab_size,
                                          token_s=engine.draft_cost(draft_model, draft_backend)(0) if chosen else 0.0)
        if proposer == "draft":
            drafter = model_drafts
        else:
            assert isinstance(drafter, CopyProposer)
            drafter = HybridProposer(drafter, model_drafts, state=lambda: policy.state,
                                     support_min=getattr(policy, "support_min", 0))
        proposer_name += f" ({modelstore.resolve_draft(draft_model).name})"
    target = engine.model  # loads the weights on first use
    constraint = anchor_constraint(engine, src.text, merged, fence) if anchor == "merge" else None
    if on_phase is not None:
        lines = len(src.text.splitlines())
        on_step = follow_lines(engine, lines, on_step, on_phase)

        def prefilled(done: int, total: int) -> None:
            on_phase("prefill", done, total)
            if done >= total:  # the first verify pass writes line 1
                on_phase("decoding", 1, lines)

        if hasattr(target, "on_prefill"):
            target.on_prefill = prefilled
    try:
        result = run(target, job.prompt_ids, drafter, policy, budget, FenceStop(engine, fence),
                     watch(deadline, timeout, on_step), sampling=decoding, constraint=constraint)
    finally:
        if on_phase is not None and hasattr(target, "on_prefill"):
            target.on_prefill = None
    output = engine.decode(result.tokens)
    answer, model_body = "model", None
    body: str | None = None
    try:
        if result.stop_reason == "budget":
            raise DecodeError(
                f"the output reached its budget of {budget:,} tokens before the file ended (truncated); "
                "nothing was written. Raise it with --max-new-tokens"
            )
        body = model_body = textio.extract_body(output, fence, ended=result.stop_reason == "eos", original=src.text)
        check_output(src.text, body, allow_markers)
        notes = check_drops(src.text, body, merged, allow_drops) + check_syntax(src, body, allow_syntax_errors)
        notes += check_deletion(src.text, body, job.edit, job.kind, allow_deletion)
        notes += check_answer(src.text, body, job.kind, job.edit, merged, allow_unchanged, allow_mismatch)
    except ApplyEditError as e:
        e.output, e.decode = output, result  # type: ignore[attr-defined]  # what the model wrote, for eval
        e.rejected = textio.restore(body, src.style, src.text) if body else None  # type: ignore[attr-defined]
        refused = isinstance(e, (OutputCheckError, DecodeError))
        fallen = merge_answer(src, merged) if fallback == "merge" and refused else None
        if fallen is None:
            raise
        why = str(e).split("; nothing was written")[0]
        body, answer, notes = fallen, "merge", [f"answered with the snippet's merge: the model's output was refused ({why})"]
    after = textio.restore(body, src.style, src.text)
    before = src.raw.decode(encoding)
    summary = summarise(result, model=engine.source.name, device=engine.device,
                        dtype=engine.dtype_name, proposer=proposer_name,
                        backend=engine.backend, sampling=decoding)
    data = region_report(engine, src, model_body if model_body is not None else body, result, summary, cold)
    data["answer"] = {"by": answer, "notes": notes}
    data["prompt_cache"] = reuse_report(result.prompt_tokens, result.prefilled)  # prompt tokens reused
    return ApplyResult(job.shown, before, after, unified_diff(before, after, job.shown), job.kind, output,
                       result, summary, data, tuple(notes), hashlib.sha256(src.raw).hexdigest(), answer)


def follow_lines(engine: Engine, lines: int, on_step: Callable[[Step, int], None] | None,
                 on_phase: Callable[[str, int, int], None]) -> Callable[[Step, int], None]:
    """The per-pass callback that also reports ("decoding", output line reached, `lines` expected)."""
    newlines = 0

    def step(s: Step, tokens: int) -> None:
        nonlocal newlines
        newlines += engine.decode(s.emitted).count("\n")
        on_phase("decoding", newlines + 1, lines)
        if on_step is not None:
            on_step(s, tokens)

    return step


# --- anchoring, the merge as the answer, and outputs that only look like success (issue 17) ----------

def anchor_constraint(engine: Engine, original: str, merged: merge.MergeResult | None,
                      fence: str) -> anchoring.Anchor | None:
    """The decode constraint forcing what an unambiguous merge keeps of the original; None when the
    edit is no update snippet, its merge is ambiguous, or no stretch is long enough to anchor."""
    found = anchoring.stretches(original, merged, fence) if merged is not None else []
    if not found:
        return None
    return anchoring.Anchor(lambda t: spans.token_bytes(engine.tokenizer, [t])[0], engine.encode, found)


def merge_answer(src: textio.SourceFile, merged: merge.MergeResult | None) -> str | None:
    """The merged file as the answer when the merge is unambiguous and parses wherever the original
    did; None otherwise."""
    from applyedit import syntax

    if merged is None or not merged.ok or merged.merged is None:
        return None
    if syntax.new_errors(src.text, merged.merged, src.language, src.path):
        return None
    return merged.merged


_COMMENT_ONLY = re.compile(r"\s*(?:#|//|--|;|/\*|\*|<!--)")


def new_lines(original: str, edit: str, merged: merge.MergeResult | None) -> list[str]:
    """The lines an update snippet adds (not in the original; code, not comments or `...`): the merge's
    hunk lines when it is unambiguous, else every snippet line that is no lazy marker."""
    have = {" ".join(line.split()) for line in original.split("\n")}
    lines = [x for h in merged.hunks for x in h.new_lines] if merged is not None and merged.ok else \
        [x for x in edit.split("\n") if not merge.is_marker(x)]
    return [x for x in lines if " ".join(x.split()) not in have and x.strip() and x.strip() != "..."
            and not _COMMENT_ONLY.match(x)]


def check_answer(original: str, body: str, kind: str, edit: str, merged: merge.MergeResult | None,
                 allow_unchanged: bool, allow_mismatch: bool) -> list[str]:
    """Refuse outputs that only look like success: the original unchanged although the edit changes
    something (an instruction, or a snippet with new lines), an update snippet's new lines missing,
    or an output far longer (`LONG_SLACK` lines) than the original plus the snippet."""
    added = new_lines(original, edit, merged) if kind == "snippet" else []
    if body.rstrip("\n") == original.rstrip("\n"):
        changes = kind == "instruction" or bool(added) or (merged is not None and merged.ok and merged.merged != original)
        if changes:
            what = "an instruction" if kind == "instruction" else "an update snippet that changes the file"
            return _refuse(f"the output equals the original although the edit is {what}", allow_unchanged,
                           "--allow-unchanged")
        return []
    if kind != "snippet":
        return []
    have = {" ".join(line.split()) for line in body.split("\n")}
    missing = [x for x in added if " ".join(x.split()) not in have]
    if missing:
        return _refuse(f"the output lacks {len(missing)} of the snippet's {len(added)} new lines "
                       f"(first: {missing[0].strip()!r})", allow_mismatch, "--allow-mismatch")
    size, old, given = body.count("\n"), original.count("\n"), edit.count("\n")
    if size > old + given + LONG_SLACK:
        return _refuse(f"the output has {size} lines, far more than the original ({old}) plus the snippet ({given})",
                       allow_mismatch, "--allow-mismatch")
    return []


def watch(deadline: float | None, timeout: float | None,
          on_step: Callable[[Step, int], None] | None) -> Callable[[Step, int], None] | None:
    """The loop's per-pass callback, raising `RunTimeout` once the deadline has passed."""
    if deadline is None:
        return on_step
    if time.monotonic() > deadline:  # loading the model used it all up
        raise RunTimeout(f"stopped by --timeout {timeout:g} s before decoding began (loading the model took "
                         "longer); nothing was written")

    def step(s: Step, tokens: int) -> None:
        if on_step is not None:
            on_step(s, tokens)
        if time.monotonic() > deadline:
            raise RunTimeout(f"stopped by --timeout {timeout:g} s after {tokens:,} output tokens in "
                             f"{s.index + 1} passes; nothing was written")

    return step


def check_syntax(src: textio.SourceFile, body: str, allow: bool) -> list[str]:
    """Refuse an output that no longer parses (tree-sitter) when the original did."""
    from applyedit import syntax

    errors = syntax.new_errors(src.text, body, src.language, src.path)
    if not errors:
        return []
    message = (f"the output no longer parses as {src.language} (syntax errors at line{'s' if len(errors) > 1 else ''} "
               f"{_ranges(errors)}) while the original did")
    return _refuse(message, allow, "--allow-syntax-errors")


def region_report(engine: Engine, src: textio.SourceFile, body: str, result: DecodeResult,
                  summary: Summary, cold: bool = False) -> dict[str, Any]:
    """Regions of the new file (unchanged / edited / deleted, by definition) with their statistics."""
    found = find_regions(src.text, body, src.language, src.path)
    lines = spans.token_lines(engine.tokenizer, result.tokens)
    num_body = spans.tokens_before_line(lines, body.count("\n"))
    per_region, end, totals = attribute(found, result.steps, lines, num_body)
    startup = process_age_s(result.started_at) if cold else None  # a warm engine (eval, bench): none
    data = report.report_data(found, per_region, end, totals, summary, profile(result), startup)
    data["anchored_lines"] = anchored_lines(result.steps, spans.token_bytes(engine.tokenizer, result.tokens),
                                            body.count("\n"))
    return data


def _ranges(numbers: Sequence[int]) -> str:
    """[3, 4, 5, 9] -> "3-5, 9"."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans)


def check_drops(original: str, body: str, merged: merge.MergeResult | None, allow: bool) -> list[str]:
    """Refuse an output that lost original lines an update snippet left alone (the commonest failure
    of apply models: code behind a lazy marker silently vanishes). Returns notes for the user."""
    if merged is None:
        return []
    if not merged.ok:
        return [f"the dropped-code check could not run: the snippet has no unambiguous reading ({merged.reason})"]
    lost = merge.dropped_lines(original, body, merged)
    if not lost:
        return []
    message = (f"the output dropped {len(lost)} original line{'s' if len(lost) > 1 else ''} that the snippet left "
               f"alone (original lines {_ranges(lost)})")
    return _refuse(message, allow, "--allow-drops")


def _refuse(message: str, allow: bool, flag: str) -> list[str]:
    """A failed output check: a note for the user when `flag` allows it, else the refusal (exit 3)."""
    if allow:
        return [f"{message}; accepted ({flag})"]
    raise OutputCheckError(f"{message}; nothing was written ({flag} to accept it)")


def check_output(original: str, body: str, allow_markers: bool) -> None:
    """Refuse outputs that would damage the file: emptied, or lazy markers the original did not have."""
    if original.strip() and not body.strip():
        raise OutputCheckError("the model returned an empty file for a non-empty original; nothing was written")
    if allow_markers:
        return
    known = {line.strip() for line in original.split("\n")}
    for n, line in enumerate(body.split("\n"), 1):
        if merge.is_marker(line) and line.strip() not in known:
            raise OutputCheckError(
                f"the output still holds a lazy marker at line {n} ({line.strip()!r}); nothing was written "
                "(--allow-markers to accept it)"
            )


def check_deletion(original: str, body: str, edit: str, kind: str, allow: bool) -> list[str]:
    """Refuse an instruction edit whose output lost most of the file (a model talked into returning one
    line) unless the instruction asks to delete something. Snippets have the dropped-code check."""
    if kind != "instruction" or ASKS_TO_DELETE.search(edit):
        return []
    before = sum(1 for line in original.split("\n") if line.strip())
    after = sum(1 for line in body.split("\n") if line.strip())
    if before - after < DELETION_MIN_LINES or after >= before * DELETION_SHARE:
        return []
    message = (f"the output kept {after} of the original's {before} non-blank lines, and the instruction does not "
               "ask to delete anything")
    return _refuse(message, allow, "--allow-deletion")
