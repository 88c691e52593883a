"""Align a lazy update snippet (changed code, some context, `# ... existing code ...` markers) with
the original text it edits: which original lines it keeps, replaces and deletes, where its new
lines go, and whether that reading is unambiguous. Pure text in, `MergeResult` out; it knows
nothing of the model, tokens or files. The reading rules are in `merge`'s docstring.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["Hunk", "LineKind", "MergeResult", "dropped_lines", "is_marker", "layout", "merge"]

LineKind = Literal["kept", "context", "replaced", "deleted"]
_Pair = tuple[int, int]  # (snippet line, original line) read as the same line
_Span = tuple[int, int, tuple[str, ...], list[_Pair]]  # original [start, end), segment, pairs

_BLANK = 1 << 30  # the indentation of a blank line: it never bounds a block
_RARE = 3  # a segment is placed by its lines found at most this often (or its rarest ones)
_WINDOW = 64  # an anchor's predecessor is sought among this many previous candidates
_MAX_CANDIDATES = 4000  # more candidates than this and no rare line: too ambiguous to try
_DP_CELLS = 40_000  # the largest head alignment tried (head lines x original lines above the anchor)
_COMMENT = re.compile(  # a comment-only line; the group that matched holds the comment's text
    r"\s*(?:(?:#|//|--|;)+(.*?)|/\*+(.*?)\*+/|\{\s*/\*+(.*?)\*+/\s*\}|<!--(.*?)-->)\s*"
)
_NOUN = (
    r"(?:code|file|methods?|functions?|imports?|lines?|class(?:es)?|module|implementation|content"
    r"|body|fields?|properties|logic|tests?|definitions?|statements?|config(?:uration)?|styles?"
    r"|rules?|elements?|markup|html|setup|cases?|handlers?|routes?|components?|declarations?)"
)
_PHRASE = (
    rf"(?:(?:the )?(?:existing|previous|remaining|other|unchanged|same|original) {_NOUN}"
    r"|(?:the )?rest(?: of(?: the)? \w+)?|unchanged|keep(?:ing)? existing(?: \w+)?|no changes?"
    r"|omitted|elided)"
)
_MARKER_TEXT = re.compile(rf"{_PHRASE}(?: (?:{_PHRASE}|here|below|above|as before|as is|etc))*")
_TRIVIAL = frozenset("else try finally except pass return break continue end fi done do".split())


@dataclass(frozen=True)
class Hunk:
    """Original lines [orig_start, orig_end) become `new_lines`; start == end: pure insertion."""

    orig_start: int
    orig_end: int
    new_lines: tuple[str, ...]


@dataclass(frozen=True)
class MergeResult:
    """What `merge` read. When `ok` is False only `reason` is meaningful."""

    ok: bool
    reason: str = ""
    merged: str | None = None
    hunks: tuple[Hunk, ...] = ()  # sorted, non-overlapping, touching ones joined
    ops: tuple[LineKind, ...] = ()  # one per original line (0-based)
    whole_file: bool = False  # a marker-less snippet that replaced the whole file

    @property
    def expected_edits(self) -> tuple[tuple[int, int], ...]:
        """Original line ranges [start, end) that change; (k, k) is an insertion before line k."""
        return tuple((h.orig_start, h.orig_end) for h in self.hunks)


@dataclass(frozen=True)
class _Seg:
    lines: tuple[str, ...]
    marker_before: bool
    marker_after: int | None  # indentation of the marker that ends it; None: end of snippet


class _NoMerge(Exception):
    """Internal: no unambiguous reading; the message becomes `MergeResult.reason`."""


class _NoFit(_NoMerge):
    """Internal: a new opener in a head would enclose the anchor; `after` is the snippet line past
    that new block (the anchors inside it were the new code's lines found elsewhere)."""

    def __init__(self, message: str, after: int) -> None:
        super().__init__(message)
        self.after = after


def is_marker(line: str) -> bool:
    """True for a comment-only line saying code was left out (`// ... existing code ...`, `# ...`).

    Comment forms: #, //, --, ;, /* */, {/* */}, <!-- -->. A bare Python `...` and code that only
    contains the words (`x = "... existing code ..."`) are not markers.
    """
    m = _COMMENT.fullmatch(line)
    if m is None:
        return False
    body = next(g for g in m.groups() if g is not None).lower()
    dots = "..." in body or "…" in body
    text = " ".join(re.sub(r"[^\w\s]", " ", re.sub(r"\.{2,}|…", " ", body)).split())
    if not text:
        return dots  # `# ...`, `/* … */`
    if len(text.split()) > 8:
        return False  # a sentence, not a marker
    if dots:
        return re.search(rf"\b{_PHRASE}\b", text) is not None
    return _MARKER_TEXT.fullmatch(text) is not None


_OPENER = re.compile(r"\s*(#|//|--|;|/\*|\{\s*/\*|<!--)")
# The comment forms each language writes its lazy markers in (languages not listed are not checked).
_C_LIKE = frozenset({"//", "/*"})
COMMENT_FORMS: dict[str, frozenset[str]] = {
    **{lang: _C_LIKE for lang in ("go", "rust", "java", "c", "cpp", "csharp", "kotlin", "swift", "scala")},
    **{lang: _C_LIKE | {"{/*"} for lang in ("javascript", "typescript")},
    **{lang: frozenset({"#"}) for lang in ("python", "ruby", "bash", "yaml", "toml")},
    "php": _C_LIKE | {"#"}, "css": frozenset({"/*"}), "lua": frozenset({"--"}), "sql": frozenset({"--", "/*"}),
    "html": frozenset({"<!--"}),
}


def foreign_markers(snippet: str, language: str) -> list[str]:
    """The comment forms of `snippet`'s lazy markers when none of them is one `language` writes
    (`// ...` markers in a Python edit: a snippet meant for another file); [] otherwise."""
    allowed = COMMENT_FORMS.get(language)
    found = {m.group(1).replace(" ", "") for line in snippet.split("\n")
             if is_marker(line) and (m := _OPENER.match(line))}
    return sorted(found) if allowed and found and not found & allowed else []


IMPLIED_SHARE = 0.5  # a marker-less edit longer than this share of the file may be the whole new file


def implied_snippet(original: str, edit: str, language: str) -> str | None:
    """A marker-less edit that is a piece of this file's code, read as an update snippet: the edit
    between two lazy markers (the code before and after it kept), or None.

    Chat models often leave out both markers and show only the changed code between a few lines of
    context. Read that way when the edit's first and last non-blank lines are lines of the original
    (the context that places it) and one of its lines at least is a distinctive one of the original,
    it is at most `IMPLIED_SHARE` of the file's lines (a
    longer one may be the whole new file, whose dropped tail the implied trailing marker would keep),
    and the wrapped snippet merges unambiguously. Prose never qualifies: its lines are not the file's.
    """
    forms = COMMENT_FORMS.get(language, frozenset())
    opener = "#" if "#" in forms else "//" if "//" in forms else "--" if "--" in forms else None
    lines = [x for x in _lines(edit) if x.strip()]
    if opener is None or len(lines) < 3 or any(is_marker(x) for x in lines):
        return None
    have = {_key(x) for x in _lines(original)}
    shared = [x for x in lines if _key(x) in have and _distinctive(_key(x))]
    if _key(lines[0]) not in have or _key(lines[-1]) not in have or not shared:
        return None
    if len(lines) > IMPLIED_SHARE * sum(1 for x in _lines(original) if x.strip()):
        return None
    def marker(line: str) -> str:  # indented like the code it stands next to
        return f"{line[:len(line) - len(line.lstrip())]}{opener} ... existing code ..."

    wrapped = f"{marker(lines[0])}\n{edit.rstrip(chr(10))}\n{marker(lines[-1])}\n"
    return wrapped if merge(original, wrapped).ok else None


def merge(original: str, snippet: str) -> MergeResult:
    """Read `snippet` (LF-only) as an edit of `original` (LF-only) and apply it.

    - Markers split the snippet into segments. A segment is contiguous code: original lines it
      skips between two of its matched lines are deleted; code under a marker is kept. Lines match
      on whitespace-collapsed text; a match equal up to trailing blanks and tab width is context
      (original text kept), otherwise the snippet's text replaces it (re-indenting is an edit).
    - Distinctive lines (a word that is not a bare keyword: `}`, `else:`, `return;` are not) place
      a segment after the previous one: the chain of its rarest lines' matches that weighs most
      (the length of its lines the original has once, less the lines its links delete; then the
      most anchors; then the shortest span), grown with its other lines at their nearest places;
      a repeated line is sought at the snippet's depth first. A skip may not leave the block of
      the next anchor. Equal chains at two places: ok=False.
    - difflib aligns lines between anchors. Before the first anchor (the head), the context right
      after a marker that stands right above the anchor is kept and the lines after it inserted;
      otherwise a small dynamic program pairs equal lines (a `}` only at its own depth), lines
      edited in place and alike openers, with the head's first line paired if it can be. A head
      that stands exactly in two blocks reads as a deletion between them (the cut with context as
      even on both sides as can be, then the smallest deletion). An opener left unpaired whose
      block reaches the anchor does not fit; a head that inserts and deletes around nothing
      distinctive, or leaves a non-distinctive first line unpaired that the original has: ok=False.
    - After the last anchor (the tail): lines that continue the original, or edit it in place
      (same indentation, close text, not an opener; or an opener with the same first two words),
      pair up; a tail that goes deeper than the last paired line and then leaves that block (next
      marker not deeper) replaces the rest of the block, and so does a tail that stays in the block
      up to a shallower marker; a tail line equal to the next original line pairs with it after new
      lines. Unpaired lines are inserted, before the blank lines they follow when the original goes
      on right after those; a tail of only `}`-like lines that the original has further down is
      ambiguous (ok=False).
    - A segment after a marker that would change nothing reads as a deletion when its lines also
      stand exactly in two blocks (the end of one function, then the one after the next: the one
      between is deleted); above and below both possible: ok=False.
    - A missing leading/trailing marker reads as present (the rest is kept), except that a snippet
      without markers matching over half the original's non-blank lines is a whole-file rewrite:
      merged is the snippet verbatim.
    - A segment with no anchor: it continues the original's end when it starts with (two or more of)
      the original's last lines; it changes nothing when it is only lines the original has between
      markers (unless those could also show a deletion: ok=False); it goes to the bottom if it is
      last with a marker only above it, to the top if it is first with a marker only below it
      (top-level code, not starting with a line like `}` that the original has); else ok=False.

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
    except _NoMerge as exc:
        return MergeResult(ok=False, reason=str(exc))


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
    ol, ml, nl = _lines(original), _lines(result.merged), _lines(output)
    source, _ = layout(result, len(ol))
    assert len(source) == len(ml), "hunks and merged text disagree"
    matcher = difflib.SequenceMatcher(None, [x.rstrip() for x in ml], [x.rstrip() for x in nl], autojunk=False)
    lost = []
    for tag, m1, m2, j1, j2 in matcher.get_opcodes():
        if tag not in ("delete", "replace"):
            continue
        free = list(range(j1, min(j2, j1 + 200)))
        for m in range(m1, m2):
            o = source[m]
            if o is None or not ol[o].strip():
                continue
            scores = [(difflib.SequenceMatcher(None, _key(ol[o]), _key(nl[j])).ratio(), j) for j in free]
            best = max(scores, default=(0.0, -1))
            if best[0] >= 0.6:
                free.remove(best[1])
            else:
                lost.append(o + 1)
    return lost


def _merge(original: str, snippet: str) -> MergeResult:
    ol = _lines(original)
    nl = original.endswith("\n") or (not original and snippet.endswith("\n"))
    segs = _segments(_lines(snippet))
    if not segs:
        raise _NoMerge("snippet has no code besides lazy markers")
    okeys, m = [_key(x) for x in ol], len(ol)
    occ: dict[str, list[int]] = {}
    for j, k in enumerate(okeys):
        if _distinctive(k):
            occ.setdefault(k, []).append(j)
    omin = _min_table([_indent(x) for x in ol])
    chains: list[list[_Pair]] = []
    for seg in segs:
        lo = max((c[-1][1] + 1 for c in chains if c), default=0)
        chains.append(_anchor(seg.lines, occ, omin, lo, ol, resumes=seg.marker_before))
    if len(segs) == 1 and not segs[0].marker_before and segs[0].marker_after is None:
        skeys = [_key(x) for x in segs[0].lines]
        ends = [(-1, -1), *chains[0], (len(skeys), m)]
        pairs = chains[0] + [p for a, b in zip(ends, ends[1:]) for p in _fill(skeys, okeys, a, b)]
        pairs.sort()
        matched, total = sum(1 for _, j in pairs if okeys[j]), sum(1 for k in okeys if k)
        if not total or 2 * matched > total:
            return _finish(ol, [(0, m, segs[0].lines, pairs)], nl, whole=snippet)
    spans: list[_Span] = []
    lo = 0
    for n, (seg, chain) in enumerate(zip(segs, chains)):
        if chain:
            hi = next((c[0][1] for c in chains[n + 1 :] if c), m)
            try:
                start, end, pairs = _extend(seg, chain, ol, okeys, lo, hi)
            except _NoFit as exc:  # anchored on a new block's lines (copied code): anchor past it
                chain = [p for p in chain if p[0] >= exc.after]
                if not chain:
                    raise
                start, end, pairs = _extend(seg, chain, ol, okeys, lo, hi)
            unique = [p for p in chain if len(occ.get(okeys[p[1]], ())) == 1]
            start, end, pairs = _changes_something(seg, unique or chain[-1:], ol, start, end, pairs, lo, hi,
                                                   first=n == 0, below=bool(unique))
            spans.append((start, end, seg.lines, pairs))
            lo = end
            continue
        first = next(x for x in seg.lines if x.strip())
        top_level, at_end = _indent(first) == 0, seg.marker_after is None
        sl, hi = seg.lines, next((c[0][1] for c in chains[n + 1 :] if c), m)
        ot = _rtrim(ol, lo, m)
        k = next((k for k in range(len(sl), 0, -1) if sl[k - 1].strip() and ot - k >= lo
                  and all(_same(sl[i], ol[ot - k + i]) for i in range(k))), 0)
        if n == len(segs) - 1 and seg.marker_before and at_end and sum(1 for x in sl[:k] if x.strip()) >= 2:
            # it starts with the original's last lines (`}` `);`): it goes on from the end
            if k == len(sl) and _split(sl, ol, lo, m):
                raise _NoMerge(f"snippet lines {first.strip()!r}... could show a deletion or nothing")
            spans.append((ot - k, ot, sl, [(i, ot - k + i) for i in range(k)]))
            lo = ot
        elif seg.marker_before and (not at_end or n == len(segs) - 1) and _found(sl, ol, lo, hi):
            # only lines the original has, between markers: wherever they stand, nothing changes;
            # unless they also stand in two blocks, a deletion between them (`}` | `/**`)
            if _split(sl, ol, lo, hi):
                raise _NoMerge(f"snippet lines {first.strip()!r}... could show a deletion or nothing")
        elif top_level and n == len(segs) - 1 and seg.marker_before and at_end:
            if not _distinctive(_key(first)) and any(_key(first) == k for k in okeys[lo:]):
                raise _NoMerge(f"snippet line {first.strip()!r} after a marker could be one of several")
            spans.append((m, m, seg.lines, []))  # a marker only above it: goes to the bottom
        elif top_level and n == 0 and not seg.marker_before and not at_end:
            if not _distinctive(_key(first)) and any(_key(first) == k for k in okeys):
                raise _NoMerge(f"snippet line {first.strip()!r} before a marker could be one of several")
            spans.append((0, 0, seg.lines, []))  # a marker only below it: goes to the top
        elif not any(chains):
            raise _NoMerge("no snippet line matches the original")
        else:
            raise _NoMerge(f"snippet lines could not be anchored: {first.strip()!r}")
    return _finish(ol, spans, nl)


def _anchor(
    sl: tuple[str, ...], occ: dict[str, list[int]], omin: list[list[int]], lo: int, ol: Sequence[str] = (),
    resumes: bool = False,
) -> list[_Pair]:
    """The segment's chain of distinctive (snippet, original) matches from `lo` on, or []."""
    skeys, smin = [_key(x) for x in sl], _min_table([_indent(x) for x in sl])
    where = {i: occ[k][bisect.bisect_left(occ[k], lo) :] for i, k in enumerate(skeys) if k in occ}
    where = {i: js for i, js in where.items() if js}  # snippet line -> its places from `lo` on
    for i, js in where.items():  # a repeated line anchors only at the snippet's depth
        if len(js) > 1:
            where[i] = [j for j in js if omin[0][j] == smin[0][i]]
    where = {i: js for i, js in where.items() if js}
    if not where:
        return []
    if not where:
        return []
    resume = next((i for i, k in enumerate(skeys) if k), None)  # the line right after the marker
    forced = resume in where and len(where[resume]) == 1 and resumes
    if forced:
        # it stands once in the original: the snippet picks the original up there, the rest follows
        where = {i: [j for j in js if (j > where[resume][0]) == (i > resume)] for i, js in where.items()}
        where = {i: js for i, js in where.items() if js}
    limit = max(_RARE, min(len(js) for js in where.values()))
    cands = [(i, j) for i, js in where.items() if len(js) <= limit for j in js]
    if limit > _RARE and len(cands) > _MAX_CANDIDATES:
        raise _NoMerge("the snippet's context lines match too many places")

    def fits(p: _Pair, q: _Pair) -> bool:  # in order, and the lines skipped stay in q's block
        if p[0] >= q[0] or p[1] >= q[1]:
            return False
        return _rmin(omin, p[1] + 1, q[1]) >= min(omin[0][q[1]], _rmin(smin, p[0] + 1, q[0]))

    # candidate -> (length of the anchors standing once, anchors, start) of its best chain: a line
    # the original has once outweighs any number of lines it has more often, a long one a short
    # one (`return joined.length > 0 ? ...` over a new function's `return value;`)
    best: dict[_Pair, tuple[int, int, int]] = {}
    back: dict[_Pair, _Pair | None] = {}
    for n, p in enumerate(cands):
        once = len(skeys[p[0]]) if len(where[p[0]]) == 1 and omin[0][p[1]] == smin[0][p[0]] else 0  # a longer
        # line says more; one at another depth than the snippet's (re-indented, or another line) nothing
        once = 10**6 if forced and p[0] == resume else once  # whatever its chain deletes
        best[p], back[p] = (once, 1, p[1]), None
        for q in cands[max(0, n - _WINDOW) : n]:
            if not fits(q, p):
                continue
            gone = max(0, (p[1] - q[1]) - (p[0] - q[0]))  # original lines this link deletes
            value = (best[q][0] + once - gone, best[q][1] + 1, best[q][2])
            if value > best[p]:
                best[p], back[p] = value, q
    top = max((v[0], v[1], v[2] - p[1]) for p, v in best.items())
    ends = [p for p, v in best.items() if (v[0], v[1], v[2] - p[1]) == top]
    chain: list[_Pair] = []
    node: _Pair | None = ends[0]
    while node is not None:
        chain.insert(0, node)
        node = back[node]
    if len({(best[p][2], p[1]) for p in ends}) > 1:
        i = next((i for i, _ in chain if len(where[i]) > 1), chain[0][0])
        raise _NoMerge(f"context line {sl[i].strip()!r} matches {len(where[i])} places")

    def level(i: int, j: int, p: _Pair) -> bool:  # at another depth, only next to the chain
        return omin[0][j] == smin[0][i] or abs(j - p[1]) == abs(i - p[0])

    def in_place(i: int, j: int) -> bool:  # the line also reads as the original's there, edited
        if 0 <= j < len(ol) and _key(ol[j]) != skeys[i] and _edited(sl, i, ol, j):
            raise _NoMerge(f"snippet line {sl[i].strip()!r} reads as line {j + 1} edited or as the same"
                           " line further off with the code between deleted")
        return False

    for i in range(chain[0][0] - 1, -1, -1):  # grow up, then down: nearest place only; a line
        # that also reads as the original's edited in place (`x >= y` -> `x > y`): ambiguous
        js = where.get(i, [])
        k = bisect.bisect_left(js, chain[0][1]) - 1
        if k >= 0 and fits((i, js[k]), chain[0]) and level(i, js[k], chain[0]) and not in_place(
                i, chain[0][1] - (chain[0][0] - i)):
            chain.insert(0, (i, js[k]))
    for i in range(chain[-1][0] + 1, len(sl)):
        js = where.get(i, [])
        k = bisect.bisect_right(js, chain[-1][1])
        if k < len(js) and fits(chain[-1], (i, js[k])) and level(i, js[k], chain[-1]) and not in_place(
                i, chain[-1][1] + (i - chain[-1][0])):
            chain.append((i, js[k]))
    return chain


def _extend(
    seg: _Seg, chain: list[_Pair], ol: list[str], okeys: list[str], lo: int, hi: int
) -> tuple[int, int, list[_Pair]]:
    """Grow a chain into the segment's original span [start, end) and all its pairs."""
    sl, n, skeys = seg.lines, len(seg.lines), [_key(x) for x in seg.lines]
    pairs = chain + [p for a, b in zip(chain, chain[1:]) for p in _fill(skeys, okeys, a, b)]
    start, head = _head(sl, skeys, ol, okeys, chain[0], lo)
    pairs += head
    o = start
    s, o = chain[-1][0] + 1, chain[-1][1] + 1
    while s < n:  # tail: the lines after the last anchor
        depth = next(_indent(ol[t]) for t in range(o - 1, -1, -1) if ol[t].strip())
        t = next((t for t in range(s, n) if sl[t].strip()), n)
        if o < hi and skeys[s] == okeys[o]:
            pairs.append((s, o))
            s, o = s + 1, o + 1
        elif t < n and _indent(sl[t]) > depth >= (seg.marker_after or 0):
            q, u = o, s  # it went into a block and leaves it: it gave the rest of the body
            while q < hi and _indent(ol[q]) > depth:
                q += 1
            while u < n and _indent(sl[u]) > depth:
                u += 1
            q, u = _rtrim(ol, o, q), _rtrim(sl, s, u)
            pairs += _fill(skeys, okeys, (s - 1, o - 1), (u, q))
            s, o = u, q
        elif o < hi and (_edited(sl, s, ol, o) or (
                _indent(sl[s]) == _indent(ol[o]) and _opens(sl, s) and _opens(ol, o) and _same_name(sl[s], ol[o]))):
            pairs.append((s, o))  # edited in place; an opener that looks alike (`def f(a):` -> `def f(a, b):`)
            s, o = s + 1, o + 1
        elif o < hi and okeys[o] and okeys[o] in skeys[s + 1 :]:  # new lines, then it goes on
            s = skeys.index(okeys[o], s + 1)
        elif seg.marker_after is not None and seg.marker_after < depth and all(
                _indent(x) >= depth for x in sl[s:] if x.strip()):
            # The segment ends inside a block and the marker after it is shallower: the marker
            # stands for what follows the block, so the segment gave the rest of the block.
            q = o
            while q < hi and (not ol[q].strip() or _indent(ol[q]) >= depth):
                q += 1
            q, u = _rtrim(ol, o, q), _rtrim(sl, s, n)
            if (u, q) == (s, o):
                break  # only blank lines left
            pairs += _fill(skeys, okeys, (s - 1, o - 1), (u, q))
            s, o = u, q  # blank lines after it pair with the original's, as above
        else:
            break
    rest = [x for x in sl[s:] if x.strip()]
    k = 0  # new lines left at the segment's end, after blank lines paired with the original's:
    while (s - k - 1, o - k - 1) in pairs and not sl[s - k - 1].strip():
        k += 1  # ... go before those blank lines, which then still part them from what follows
    if rest and k and o < len(ol) and ol[o].strip() and _indent(ol[o]) <= _indent(rest[0]) and sl[-1].strip():
        pairs = [p for p in pairs if p[0] < s - k]
        o -= k
    if rest and not any(_distinctive(_key(x)) for x in rest) and any(
            all(_same(x, y) for x, y in zip(rest, [y for y in ol[q:hi] if y.strip()])) for q in range(o, hi)):
        # Left to insert: only `}` / `/**` lines that the original has further down: a deletion up
        # to them, or new lines? Not a guess to make.
        raise _NoMerge(f"snippet line {rest[0].strip()!r} could be new or the original's, further down")
    return start, o, sorted(pairs)


def _changes_something(seg: _Seg, chain: list[_Pair], ol: list[str], start: int, end: int,
                       pairs: list[_Pair], lo: int, hi: int, first: bool = False, below: bool = True
                       ) -> tuple[int, int, list[_Pair]]:
    """A segment after a marker (or the first, its leading marker left out) that would change nothing, whose lines before its first anchor
    (`}`, blank lines: nothing distinctive) also stand, exactly, at an earlier place: the snippet
    shows a deletion, the lines between that place and the anchor (the usual shape: the end of the
    previous function, then the next one, the one between them gone). `chain` holds the anchors
    that stand once in the original (a line found twice is no anchor for this; with none, the last
    anchor serves, and only above it: `}` `Ok(left)` | `}` is no deletion below). The head may be cut
    anywhere (`}` `}` above the deletion, `#[inline]` below it): the cut with as many lines of
    context above it as below it wins (snippets show context evenly), then the smallest deletion;
    the same reading after the last anchor too: both possible is ambiguous. Else unchanged."""
    sl = seg.lines
    if not (seg.marker_before or first) or len(pairs) != len(sl) or end - start != len(sl):
        return start, end, pairs
    if not all(_same(sl[a], ol[b]) for a, b in pairs):
        return start, end, pairs
    s0, o0 = chain[0]
    head = sl[:s0]
    found: list[tuple[int, int, list[_Pair]]] = []
    c = o0 - len(head)  # where the head stands now, right above the anchor
    cuts = []  # (where the deletion starts, lines above the cut, where those stand)
    for t in range(len(head), 0, -1):  # the deletion after head[:t]
        if not any(x.strip() for x in head[:t]) or not head[t - 1].strip():
            continue
        p = next((p for p in range(c - 1, lo - 1, -1) if all(_same(head[i], ol[p + i]) for i in range(t))), None)
        if p is not None:
            cuts.append((-_imbalance(sl, t), p + t, t, p))
    if cuts:  # context as even on both sides of the cut as can be, then the smallest deletion
        *_, t, p = max(cuts)
        found.append((p, end, [(i, p + i) for i in range(t)] + [q for q in pairs if q[0] >= t]))
    s1, o1 = chain[-1]
    tail = sl[s1 + 1:]
    if below and any(x.strip() for x in tail):
        for q in range(o1 + 2, hi - len(tail) + 1):
            if all(_same(tail[i], ol[q + i]) for i in range(len(tail))):
                if seg.marker_after is None:  # the snippet just stops: the rest kept, or deleted up to there?
                    raise _NoMerge(f"snippet lines after {sl[s1].strip()!r} could show a deletion or nothing")
                rest = [x for x in pairs if x[0] <= s1]
                found.append((start, q + len(tail), rest + [(s1 + 1 + i, q + i) for i in range(len(tail))]))
                break
    if len(found) > 1:
        raise _NoMerge(f"snippet lines around {sl[s0].strip()!r} could delete code above or below it")
    return found[0] if found else (start, end, pairs)


def _head(sl: Sequence[str], skeys: list[str], ol: list[str], okeys: list[str], anchor: _Pair, lo: int
          ) -> tuple[int, list[_Pair]]:
    """Align the lines before a segment's first anchor with the original lines above it: the
    segment's original start and the head's pairs.

    A dynamic program over (head line, original line) from the anchor upwards: a pair of equal lines
    scores 2 (1 when re-indented, ½ for blank lines), a line edited in place or an opener that looks
    alike ½, a snippet line inserted or an original line deleted -1; original lines above the first
    pair are kept for free. Pairing the head's first line scores 3 more: the line after a marker
    is where the snippet picks the original up again. A shallower opener left unpaired would open a
    block around code the original already encloses: ok=False ("does not fit").
    """
    s0, o0 = anchor
    if s0 == 0:
        return o0, []
    if sl[0].strip():  # context right after the marker, then new lines: inserted after that context
        k = next((k for k in range(s0, 0, -1) if o0 - k >= lo
                  and all(_same(sl[i], ol[o0 - k + i]) for i in range(k))), 0)
        if k:
            return o0 - k, [(i, o0 - k + i) for i in range(k)]
    w0 = max(lo, o0 - min(400, 3 * s0 + 60))
    first = next((i for i in range(s0) if sl[i].strip()), None)
    depth_s, depth_o = _indent(sl[s0]), _indent(ol[o0])
    edits: dict[_Pair, float] = {}

    def score(i: int, j: int) -> float | None:
        a, b = sl[i], ol[j]
        if skeys[i] == okeys[j]:
            if not skeys[i] or _indent(a) == _indent(b):
                return 0.5 if not skeys[i] else 2.0
            return 1.0 if _distinctive(skeys[i]) else None  # a `}` at another depth is another `}`
        if not skeys[i] or not okeys[j]:
            return None
        if (i, j) not in edits:
            ok = _edited(sl, i, ol, j) or (_indent(a) < depth_s and _indent(b) < depth_o and _alike(a, b))
            edits[(i, j)] = 0.5 if ok else -9.0
        return edits[(i, j)] if edits[(i, j)] > 0 else None

    def solve(forbid: frozenset[int]) -> tuple[list[_Pair], list[int]]:
        """The best pairs and the inserted head lines; lines in `forbid` are never paired."""
        # best[i][jj]: the best score of aligning sl[i:s0] with ol[w0 + jj:o0]; move for traceback
        width = o0 - w0
        neg = float("-inf")
        best = [[neg] * (width + 1) for _ in range(s0 + 1)]
        move = [[0] * (width + 1) for _ in range(s0 + 1)]  # 1 pair, 2 insert sl[i], 3 delete ol[j]
        best[s0][width] = 0.0
        for i in range(s0, -1, -1):
            for jj in range(width, -1, -1):
                if i == s0 and jj == width:
                    continue
                j = w0 + jj
                cands = []
                if i < s0 and jj < width and best[i + 1][jj + 1] > neg and i not in forbid:
                    sc = score(i, j)
                    if sc is not None:
                        cands.append((best[i + 1][jj + 1] + sc + (3.0 if i == first else 0.0), 1))
                if i < s0 and best[i + 1][jj] > neg:
                    cands.append((best[i + 1][jj] - (0.5 if not sl[i].strip() else 1.0), 2))
                if jj < width and best[i][jj + 1] > neg:
                    cands.append((best[i][jj + 1] - (0.25 if not ol[j].strip() else 1.0), 3))
                if cands:
                    best[i][jj], move[i][jj] = max(cands)
        # the segment starts where its first pair is; lines above it are kept
        jj = max(((best[0][jj], jj) for jj in range(width + 1) if best[0][jj] > neg))[1]
        i, found, new = 0, [], []
        while (i, jj) != (s0, width):
            if move[i][jj] == 1:
                found.append((i, w0 + jj))
                i, jj = i + 1, jj + 1
            elif move[i][jj] == 2:
                new.append(i)
                i += 1
            else:
                jj += 1
        return found, new

    if s0 * (o0 - w0) > _DP_CELLS:  # a long head with nothing to anchor it: new code, all of it
        pairs, inserted = [], list(range(s0))
    else:
        pairs, inserted = solve(frozenset())
    # A block the head opens anew (a new function: its opener is inserted) holds new lines only,
    # its closing line too: its `return value` is not the original's `return rv` edited, its `}`
    # not the previous function's `}`.
    zone = frozenset(t for k in inserted if sl[k].strip() and _opens(sl, k) for t in range(
        k + 1, 1 + next((u for u in range(k + 1, s0) if sl[u].strip() and _indent(sl[u]) <= _indent(sl[k])), s0 - 1)))
    if any(a in zone and sl[a].strip() for a, _ in pairs):
        pairs, inserted = solve(zone)
    start = pairs[0][1] if pairs else o0
    if pairs and not any(sl[a].strip() for a, _ in pairs) and pairs[-1][1] == o0 - 1 and all(
            b - a == pairs[0][1] - pairs[0][0] for a, b in pairs) and _distinctive(skeys[0]) and _indent(sl[0]) == depth_s:
        # New lines at the anchor's depth, then blank lines paired with the blank lines above the
        # anchor: a new sibling, set apart like the anchor is; the original's blank lines stay above.
        return o0, []
    contiguous = len(pairs) == s0 and all(b - a == pairs[0][1] for a, b in pairs)
    if not contiguous and sum(1 for x in sl[:s0] if x.strip()) >= 2:
        # The head stands exactly in the original, in two blocks: its lines above a cut at an
        # earlier place, those below it right above the anchor. A deletion between them, not a
        # reading that pairs `}` lines around other lines or leaves part of the head new. The
        # smallest such deletion wins.
        cuts = []
        for t in range(s0, 0, -1):
            below = o0 - (s0 - t)
            if not sl[t - 1].strip() or not all(_same(sl[i], ol[i - t + below]) for i in range(t, s0)):
                continue
            p = next((p for p in range(below - t, lo - 1, -1) if all(_same(sl[i], ol[p + i]) for i in range(t))), None)
            if p is not None:
                cuts.append((-_imbalance(sl, t), p + t, t, p))
        if cuts:
            *_, t, p = max(cuts)
            below = o0 - (s0 - t)
            return p, [(i, p + i) for i in range(t)] + [(i, i - t + below) for i in range(t, s0)]
    paired = {a for a, _ in pairs}
    deleted = [j for j in range(start if pairs else o0, o0) if j not in {b for _, b in pairs} and ol[j].strip()]
    if inserted and deleted and not any(_distinctive(skeys[a]) for a in paired):
        raise _NoMerge(f"snippet lines above {sl[s0].strip()!r} fit the original in more than one way")
    if first is not None and first not in paired and not _distinctive(skeys[first]) and any(
            okeys[j] == skeys[first] for j in range(lo, o0)):
        raise _NoMerge(f"snippet line {sl[first].strip()!r} after a marker could be one of several")
    for i in inserted:  # an opener whose block would reach the anchor
        if sl[i].strip() and _indent(sl[i]) < depth_s and _opens(sl, i) and all(
                _indent(sl[t]) > _indent(sl[i]) for t in range(i + 1, s0 + 1)):
            close = next((u for u in range(i + 1, len(sl)) if sl[u].strip() and _indent(sl[u]) <= _indent(sl[i])),
                         len(sl) - 1)
            raise _NoFit(f"snippet line {sl[i].strip()!r} does not fit above line {o0 + 1}", close + 1)
    return (pairs[0][1] if pairs else o0), pairs


def _found(block: Sequence[str], ol: list[str], lo: int, hi: int, then: Sequence[str] = ()) -> bool:
    """`block` stands exactly in ol[lo:hi]; with `then`: `then` stands exactly later, not right after."""
    at = [p for p in range(lo, hi - len(block) + 1) if all(_same(x, ol[p + i]) for i, x in enumerate(block))]
    if not then:
        return bool(at)
    return any(all(_same(x, ol[q + i]) for i, x in enumerate(then))
               for p in at[:50] for q in range(p + len(block) + 1, hi - len(then) + 1))


def _split(sl: Sequence[str], ol: list[str], lo: int, hi: int) -> bool:
    """The segment's lines also stand in ol[lo:hi] as two blocks with lines between them."""
    return any(any(x.strip() for x in sl[:t]) and any(x.strip() for x in sl[t:])
               and _found(sl[:t], ol, lo, hi, sl[t:]) for t in range(1, len(sl)))


def _imbalance(sl: Sequence[str], t: int) -> int:
    """How uneven the non-blank lines of a segment are above and below a cut before line `t`."""
    above = sum(1 for x in sl[:t] if x.strip())
    return abs(above - sum(1 for x in sl[t:] if x.strip()))


def _fill(skeys: list[str], okeys: list[str], a: _Pair, b: _Pair) -> list[_Pair]:
    """difflib's pairs strictly between pair `a` and pair `b`."""
    s1, o1 = a[0] + 1, a[1] + 1
    sm = difflib.SequenceMatcher(None, skeys[s1 : b[0]], okeys[o1 : b[1]], autojunk=False)
    return [(s1 + i + t, o1 + j + t) for i, j, n in sm.get_matching_blocks() for t in range(n)]


def _finish(ol: list[str], spans: list[_Span], nl: bool, whole: str | None = None) -> MergeResult:
    """Turn spans and their pairs into hunks, per-line kinds and the merged text."""
    raw: list[Hunk] = []
    context: set[int] = set()
    for start, end, sl, pairs in spans:
        si, oj = 0, start
        for a, b in [*pairs, (len(sl), end)]:
            if a > si or b > oj:
                raw.append(Hunk(oj, b, sl[si:a]))
            if a < len(sl) and _same(sl[a], ol[b]):
                context.add(b)
            elif a < len(sl):
                raw.append(Hunk(b, b + 1, (sl[a],)))
            si, oj = a + 1, b + 1
    hunks: list[Hunk] = []
    for h in sorted(raw, key=lambda h: (h.orig_start, h.orig_end)):
        if hunks and hunks[-1].orig_end == h.orig_start:
            p = hunks.pop()
            h = Hunk(p.orig_start, h.orig_end, p.new_lines + h.new_lines)
        hunks.append(h)
    ops: list[LineKind] = ["context" if j in context else "kept" for j in range(len(ol))]
    out: list[str] = []
    pos = 0
    for h in hunks:
        kind: LineKind = "replaced" if h.new_lines else "deleted"
        ops[h.orig_start : h.orig_end] = [kind] * (h.orig_end - h.orig_start)
        out += [*ol[pos : h.orig_start], *h.new_lines]
        pos = h.orig_end
    out += ol[pos:]
    merged = whole if whole is not None else "\n".join(out) + ("\n" if out and nl else "")
    return MergeResult(True, "", merged, tuple(hunks), tuple(ops), whole_file=whole is not None)


def _segments(sl: list[str]) -> list[_Seg]:
    segs: list[_Seg] = []
    cur: list[str] = []
    before = False
    for line in [*sl, None]:
        if line is not None and not is_marker(line):
            cur.append(line)
            continue
        if any(x.strip() for x in cur):
            segs.append(_Seg(tuple(cur), before, None if line is None else _indent(line)))
        cur, before = [], True
    return segs


def _min_table(vals: list[int]) -> list[list[int]]:
    """Sparse table: row r holds the minima of `vals` over windows of 2**r."""
    table = [vals]
    while 2 ** len(table) <= len(vals):
        row, w = table[-1], 2 ** (len(table) - 1)
        table.append([min(row[i], row[i + w]) for i in range(len(row) - w)])
    return table


def _rmin(table: list[list[int]], lo: int, hi: int) -> int:
    """min(vals[lo:hi]) from `_min_table(vals)`; _BLANK when empty."""
    if hi <= lo:
        return _BLANK
    r = (hi - lo).bit_length() - 1
    return min(table[r][lo], table[r][hi - 2**r])


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _key(line: str) -> str:
    return " ".join(line.split())


def _indent(line: str) -> int:
    text = line.expandtabs(4)
    return len(text) - len(text.lstrip()) if text.strip() else _BLANK


def _rtrim(lines: Sequence[str], lo: int, hi: int) -> int:
    while hi > lo and not lines[hi - 1].strip():
        hi -= 1
    return hi


def _distinctive(key: str) -> bool:
    words = " ".join(re.sub(r"\W+", " ", key).split())
    return bool(words) and words not in _TRIVIAL


def _same(a: str, b: str) -> bool:
    return any(a.rstrip().expandtabs(t) == b.rstrip().expandtabs(t) for t in (4, 8))


def _opens(lines: Sequence[str], i: int) -> bool:
    nxt = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), None)
    return nxt is not None and _indent(lines[nxt]) > _indent(lines[i])


def _edited(sl: Sequence[str], i: int, ol: Sequence[str], j: int) -> bool:
    """sl[i] reads as ol[j] edited in place: same indentation, close text, neither opens a block."""
    a, b = sl[i], ol[j]
    if not a.strip() or _indent(a) != _indent(b) or _opens(sl, i) or _opens(ol, j):
        return False
    return difflib.SequenceMatcher(None, a.strip(), b.strip()).ratio() >= 0.75


def _same_name(a: str, b: str) -> bool:
    """Two lines that start with the same two words (`def has(cls):`, `def has(cls, total=None):`)."""
    wa, wb = re.findall(r"\w+", a)[:2], re.findall(r"\w+", b)[:2]
    return len(wa) == 2 and wa == wb


def _alike(a: str, b: str) -> bool:
    """Two openers that are probably one line edited: same first two words, or close text."""
    wa, wb = re.findall(r"\w+", a)[:2], re.findall(r"\w+", b)[:2]
    close = difflib.SequenceMatcher(None, a.strip(), b.strip()).ratio() >= 0.75
    return (len(wa) == 2 and wa == wb) or close
