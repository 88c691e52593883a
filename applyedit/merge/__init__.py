"""Align a lazy update snippet (changed code, some context, `# ... existing code ...` markers) with
the original text it edits: which original lines it keeps, replaces and deletes, where its new
lines go, and whether that reading is unambiguous. Pure text in, `MergeResult` out; it knows
nothing of the model, tokens or files. The reading rules are in `merge`'s docstring; placing one
segment is anchors.py's (the lines above its first anchor head.py's), the line comparisons lines.py's,
what a lazy marker is markers.py's. The package's other parts: the second, independent reading
(contextread.py), when the merge may answer alone (confirm.py), and re-indenting a snippet to the
file's style (reindent.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from applyedit import interrupt
from applyedit.errors import quoted
from applyedit.languages import COMMENT_FORMS
from applyedit.linediff import Matcher, edited_in_order, likeness
from applyedit.markers import is_marker
from applyedit.merge.anchors import Seg, anchor_segment, changes_something, extend_chain
from applyedit.merge.lines import (
    NoFit,
    NoMerge,
    Pair,
    Pairing,
    distinctive,
    fill_between,
    found_block,
    indent_of,
    line_key,
    min_table,
    rtrim,
    same_line,
    split_block,
)
from applyedit.textio import lines_of

__all__ = ["Hunk", "LineKind", "MergeResult", "as_reading", "dropped_lines", "layout", "merge", "taken"]

LineKind = Literal["kept", "context", "replaced", "deleted"]
_Span = tuple[int, int, tuple[str, ...], list[Pair]]  # original [start, end), segment, pairs


@dataclass(frozen=True)
class Hunk:
    """Original lines [orig_start, orig_end) become `new_lines`; start == end: pure insertion."""

    orig_start: int
    orig_end: int
    new_lines: tuple[str, ...]


@dataclass(frozen=True)
class MergeResult:
    """What `merge` read. When `ok` is False, `reason` says why; `merged`, `hunks` and `ops` then hold
    a reading that was not confirmed (merge/confirm.py), or nothing: a draft source, never an answer."""

    ok: bool
    reason: str = ""
    merged: str | None = None
    hunks: tuple[Hunk, ...] = ()  # sorted, non-overlapping, touching ones joined
    ops: tuple[LineKind, ...] = ()  # one per original line (0-based)
    whole_file: bool = False  # a marker-less snippet that replaced the whole file
    ambiguous: bool = False  # not ok because two readings fit the snippet equally (merge/confirm.py): refused
    notes: tuple[str, ...] = ()  # what a confirmed reading decided where the snippet left it open (open ends)
    # not ok with several valid readings (merge/confirm.py, merge/readings.py): up to 5 whole files, the
    # cheapest first; `--reading N` takes one, the model's tie-break may choose (api.py, speculative/tiebreak.py)
    readings: tuple[str, ...] = ()
    near: int = 0  # of `readings`, the first this many lie within merge/readings.py's MARGIN of the cheapest
    places: tuple = ()  # where the readings differ (merge/readings.py's `Place`s), when it is ambiguous
    twins: bool = False  # two readings that make one edit at two places reading the same: no model may choose
    # the readings differ only in how a segment of new lines sits at the file's edge (readings.unplaced): nor here
    unplaced: bool = False
    # not ok only because of how lines above an anchor pair: they add and delete with nothing telling how,
    # or a weak first line after a marker could be one of several (merge/head.py): the merge's doubt, not
    # the snippet's; the context reader's reading may answer
    pairing: bool = False


IMPLIED_SHARE = 0.5  # a marker-less edit longer than this share of the file may be the whole new file
IMPLIED_EDGE = 3  # an edit this many lines of code or fewer from the file's start (end) may start (end) it


def implied_snippet(original: str, edit: str, language: str) -> str | None:
    """A marker-less edit that is a piece of this file's code, read as an update snippet: the edit
    between two lazy markers (the code before and after it kept), or None.

    Chat models often leave out both markers and show only the changed code between a few lines of
    context. Read that way when the edit's first and last non-blank lines are lines of the original
    (the context that places it) and one of its lines at least is a distinctive one of the original,
    it is at most `IMPLIED_SHARE` of the file's lines (a longer one may be the whole new file, whose
    dropped tail the implied trailing marker would keep), and the wrapped snippet merges unambiguously.
    Prose never qualifies: its lines are not the file's. No marker is implied on a side where the edit
    stands 1 to `IMPLIED_EDGE` lines of code from the file's start (end): whether the file starts
    (ends) there is then the open start's (end's) question, as for any snippet.
    """
    forms = COMMENT_FORMS.get(language, frozenset())
    opener = "#" if "#" in forms else "//" if "//" in forms else "--" if "--" in forms else None
    lines = [x for x in lines_of(edit) if x.strip()]
    if opener is None or len(lines) < 3 or any(is_marker(x) for x in lines):
        return None
    have = {line_key(x) for x in lines_of(original)}
    shared = [x for x in lines if line_key(x) in have and distinctive(line_key(x))]
    if line_key(lines[0]) not in have or line_key(lines[-1]) not in have or not shared:
        return None
    if len(lines) > IMPLIED_SHARE * sum(1 for x in lines_of(original) if x.strip()):
        return None

    def marker(line: str) -> str:  # indented like the code it stands next to
        return f"{line[: len(line) - len(line.lstrip())]}{opener} ... existing code ..."

    # Within a few lines of code of the file's start (end), the edit may start (end) the file there: no
    # marker is implied on that side, and the open start (end) is read as any snippet's is.
    code = [line_key(x) for x in lines_of(original) if x.strip()]
    first, last = line_key(lines[0]), line_key(lines[-1])
    top = "" if code.count(first) == 1 and 0 < code.index(first) <= IMPLIED_EDGE else f"{marker(lines[0])}\n"
    end = len(code) - 1 - code.index(last) if code.count(last) == 1 else 0
    bottom = "" if 0 < end <= IMPLIED_EDGE else f"{marker(lines[-1])}\n"
    if not top and not bottom:  # near both ends: a marker on each side, as elsewhere
        top, bottom = f"{marker(lines[0])}\n", f"{marker(lines[-1])}\n"
    wrapped = f"{top}{edit.rstrip(chr(10))}\n{bottom}"
    return wrapped if merge(original, wrapped).ok else None


def merge(original: str, snippet: str) -> MergeResult:
    """Read `snippet` (LF-only) as an edit of `original` (LF-only) and apply it: markers split it into
    segments, each placed after the previous one by its distinctive lines (anchors), the lines between
    anchors aligned by difflib, the lines before the first and after the last by the rules listed in
    docs/reading.md ("The anchor merge"); ok=False, with the reason, where a rule finds two places or none.

    Example: b() and d() anchor, x() stands where the original has c(), a() and e() are under
    markers: hunks (Hunk(2, 3, ("x()",)),), ops kept, context, replaced, context, kept.

        original   snippet                    merged
        a()        # ... existing code ...    a()
        b()        b()                        b()
        c()        x()                        x()
        d()        d()                        d()
        e()        # ... existing code ...    e()
    """
    try:
        return _merge(original, snippet)
    except NoMerge as exc:
        return MergeResult(ok=False, reason=str(exc), pairing=isinstance(exc, Pairing))


def as_reading(original: str, text: str, notes: tuple[str, ...] = ()) -> MergeResult:
    """A merged file that came from elsewhere (the other reader's, api.choose_reading) as an ok result:
    its hunks and per-line kinds from difflib's line diff against the original."""
    original_lines, nl = lines_of(original), lines_of(text)
    hunks: list[Hunk] = []
    ops: list[LineKind] = []
    for tag, i1, i2, j1, j2 in Matcher(original_lines, nl).get_opcodes():
        if tag == "equal":
            ops += ["kept"] * (i2 - i1)
            continue
        hunks.append(Hunk(i1, i2, tuple(nl[j1:j2])))
        ops += ["replaced" if j2 > j1 else "deleted"] * (i2 - i1)
    return MergeResult(ok=True, merged=text, hunks=tuple(hunks), ops=tuple(ops), notes=notes)


def taken(original: str, result: MergeResult, text: str) -> MergeResult:
    """`text`, one of `result`'s readings that the model's tie-break (or a server's) took, as the
    confirmed merge: `result` itself made ok where it is the merger's own file (its hunks kept), else
    `as_reading` with `result`'s notes."""
    if result.merged is not None and text == result.merged:
        return replace(result, ok=True, reason="", readings=(), ambiguous=False)
    return as_reading(original, text, result.notes)


def layout(result: MergeResult, original_lines: int) -> tuple[list[int | None], list[tuple[int, int]]]:
    """Where the merged text's lines come from: per merged line the original line it is (0-based),
    None for a hunk's new line; and per hunk the merged lines [start, end) it wrote (empty for a
    pure deletion). Only meaningful for an `ok` merge of an original of `original_lines` lines."""
    source: list[int | None] = []
    spans: list[tuple[int, int]] = []
    i, hunks = 0, list(result.hunks)
    while i < original_lines or hunks:
        if hunks and hunks[0].orig_start == i:
            hunk = hunks.pop(0)
            spans.append((len(source), len(source) + len(hunk.new_lines)))
            source += [None] * len(hunk.new_lines)
            i = hunk.orig_end
        elif i < original_lines:
            source.append(i)
            i += 1
        else:
            break
    return source, spans


def dropped_lines(original: str, output: str, result: MergeResult) -> list[int]:
    """1-based numbers of original lines the snippet left alone (kept or context) that `output`
    lost. The output is line-diffed against the merged file (trailing blanks ignored), so the
    snippet's own new lines line up with the output's; an original line the diff cannot match was
    edited in place rather than lost when a changed output line of the same block resembles it
    (difflib ratio ≥ 0.6, each output line explaining one original line: a call site updated for a
    rename, say). Blank lines never count. Only meaningful for an `ok` merge."""
    assert result.ok
    if result.whole_file or result.merged is None:
        return []  # the snippet replaced everything: nothing was left alone
    original_lines, ml, nl = lines_of(original), lines_of(result.merged), lines_of(output)
    source, _ = layout(result, len(original_lines))
    assert len(source) == len(ml), "hunks and merged text disagree"
    matcher = Matcher([x.rstrip() for x in ml], [x.rstrip() for x in nl])
    lost = []
    for tag, m1, m2, j1, j2 in matcher.get_opcodes():
        if tag not in ("delete", "replace"):
            continue
        free = list(range(j1, min(j2, j1 + 200)))
        for m in range(m1, m2):
            o = source[m]
            if o is None or not original_lines[o].strip():
                continue
            scores = [(likeness(line_key(original_lines[o]), line_key(nl[j])), j) for j in free]
            best = max(scores, default=(0.0, -1))
            if best[0] >= 0.6:
                free.remove(best[1])
            else:
                lost.append(o + 1)
    return lost


def _merge(original: str, snippet: str) -> MergeResult:
    original_lines = lines_of(original)
    nl = original.endswith("\n") or (not original and snippet.endswith("\n"))
    segs = _segments(lines_of(snippet))
    if not segs:
        raise NoMerge("snippet has no code besides lazy markers")
    original_keys, m = [line_key(x) for x in original_lines], len(original_lines)
    occ: dict[str, list[int]] = {}
    for j, k in enumerate(original_keys):
        if distinctive(k):
            occ.setdefault(k, []).append(j)
    original_min = min_table([indent_of(x) for x in original_lines])
    chains: list[list[Pair]] = []
    for seg in segs:
        interrupt.check()
        lo = max((c[-1][1] + 1 for c in chains if c), default=0)
        chains.append(anchor_segment(seg.lines, occ, original_min, lo, original_lines, resumes=seg.marker_before))
    if len(segs) == 1 and not segs[0].marker_before and segs[0].marker_after is None:
        whole = _whole_file(segs[0], chains[0], original_keys)
        if whole is not None:
            return _finish(original_lines, [whole], nl, whole=snippet)
    spans: list[_Span] = []
    lo = 0
    for n, (seg, chain) in enumerate(zip(segs, chains, strict=True)):
        hi = next((c[0][1] for c in chains[n + 1 :] if c), m)
        span: _Span | None
        if chain:
            span = _anchored(seg, chain, n == 0, original_lines, original_keys, occ, lo, hi)
        else:
            span = _unanchored(seg, n == 0, n == len(segs) - 1, any(chains), original_lines, original_keys, lo, hi)
        if span is not None:
            span = _open_ends(span, seg, n == 0, n == len(segs) - 1, len(segs), original_lines)
            spans.append(span)
            lo = span[1]
    return _finish(original_lines, spans, nl)


def _open_ends(span: _Span, seg: Seg, first: bool, last: bool, count: int, original_lines: list[str]) -> _Span:
    """A snippet that starts (ends) with no marker and a new line starts (ends) at the file's start
    (end): the original lines above (below) the segment's place are replaced too, when they are no
    more lines of code than the new lines there (an edit in place: `return -1` -> `return result`), and
    at the start only where the new lines show each of them, as it is or edited, in order (nobody deletes
    a package clause or a licence by leaving it out). One that starts (ends) with a line of the original
    keeps them. Blank lines at the file's very
    start and end are the original's: a snippet cannot show them."""
    start, end, snippet_lines, pairs = span
    paired = {a for a, _ in pairs}
    code = [i for i, x in enumerate(snippet_lines) if x.strip()]
    if not code or (count == 1 and not seg.marker_before and seg.marker_after is None):
        return span  # no markers at all: the whole-file reading decides

    def code_in(a: int, b: int) -> int:
        return sum(1 for x in original_lines[a:b] if x.strip())

    if last and seg.marker_after is None and code[-1] not in paired:
        new = sum(1 for i in code if i > max(paired, default=-1))
        if code_in(end, len(original_lines)) <= new:  # more would be a guess: merge/confirm.py finds it ambiguous
            end = max(end, rtrim(original_lines, end, len(original_lines)))
    if first and not seg.marker_before and code[0] not in paired and start > 0:
        new_top = [line_key(snippet_lines[i]) for i in code if i < min(paired, default=len(snippet_lines))]
        if edited_in_order([line_key(x) for x in original_lines[:start]], new_top):  # else kept: not left out
            start = next((j for j in range(start) if original_lines[j].strip()), start)  # blank lines at the top stay
    return start, end, snippet_lines, pairs


def _whole_file(seg: Seg, chain: list[Pair], original_keys: list[str]) -> _Span | None:
    """A marker-less snippet read as the whole new file: when it keeps most of the original's lines."""
    m, snippet_keys = len(original_keys), [line_key(x) for x in seg.lines]
    ends = [(-1, -1), *chain, (len(snippet_keys), m)]
    pairs = chain + [
        p for a, b in zip(ends, ends[1:], strict=False) for p in fill_between(snippet_keys, original_keys, a, b)
    ]
    pairs.sort()
    matched, total = sum(1 for _, j in pairs if original_keys[j]), sum(1 for k in original_keys if k)
    return (0, m, seg.lines, pairs) if not total or 2 * matched > total else None


def _anchored(
    seg: Seg,
    chain: list[Pair],
    first: bool,
    original_lines: list[str],
    original_keys: list[str],
    occ: dict[str, list[int]],
    lo: int,
    hi: int,
) -> _Span:
    """The span of a segment with anchors, placed between `lo` and the next segment's anchor `hi`."""
    try:
        start, end, pairs = extend_chain(seg, chain, original_lines, original_keys, lo, hi)
    except NoFit as exc:  # anchored on a new block's lines (copied code): anchor past it
        chain = [p for p in chain if p[0] >= exc.after]
        if not chain:
            raise
        start, end, pairs = extend_chain(seg, chain, original_lines, original_keys, lo, hi)
    unique = [p for p in chain if len(occ.get(original_keys[p[1]], ())) == 1]
    start, end, pairs = changes_something(
        seg, unique or chain[-1:], original_lines, start, end, pairs, lo, hi, first=first, below=bool(unique)
    )
    return start, end, seg.lines, pairs


def _unanchored(
    seg: Seg,
    first_seg: bool,
    last_seg: bool,
    anchored: bool,
    original_lines: list[str],
    original_keys: list[str],
    lo: int,
    hi: int,
) -> _Span | None:
    """The span of a segment without anchors (None: it changes nothing), or why it has no reading.
    `anchored`: whether any segment of the snippet has anchors."""
    m = len(original_lines)
    first = next(x for x in seg.lines if x.strip())
    top_level, at_end = indent_of(first) == 0, seg.marker_after is None
    snippet_lines = seg.lines
    ot = rtrim(original_lines, lo, m)
    tail = next(
        (
            t
            for t in range(len(snippet_lines), 0, -1)
            if snippet_lines[t - 1].strip()
            and ot - t >= lo
            and all(same_line(snippet_lines[i], original_lines[ot - t + i]) for i in range(t))
        ),
        0,
    )
    if last_seg and seg.marker_before and at_end and sum(1 for x in snippet_lines[:tail] if x.strip()) >= 2:
        # it starts with the original's last lines (`}` `);`): it goes on from the end
        if tail == len(snippet_lines) and split_block(snippet_lines, original_lines, lo, m):
            raise NoMerge(f"snippet lines {quoted(first)}... could show a deletion or nothing")
        return ot - tail, ot, snippet_lines, [(i, ot - tail + i) for i in range(tail)]
    if seg.marker_before and (not at_end or last_seg) and found_block(snippet_lines, original_lines, lo, hi):
        # only lines the original has, between markers: wherever they stand, nothing changes;
        # unless they also stand in two blocks, a deletion between them (`}` | `/**`)
        if split_block(snippet_lines, original_lines, lo, hi):
            raise NoMerge(f"snippet lines {quoted(first)}... could show a deletion or nothing")
        return None
    if top_level and last_seg and seg.marker_before and at_end:
        if not distinctive(line_key(first)) and any(line_key(first) == k for k in original_keys[lo:]):
            raise NoMerge(f"snippet line {quoted(first)} after a marker could be one of several")
        return m, m, seg.lines, []  # a marker only above it: goes to the bottom
    if top_level and first_seg and not seg.marker_before and not at_end:
        if not distinctive(line_key(first)) and any(line_key(first) == k for k in original_keys):
            raise NoMerge(f"snippet line {quoted(first)} before a marker could be one of several")
        return 0, 0, seg.lines, []  # a marker only below it: goes to the top
    if not anchored:
        raise NoMerge("no snippet line matches the original")
    raise NoMerge(f"snippet lines could not be anchored: {quoted(first)}")


def _finish(original_lines: list[str], spans: list[_Span], nl: bool, whole: str | None = None) -> MergeResult:
    """Turn spans and their pairs into hunks, per-line kinds and the merged text."""
    raw: list[Hunk] = []
    context: set[int] = set()
    for start, end, snippet_lines, pairs in spans:
        si, oj = 0, start
        for a, b in [*pairs, (len(snippet_lines), end)]:
            if a > si or b > oj:
                raw.append(Hunk(oj, b, snippet_lines[si:a]))
            if (
                a < len(snippet_lines)
                and same_line(snippet_lines[a], original_lines[b])
                and not _blanks_differ(snippet_lines[a], original_lines[b])
            ):
                context.add(b)
            elif a < len(snippet_lines):
                raw.append(Hunk(b, b + 1, (snippet_lines[a],)))
            si, oj = a + 1, b + 1
    hunks: list[Hunk] = []
    for h in sorted(raw, key=lambda h: (h.orig_start, h.orig_end)):
        if hunks and hunks[-1].orig_end == h.orig_start:
            p = hunks.pop()
            h = Hunk(p.orig_start, h.orig_end, p.new_lines + h.new_lines)
        hunks.append(h)
    ops: list[LineKind] = ["context" if j in context else "kept" for j in range(len(original_lines))]
    out: list[str] = []
    pos = 0
    for h in hunks:
        kind: LineKind = "replaced" if h.new_lines else "deleted"
        ops[h.orig_start : h.orig_end] = [kind] * (h.orig_end - h.orig_start)
        out += [*original_lines[pos : h.orig_start], *h.new_lines]
        pos = h.orig_end
    out += original_lines[pos:]
    merged = whole if whole is not None else "\n".join(out) + ("\n" if out and nl else "")
    return MergeResult(True, "", merged, tuple(hunks), tuple(ops), whole_file=whole is not None)


def _blanks_differ(a: str, b: str) -> bool:
    """The same line, but the snippet writes its trailing blanks otherwise (a change it shows: a
    commit that strips them); indentation written in tabs or spaces alone is no change."""
    return a.rstrip() == b.rstrip() and a != b


def _segments(snippet_lines: list[str]) -> list[Seg]:
    segs: list[Seg] = []
    cur: list[str] = []
    before = False
    for line in [*snippet_lines, None]:
        if line is not None and not is_marker(line):
            cur.append(line)
            continue
        if any(x.strip() for x in cur):
            segs.append(Seg(tuple(cur), before, None if line is None else indent_of(line)))
        cur, before = [], True
    return segs
