"""When a snippet's reading may answer alone. `confirmed` reads it two ways: by the file's structure
(merge/structure.py, its stretches read by `_stretch`) and line by line (`_by_lines`). The line reader's
certain answer stands, unless it reads a new definition in place of one the snippet never shows
(`defcheck.renames_unshown`) where the structure reads it otherwise: then the structure's answer, or a
refusal where the structure finds no single place, or a question of two files where it reads the snippet
two ways (`structure.TwoWays`); where the line reader is unsure, or its answer changes nothing, breaks
the syntax or writes a line shown in a definition outside it where the structure's does not (`_worse`),
the structure's certain answer; where both read it one way each and the structure's passes the line
reader's checks too, a question between the two (`_disagree`). `by_definitions` says whether a
marker-less edit is whole definitions the structure reads.
The line reader (`_by_lines`) weighs every reading (merge/readings.py: the context reader's enumeration,
merge/contextread.py, and the merge's file, merge/__init__.py, where it differs; each held to the
invariants and costed) and returns the cheapest as an ok result when it is certain (merge/certainty.py
says when, and answers the questions the code itself settles). Otherwise a not-ok result says why:
`ambiguous` where the snippet itself leaves the question open (several readings of the context reader),
with the candidate files (`readings`, when asked for), the places where they differ (`places`) and
whether they are twins or unplaced (readings.py: no model chooses there); what the run then does is
decision.py's.
Also says which reading an open end took, and what a certain reading decided where the snippet left a
question open (`MergeResult.notes`). Pure text in, `MergeResult` out.
"""

from __future__ import annotations

import dataclasses

from applyedit import defcheck, imports, invariants, merge, syntax
from applyedit.errors import quoted
from applyedit.linediff import key
from applyedit.merge import certainty, readings, reindent, structure

__all__ = ["confirmed"]


def confirmed(
    original: str, snippet: str, language: str, path: str | None = None, with_readings: bool = False
) -> merge.MergeResult:
    """The snippet's reading of `original` (LF-only texts): the line reader's when it is the only one within
    the margin of the cheapest (merge/readings.py) and meets every invariant, unless it reads a new
    definition in place of one the snippet never shows, or the structure reads it otherwise as soundly (a
    question of the two); else the structure's certain reading; else a not-ok
    result that says why, with the candidate files (`readings`, when asked for: the model may choose
    between 2 to 5)."""
    by_lines = _by_lines(original, snippet, language, path, with_readings)
    two_ways: structure.Unplaced | None = None
    try:
        structural = structure.read(original, snippet, language, path, _stretch)
    except structure.Unplaced as e:
        structural, unplaced, two_ways = None, f"{e}: where it goes in the file, the snippet does not say", e
    else:
        unplaced = ""
    answered = structural is not None and structural != original
    if (answered or unplaced) and by_lines.ok and by_lines.merged is not None:
        if defcheck.renames_unshown(original, by_lines.merged, snippet, language, path):
            # the line reader reads a new definition in place of one the snippet never shows, where the
            # structure reads it beside it (or nowhere single): a definition is never an edit of another
            if structural is not None and answered:
                return merge.as_reading(original, structural, ("read by the file's structure",))
            return merge.MergeResult(ok=False, reason=unplaced)
        if isinstance(two_ways, structure.TwoWays):  # no line reader's guess between the two is certain:
            why = f"{two_ways}; the snippet does not say which"  # its file, and the structure's with them added
            try:
                added = structure.read(original, snippet, language, path, _stretch, add_unsaid=True)
            except structure.Unplaced:
                added = None
            if (
                added is None
                or added == by_lines.merged
                or invariants.violations(original, added, snippet, "snippet", language, path)
            ):
                return _unsure(by_lines, why)
            return _two_readers(original, by_lines, added, with_readings, why)
    # the line reader's certain reading stands, but one that changes nothing, or breaks the file's syntax,
    # where the structure's changes something and parses: it did not read the snippet's code as code
    if structural is None or not answered:
        return by_lines
    if not by_lines.ok or _worse(original, snippet, by_lines, structural, language, path):
        return merge.as_reading(original, structural, ("read by the file's structure",))
    if _disagree(original, snippet, by_lines, structural, language, path):
        return _two_readers(original, by_lines, structural, with_readings)
    return by_lines


def _disagree(
    original: str, snippet: str, by_lines: merge.MergeResult, structural: str, language: str, path: str | None
) -> bool:
    """Whether the line reader and the structure each read the snippet one way (the line reader's no
    worse: `_worse`), and the ways differ with the structure's meeting every invariant, breaking no syntax
    and binding no import name twice that the line reader's does not: then neither reading is certain
    (one of the two readers misreads it)."""
    lines = by_lines.merged
    return (
        lines is not None
        and lines != structural
        and imports.import_conflicts(structural, language, path) <= imports.import_conflicts(lines, language, path)
        and not syntax.new_errors(original, structural, language, path)
        and not invariants.violations(original, structural, snippet, "snippet", language, path)
    )


def _two_readers(
    original: str, by_lines: merge.MergeResult, structural: str, with_readings: bool, why: str = ""
) -> merge.MergeResult:
    """The question two certain readers leave: the line reader's file and the structure's, to choose from."""
    texts = (by_lines.merged or original, structural)
    places = readings.differ(original, list(texts))
    why = why or "the file's structure and its lines read the snippet two ways"
    unsure = _unsure(by_lines, f"{why}{_where(places)}")
    return dataclasses.replace(
        unsure, readings=texts if with_readings else (), near=2 if with_readings else 0, places=places
    )


def _worse(
    original: str, snippet: str, by_lines: merge.MergeResult, structural: str, language: str, path: str | None
) -> bool:
    """Whether the line reader's file changes nothing, or breaks the syntax, or writes a line the snippet
    shows inside a definition outside it (`defcheck.misplaced`), where the structure's file changes
    something and does not."""
    lines = by_lines.merged
    if lines is None or lines == structural:
        return False
    checks = (
        lambda text: syntax.new_errors(original, text, language, path),
        lambda text: defcheck.misplaced(original, snippet, text, language, path),
    )
    return lines == original or any(bool(broken(lines)) and not broken(structural) for broken in checks)


def _by_lines(
    original: str, snippet: str, language: str, path: str | None = None, with_readings: bool = False
) -> merge.MergeResult:
    """The line reader's reading: `confirmed` where the structure does not decide."""
    result = merge.merge(original, snippet)
    weighed = readings.weigh(original, snippet, language, path, result.merged if result.ok else None)
    closer = _closer_at_open_start(original, snippet)
    if closer is not None:
        return _unsure(
            result,
            f"the snippet starts with {closer!r} and no lazy marker above: which block it closes, and whether the "
            "code above that is kept, the snippet does not say",
            ambiguous=True,
        )
    valid = [*weighed.candidates, *weighed.rest]
    unused = certainty.imports_cut(weighed, original, language)
    if unused is not None:
        note = "the file starts (ends) at the snippet's edge: the imports past it are imported again or used nowhere"
        return merge.as_reading(original, unused.text, (note,))
    picked = (
        certainty.edited_in_place(weighed, original, language, path)
        or certainty.copies_none(weighed, original, snippet)
        or certainty.head_line_edited(weighed, original, snippet, language, path)
    )
    if picked is not None:
        pick, note = picked
        if result.ok and result.merged == pick.text:
            return result
        return merge.as_reading(original, pick.text, (note,))
    if valid and certainty.certain(weighed, original, snippet, language, result.pairing):
        best = valid[0]
        notes = tuple(_took(best, weighed))
        if result.ok and result.merged is not None and "merge" in best.sources:
            return dataclasses.replace(result, notes=(*_open_ends(original, snippet, result), *notes))
        return merge.as_reading(original, best.text, notes)
    if len(valid) > 1:
        shown = valid[: readings.MOST]
        why = weighed.why if weighed.inherent else "two readings of the snippet give two files"
        places = readings.differ(original, [c.text for c in shown])
        unsure = _unsure(result, f"{why}{_where(places)}", ambiguous=weighed.inherent)
        return dataclasses.replace(
            unsure,
            readings=tuple(c.text for c in shown) if with_readings else (),
            near=min(len(weighed.candidates), len(shown)) if with_readings else 0,
            places=places,
            twins=readings.twins(original, places),
            unplaced=readings.unplaced(original, snippet, places),
        )
    if valid and not result.ok:  # the context reading's only valid reading; the merge read none
        return _unsure(result, weighed.why if weighed.inherent else result.reason, ambiguous=weighed.inherent)
    if valid and "context" in valid[0].sources:  # the one valid reading: the merge's file refused or unchanged
        return _unsure(result, weighed.why or _doubt(valid[0], original, weighed))
    if valid:  # the merge's only reading; the context reading has none
        refused = [why.message for c, why in weighed.refused if "context" in c.sources]
        return _unsure(result, weighed.why or (refused[0] if refused else _no_change(original, valid[0])))
    if not weighed.inherent and not result.ok and result.reason:  # neither reader reads it: the merge says why
        return _unsure(result, result.reason)
    return _unsure(result, weighed.why, ambiguous=weighed.inherent)


def by_definitions(original: str, edit: str, language: str, path: str | None = None) -> str | None:
    """A marker-less edit the file's structure reads (merge/structure.py): whole definitions, new or in
    place of their namesakes, or the whole file; the edit (in the file's indentation), else None."""
    snippet = reindent.to_file_style(original, edit)
    try:
        found = structure.read(original, snippet, language, path, _stretch)
    except structure.Unplaced:
        return None
    return snippet if found is not None and found != original else None


def _stretch(original: str, snippet: str) -> str | None:
    """The line reader's certain reading of one stretch of a file (merge/structure.py's windows)."""
    result = _by_lines(original, snippet, "text")
    return result.merged if result.ok else None


def _took(best: readings.Candidate, weighed: readings.Weighed) -> list[str]:
    """What the reading taken decided where the snippet left a question open (the summary says it)."""
    if not weighed.rest:
        return []
    other = weighed.rest[0]
    return [
        f"{q.rsplit(': option ', 1)[0]}: read the way that changes the fewest lines (cost {best.cost:g}; the "
        f"next reading {other.cost:g})"
        for q in best.took
    ][:2]


def _doubt(only: readings.Candidate, original: str, weighed: readings.Weighed) -> str:
    """Why the one reading that meets every check is not taken with no model: what it does that a plain
    reading does not (deletes code outright, reads the snippet's context as new code), and how the other
    reading of the snippet failed."""
    what = []
    if only.dropped:
        lines = f"{only.dropped} lines" if only.dropped > 1 else "1 line"
        what.append(f"deletes {lines} of code with nothing in {'their' if only.dropped > 1 else 'its'} place")
    if only.repeats:
        what.append(f"reads {only.repeats} line{'s' if only.repeats > 1 else ''} of the snippet's context as new code")
    place = readings.differ(original, [only.text, original])
    where = f" (its first change at original line {place[0].start + 1})" if place else ""
    other = next((why.message for c, why in weighed.refused if "merge" in c.sources), "")
    return (
        f"the snippet's one reading that meets every check{where} {' and '.join(what) or 'took an open question'}"
        + (f"; the other reading fails a check ({other})" if other else "")
    )


def _no_change(original: str, merged: readings.Candidate) -> str:
    """Why the merge's one reading is not taken where the snippet, read by its context, changes nothing
    (its segments stand as they are; a segment that also stands as two blocks with one line at the cut,
    `}` then the next function's header, does not show a deletion between them)."""
    place = readings.differ(original, [merged.text, original])
    where = f" (its first change at original line {place[0].start + 1})" if place else ""
    return (
        "read by its context the snippet changes nothing (its lines stand in the original as they are), and it "
        f"also reads as a change{where}: which one, the snippet does not say (show two lines of code on each "
        "side of a deletion)"
    )


def _where(found: tuple[readings.Place, ...]) -> str:
    """The places where the candidates differ, for the refusal's message."""
    if not found:
        return ""
    text = "; ".join(
        f"at original line {p.start + 1}: "
        + " / ".join(f"({n}) {quoted(first)}" for n, first in enumerate(p.firsts, 1))
        for p in found[:3]
    )
    return f" (the readings differ {text})"


_CLOSERS = frozenset({"}", "};", "},", ")", ");", "),", "]", "];", "],", "end"})


def _closer_at_open_start(original: str, snippet: str) -> str | None:
    """The snippet's first line when it is a bare closing line (`}`, `);`, `end`) with no marker above it
    and the original does not start with it: a closer places nowhere, and the code between the block it
    closes and the next line the snippet shows may be kept or deleted. None where the first line past the
    closers is new code: the closer is then the one above the place that code goes, as if a marker stood
    above it."""
    segs = invariants.segments(snippet)
    if not segs or segs[0].marker_before or not segs[0].lines:
        return None
    first = key(segs[0].lines[0])
    start = next((x for x in original.split("\n") if x.strip()), "")
    if first not in _CLOSERS or key(start) == first:
        return None
    keys = {key(x) for x in original.split("\n")}
    after = next((k for k in map(invariants.key, segs[0].lines) if k and k not in _CLOSERS), None)
    if after is not None and after not in keys:
        return None  # new code right below the closer: the closer is the one above it
    return segs[0].lines[0].strip()


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
