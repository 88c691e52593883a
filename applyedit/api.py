"""The Python API: `apply(file, edit)` returns the new text, the diff and the run's statistics.

Owns one run end to end, in the steps `apply` names: read and normalise the inputs (`read_inputs`; a
marker-less edit that is a piece of the file reads as an update snippet, re-indented to the file's
style); answer an update snippet with its confirmed merge (merge/confirm.py) without any model when it
passes the checks (`answer_by_merge`), or refuse it when its merge is not confirmed (`--answer merge`,
the default); else build the prompt and check it fits the context before any weights load (`prepare`);
build the K policy and the drafter (`plan_drafting`); decode (`decode_job`; an unambiguous merge of an
update snippet anchors the lines it keeps, confirmed merges only: speculative/anchor.py); extract the output
and run the checks (`checked`; the checks are checks.py's, a refused output may be answered by the
merge); restore the file's text style, diff and report (`finish`). The last steps are outcome.py's;
`Inputs`, `Job` and `ApplyResult` are result.py's (the names stay importable from here). The settings
come as one `RunOptions` (options.py); the loaded model is the `Engine`'s (models/engine.py). Writes no
files and prints nothing: the CLI does both.
"""

from __future__ import annotations

import dataclasses
import logging
import os.path
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from applyedit import decision, formats, interrupt, invariants, markers, merge, outline, prompts, textio
from applyedit.blockread import block_reader, take_reading
from applyedit.decoded import DecodeResult, Step
from applyedit.diff import diff_path
from applyedit.errors import AmbiguousEditError, InputError, ModelError, PromptTooLongError
from applyedit.merge import confirm, reindent
from applyedit.models import modelstore
from applyedit.models.base import WholeRequests
from applyedit.models.engine import Engine
from applyedit.models.tokens import chat_ids
from applyedit.options import RunOptions
from applyedit.outcome import answer_by_format, answer_by_merge, checked, finish
from applyedit.report import spans
from applyedit.result import ApplyResult, Inputs, Job
from applyedit.speculative import anchor as anchoring
from applyedit.speculative import registry, sampling, tiebreak
from applyedit.speculative.loop import run
from applyedit.speculative.policy import FixedK, KPolicy
from applyedit.speculative.proposers import Proposer
from applyedit.speculative.runwatch import FenceStop, follow_lines, watch

logger = logging.getLogger(__name__)


def output_budget(source_tokens: int, edit_tokens: int) -> int:
    """Room for the rewritten file: the original, what the edit may add, and some slack."""
    return int(source_tokens * 1.2) + 2 * edit_tokens + 128


def read_inputs(
    file: str | Path,
    edit: str,
    *,
    language: str | None = None,
    encoding: str = "utf-8",
    cwd: Path | None = None,
    source: bytes | None = None,
    edit_format: str = "auto",
) -> Inputs:
    """Read the file, unwrap the edit and say what kind it is (no model needed).

    A relative `file` is relative to `cwd` when one is given (the diff's paths are), else to the
    process's working directory. `source`: the file's bytes when they come from elsewhere (stdin);
    `file` then only names it (language, prompt, diff). `edit_format` (`--edit-format`): "auto" tells
    a unified diff, SEARCH/REPLACE blocks, apply_patch or str_replace JSON by its shape (formats/)
    before the snippet or instruction choice; such an edit's kind is its format's name.
    """
    path = Path(file)
    if cwd is not None and not path.is_absolute():
        path = Path(cwd) / path
    src = (
        textio.read_source(path, language, encoding)
        if source is None
        else textio.source_from(path, source, language, encoding)
    )
    edit_text = textio.extract_edit(edit, src.language)
    # --- the edit formats (formats/): told before the snippet or instruction choice, applied with no model
    normalised = textio.normalise(edit)[0]
    if (written_in := formats.chosen(normalised, edit_format)) is not None:
        return Inputs(src=src, shown=diff_path(path, cwd), edit=normalised, kind=written_in, implied=False)
    kind, wrapped = _kind_of(src, edit_text, edit_format)
    if wrapped is not None:  # a marker-less piece of the file: an update snippet
        edit_text, kind = wrapped, "snippet"
    if kind == "snippet":  # written in the file's indentation (tabs or spaces, its width)
        edit_text = reindent.to_file_style(src.text, edit_text)
    if foreign := markers.foreign_markers(edit_text, src.language):
        raise InputError(
            f"the edit's lazy markers are {' and '.join(foreign)} comments, which {src.language} does not use: "
            f"is the snippet meant for another file? (--language names the file's language if {path.name} is not "
            f"{src.language})"
        )
    fragment = (
        kind == "instruction"
        and wrapped is None
        and (_mostly_lines_of(edit_text, src.text) or _reads_as_code(edit_text, src.language))
    )
    return Inputs(
        src=src, shown=diff_path(path, cwd), edit=edit_text, kind=kind, implied=wrapped is not None, fragment=fragment
    )


def _kind_of(src: textio.SourceFile, edit: str, edit_format: str) -> tuple[str, str | None]:
    """An edit's kind ("snippet" or "instruction"), and for a marker-less edit read as a snippet its text:
    whole definitions the structure reads (confirm.by_definitions), else a piece of the file between
    implied markers (merge.implied_snippet). `--edit-format` forces either kind."""
    kind = "instruction" if edit_format == "instruction" else prompts.edit_kind(edit)
    wrapped = (
        (
            confirm.by_definitions(src.text, edit, src.language, str(src.path))
            or merge.implied_snippet(src.text, edit, src.language)
        )
        if kind == "instruction" and edit_format != "instruction"
        else None
    )
    if edit_format == "snippet" and kind == "instruction" and wrapped is None:
        raise InputError("--edit-format snippet: the edit has no lazy marker and is no piece of the file")
    return kind, wrapped


def _mostly_lines_of(edit: str, original: str) -> bool:
    """Whether at least half of the edit's lines of code stand in the original (whitespace aside): a
    piece of the file, not words about it."""
    keys = {invariants.key(x) for x in original.split("\n")}
    lines = [invariants.key(x) for x in edit.split("\n") if x.strip()]
    return len(lines) >= 2 and 2 * sum(x in keys for x in lines) >= len(lines)


_CODE_LANGUAGES = frozenset({"python", "javascript", "typescript", "go", "rust", "java", "c", "cpp", "csharp"})


def _reads_as_code(edit: str, language: str) -> bool:
    """Whether a marker-less edit is code, not words: it parses as the file's language (dedented), and a
    line holds code punctuation (`=`, `;`, brackets). Prose instructions do not parse in these languages
    (shell and markup grammars read words as code: they are left out)."""
    from applyedit import syntax

    if language not in _CODE_LANGUAGES:
        return False
    text = textwrap.dedent(edit.strip("\n")) + "\n"
    if not any(ch in text for ch in "=;{}()[]"):
        return False
    return syntax.parse_errors(text, language) == []


def prepare(
    file: str | Path,
    edit: str,
    engine: Engine | Callable[[], Engine],
    *,
    max_new_tokens: int | None = None,
    language: str | None = None,
    encoding: str = "utf-8",
    cwd: Path | None = None,
    source: bytes | None = None,
    inputs: Inputs | None = None,
) -> Job:
    """Read the inputs (`read_inputs`, unless they come as `inputs`), build the prompt and check it
    fits the context (no weights needed).

    `engine` may be a function that opens one: bad input then fails before any model is prepared.
    """
    got = inputs or read_inputs(file, edit, language=language, encoding=encoding, cwd=cwd, source=source)
    src, edit_text = got.src, got.edit
    engine = engine if isinstance(engine, Engine) else engine()
    fence = textio.fence_for(src.text, edit_text)
    prompt = prompts.build(got.shown, src.language, src.text, edit_text, fence, got.kind)
    prompt_ids = chat_ids(engine.tokenizer, prompt.system, prompt.user, prompt.assistant_prefix)
    budget = max_new_tokens or output_budget(len(engine.encode(src.text)), len(engine.encode(edit_text)))
    if len(prompt_ids) + budget > engine.context:
        raise PromptTooLongError(
            f"{src.path}: the prompt ({len(prompt_ids):,} tokens) plus room for the output ({budget:,}) "
            f"exceeds the model's context of {engine.context:,} tokens"
        )
    return Job(
        engine=engine,
        src=src,
        shown=got.shown,
        edit=edit_text,
        kind=prompt.kind,
        fence=fence,
        prompt_ids=prompt_ids,
        budget=budget,
        implied=got.implied,
    )


def apply(
    file: str | Path,
    edit: str,
    *,
    options: RunOptions | None = None,
    engine: Engine | None = None,
    language: str | None = None,
    encoding: str = "utf-8",
    cwd: Path | None = None,
    source: bytes | None = None,
    on_step: Callable[[Step, int], None] | None = None,
    progress: modelstore.Progress | None = None,
    on_phase: Callable[[str, int, int], None] | None = None,
    stop: Callable[[], None] | None = None,
    prediction: str | None = None,
    deadline: float | None = None,
    **settings: Any,
) -> ApplyResult:
    """Apply `edit` (an instruction or an update snippet) to `file` with the local model; an edit written
    as a unified diff, SEARCH/REPLACE blocks, apply_patch or str_replace JSON is applied exactly with no
    model (formats/; `edit_format` overrides the detection).

    `options` (a RunOptions) decides the run; keyword `settings` named like its fields (`k=8`,
    `proposer="none"`, ...) replace those of `options` (an unknown name is a TypeError). `engine`: a
    warm one (its model options are then ignored). `source`: the file's bytes when they do not come
    from `file` (stdin), which then only names it. A relative `file` is relative to `cwd` when given.

    What each setting does: `RunOptions`.

    `on_phase(name, done, total)` follows the run for progress displays: "loading" (the weights, when
    this call loads them), "prefill" (prompt tokens computed of all), then "decoding" after each
    pass (the output line reached of the original's line count). A refused output (OutputCheckError)
    carries the rejected file, in the original's text style, as `rejected` (None when empty).

    The timeout counts from the call (or stops at `deadline`, a `time.monotonic()` set before it: a
    server's request, whose timeout counts from its arrival; the messages name the timeout's seconds):
    the merge's readings and the checks stop at it too (interrupt.py), and `stop()`, called between
    their steps, stops the run when it raises (a server's client gone). `prediction`: the caller's
    prediction of the new file, one more copy source (the server's `prediction`; drafts are verified,
    so it never changes the output).
    """
    opts = (options or RunOptions()).replace(**settings)  # checked as it is made (options.py)
    if deadline is None and opts.timeout is not None:
        deadline = time.monotonic() + opts.timeout
    with interrupt.stopping(deadline, opts.timeout, stop):
        return _apply(
            file, edit, opts, deadline, engine, language, encoding, cwd, source, on_step, progress, on_phase, prediction
        )


def _apply(
    file: str | Path,
    edit: str,
    opts: RunOptions,
    deadline: float | None,
    engine: Engine | None,
    language: str | None,
    encoding: str,
    cwd: Path | None,
    source: bytes | None,
    on_step: Callable[[Step, int], None] | None,
    progress: modelstore.Progress | None,
    on_phase: Callable[[str, int, int], None] | None,
    prediction: str | None = None,
) -> ApplyResult:
    """`apply`'s steps, under its stop rule."""
    decoding = sampling.settings(opts.temperature, opts.top_p, opts.seed)
    opened = engine or (lambda: Engine.open(opts.model, opts.device, opts.dtype, progress, opts.backend))
    got = read_inputs(
        file, edit, language=language, encoding=encoding, cwd=cwd, source=source, edit_format=opts.edit_format
    )
    if got.kind in formats.NAMES:  # a diff, SEARCH/REPLACE blocks, apply_patch or str_replace: no model
        return answer_by_format(got, opts, encoding, block_reader(got, opts))
    # The snippet read against the original (merge/confirm.py): a certain reading, or the candidates.
    src = got.src
    merged = (
        confirm.confirmed(src.text, got.edit, src.language, str(src.path), with_readings=True)
        if got.kind == "snippet"
        else None
    )
    if opts.reading is not None:
        merged = take_reading(got, merged, opts.reading)
    # What the run does with the edit, decided in one place (decision.py).
    where = outline.namesakes(src.text, got.edit, src.language, str(src.path)) if got.fragment else ""
    course = decision.decide(merged, opts, got.fragment, tiebreak.MARGIN is not None, f" ({where})" if where else "")
    chosen, since = "", None
    if isinstance(course, decision.Choose):  # the model scores the readings, then the course is decided again
        since = time.perf_counter()
        try:
            job = prepare(file, edit, opened, max_new_tokens=opts.max_new_tokens, inputs=got)
            merged, chosen = choose_reading(job, course.result)
        except (ModelError, PromptTooLongError) as e:  # no model to ask: the readings stay a question
            why = f"{course.result.reason}; the model's tie-break could not run ({e})"
            merged = dataclasses.replace(course.result, reason=why)
        course = decision.decide(merged, opts, got.fragment)
    if isinstance(course, decision.Merge):
        merge_only = answer_by_merge(got, course.result, opts, encoding, chosen, since)
        if not isinstance(merge_only, str):
            return merge_only
        course = decision.unanswered(course.result, opts, merge_only)
    if isinstance(course, decision.Refuse):
        raise refusal(course.why, course.result)
    job = prepare(file, edit, opened, max_new_tokens=opts.max_new_tokens, inputs=got)
    cold = not job.engine.loaded  # this run loads the weights: its report can show the startup
    if on_phase is not None and cold:
        on_phase("loading", 0, 0)  # the cost curve below may load them already
    drafting = plan_drafting(job, merged, opts, decoding, progress, prediction)
    result = decode_job(job, drafting, merged, opts, decoding, deadline, on_step, on_phase, cold)
    answer = checked(job, result, merged, opts)
    return finish(job, encoding, result, answer, drafting.name, decoding, cold)


def refusal(message: str, merged: merge.MergeResult | None) -> AmbiguousEditError:
    """The refusal of a snippet, carrying its readings as data: how many (`--reading N` takes one) and the
    places where they differ (the first line of each reading there)."""
    error = AmbiguousEditError(message)
    if merged is not None:
        error.readings = len(merged.readings)
        error.places = tuple(
            {"line": p.start + 1, "end": max(p.start + 1, p.end), "readings": list(p.firsts)} for p in merged.places
        )
    return error


# The tie-break reads the file where the readings differ, as an engineer reads a screen or two of it: its
# prompt holds the file from `LEAD_LINES` above the readings' first difference to `TAIL_LINES` below their
# last (`window`), and the model reads the readings over the same lines. So it costs the snippet, that
# window and the spans where the readings differ, not a prefill of the whole file (on a 1,009-line file
# the prompt's prefill was 125 s of a 157 s tie-break). A short window costs the model its judgement: of
# 16 development ties the model picked right with the whole file, a window of 40 lines above and 20 below
# kept 9 picks, 80 and 40 kept 14, none wrong (docs/eval/tiebreak/README.md, 2026-12-07).
LEAD_LINES = 80
TAIL_LINES = 40


def _shared_lines(texts: Sequence[Sequence[str]]) -> int:
    """How many leading lines all the split texts share."""
    n = 0
    while all(n < len(t) for t in texts) and all(t[n] == texts[0][n] for t in texts[1:]):
        n += 1
    return n


def window(original: str, readings: Sequence[str]) -> tuple[int, int]:
    """The lines the tie-break leaves out of the file and of every reading, at the start and at the end:
    all but `LEAD_LINES` of the lines the readings share above their first difference, and all but
    `TAIL_LINES` of those below their last, only lines the original shares with every reading there."""
    split = [t.splitlines(keepends=True) for t in readings]
    lines = original.splitlines(keepends=True)
    top = min(max(0, _shared_lines(split) - LEAD_LINES), _shared_lines([lines, *split]))
    backward = [t[::-1] for t in split]
    bottom = min(max(0, _shared_lines(backward) - TAIL_LINES), _shared_lines([lines[::-1], *backward]))
    return top, min(bottom, len(lines) - top)


def windowed(text: str, top: int, bottom: int) -> str:
    """The text without its first `top` lines and its last `bottom`."""
    lines = text.splitlines(keepends=True)
    return "".join(lines[top : len(lines) - bottom])


def tiebreak_inputs(job: Job, readings: Sequence[str]) -> tuple[list[int], list[list[int]], list[int], tuple[int, int]]:
    """What the tie-break scores: its prompt (the product's, its file cut to the `window`), the readings
    cut to the same lines, each with the closing fence after it (`fenced`, with how many tokens of each
    are its text), and the lines left out above and below."""
    top, bottom = window(job.src.text, readings)
    prompt_ids = list(job.prompt_ids)
    if top or bottom:
        source = windowed(job.src.text, top, bottom)
        prompt = prompts.build(job.shown, job.src.language, source, job.edit, job.fence, job.kind)
        prompt_ids = chat_ids(job.engine.tokenizer, prompt.system, prompt.user, prompt.assistant_prefix)
    ids, texts = fenced(job.engine.encode, [windowed(r, top, bottom) for r in readings], job.fence)
    return prompt_ids, ids, texts, (top, bottom)


def fenced(encode: Callable[[str], list[int]], texts: Sequence[str], fence: str) -> tuple[list[list[int]], list[int]]:
    """Each text with the closing fence after it, tokenized, and how many of those tokens are the text's
    (the tokens it shares with the text alone): the tie-break scores a deletion at the file's end too."""
    ids = [encode(t + fence) for t in texts]
    alone = [encode(t) for t in texts]
    return ids, [
        next((i for i, (a, b) in enumerate(zip(x, y, strict=False)) if a != b), min(len(x), len(y)))
        for x, y in zip(ids, alone, strict=True)
    ]


def said(readings: Sequence[str], n: int) -> bool:
    """Whether reading `n` has text of its own past the text every reading starts with, line breaks
    aside: one that ends the file where the others go on has none (hand-written py-006: picked by 10
    nats, the rest of the file deleted; its one token of its own was a tokenization of shared text).
    Such a reading is taken only where the reader weighs it as close as the others (`MergeResult.near`:
    py-006's deleted 316 lines, 356 cost units over the cheapest; hand-written ts-003, a few lines at the
    file's end that the snippet shows deleted, is within the margin)."""
    return bool(readings[n][len(os.path.commonprefix(list(readings))) :].strip())


def choose_reading(job: Job, merged: merge.MergeResult) -> tuple[merge.MergeResult, str]:
    """The model's choice between the readings two readers gave (`merged.readings`, each meeting every
    invariant): the one whose log-likelihood after the prompt beats the other's by `tiebreak.MARGIN` nats
    over the span where they differ (speculative/tiebreak.py), as the confirmed merge, with a note saying so;
    else `merged` with its reason saying how close they were. Runs only where `tiebreak.MARGIN` is set.
    Stops with the run's stop rule (interrupt.py): after loading the weights (where this run loads them)
    and between the scoring's forward passes."""
    readings, margin = merged.readings, tiebreak.MARGIN
    assert margin is not None
    prompt_ids, ids, texts, _ = tiebreak_inputs(job, readings)
    cold = not job.engine.loaded
    model = job.engine.model  # a cold run loads the weights here
    if cold:
        with interrupt.doing(f"loading the model to score {len(readings)} readings of the edit"):
            interrupt.check()
    scored = tiebreak.score(model, prompt_ids, ids, texts=texts, margin=margin, budget=len(prompt_ids))
    near = range(merged.near)  # a deletion at the file's end only where the reader weighs it as close
    best = tiebreak.pick(scored, margin, greedy=True, bare=near)
    if best is not None and not said(readings, best) and best not in near:
        best = None  # its own text where they differ is blank: a deletion at the file's end, "written" by any model
    ranked = sorted(scored, key=lambda s: s.logprob, reverse=True)
    gap = ranked[0].logprob - ranked[1].logprob
    if best is None:
        why = (
            f"{merged.reason}, and the model prefers neither by {margin:g} nats (reading "
            f"{ranked[0].index + 1} by {gap:.1f})"
        )
        return dataclasses.replace(merged, reason=why), ""
    note = (
        f"{merged.reason}: reading {best + 1} taken, the model prefers it by {gap:.1f} nats and writes it "
        "itself (greedy decoding) where the readings differ"
    )
    return merge.taken(job.src.text, merged, readings[best]), note


@dataclass(frozen=True)
class Drafting:
    """The K policy, the drafter and the proposer's name as the summary gives it."""

    policy: KPolicy
    drafter: Proposer
    name: str


def plan_drafting(
    job: Job,
    merged: merge.MergeResult | None,
    opts: RunOptions,
    decoding: sampling.Sampling,
    progress: modelstore.Progress | None = None,
    prediction: str | None = None,
) -> Drafting:
    """Build the K policy and the drafter the options name (speculative/registry.py; the draft model loads here),
    with the caller's `prediction` as one more copy source. A Proposer object (Python API, `bench`'s
    break-it mode) drafts instead of a named one."""
    entry = registry.PROPOSERS[opts.proposer] if isinstance(opts.proposer, str) else None
    if entry is not None and not entry.drafts:
        policy: KPolicy = FixedK(0)
    else:
        policy = registry.K_POLICIES[opts.k_policy](job.engine, opts)
    plan = registry.DraftPlan(job, merged, opts, policy, decoding, progress, prediction)
    drafter = entry.build(plan) if entry else opts.proposer
    proposer_name = opts.proposer_name
    if entry is not None and entry.draft_model:
        proposer_name += f" ({modelstore.resolve_draft(opts.draft_model).name})"
    return Drafting(policy, drafter, proposer_name)


def decode_job(
    job: Job,
    drafting: Drafting,
    merged: merge.MergeResult | None,
    opts: RunOptions,
    decoding: sampling.Sampling,
    deadline: float | None,
    on_step: Callable[[Step, int], None] | None,
    on_phase: Callable[[str, int, int], None] | None,
    cold: bool = False,
) -> DecodeResult:
    """Run the decode loop on the job's prompt (the target's weights load here on first use; `cold`:
    this run loads them, here or in its drafting's plan, so a deadline passed before decoding may be
    theirs)."""
    engine, src = job.engine, job.src
    target = engine.model  # loads the weights on first use
    if isinstance(target, WholeRequests):  # vLLM: it drafts and batches itself (models/vllmengine.py)
        if not decoding.greedy:
            raise InputError("--temperature: the vllm backend decodes greedily; drop it")
        return target.decode_request(job.prompt_ids, job.budget, FenceStop(engine.decode, job.fence), deadline)
    constraint = anchor_constraint(engine, src.text, merged, job.fence) if opts.anchor == "merge" else None
    if on_phase is not None:
        lines = len(src.text.splitlines())
        on_step = follow_lines(engine.decode, lines, on_step, on_phase)

        def prefilled(done: int, total: int) -> None:
            on_phase("prefill", done, total)
            if done >= total:  # the first verify pass writes line 1
                on_phase("decoding", 1, lines)

        target.on_prefill = prefilled
    try:
        return run(
            target,
            job.prompt_ids,
            drafting.drafter,
            drafting.policy,
            job.budget,
            stop=FenceStop(engine.decode, job.fence),
            on_step=watch(deadline, opts.timeout, on_step, cold),
            sampling=decoding,
            constraint=constraint,
        )
    finally:
        if on_phase is not None:
            target.on_prefill = None


def anchor_constraint(
    engine: Engine, original: str, merged: merge.MergeResult | None, fence: str
) -> anchoring.Anchor | None:
    """The decode constraint forcing what an unambiguous merge keeps of the original; None when the
    edit is no update snippet, its merge is ambiguous, or no stretch is long enough to anchor."""
    found = anchoring.stretches(original, merged, fence) if merged is not None else []
    if not found:
        return None
    return anchoring.Anchor(lambda t: spans.token_bytes(engine.tokenizer, [t])[0], engine.encode, found)
