"""The end of a run (api.py's last steps): the model's output extracted and checked (`checked`), or
an unambiguous merge as the whole answer without the model (`answer_by_merge`), or an edit written
in a diff or block format applied exactly (`answer_by_format`, formats/); then the new file in
the original's text style, its diff, the summary and the report as one `ApplyResult` (`finish`,
`region_report`).

Owns what the refusal of an output carries for the eval (the model's output, its decode, the
rejected file: errors.ApplyEditError's fields), and the report's `answer` and `prompt_cache`
entries. The result types are result.py's, the checks checks.py's, the report's shape the report package's.
Writes no files and prints nothing.
"""

from __future__ import annotations

import hashlib
import time
from typing import TYPE_CHECKING

from applyedit import checks, formats, merge, report, textio
from applyedit.decoded import DecodeResult
from applyedit.diff import unified_diff
from applyedit.errors import ApplyEditError, DecodeError, OutputCheckError
from applyedit.models.promptcache import reuse_report
from applyedit.options import RunOptions
from applyedit.report import spans
from applyedit.report.regions import find_regions
from applyedit.report.stats import (
    Summary,
    anchored_lines,
    attribute,
    merge_profile,
    merge_summary,
    process_age_s,
    profile,
    summarise,
)
from applyedit.result import Answer, ApplyResult, Inputs, Job
from applyedit.speculative import sampling

if TYPE_CHECKING:
    from applyedit.models.engine import Engine


IMPLIED_NOTE = (
    "the edit has no lazy marker but is a piece of the file (its first and last lines are the file's): "
    "read as an update snippet that keeps the code before and after it"
)


def answer_by_merge(
    got: Inputs,
    merged: merge.MergeResult | None,
    opts: RunOptions,
    encoding: str,
    chosen: str = "",
    since: float | None = None,
) -> ApplyResult | str:
    """The unambiguous merge of an update snippet as the whole answer, without the model: when it
    changes the file, parses wherever the original did and passes every output check. Otherwise why it
    does not answer alone (the model runs, anchored by the merge when it is unambiguous). `chosen`: the
    note of the model's choice between two readings (api.choose_reading), when the model chose this one;
    `since`: when that choice began (`time.perf_counter`), so that the summary's time counts the model's
    scoring."""
    t0 = time.perf_counter() if since is None else since
    body = checks.merge_answer(got.src, merged)
    if body is None or body == got.src.text:  # a merge that changes nothing is no confident answer
        return "its reading changes nothing in the file"
    try:
        notes = checks.check_all(got.src, body, got.edit, got.kind, merged, opts)
    except DecodeError:
        raise  # the run stopped (its timeout, its client gone): no refusal to turn into a model run
    except ApplyEditError as e:
        return f"its one reading fails a check ({str(e).replace('; nothing was written', '')})"
    taken = any("as --reading asked" in n for n in (merged.notes if merged else ()))
    how = (
        "chosen by the model's tie-break, every invariant holds"
        if chosen
        else "the reading --reading took, every invariant holds"
        if taken
        else "certain: one reading, every invariant holds"
    )
    summary = merge_summary(time.perf_counter() - t0, how)
    all_notes = [
        *([IMPLIED_NOTE] if got.implied else []),
        *([chosen] if chosen else []),
        *(merged.notes if merged else ()),
        *notes,
    ]
    return _no_model_result(got, body, summary, all_notes, encoding, model_ran=bool(chosen))


def _no_model_result(
    got: Inputs, body: str, summary: Summary, notes: list[str], encoding: str, model_ran: bool = False
) -> ApplyResult:
    """The result of an answer no model wrote (a merge's reading, an edit format's file): its regions, its
    report and the file in the original's text style."""
    src = got.src
    found = find_regions(src.text, body, src.language, src.path)
    per_region, end, totals = attribute(found, [], [], 0)
    regions = report.report_data(found, per_region, end, totals, summary, merge_profile(summary.decode_s))
    data = report.run_report(
        regions,
        anchored_lines=[],
        answer={"by": "merge", "model_ran": model_ran, "notes": notes},  # a format's name: the result's `kind`
        prompt_cache=reuse_report(0, 0),
    )
    return _result(
        src,
        shown=got.shown,
        kind=got.kind,
        body=body,
        encoding=encoding,
        output="",
        decode=None,
        summary=summary,
        data=data,
        notes=notes,
        by="merge",
    )


def answer_by_format(
    got: Inputs, opts: RunOptions, encoding: str, reader: formats.ladder.Reader | None = None
) -> ApplyResult:
    """An edit written in one of formats/'s formats (a unified diff, SEARCH/REPLACE blocks, apply_patch,
    str_replace; `got.kind` names it) applied exactly, with no model, as the whole answer, held to every
    output check: a refusal raises (exit 3, the file kept as `rejected`) and no model is asked instead.
    An edit that changes nothing answers with no diff. `reader`: the snippet reader of a block whose
    REPLACE holds lazy markers (blockread.block_reader)."""
    t0 = time.perf_counter()
    src = got.src
    made = formats.apply_edit(src.text, got.edit, got.kind, got.shown, reader)
    try:
        notes = checks.check_all(src, made.text, got.edit, got.kind, None, opts)
    except OutputCheckError as e:
        e.rejected = textio.restore(made.text, src.style, src.text) if made.text else None
        raise
    title = formats.TITLES[got.kind]
    counted = f"{made.changes} change{'s' if made.changes != 1 else ''}"
    # (no word "model" here: the brief report reads it as the model's tie-break)
    summary = merge_summary(time.perf_counter() - t0, f"a {title}, {counted} applied exactly, every check holds")
    return _no_model_result(got, made.text, summary, [*made.notes, *notes], encoding)


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
            output=output,
            body=fallen,
            model_body=model_body,
            by="merge",
            notes=[f"answered with the snippet's merge: the model's output was refused ({why})"],
        )
    return Answer(output=output, body=model_body, model_body=model_body, by="model", notes=notes)


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
    body = answer.model_body if answer.model_body is not None else answer.body
    regions, anchored = region_report(engine, src, body, result, summary, cold)
    notes = [IMPLIED_NOTE, *answer.notes] if job.implied else answer.notes
    data = report.run_report(
        regions,
        anchored_lines=anchored,
        answer={"by": answer.by, "model_ran": True, "notes": notes},
        prompt_cache=reuse_report(result.prompt_tokens, result.prefilled),  # prompt tokens reused
    )
    return _result(
        src,
        shown=job.shown,
        kind=job.kind,
        body=answer.body,
        encoding=encoding,
        output=answer.output,
        decode=result,
        summary=summary,
        data=data,
        notes=notes,
        by=answer.by,
    )


def _result(
    src: textio.SourceFile,
    *,
    shown: str,
    kind: str,
    body: str,
    encoding: str,
    output: str,
    decode: DecodeResult | None,
    summary: Summary,
    data: report.Report,
    notes: list[str],
    by: str,
) -> ApplyResult:
    """The new file (`body`) in the original's text style, its diff, and the run's record as an `ApplyResult`."""
    after = textio.restore(body, src.style, src.text)
    before = src.raw.decode(encoding)
    return ApplyResult(
        path=shown,
        before=before,
        after=after,
        diff=unified_diff(before, after, shown),
        kind=kind,
        output=output,
        decode=decode,
        summary=summary,
        report=data,
        notes=tuple(notes),
        source_sha256=hashlib.sha256(src.raw).hexdigest(),
        answer=by,
    )


def region_report(
    engine: Engine, src: textio.SourceFile, body: str, result: DecodeResult, summary: Summary, cold: bool = False
) -> tuple[report.RegionReport, list[tuple[int, int]]]:
    """Regions of the new file (unchanged / edited / deleted, by definition) with their statistics,
    and the output lines the anchor forced."""
    found = find_regions(src.text, body, src.language, src.path)
    lines = spans.token_lines(engine.tokenizer, result.tokens)
    num_body = spans.tokens_before_line(lines, body.count("\n"))
    per_region, end, totals = attribute(found, result.steps, lines, num_body)
    startup = process_age_s(result.started_at) if cold else None  # a warm engine (eval, bench): none
    data = report.report_data(found, per_region, end, totals, summary, profile(result), startup)
    anchored = anchored_lines(result.steps, spans.token_bytes(engine.tokenizer, result.tokens), body.count("\n"))
    return data, anchored
