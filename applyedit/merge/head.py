"""A segment's head: placing the lines above a segment's first anchor (`place_head`).

Owns aligning a segment's head with the original lines above its first anchor (a dynamic program
over (head line, original line) pairs, `_solve`), reading a head that stands in the original in two
blocks as a deletion between them (`_cut`), and refusing a head that fits in more than one way or
would open a block around the anchor (`_check`); a head of decorators, annotations, attributes or
comments belongs to the anchor (`_attached`). Pure text; anchors.py calls it while it grows an anchored
segment.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from applyedit.errors import quoted
from applyedit.markers import attached
from applyedit.merge.lines import (
    NoFit,
    NoMerge,
    Pair,
    Pairing,
    alike_line,
    distinctive,
    edited_line,
    imbalance,
    indent_of,
    opens_block,
    same_line,
)

_DP_CELLS = 40_000  # the largest head alignment tried (head lines x original lines above the anchor)


def place_head(
    snippet: Sequence[str],
    snippet_keys: list[str],
    original: list[str],
    original_keys: list[str],
    anchor: Pair,
    lo: int,
) -> tuple[int, list[Pair]]:
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
    own = _attached(snippet, snippet_keys, original, original_keys, anchor, lo)
    if own is not None:
        return own
    if snippet[0].strip():  # context right after the marker, then new lines: inserted after that context
        k = next(
            (
                k
                for k in range(s0, 0, -1)
                if o0 - k >= lo and all(same_line(snippet[i], original[o0 - k + i]) for i in range(k))
            ),
            0,
        )
        if k:
            return o0 - k, [(i, o0 - k + i) for i in range(k)]
    pairs, inserted = _align(snippet, snippet_keys, original, original_keys, anchor, lo)
    depth_s = indent_of(snippet[s0])
    start = pairs[0][1] if pairs else o0
    if (
        pairs
        and not any(snippet[a].strip() for a, _ in pairs)
        and pairs[-1][1] == o0 - 1
        and all(b - a == pairs[0][1] - pairs[0][0] for a, b in pairs)
        and distinctive(snippet_keys[0])
        and indent_of(snippet[0]) == depth_s
    ):
        # New lines at the anchor's depth, then blank lines paired with the blank lines above the
        # anchor: a new sibling, set apart like the anchor is; the original's blank lines stay above.
        return o0, []
    contiguous = len(pairs) == s0 and all(b - a == pairs[0][1] for a, b in pairs)
    if not contiguous and sum(1 for x in snippet[:s0] if x.strip()) >= 2:
        cut = _cut(snippet, original, anchor, lo)
        if cut is not None:
            return cut
    _check(snippet, snippet_keys, original, original_keys, anchor, lo, pairs, inserted, start)
    return (pairs[0][1] if pairs else o0), pairs


def _attached(
    snippet: Sequence[str],
    snippet_keys: list[str],
    original: list[str],
    original_keys: list[str],
    anchor: Pair,
    lo: int,
) -> tuple[int, list[Pair]] | None:
    """A head that is only lines belonging to the anchor (decorators, annotations, attributes, comments:
    markers.attached) right above it, none of them a distinctive line of the original's run of such
    lines right above the anchor (`/**` and `*/` are not), is the anchor's: it takes the place of the
    run's lines of its kinds (edited in place: `@staticmethod` now `@classmethod`, `#[derive(Debug)]`
    now `#[derive(Debug, Clone)]`), or is added below the run when that has none of its kinds. The
    segment's original start and its pairs (blank lines above it), or None when the head is not such
    a run (the other rules place it, and pair the run's line it shows, a comment that tells what the
    original has, or a lone `*/`). Fewer lines than the run's of its kinds, or a run whose lines of
    its kinds are not all right above the anchor: ok=False (replaced, or added to?)."""
    s0, o0 = anchor
    first = next(i for i in range(s0 + 1) if snippet[i].strip())
    head = range(first, s0)
    kinds = {attached(snippet[i]) for i in head}
    if first == s0 or None in kinds or attached(snippet[s0]) is not None:
        return None  # not only such lines, or above another such line (a doc comment's first line)
    if any(indent_of(snippet[i]) - indent_of(snippet[s0]) not in (0, 1) for i in head):
        return None
    if any(
        all(same_line(snippet[first + i], original[o0 - k + i]) for i in range(k))
        for k in range(1, min(s0 - first, o0 - lo) + 1)
    ):
        return None  # it opens with the lines right above the anchor (a `*/`): context, then new lines
    prose = {snippet_keys[i] for i in head if attached(snippet[i]) == "comment" and distinctive(snippet_keys[i])}
    if prose & set(original_keys[lo:]):
        return None  # a comment that the original has is context (decorators repeat: they need not be)
    run = o0  # the original's lines that belong to the anchor
    while (
        run > lo
        and attached(original[run - 1]) is not None
        and indent_of(original[run - 1]) - indent_of(original[o0]) in (0, 1)
    ):
        run -= 1
    shown = set(original_keys[run:o0])
    if any(distinctive(snippet_keys[i]) and snippet_keys[i] in shown for i in head):
        return None  # it shows the run's line
    if not any(distinctive(snippet_keys[i]) and snippet_keys[i] not in shown for i in head):
        return None  # it brings nothing that says something: `*/` closing the doc above is context
    own = o0
    while own > run and attached(original[own - 1]) in kinds:
        own -= 1
    if any(attached(x) in kinds for x in original[run:own]) or o0 - own > len(head):
        raise NoMerge(
            f"snippet lines above {quoted(snippet[s0])} could replace the {o0 - run} line(s) above it in the "
            "original or be added to them"
        )
    blanks = 0  # blank lines that open the segment pair with those above its place
    while blanks < first and own - blanks > lo and not original[own - blanks - 1].strip():
        blanks += 1
    return own - blanks, [(first - t, own - t) for t in range(blanks, 0, -1)]


def _align(
    snippet: Sequence[str],
    snippet_keys: list[str],
    original: list[str],
    original_keys: list[str],
    anchor: Pair,
    lo: int,
) -> tuple[list[Pair], list[int]]:
    """The head's best pairs with the original lines above the anchor, and its inserted lines."""
    s0, o0 = anchor
    w0 = max(lo, o0 - min(400, 3 * s0 + 60))
    first = next((i for i in range(s0) if snippet[i].strip()), None)
    depth_s, depth_o = indent_of(snippet[s0]), indent_of(original[o0])
    edits: dict[Pair, float] = {}

    def score(i: int, j: int) -> float | None:
        a, b = snippet[i], original[j]
        if snippet_keys[i] == original_keys[j]:
            if not snippet_keys[i] or indent_of(a) == indent_of(b):
                return 0.5 if not snippet_keys[i] else 2.0
            return 1.0 if distinctive(snippet_keys[i]) else None  # a `}` at another depth is another `}`
        if not snippet_keys[i] or not original_keys[j]:
            return None
        if (i, j) not in edits:
            ok = edited_line(snippet, i, original, j) or (
                indent_of(a) < depth_s and indent_of(b) < depth_o and alike_line(a, b)
            )
            edits[(i, j)] = 0.5 if ok else -9.0
        return edits[(i, j)] if edits[(i, j)] > 0 else None

    if s0 * (o0 - w0) > _DP_CELLS:  # a long head with nothing to anchor it: new code, all of it
        pairs: list[Pair] = []
        inserted = list(range(s0))
    else:
        pairs, inserted = _solve(snippet, original, anchor, w0, first, score, frozenset())
    # A block the head opens anew (a new function: its opener is inserted) holds new lines only,
    # its closing line too: its `return value` is not the original's `return rv` edited, its `}`
    # not the previous function's `}`.
    zone = frozenset(
        t
        for k in inserted
        if snippet[k].strip() and opens_block(snippet, k)
        for t in range(
            k + 1,
            1
            + next(
                (u for u in range(k + 1, s0) if snippet[u].strip() and indent_of(snippet[u]) <= indent_of(snippet[k])),
                s0 - 1,
            ),
        )
    )
    if any(a in zone and snippet[a].strip() for a, _ in pairs):
        pairs, inserted = _solve(snippet, original, anchor, w0, first, score, zone)
    return pairs, inserted


def _solve(
    snippet: Sequence[str],
    original: list[str],
    anchor: Pair,
    w0: int,
    first: int | None,
    score: Callable[[int, int], float | None],
    forbid: frozenset[int],
) -> tuple[list[Pair], list[int]]:
    """The best pairs and the inserted head lines; lines in `forbid` are never paired."""
    s0, o0 = anchor
    # best[i][jj]: the best score of aligning snippet[i:s0] with original[w0 + jj:o0]; move for traceback
    width = o0 - w0
    neg = float("-inf")
    best = [[neg] * (width + 1) for _ in range(s0 + 1)]
    move = [[0] * (width + 1) for _ in range(s0 + 1)]  # 1 pair, 2 insert snippet[i], 3 delete original[j]
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
                cands.append((best[i + 1][jj] - (0.5 if not snippet[i].strip() else 1.0), 2))
            if jj < width and best[i][jj + 1] > neg:
                cands.append((best[i][jj + 1] - (0.25 if not original[j].strip() else 1.0), 3))
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


def _cut(snippet: Sequence[str], original: list[str], anchor: Pair, lo: int) -> tuple[int, list[Pair]] | None:
    """The head standing exactly in the original, in two blocks: its lines above a cut at an earlier
    place, those below it right above the anchor. A deletion between them, not a reading that pairs
    `}` lines around other lines or leaves part of the head new. The smallest such deletion wins;
    None when there is no such cut."""
    s0, o0 = anchor
    cuts = []
    for t in range(s0, 0, -1):
        below = o0 - (s0 - t)
        if (
            below < lo
            or not snippet[t - 1].strip()
            or not all(same_line(snippet[i], original[i - t + below]) for i in range(t, s0))
        ):
            continue
        p = next(
            (p for p in range(below - t, lo - 1, -1) if all(same_line(snippet[i], original[p + i]) for i in range(t))),
            None,
        )
        if p is not None:
            cuts.append((-imbalance(snippet, t), p + t, t, p))
    if not cuts:
        return None
    *_, t, p = max(cuts)
    below = o0 - (s0 - t)
    return p, [(i, p + i) for i in range(t)] + [(i, i - t + below) for i in range(t, s0)]


def _check(
    snippet: Sequence[str],
    snippet_keys: list[str],
    original: list[str],
    original_keys: list[str],
    anchor: Pair,
    lo: int,
    pairs: list[Pair],
    inserted: list[int],
    start: int,
) -> None:
    """Refuse a head that fits the original in more than one way, or whose inserted opener would
    open a block around the anchor (`NoFit`)."""
    s0, o0 = anchor
    first = next((i for i in range(s0) if snippet[i].strip()), None)
    depth_s = indent_of(snippet[s0])
    paired = {a for a, _ in pairs}
    deleted = [j for j in range(start if pairs else o0, o0) if j not in {b for _, b in pairs} and original[j].strip()]
    if inserted and deleted and not any(distinctive(snippet_keys[a]) for a in paired):
        raise Pairing(f"snippet lines above {quoted(snippet[s0])} fit the original in more than one way")
    if (
        first is not None
        and first not in paired
        and not distinctive(snippet_keys[first])
        and any(original_keys[j] == snippet_keys[first] for j in range(lo, o0))
    ):
        raise Pairing(f"snippet line {quoted(snippet[first])} after a marker could be one of several")
    for i in inserted:  # an opener whose block would reach the anchor
        if (
            snippet[i].strip()
            and indent_of(snippet[i]) < depth_s
            and opens_block(snippet, i)
            and all(indent_of(snippet[t]) > indent_of(snippet[i]) for t in range(i + 1, s0 + 1))
        ):
            close = next(
                (
                    u
                    for u in range(i + 1, len(snippet))
                    if snippet[u].strip() and indent_of(snippet[u]) <= indent_of(snippet[i])
                ),
                len(snippet) - 1,
            )
            raise NoFit(f"snippet line {quoted(snippet[i])} does not fit above line {o0 + 1}", close + 1)
