"""When the merge may answer alone: `confirmed` holds the snippet's merge (merge.py) to a second,
independently written reading (contextread.py) and to the invariants (invariants.py), and returns it
only when the snippet forces every decision.

A merge that is not confirmed is returned with ok=False and the reason: the model then decides,
unanchored, under the same invariants; the merge's file still serves as a draft source (drafts are
verified, so a wrong one costs only time). When the snippet itself fits two readings equally (two
places for a segment; "does the file end here?"), `ambiguous` is set and the run is refused (api.py):
a model's choice there would be a guess. Pure text in, `MergeResult` out.
"""

from __future__ import annotations

from applyedit import contextread, invariants, merge

__all__ = ["confirmed"]


def _same(a: str, b: str) -> bool:
    return any(a.rstrip().expandtabs(t) == b.rstrip().expandtabs(t) for t in (4, 8))


def confirmed(original: str, snippet: str, language: str, path: str | None = None) -> merge.MergeResult:
    """The merge of `snippet` into `original` (LF-only texts) when it is the only reading and meets
    every invariant; else a not-ok result that says why."""
    result = merge.merge(original, snippet)
    second = contextread.read(original, snippet)
    if isinstance(second, contextread.NoReading) and second.inherent:
        return _unsure(result, second.message, ambiguous=True)
    if not result.ok or result.merged is None:
        return result
    if isinstance(second, contextread.NoReading):
        return _unsure(result, second.message)
    ours = result.merged.split("\n")
    if ours and ours[-1] == "":
        ours = ours[:-1]
    if len(ours) != len(second) or not all(_same(a, b) for a, b in zip(ours, second, strict=True)):
        line = next(
            (n for n, (a, b) in enumerate(zip(ours, second, strict=False), 1) if not _same(a, b)),
            min(len(ours), len(second)) + 1,
        )
        return _unsure(result, f"two readings of the snippet differ from line {line}")
    broken = invariants.violations(original, result.merged, snippet, "snippet", language, path)
    if broken:
        return _unsure(result, broken[0].message)
    return result


def _unsure(result: merge.MergeResult, why: str, ambiguous: bool = False) -> merge.MergeResult:
    return merge.MergeResult(
        ok=False, reason=why, merged=result.merged, hunks=result.hunks, ops=result.ops, ambiguous=ambiguous
    )
