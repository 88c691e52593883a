"""`applyedit bench`: plain greedy, transformers' prompt lookup and applyedit's loop side by side.

Owns the methods compared (`model.generate` greedy and prompt lookup on torch, llama.cpp's own greedy
loop on the llamacpp backend, llama-cpp-python's prompt lookup: their timed runs are baselines.py's;
applyedit's own loop under any proposer, K policy and K), running them on one loaded model with the
same prompt, dtype, threads, budget and stop ids, interleaved repeats (repeat 1 of every method, then
repeat 2, ...) with medians and spread, and the resumable JSON record (its typed records and
summaries are benchrecord.py's). Rendering is tables.py's and chart.py's. Speed is
reported here, never asserted in tests.

Timing rules (one definition each, quoted by docs/benchmarks.md):
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
from typing import TYPE_CHECKING, Any, cast

from applyedit import api
from applyedit.errors import InputError
from applyedit.speculative.proposers import CopyProposer, Proposer, Source
from applyedit.tools import baselines, evaluate
from applyedit.tools.benchrecord import BenchRecord, CaseRecord, CaseSummary, Method, Pattern, Run, summarise_target

if TYPE_CHECKING:
    from applyedit.models.torchmodel import TorchModel


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
        return [
            Target(
                c.name, c.before.resolve(), c.edit.read_text(encoding="utf-8"), c.dir.resolve(), c.meta.get("language")
            )
            for c in cases
        ]
    if edit is None:
        raise InputError(f"{path}: a FILE needs --edit (or give a folder of cases)")
    if not path.is_file():
        raise InputError(f"{path}: no such file or folder")
    return [Target(path.name, path, edit.read_text(encoding="utf-8"))]


def _loop(engine: api.Engine, target: Target, method: Method, prefill_s: float) -> Run:
    """One run of applyedit's loop through `api.apply` (output checks off: speed, not quality)."""
    proposer: str | Proposer = method.proposer
    if method.drafts_from:
        unrelated = Path(method.drafts_from).read_text(encoding="utf-8", errors="replace")
        proposer = CopyProposer([Source("unrelated", tuple(engine.encode(unrelated)))])
    t0 = time.perf_counter()
    result = api.apply(
        target.file,
        target.edit,
        engine=engine,
        proposer=proposer,
        k=method.k,
        k_policy=method.k_policy,
        cwd=target.cwd,
        language=target.language,
        allow_markers=True,
        allow_drops=True,
        allow_syntax_errors=True,
        allow_deletion=True,
        draft_model=method.draft_model,
        draft_backend=method.draft_backend,
        draft_k=method.draft_k,
        anchor=method.anchor,
        fallback="none",
        allow_unchanged=True,
        allow_mismatch=True,
        allow_lost_definitions=True,
        allow_head_changes=True,
        allow_unseen_changes=True,
        answer="model",
    )
    wall = time.perf_counter() - t0
    d = result.decode
    assert d is not None, "answer='model': the model decodes"
    shared = prefill_s if d.prefilled == 0 else 0.0  # reused the bench's prefill: count it here
    first = d.steps[0].start_s + d.steps[0].time_s if d.steps else 0.0
    pattern = Pattern([s.forced + len(s.draft) + 1 for s in d.steps], [len(s.emitted) for s in d.steps])
    return Run(
        d.tokens,
        wall + shared,
        shared + d.prefill_s + first,
        len(d.steps),
        pattern=pattern,
        profile=result.report["profile"],
        drafted_by=dict(result.report["totals"]["drafted_by"]),
    )


def bench_target(
    engines: dict[str, api.Engine],
    target: Target,
    methods: Sequence[Method],
    repeats: int,
    counters: dict[str, list[int]],
    record: CaseRecord,
    save: Callable[[], None],
    log: Callable[[str], None],
    lookups: Callable[[api.Engine], Any] | None = None,
) -> CaseSummary:
    """Run every method `repeats` times, interleaved; fill `record` (resuming what it holds) and
    return the target's summary. The first of `engines` is the bench's own; a method with a
    `backend` runs on that backend's engine. `counters[backend]` counts a torch engine's forward
    passes; `lookups(engine)` gives llama-cpp-python's prompt lookup on the engine's GGUF."""
    engine = next(iter(engines.values()))
    job = api.prepare(target.file, target.edit, engine, cwd=target.cwd, language=target.language)
    if all({r.repeat for r in record.runs.get(m.name, [])} >= set(range(repeats)) for m in methods):
        log(f"bench: {target.name}: every run saved already")
        return summarise_target(record, methods, job.fence, engine.backend)
    jobs, prefill = _prefill(engines, job, target, record)
    prefill_s = prefill[engine.backend]
    record.file, record.prompt_tokens, record.budget = str(target.file), len(job.prompt_ids), job.budget
    record.threads = engine.threads
    record.prefill_s.append(prefill_s)
    log(
        f"bench: {target.name}: prompt {len(job.prompt_ids)} tokens, prefill {prefill_s:.1f} s, "
        f"budget {job.budget}, {engine.threads} threads"
    )
    for rep in range(repeats):
        for method in methods:
            runs = record.runs.setdefault(method.name, [])
            if any(r.repeat == rep for r in runs):
                continue  # done in an earlier, interrupted run
            row = _run(engines, jobs, prefill, target, method, counters, lookups)
            row.repeat, row.text = rep, engine.decode(row.tokens)
            runs.append(row)
            log(
                f"bench: {target.name}: {method.name} #{rep + 1}: {len(row.tokens)} tokens, "
                f"{row.passes} passes, {row.wall_s:.1f} s"
            )
            save()
    return summarise_target(record, methods, job.fence, engine.backend)


def _prefill(
    engines: dict[str, api.Engine], job: api.Job, target: Target, record: CaseRecord
) -> tuple[dict[str, api.Job], dict[str, float]]:
    """Each engine's job for `target` (`job` is the first engine's) and its prefill alone, timed: the
    floor every method pays before its first token. The loop's methods reuse this cache; generate()
    builds its own. Cost curves are calibrated (once, cached) first: part of no method's time;
    `record` keeps them, and each engine's prefill when there are several."""
    engine = next(iter(engines.values()))
    prefill: dict[str, float] = {}
    jobs = {
        backend: job
        if eng is engine
        else api.prepare(target.file, target.edit, eng, cwd=target.cwd, language=target.language)
        for backend, eng in engines.items()
    }
    record.cost_curves = {}
    for backend, eng in engines.items():
        record.cost_curves[backend] = eng.cost_curve().to_json()
        eng.model.reset()
        t0 = time.perf_counter()
        eng.model.prefill(jobs[backend].prompt_ids[:-1])
        prefill[backend] = time.perf_counter() - t0
    if len(engines) > 1:
        for backend, seconds in prefill.items():
            record.prefill_s_by_backend = record.prefill_s_by_backend or {}
            record.prefill_s_by_backend.setdefault(backend, []).append(seconds)
    return jobs, prefill


def _run(
    engines: dict[str, api.Engine],
    jobs: dict[str, api.Job],
    prefill: dict[str, float],
    target: Target,
    method: Method,
    counters: dict[str, list[int]],
    lookups: Callable[[api.Engine], Any] | None,
) -> Run:
    """One run of `method` on its backend's engine (the first engine's without one)."""
    engine = next(iter(engines.values()))
    backend = method.backend or engine.backend
    if method.runner == "pylookup":
        assert lookups is not None, "llama-cpp-python's lookup needs `lookups`"
        return lookups(engine).run(jobs[engine.backend].prompt_ids, jobs[engine.backend].budget, method.lookup)
    if method.runner == "generate" and backend == "llamacpp":
        return baselines.llama_greedy(engines[backend], jobs[backend])
    if method.runner == "generate":
        return baselines.generate(engines[backend], jobs[backend], method.lookup, counters[backend])
    return _loop(engines[backend], target, method, prefill[backend])


def run(
    engine: api.Engine,
    items: Sequence[Target],
    methods: Sequence[Method],
    repeats: int,
    json_path: Path | None = None,
    resume: bool = False,
    log: Callable[[str], None] = print,
    open_engine: Callable[[str], api.Engine] | None = None,
) -> dict[str, Any]:
    """Bench every target; with `json_path` the raw runs are saved after each one and each finished
    case's summary beside them, and `resume` picks up the runs (and summaries) a previous call with
    the same methods saved there: an interrupted one, or one that ran other cases (`--filter`).
    `open_engine(backend)` opens the engines of methods that run on another backend.

    The report: the configuration's items, `cases` (name -> `CaseSummary`), `outputs_agree`,
    `same_output_cases` (method -> cases with the reference's output) and `strict` (see `strict`)."""
    others = _other_backends(engine, methods, open_engine is not None)
    engines = {engine.backend: engine} | {b: open_engine(b) for b in others}  # type: ignore[misc]
    config = _config(engines, methods, repeats)
    # Resumed: the raw runs and the summaries of cases finished by earlier calls (--filter).
    record = BenchRecord.resumed(json_path, config) if resume else BenchRecord(config)

    def save() -> None:
        record.save(json_path)

    counters, hooks = _counters(engines, methods)
    lookups = baselines.Lookups()  # llama-cpp-python, loaded on first use
    results: dict[str, CaseSummary] = {}
    try:
        for target in items:
            raw = record.raw.setdefault(target.name, CaseRecord())
            results[target.name] = record.cases[target.name] = bench_target(
                engines, target, methods, repeats, counters, raw, save, log, lookups
            )
            save()
    finally:
        for hook in hooks:
            hook.remove()
        lookups.close()
    config_file = engine.path / "config.json"
    record.model_config = json.loads(config_file.read_text()) if config_file.is_file() else {}  # for replay
    save()
    agreement = {
        m.name: sum(bool(c.methods[m.name].same_output) for c in results.values() if m.name in c.methods)
        for m in methods
    }
    return {
        **config,
        "cases": results,
        "outputs_agree": all(c.outputs_agree for c in results.values()),
        "same_output_cases": agreement,
        "strict": strict(engine) and not others,
    }


def _config(engines: dict[str, api.Engine], methods: Sequence[Method], repeats: int) -> dict[str, Any]:
    """What a bench ran with (the first engine is the bench's own): a resumed record must match it."""
    engine = next(iter(engines.values()))
    config = {
        "model": engine.source.name,
        "device": engine.device,
        "dtype": engine.dtype_name,
        "backend": engine.backend,
        "threads": engine.threads,
        "methods": [m.name for m in methods],
        "repeats": repeats,
    }
    if len(engines) > 1:
        config["other_engines"] = {
            b: f"{e.backend} ({e.dtype_name}, {e.threads} threads)" for b, e in engines.items() if e is not engine
        }
    return config


def _counters(engines: dict[str, api.Engine], methods: Sequence[Method]) -> tuple[dict[str, list[int]], list[Any]]:
    """A forward-pass counter per engine, hooked into each torch engine a `generate` method runs on,
    and the hooks (`.remove()` them when done)."""
    engine = next(iter(engines.values()))
    counters: dict[str, list[int]] = {b: [0] for b in engines}
    hooks = []
    for b, eng in engines.items():
        if eng.backend == "torch" and any(
            m.runner == "generate" and (m.backend or engine.backend) == b for m in methods
        ):
            counters[b], hook = baselines.count_forwards(cast("TorchModel", eng.model).model)
            hooks.append(hook)
    return counters, hooks


def _other_backends(engine: api.Engine, methods: Sequence[Method], can_open: bool) -> list[str]:
    """The backends besides the bench engine's that `methods` run on; refuses combinations that make
    no sense on this engine."""
    if engine.backend != "torch" and any(m.lookup and m.runner == "generate" and not m.backend for m in methods):
        raise InputError(
            "the lookup baseline is transformers' prompt lookup (torch backend); on llama.cpp "
            "use --baseline torch-lookup (it opens a torch engine) or llamacpp-lookup"
        )
    others = sorted({m.backend for m in methods if m.backend})
    if engine.backend == "llamacpp" and any(m.backend == "llamacpp" and m.runner == "generate" for m in methods):
        raise InputError(
            "--baseline llamacpp-greedy adds llama.cpp's greedy loop to a torch bench; on "
            "--backend llamacpp, --baseline greedy is that loop"
        )
    if engine.backend in others:
        raise InputError(
            f"--baseline {engine.backend} runs applyedit on another backend, but this bench "
            f"already runs on {engine.backend}"
        )
    if others and not can_open:
        raise InputError(f"methods on {', '.join(others)} need an engine for that backend")
    return others


def strict(engine: api.Engine) -> bool:
    """Whether every method must write the same tokens: on the reference path (torch, fp32) a
    difference is a bug; on other dtypes and backends near-ties may flip, and agreement is reported
    (so too when a bench mixes backends)."""
    return engine.backend == "torch" and engine.dtype_name == "float32"
