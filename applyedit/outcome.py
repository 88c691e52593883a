"""The end of a run (api.py's last steps): the model's output extracted and checked (`checked`), or
an unambiguous merge as the whole answer without the model (`answer_by_merge`); then the new file in
the original's text style, its diff, the summary and the region report as one `ApplyResult`
(`finish`, `region_report`).

Owns `ApplyResult`, what the refusal of an output carries for the eval (the model's output, the
rejected file), and the report's `answer` and `prompt_cache` entries. The checks themselves are
checks.py's, the report's shape report.py's. Writes no files and prints nothing.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from applyedit import checks, merge, report, sampling, spans, textio
from applyedit.decode import DecodeResult
from applyedit.diff import unified_diff
from applyedit.errors import ApplyEditError, DecodeError, OutputCheckError
from applyedit.options import RunOptions
from applyedit.promptcache import reuse_report
from applyedit.regions import find_regions
from applyedit.stats import Summary, anchored_lines, attribute, process_age_s, profile, summarise

if TYPE_CHECKING:
    from applyedit.api import Inputs, Job
    from applyedit.models.engine import Engine


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
    answer: str = "model"  # "model", or "merge": no model ran (answer_by_merge) or the model's output was refused

    @property
    def changed(self) -> bool:
        return self.before != self.after


IMPLIED_NOTE = (
    "the edit has no lazy marker but is a piece of the file (its first and last lines are the file's): "
    "read as an update snippet that keeps the code before and after it"
)


def answer_by_merge(
    got: Inputs, merged: merge.MergeResult | None, opts: RunOptions, encoding: str
) -> ApplyResult | None:
    """The unambiguous merge of an update snippet as the whole answer, without the model: when it
    changes the file, parses wherever the original did and passes every output check. None otherwise
    (the model runs, anchored by the merge when it is unambiguous)."""
    t0 = time.perf_counter()
    body = checks.merge_answer(got.src, merged)
    if body is None or body == got.src.text:  # a merge that changes nothing is no confident answer
        return None
    try:
        notes = checks.check_all(got.src, body, got.edit, got.kind, merged, opts)
    except ApplyEditError:
        return None
    src = got.src
    result = DecodeResult(
        tokens=[], steps=[], stop_reason="merge", prompt_tokens=0, prefill_s=0.0, decode_s=time.perf_counter() - t0
    )
    summary = summarise(
        result, model="", device="", dtype="", proposer="none", backend="none", backend_reason="the merge answered"
    )
    found = find_regions(src.text, body, src.language, src.path)
    per_region, end, totals = attribute(found, [], [], 0)
    data = report.report_data(found, per_region, end, totals, summary, profile(result))
    data["anchored_lines"] = []
    all_notes = [*([IMPLIED_NOTE] if got.implied else []), *(merged.notes if merged else ()), *notes]
    data["answer"] = {"by": "merge", "model_ran": False, "notes": all_notes}
    data["prompt_cache"] = reuse_report(0, 0)
    return _result(src, got.shown, got.kind, body, encoding, "", result, summary, data, all_notes, "merge")


@dataclass(frozen=True)
class Answer:
    """The output that passed the checks (or the merge that replaced a refused one)."""

    output: str  # the model's raw output text
    body: str  # the new file's text (normalised)
    model_body: str | None  # the model's file, when one was extracted (the report's regions)
    by: str  # "model" | "merge"
    notes: list[str]


def checked(job: Job, result: DecodeResult, merged: merge.MergeResult | None, opts: RunOptions) -> Answer:
    """Extract the model's file and run the output checks; a refusal raises, unless the merge answers."""
    src, output = job.src, job.engine.decode(result.tokens)
    model_body: str | None = None
    try:
        if result.stop_reason == "budget":
            raise DecodeError(
                f"the output reached its budget of {job.budget:,} tokens before the file ended (truncated); "
                "nothing was written. Raise it with --max-new-tokens"
            )
        model_body = textio.extract_body(output, job.fence, ended=result.stop_reason == "eos", original=src.text)
        notes = checks.check_all(src, model_body, job.edit, job.kind, merged, opts)
    except ApplyEditError as e:
        e.output, e.decode = output, result  # what the model wrote, for eval
        e.rejected = textio.restore(model_body, src.style, src.text) if model_body else None
        refused = isinstance(e, (OutputCheckError, DecodeError))
        fallen = checks.merge_answer(src, merged) if opts.fallback == "merge" and refused else None
        if fallen is None:
            raise
        why = str(e).split("; nothing was written")[0]
        return Answer(
            output,
            fallen,
            model_body,
            "merge",
            [f"answered with the snippet's merge: the model's output was refused ({why})"],
        )
    return Answer(output, model_body, model_body, "model", notes)


def finish(
    job: Job,
    encoding: str,
    result: DecodeResult,
    answer: Answer,
    proposer_name: str,
    decoding: sampling.Sampling,
    cold: bool,
) -> ApplyResult:
    """The new file in the original's text style, its diff, the summary and the report."""
    engine, src = job.engine, job.src
    summary = summarise(
        result,
        model=engine.source.name,
        device=engine.device,
        dtype=engine.dtype_name,
        proposer=proposer_name,
        backend=engine.backend,
        backend_reason=engine.backend_reason,
        sampling=decoding,
    )
    data = region_report(
        engine, src, answer.model_body if answer.model_body is not None else answer.body, result, summary, cold
    )
    notes = [IMPLIED_NOTE, *answer.notes] if job.implied else answer.notes
    data["answer"] = {"by": answer.by, "model_ran": True, "notes": notes}
    data["prompt_cache"] = reuse_report(result.prompt_tokens, result.prefilled)  # prompt tokens reused
    return _result(
        src, job.shown, job.kind, answer.body, encoding, answer.output, result, summary, data, notes, answer.by
    )


def _result(
    src: textio.SourceFile,
    shown: str,
    kind: str,
    body: str,
    encoding: str,
    output: str,
    result: DecodeResult,
    summary: Summary,
    data: dict[str, Any],
    notes: list[str],
    by: str,
) -> ApplyResult:
    """The new file (`body`) in the original's text style, its diff, and the run's record as an `ApplyResult`."""
    after = textio.restore(body, src.style, src.text)
    before = src.raw.decode(encoding)
    return ApplyResult(
        shown,
        before,
        after,
        unified_diff(before, after, shown),
        kind,
        output,
        result,
        summary,
        data,
        tuple(notes),
        hashlib.sha256(src.raw).hexdigest(),
        by,
    )


def region_report(
    engine: Engine, src: textio.SourceFile, body: str, result: DecodeResult, summary: Summary, cold: bool = False
) -> dict[str, Any]:
    """Regions of the new file (unchanged / edited / deleted, by definition) with their statistics."""
    found = find_regions(src.text, body, src.language, src.path)
    lines = spans.token_lines(engine.tokenizer, result.tokens)
    num_body = spans.tokens_before_line(lines, body.count("\n"))
    per_region, end, totals = attribute(found, result.steps, lines, num_body)
    startup = process_age_s(result.started_at) if cold else None  # a warm engine (eval, bench): none
    data = report.report_data(found, per_region, end, totals, summary, profile(result), startup)
    data["anchored_lines"] = anchored_lines(
        result.steps, spans.token_bytes(engine.tokenizer, result.tokens), body.count("\n")
    )
    return data
