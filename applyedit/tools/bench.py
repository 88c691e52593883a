"""`applyedit bench`: plain greedy, transformers' prompt lookup and applyedit's loop side by side.

Owns the methods compared (`model.generate` greedy and prompt lookup on torch, llama.cpp's own greedy
loop on the llamacpp backend; applyedit's own loop under any
proposer, K policy and K), running them on one loaded model with the same prompt, dtype, threads,
budget and stop ids, interleaved repeats (repeat 1 of every method, then repeat 2, ...) with medians
and spread, target forward-pass counting with a hook, the agreement check, and a resumable JSON
record. Rendering is report.py's. Speed is reported here, never asserted in tests.

Timing rules (one definition each, quoted by the README):
- end to end (`wall_s`): from the start of the method's run to its last token, prefill included. The
  loop's methods reuse one prefill of the prompt, measured once per case and added to each of them.
- time to first token (`ttft_s`): prefill plus the first forward pass that yields output.
- decode phase (`decode_s`): end to end minus time to first token.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from applyedit import api, files, textio
from applyedit.tools import evaluate
from applyedit.errors import InputError
from applyedit.options import DEFAULT_K, K_POLICIES
from applyedit.proposers import CopyProposer, Proposer, Source, common_prefix

BASELINES = ("greedy", "lookup", "none", "nomerge", "anchor", "torch", "llamacpp", "llamacpp-greedy", "draft", "hybrid")
DEFAULT_LOOKUP = 10  # transformers' prompt_lookup_num_tokens default in its docs


@dataclass(frozen=True, slots=True)
class Method:
    """One way to produce the output. `runner` is "generate" (transformers) or "loop" (applyedit's)."""

    name: str
    runner: str
    lookup: int = 0  # prompt_lookup_num_tokens for generate; 0 is plain greedy
    proposer: str = "copy"
    k_policy: str = "adaptive"
    k: int = DEFAULT_K
    drafts_from: str = ""  # break-it mode: copy-draft from this unrelated file instead of the real sources
    backend: str = ""  # run on this backend's engine instead of the bench's ("": the bench's own)
    draft_model: str | None = None  # proposer "draft" / "hybrid": --draft-model (None: the packaged 0.5B)
    draft_backend: str | None = None  # ... and the backend that runs it (None: auto)
    draft_k: int | None = None  # the draft model's draft length (None: chosen per step by its costs)
    anchor: str = "none"  # "merge": force what the snippet's merge keeps (its output may differ from greedy's)


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

    baselines: "greedy" (model.generate), "lookup[:K,...]" (its prompt lookup, default K=10), "none"
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


def method_named(name: str) -> Method:
    """The method a saved bench record names (its `config.methods`), for summarising saved runs again;
    a name no option writes is kept as a loop method of that name."""
    import re

    if m := re.fullmatch(r"(adaptive|fixed) K[≤=](\d+)", name):
        return Method(name, "loop", k_policy=m[1], k=int(m[2]))
    if m := re.fullmatch(r"lookup K=(\d+)", name):
        return Method(name, "generate", lookup=int(m[1]))
    if m := re.fullmatch(r"(draft model only|hybrid)(?:, draft K=(\d+))?", name):
        return Method(name, "loop", proposer="draft" if m[1] == "draft model only" else "hybrid",
                      draft_k=int(m[2]) if m[2] else None)
    if m := re.fullmatch(r"adaptive on (torch|llamacpp)", name):
        return Method(name, "loop", backend=m[1])
    if name.startswith("break-it: drafts from "):
        return Method(name, "loop", drafts_from=name.removeprefix("break-it: drafts from "))
    fixed = {"greedy": Method("greedy", "generate"),
             "llama.cpp greedy": Method("llama.cpp greedy", "generate", backend="llamacpp"),
             "loop, no drafts": Method("loop, no drafts", "loop", proposer="none", k_policy="fixed", k=0),
             "adaptive, no merged prediction": Method("adaptive, no merged prediction", "loop",
                                                      proposer="copy-original")}
    return fixed.get(name, Method(name, "loop"))


def fence_of(text: str) -> str:
    """The closing fence in a saved run's output text (its last line of backticks only), else ```."""
    import re

    found = re.findall(r"(?m)^(`{3,})[ \t]*$", text)
    return found[-1] if found else "```"


def summarise_saved(saved: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The case summaries of a saved record (`--json`): those it holds, plus those of cases whose
    runs are all there (every method, every repeat) but whose summary was not saved (a bench run
    case by case, or interrupted after its last run); and the names of the cases still unfinished."""
    config, cases = saved.get("config", {}), dict(saved.get("cases", {}))
    methods = [method_named(name) for name in config.get("methods", [])]
    repeats = int(config.get("repeats") or 1)
    unfinished = []
    for name, record in saved.get("raw", {}).items():
        if name in cases:
            continue
        runs = record.get("runs", {})
        if methods and record.get("prompt_tokens") and all(len(runs.get(m.name, [])) >= repeats for m in methods):
            first = runs[methods[0].name][0]
            cases[name] = summarise_target(record, methods, fence_of(first.get("text", "")),
                                           config.get("backend", "torch"))
        else:
            unfinished.append(name)
    return cases, sorted(unfinished)


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


def _generate(engine: api.Engine, job: api.Job, lookup: int, counter: list[int]) -> dict[str, Any]:
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
    return {"tokens": tokens, "wall_s": wall, "ttft_s": ttft, "passes": counter[0] - before}


def _llama_greedy(engine: api.Engine, job: api.Job) -> dict[str, Any]:
    """llama.cpp's own plain greedy loop (what an Ollama user runs), timed like `_generate`: the
    prompt's prefill yields the first token, then one pass per token."""
    t0 = time.perf_counter()
    tokens, ttft = engine.model.greedy(job.prompt_ids, job.budget)
    wall = time.perf_counter() - t0
    return {"tokens": tokens, "wall_s": wall, "ttft_s": ttft, "passes": len(tokens)}


def _loop(engine: api.Engine, target: Target, method: Method, prefill_s: float) -> dict[str, Any]:
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
                       fallback="none", allow_unchanged=True, allow_mismatch=True)
    wall = time.perf_counter() - t0
    d = result.decode
    shared = prefill_s if d.prefilled == 0 else 0.0  # reused the bench's prefill: count it here
    first = d.steps[0].start_s + d.steps[0].time_s if d.steps else 0.0
    # The pass pattern (block length and tokens kept per verify pass) lets `applyedit.replay` time
    # the same passes on another device with random weights.
    pattern = {"blocks": [s.forced + len(s.draft) + 1 for s in d.steps], "emitted": [len(s.emitted) for s in d.steps]}
    return {"tokens": d.tokens, "wall_s": wall + shared, "ttft_s": shared + d.prefill_s + first,
            "passes": len(d.steps), "pattern": pattern, "profile": result.report["profile"],
            "drafted_by": dict(result.report["totals"]["drafted_by"])}


def bench_target(engines: dict[str, api.Engine], target: Target, methods: Sequence[Method], repeats: int,
                 counter: list[int], record: dict[str, Any], save: Callable[[], None],
                 log: Callable[[str], None]) -> dict[str, Any]:
    """Run every method `repeats` times, interleaved; fill `record` (resuming what it holds) and
    return the target's summary. The first of `engines` is the bench's own; a method with a
    `backend` runs on that backend's engine. `counter` counts the bench engine's forward passes."""
    engine = next(iter(engines.values()))
    job = api.prepare(target.file, target.edit, engine, cwd=target.cwd, language=target.language)
    if all({r["repeat"] for r in record.get("runs", {}).get(m.name, [])} >= set(range(repeats)) for m in methods):
        log(f"bench: {target.name}: every run saved already")
        return summarise_target(record, methods, job.fence, engine.backend)
    # Prefill alone, once per engine: the floor every method pays before its first token. The loop's
    # methods reuse this cache; generate() builds its own. Cost curves are calibrated (once, cached)
    # first: part of no method's time.
    prefill: dict[str, float] = {}
    jobs = {backend: job if eng is engine else api.prepare(target.file, target.edit, eng, cwd=target.cwd,
                                                           language=target.language)
            for backend, eng in engines.items()}
    for backend, eng in engines.items():
        eng.cost_curve()
        eng.model.reset()
        t0 = time.perf_counter()
        eng.model.prefill(jobs[backend].prompt_ids[:-1])
        prefill[backend] = time.perf_counter() - t0
    prefill_s = prefill[engine.backend]
    if len(engines) > 1:
        for backend, seconds in prefill.items():
            record.setdefault("prefill_s_by_backend", {}).setdefault(backend, []).append(seconds)
    record.setdefault("runs", {})
    record.update({"file": str(target.file), "prompt_tokens": len(job.prompt_ids), "budget": job.budget,
                   "threads": engine.threads})
    record.setdefault("prefill_s", []).append(prefill_s)
    log(f"bench: {target.name}: prompt {len(job.prompt_ids)} tokens, prefill {prefill_s:.1f} s, "
        f"budget {job.budget}, {engine.threads} threads")
    for rep in range(repeats):
        for method in methods:
            runs = record["runs"].setdefault(method.name, [])
            if any(r["repeat"] == rep for r in runs):
                continue  # done in an earlier, interrupted run
            backend = method.backend or engine.backend
            if method.runner == "generate" and backend == "llamacpp":
                row = _llama_greedy(engines[backend], jobs[backend])
            elif method.runner == "generate":
                row = _generate(engine, job, method.lookup, counter)
            else:
                row = _loop(engines[backend], target, method, prefill[backend])
            row["repeat"] = rep
            row["text"] = engine.decode(row["tokens"])
            runs.append(row)
            log(f"bench: {target.name}: {method.name} #{rep + 1}: {len(row['tokens'])} tokens, "
                f"{row['passes']} passes, {row['wall_s']:.1f} s")
            save()
    return summarise_target(record, methods, job.fence, engine.backend)


def summarise_target(record: dict[str, Any], methods: Sequence[Method], fence: str,
                     backend: str = "torch") -> dict[str, Any]:
    """Medians and spread per method, ratios to the plain greedy run of the method's own backend (when
    run) and whether every output agrees. `backend` is the bench engine's."""
    rows: dict[str, dict[str, Any]] = {}
    for m in methods:
        runs = record["runs"].get(m.name, [])
        if not runs:
            continue
        walls = [r["wall_s"] for r in runs]
        decodes = [r["wall_s"] - r["ttft_s"] for r in runs]
        tokens = len(runs[0]["tokens"])
        rows[m.name] = {
            "method": asdict(m), "repeats": len(runs), "num_tokens": tokens,
            "passes": statistics.median(r["passes"] for r in runs),
            "wall_s": statistics.median(walls), "wall_min_s": min(walls), "wall_max_s": max(walls),
            "decode_s": statistics.median(decodes), "ttft_s": statistics.median(r["ttft_s"] for r in runs),
            # the proposer's own time (a draft model's forwards, its prefill included), and who drafted what
            "drafting_s": statistics.median((r.get("profile") or {}).get("drafting_s", 0.0) for r in runs),
            "drafted_by": runs[0].get("drafted_by", {}),
        }
        rows[m.name]["tokens_per_pass"] = tokens / max(1, rows[m.name]["passes"])
        rows[m.name]["tokens_per_s"] = tokens / rows[m.name]["wall_s"]
    reference = next(iter(record["runs"][m.name] for m in methods if m.name in rows))[0]
    ref_body = _body(reference["text"], fence)
    for name, row in rows.items():  # agreement with the reference (the first method's first run)
        runs = record["runs"][name]
        row["same_output"] = ref_body is not None and all(
            _body(r["text"], fence) == ref_body and _prefix_agrees(reference["tokens"], r["tokens"]) for r in runs)
        row["tokens_before_divergence"] = min(common_prefix(reference["tokens"], r["tokens"]) for r in runs)
    agree = all(row["same_output"] for row in rows.values() if row["method"].get("anchor", "none") == "none")
    greedy = {(m.backend or backend): rows[m.name] for m in methods if m.runner == "generate" and not m.lookup
              and m.name in rows}
    for m in methods:
        if m.name not in rows:
            continue
        row, base = rows[m.name], greedy.get(m.backend or backend)
        row["speedup_vs_greedy"] = base["wall_s"] / row["wall_s"] if base else None
        row["decode_speedup_vs_greedy"] = base["decode_s"] / row["decode_s"] if base and row["decode_s"] else None
    return {"prompt_tokens": record["prompt_tokens"], "prefill_s": statistics.median(record["prefill_s"]),
            "budget": record["budget"], "file": record["file"], "outputs_agree": agree, "methods": rows}


def _prefix_agrees(a: Sequence[int], b: Sequence[int]) -> bool:
    """generate() runs on to EOS, the loop stops at the closing fence: the shorter is a prefix."""
    return common_prefix(a, b) == min(len(a), len(b))


def _body(text: str, fence: str) -> str | None:
    try:
        return textio.extract_body(text, fence)
    except Exception:
        return None


def run(engine: api.Engine, items: Sequence[Target], methods: Sequence[Method], repeats: int,
        json_path: Path | None = None, resume: bool = False,
        log: Callable[[str], None] = print, open_engine: Callable[[str], api.Engine] | None = None) -> dict[str, Any]:
    """Bench every target; with `json_path` the raw runs are saved after each one and each finished
    case's summary beside them, and `resume` picks up the runs (and summaries) a previous call with
    the same methods saved there: an interrupted one, or one that ran other cases (`--filter`).
    `open_engine(backend)` opens the engines of methods that run on another backend."""
    if engine.backend != "torch" and any(m.lookup for m in methods):
        raise InputError("the lookup baseline is transformers' prompt lookup (torch backend); on llama.cpp "
                         "the baselines are greedy (llama.cpp's own loop) and none")
    others = sorted({m.backend for m in methods if m.backend})
    if engine.backend == "llamacpp" and any(m.backend == "llamacpp" and m.runner == "generate" for m in methods):
        raise InputError("--baseline llamacpp-greedy adds llama.cpp's greedy loop to a torch bench; on "
                         "--backend llamacpp, --baseline greedy is that loop")
    if engine.backend in others:
        raise InputError(f"--baseline {engine.backend} runs applyedit on another backend, but this bench "
                         f"already runs on {engine.backend}")
    if others and open_engine is None:
        raise InputError(f"methods on {', '.join(others)} need an engine for that backend")
    engines = {engine.backend: engine} | {b: open_engine(b) for b in others}  # type: ignore[misc]
    config = {"model": engine.source.name, "device": engine.device, "dtype": engine.dtype_name,
              "backend": engine.backend, "threads": engine.threads, "methods": [m.name for m in methods],
              "repeats": repeats}
    if others:
        config["other_engines"] = {b: f"{e.backend} ({e.dtype_name}, {e.threads} threads)"
                                   for b, e in engines.items() if e is not engine}
    raw: dict[str, Any] = {"config": config, "raw": {}, "cases": {}}
    if resume and json_path is not None and json_path.is_file():
        saved = json.loads(json_path.read_text())
        if {k: v for k, v in saved.get("config", {}).items() if k != "repeats"} != \
                {k: v for k, v in config.items() if k != "repeats"}:
            raise InputError(f"{json_path} holds a bench of other methods or another model; drop --resume")
        raw["raw"] = saved.get("raw", {})
        raw["cases"] = saved.get("cases", {})  # summaries of cases finished by earlier calls (--filter)

    def save() -> None:
        if json_path is not None:
            files.write_atomic(json_path, json.dumps(raw, indent=1).encode())

    counter, hook = [0], None
    if engine.backend == "torch" and any(m.runner == "generate" for m in methods):
        counter, hook = _count_forwards(engine.model.model)
    results = {}
    try:
        for target in items:
            record = raw["raw"].setdefault(target.name, {})
            results[target.name] = raw["cases"][target.name] = bench_target(
                engines, target, methods, repeats, counter, record, save, log)
            save()
    finally:
        if hook is not None:
            hook.remove()
    config_file = engine.path / "config.json"
    model_config = json.loads(config_file.read_text()) if config_file.is_file() else {}
    raw.update(config=config, model_config=model_config)  # model_config: for applyedit.replay
    save()
    agreement = {m.name: sum(c["methods"][m.name]["same_output"] for c in results.values() if m.name in c["methods"])
                 for m in methods}
    return {**config, "cases": results, "outputs_agree": all(c["outputs_agree"] for c in results.values()),
            "same_output_cases": agreement, "strict": strict(engine) and not others}


def strict(engine: api.Engine) -> bool:
    """Whether every method must write the same tokens: on the reference path (torch, fp32) a
    difference is a bug; on other dtypes and backends near-ties may flip, and agreement is reported
    (so too when a bench mixes backends)."""
    return engine.backend == "torch" and engine.dtype_name == "float32"
