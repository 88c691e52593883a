"""One segment's place in the original, and the questions it leaves open (merge/contextread.py reads
the snippet segment by segment with `place`). Each rule is one function: a segment that changes
nothing (`_unchanged`), one with no place by its head and tail (`_placeless`, `_contextless`), several
places that fit as well (`_several`, `_other_way`), its one place (`_one_place`), an open start or end
(`_open_after_new`, `_open_at_context`), lines at its place's edges that may be edits of the lines
beside it (`_edges`), lines attached to the line below them (merge/attached.py). A question is an
`Alts`: each option one reading, its kind (`PLACES`, `OPEN`, ...) what the decision reads. The rules
are listed, with examples, in docs/reading.md ("Line by line"). Pure text; the places are
merge/places.py's, what a place breaks merge/original.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

from applyedit import markers
from applyedit.errors import quoted
from applyedit.invariants import Segment
from applyedit.linediff import edited_in_order, key
from applyedit.merge import attached, places
from applyedit.merge.original import Original, telling
from applyedit.merge.places import BIG_DELETION, Alts, Candidate, Either, NoReading, Placed

__all__ = ["FEW_PAST", "MOST_PLACES", "place"]

FEW_PAST = 3  # code lines past an open start or end that may be deleted or kept: a question
MOST_PLACES = 5  # places of one segment offered as readings at most (the best and the contenders weighed)


@dataclass(frozen=True)
class _Search:
    """One segment's search for its place: the original, the segment and its lines' keys, where the search
    starts (`lo`) and must end by (`hi`, where a marker inside the block above bounds it), its open edges
    (the snippet's first segment with no marker above, its last with none below) and its name in messages."""

    orig: Original
    seg: Segment
    keys: list[str]
    lo: int
    hi: int | None
    open_top: bool
    open_end: bool
    where: str

    def breaks_no_more(self, lo: int, hi: int, start: int, end: int, lines: tuple[str, ...]) -> bool:
        """Whether replacing original [lo, hi) with `lines` breaks no more than replacing [start, end) alone."""
        seg = self.seg.lines
        return self.orig.damage(lo, hi, lines, seg) <= self.orig.damage(start, end, lines, seg)


def place(
    orig: Original, seg: Segment, lo: int, first: bool, last: bool, number: int, hi: int | None = None
) -> Placed | NoReading | Either | Alts | None:
    """Segment `number`'s place from original line `lo` on (and ending by `hi`, where a marker inside
    the block above bounds it): None when it changes nothing."""
    own = attached.read(orig, seg, lo, first, last, number, hi, place)
    if own is not None:
        return own
    keys = [key(x) for x in seg.lines]
    where = f"segment {number} (from {quoted(seg.lines[0])})"
    s = _Search(orig, seg, keys, lo, hi, first and not seg.marker_before, last and not seg.marker_after, where)
    heads = orig.head_runs(keys, lo)
    if heads and heads[0][0] == len(keys):  # all of it stands in the original: it changes nothing
        return _unchanged(s, heads)
    tails = orig.tail_runs(keys, lo)
    cands = places.candidates(orig, seg.lines, keys, heads, tails, lo, s.open_top, s.open_end)
    if hi is not None and max(cands, default=(None, 0, 0))[2] > hi and any(c[2] <= hi for c in cands):
        cands = [c for c in cands if c[2] <= hi]  # the best past the block its marker is inside: inside it
    if not cands:
        return _placeless(s, bool(heads and tails))
    if not any(c[3] or c[4] for c in cands) and orig.has_code(lo, len(orig.lines)):
        return _contextless(s)
    return _several(s, cands, heads, tails) or _one_place(s, cands)


def _unchanged(s: _Search, heads: list[tuple[int, list[int]]]) -> NoReading | Either | Alts | None:
    """A segment that stands in the original as it is changes nothing, unless its lines also stand as two
    blocks with code between them, two lines of code or more on each side of the cut (a deletion, or
    nothing: two readings; with one line there, which block it ends is a guess, and it stands whole), or
    it ends (starts) the snippet with no marker below (above) where the original goes on: does the file
    end (start) there?"""
    orig, size = s.orig, len(s.keys)
    split = places.two_blocks(orig, s.keys, s.lo, s.where)
    if split is not None and split[1]:  # one line at the cut: which block it ends is a guess, not a reading
        cut = split[0]
        deleted = sum(1 for x in orig.lines[cut.start : cut.end] if x.strip()) if isinstance(cut, Placed) else 0
        tails = orig.tail_runs(s.keys, s.lo)[1:]
        edit = places.edit_in_place(orig, s.seg.lines, s.keys, heads[1:], tails, s.lo, deleted)
        if edit is not None:
            return NoReading(
                f"{s.where} stands in the original as it is, as two blocks (a deletion between them), and "
                f"as an edit at original line {edit + 1}",
                inherent=True,
            )
        why = f"{s.where} stands in the original as it is and also as two blocks (a deletion between them)"
        return Either(why, heads[0][1][0] + size, cut)
    p = heads[0][1][0]
    if s.open_end and orig.has_code(p + size, len(orig.lines)):
        return Alts(
            f"{s.where} changes nothing and ends the snippet with no marker below: does the file end there?",
            (None, Placed(p + size, orig.last_code(p + size), ())),
            places.UNCHANGED,
        )
    if s.open_top and orig.has_code(0, p):
        return Alts(
            f"{s.where} changes nothing and starts the snippet with no marker above: does the file start there?",
            (None, Placed(orig.first_code(p), p, ())),
            places.UNCHANGED,
        )
    return None


def _placeless(s: _Search, out_of_order: bool) -> Placed | NoReading:
    """A segment whose head and tail give no place: an edit, one for one, of a block of as many lines that
    stands once (`places.edits_one_block`); else no reading."""
    if out_of_order:
        return NoReading(f"{s.where}: its first and last lines do not stand in that order in the original")
    edited = places.edits_one_block(s.orig, s.keys, s.lo, s.hi)
    if edited is not None:
        return Placed(edited, edited + len(s.keys), s.seg.lines)
    return NoReading(f"{s.where} has no line of the original to place it by")


def _contextless(s: _Search) -> Placed | NoReading | Alts:
    """A segment with no line of the original around it where the original has code: an edit of the
    file's first (last) lines or new lines beside them (`_edge_of_file`), an edit of one block of as many
    lines (`places.edits_one_block`); else new code at the file's end, or an edit somewhere? No reading."""
    orig = s.orig
    edge = _edge_of_file(orig, s.seg, s.keys, s.lo, s.open_top, s.open_end, s.where)
    if edge is not None:
        return edge
    edited = places.edits_one_block(orig, s.keys, s.lo, s.hi)
    if edited is not None:
        return Placed(edited, edited + len(s.keys), s.seg.lines)
    like = places.alike_anywhere(orig, s.keys, s.lo)
    return NoReading(
        f"{s.where} has no line of the original around it"
        + (f", and its line {like[0] + 1} is alike original line {like[1] + 1}" if like else "")
        + f": new code at the file's {'end' if s.open_end else 'start'}, or an edit somewhere? (show a line of "
        "context next to it)",
        inherent=True,
    )


def _several(
    s: _Search, cands: list[Candidate], heads: list[tuple[int, list[int]]], tails: list[tuple[int, list[int]]]
) -> NoReading | Alts | Placed | None:
    """Other places that fit the segment's text as well as the best one (`places.contenders`), or another
    way at the best one's place (`_other_way`): each one reading, up to `MOST_PLACES`; too many to tell
    apart: no reading. None where it stands alone; of all (under `MOST_PLACES`), `places.edit_by_its_words`'s."""
    orig, keys = s.orig, s.keys
    chosen = max(cands)
    # readings that delete little, or whose edges are edits of the lines there (a rewrite)
    small = [c for c in cands if c[5] <= BIG_DELETION or places.edited_edge(orig, keys, c)]
    try:
        others = places.contenders(orig, s.seg.lines, keys, chosen, small, most=MOST_PLACES - 1)
    except places.TooMany as many:
        return NoReading(
            f"{s.where} fits its context at original line {chosen[1] + 1} and at {many.args[0]} or more other "
            f"places (line {many.args[1] + 1} among them): too many to tell apart (show a line of context that "
            "stands once in the file)",
            inherent=True,
        )
    found = others or [other for other in [_other_way(s, chosen, heads, tails)] if other is not None]
    if not found:
        return None
    starts = sorted({c[1] + 1 for c in (chosen, *found)})
    at = (
        f"at original line {starts[0]} in more than one way (as new lines, or in place of the lines there)"
        if len(starts) == 1
        else f"at original lines {', '.join(map(str, starts[:-1]))} and {starts[-1]}"
    )
    options = tuple(_at(orig, s.seg, keys, c) for c in (chosen, *found))
    edit = places.edit_by_its_words(orig, options) if 1 < len(starts) and len(options) < MOST_PLACES else None
    return edit or Alts(
        f"{s.where} could stand {at}, its context as telling at each",
        options,
        places.WAY if len(starts) == 1 else places.PLACES,
    )


def _other_way(
    s: _Search, chosen: Candidate, heads: list[tuple[int, list[int]]], tails: list[tuple[int, list[int]]]
) -> Candidate | None:
    """Another reading at the best place's own lines: a tail that says nothing (`}`) far below, its
    brackets the new lines' own, the segment rewriting the block its head opens through its own context
    there (`Original.through`); a tail that closes the new lines' own block (`places.closes_new`); new code
    appended at the file's open end (start), where appending breaks no more (`places.at_an_end`)."""
    orig, keys, seg = s.orig, s.keys, s.seg
    _, p, q, h, t, gone = chosen
    if seg.marker_after and h and t and not places.sides(keys, h, t)[1]:
        far = gone > BIG_DELETION and not places.edited_edge(orig, keys, chosen)  # not a rewrite of the stretch
        through = orig.through(keys, h, p + h, q - t) if far else None
        if through is not None and through < q:
            return ((0, 0, 0), p, through, h, 0, 0)
    if seg.marker_after and places.closes_new(orig, keys, chosen):
        return ((0, 0, 0), p, p + h, h, 0, 0)  # the new lines' own brackets
    if gone and (s.open_end or s.open_top):
        appended = places.at_an_end(orig, keys, heads, tails, s.open_end, s.open_top)
        damage = places.candidate_damage
        if appended is not None and damage(orig, seg.lines, appended) <= damage(orig, seg.lines, chosen):
            return appended  # else appending breaks more (a definition twice): not a reading
    return None


def _one_place(s: _Search, cands: list[Candidate]) -> Placed | Alts:
    """The segment's one place: where the best candidates stand (two that give two files: a question),
    unless it deletes far more than another reading does (a question: a snippet shows a large deletion
    by its own context), or it leaves an open end or edge open (`_open_questions`, `_edges`)."""
    orig, seg = s.orig, s.seg
    best = max(cands)[0]
    top = {(start, end, h, t) for score, start, end, h, t, _ in cands if score == best}
    texts = sorted({(start, end, orig.keep(seg.lines, h, start, t, end)) for start, end, h, t in top})
    if len({orig.result(start, end, lines) for start, end, lines in texts}) > 1:
        a, b = texts[:2]
        return Alts(
            f"{s.where} could stand at original lines {a[0] + 1} and {b[0] + 1}",
            tuple(Placed(*x) for x in texts[:4]),
            places.PLACES,
        )
    start, end, lines = texts[0]
    h, t = next((h, t) for s0, e0, h, t in top if (s0, e0) == (start, end))
    # Much more deleted than another reading deletes, on the strength of context that may be new
    # code repeating old code: no reading (a snippet shows a large deletion by its own context).
    least = min(cands, key=lambda c: c[5])
    most = max(c[5] for c in cands if (c[1], c[2], c[3], c[4]) == (start, end, h, t))
    if most > least[5] + BIG_DELETION:
        kept_text = orig.keep(seg.lines, least[3], least[1], least[4], least[2])
        if orig.result(least[1], least[2], kept_text) != orig.result(start, end, lines):
            return Alts(
                f"{s.where} reads as deleting {most} lines of code (original lines {start + 1}-{end}) or "
                f"{least[5]} (at line {least[1] + 1})",
                (Placed(start, end, lines), Placed(least[1], least[2], kept_text)),
                places.DELETION,
            )
    place = (start, end, h, t)
    return _open_after_new(s, place, lines) or _open_at_context(s, place, lines) or _edges(s, place, lines)


def _open_after_new(s: _Search, place: tuple[int, int, int, int], lines: tuple[str, ...]) -> Placed | Alts | None:
    """An open end after new lines (the last line that says something is no context): the file ends
    there, its last lines replaced, when that replaces no more code than the segment brings there;
    else "replaced or kept?" is a guess: kept, the new lines in place of the lines they stand for one
    for one (`Original.aligned`: an edited list's end, a changed constant) or else added there (or in place
    of the alike lines there). Likewise an open start before new lines."""
    orig, keys, seg = s.orig, s.keys, s.seg
    start, end, h, t = place
    size = len(keys)
    says = [i for i, k in enumerate(keys) if telling(k)]
    if s.open_end and says and h <= says[-1] < size - t:
        gone = sum(1 for x in orig.lines[start + h :] if x.strip())
        if orig.has_code(end, len(orig.lines)) or gone > sum(1 for x in seg.lines[h:] if x.strip()):
            aligned = None if t else orig.aligned(keys, h, start + h)
            ends = (
                (end, orig.last_code(end))
                if t
                else (aligned, orig.last_code(end))
                if aligned is not None
                else (start + h, start + h + orig.alike_run(keys, h, start + h, 1), orig.last_code(end))
            )
            return Alts(
                f"{s.where} ends the snippet with new lines and no marker below, and the original goes on for "
                f"{gone} lines of code: are they replaced (the file ends there) or kept?",
                tuple(Placed(start, e, lines) for e in sorted(set(ends))),
                places.OPEN,
            )
    if s.open_top and says and h <= says[0] < size - t:
        gone = sum(1 for x in orig.lines[: end - t] if x.strip())
        fewer = not orig.has_code(0, start) and gone <= sum(1 for x in seg.lines[: size - t] if x.strip())
        if fewer and not h and not _edits_top(s, end - t, size - t):
            return Placed(end - t, end, lines)  # nobody deletes a file's head by leaving it out
        if not fewer:
            run = 0 if h else orig.alike_run(keys, size - t - 1, end - t - 1, -1)
            tops = (start, orig.first_code(start)) if h else (end - t, end - t - run, start)
            return Alts(
                f"{s.where} starts the snippet with new lines and no marker above, and the original has {gone} "
                "lines of code above its place: are they replaced (the file starts there) or kept?",
                tuple(Placed(b, end, lines) for b in sorted(set(tops))),
                places.OPEN,
            )
    return None


def _edits_top(s: _Search, above: int, new: int) -> bool:
    """Whether the segment's first `new` lines, new ones above original line `above`, show every line of
    code the original has above the first of its lines they show, each the same or edited, in order
    (`edited_in_order`): the file's head rewritten, not left out (nobody deletes a package clause or a
    licence by leaving it out)."""
    old = [k for k in s.orig.keys[:above] if k]
    lines = [k for k in s.keys[:new] if k]
    first = next((i for i, k in enumerate(old) if k in lines), len(old))
    return edited_in_order(old[:first], lines[: lines.index(old[first])] if first < len(old) else lines)


def _open_at_context(s: _Search, place: tuple[int, int, int, int], lines: tuple[str, ...]) -> Alts | None:
    """An open start (end) at a line of the original with a few lines of code past it: the file may
    start (end) there, unless deleting them would break something (a Go package clause, a class's
    header) that keeping them does not; comments alone above belong to the line below them (a package's
    doc comment, a licence): kept."""
    orig, keys = s.orig, s.keys
    start, end, h, t = place
    above = sum(1 for x in orig.lines[:start] if x.strip())
    below = sum(1 for x in orig.lines[end:] if x.strip())
    top = orig.first_code(start)
    comments = all(markers.attached(x) == "comment" for x in orig.lines[:start] if x.strip())
    if (
        s.open_top
        and h
        and not comments
        and 0 < above <= FEW_PAST
        and telling(keys[0])
        and s.breaks_no_more(top, end, start, end, lines)
    ):
        return Alts(
            f"{s.where} starts the snippet with a line of the original and no marker above, and the original has "
            f"{above} line{'s' if above > 1 else ''} of code above it: does the file start there?",
            (Placed(start, end, lines), Placed(top, end, lines)),
            places.AT_AN_END,
        )
    bottom = orig.last_code(end)
    if (
        s.open_end
        and t
        and 0 < below <= FEW_PAST
        and telling(keys[-1])
        and s.breaks_no_more(start, bottom, start, end, lines)
    ):
        return Alts(
            f"{s.where} ends the snippet with a line of the original and no marker below, and the original goes on "
            f"for {below} line{'s' if below > 1 else ''} of code: does the file end there?",
            (Placed(start, end, lines), Placed(start, bottom, lines)),
            places.AT_AN_END,
        )
    return None


def _edges(s: _Search, place: tuple[int, int, int, int], lines: tuple[str, ...]) -> Placed | Alts:
    """New lines between a marker and the segment's context, each alike the original line beside it there
    (a C function's return type changed on its own line above its name): those lines edited in place,
    where the snippet never shows them and editing them breaks nothing more; else new lines added
    beside them, or those lines edited in place? Both are readings. Likewise new lines between the
    context and a marker below (past the blank lines both have there)."""
    orig, keys, seg = s.orig, s.keys, s.seg
    start, end, h, t = place
    new_above = len(keys) - t if not h and t and seg.marker_before else 0
    above = orig.alike_run(keys, new_above - 1, start - 1, -1) if new_above else 0
    twins_above = 0 < above and not orig.shows_any(keys, start - above, start)
    if twins_above and start - above >= s.lo and s.breaks_no_more(start - above, end, start, end, lines):
        # the original lines they are alike stand beside them, and the snippet never shows them: an insertion
        # would leave each beside its near twin (a decorator, an attribute or a return type changed in place)
        return Placed(start - above, end, lines)
    if 0 < above and start - above >= s.lo:
        return Alts(
            f"{s.where}: its first lines could be new, or edits of the {above} line(s) above original line {start + 1}",
            (Placed(start, end, lines), Placed(start - above, end, lines)),
            places.EDGE,
        )
    new_below = _new_below(seg, keys, start, end, h, t)
    reach = orig.below_reach(keys, new_below, h, end)
    through = orig.through(keys, h, end) if new_below else None
    edited = _edits_below(orig, seg, keys, start, end, reach, lines)  # as above
    inserted = () if edited else (end,)
    last_ends = sorted({*inserted, *([reach] if reach > end else []), *([through] if through else [])})
    if len(last_ends) > 1:
        return Alts(
            f"{s.where}: its last lines could be new, or edits of the line(s) below original line {end}",
            tuple(Placed(start, e, lines) for e in last_ends),
            places.EDGE,
        )
    return Placed(start, last_ends[0], lines)


def _at(orig: Original, seg: Segment, keys: list[str], c: Candidate) -> Placed:
    """One place of a segment among several: its lines between head and tail put in, and new lines after a
    head (no tail, a marker below) in place of the lines they edit there where the segment never shows
    those and replacing them breaks no more (`below`)."""
    _, start, end, h, t, _ = c
    lines = orig.keep(seg.lines, h, start, t, end)
    reach = orig.below_reach(keys, _new_below(seg, keys, start, end, h, t), h, end)
    return Placed(start, reach if _edits_below(orig, seg, keys, start, end, reach, lines) else end, lines)


def _new_below(seg: Segment, keys: list[str], start: int, end: int, h: int, t: int) -> int:
    """How many new lines a segment placed at original [start, end) has after its head and above a marker
    below it (no tail; the head all it keeps there); 0 for any other shape."""
    return len(keys) - h if h and not t and seg.marker_after and end == start + h else 0


def _edits_below(
    orig: Original, seg: Segment, keys: list[str], start: int, end: int, reach: int, lines: tuple[str, ...]
) -> bool:
    """Whether the new lines below the head (through original line `reach`: `Original.below_reach`) are edits of the
    lines there: the segment never shows those lines, and replacing them breaks no more than keeping them."""
    if reach <= end or orig.shows_any(keys, end, reach):
        return False
    return orig.damage(start, reach, lines, seg.lines) <= orig.damage(start, end, lines, seg.lines)


def _edge_of_file(
    orig: Original, seg: Segment, keys: list[str], lo: int, open_top: bool, open_end: bool, where: str
) -> Alts | None:
    """A segment with no line of the original that starts the snippet, no marker above and one below,
    its first line alike the original's first line of code (a licence header edited): those lines
    edited in place, one for one, or the new lines added above them; likewise one that ends the snippet,
    its last line alike the original's last line of code. Two readings; else None."""
    if open_top and not open_end and lo == 0:
        j = orig.first_code(len(orig.lines))
        run = orig.alike_run(keys, 0, j, 1)
        if run:
            return Alts(
                f"{where} starts the snippet with no marker above: its first lines could be new, or edits of the "
                f"{run} line(s) at the file's start",
                (Placed(j, j, seg.lines), Placed(j, j + run, seg.lines)),
                places.EDGE,
            )
    if open_end and not open_top:
        j = orig.last_code(lo) - 1
        run = orig.alike_run(keys, len(keys) - 1, j, -1)
        if j >= lo and run and j + 1 - run >= lo:
            return Alts(
                f"{where} ends the snippet with no marker below: its last lines could be new, or edits of the "
                f"{run} line(s) at the file's end",
                (Placed(j + 1, j + 1, seg.lines), Placed(j + 1 - run, j + 1, seg.lines)),
                places.EDGE,
            )
    return None
