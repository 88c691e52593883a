"""When the merge may answer alone: `confirmed` holds the snippet's merge (merge/__init__.py) to a second,
independently written reading (merge/contextread.py) and to the invariants (invariants.py), and returns it
only when the snippet forces every decision.

A merge that is not confirmed is returned with ok=False and the reason: by default the run is then
refused (api.py, `--answer merge`); with `--answer auto` the model decides, unanchored, under the same
invariants, and the merge's file still serves as a draft source (drafts are verified, so a wrong one
costs only time). When the snippet itself fits two readings equally (two places for a segment; "does
the file end here?"), `ambiguous` is set and the run is refused unless `--answer model`. When the two
readers give two files that both meet every invariant, both are returned (`readings`) when asked for
(`with_readings`: the invariants then run on both): the model may choose between them (api.py,
spec/tiebreak.py). Also says
which reading an open end took (`MergeResult.notes`). Pure text in, `MergeResult` out.
"""

from __future__ import annotations

import dataclasses

from applyedit import invariants, merge
from applyedit.merge import contextread

__all__ = ["confirmed"]


def confirmed(
    original: str, snippet: str, language: str, path: str | None = None, with_readings: bool = False
) -> merge.MergeResult:
    """The merge of `snippet` into `original` (LF-only texts) when it is the only reading and meets
    every invariant; else a not-ok result that says why."""
    result = merge.merge(original, snippet)
    second = contextread.read(original, snippet, language)
    if isinstance(second, contextread.NoReading) and second.inherent:
        return _unsure(result, second.message, ambiguous=True)
    if not result.ok or result.merged is None:
        return result
    closer = _closer_at_open_start(original, snippet)
    if closer is not None:
        return _unsure(
            result,
            f"the snippet starts with {closer!r} and no lazy marker above: which block it closes, and whether the "
            "code above that is kept, the snippet does not say",
            ambiguous=True,
        )
    if isinstance(second, contextread.NoReading):
        return _unsure(result, second.message)
    ours = result.merged.split("\n")
    if ours and ours[-1] == "":
        ours = ours[:-1]
    if len(ours) != len(second) or not all(invariants.same(a, b) for a, b in zip(ours, second, strict=True)):
        line = next(
            (n for n, (a, b) in enumerate(zip(ours, second, strict=False), 1) if not invariants.same(a, b)),
            min(len(ours), len(second)) + 1,
        )
        unsure = _unsure(result, f"two readings of the snippet differ from line {line}")
        if not with_readings:
            return unsure
        theirs = "\n".join(second) + ("\n" if result.merged.endswith("\n") else "")
        valid = tuple(
            r
            for r in (result.merged, theirs)
            if not invariants.violations(original, r, snippet, "snippet", language, path)
        )
        return dataclasses.replace(unsure, readings=valid if len(valid) == 2 else ())
    broken = invariants.violations(original, result.merged, snippet, "snippet", language, path)
    if broken:
        return _unsure(result, broken[0].message)
    return dataclasses.replace(result, notes=tuple(_open_ends(original, snippet, result)))


_CLOSERS = frozenset({"}", "};", "},", ")", ");", "),", "]", "];", "],", "end"})


def _closer_at_open_start(original: str, snippet: str) -> str | None:
    """The snippet's first line when it is a bare closing line (`}`, `);`, `end`) with no marker above it
    and the original does not start with it: a closer places nowhere, and the code between the block it
    closes and the next line the snippet shows may be kept or deleted."""
    segs = invariants.segments(snippet)
    if not segs or segs[0].marker_before or not segs[0].lines:
        return None
    first = invariants.key(segs[0].lines[0])
    start = next((x for x in original.split("\n") if x.strip()), "")
    return segs[0].lines[0].strip() if first in _CLOSERS and invariants.key(start) != first else None


def _open_ends(original: str, snippet: str, result: merge.MergeResult) -> list[str]:
    """Which reading was taken where the snippet starts or ends with no lazy marker and the original
    goes on there (the summary says it)."""
    segs = invariants.segments(snippet)
    lines = original.split("\n")
    m = len(lines) - (1 if lines and lines[-1] == "" else 0)
    if not segs or result.whole_file or not any(s.marker_before or s.marker_after for s in segs):
        return []
    notes = []
    if not segs[-1].marker_after:
        last = result.hunks[-1] if result.hunks else None
        if last is not None and last.orig_end >= m and last.orig_end > last.orig_start:
            gone = last.orig_end - last.orig_start
            notes.append(
                f"the snippet ends with no lazy marker after a new line: read as the file's end (the original's "
                f"last {gone} line{'s' if gone > 1 else ''} replaced)"
            )
        elif " ".join(segs[-1].lines[-1].split()) != " ".join(
            next((x for x in reversed(lines) if x.strip()), "").split()
        ):
            notes.append(
                "the snippet ends with no lazy marker after a line of the original: the rest of the file is kept"
            )
    if not segs[0].marker_before and result.hunks and result.hunks[0].orig_start == 0 and result.hunks[0].orig_end:
        gone = result.hunks[0].orig_end
        notes.append(
            f"the snippet starts with no lazy marker before a new line: read as the file's start (the original's "
            f"first {gone} line{'s' if gone > 1 else ''} replaced)"
        )
    return notes


def _unsure(result: merge.MergeResult, why: str, ambiguous: bool = False) -> merge.MergeResult:
    return merge.MergeResult(
        ok=False, reason=why, merged=result.merged, hunks=result.hunks, ops=result.ops, ambiguous=ambiguous
    )
