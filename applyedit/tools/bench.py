"""`applyedit bench`: plain greedy, transformers' prompt lookup and applyedit's loop side by side.

Owns the methods compared (`model.generate` greedy and prompt lookup on torch, llama.cpp's own greedy
loop on the llamacpp backend; applyedit's own loop under any
proposer, K policy and K), running them on one loaded model with the same prompt, dtype, threads,
budget and stop ids, interleaved repeats (repeat 1 of every method, then repeat 2, ...) with medians
and spread, target forward-pass counting with a hook, and the resumable JSON record (its typed
records and summaries are benchrecord.py's). Rendering is tables.py's and chart.py's. Speed is
reported here, never asserted in tests.

Timing rules (one definition each, quoted by the README):
- end to end (`wall_s`): from the start of the method's run to its last token, prefill included. The
  loop's methods reuse one prefill of the prompt, measured once per case and added to each of them.
- time to first token (`ttft_s`): prefill plus the first forward pass that yields output.
- decode phase (`decode_s`): end to end minus time to first token.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from applyedit import api, files
from applyedit.errors import InputError
from applyedit.options import K_POLICIES
from applyedit.proposers import CopyProposer, Proposer, Source
from applyedit.tools import evaluate
from applyedit.tools.benchrecord import BenchRecord, CaseRecord, CaseSummary, Method, Pattern, Run, summarise_target

BASELINES = ("greedy", "lookup", "torch-lookup", "llamacpp-lookup", "none", "nomerge", "anchor", "torch", "llamacpp",
             "llamacpp-greedy", "draft", "hybrid")
DEFAULT_LOOKUP = 10  # transformers' prompt_lookup_num_tokens default in its docs


def _values(spec: str, default: Sequence[int]) -> tuple[str, list[int]]:
    """"fixed:4,8,16" -> ("fixed", [4, 8, 16]); "fixed" -> ("fixed", default)."""
    head, _, tail = spec.partition(":")
    try:
        values = [int(v) for v in tail.split(",") if v.strip()] if tail else list(default)
    except ValueError:
        raise InputError(f"bad method {spec!r}: the values after ':' must be whole numbers") from None
    if any(v < 0 for v in values):
        raise InputError(f"bad method {spec!r}: K and lookup lengths are 0 or more")
    return head.strip(), values


def parse_methods(baselines: Sequence[str], k_policies: Sequence[str], ks: Sequence[int],
                  break_it: Path | None = None, draft_model: str | None = None,
                  draft_backend: str | None = None) -> list[Method]:
    """The methods to run, baselines first.

    baselines: "greedy" (model.generate), "lookup[:K,...]" (its prompt lookup, default K=10),
    "torch-lookup[:K,...]" (the same on a torch engine, from a llama.cpp bench), "llamacpp-lookup[:K,...]"
    (llama-cpp-python's prompt lookup decoding, num_pred_tokens K, on the bench's GGUF), "none"
    (applyedit's loop with no drafts), "nomerge" (adaptive K drafting from the original and the
    snippet only, not from the merged snippet: what the predicted output adds), "torch" and "llamacpp"
    (applyedit's loop, adaptive K, on that backend's engine: both backends in one run; the torch one in
    its default dtype), "llamacpp-greedy" (llama.cpp's own greedy loop, from a torch bench), "draft"
    (adaptive, the draft model `draft_model` alone), "hybrid" (copy drafts while aligned, the draft
    model inside edits), "anchor" (adaptive, the merge's kept lines forced: `--anchor merge`; its output
    is not held to agree); "draft:K,..." and "hybrid:K,..." fix the draft model's draft length at K
    (without: chosen per step for the best expected tokens per second).
    k_policies: "adaptive[:K,...]" (K is the cap) and
    "fixed[:K,...]"; without a list they take `ks`. `break_it` adds adaptive K drafting only from
    that unrelated file: what a useless drafter costs.
    """
    methods: list[Method] = []
    for spec in baselines:
        name, values = _values(spec, [DEFAULT_LOOKUP])
        if name == "greedy":
            methods.append(Method("greedy", "generate"))
        elif name == "lookup":
            methods += [Method(f"lookup K={v}", "generate", lookup=v) for v in values]
        elif name == "torch-lookup":  # transformers' prompt lookup on a torch engine, from a llama.cpp bench
            methods += [Method(f"transformers lookup K={v}", "generate", lookup=v, backend="torch") for v in values]
        elif name == "llamacpp-lookup":  # llama-cpp-python's prompt lookup decoding (baselines.py)
            methods += [Method(f"llama-cpp-python lookup K={v}", "pylookup", lookup=v) for v in values]
        elif name == "none":
            methods.append(Method("loop, no drafts", "loop", proposer="none", k_policy="fixed", k=0))
        elif name == "anchor":
            methods.append(Method("adaptive, anchored", "loop", anchor="merge"))
        elif name == "nomerge":
            methods.append(Method("adaptive, no merged prediction", "loop", proposer="copy-original"))
        elif name in ("torch", "llamacpp"):
            methods.append(Method(f"adaptive on {name}", "loop", backend=name))
        elif name == "llamacpp-greedy":
            methods.append(Method("llama.cpp greedy", "generate", backend="llamacpp"))
        elif name in ("draft", "hybrid"):
            label = "draft model only" if name == "draft" else "hybrid"
            fixed = [int(v) for v in values] if ":" in spec else [None]
            methods += [Method(label + (f", draft K={v}" if v else ""), "loop", proposer=name, draft_model=draft_model,
                               draft_backend=draft_backend, draft_k=v) for v in fixed]
        else:
            raise InputError(f"unknown baseline {spec!r}; choose from {', '.join(BASELINES)}")
    for spec in k_policies:
        name, values = _values(spec, ks)
        if name not in K_POLICIES:
            raise InputError(f"unknown --k-policy {spec!r}; use adaptive[:K,...] or fixed[:K,...]")
        sign = "≤" if name == "adaptive" else "="
        methods += [Method(f"{name} K{sign}{v}", "loop", k_policy=name, k=v) for v in values]
    if break_it is not None:
        if not break_it.is_file():
            raise InputError(f"--break-it {break_it}: no such file")
        methods.append(Method(f"break-it: drafts from {break_it.name}", "loop", drafts_from=str(break_it)))
    names = [m.name for m in methods]
    if not methods or len(set(names)) != len(names):
        raise InputError("bench needs at least one method, each named once")
    return methods


@dataclass(frozen=True, slots=True)
class Target:
    """One file and edit to bench, with what the eval would pass for it (cwd, language)."""

    name: str
    file: Path
    edit: str
    cwd: Path | None = None
    language: str | None = None


def targets(path: Path, edit: Path | None, pattern: str | None, everything: bool) -> list[Target]:
    """A single FILE with --edit, or the cases of a fixture folder (its bench suite unless `everything`)."""
    if path.is_dir():
        if edit is not None:
            raise InputError("--edit goes with a FILE; a folder of cases has each case's edit.txt")
        cases = [c for c in evaluate.discover(path, pattern) if everything or c.bench]
        if not cases:
            raise InputError(f"no {'' if everything else 'bench-suite (bench = true) '}cases in {path}")
        return [Target(c.name, c.before.resolve(), c.edit.read_text(encoding="utf-8"), c.dir.resolve(),
                       c.meta.get("language")) for c in cases]
    if edit is None:
        raise InputError(f"{path}: a FILE needs --edit (or give a folder of cases)")
    if not path.is_file():
        raise InputError(f"{path}: no such file or folder")
    return [Target(path.name, path, edit.read_text(encoding="utf-8"))]


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


def _count_forwards(model: Any) -> tuple[list[int], Any]:
    """A counter of `model`'s forward calls, and the hook's handle (`.remove()` it when done)."""
    counter = [0]

    def hook(*_: Any) -> None:
        counter[0] += 1

    return counter, model.register_forward_pre_hook(hook)


def _generate(engine: api.Engine, job: api.Job, lookup: int, counter: list[int]) -> Run:
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


def _llama_greedy(engine: api.Engine, job: api.Job) -> Run:
    """llama.cpp's own plain greedy loop (what an Ollama user runs), timed like `_generate`: the
    prompt's prefill yields the first token, then one pass per token."""
    t0 = time.perf_counter()
    tokens, ttft = engine.model.greedy(job.prompt_ids, job.budget)
    wall = time.perf_counter() - t0
    return Run(tokens, wall, ttft, len(tokens))


def _loop(engine: api.Engine, target: Target, method: Method, prefill_s: float) -> Run:
    """One run of applyedit's loop through `api.apply` (output checks off: speed, not quality)."""
    proposer: str | Proposer = method.proposer
    if method.drafts_from:
        unrelated = Path(method.drafts_from).read_text(encoding="utf-8", errors="replace")
        proposer = CopyProposer([Source("unrelated", tuple(engine.encode(unrelated)))])
    t0 = time.perf_counter()
    result = api.apply(target.file, target.edit, engine=engine, proposer=proposer, k=method.k,
                       k_policy=method.k_policy, cwd=target.cwd, language=target.language, allow_markers=True,
                       allow_drops=True, allow_syntax_errors=True, allow_deletion=True, draft_model=method.draft_model,
                       draft_backend=method.draft_backend, draft_k=method.draft_k, anchor=method.anchor,
                       fallback="none", allow_unchanged=True, allow_mismatch=True, answer="model")
    wall = time.perf_counter() - t0
    d = result.decode
    shared = prefill_s if d.prefilled == 0 else 0.0  # reused the bench's prefill: count it here
    first = d.steps[0].start_s + d.steps[0].time_s if d.steps else 0.0
    pattern = Pattern([s.forced + len(s.draft) + 1 for s in d.steps], [len(s.emitted) for s in d.steps])
    return Run(d.tokens, wall + shared, shared + d.prefill_s + first, len(d.steps), pattern=pattern,
               profile=result.report["profile"], drafted_by=dict(result.report["totals"]["drafted_by"]))


def bench_target(engines: dict[str, api.Engine], target: Target, methods: Sequence[Method], repeats: int,
                 counters: dict[str, list[int]], record: CaseRecord, save: Callable[[], None],
                 log: Callable[[str], None], lookups: Callable[[api.Engine], Any] | None = None) -> CaseSummary:
    """Run every method `repeats` times, interleaved; fill `record` (resuming what it holds) and
    return the target's summary. The first of `engines` is the bench's own; a method with a
    `backend` runs on that backend's engine. `counters[backend]` counts a torch engine's forward
    passes; `lookups(engine)` gives llama-cpp-python's prompt lookup on the engine's GGUF."""
    engine = next(iter(engines.values()))
    job = api.prepare(target.file, target.edit, engine, cwd=target.cwd, language=target.language)
    if all({r.repeat for r in record.runs.get(m.name, [])} >= set(range(repeats)) for m in methods):
        log(f"bench: {target.name}: every run saved already")
        return summarise_target(record, methods, job.fence, engine.backend)
    # Prefill alone, once per engine: the floor every method pays before its first token. The loop's
    # methods reuse this cache; generate() builds its own. Cost curves are calibrated (once, cached)
    # first: part of no method's time.
    prefill: dict[str, float] = {}
    jobs = {backend: job if eng is engine else api.prepare(target.file, target.edit, eng, cwd=target.cwd,
                                                           language=target.language)
            for backend, eng in engines.items()}
    record.cost_curves = {}
    for backend, eng in engines.items():
        record.cost_curves[backend] = eng.cost_curve().to_json()
        eng.model.reset()
        t0 = time.perf_counter()
        eng.model.prefill(jobs[backend].prompt_ids[:-1])
        prefill[backend] = time.perf_counter() - t0
    prefill_s = prefill[engine.backend]
    if len(engines) > 1:
        for backend, seconds in prefill.items():
            record.prefill_s_by_backend = record.prefill_s_by_backend or {}
            record.prefill_s_by_backend.setdefault(backend, []).append(seconds)
    record.file, record.prompt_tokens, record.budget = str(target.file), len(job.prompt_ids), job.budget
    record.threads = engine.threads
    record.prefill_s.append(prefill_s)
    log(f"bench: {target.name}: prompt {len(job.prompt_ids)} tokens, prefill {prefill_s:.1f} s, "
        f"budget {job.budget}, {engine.threads} threads")
    for rep in range(repeats):
        for method in methods:
            runs = record.runs.setdefault(method.name, [])
            if any(r.repeat == rep for r in runs):
                continue  # done in an earlier, interrupted run
            backend = method.backend or engine.backend
            if method.runner == "pylookup":
                assert lookups is not None, "llama-cpp-python's lookup needs `lookups`"
                row = lookups(engine).run(job.prompt_ids, job.budget, method.lookup)
            elif method.runner == "generate" and backend == "llamacpp":
                row = _llama_greedy(engines[backend], jobs[backend])
            elif method.runner == "generate":
                row = _generate(engines[backend], jobs[backend], method.lookup, counters[backend])
            else:
                row = _loop(engines[backend], target, method, prefill[backend])
            row.repeat, row.text = rep, engine.decode(row.tokens)
            runs.append(row)
            log(f"bench: {target.name}: {method.name} #{rep + 1}: {len(row.tokens)} tokens, "
                f"{row.passes} passes, {row.wall_s:.1f} s")
            save()
    return summarise_target(record, methods, job.fence, engine.backend)


def run(engine: api.Engine, items: Sequence[Target], methods: Sequence[Method], repeats: int,
        json_path: Path | None = None, resume: bool = False,
        log: Callable[[str], None] = print, open_engine: Callable[[str], api.Engine] | None = None) -> dict[str, Any]:
    """Bench every target; with `json_path` the raw runs are saved after each one and each finished
    case's summary beside them, and `resume` picks up the runs (and summaries) a previous call with
    the same methods saved there: an interrupted one, or one that ran other cases (`--filter`).
    `open_engine(backend)` opens the engines of methods that run on another backend.

    The report: the configuration's items, `cases` (name -> `CaseSummary`), `outputs_agree`,
    `same_output_cases` (method -> cases with the reference's output) and `strict` (see `strict`)."""
    others = _other_backends(engine, methods, open_engine is not None)
    engines = {engine.backend: engine} | {b: open_engine(b) for b in others}  # type: ignore[misc]
    config = {"model": engine.source.name, "device": engine.device, "dtype": engine.dtype_name,
              "backend": engine.backend, "threads": engine.threads, "methods": [m.name for m in methods],
              "repeats": repeats}
    if others:
        config["other_engines"] = {b: f"{e.backend} ({e.dtype_name}, {e.threads} threads)"
                                   for b, e in engines.items() if e is not engine}
    saved = _resumed(json_path, config) if resume else None
    # Resumed: the raw runs and the summaries of cases finished by earlier calls (--filter).
    record = BenchRecord(config, saved.raw if saved else {}, saved.cases if saved else {})

    def save() -> None:
        if json_path is not None:
            files.write_atomic(json_path, json.dumps(record.to_json(), indent=1).encode())

    counters: dict[str, list[int]] = {b: [0] for b in engines}
    hooks = []
    for b, eng in engines.items():
        if eng.backend == "torch" and any(m.runner == "generate" and (m.backend or engine.backend) == b
                                          for m in methods):
            counters[b], hook = _count_forwards(eng.model.model)
            hooks.append(hook)
    lookup: list[Any] = []  # llama-cpp-python, loaded on first use

    def lookups(eng: api.Engine) -> Any:
        if not lookup:
            from applyedit.tools.baselines import PromptLookup

            if eng.source.gguf is None:
                raise InputError("--baseline llamacpp-lookup needs a GGUF model")
            lookup.append(PromptLookup(eng.source.gguf, eng.threads, eng.model.eos_ids))
        return lookup[0]

    results: dict[str, CaseSummary] = {}
    try:
        for target in items:
            raw = record.raw.setdefault(target.name, CaseRecord())
            results[target.name] = record.cases[target.name] = bench_target(
                engines, target, methods, repeats, counters, raw, save, log, lookups)
            save()
    finally:
        for hook in hooks:
            hook.remove()
        for opened in lookup:
            opened.close()
    config_file = engine.path / "config.json"
    record.model_config = json.loads(config_file.read_text()) if config_file.is_file() else {}  # for replay
    save()
    agreement = {m.name: sum(bool(c.methods[m.name].same_output) for c in results.values() if m.name in c.methods)
                 for m in methods}
    return {**config, "cases": results, "outputs_agree": all(c.outputs_agree for c in results.values()),
            "same_output_cases": agreement, "strict": strict(engine) and not others}


def _other_backends(engine: api.Engine, methods: Sequence[Method], can_open: bool) -> list[str]:
    """The backends besides the bench engine's that `methods` run on; refuses combinations that make
    no sense on this engine."""
    if engine.backend != "torch" and any(m.lookup and m.runner == "generate" and not m.backend for m in methods):
        raise InputError("the lookup baseline is transformers' prompt lookup (torch backend); on llama.cpp "
                         "use --baseline torch-lookup (it opens a torch engine) or llamacpp-lookup")
    others = sorted({m.backend for m in methods if m.backend})
    if engine.backend == "llamacpp" and any(m.backend == "llamacpp" and m.runner == "generate" for m in methods):
        raise InputError("--baseline llamacpp-greedy adds llama.cpp's greedy loop to a torch bench; on "
                         "--backend llamacpp, --baseline greedy is that loop")
    if engine.backend in others:
        raise InputError(f"--baseline {engine.backend} runs applyedit on another backend, but this bench "
                         f"already runs on {engine.backend}")
    if others and not can_open:
        raise InputError(f"methods on {', '.join(others)} need an engine for that backend")
    return others


def _resumed(json_path: Path | None, config: dict[str, Any]) -> BenchRecord | None:
    """The record an earlier call with the same configuration (repeats aside) saved at `json_path`."""
    if json_path is None or not json_path.is_file():
        return None
    saved = BenchRecord.from_json(json.loads(json_path.read_text()))
    if {k: v for k, v in saved.config.items() if k != "repeats"} != {k: v for k, v in config.items() if k != "repeats"}:
        raise InputError(f"{json_path} holds a bench of other methods or another model; drop --resume")
    return saved


def strict(engine: api.Engine) -> bool:
    """Whether every method must write the same tokens: on the reference path (torch, fp32) a
    difference is a bug; on other dtypes and backends near-ties may flip, and agreement is reported
    (so too when a bench mixes backends)."""
    return engine.backend == "torch" and engine.dtype_name == "float32"
