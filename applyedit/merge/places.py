"""A segment's places in the original (merge/contextread.py reads a snippet by them): where its head
and tail stand (`candidates`, each scored by its context and what it deletes), which other places fit its
text as well (`contenders`), and the shapes a place may take past its head and tail: a block rewritten
whole (`_rewritten`), the segment standing as two blocks with a deletion between (`two_blocks`), a block
of as many lines edited one for one (`edits_one_block`). Also what a place is (`Placed`), the questions
a segment leaves open (`Alts`, each of a kind: `PLACES`, `OPEN`, ...) and why a snippet has no reading
(`NoReading`). Pure text; the Original (merge/original.py) says what a place breaks and how new lines
below a head read as edits of the lines there.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass

from applyedit import interrupt
from applyedit.linediff import Matcher, alike, depth, key, likeness
from applyedit.merge.original import BIG_DELETION, Original, telling


@dataclass(frozen=True)
class NoReading:
    """Why the snippet has no single reading; `inherent`: two readings fit its text equally (two
    places, or "does the file end here?"), so no reader can choose, the model included."""

    message: str
    inherent: bool = False


@dataclass(frozen=True)
class Placed:
    """A segment's place: original [start, end) replaced by `lines`."""

    start: int
    end: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Alts:
    """A segment's places that its text does not tell apart (the options of a question it leaves open:
    two places, "does the file end here?", an insertion or a rewrite): each a `Placed`, or None where it
    changes nothing. Every option is a reading of the segment; readings.py weighs the files they give."""

    why: str
    options: tuple[Placed | None, ...]
    kind: str  # which question (`PLACES`, `WAY`, `OPEN`, ...): the decision reads it, the message is for people
    end: int | None = None  # where the next segment's search starts, when not past the option taken


# The kinds of question a segment leaves open (`Alts.kind`)
PLACES = "places"  # it stands at several places, its context as telling at each
WAY = "way"  # at one place, as new lines or in place of the lines there
DELETION = "deletion"  # as deleting many lines of code, or few
OPEN = "open"  # new lines at an open start or end: the original's code there replaced, or kept
AT_AN_END = "at an end"  # a line of the original at an open start or end: does the file start (end) there?
UNCHANGED = "unchanged"  # it changes nothing at an open start or end: does the file start (end) there?
SPLIT = "split"  # it stands as it is, and as two blocks (a deletion between them)
EDGE = "edge"  # its first (last) lines new, or edits of the lines beside its place


@dataclass(frozen=True)
class Either:
    """A segment that changes nothing where it stands whole, or deletes the code between its blocks."""

    why: str
    end: int  # where it stands whole ends
    deletion: Placed | NoReading  # two lines of code or more on both sides of its cut


_SAID = 2  # telling lines of context that count, on each side
_NEAR = 3  # places of a head above its tail (of a tail below its head) tried, nearest first
# Lines of the file parsed weighing a segment's other places by what they break (one whole file per
# place) before the segment counts as having too many places to tell apart: no reading. A bound on
# the work whatever the file's size (about 5 s here); at least _WEIGHED places. The most the tests'
# snippets need: 109 places of a 734-line file (80,000 lines); a file with the context repeated at
# every function has hundreds of places.
_WEIGH_LINES = 400_000
_WEIGHED = 8


Candidate = tuple[tuple[int, int, int], int, int, int, int, int]  # score, start, end, head, tail, gone


def candidates(
    orig: Original,
    lines: tuple[str, ...],
    keys: list[str],
    heads: list[tuple[int, list[int]]],
    tails: list[tuple[int, list[int]]],
    lo: int,
    open_top: bool,
    open_end: bool,
) -> list[Candidate]:
    """Places of the segment: (score, start, end, head, tail), original [start, end) replaced. The
    score: the most telling lines in head and tail first (the most context, two a side), then the
    fewest original lines of code deleted, then the most lines of head and tail. Last: the code lines
    it deletes. A head and a tail place it between them (`_between`); a head alone, its new lines
    follow it (to the file's end at an open end) or rewrite the block's body; a tail alone, they stand
    right above it; neither, at an open start (end), the file's start (end)."""
    both = _between(orig, keys, heads, tails)
    if both:
        return _near(orig, lines, keys, both)
    found: list[Candidate] = []
    for h, hp in heads:  # no tail below the head: the new lines follow it, or rewrite the block's body
        for p in hp:
            end = _end_of_file(orig, p + h) if open_end else _rewritten(orig, keys, p, h) or p + h
            found.append(_candidate(orig, keys, p, end, h, 0))
    if found:
        return found
    last = _end_of_file(orig, 0) if open_end else None
    if last is not None and any(last in tp for _, tp in tails):
        if not any(telling(k) for k in keys[len(keys) - max(t for t, _ in tails) :]):
            # a tail that says nothing (`}`) and no marker below: the file's end, where it stands there
            tails = [(t, [last]) for t, tp in tails if last in tp]
    for t, tp in tails:  # no head: the new lines go right above the tail
        for q in tp:
            found.append(_candidate(orig, keys, orig.first_code(q - t) if open_top else q - t, q, 0, t))
    if found:
        return found
    if open_top:
        top = orig.first_code(len(orig.lines))
        return [((0, 0, 0), top, top, 0, 0, 0)]
    if open_end:
        end = _end_of_file(orig, lo)
        return [((0, 0, 0), end, end, 0, 0, 0)]
    return []


def _candidate(orig: Original, keys: list[str], start: int, end: int, h: int, t: int) -> Candidate:
    """The segment at original [start, end), its head of `h` lines at `start`, its tail of `t` ending at `end`."""
    gone = _gone(orig, keys, start + h, end - t, h, t)
    return ((sum(sides(keys, h, t)), -gone, h + t), start, end, h, t, gone)


def _gone(orig: Original, keys: list[str], a: int, b: int, h: int, t: int) -> int:
    """The code lines of original [a, b) that the segment's lines between head and tail match none of."""
    stretch = orig.keys[a:b]
    inner = keys[h : len(keys) - t]
    if not stretch:
        return 0
    sm = difflib.SequenceMatcher(None, inner, stretch, autojunk=False)
    matched = sum(1 for i, _, n in sm.get_matching_blocks() for k in range(n) if inner[i + k])
    return sum(1 for x in stretch if x) - matched


def _end_of_file(orig: Original, after: int) -> int:
    """Just past the original's last line of code from `after` on (blank lines at the end stay)."""
    end = len(orig.lines)
    while end > after and not orig.lines[end - 1].strip():
        end -= 1
    return end


def _between(
    orig: Original, keys: list[str], heads: list[tuple[int, list[int]]], tails: list[tuple[int, list[int]]]
) -> list[tuple[Candidate, int]]:
    """The places between a head and a tail below it, each with how many nearer places of its head or
    tail there are: the head's places above the tail and the tail's below the head, nearest first, a few
    (`_NEAR`), as a farther one that deletes little more is another reading (`contenders`). Both lists
    ascend, so a head's tails past the first `_NEAR` below it have `_NEAR` nearer ones already."""
    both: list[tuple[Candidate, int]] = []
    for h, hp in heads:
        for t, tp in tails:
            if h + t > len(keys):
                continue
            for p in hp:
                interrupt.check()
                first = bisect.bisect_left(tp, p + h + t)
                for nearer_tails, q in enumerate(tp[first : first + _NEAR]):
                    nearer_heads = bisect.bisect_right(hp, q - t - h) - bisect.bisect_right(hp, p)
                    if nearer_heads + nearer_tails < _NEAR:
                        both.append((_candidate(orig, keys, p, q, h, t), nearer_heads + nearer_tails))
    return both


def _near(
    orig: Original, lines: tuple[str, ...], keys: list[str], both: list[tuple[Candidate, int]]
) -> list[Candidate]:
    """Of the places between a head and a tail, those near (no nearer place of either), or deleting
    little, or whose edges are edits (a rewrite), at one depth (`_level`) where any is. Where every place
    at one depth is far, past nearer places of weak context: a nearer place at another depth is no
    nearer context (a `}` of an inner block), and a head and a tail that each say something place a
    segment with one of them at another depth (a line moved into a new block)."""

    def kept(found: list[tuple[Candidate, int]]) -> list[Candidate]:  # near, or deleting little
        return [c for c, nearer in found if not nearer or c[5] <= BIG_DELETION or edited_edge(orig, keys, c)]

    flat = [_level(orig, lines, *c[1:5]) for c, _ in both]
    level = [c for c, at_depth in zip(both, flat, strict=True) if at_depth]
    near = kept(level or both)
    if near or not level:
        return near
    at = {c[1:5] for c, _ in level}
    level = [
        (c, sum((p == c[1] and c[2] > q) or (q == c[2] and p > c[1]) for p, q, h, t in at if (h, t) == c[3:5]))
        for c, _ in level
    ]
    moved = [
        (c, n) for (c, n), at_depth in zip(both, flat, strict=True) if not at_depth and all(sides(keys, c[3], c[4]))
    ]
    return kept(level + moved)


def edit_in_place(
    orig: Original,
    lines: tuple[str, ...],
    keys: list[str],
    heads: list[tuple[int, list[int]]],
    tails: list[tuple[int, list[int]]],
    lo: int,
    deleted: int,
) -> int | None:
    """Where a segment that stands whole elsewhere, and reads as deleting `deleted` code lines, also
    reads as a much smaller edit: a head and a tail that each tell something, with code lines between
    them replaced, BIG_DELETION fewer than that deletion (a line changed to the text it has in a copy
    of the block elsewhere). None when there is no such place."""
    for c in candidates(orig, lines, keys, heads, tails, lo, False, False):
        ch, ct = sides(keys, c[3], c[4])
        if c[3] and c[4] and ch and ct and 0 < c[5] and deleted > c[5] + BIG_DELETION:
            return c[1] + c[3]
    return None


# How alike (difflib ratio) each line of a segment with no context is to the one it edits (`edits_one_block`): a
# year, a version or a word changed; not `import json` for `import os`, nor `int sub(int a, int b);` for `int add`.
EDITED = 0.9


def edits_one_block(orig: Original, keys: list[str], lo: int, hi: int | None) -> int | None:
    """Where a segment with no line of the original is an edit of a block of as many lines, one for one
    (`EDITED` alike each, the blank lines blank), standing once from `lo` on (by `hi`): the first line of
    that block (a licence header's year changed, the snippet showing that line alone); None where no
    block or several are so alike. Each of its lines says something, and none is alike another line of
    the original (`alike`: a new name in a list of names is no edit of the one it resembles)."""
    size = len(keys)
    if not size or not all(telling(k) for k in keys if k):
        return None
    end = len(orig.keys) if hi is None else min(hi, len(orig.keys))
    found = [
        j
        for j in range(lo, end - size + 1)
        if all(
            (not k) == (not orig.keys[j + i]) and (not k or likeness(k, orig.keys[j + i]) >= EDITED)
            for i, k in enumerate(keys)
        )
    ]
    if len(found) != 1:
        return None
    j = found[0]
    near = (
        t != j + i and orig.keys[t] and alike(k, orig.keys[t]) for i, k in enumerate(keys) if k for t in range(lo, end)
    )
    return None if any(near) else j


def alike_anywhere(orig: Original, keys: list[str], lo: int) -> tuple[int, int] | None:
    """A line of the segment that says something and is alike (or equal to) a line of the original
    from `lo` on: (segment index, original index)."""
    for i, k in enumerate(keys):
        if not telling(k):
            continue
        for j in range(lo, len(orig.keys)):
            o = orig.keys[j]
            if o and (o == k or likeness(k, o) >= 0.75):
                return i, j
    return None


def candidate_damage(orig: Original, lines: tuple[str, ...], c: Candidate) -> int:
    """What a reading breaks (Original.damage)."""
    return orig.damage(c[1], c[2], orig.keep(lines, c[3], c[1], c[4], c[2]), lines)


def at_an_end(
    orig: Original,
    keys: list[str],
    heads: list[tuple[int, list[int]]],
    tails: list[tuple[int, list[int]]],
    open_end: bool,
    open_top: bool,
) -> Candidate | None:
    """A segment with no marker below whose head stands at the file's last lines also reads as new
    code appended there, deleting nothing (likewise above the file's first lines, with no marker
    above): a second reading beside one that deletes code to fit a tail that stands further up."""
    last, first = orig.last_code(0), orig.first_code(len(orig.lines))
    if open_end:
        for h, hp in heads:
            if h < len(keys) and last - h in hp:
                return ((0, 0, h), last - h, last, h, 0, 0)
    if open_top:
        for t, tp in tails:
            if t < len(keys) and first + t in tp:
                return ((0, 0, t), first, first + t, 0, t, 0)
    return None


def edited_edge(orig: Original, keys: list[str], c: Candidate) -> bool:
    """Whether the segment's new line next to its head or tail is an edit of the original line it
    replaces there (alike text, not the same): the reading rewrites that stretch, however long."""
    _, p, q, h, t, _ = c
    size = len(keys)
    pairs = [(h, p + h)] if h and h < size - t and p + h < q - t else []
    if t and size - t - 1 >= h and q - t - 1 >= p + h:
        pairs.append((size - t - 1, q - t - 1))
    return any(
        keys[i] and orig.keys[j] and keys[i] != orig.keys[j] and likeness(keys[i], orig.keys[j]) >= 0.75
        for i, j in pairs
    )


def closes_new(orig: Original, keys: list[str], c: Candidate) -> bool:
    """Whether a reading's tail may be the closing lines of the new lines' own block, not the original's
    there: new lines between head and tail open a bracket that the tail closes, the tail (`return NULL;`
    `}`) stands again further down, and the reading deletes a few lines of code one of which no new line
    speaks of (no word of it in them: not a rewrite of those lines) and keeps the lines at its edges
    (`edited_edge`). A new `if (...) {` block then reads both as closing at its own `}` and as taking over
    the next block's `}`, deleting that block's opening lines: two readings."""
    _, p, q, h, t, gone = c
    if not (h and t and 0 < gone <= BIG_DELETION) or edited_edge(orig, keys, c):
        return False
    new, tail = keys[h : len(keys) - t], keys[len(keys) - t :]
    if not _opens(new) > 0 > _opens(tail) or len(orig.blocks(tail, p + h)) < 2:
        return False
    words = set(re.findall(r"\w+", " ".join(new)))
    return any(set(re.findall(r"\w+", k)).isdisjoint(words) for k in orig.keys[p + h : q - t] if telling(k))


def _opens(keys: list[str]) -> int:
    """Brackets the lines open and leave open (negative: close more than they open)."""
    text = "".join(keys)
    return sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")


def sides(keys: list[str], h: int, t: int) -> tuple[int, int]:
    """Telling lines of context in a reading's head and tail, two at most each: a snippet shows two lines
    of context, and a longer run is new code repeating old code as often as it is context."""
    return min(_SAID, sum(1 for k in keys[:h] if telling(k))), min(
        _SAID, sum(1 for k in keys[len(keys) - t :] if telling(k))
    )


def contenders(
    orig: Original, lines: tuple[str, ...], keys: list[str], best: Candidate, cands: list[Candidate], most: int
) -> list[Candidate]:
    """Another reading of the segment that fits its text as well as the best one and gives another
    file: its head and tail each tell as much as the best one's do (where the best one's says
    nothing, `}` or `return`, as many of its lines), or, when it deletes nothing where the best one
    deletes code, at least one telling line each; and it deletes at most BIG_DELETION code lines
    more (any number when its edges are edits and the best one's are not); and it breaks no more than
    the best one (`Original.damage`). Then the choice between them is a guess (a repeated block of
    context, a tail that also stands a few lines on, an insertion that also reads as a rewrite)."""
    bh, bt = sides(keys, best[3], best[4])
    mine = orig.result(best[1], best[2], orig.keep(lines, best[3], best[1], best[4], best[2]))
    broken: int | None = None
    weighed = 0
    found: list[Candidate] = []
    files = {mine}
    for c in cands:
        interrupt.check()
        ch, ct = sides(keys, c[3], c[4])
        big = c[5] > best[5] + BIG_DELETION and not (edited_edge(orig, keys, c) and not edited_edge(orig, keys, best))
        if ch < min(bh, 1) or ct < min(bt, 1) or big:
            continue
        if c[3] < best[3] and not bh or c[4] < best[4] and not bt:  # less of a context that says nothing
            continue
        if (ch < bh or ct < bt) and not (c[5] == 0 < best[5]):  # less context, unless it deletes nothing
            continue
        theirs = orig.keep(lines, c[3], c[1], c[4], c[2])
        file = orig.result(c[1], c[2], theirs)
        if file in files:
            continue
        if broken is None:
            broken = candidate_damage(orig, lines, best)
        if orig.damage(c[1], c[2], theirs, lines) <= broken:  # one that breaks more is no reading
            found.append(c)
            files.add(file)
            if len(found) >= most:
                return found
            continue
        weighed += 1
        if weighed >= max(_WEIGHED, _WEIGH_LINES // max(1, len(orig.lines))):  # too many to tell apart
            raise TooMany(weighed, c[1])
    return found


def edit_by_its_words(orig: Original, options: tuple[Placed, ...]) -> Placed | None:
    """Of a segment's places that its context tells apart no better, each replacing lines of code with new
    ones, the one whose replaced lines miss fewer of the new lines' words (a subset of those missing at each
    other place), replacing no more lines, one of the two strictly: `} else if (gt.x ...)` edits the `gt`
    block's line, not its twin's. None where no place is so, or where a place only adds or deletes lines."""
    changes = []
    for option in options:
        old, new = orig.keys[option.start : option.end], [key(line) for line in option.lines]
        blocks = [op for op in Matcher(old, new).get_opcodes() if op[0] != "equal"]
        gone = [line for _, a, b, _, _ in blocks for line in old[a:b] if line]
        added = [line for _, _, _, c, d in blocks for line in new[c:d] if line]
        if not gone or not added:
            return None
        changes.append((set(re.findall(r"\w+", " ".join(added))) - set(re.findall(r"\w+", " ".join(gone))), len(gone)))
    for option, (missing, replaced) in zip(options, changes, strict=True):
        others = [other for other in changes if other != (missing, replaced)]
        if len(others) == len(changes) - 1 and all(missing <= words and replaced <= n for words, n in others):
            return option
    return None


class TooMany(Exception):
    """Many other places of a segment weighed and none told apart yet (args: how many, the last one's start)."""


def _level(orig: Original, lines: tuple[str, ...], p: int, q: int, h: int, t: int) -> bool:
    """Whether the head (at original p) and the tail (ending at q) stand at one depth: each of their
    code lines indented by the same amount more (or less) than the original line it matches. A run
    that matches the original's text one level deeper is moved code (a block dedented), not context."""
    shifts = {depth(lines[i]) - depth(orig.lines[p + i]) for i in range(h) if lines[i].strip()}
    size = len(lines)
    shifts |= {
        depth(lines[size - t + i]) - depth(orig.lines[q - t + i]) for i in range(t) if lines[size - t + i].strip()
    }
    return len(shifts) <= 1


def _rewritten(orig: Original, keys: list[str], p: int, h: int) -> int | None:
    """Where a block's body ends when the segment's lines after its head rewrite all of it: the head
    ends on a line that opens a block, the new lines are as many as the body's, each the body's line
    edited (alike text); the line after the body is back at the head's depth. None otherwise (the
    new lines are inserted)."""
    new = [k for k in keys[h:] if k]
    if not new or h == 0:
        return None
    opener = orig.lines[p + h - 1]
    body = [j for j in range(p + h, len(orig.lines)) if orig.lines[j].strip()][: len(new) + 1]
    if len(body) < len(new) or depth(orig.lines[body[0]]) <= depth(opener):
        return None
    if len(body) > len(new) and depth(orig.lines[body[len(new)]]) > depth(opener):
        return None  # the block goes on past them
    edits = all(alike(a, orig.keys[j]) for a, j in zip(new, body, strict=False))
    return body[len(new) - 1] + 1 if edits else None


def two_blocks(orig: Original, keys: list[str], lo: int, where: str) -> tuple[Placed | NoReading, bool] | None:
    """The segment read as two blocks of the original with code between them, which it deletes (the
    end of one function, then the start of the one after the next); None when it stands so nowhere.
    The cut with as many lines of code above it as below wins (snippets show context evenly), then
    the smallest deletion; two such readings that differ: no reading. Also whether the cut has two
    lines of code or more on both sides (with one, which block it ends is a guess)."""
    found = []
    for cut in range(1, len(keys)):
        above, below = keys[:cut], keys[cut:]
        n_above, n_below = sum(1 for k in above if k), sum(1 for k in below if k)
        if not n_above or not n_below:
            continue
        for q in orig.blocks(below, lo):
            ps = [p for p in orig.blocks(above, lo) if p + cut < q and orig.has_code(p + cut, q)]
            if ps:
                p = ps[-1]  # the nearest above
                gone = sum(1 for x in orig.lines[p + cut : q] if x.strip())
                found.append((abs(n_above - n_below), gone, p, cut, q, min(n_above, n_below) >= 2))
    if not found:
        return None
    best = min(f[:2] for f in found)
    places = sorted({(p + cut, q) for score0, score1, p, cut, q, _ in found if (score0, score1) == best})
    shown_around = all(f[5] for f in found if f[:2] == best)
    if len({orig.result(start, end, ()) for start, end in places}) > 1:
        why = f"{where} could delete the code after line {places[0][0]} or after line {places[1][0]}"
        return NoReading(why), shown_around
    start, end = places[0]
    return Placed(start, end, ()), shown_around
