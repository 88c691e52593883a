"""The context reading of an update snippet: a second, independently written merge that places each
segment by its context alone, as `patch` places a hunk with no fuzz. Where the snippet leaves a question
open, each option is one reading (`readings`: every combination, each a whole file; merge/readings.py
weighs them and merge/confirm.py decides); where a segment has no place, there is no reading. Below,
"no reading" after a question that names its options (two places, "does the file end there?", deletion
or nothing, replaced or added) means each option is one reading, the choice left open; elsewhere it
means the snippet has none.

A segment (the snippet lines between two lazy markers) has a head, its longest leading run of lines
that stands as a block in the original, and a tail, its longest trailing such run. The segment stands
where its head and its tail do, the head above the tail with no other place of either between them;
the original lines between them are replaced by the segment's lines between them. Then:

- a segment that is all head stands once (or nowhere differently: it changes nothing) unless its
  lines also stand as two blocks with code between them, two lines of code or more on each side of
  the cut (a deletion, or nothing: two readings; with one line there, which block it ends is a guess,
  and it stands whole);
- no head and a marker above: new lines inserted right above the tail; no tail and a marker below:
  right below the head, unless they rewrite the whole body of the block the head opens (as many
  lines, each alike the one it replaces, the block ending there);
- the snippet's first segment without a marker above starts at the file's start when its first line
  is new (the original lines above its tail are replaced, but for blank lines at the very top), and
  keeps the lines above its head when its first line is context; the last segment without a marker
  below, likewise at the file's end (with new lines and a tail that says nothing, `}` closing a
  class, the tail stands at the file's end where it stands there);
  but such a segment that would change nothing, where the original goes on past it, may mean that
  the file ends (starts) there: no reading; nor when 1 to 3 lines of code go on past it;
- a segment after a marker that opens with lines belonging to the line below them (decorators,
  annotations, attributes, comments) is placed by the rest of its lines; those lines stand right above
  it, in place of the original's lines of their kinds there, or added when it has none (fewer than
  they would replace: no reading), unless they show a telling line of the original's there;
- a head and a tail that says nothing (`}`) far below it, the segment's edges no edits of the lines
  there: the brackets may be the new lines' own, the segment then rewriting the stretch below its
  head through its own context there (`_through`), the rest kept: two readings; likewise a tail that
  closes a bracket the new lines open (`return NULL;` `}` after a new `if (...) {`) and stands again
  further down, where the reading deletes a few lines of code that no new line speaks of: the tail
  the new block's own (`_closes_new`), or the next block's with that block's opening lines deleted;
- a segment with neither head nor tail: no reading where the original has code (new code at the
  file's end, or an edit somewhere? On real commits such snippets were never the file's end); but
  one that starts the snippet with no marker above (ends it with none below), its first (last) line
  alike the original's first (last) line of code (a licence header edited), is an edit of those lines
  in place or new lines beside them: two readings (`_edge_of_file`); and one whose lines are, one for
  one, edits of a block of as many lines that stands once (each `EDITED` alike, none alike another
  line: a year or a version changed, the line shown alone) edits that block in place
  (`_edits_one_block`) (a whole function shown, its signature and last line edited, is the structure's:
  merge/structure.py);
- two places for a segment: no reading (each place one, up to 5). Also when a second place fits
  as well (`_contender`): its
  head and tail tell as much, or it inserts where the best one deletes, it deletes at most a few more
  lines (any number, when the lines at its edges are edits of the original's there: a rewrite) and
  breaks no more (syntax, definitions, file heads; with the language given); and, where the snippet
  has an open end and the best place deletes code, new code appended after the file's last lines
  when the head stands there;
- a segment after a marker indented inside the block that the line above it opens (a function's
  header, then `# ... existing code ...` one level in) stands inside that block: its places past the
  block's end are not weighed where the best lies past it and a place inside it fits (new code that
  repeats a later function's is more common than a snippet's marker at another depth);
- a head and tail stand at one depth: a run that matches the original's text a level deeper or
  shallower than the rest is a moved block, not context; and past the longest runs, the shortest one
  that says something is tried too (new code that repeats old code makes long runs).

Lines compare on whitespace-collapsed text; the original's text is kept where a line of the segment
equals it up to tab width (trailing blanks written otherwise are the snippet's). Pure text; knows
nothing of the merge's rules; syntax.py and the definitions invariant only judge a second place.
"""

from __future__ import annotations

import bisect
import difflib
import functools
import re
from collections import Counter
from dataclasses import dataclass

from applyedit import interrupt, markers, syntax
from applyedit.errors import quoted
from applyedit.invariants import (
    Segment,
    alike,
    depth,
    head_changes,
    key,
    lost_definitions,
    python_compile_error,
    same,
    segments,
)
from applyedit.linediff import likeness

__all__ = ["NoReading", "Placed", "Reading", "read", "readings", "telling"]


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
class _Alts:
    """A segment's places that its text does not tell apart (the options of a question it leaves open:
    two places, "does the file end here?", an insertion or a rewrite): each a `Placed`, or None where it
    changes nothing. Every option is a reading of the segment; readings.py weighs the files they give."""

    why: str
    options: tuple[Placed | None, ...]
    kind: str  # which question (`PLACES`, `WAY`, `OPEN`, ...): the decision reads it, the message is for people
    end: int | None = None  # where the next segment's search starts, when not past the option taken


@dataclass(frozen=True)
class Reading:
    """One reading of the whole snippet: the merged file's lines, each segment's place (None where a
    segment changes nothing) and the options it took where the snippet left a question open."""

    lines: tuple[str, ...]
    places: tuple[Placed | None, ...]
    took: tuple[str, ...]
    asked: tuple[str, ...] = ()  # each question's kind (`_Alts.kind`), in `took`'s order


# The kinds of question a segment leaves open (`_Alts.kind`)
PLACES = "places"  # it stands at several places, its context as telling at each
WAY = "way"  # at one place, as new lines or in place of the lines there
DELETION = "deletion"  # as deleting many lines of code, or few
OPEN = "open"  # new lines at an open start or end: the original's code there replaced, or kept
AT_AN_END = "at an end"  # a line of the original at an open start or end: does the file start (end) there?
UNCHANGED = "unchanged"  # it changes nothing at an open start or end: does the file start (end) there?
SPLIT = "split"  # it stands as it is, and as two blocks (a deletion between them)
EDGE = "edge"  # its first (last) lines new, or edits of the lines beside its place

_READINGS = 12  # complete readings enumerated at most; past it: too many to weigh (no reading)
_PLACES = 5  # places of one segment offered as readings at most (the best and the contenders weighed)


_PLAIN = frozenset("else try finally except pass return break continue end fi done do".split())


def telling(key: str) -> bool:
    """A line that says something: a word that is not a bare keyword (`}`, `else:`, `*/` do not)."""
    words = re.sub(r"\W+", " ", key).split()
    return bool(words) and " ".join(words) not in _PLAIN


class _Original:
    def __init__(self, lines: list[str], language: str | None = None) -> None:
        self.lines = lines
        self.keys = [key(x) for x in lines]
        self.language = language

    def damage(self, start: int, end: int, lines: tuple[str, ...], shown: tuple[str, ...]) -> int:
        """What the original with [start, end) replaced by `lines` breaks (0 without a language or
        grammar): its syntax errors (a Python compile() that fails where the original's did not, one
        more), the definitions it loses that the segment (`shown`) never names, the file heads it moves
        (invariants.head_changes) and the definitions it makes stand twice (a function appended while
        it is also edited in place)."""
        return self.damage_of("\n".join([*self.lines[:start], *lines, *self.lines[end:]]) + "\n", shown)

    def damage_of(self, text: str, shown: tuple[str, ...], errors: int | None = None) -> int:
        """What `text`, a reading of the whole file, breaks (`damage`); `errors`: its `syntax_errors`,
        where the caller has them already."""
        if self.language is None:
            return 0
        interrupt.check()
        found = self.syntax_errors(text, shown) if errors is None else errors
        found += len(lost_definitions(self.text, text, "\n".join(shown), self.language))
        found += len(head_changes(self.text, text, self.language))
        found += max(0, _twice(text, self.language) - self.twice)
        return found

    def syntax_errors(self, text: str, shown: tuple[str, ...] = ()) -> int:
        """The parse errors of `text`, a reading of the whole file (a Python compile() that fails where the
        original's does not, one more; a name imported from two modules in JavaScript or TypeScript where
        the original has no such name, one more each: syntax.import_conflicts; a line of code the original
        has outside a comment, put inside a block comment, one more each: `swallowed`); 0 with no
        grammar. `shown`: the snippet's lines (a line it shows is none of the original's code swallowed)."""
        return self.parse_errors(text) + self.clashes(text) + self.swallowed(text, shown)

    def parse_errors(self, text: str) -> int:
        """`syntax_errors` less the clashes and the code swallowed: the grammar's errors, and a Python
        compile() that fails where the original's does not."""
        if self.language is None:
            return 0
        found = len(syntax.parse_errors(text, self.language) or [])
        if self.language == "python" and python_compile_error(self.text, text):
            found += 1
        return found

    @functools.cached_property
    def clean(self) -> bool:
        """Whether the original parses with no error (the grammar's): a reading's syntax errors are then
        its own (readings.Candidate.broken)."""
        return self.language is not None and syntax.parse_errors(self.text, self.language) == []

    def swallowed(self, text: str, shown: tuple[str, ...]) -> int:
        """The lines of `text` inside a block comment that read as code (syntax.commented_code), more than
        the original has of each, the snippet's own lines aside: code a reading turned into a comment (a
        snippet's `/**` above the next doc comment read as new, the old body left between). No expected
        file of the release corpus has one."""
        keys = {key(x) for x in shown}
        lines = text.split("\n")
        now = Counter(key(lines[n]) for n in syntax.commented_code(text, self.language or "") or [])
        return sum((Counter({k: n for k, n in now.items() if k not in keys}) - self.commented).values())

    @functools.cached_property
    def commented(self) -> Counter[str]:
        """The original's lines inside block comments that read as code (`swallowed`)."""
        found = syntax.commented_code(self.text, self.language) if self.language else None
        return Counter(self.keys[n] for n in found or [] if n < len(self.keys))

    def clashes(self, text: str) -> int:
        """The names `text`'s imports bind from two modules where the original's do not (JavaScript and
        TypeScript: syntax.import_conflicts)."""
        return max(0, syntax.import_conflicts(text, self.language) - self.conflicts) if self.language else 0

    @functools.cached_property
    def conflicts(self) -> int:
        """The original's own names imported from two modules (syntax.import_conflicts)."""
        return syntax.import_conflicts(self.text, self.language) if self.language else 0

    @functools.cached_property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    @functools.cached_property
    def twice(self) -> int:
        """The original's own definitions that stand twice (`_twice`)."""
        return _twice(self.text, self.language) if self.language else 0

    def blocks(self, keys: list[str], lo: int) -> list[int]:
        """Where `keys` stand as a block from `lo` on."""
        n, m = len(keys), len(self.keys)
        if not n:
            return []
        first = keys[0]
        return [p for p in range(lo, m - n + 1) if self.keys[p] == first and self.keys[p : p + n] == keys]

    def result(self, start: int, end: int, lines: tuple[str, ...]) -> tuple[str, ...]:
        """The original's keys with [start, end) replaced by `lines`: two places that give the same
        file are one reading."""
        return (*self.keys[:start], *(key(x) for x in lines), *self.keys[end:])

    def first_code(self, hi: int) -> int:
        """The first line of code above `hi` (blank lines at the file's start are kept: a snippet
        cannot show them), else `hi`."""
        return next((j for j in range(hi) if self.lines[j].strip()), hi)

    def last_code(self, lo: int) -> int:
        """Just past the last line of code from `lo` on (blank lines at the file's end are kept), else `lo`."""
        return next((j + 1 for j in range(len(self.lines) - 1, lo - 1, -1) if self.lines[j].strip()), lo)

    def has_code(self, lo: int, hi: int) -> bool:
        return any(x.strip() for x in self.lines[lo:hi])


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
    leave open (`_Alts`), distinct files only, in the order found (the first takes each question's first
    option); or why it has none (a segment with no place, or more than `_READINGS` readings)."""
    ol = original.split("\n")
    if ol and ol[-1] == "":
        ol = ol[:-1]
    segs = segments(snippet)
    if not segs:
        return NoReading("the snippet has no code besides lazy markers")
    orig = _Original(ol, language)
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
            lines = _assemble(ol, [p for p in placed if p is not None])
            if lines is None:
                failed.append(NoReading("two segments' places overlap"))
            elif lines not in seen:
                seen.add(lines)
                done.append(Reading(lines, placed, took, asked))
                if len(done) > _READINGS:
                    raise _TooMany(len(done), 0)
            return
        seg = segs[n]
        hi = None
        above = depth(segs[n - 1].lines[-1]) if n else 0
        inside = seg.marker_depth is not None and min(seg.marker_depth, depth(seg.lines[0])) > above
        start_lo = lo
        if n and prev_end is not None and inside:
            start_lo, hi = max(lo, prev_end), _block_end(orig, prev_end - 1)  # inside the block the line above opens
        got = _place(orig, seg, start_lo, first=n == 0, last=n == len(segs) - 1, number=n + 1, hi=hi)
        if isinstance(got, NoReading):
            failed.append(got)
            return
        if isinstance(got, _Either):  # stands whole (changes nothing), or deletes the code between two blocks
            if isinstance(got.deletion, NoReading):
                failed.append(got.deletion)
                return
            got = _Alts(got.why, (None, got.deletion), SPLIT, got.end)
        alts = got.options if isinstance(got, _Alts) else (got,)
        for k, option in enumerate(alts):
            note = (*took, f"{got.why}: option {k + 1}") if isinstance(got, _Alts) else took
            kinds = (*asked, got.kind) if isinstance(got, _Alts) else asked
            if isinstance(got, _Alts) and got.end is not None:  # an _Either's: the next segment starts past it
                walk(n + 1, got.end, got.end, (*placed, option), note, kinds)
            elif option is None:
                keys = [key(x) for x in seg.lines]
                places = orig.blocks(keys, start_lo)
                walk(n + 1, start_lo, places[0] + len(keys) if len(places) == 1 else None, (*placed, None), note, kinds)
            else:
                walk(n + 1, option.end, option.end, (*placed, option), note, kinds)

    try:
        walk(0, 0, None, (), (), ())
    except _TooMany:
        return NoReading(f"the snippet reads more than {_READINGS} ways: too many to weigh", inherent=True)
    if not done:
        inherent = [f for f in failed if f.inherent]
        return inherent[0] if inherent else failed[0] if failed else NoReading("no reading")
    return done


def _assemble(ol: list[str], placed: list[Placed]) -> tuple[str, ...] | None:
    """The original with each place's lines put in (places in order, none overlapping), or None."""
    out: list[str] = []
    pos = 0
    for p in sorted(placed, key=lambda p: (p.start, p.end)):
        if p.start < pos:
            return None
        out += ol[pos : p.start]
        out += p.lines
        pos = p.end
    out += ol[pos:]
    return tuple(out)


def _attached(
    orig: _Original, seg: Segment, lo: int, first: bool, last: bool, number: int, hi: int | None
) -> Placed | NoReading | _Alts | None:
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
    got = _place(orig, rest, lo, first, last, number, hi)
    size = len(rest.lines)
    if isinstance(got, _Either):  # the rest stands whole (and as two blocks): where it stands whole
        got = Placed(got.end - size, got.end, tuple(orig.lines[got.end - size : got.end]))
    elif got is None:  # the rest changes nothing: where it stands
        places = orig.blocks([key(x) for x in rest.lines], lo)
        if len(places) != 1:
            return None
        got = Placed(places[0], places[0] + size, tuple(orig.lines[places[0] : places[0] + size]))
    if not isinstance(got, Placed) or got.start >= len(orig.lines) or orig.keys[got.start] != key(lines[n]):
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
        return _Alts(
            f"segment {number} (from {quoted(lines[0])}): its first lines could replace the original's "
            f"{got.start - start} line(s) above line {got.start + 1} or be added to them",
            (Placed(start, got.end, (*lines[:n], *got.lines)), Placed(got.start, got.end, (*lines[:n], *got.lines))),
            EDGE,
        )
    return Placed(replaced, got.end, (*lines[:n], *got.lines))


def _shown(orig: _Original, keys: list[str], lo: int, hi: int) -> bool:
    """Whether the segment (`keys`) shows any of the original's lines of code [lo, hi) as they are."""
    return any(orig.keys[j] and orig.keys[j] in keys for j in range(lo, hi))


def _alike_run(orig: _Original, keys: list[str], i: int, j: int, step: int) -> int:
    """How many lines, from segment line `i` and original line `j` on (`step` 1: down, -1: up), are each
    an edit of the other (alike text, not blank): new lines that rewrite the original's there."""
    n = 0
    while 0 <= i < len(keys) and 0 <= j < len(orig.keys) and keys[i] and orig.keys[j]:
        if not alike(keys[i], orig.keys[j]):
            break
        n, i, j = n + 1, i + step, j + step
    return n


def _block_end(orig: _Original, header: int) -> int | None:
    """Just past the block that original line `header` opens (its closing line included: the first
    line of code after it at its depth or shallower); None when the line opens no block."""
    level = depth(orig.lines[header])
    body = [j for j in range(header + 1, len(orig.lines)) if orig.lines[j].strip()]
    if not body or depth(orig.lines[body[0]]) <= level:
        return None
    return next((j + 1 for j in body if depth(orig.lines[j]) <= level), len(orig.lines))


_OPTIONS = 6  # heads (tails) tried, longest first
_SAID = 2  # telling lines of context that count, on each side
_BIG_DELETION = 5  # code lines one reading may delete beyond another's before the two are a question
_FEW_PAST = 3  # code lines past an open start or end that may be deleted or kept: a question
_NEAR = 3  # places of a head above its tail (of a tail below its head) tried, nearest first
# Lines of the file parsed weighing a segment's other places by what they break (one whole file per
# place) before the segment counts as having too many places to tell apart: no reading. A bound on
# the work whatever the file's size (about 5 s here); at least _WEIGHED places. The most the tests'
# snippets need: 109 places of a 734-line file (80,000 lines); a file with the context repeated at
# every function has hundreds of places.
_WEIGH_LINES = 400_000
_WEIGHED = 8


def _heads(orig: _Original, keys: list[str], lo: int) -> list[tuple[int, list[int]]]:
    """Leading runs of the segment that stand as blocks in the original: (length, places), longest
    first; a run ends on code, not on a blank line."""
    found: list[tuple[int, list[int]]] = []
    for n in range(len(keys), 0, -1):
        if keys[n - 1] and (places := orig.blocks(keys[:n], lo)):
            found.append((n, places))
            if len(found) == _OPTIONS:
                break
    return _with_shortest(found, orig, keys, lo, head=True)


def _tails(orig: _Original, keys: list[str], lo: int) -> list[tuple[int, list[int]]]:
    """Trailing runs likewise: (length, where each place ends), longest first; a run starts on code."""
    size, found = len(keys), []
    for n in range(size, 0, -1):
        if keys[size - n] and (places := orig.blocks(keys[size - n :], lo)):
            found.append((n, [p + n for p in places]))
            if len(found) == _OPTIONS:
                break
    return _with_shortest(found, orig, keys, lo, head=False)


def _with_shortest(
    found: list[tuple[int, list[int]]], orig: _Original, keys: list[str], lo: int, head: bool
) -> list[tuple[int, list[int]]]:
    """`found` and, past the longest runs, the shortest one that holds a telling line: new code that
    repeats old code makes long runs, and the context that places it is then the short one."""
    size = len(keys)
    for n in range(1, size + 1):
        if found and n >= found[-1][0]:
            break
        run = keys[:n] if head else keys[size - n :]
        if run[-1 if head else 0] and any(telling(k) for k in run):
            places = orig.blocks(run, lo)
            if places:
                found.append((n, places if head else [p + n for p in places]))
            break
    return found


def _place(
    orig: _Original, seg: Segment, lo: int, first: bool, last: bool, number: int, hi: int | None = None
) -> Placed | NoReading | _Either | _Alts | None:
    """Segment `number`'s place from original line `lo` on (and ending by `hi`, where a marker inside
    the block above bounds it): None when it changes nothing."""
    own = _attached(orig, seg, lo, first, last, number, hi)
    if own is not None:
        return own
    keys = [key(x) for x in seg.lines]
    size, m = len(keys), len(orig.lines)
    where = f"segment {number} (from {quoted(seg.lines[0])})"
    open_top, open_end = first and not seg.marker_before, last and not seg.marker_after
    heads = _heads(orig, keys, lo)
    if heads and heads[0][0] == size:  # all of it stands in the original: it changes nothing
        split = _split(orig, keys, lo, where)
        if split is not None and split[1]:  # one line at the cut: which block it ends is a guess, not a reading
            cut = split[0]
            deleted = sum(1 for x in orig.lines[cut.start : cut.end] if x.strip()) if isinstance(cut, Placed) else 0
            edit = _edit_in_place(orig, seg.lines, keys, heads[1:], _tails(orig, keys, lo)[1:], lo, deleted)
            if edit is not None:
                return NoReading(
                    f"{where} stands in the original as it is, as two blocks (a deletion between them), and "
                    f"as an edit at original line {edit + 1}",
                    inherent=True,
                )
            why = f"{where} stands in the original as it is and also as two blocks (a deletion between them)"
            return _Either(why, heads[0][1][0] + size, cut)
        p = heads[0][1][0]
        if open_end and orig.has_code(p + size, m):
            return _Alts(
                f"{where} changes nothing and ends the snippet with no marker below: does the file end there?",
                (None, Placed(p + size, orig.last_code(p + size), ())),
                UNCHANGED,
            )
        if open_top and orig.has_code(0, p):
            return _Alts(
                f"{where} changes nothing and starts the snippet with no marker above: does the file start there?",
                (None, Placed(orig.first_code(p), p, ())),
                UNCHANGED,
            )
        return None
    tails = _tails(orig, keys, lo)
    cands = _candidates(orig, seg.lines, keys, heads, tails, lo, open_top, open_end)
    if hi is not None and max(cands, default=(None, 0, 0))[2] > hi and any(c[2] <= hi for c in cands):
        cands = [c for c in cands if c[2] <= hi]  # the best past the block its marker is inside: inside it
    if not cands:
        if heads and tails:
            return NoReading(f"{where}: its first and last lines do not stand in that order in the original")
        edited = _edits_one_block(orig, keys, lo, hi)
        if edited is not None:
            return Placed(edited, edited + size, seg.lines)
        return NoReading(f"{where} has no line of the original to place it by")
    if not any(c[3] or c[4] for c in cands) and orig.has_code(lo, m):  # no context: the file's start or end
        edge = _edge_of_file(orig, seg, keys, lo, open_top, open_end, where)
        if edge is not None:
            return edge
        edited = _edits_one_block(orig, keys, lo, hi)
        if edited is not None:
            return Placed(edited, edited + size, seg.lines)
        like = _alike_anywhere(orig, keys, lo)
        return NoReading(
            f"{where} has no line of the original around it"
            + (f", and its line {like[0] + 1} is alike original line {like[1] + 1}" if like else "")
            + f": new code at the file's {'end' if open_end else 'start'}, or an edit somewhere? (show a line of "
            "context next to it)",
            inherent=True,
        )
    chosen = max(cands)
    best = chosen[0]
    top = {(start, end, h, t) for score, start, end, h, t, _ in cands if score == best}
    # readings that delete little, or whose edges are edits of the lines there (a rewrite)
    small = [c for c in cands if c[5] <= _BIG_DELETION or _edited_edge(orig, keys, c)]
    try:
        others = _contenders(orig, seg.lines, keys, chosen, small, most=_PLACES - 1)
    except _TooMany as many:
        return NoReading(
            f"{where} fits its context at original line {chosen[1] + 1} and at {many.args[0]} or more other "
            f"places (line {many.args[1] + 1} among them): too many to tell apart (show a line of context that "
            "stands once in the file)",
            inherent=True,
        )
    other = others[0] if others else None
    if other is None and seg.marker_after and chosen[3] and chosen[4] and not _sides(keys, chosen[3], chosen[4])[1]:
        # a tail that says nothing (`}`), far below: the brackets may be the new lines' own, the segment then
        # rewriting the block its head opens through its own context there (`_through`)
        p, h = chosen[1], chosen[3]
        far = chosen[5] > _BIG_DELETION and not _edited_edge(orig, keys, chosen)  # not a rewrite of the stretch
        through = _through(orig, keys, h, p + h, chosen[2] - chosen[4]) if far else None
        if through is not None and through < chosen[2]:
            other = ((0, 0, 0), chosen[1], through, chosen[3], 0, 0)
    if other is None and seg.marker_after and _closes_new(orig, keys, chosen):
        other = ((0, 0, 0), chosen[1], chosen[1] + chosen[3], chosen[3], 0, 0)  # the new lines' own brackets
    if other is None and chosen[5] and (open_end or open_top):
        appended = _at_an_end(orig, keys, heads, tails, open_end, open_top)
        if appended is not None and _damage(orig, seg.lines, appended) <= _damage(orig, seg.lines, chosen):
            other = appended  # else appending breaks more (a definition twice): not a reading
    if other is not None:
        starts = sorted({c[1] + 1 for c in (chosen, *(others or [other]))})
        at = (
            f"at original line {starts[0]} in more than one way (as new lines, or in place of the lines there)"
            if len(starts) == 1
            else f"at original lines {', '.join(map(str, starts[:-1]))} and {starts[-1]}"
        )
        return _Alts(
            f"{where} could stand {at}, its context as telling at each",
            tuple(_at(orig, seg, keys, c) for c in (chosen, *(others or [other]))),
            WAY if len(starts) == 1 else PLACES,
        )
    texts = sorted({(start, end, _keep(orig, seg.lines, h, start, t, end)) for start, end, h, t in top})
    if len({orig.result(start, end, lines) for start, end, lines in texts}) > 1:
        a, b = texts[:2]
        return _Alts(
            f"{where} could stand at original lines {a[0] + 1} and {b[0] + 1}",
            tuple(Placed(*x) for x in texts[:4]),
            PLACES,
        )
    start, end, lines = texts[0]
    h, t = next((h, t) for s0, e0, h, t in top if (s0, e0) == (start, end))
    # Much more deleted than another reading deletes, on the strength of context that may be new
    # code repeating old code: no reading (a snippet shows a large deletion by its own context).
    least = min(cands, key=lambda c: c[5])
    most = max(c[5] for c in cands if (c[1], c[2], c[3], c[4]) == (start, end, h, t))
    if most > least[5] + _BIG_DELETION:
        kept_text = _keep(orig, seg.lines, least[3], least[1], least[4], least[2])
        if orig.result(least[1], least[2], kept_text) != orig.result(start, end, lines):
            return _Alts(
                f"{where} reads as deleting {most} lines of code (original lines {start + 1}-{end}) or "
                f"{least[5]} (at line {least[1] + 1})",
                (Placed(start, end, lines), Placed(least[1], least[2], kept_text)),
                DELETION,
            )
    says = [i for i, k in enumerate(keys) if telling(k)]
    # An open end after new lines (the last line that says something is no context): the file ends
    # there, its last lines replaced, when that replaces no more code than the segment brings there;
    # else "replaced or kept?" is a guess: kept, the new lines in place of the lines they stand for one
    # for one (`_aligned`: an edited list's end, a changed constant) or else added there (or in place
    # of the alike lines there). Likewise an open start before new lines.
    if open_end and says and h <= says[-1] < size - t:
        gone = sum(1 for x in orig.lines[start + h :] if x.strip())
        if orig.has_code(end, m) or gone > sum(1 for x in seg.lines[h:] if x.strip()):
            aligned = None if t else _aligned(orig, keys, h, start + h)
            ends = (
                (end, orig.last_code(end))
                if t
                else (aligned, orig.last_code(end))
                if aligned is not None
                else (start + h, start + h + _alike_run(orig, keys, h, start + h, 1), orig.last_code(end))
            )
            return _Alts(
                f"{where} ends the snippet with new lines and no marker below, and the original goes on for "
                f"{gone} lines of code: are they replaced (the file ends there) or kept?",
                tuple(Placed(start, e, lines) for e in sorted(set(ends))),
                OPEN,
            )
    if open_top and says and h <= says[0] < size - t:
        gone = sum(1 for x in orig.lines[: end - t] if x.strip())
        if orig.has_code(0, start) or gone > sum(1 for x in seg.lines[: size - t] if x.strip()):
            tops = (
                (start, orig.first_code(start))
                if h
                else (end - t, end - t - _alike_run(orig, keys, size - t - 1, end - t - 1, -1), start)
            )
            return _Alts(
                f"{where} starts the snippet with new lines and no marker above, and the original has {gone} "
                "lines of code above its place: are they replaced (the file starts there) or kept?",
                tuple(Placed(b, end, lines) for b in sorted(set(tops))),
                OPEN,
            )
    # An open start (end) at a line of the original with a few lines of code past it: the file may
    # start (end) there, unless deleting them would break something (a Go package clause, a class's
    # header) that keeping them does not.
    above = sum(1 for x in orig.lines[:start] if x.strip())
    below = sum(1 for x in orig.lines[end:] if x.strip())

    def question(lo: int, hi: int) -> bool:  # replacing [lo, hi) breaks no more than [start, end) alone
        return orig.damage(lo, hi, lines, seg.lines) <= orig.damage(start, end, lines, seg.lines)

    if open_top and h and 0 < above <= _FEW_PAST and telling(keys[0]) and question(orig.first_code(start), end):
        return _Alts(
            f"{where} starts the snippet with a line of the original and no marker above, and the original has "
            f"{above} line{'s' if above > 1 else ''} of code above it: does the file start there?",
            (Placed(start, end, lines), Placed(orig.first_code(start), end, lines)),
            AT_AN_END,
        )
    if open_end and t and 0 < below <= _FEW_PAST and telling(keys[-1]) and question(start, orig.last_code(end)):
        return _Alts(
            f"{where} ends the snippet with a line of the original and no marker below, and the original goes on "
            f"for {below} line{'s' if below > 1 else ''} of code: does the file end there?",
            (Placed(start, end, lines), Placed(start, orig.last_code(end), lines)),
            AT_AN_END,
        )
    # New lines between a marker and the segment's context, each alike the original line beside it there
    # (a C function's return type changed on its own line above its name): those lines edited in place,
    # where the snippet never shows them and editing them breaks nothing more; else new lines added
    # beside them, or those lines edited in place? Both are readings. Likewise new lines between the
    # context and a marker below (past the blank lines both have there).
    new_above = size - t if not h and t and seg.marker_before else 0
    above = _alike_run(orig, keys, new_above - 1, start - 1, -1) if new_above else 0
    twins_above = 0 < above and not _shown(orig, keys, start - above, start)
    if twins_above and start - above >= lo and question(start - above, end):
        # the original lines they are alike stand beside them, and the snippet never shows them: an insertion
        # would leave each beside its near twin (a decorator, an attribute or a return type changed in place)
        return Placed(start - above, end, lines)
    if 0 < above and start - above >= lo:
        return _Alts(
            f"{where}: its first lines could be new, or edits of the {above} line(s) above original line {start + 1}",
            (Placed(start, end, lines), Placed(start - above, end, lines)),
            EDGE,
        )
    new_below = _new_below(seg, keys, start, end, h, t)
    reach = _below(orig, keys, new_below, h, end)
    through = _through(orig, keys, h, end) if new_below else None
    edited = _edits_below(orig, seg, keys, start, end, reach, lines)  # as above
    inserted = () if edited else (end,)
    last_ends = sorted({*inserted, *([reach] if reach > end else []), *([through] if through else [])})
    if len(last_ends) > 1:
        return _Alts(
            f"{where}: its last lines could be new, or edits of the line(s) below original line {end}",
            tuple(Placed(start, e, lines) for e in last_ends),
            EDGE,
        )
    return Placed(start, last_ends[0], lines)


def _at(orig: _Original, seg: Segment, keys: list[str], c: _Candidate) -> Placed:
    """One place of a segment among several: its lines between head and tail put in, and new lines after a
    head (no tail, a marker below) in place of the lines they edit there where the segment never shows
    those and replacing them breaks no more (`_below`)."""
    _, start, end, h, t, _ = c
    lines = _keep(orig, seg.lines, h, start, t, end)
    reach = _below(orig, keys, _new_below(seg, keys, start, end, h, t), h, end)
    return Placed(start, reach if _edits_below(orig, seg, keys, start, end, reach, lines) else end, lines)


def _new_below(seg: Segment, keys: list[str], start: int, end: int, h: int, t: int) -> int:
    """How many new lines a segment placed at original [start, end) has after its head and above a marker
    below it (no tail; the head all it keeps there); 0 for any other shape."""
    return len(keys) - h if h and not t and seg.marker_after and end == start + h else 0


def _edits_below(
    orig: _Original, seg: Segment, keys: list[str], start: int, end: int, reach: int, lines: tuple[str, ...]
) -> bool:
    """Whether the new lines below the head (through original line `reach`: `_below`) are edits of the
    lines there: the segment never shows those lines, and replacing them breaks no more than keeping them."""
    if reach <= end or _shown(orig, keys, end, reach):
        return False
    return orig.damage(start, reach, lines, seg.lines) <= orig.damage(start, end, lines, seg.lines)


def _below(orig: _Original, keys: list[str], new: int, h: int, end: int) -> int:
    """Where the `new` lines after a head ending at original line `end` end, read as edits of the lines
    below it (alike text, one for one, past the blank lines both have there); `end` where none is."""
    gap = 0
    while gap < new and end + gap < len(orig.keys) and not keys[h + gap] and not orig.keys[end + gap]:
        gap += 1
    below = min(_alike_run(orig, keys, h + gap, end + gap, 1), new - gap) if new else 0
    return end + gap + below if below else end


def _aligned(orig: _Original, keys: list[str], i: int, j: int) -> int | None:
    """Where the segment's lines from `i` on end when each stands, in order, for an original line from `j`
    on (the same line, or an edit of it: alike text; a blank line for a blank line or for none), the
    original lines between them deleted, `_BIG_DELETION` code lines at most: just past the last original
    line they stand for, in the alignment that deletes the fewest code lines, then edits the fewest;
    None where there is no such alignment. New lines that rewrite the original's there, one for one
    (an edited tail of a list, a changed constant), end where the lines they rewrite end."""
    size, m = len(keys), len(orig.keys)
    if size - i > _ALIGNED:
        return None

    @functools.cache
    def best(i: int, j: int, budget: int) -> tuple[int, int, int] | None:  # (deleted, edits, end)
        if i == size:
            return (0, 0, j)
        found = []
        if not keys[i] and (got := best(i + 1, j, budget)) is not None:  # a blank line standing for none
            found.append(got)
        if j < m and bool(keys[i]) == bool(orig.keys[j]):
            same = keys[i] == orig.keys[j]
            if same or alike(keys[i], orig.keys[j]):
                if (got := best(i + 1, j + 1, budget)) is not None:
                    found.append((got[0], got[1] + (not same), got[2]))
        cost = 1 if j < m and orig.keys[j] else 0
        if j < m and cost <= budget and (got := best(i, j + 1, budget - cost)) is not None:
            found.append((got[0] + cost, got[1], got[2]))
        return min(found, default=None)

    got = best(i, j, _BIG_DELETION)
    return None if got is None or got[2] == j else got[2]


_ALIGNED = 200  # segment lines past the head, at most, that `_aligned` aligns


def _through(orig: _Original, keys: list[str], h: int, end: int, bound: int | None = None) -> int | None:
    """Where a segment with a head and no tail, its head ending at original line `end`, rewrites the block
    its head opens through (or the stretch up to `bound`): its lines after the head matched in order
    against the block's lines below `end`, past the last matched line that says something and the alike
    lines after it (the segment's own context inside the block, kept in place, and the lines it edits
    after it), or through the block's body when the segment's last line is an edit of the body's last;
    None where no such line matches."""
    block = bound is None
    bound = _block_end(orig, end - 1) if bound is None else bound
    if bound is None:
        return None
    stretch = orig.keys[end:bound]
    rest = keys[h:]
    sm = difflib.SequenceMatcher(None, rest, stretch, autojunk=False)
    last = None
    for i, j, n in sm.get_matching_blocks():
        for k in range(n):
            if telling(rest[i + k]):
                last = (i + k, j + k)
    if last is None:
        return None
    i, j = last
    level = depth(orig.lines[end - 1])
    body = (
        [x for x in range(end + j + 1, bound) if orig.lines[x].strip() and depth(orig.lines[x]) > level]
        if block
        else []
    )
    said = [x for x in range(i + 1, len(rest)) if rest[x]]
    if body and said and _alike_run(orig, keys, h + said[-1], body[-1], 1):
        return body[-1] + 1  # its last line an edit of the body's last: it rewrites the body through there
    return min(end + j + 1 + min(_alike_run(orig, keys, h + i + 1, end + j + 1, 1), len(rest) - i - 1), bound)


_Candidate = tuple[tuple[int, int, int], int, int, int, int, int]  # score, start, end, head, tail, gone


def _candidates(
    orig: _Original,
    lines: tuple[str, ...],
    keys: list[str],
    heads: list[tuple[int, list[int]]],
    tails: list[tuple[int, list[int]]],
    lo: int,
    open_top: bool,
    open_end: bool,
) -> list[_Candidate]:
    """Places of the segment: (score, start, end, head, tail), original [start, end) replaced. The
    score: the most telling lines in head and tail first (the most context, two a side), then the
    fewest original lines of code deleted, then the most lines of head and tail. Last: the code lines
    it deletes."""
    size, m = len(keys), len(orig.lines)

    def said(h: int, t: int) -> int:
        """The head's and tail's lines that say something (`}` and `else:` do not), two at most on each
        side: a snippet shows two lines of context; a longer run is new code that repeats old code
        (a function copied, then changed) as often as it is context."""
        return min(_SAID, sum(1 for k in keys[:h] if telling(k))) + min(
            _SAID, sum(1 for k in keys[size - t :] if telling(k))
        )

    def gone(a: int, b: int, h: int = 0, t: int = 0) -> int:
        return code_gone(a, b, h, t)[1]

    def code_gone(a: int, b: int, h: int, t: int) -> tuple[int, int]:
        """(net, gone): the code lines of the stretch less twice those the segment's lines match;
        and the code lines it deletes (matched by none)."""
        stretch = orig.keys[a:b]
        inner = keys[h : size - t]
        if not stretch:
            return 0, 0
        sm = difflib.SequenceMatcher(None, inner, stretch, autojunk=False)
        matched = sum(1 for i, _, n in sm.get_matching_blocks() for k in range(n) if inner[i + k])
        total = sum(1 for x in stretch if x)
        return total - 2 * matched, total - matched

    def end_of_file(after: int) -> int:
        end = m
        while end > after and not orig.lines[end - 1].strip():
            end -= 1
        return end

    both: list[tuple[_Candidate, int]] = []  # with how many nearer places of its head or tail
    for h, hp in heads:
        for t, tp in tails:
            if h + t > size:
                continue
            # The head's places above the tail and the tail's below the head, nearest first: a few, as
            # a farther one that deletes little more is another reading (see _contender). Both lists
            # ascend, so a head's tails past the first _NEAR below it have _NEAR nearer ones already.
            for p in hp:
                interrupt.check()
                first = bisect.bisect_left(tp, p + h + t)
                for nearer_tails, q in enumerate(tp[first : first + _NEAR]):
                    nearer_heads = bisect.bisect_right(hp, q - t - h) - bisect.bisect_right(hp, p)
                    if nearer_heads + nearer_tails < _NEAR:
                        score = (said(h, t), -gone(p + h, q - t, h, t), h + t)
                        both.append(((score, p, q, h, t, gone(p + h, q - t, h, t)), nearer_heads + nearer_tails))
    if both:

        def kept(found: list[tuple[_Candidate, int]]) -> list[_Candidate]:  # near, or deleting little
            return [c for c, nearer in found if not nearer or c[5] <= _BIG_DELETION or _edited_edge(orig, keys, c)]

        flat = [_level(orig, lines, *c[1:5]) for c, _ in both]
        level = [c for c, at_depth in zip(both, flat, strict=True) if at_depth]
        near = kept(level or both)
        if near or not level:
            return near
        # Every place at one depth is far, past nearer places of weak context: a nearer place at another
        # depth is no nearer context (a `}` of an inner block), and a head and a tail that each say
        # something place a segment with one of them at another depth (a line moved into a new block).
        at = {c[1:5] for c, _ in level}
        level = [
            (c, sum((p == c[1] and c[2] > q) or (q == c[2] and p > c[1]) for p, q, h, t in at if (h, t) == c[3:5]))
            for c, _ in level
        ]
        moved = [
            (c, n)
            for (c, n), at_depth in zip(both, flat, strict=True)
            if not at_depth and all(_sides(keys, c[3], c[4]))
        ]
        return kept(level + moved)
    found: list[_Candidate] = []
    for h, hp in heads:  # no tail below the head: the new lines follow it, or rewrite the block's body
        for p in hp:
            end = end_of_file(p + h) if open_end else _rewritten(orig, keys, p, h) or p + h
            found.append(((said(h, 0), -gone(p + h, end, h, 0), h), p, end, h, 0, gone(p + h, end, h, 0)))
    if found:
        return found
    last = end_of_file(0) if open_end else None
    if last is not None and any(last in tp for _, tp in tails):
        if not any(telling(k) for k in keys[size - max(t for t, _ in tails) :]):
            # a tail that says nothing (`}`) and no marker below: the file's end, where it stands there
            tails = [(t, [last]) for t, tp in tails if last in tp]
    for t, tp in tails:  # no head: the new lines go right above the tail
        for q in tp:
            start = orig.first_code(q - t) if open_top else q - t
            found.append(((said(0, t), -gone(start, q - t, 0, t), t), start, q, 0, t, gone(start, q - t, 0, t)))
    if found:
        return found
    if open_top:
        top = orig.first_code(m)
        return [((0, 0, 0), top, top, 0, 0, 0)]
    if open_end:
        end = end_of_file(lo)
        return [((0, 0, 0), end, end, 0, 0, 0)]
    return []


def _edit_in_place(
    orig: _Original,
    lines: tuple[str, ...],
    keys: list[str],
    heads: list[tuple[int, list[int]]],
    tails: list[tuple[int, list[int]]],
    lo: int,
    deleted: int,
) -> int | None:
    """Where a segment that stands whole elsewhere, and reads as deleting `deleted` code lines, also
    reads as a much smaller edit: a head and a tail that each tell something, with code lines between
    them replaced, _BIG_DELETION fewer than that deletion (a line changed to the text it has in a copy
    of the block elsewhere). None when there is no such place."""
    for c in _candidates(orig, lines, keys, heads, tails, lo, False, False):
        ch, ct = _sides(keys, c[3], c[4])
        if c[3] and c[4] and ch and ct and 0 < c[5] and deleted > c[5] + _BIG_DELETION:
            return c[1] + c[3]
    return None


def _edge_of_file(
    orig: _Original, seg: Segment, keys: list[str], lo: int, open_top: bool, open_end: bool, where: str
) -> _Alts | None:
    """A segment with no line of the original that starts the snippet, no marker above and one below,
    its first line alike the original's first line of code (a licence header edited): those lines
    edited in place, one for one, or the new lines added above them; likewise one that ends the snippet,
    its last line alike the original's last line of code. Two readings; else None."""
    if open_top and not open_end and lo == 0:
        j = orig.first_code(len(orig.lines))
        run = _alike_run(orig, keys, 0, j, 1)
        if run:
            return _Alts(
                f"{where} starts the snippet with no marker above: its first lines could be new, or edits of the "
                f"{run} line(s) at the file's start",
                (Placed(j, j, seg.lines), Placed(j, j + run, seg.lines)),
                EDGE,
            )
    if open_end and not open_top:
        j = orig.last_code(lo) - 1
        run = _alike_run(orig, keys, len(keys) - 1, j, -1)
        if j >= lo and run and j + 1 - run >= lo:
            return _Alts(
                f"{where} ends the snippet with no marker below: its last lines could be new, or edits of the "
                f"{run} line(s) at the file's end",
                (Placed(j + 1, j + 1, seg.lines), Placed(j + 1 - run, j + 1, seg.lines)),
                EDGE,
            )
    return None


# How alike (difflib ratio) each line of a segment with no context is to the one it edits (`_edits_one_block`): the
# release corpus's gains are 0.905 and up (a year, a version, a word); at 0.8, 5 adversarial cases were answered
# wrong (`import json` read as an edit of `import os`, `int sub(int a, int b);` of `int add(...)`).
EDITED = 0.9


def _edits_one_block(orig: _Original, keys: list[str], lo: int, hi: int | None) -> int | None:
    """Where a segment with no line of the original is an edit of a block of as many lines, one for one
    (`EDITED` alike each, the blank lines blank), standing once from `lo` on (by `hi`): the first line of
    that block (a licence header's year changed, the snippet showing that line alone); None where no
    block or several are so alike. Each of its lines says something, and none is alike another line of
    the original (`alike`: a new name in a list of names is no edit of the one it resembles)."""
    size = len(keys)
    if not size or not all(telling(k) for k in keys if k):
        return None

    def ratio(a: str, b: str) -> float:
        return likeness(a, b)

    end = len(orig.keys) if hi is None else min(hi, len(orig.keys))
    found = [
        j
        for j in range(lo, end - size + 1)
        if all(
            (not k) == (not orig.keys[j + i]) and (not k or ratio(k, orig.keys[j + i]) >= EDITED)
            for i, k in enumerate(keys)
        )
    ]
    if len(found) != 1:
        return None
    j = found[0]
    near = [
        t
        for i, k in enumerate(keys)
        if k
        for t in range(lo, end)
        if t != j + i and orig.keys[t] and alike(k, orig.keys[t])
    ]
    return None if near else j


def _alike_anywhere(orig: _Original, keys: list[str], lo: int) -> tuple[int, int] | None:
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


def _damage(orig: _Original, lines: tuple[str, ...], c: _Candidate) -> int:
    """What a reading breaks (_Original.damage)."""
    return orig.damage(c[1], c[2], _keep(orig, lines, c[3], c[1], c[4], c[2]), lines)


def _twice(text: str, language: str) -> int:
    """Definitions that stand more than once under one name in one scope (0 without a grammar)."""
    defs = syntax.definitions(text, language) or []

    def qual(d: syntax.Definition | None) -> tuple[str, ...]:
        return () if d is None else (*qual(d.parent), f"{d.kind} {d.name}")

    names = Counter(qual(d) for d in defs)
    return sum(n - 1 for n in names.values())


def _at_an_end(
    orig: _Original,
    keys: list[str],
    heads: list[tuple[int, list[int]]],
    tails: list[tuple[int, list[int]]],
    open_end: bool,
    open_top: bool,
) -> _Candidate | None:
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


def _edited_edge(orig: _Original, keys: list[str], c: _Candidate) -> bool:
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


def _closes_new(orig: _Original, keys: list[str], c: _Candidate) -> bool:
    """Whether a reading's tail may be the closing lines of the new lines' own block, not the original's
    there: new lines between head and tail open a bracket that the tail closes, the tail (`return NULL;`
    `}`) stands again further down, and the reading deletes a few lines of code one of which no new line
    speaks of (no word of it in them: not a rewrite of those lines) and keeps the lines at its edges
    (`_edited_edge`). A new `if (...) {` block then reads both as closing at its own `}` and as taking over
    the next block's `}`, deleting that block's opening lines: two readings."""
    _, p, q, h, t, gone = c
    if not (h and t and 0 < gone <= _BIG_DELETION) or _edited_edge(orig, keys, c):
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


def _sides(keys: list[str], h: int, t: int) -> tuple[int, int]:
    """Telling lines of context in a reading's head and tail, two at most each."""
    return min(_SAID, sum(1 for k in keys[:h] if telling(k))), min(
        _SAID, sum(1 for k in keys[len(keys) - t :] if telling(k))
    )


def _contender(
    orig: _Original, lines: tuple[str, ...], keys: list[str], best: _Candidate, cands: list[_Candidate]
) -> _Candidate | None:
    """The first of `_contenders`, or None."""
    found = _contenders(orig, lines, keys, best, cands, most=1)
    return found[0] if found else None


def _contenders(
    orig: _Original, lines: tuple[str, ...], keys: list[str], best: _Candidate, cands: list[_Candidate], most: int
) -> list[_Candidate]:
    """Another reading of the segment that fits its text as well as the best one and gives another
    file: its head and tail each tell as much as the best one's do (where the best one's says
    nothing, `}` or `return`, as many of its lines), or, when it deletes nothing where the best one
    deletes code, at least one telling line each; and it deletes at most _BIG_DELETION code lines
    more (any number when its edges are edits and the best one's are not); and it breaks no more than
    the best one (`_Original.damage`). Then the choice between them is a guess (a repeated block of
    context, a tail that also stands a few lines on, an insertion that also reads as a rewrite)."""
    bh, bt = _sides(keys, best[3], best[4])
    mine = orig.result(best[1], best[2], _keep(orig, lines, best[3], best[1], best[4], best[2]))
    broken: int | None = None
    weighed = 0
    found: list[_Candidate] = []
    files = {mine}
    for c in cands:
        interrupt.check()
        ch, ct = _sides(keys, c[3], c[4])
        big = c[5] > best[5] + _BIG_DELETION and not (
            _edited_edge(orig, keys, c) and not _edited_edge(orig, keys, best)
        )
        if ch < min(bh, 1) or ct < min(bt, 1) or big:
            continue
        if c[3] < best[3] and not bh or c[4] < best[4] and not bt:  # less of a context that says nothing
            continue
        if (ch < bh or ct < bt) and not (c[5] == 0 < best[5]):  # less context, unless it deletes nothing
            continue
        theirs = _keep(orig, lines, c[3], c[1], c[4], c[2])
        file = orig.result(c[1], c[2], theirs)
        if file in files:
            continue
        if broken is None:
            broken = _damage(orig, lines, best)
        if orig.damage(c[1], c[2], theirs, lines) <= broken:  # one that breaks more is no reading
            found.append(c)
            files.add(file)
            if len(found) >= most:
                return found
            continue
        weighed += 1
        if weighed >= max(_WEIGHED, _WEIGH_LINES // max(1, len(orig.lines))):  # too many to tell apart
            raise _TooMany(weighed, c[1])
    return found


class _TooMany(Exception):
    """Many other places of a segment weighed and none told apart yet (args: how many, the last one's start)."""


def _level(orig: _Original, lines: tuple[str, ...], p: int, q: int, h: int, t: int) -> bool:
    """Whether the head (at original p) and the tail (ending at q) stand at one depth: each of their
    code lines indented by the same amount more (or less) than the original line it matches. A run
    that matches the original's text one level deeper is moved code (a block dedented), not context."""
    shifts = {depth(lines[i]) - depth(orig.lines[p + i]) for i in range(h) if lines[i].strip()}
    size = len(lines)
    shifts |= {
        depth(lines[size - t + i]) - depth(orig.lines[q - t + i]) for i in range(t) if lines[size - t + i].strip()
    }
    return len(shifts) <= 1


def _rewritten(orig: _Original, keys: list[str], p: int, h: int) -> int | None:
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


def _keep(orig: _Original, lines: tuple[str, ...], h: int, p: int, t: int, q: int) -> tuple[str, ...]:
    """The segment's lines, its head (at original p) and tail (ending at q) in the original's text
    where they equal it up to trailing blanks and tab width."""
    out = list(lines)

    def kept(a: str, b: str) -> bool:  # trailing blanks written otherwise are the snippet's
        return same(a, b) and not (a.rstrip() == b.rstrip() and a != b)

    for i in range(h):
        if kept(lines[i], orig.lines[p + i]):
            out[i] = orig.lines[p + i]
    for i in range(t):
        j, k = len(lines) - t + i, q - t + i
        if kept(lines[j], orig.lines[k]):
            out[j] = orig.lines[k]
    return tuple(out)


def _split(orig: _Original, keys: list[str], lo: int, where: str) -> tuple[Placed | NoReading, bool] | None:
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


@dataclass(frozen=True)
class _Either:
    """A segment that changes nothing where it stands whole, or deletes the code between its blocks."""

    why: str
    end: int  # where it stands whole ends
    deletion: Placed | NoReading  # two lines of code or more on both sides of its cut
