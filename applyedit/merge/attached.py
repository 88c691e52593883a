"""Lines attached to the line below them (decorators, annotations, attributes, comments:
markers.attached) that open a segment after a marker: the rest of the segment is placed alone (by the
placer merge/segment.py hands in), and they stand right above it, in place of the original's lines of
their kinds there, or added to them (`read`). Pure text; knows nothing of how the rest is placed.
"""

from __future__ import annotations

from collections.abc import Callable

from applyedit import markers
from applyedit.errors import quoted
from applyedit.invariants import Segment
from applyedit.linediff import depth, key, same
from applyedit.merge.original import Original, telling
from applyedit.merge.places import EDGE, Alts, Either, NoReading, Placed

__all__ = ["read"]

# merge/segment.py's `place`: (orig, seg, lo, first, last, number, hi) -> the segment's place
Placer = Callable[[Original, Segment, int, bool, bool, int, int | None], Placed | NoReading | Either | Alts | None]


def read(
    orig: Original, seg: Segment, lo: int, first: bool, last: bool, number: int, hi: int | None, place: Placer
) -> Placed | NoReading | Alts | None:
    """A segment after a marker that opens with lines belonging to the line below them (decorators,
    annotations, attributes, comments: markers.attached) above a telling line (a definition's header,
    not `try:`): the rest is placed alone, and they stand right above it, in place of the original's
    lines of their kinds in the run of such lines there (`@staticmethod` edited into `@classmethod`),
    or added below that run when it has none of their kinds. None when the segment does not open so,
    when a comment among them tells something the original has (context), when they show a telling
    line of that run or no new one (the segment is then placed whole; `/**` and `*/` tell nothing),
    or when the rest alone has no single place starting at a line of the original. No reading when
    they are fewer than the lines they would replace, or those are not right above the rest."""
    lines = seg.lines
    n = next((i for i, x in enumerate(lines) if markers.attached(x) is None), len(lines))
    if not seg.marker_before or not n or n == len(lines) or not telling(key(lines[n])):
        return None
    if any(depth(x) - depth(lines[n]) not in (0, 1) for x in lines[:n]):
        return None
    prose = {key(x) for x in lines[:n] if markers.attached(x) == "comment" and telling(key(x))}
    if prose & set(orig.keys[lo:]):
        return None  # a comment that the original has is context (decorators repeat: they need not be)
    rest = Segment(lines[n:], seg.marker_depth, seg.marker_after)
    got = _placed_alone(orig, rest, place(orig, rest, lo, first, last, number, hi), lo)
    if got is None or got.start >= len(orig.lines) or orig.keys[got.start] != key(lines[n]):
        return None  # no single place for the rest alone (they may be the context that places it)
    start = got.start
    while (
        start > lo
        and markers.attached(orig.lines[start - 1]) is not None
        and depth(orig.lines[start - 1]) - depth(orig.lines[got.start]) in (0, 1)
    ):
        start -= 1
    if any(
        all(same(lines[i], orig.lines[got.start - k + i]) for i in range(k))
        for k in range(1, min(n, got.start - lo) + 1)
    ):
        return None  # they open with the lines right above the rest (a `*/`): context, then new lines
    shown = set(orig.keys[start : got.start])
    if any(telling(key(x)) and key(x) in shown for x in lines[:n]):
        return None  # they show a line of that run
    if not any(telling(key(x)) and key(x) not in shown for x in lines[:n]):
        return None  # nothing new that tells something: `*/` closing the doc above is context
    kinds = {markers.attached(x) for x in lines[:n]}
    replaced = got.start
    while replaced > start and markers.attached(orig.lines[replaced - 1]) in kinds:
        replaced -= 1
    if got.start - replaced > n or any(markers.attached(x) in kinds for x in orig.lines[start:replaced]):
        return Alts(
            f"segment {number} (from {quoted(lines[0])}): its first lines could replace the original's "
            f"{got.start - start} line(s) above line {got.start + 1} or be added to them",
            (Placed(start, got.end, (*lines[:n], *got.lines)), Placed(got.start, got.end, (*lines[:n], *got.lines))),
            EDGE,
        )
    return Placed(replaced, got.end, (*lines[:n], *got.lines))


def _placed_alone(
    orig: Original, rest: Segment, got: Placed | NoReading | Either | Alts | None, lo: int
) -> Placed | None:
    """The one place of the segment's rest, read alone: where it stands whole (also where it stands as two
    blocks, or changes nothing and stands once from `lo` on); None where it has no single place."""
    size = len(rest.lines)
    if isinstance(got, Either):
        return Placed(got.end - size, got.end, tuple(orig.lines[got.end - size : got.end]))
    if got is None:
        stands = orig.blocks([key(x) for x in rest.lines], lo)
        return (
            Placed(stands[0], stands[0] + size, tuple(orig.lines[stands[0] : stands[0] + size]))
            if len(stands) == 1
            else None
        )
    return got if isinstance(got, Placed) else None
