"""The context reading of an update snippet: a second, independently written merge that places each
segment by its context alone, as `patch` places a hunk with no fuzz. Where the snippet leaves a question
open, each option is one reading (`readings`: every combination, each a whole file; merge/readings.py
weighs them and merge/confirm.py decides); where a segment has no place, there is no reading.

A segment (the snippet lines between two lazy markers) stands where its head and tail (its longest
leading and trailing runs that stand as blocks in the original) do. This module owns the enumeration
(`readings`: one reading per combination of the options the segments leave open, each a whole file);
one segment's place and its questions are merge/segment.py's, its candidate places merge/places.py's,
what a place breaks merge/original.py's. The rules are listed in docs/reading.md ("Line by line").

Lines compare on whitespace-collapsed text; the original's text is kept where a line of the segment
equals it up to tab width (trailing blanks written otherwise are the snippet's). Pure text; knows
nothing of the merge's rules; syntax.py and the definitions invariant only judge a second place.
"""

from __future__ import annotations

from dataclasses import dataclass

from applyedit.invariants import Segment, segments
from applyedit.linediff import depth, key
from applyedit.merge import places
from applyedit.merge.original import Original
from applyedit.merge.places import SPLIT, Alts, Either, NoReading, Placed
from applyedit.merge.segment import place

__all__ = ["NoReading", "Placed", "Reading", "read", "readings"]


@dataclass(frozen=True)
class Reading:
    """One reading of the whole snippet: the merged file's lines, each segment's place (None where a
    segment changes nothing) and the options it took where the snippet left a question open."""

    lines: tuple[str, ...]
    places: tuple[Placed | None, ...]
    took: tuple[str, ...]
    asked: tuple[str, ...] = ()  # each question's kind (`Alts.kind`), in `took`'s order


# The kinds of question a segment leaves open (`Alts.kind`)

_READINGS = 12  # complete readings enumerated at most; past it: too many to weigh (no reading)


def read(original: str, snippet: str, language: str | None = None) -> NoReading | tuple[str, ...]:
    """The merged file's lines when the context reading has one reading (LF-only texts), or why there is
    no single reading (a message; `inherent` where the snippet leaves a question open). With `language`,
    a second place for a segment that breaks the syntax or loses a definition where the first does not
    is no reading of it."""
    found = readings(original, snippet, language)
    if isinstance(found, NoReading):
        return found
    if len(found) > 1:
        return NoReading(found[1].took[0] if found[1].took else "two readings", inherent=True)
    return found[0].lines


def readings(original: str, snippet: str, language: str | None = None) -> NoReading | list[Reading]:
    """Every reading of the snippet by its context: one per combination of the options that its segments
    leave open (`Alts`), distinct files only, in the order found (the first takes each question's first
    option); or why it has none (a segment with no place, or more than `_READINGS` readings)."""
    original_lines = original.split("\n")
    if original_lines and original_lines[-1] == "":
        original_lines = original_lines[:-1]
    segs = segments(snippet)
    if not segs:
        return NoReading("the snippet has no code besides lazy markers")
    orig = Original(original_lines, language)
    done: list[Reading] = []
    seen: set[tuple[str, ...]] = set()
    failed: list[NoReading] = []

    def walk(
        n: int,
        lo: int,
        prev_end: int | None,
        placed: tuple[Placed | None, ...],
        took: tuple[str, ...],
        asked: tuple[str, ...],
    ) -> None:
        if n == len(segs):
            lines = _assemble(original_lines, [p for p in placed if p is not None])
            if lines is None:
                failed.append(NoReading("two segments' places overlap"))
            elif lines not in seen:
                seen.add(lines)
                done.append(Reading(lines, placed, took, asked))
                if len(done) > _READINGS:
                    raise places.TooMany(len(done), 0)
            return
        got, start_lo = _placed(orig, segs, n, lo, prev_end)
        if isinstance(got, NoReading):
            failed.append(got)
            return
        alts = got.options if isinstance(got, Alts) else (got,)
        for k, option in enumerate(alts):
            note = (*took, f"{got.why}: option {k + 1}") if isinstance(got, Alts) else took
            kinds = (*asked, got.kind) if isinstance(got, Alts) else asked
            if isinstance(got, Alts) and got.end is not None:  # an Either's: the next segment starts past it
                walk(n + 1, got.end, got.end, (*placed, option), note, kinds)
            elif option is None:
                keys = [key(x) for x in segs[n].lines]
                stands = orig.blocks(keys, start_lo)
                walk(n + 1, start_lo, stands[0] + len(keys) if len(stands) == 1 else None, (*placed, None), note, kinds)
            else:
                walk(n + 1, option.end, option.end, (*placed, option), note, kinds)

    try:
        walk(0, 0, None, (), (), ())
    except places.TooMany:
        return NoReading(f"the snippet reads more than {_READINGS} ways: too many to weigh", inherent=True)
    if not done:
        inherent = [f for f in failed if f.inherent]
        return inherent[0] if inherent else failed[0] if failed else NoReading("no reading")
    return done


def _placed(
    orig: Original, segs: list[Segment], n: int, lo: int, prev_end: int | None
) -> tuple[Placed | NoReading | Alts | None, int]:
    """Segment `n`'s place from original line `lo` on, and where its search started: past the segment
    above and inside the block its last line opens, where the segment's marker is indented inside that
    block (`hi`: the block's end). A segment that stands whole and also as two blocks is a question of
    both (`SPLIT`)."""
    seg = segs[n]
    hi = None
    above = depth(segs[n - 1].lines[-1]) if n else 0
    inside = seg.marker_depth is not None and min(seg.marker_depth, depth(seg.lines[0])) > above
    start_lo = lo
    if n and prev_end is not None and inside:
        start_lo, hi = max(lo, prev_end), orig.block_end(prev_end - 1)  # inside the block the line above opens
    got = place(orig, seg, start_lo, first=n == 0, last=n == len(segs) - 1, number=n + 1, hi=hi)
    if isinstance(got, Either):  # stands whole (changes nothing), or deletes the code between two blocks
        if isinstance(got.deletion, NoReading):
            return got.deletion, start_lo
        got = Alts(got.why, (None, got.deletion), SPLIT, got.end)
    return got, start_lo


def _assemble(original_lines: list[str], placed: list[Placed]) -> tuple[str, ...] | None:
    """The original with each place's lines put in (places in order, none overlapping), or None."""
    out: list[str] = []
    pos = 0
    for p in sorted(placed, key=lambda p: (p.start, p.end)):
        if p.start < pos:
            return None
        out += original_lines[pos : p.start]
        out += p.lines
        pos = p.end
    out += original_lines[pos:]
    return tuple(out)
