"""A segment's anchors: placing one segment of an update snippet in the original.

Owns finding a segment's anchors (its distinctive lines, in order, in the original: `anchor_segment`, by
way of their places, the best chain and growing it by neighbouring lines), growing an anchored
segment over the lines around its anchors (`extend_chain`; `_tail` for the lines after the last anchor,
head.py's `place_head` for those above the first), and `changes_something` for a segment that would
change nothing. Pure text; the line comparisons are lines.py's, and the package (merge/__init__.py)
owns the reading rules, the results and the public names.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from applyedit import interrupt
from applyedit.errors import quoted
from applyedit.markers import attached
from applyedit.merge.head import place_head
from applyedit.merge.lines import (
    NoMerge,
    Pair,
    distinctive,
    edited_line,
    fill_between,
    imbalance,
    indent_of,
    line_key,
    min_table,
    opens_block,
    range_min,
    rtrim,
    same_line,
    same_name,
)

_RARE = 3  # a segment is placed by its lines found at most this often (or its rarest ones)
_WINDOW = 64  # an anchor's predecessor is sought among this many previous candidates
_MAX_CANDIDATES = 4000  # more candidates than this and no rare line: too ambiguous to try


@dataclass(frozen=True)
class Seg:
    lines: tuple[str, ...]
    marker_before: bool
    marker_after: int | None  # indentation of the marker that ends it; None: end of snippet


def anchor_segment(
    snippet: tuple[str, ...],
    occ: dict[str, list[int]],
    original_min: list[list[int]],
    lo: int,
    original: Sequence[str] = (),
    resumes: bool = False,
) -> list[Pair]:
    """The segment's chain of distinctive (snippet, original) matches from `lo` on, or []."""
    snippet_keys, snippet_min = [line_key(x) for x in snippet], min_table([indent_of(x) for x in snippet])
    where = _places(snippet_keys, snippet_min, occ, original_min, lo)
    if not where:
        return []
    resume = next((i for i, k in enumerate(snippet_keys) if k), None)  # the line right after the marker
    forced = resume in where and len(where[resume]) == 1 and resumes
    if forced:
        # it stands once in the original: the snippet picks the original up there, the rest follows
        assert resume is not None
        where = {i: [j for j in js if (j > where[resume][0]) == (i > resume)] for i, js in where.items()}
        where = {i: js for i, js in where.items() if js}
    limit = max(_RARE, min(len(js) for js in where.values()))
    cands = [(i, j) for i, js in where.items() if len(js) <= limit for j in js]
    if limit > _RARE and len(cands) > _MAX_CANDIDATES:
        raise NoMerge("the snippet's context lines match too many places")
    chain = _chain(snippet, snippet_keys, snippet_min, original_min, where, cands, resume if forced else None)
    return _detached(_grow(chain, snippet, snippet_keys, snippet_min, original, original_min, where), snippet)


def _detached(chain: list[Pair], snippet: Sequence[str]) -> list[Pair]:
    """The chain less its leading decorators, annotations or attributes (markers.attached) that stand
    right above the next anchor in the snippet but not in the original: they belong to that line
    (head.py's `_attached` places them), not to the place where they match (`@pytest.fixture` is the
    function above's). A comment that matches is context: prose seldom repeats, decorators do."""
    k = next((k for k, (i, _) in enumerate(chain) if attached(snippet[i]) != "attribute"), 0)
    i, j = chain[k]
    right_above = all(chain[t][0] == i - k + t for t in range(k))
    if not k or not right_above or all(chain[t][1] == j - k + t for t in range(k)):
        return chain
    return chain[k:]


def _places(
    snippet_keys: list[str],
    snippet_min: list[list[int]],
    occ: dict[str, list[int]],
    original_min: list[list[int]],
    lo: int,
) -> dict[int, list[int]]:
    """Snippet line -> its places in the original from `lo` on (a repeated line only at the snippet's depth)."""
    where = {i: occ[k][bisect.bisect_left(occ[k], lo) :] for i, k in enumerate(snippet_keys) if k in occ}
    where = {i: js for i, js in where.items() if js}  # snippet line -> its places from `lo` on
    for i, js in where.items():  # a repeated line anchors only at the snippet's depth
        if len(js) > 1:
            where[i] = [j for j in js if original_min[0][j] == snippet_min[0][i]]
    return {i: js for i, js in where.items() if js}


def _fits(original_min: list[list[int]], snippet_min: list[list[int]], p: Pair, q: Pair) -> bool:
    """p before q in both texts, and the lines skipped between them stay in q's block."""
    if p[0] >= q[0] or p[1] >= q[1]:
        return False
    return range_min(original_min, p[1] + 1, q[1]) >= min(original_min[0][q[1]], range_min(snippet_min, p[0] + 1, q[0]))


def _chain(
    snippet: tuple[str, ...],
    snippet_keys: list[str],
    snippet_min: list[list[int]],
    original_min: list[list[int]],
    where: dict[int, list[int]],
    cands: list[Pair],
    forced: int | None,
) -> list[Pair]:
    """The best chain of candidates; `forced`, the snippet line that must anchor (or None). Two
    equally good chains at different places are ambiguous."""
    # candidate -> (length of the anchors standing once, anchors, start) of its best chain: a line
    # the original has once outweighs any number of lines it has more often, a long one a short
    # one (`return joined.length > 0 ? ...` over a new function's `return value;`)
    best: dict[Pair, tuple[int, int, int]] = {}
    back: dict[Pair, Pair | None] = {}
    for n, p in enumerate(cands):
        interrupt.check()
        once = (
            len(snippet_keys[p[0]]) if len(where[p[0]]) == 1 and original_min[0][p[1]] == snippet_min[0][p[0]] else 0
        )  # a longer
        # line says more; one at another depth than the snippet's (re-indented, or another line) nothing
        once = 10**6 if forced is not None and p[0] == forced else once  # whatever its chain deletes
        best[p], back[p] = (once, 1, p[1]), None
        for q in cands[max(0, n - _WINDOW) : n]:
            if not _fits(original_min, snippet_min, q, p):
                continue
            gone = max(0, (p[1] - q[1]) - (p[0] - q[0]))  # original lines this link deletes
            value = (best[q][0] + once - gone, best[q][1] + 1, best[q][2])
            if value > best[p]:
                best[p], back[p] = value, q
    top = max((v[0], v[1], v[2] - p[1]) for p, v in best.items())
    ends = [p for p, v in best.items() if (v[0], v[1], v[2] - p[1]) == top]
    chain: list[Pair] = []
    node: Pair | None = ends[0]
    while node is not None:
        chain.insert(0, node)
        node = back[node]
    if len({(best[p][2], p[1]) for p in ends}) > 1:
        i = next((i for i, _ in chain if len(where[i]) > 1), chain[0][0])
        raise NoMerge(f"context line {quoted(snippet[i])} matches {len(where[i])} places")
    return chain


def _grow(
    chain: list[Pair],
    snippet: tuple[str, ...],
    snippet_keys: list[str],
    snippet_min: list[list[int]],
    original: Sequence[str],
    original_min: list[list[int]],
    where: dict[int, list[int]],
) -> list[Pair]:
    """The chain grown up, then down, by the snippet lines next to it at their nearest place."""

    def level(i: int, j: int, p: Pair) -> bool:  # at another depth, only next to the chain
        return original_min[0][j] == snippet_min[0][i] or abs(j - p[1]) == abs(i - p[0])

    def in_place(i: int, j: int) -> bool:  # the line also reads as the original's there, edited
        if 0 <= j < len(original) and line_key(original[j]) != snippet_keys[i] and edited_line(snippet, i, original, j):
            raise NoMerge(
                f"snippet line {quoted(snippet[i])} reads as line {j + 1} edited or as the same"
                " line further off with the code between deleted"
            )
        return False

    for i in range(chain[0][0] - 1, -1, -1):  # grow up, then down: nearest place only; a line
        # that also reads as the original's edited in place (`x >= y` -> `x > y`): ambiguous
        js = where.get(i, [])
        k = bisect.bisect_left(js, chain[0][1]) - 1
        if (
            k >= 0
            and _fits(original_min, snippet_min, (i, js[k]), chain[0])
            and level(i, js[k], chain[0])
            and not in_place(i, chain[0][1] - (chain[0][0] - i))
        ):
            chain.insert(0, (i, js[k]))
    for i in range(chain[-1][0] + 1, len(snippet)):
        js = where.get(i, [])
        k = bisect.bisect_right(js, chain[-1][1])
        if (
            k < len(js)
            and _fits(original_min, snippet_min, chain[-1], (i, js[k]))
            and level(i, js[k], chain[-1])
            and not in_place(i, chain[-1][1] + (i - chain[-1][0]))
        ):
            chain.append((i, js[k]))
    return chain


def extend_chain(
    seg: Seg, chain: list[Pair], original: list[str], original_keys: list[str], lo: int, hi: int
) -> tuple[int, int, list[Pair]]:
    """Grow a chain into the segment's original span [start, end) and all its pairs."""
    snippet, snippet_keys = seg.lines, [line_key(x) for x in seg.lines]
    pairs = chain + [
        p for a, b in zip(chain, chain[1:], strict=False) for p in fill_between(snippet_keys, original_keys, a, b)
    ]
    start, head = place_head(snippet, snippet_keys, original, original_keys, chain[0], lo)
    pairs += head
    s, o, tail = _tail(seg, snippet_keys, original, original_keys, chain[-1], hi)
    pairs += tail
    rest = [x for x in snippet[s:] if x.strip()]
    k = 0  # new lines left at the segment's end, after blank lines paired with the original's:
    while (s - k - 1, o - k - 1) in pairs and not snippet[s - k - 1].strip():
        k += 1  # ... go before those blank lines, which then still part them from what follows
    if (
        rest
        and k
        and o < len(original)
        and original[o].strip()
        and indent_of(original[o]) <= indent_of(rest[0])
        and snippet[-1].strip()
    ):
        pairs = [p for p in pairs if p[0] < s - k]
        o -= k
    if (
        rest
        and not any(distinctive(line_key(x)) for x in rest)
        and any(
            all(same_line(x, y) for x, y in zip(rest, [y for y in original[q:hi] if y.strip()], strict=False))
            for q in range(o, hi)
        )
    ):
        # Left to insert: only `}` / `/**` lines that the original has further down: a deletion up
        # to them, or new lines? Not a guess to make.
        raise NoMerge(f"snippet line {quoted(rest[0])} could be new or the original's, further down")
    return start, o, sorted(pairs)


def _tail(
    seg: Seg, snippet_keys: list[str], original: list[str], original_keys: list[str], last: Pair, hi: int
) -> tuple[int, int, list[Pair]]:
    """The lines after the segment's last anchor: where pairing stopped (snippet line, original
    line) and the pairs made on the way."""
    snippet, n = seg.lines, len(seg.lines)
    s, o = last[0] + 1, last[1] + 1
    pairs: list[Pair] = []
    while s < n:
        depth = next(indent_of(original[t]) for t in range(o - 1, -1, -1) if original[t].strip())
        t = next((t for t in range(s, n) if snippet[t].strip()), n)
        if o < hi and snippet_keys[s] == original_keys[o]:
            pairs.append((s, o))
            s, o = s + 1, o + 1
        elif t < n and indent_of(snippet[t]) > depth >= (seg.marker_after or 0):
            q, u = o, s  # it went into a block and leaves it: it gave the rest of the body
            while q < hi and indent_of(original[q]) > depth:
                q += 1
            while u < n and indent_of(snippet[u]) > depth:
                u += 1
            q, u = rtrim(original, o, q), rtrim(snippet, s, u)
            pairs += fill_between(snippet_keys, original_keys, (s - 1, o - 1), (u, q))
            s, o = u, q
        elif o < hi and (
            edited_line(snippet, s, original, o)
            or (
                indent_of(snippet[s]) == indent_of(original[o])
                and opens_block(snippet, s)
                and opens_block(original, o)
                and same_name(snippet[s], original[o])
            )
        ):
            pairs.append((s, o))  # edited in place; an opener that looks alike (`def f(a):` -> `def f(a, b):`)
            s, o = s + 1, o + 1
        elif o < hi and original_keys[o] and original_keys[o] in snippet_keys[s + 1 :]:  # new lines, then it goes on
            s = snippet_keys.index(original_keys[o], s + 1)
        elif (
            seg.marker_after is not None
            and seg.marker_after < depth
            and all(indent_of(x) >= depth for x in snippet[s:] if x.strip())
        ):
            # The segment ends inside a block and the marker after it is shallower: the marker
            # stands for what follows the block, so the segment gave the rest of the block.
            q = o
            while q < hi and (not original[q].strip() or indent_of(original[q]) >= depth):
                q += 1
            q, u = rtrim(original, o, q), rtrim(snippet, s, n)
            if (u, q) == (s, o):
                break  # only blank lines left
            pairs += fill_between(snippet_keys, original_keys, (s - 1, o - 1), (u, q))
            s, o = u, q  # blank lines after it pair with the original's, as above
        else:
            break
    return s, o, pairs


def changes_something(
    seg: Seg,
    chain: list[Pair],
    original: list[str],
    start: int,
    end: int,
    pairs: list[Pair],
    lo: int,
    hi: int,
    first: bool = False,
    below: bool = True,
) -> tuple[int, int, list[Pair]]:
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
    snippet = seg.lines
    if not (seg.marker_before or first) or len(pairs) != len(snippet) or end - start != len(snippet):
        return start, end, pairs
    if not all(same_line(snippet[a], original[b]) for a, b in pairs):
        return start, end, pairs
    s0, o0 = chain[0]
    head = snippet[:s0]
    found: list[tuple[int, int, list[Pair]]] = []
    c = o0 - len(head)  # where the head stands now, right above the anchor
    cuts = []  # (where the deletion starts, lines above the cut, where those stand)
    for t in range(len(head), 0, -1):  # the deletion after head[:t]
        if not any(x.strip() for x in head[:t]) or not head[t - 1].strip():
            continue
        p = next(
            (p for p in range(c - 1, lo - 1, -1) if all(same_line(head[i], original[p + i]) for i in range(t))),
            None,
        )
        if p is not None:
            cuts.append((-imbalance(snippet, t), p + t, t, p))
    if cuts:  # context as even on both sides of the cut as can be, then the smallest deletion
        *_, t, p = max(cuts)
        found.append((p, end, [(i, p + i) for i in range(t)] + [q for q in pairs if q[0] >= t]))
    s1, o1 = chain[-1]
    tail = snippet[s1 + 1 :]
    if below and any(x.strip() for x in tail):
        for q in range(o1 + 2, hi - len(tail) + 1):
            if all(same_line(tail[i], original[q + i]) for i in range(len(tail))):
                if seg.marker_after is None:  # the snippet just stops: the rest kept, or deleted up to there?
                    raise NoMerge(f"snippet lines after {quoted(snippet[s1])} could show a deletion or nothing")
                rest = [x for x in pairs if x[0] <= s1]
                found.append((start, q + len(tail), rest + [(s1 + 1 + i, q + i) for i in range(len(tail))]))
                break
    if len(found) > 1:
        raise NoMerge(f"snippet lines around {quoted(snippet[s0])} could delete code above or below it")
    return found[0] if found else (start, end, pairs)
