"""merge.py's alignment internals: placing one segment of an update snippet in the original.

Owns finding a segment's anchors (its distinctive lines, in order, in the original: `_anchor`),
growing an anchored segment over the lines around its anchors (`_extend`, `_head` for the lines above
the first anchor, `_changes_something` for a segment that would change nothing), and the line
comparisons all of that rests on (keys, indentation, "the same line", openers of blocks). Pure text;
merge.py owns the reading rules, the results and the public names.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from applyedit.mergelines import (
    _alike,
    _distinctive,
    _edited,
    _fill,
    _imbalance,
    _indent,
    _key,
    _min_table,
    _opens,
    _Pair,
    _rmin,
    _rtrim,
    _same,
    _same_name,
)

_RARE = 3  # a segment is placed by its lines found at most this often (or its rarest ones)
_WINDOW = 64  # an anchor's predecessor is sought among this many previous candidates
_MAX_CANDIDATES = 4000  # more candidates than this and no rare line: too ambiguous to try
_DP_CELLS = 40_000  # the largest head alignment tried (head lines x original lines above the anchor)


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
        assert resume is not None
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
    pairs = chain + [p for a, b in zip(chain, chain[1:], strict=False) for p in _fill(skeys, okeys, a, b)]
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
            all(_same(x, y) for x, y in zip(rest, [y for y in ol[q:hi] if y.strip()], strict=False))
            for q in range(o, hi)):
        # Left to insert: only `}` / `/**` lines that the original has further down: a deletion up
        # to them, or new lines? Not a guess to make.
        raise _NoMerge(f"snippet line {rest[0].strip()!r} could be new or the original's, further down")
    return start, o, sorted(pairs)


def _changes_something(seg: _Seg, chain: list[_Pair], ol: list[str], start: int, end: int,
                       pairs: list[_Pair], lo: int, hi: int, first: bool = False, below: bool = True
                       ) -> tuple[int, int, list[_Pair]]:
    """A segment after a marker (or the first, its leading marker left out) that would change nothing, whose
    lines before its first anchor
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
        jj = max((best[0][jj], jj) for jj in range(width + 1) if best[0][jj] > neg)[1]
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
        pairs: list[_Pair] = []
        inserted = list(range(s0))
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
            b - a == pairs[0][1] - pairs[0][0] for a, b in pairs) and _distinctive(skeys[0]) \
            and _indent(sl[0]) == depth_s:
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
