"""The bench's records as data: what `applyedit bench` saves (`--json`), summarises and shows.

Owns the typed records — `Method` (one way to produce the output), `Run` (one repeat of one method),
`CaseRecord` (a case's raw runs), `MethodSummary` and `CaseSummary` (medians, spread, ratios to plain
greedy, agreement) and `BenchRecord` (the whole `--json` file) — their JSON form (`to_json`, written
with `asdict`; `from_json` reads records saved by older versions too, whose fields were fewer;
`resumed` and `save` read and write the file), and the summaries computed from saved runs
(`summarise_target`, `summarise_saved`). Knows nothing of models or timing (bench.py measures) or
of rendering (tables.py, chart.py).
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from applyedit import files, textio
from applyedit.errors import InputError
from applyedit.models.costmodel import CostCurve
from applyedit.options import RunOptions
from applyedit.speculative.proposers import common_prefix

__all__ = [
    "BenchRecord",
    "CaseRecord",
    "CaseSummary",
    "Method",
    "MethodSummary",
    "Pattern",
    "Run",
    "fence_of",
    "method_named",
    "summarise_saved",
    "summarise_target",
]


RUN = RunOptions()  # a run's defaults (options.py): a method's unless it says otherwise


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """The items of `data` that are fields of the dataclass `cls` (a record may hold keys of an older or
    newer version)."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass(frozen=True, slots=True)
class Method:
    """One way to produce the output. `runner` is "generate" (transformers) or "loop" (applyedit's)."""

    name: str
    runner: str
    lookup: int = 0  # prompt_lookup_num_tokens for generate; 0 is plain greedy
    proposer: str = RUN.proposer
    k_policy: str = RUN.k_policy
    k: int = RUN.k
    drafts_from: str = ""  # break-it mode: copy-draft from this unrelated file instead of the real sources
    backend: str = ""  # run on this backend's engine instead of the bench's ("": the bench's own)
    draft_model: str | None = None  # proposer "draft" / "hybrid": --draft-model (None: the packaged 0.5B)
    draft_backend: str | None = None  # ... and the backend that runs it (None: auto)
    draft_k: int | None = None  # the draft model's draft length (None: chosen per step by its costs)
    anchor: str = "none"  # "merge": force what the snippet's merge keeps (its output may differ from greedy's)


@dataclass
class Pattern:
    """A loop run's verify passes: tokens fed (forced + draft + 1) and tokens kept, pass by pass; lets
    `applyedit.tools.replay` time the same passes on another device with random weights."""

    blocks: list[int]
    emitted: list[int]


@dataclass
class Run:
    """One repeat of one method on one case."""

    tokens: list[int]
    wall_s: float  # end to end, prefill included
    ttft_s: float  # time to first token
    passes: int  # target forward passes
    repeat: int = 0
    text: str = ""  # the decoded output
    pattern: Pattern | None = None  # loop runs only
    profile: dict[str, Any] | None = None  # loop runs only: stats.Profile's parts and the startup
    drafted_by: dict[str, int] | None = None  # loop runs only: drafter -> drafted tokens

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Run:
        pattern = data.get("pattern")
        return cls(**{**_known(cls, data), "pattern": Pattern(**pattern) if pattern else None})


@dataclass
class CaseRecord:
    """A case's raw runs, as measured (resumed runs add to it)."""

    file: str = ""
    prompt_tokens: int = 0
    budget: int = 0
    threads: int = 0
    prefill_s: list[float] = field(default_factory=list)  # one prefill per bench call
    prefill_s_by_backend: dict[str, list[float]] | None = None  # benches on two backends
    cost_curves: dict[str, dict[str, float]] | None = None  # backend -> the calibrated curve (k -> seconds)
    runs: dict[str, list[Run]] = field(default_factory=dict)  # method name -> its repeats

    def to_json(self) -> dict[str, Any]:
        data = asdict(self) | {"runs": {m: [r.to_json() for r in rs] for m, rs in self.runs.items()}}
        return {k: v for k, v in data.items() if v is not None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseRecord:
        runs = {m: [Run.from_json(r) for r in rs] for m, rs in data.get("runs", {}).items()}
        return cls(**{**_known(cls, data), "runs": runs})


@dataclass
class MethodSummary:
    """One method on one case over its repeats: medians, the spread of end to end, ratios, agreement."""

    method: Method
    repeats: int
    num_tokens: int
    passes: float  # median
    wall_s: float  # median end to end
    wall_min_s: float
    wall_max_s: float
    decode_s: float
    ttft_s: float
    tokens_per_pass: float
    tokens_per_s: float
    drafting_s: float = 0.0  # the proposer's own time (a draft model's forwards, its prefill included)
    drafted_by: dict[str, int] = field(default_factory=dict)  # who drafted what (the first repeat)
    same_output: bool | None = None  # agrees with the reference (the first method's first run); None: not recorded
    tokens_before_divergence: int | None = None
    speedup_vs_greedy: float | None = None  # against plain greedy on the method's own backend (None: not run)
    decode_speedup_vs_greedy: float | None = None
    # The loop's bound: the perfect drafter (the output itself as the draft, up to the method's K cap)
    # priced on the calibrated cost curve, after the same prefill; efficiency = bound / actual.
    bound_wall_s: float | None = None
    bound_decode_s: float | None = None
    efficiency_wall: float | None = None
    efficiency_decode: float | None = None

    @property
    def is_greedy(self) -> bool:
        """Plain greedy itself (the row every ratio divides): its ratio is 1 by definition."""
        return self.method.runner == "generate" and not self.method.lookup

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MethodSummary:
        return cls(**{**_known(cls, data), "method": Method(**_known(Method, data["method"]))})


@dataclass
class CaseSummary:
    """One case of a bench: its prompt, its prefill and every method's summary."""

    prompt_tokens: int
    prefill_s: float  # median
    budget: int
    file: str
    outputs_agree: bool  # every non-anchored method wrote the reference's output
    methods: dict[str, MethodSummary]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseSummary:
        methods = {name: MethodSummary.from_json(row) for name, row in data["methods"].items()}
        return cls(**{**_known(cls, data), "methods": methods})


@dataclass
class BenchRecord:
    """The `--json` file: the configuration, the raw runs per case, the finished cases' summaries, and
    the model's config.json (for `applyedit.tools.replay`)."""

    config: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, CaseRecord] = field(default_factory=dict)
    cases: dict[str, CaseSummary] = field(default_factory=dict)
    model_config: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "config": self.config,
            "raw": {n: r.to_json() for n, r in self.raw.items()},
            "cases": {n: asdict(c) for n, c in self.cases.items()},
        }
        return data if self.model_config is None else data | {"model_config": self.model_config}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BenchRecord:
        return cls(
            config=data.get("config", {}),
            raw={n: CaseRecord.from_json(r) for n, r in data.get("raw", {}).items()},
            cases={n: CaseSummary.from_json(c) for n, c in data.get("cases", {}).items()},
            model_config=data.get("model_config"),
        )

    @classmethod
    def resumed(cls, path: Path | None, config: dict[str, Any]) -> BenchRecord:
        """The runs and summaries an earlier bench with the same configuration (repeats aside) saved at
        `path`, under `config`; an empty record when there is none. Another configuration is refused."""
        if path is None or not path.is_file():
            return cls(config)
        saved = cls.from_json(json.loads(path.read_text()))
        if {k: v for k, v in saved.config.items() if k != "repeats"} != {
            k: v for k, v in config.items() if k != "repeats"
        }:
            raise InputError(f"{path} holds a bench of other methods or another model; drop --resume")
        return cls(config, saved.raw, saved.cases)

    def save(self, path: Path | None) -> None:
        """The record written to `path` (atomically; nowhere without one)."""
        if path is not None:
            files.write_atomic(path, json.dumps(self.to_json(), indent=1).encode(), follow=False)


def method_named(name: str) -> Method:
    """The method a saved bench record names (its `config.methods`), for summarising saved runs again;
    a name no option writes is kept as a loop method of that name."""
    if m := re.fullmatch(r"(adaptive|fixed) K[≤=](\d+)", name):
        return Method(name, "loop", k_policy=m[1], k=int(m[2]))
    if m := re.fullmatch(r"lookup K=(\d+)", name):
        return Method(name, "generate", lookup=int(m[1]))
    if m := re.fullmatch(r"(draft model only|hybrid)(?:, draft K=(\d+))?", name):
        return Method(
            name,
            "loop",
            proposer="draft" if m[1] == "draft model only" else "hybrid",
            draft_k=int(m[2]) if m[2] else None,
        )
    if m := re.fullmatch(r"adaptive on (torch|llamacpp)", name):
        return Method(name, "loop", backend=m[1])
    if name.startswith("break-it: drafts from "):
        return Method(name, "loop", drafts_from=name.removeprefix("break-it: drafts from "))
    fixed = {
        "greedy": Method("greedy", "generate"),
        "llama.cpp greedy": Method("llama.cpp greedy", "generate", backend="llamacpp"),
        "loop, no drafts": Method("loop, no drafts", "loop", proposer="none", k_policy="fixed", k=0),
        "adaptive, no merged prediction": Method("adaptive, no merged prediction", "loop", proposer="copy-original"),
    }
    return fixed.get(name, Method(name, "loop"))


def fence_of(text: str) -> str:
    """The closing fence in a saved run's output text (its last line of backticks only), else ```."""
    found = re.findall(r"(?m)^(`{3,})[ \t]*$", text)
    return found[-1] if found else "```"


def summarise_saved(saved: BenchRecord) -> tuple[dict[str, CaseSummary], list[str]]:
    """The case summaries of a saved record (`--json`): those it holds, plus those of cases whose
    runs are all there (every method, every repeat) but whose summary was not saved (a bench run
    case by case, or interrupted after its last run); and the names of the cases still unfinished.
    A saved summary's bound and efficiency are priced again from its runs' record (`_bounds`)."""
    config, cases = saved.config, dict(saved.cases)
    methods = [method_named(name) for name in config.get("methods", [])]
    repeats = int(config.get("repeats") or 1)
    unfinished = []
    for name, record in saved.raw.items():
        if name in cases:
            _bounds(record, cases[name].methods.values(), config.get("backend", "torch"))
            continue
        runs = record.runs
        if methods and record.prompt_tokens and all(len(runs.get(m.name, [])) >= repeats for m in methods):
            first = runs[methods[0].name][0]
            cases[name] = summarise_target(record, methods, fence_of(first.text), config.get("backend", "torch"))
        else:
            unfinished.append(name)
    return cases, sorted(unfinished)


def _summary(method: Method, runs: Sequence[Run]) -> MethodSummary:
    """Medians and spread of one method's repeats (agreement and ratios come later)."""
    walls = [r.wall_s for r in runs]
    tokens, passes, wall = len(runs[0].tokens), statistics.median(r.passes for r in runs), statistics.median(walls)
    return MethodSummary(
        method=method,
        repeats=len(runs),
        num_tokens=tokens,
        passes=passes,
        wall_s=wall,
        wall_min_s=min(walls),
        wall_max_s=max(walls),
        decode_s=statistics.median(r.wall_s - r.ttft_s for r in runs),
        ttft_s=statistics.median(r.ttft_s for r in runs),
        tokens_per_pass=tokens / max(1, passes),
        tokens_per_s=tokens / wall,
        drafting_s=statistics.median((r.profile or {}).get("drafting_s", 0.0) for r in runs),
        drafted_by=dict(runs[0].drafted_by or {}),
    )


def summarise_target(record: CaseRecord, methods: Sequence[Method], fence: str, backend: str = "torch") -> CaseSummary:
    """Medians and spread per method, ratios to the plain greedy run of the method's own backend (when
    run) and whether every output agrees. `backend` is the bench engine's."""
    rows = {m.name: _summary(m, record.runs[m.name]) for m in methods if record.runs.get(m.name)}
    reference = next(iter(record.runs[m.name] for m in methods if m.name in rows))[0]
    ref_body = _body(reference.text, fence)
    for name, row in rows.items():  # agreement with the reference (the first method's first run)
        runs = record.runs[name]
        row.same_output = ref_body is not None and all(
            _body(r.text, fence) == ref_body and _prefix_agrees(reference.tokens, r.tokens) for r in runs
        )
        row.tokens_before_divergence = min(common_prefix(reference.tokens, r.tokens) for r in runs)
    agree = all(row.same_output for row in rows.values() if row.method.anchor == "none")
    greedy = {
        (m.backend or backend): rows[m.name]
        for m in methods
        if m.runner == "generate" and not m.lookup and m.name in rows
    }
    prefill_s = statistics.median(record.prefill_s)
    for row in rows.values():
        base = greedy.get(row.method.backend or backend)
        row.speedup_vs_greedy = base.wall_s / row.wall_s if base else None
        row.decode_speedup_vs_greedy = base.decode_s / row.decode_s if base and row.decode_s else None
    _bounds(record, rows.values(), backend)
    return CaseSummary(
        prompt_tokens=record.prompt_tokens,
        prefill_s=prefill_s,
        budget=record.budget,
        file=record.file,
        outputs_agree=agree,
        methods=rows,
    )


def _bounds(record: CaseRecord, rows: Iterable[MethodSummary], backend: str) -> None:
    """Fill each loop row's bound and efficiency from the case's recorded cost curve and prefill (a
    saved summary gets them again, so a record shows the bound as this version defines it)."""
    for row in rows:
        curve = (record.cost_curves or {}).get(row.method.backend or backend)
        if row.method.runner == "loop" and curve:
            prefill = statistics.median((record.prefill_s_by_backend or {}).get(row.method.backend, record.prefill_s))
            _bound(row, CostCurve({int(k): v for k, v in curve.items()}), prefill)


def _bound(row: MethodSummary, curve: CostCurve, prefill_s: float) -> None:
    """Fill the row's bound and efficiency: after the same prefill (which yields the first token), the
    perfect drafter's passes for the row's tokens, with the method's K cap. The decode phase's bound
    is all of those passes: the loop's first pass (its time to the first token) yields one or two
    tokens, so the bound's decode covers what the run's decode covered, give or take one token."""
    costs = curve.perfect(row.num_tokens, row.method.k)
    row.bound_wall_s, row.bound_decode_s = prefill_s + sum(costs), sum(costs)
    row.efficiency_wall = row.bound_wall_s / row.wall_s if row.wall_s else None
    row.efficiency_decode = row.bound_decode_s / row.decode_s if row.decode_s else None


def _prefix_agrees(a: Sequence[int], b: Sequence[int]) -> bool:
    """generate() runs on to EOS, the loop stops at the closing fence: the shorter is a prefix."""
    return common_prefix(a, b) == min(len(a), len(b))


def _body(text: str, fence: str) -> str | None:
    try:
        return textio.extract_body(text, fence)
    except Exception:
        return None
