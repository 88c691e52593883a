"""`applyedit bench FILE --edit E --reader`: what the careful reader costs on one snippet, in one run.

Owns three timings, medians over the repeats: the reading in process (merge/confirm.py's `confirmed`:
every reading enumerated, weighed and held to the invariants); a merge answer end to end, as a user runs
it (a fresh `applyedit FILE --edit E --answer merge` process on a copy of the file, imports included),
where the snippet answers alone; and, where it has 2 to 5 readings, the model's tie-break
(speculative/tiebreak.score, from an empty cache) against its baselines measured on the same engine in
the same run: one prefill of the product's prompt (the whole file) from an empty cache, as a decode run
starts, and the bound "one prefill plus the divergent spans" read two ways: that prefill, then as many
tokens as the tie-break scored (every reading's divergent spans and windows) fed and read after it as the
tie-break reads them (logits kept); and the prefix the readings share (the tie-break's own prompt and
their shared output) prefilled once, then the same tokens. The tokens behind the tie-break's cost are
reported with it: its prompt (the file cut to a window around where the readings differ:
api.window), the output the readings share before they differ (fed once, after the prompt), the
tokens scored (each reading's first divergent span and the window after it) and those fed to check the
best one at its later places. Knows nothing of how readings are made or chosen: it times the product's
own functions.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from applyedit.errors import InputError


def run(file: Path, edit: Path, repeats: int, open_engine: Any) -> dict[str, Any]:
    """The reader bench's record (plain data) for `file` and the snippet in `edit`; `open_engine()` opens
    the model, and is called only where the snippet has readings for the tie-break."""
    from applyedit import api
    from applyedit.merge import confirm
    from applyedit.speculative import tiebreak
    from applyedit.speculative.proposers import common_prefix

    text = edit.read_text(encoding="utf-8")
    got = api.read_inputs(file, text)
    if got.kind != "snippet":
        raise InputError("--reader times an update snippet's reading: the edit is an instruction")
    src = got.src
    report: dict[str, Any] = {"file": str(file), "lines": len(src.text.splitlines()), "repeats": repeats}
    reading_s, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = confirm.confirmed(src.text, got.edit, src.language, str(src.path), with_readings=True)
        reading_s.append(time.perf_counter() - t0)
    assert result is not None
    report.update(certain=result.ok, readings=1 if result.ok else len(result.readings), reading_s=reading_s)
    if result.ok:
        report["cli_s"] = [_cli(file, edit) for _ in range(repeats)]
        return report
    if not 2 <= len(result.readings) <= 5:
        return report
    engine = open_engine()
    job = api.prepare(file, text, engine, inputs=got)
    prompt, ids, texts, cut = api.tiebreak_inputs(job, result.readings)
    shared = min(common_prefix(ids[0], other) for other in ids[1:])
    model, whole_prompt = engine.model, list(job.prompt_ids)
    prefill_s, spans_s, tiebreak_s, scored, verified, whole = [], [], [], 0, 0, False
    shared_s: list[float] = []
    for _ in range(repeats):  # interleaved: the tie-break, then the baseline, each from an empty cache
        model.reset()
        t0 = time.perf_counter()
        found = tiebreak.score(model, prompt, ids, texts=texts, margin=tiebreak.MARGIN, budget=len(prompt))
        tiebreak_s.append(time.perf_counter() - t0)
        scored, verified = sum(s.tokens for s in found), sum(s.verified for s in found)
        whole = found[0].whole
        model.reset()
        t0 = time.perf_counter()
        model.prefill(whole_prompt[:-1])
        prefill_s.append(time.perf_counter() - t0)
        # the divergent spans' tokens (as many as the tie-break scored) fed and read after that prefill, as
        # the tie-break reads them
        t0 = time.perf_counter()
        spans = (ids[0] * (1 + scored // max(1, len(ids[0]))))[:scored]
        tiebreak.read_fed(model, [whole_prompt[-1], *spans], 0)
        spans_s.append(time.perf_counter() - t0)
        # the other bound: the prefix the readings share (the tie-break's prompt and their shared output)
        # prefilled once, then the same tokens
        model.reset()
        t0 = time.perf_counter()
        prefix = [*prompt, *ids[0][:shared]]
        model.prefill(prefix[:-1])
        tiebreak.read_fed(model, [prefix[-1], *spans], 0)
        shared_s.append(time.perf_counter() - t0)
    report.update(
        prompt_tokens=len(whole_prompt),
        tiebreak_prompt_tokens=len(prompt),
        prompt_window=list(cut),
        shared_tokens=shared,
        scored_tokens=scored,
        verified_tokens=verified,
        whole=whole,
        prefill_s=prefill_s,
        spans_s=spans_s,
        shared_s=shared_s,
        tiebreak_s=tiebreak_s,
        backend=engine.backend,
    )
    return report


def _window(report: dict[str, Any]) -> str:
    """The lines of the file the tie-break's prompt held, where it did not hold them all (records before the
    window kept only a cut at the top, `prompt_cut`)."""
    top, bottom = report.get("prompt_window", [report.get("prompt_cut", 0), 0])
    if not (top or bottom):
        return ""
    return f" (the file's lines {top + 1} to {report['lines'] - bottom})"


def _cli(file: Path, edit: Path) -> float:
    """One merge answer through the CLI, a fresh process on a copy of the file (its diff discarded)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / file.name
        shutil.copyfile(file, copy)
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "applyedit", str(copy), "--edit", str(edit.resolve()), "--answer", "merge"],
            capture_output=True,
            env={**os.environ, "NO_COLOR": "1"},
            check=False,
        )
        took = time.perf_counter() - t0
    if done.returncode != 0:
        raise InputError(f"the merge answer failed (exit {done.returncode}): {done.stderr.decode()[-300:]}")
    return took


def render(report: dict[str, Any]) -> list[str]:
    """The record as lines of text (medians; the tie-break's cost next to its baseline)."""

    def med(key: str) -> float:
        return statistics.median(report[key])

    lines = [
        f"{report['file']}: {report['lines']} lines, {report['readings']} reading"
        f"{'s' if report['readings'] != 1 else ''}{' (certain)' if report['certain'] else ''}, "
        f"median of {report['repeats']}",
        f"  reading, in process      {med('reading_s'):8.3f} s",
    ]
    if "cli_s" in report:
        lines.append(f"  merge answer, whole CLI  {med('cli_s'):8.3f} s")
    if "tiebreak_s" in report:
        prefill, tie = med("prefill_s"), med("tiebreak_s")
        lines += [
            f"  prefill (baseline)       {prefill:8.3f} s   {report['prompt_tokens']} prompt tokens "
            f"({report['backend']})",
        ]
        if "spans_s" in report:
            bound = prefill + med("spans_s")
            lines.append(
                f"  prefill + spans (bound)  {bound:8.3f} s   the prefill, then the {report['scored_tokens']} tokens "
                f"scored, read as the tie-break reads them: the tie-break is {tie / bound:.2f}x that"
            )
        if "shared_s" in report:
            shared = med("shared_s")
            lines.append(
                f"  shared prefix + spans    {shared:8.3f} s   its prompt and the shared output prefilled once, "
                f"then the same tokens: the tie-break is {tie / shared:.2f}x that"
            )
        lines += [
            f"  tie-break                {tie:8.3f} s   {tie / prefill:.2f}x the prefill: "
            f"{report.get('tiebreak_prompt_tokens', report['prompt_tokens'])} prompt tokens"
            + _window(report)
            + f", {report['shared_tokens']} shared output tokens, {report['scored_tokens']} scored, "
            f"{report.get('verified_tokens', 0)} fed to check the best at later places"
            + (
                " (no pick from the places alone: every reading read over the whole stretch)"
                if report.get("whole")
                else ""
            ),
        ]
    return lines
