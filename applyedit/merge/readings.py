"""The careful reader's weighing of an update snippet's readings: every reading as a complete candidate
file (the context reading's enumeration, merge/contextread.py's `readings`, and the merge's file,
merge/__init__.py, as a cross-check: where it differs it is one more candidate, never a refusal by itself),
each meeting every invariant (invariants.py; one that does not is no reading), each weighed by one
explicit cost (`cost`), and those within `MARGIN` of the cheapest kept, cheapest first, with the places
where they differ (`Place`), and whether those differences are ones no model should choose between
(`twins`: one edit at two places that read the same; `unplaced`: new lines at the file's edge that no
line of the original places). A reading that changes nothing is no reading of an edit.

The cost of a reading is what a careful reader minimises: the lines it changes, and what it breaks.
- Lines changed: the original and the reading compared line by line (whitespace-collapsed, blank lines
  aside): each original line deleted costs 1, each line inserted 1, and a line replaced by one alike it
  (an edit of that line: difflib ratio >= 0.6) 1 instead of 2. Context a reading matches costs nothing,
  so the place where a segment's context stands costs less than a place where it would be new code, and
  an open end read as "the rest is kept" costs less than one read as "the rest is deleted" by the lines
  it would delete.
- Broken: `DAMAGE` for each syntax error, each definition lost that the snippet never shows, each file
  head moved, each definition standing twice where the original had it once (contextread's `damage`).
  A syntax error here includes a name imported from two modules in JavaScript or TypeScript (an early
  error there) and a line of the original's code put inside a block comment (`Candidate.clashes`,
  `Candidate.swallowed`).
- A reading with a syntax error the original does not have is no reading where another reading has
  none (`BROKEN`).

Pure text in, `Weighed` out; knows nothing of the model (speculative/tiebreak.py breaks ties among the
candidates; decision.py decides).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from applyedit import interrupt, invariants
from applyedit.linediff import Matcher, alike, key, same
from applyedit.markers import is_marker
from applyedit.merge import contextread
from applyedit.merge.original import Original, telling
from applyedit.textio import lines_of

__all__ = [
    "DAMAGE",
    "MARGIN",
    "Candidate",
    "Place",
    "Weighed",
    "cost",
    "dropped",
    "repeated",
    "twins",
    "unplaced",
    "weigh",
]

MARGIN = 6.0  # readings this much costlier than the cheapest are still candidates (docs/eval/reader.md)
DAMAGE = 4.0  # the cost of one thing a reading breaks
REPEAT = 2.0  # the cost of one line of the snippet's context read as new code (`repeated`)
MOST = 5  # candidates handed on at most (the model's tie-break scores 2 to 5)
BROKEN = "it breaks the file's syntax, where another reading does not"
SYNTAX = invariants.Violation("syntax", BROKEN)  # `Weighed.refused`'s violation for such a reading


@dataclass(frozen=True)
class Candidate:
    """One reading as a whole file: its text (LF), its cost, the options it took where the snippet left
    a question open, and which readers gave it ("context", "merge")."""

    text: str
    cost: float
    took: tuple[str, ...]
    sources: tuple[str, ...]
    repeats: int = 0  # the snippet's context lines it reads as new code (`repeated`)
    dropped: int = 0  # the original's code lines it deletes with no alike line in their place (`dropped`)
    broken: int = 0  # syntax errors it has where the original has none (merge/original.py: Original.clean)
    asked: tuple[str, ...] = ()  # the kind of each question in `took` (places.PLACES, ...)
    clashes: int = 0  # names its imports bind from two modules where the original's do not (imports.import_conflicts)
    swallowed: int = 0  # the original's lines of code it puts inside a block comment (Original.swallowed)


@dataclass(frozen=True)
class Place:
    """Where candidates differ: the original lines [start, end) (0-based) each candidate puts something
    else in, and its first line there (one per candidate, in the candidates' order)."""

    start: int
    end: int
    firsts: tuple[str, ...]


@dataclass(frozen=True)
class Weighed:
    """The readings of a snippet: `candidates` within MARGIN of the cheapest (cheapest first, of two as
    costly the one that deletes fewer code lines outright); `rest`, the valid readings past it;
    `refused`, readings an invariant refuses, with the violation (`SYNTAX`: one breaking the syntax
    where another reading does not); `why`, the question the snippet leaves
    open (where there are several candidates) or why there is no reading; `inherent`: the snippet itself
    leaves the question open (no reader could choose without the model)."""

    candidates: tuple[Candidate, ...]
    rest: tuple[Candidate, ...] = ()
    refused: tuple[tuple[Candidate, invariants.Violation], ...] = ()
    why: str = ""
    inherent: bool = False


def changed_lines(original: str, text: str) -> float:
    """The lines `text` changes of `original` (the cost's first part)."""
    return _line_diff(original, text)[0]


def dropped(original: str, text: str) -> int:
    """The original's code lines `text` deletes that no line of its own in their place is alike (an
    edit of): code a reading removes outright."""
    return _line_diff(original, text)[1]


def _line_diff(original: str, text: str) -> tuple[float, int]:
    """(`changed_lines`, `dropped`): both read off one line diff of the two texts (blank lines aside)."""
    a = [key(x) for x in lines_of(original) if x.strip()]
    b = [key(x) for x in lines_of(text) if x.strip()]
    changed, gone = 0.0, 0
    for tag, i1, i2, j1, j2 in Matcher(a, b).get_opcodes():
        if tag == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        changed += (i2 - i1) + (j2 - j1) - sum(alike(a[i1 + k], b[j1 + k]) for k in range(pairs))
        gone += sum(1 for i in range(i1, i2) if not any(alike(a[i], b[j]) for j in range(j1, j2)))
    return changed, gone


def repeated(original: str, text: str, snippet: str) -> int:
    """The snippet's lines of context a reading takes for new code: lines that say something, standing once
    in the original and in the snippet, that the reading has twice or more (the snippet's copy inserted,
    the original's kept). Lines the original repeats (boilerplate a new block copies) do not count, nor a
    line the reading puts in place of an edit of it, one for one where the reading replaces lines (a
    commit that makes a line of one function equal a line of another), nor one the
    reading inserts where the snippet shows it, between two lines that stand together in the original
    (one of them once) and beside no line it stands beside there (an import added at the top that also
    stands at the file's end)."""
    original_keys = [key(x) for x in lines_of(original)]
    have = Counter(k for k in original_keys if telling(k))
    shown = {key(x) for x in lines_of(snippet)}
    keys = [key(x) for x in lines_of(text)]
    now = Counter(k for k in keys if have[k] == 1 and k in shown)
    twice = {k for k, n in now.items() if n > 1}
    if not twice:
        return 0
    edits: set[str] = set()
    snippet_keys = [key(x) for x in lines_of(snippet)]
    for op, i1, i2, j1, j2 in Matcher(original_keys, keys).get_opcodes():
        pins = (
            op == "insert"
            and 0 < i1 < len(original_keys)
            and (have[original_keys[i1 - 1]] == 1 or have[original_keys[i1]] == 1)
        )
        if pins and _between(snippet_keys, original_keys[i1 - 1], keys[j1:j2], original_keys[i1]):
            # shown between two lines that stand together in the original, and beside neither line it stands
            # beside there: new at this place, whatever copy stands elsewhere
            edits.update(k for k in keys[j1:j2] if k in twice and not _beside_its_own(snippet_keys, original_keys, k))
        if op == "replace":  # a line of the reading in place of the original's at the same offset, an edit of it
            edits.update(
                keys[t]
                for t in range(j1, min(j2, j1 + i2 - i1))
                if keys[t] in twice and original_keys[i1 + t - j1] and alike(keys[t], original_keys[i1 + t - j1])
            )
    return sum(now[k] - 1 for k in twice - edits)


def _between(snippet: list[str], above: str, lines: list[str], below: str) -> bool:
    """Whether the snippet shows `lines` right between `above` and `below` (keys), those two telling."""
    run = [above, *lines, below]
    if not (telling(above) and telling(below)):
        return False
    return any(snippet[n : n + len(run)] == run for n in range(len(snippet) - len(run) + 1))


def _beside_its_own(snippet: list[str], original_keys: list[str], line: str) -> bool:
    """Whether the snippet shows `line` (a line standing once in the original) beside a line it stands
    beside in the original: shown as context, where the snippet shows it."""
    o = original_keys.index(line)
    near = {original_keys[o - 1] if o else None, original_keys[o + 1] if o + 1 < len(original_keys) else None} - {
        None,
        "",
    }
    return any(
        snippet[n] == line and any(0 <= m < len(snippet) and snippet[m] in near for m in (n - 1, n + 1))
        for n in range(len(snippet))
    )


def cost(original: str, text: str, snippet: str, language: str | None) -> float:
    """A reading's cost (the module's docstring): lines changed, plus DAMAGE per thing broken, plus REPEAT
    per line of the snippet's context read as new code."""
    return _candidate(Original(lines_of(original), language), original, text, snippet, (), ()).cost


def _candidate(
    orig: Original,
    original: str,
    text: str,
    snippet: str,
    took: tuple[str, ...],
    sources: tuple[str, ...],
) -> Candidate:
    """`text` as a candidate: its cost (`cost`) and the parts the decision reads apart (`orig`: the
    original, read once per snippet, whose syntax and definitions every candidate is compared with)."""
    changed, gone = _line_diff(original, text)
    repeats = repeated(original, text, snippet)
    shown = tuple(lines_of(snippet))
    interrupt.check()  # each step below parses or scans the whole candidate: seconds on a large file
    clashes, swallowed = orig.clashes(text), orig.swallowed(text, shown)
    interrupt.check()
    errors = orig.parse_errors(text) + clashes + swallowed  # orig.syntax_errors, each part once: a cost, and `broken`
    damage = orig.damage_of(text, shown, errors)
    cost = changed + DAMAGE * damage + REPEAT * repeats
    broken = errors if orig.clean else 0
    return Candidate(text, cost, took, sources, repeats, gone, broken, clashes=clashes, swallowed=swallowed)


def weigh(original: str, snippet: str, language: str, path: str | None = None, merged: str | None = None) -> Weighed:
    """Every reading of `snippet` in `original` (LF-only), weighed; `merged`: the merge's file, when the
    merge read one (a cross-check: one more candidate where it differs)."""
    found = contextread.readings(original, snippet, language)
    orig = Original(lines_of(original), language)
    tail = "\n" if original.endswith("\n") or not original else ""
    texts: list[tuple[str, tuple[str, ...], tuple[str, ...], str]] = []
    if merged is not None:
        texts.append((merged, (), (), "merge"))
    why, inherent = "", False
    if isinstance(found, contextread.NoReading):
        why, inherent = found.message, found.inherent
    else:
        for r in found:
            texts.append(("\n".join(r.lines) + tail if r.lines else "", r.took, r.asked, "context"))
        questions = [t for r in found for t in r.took]
        why = _question(questions[0]) if len(found) > 1 and questions else ""
        inherent = len(found) > 1
    # one candidate per file (texts equal up to trailing blanks and tab width: the merge's text kept)
    merged_by: list[tuple[str, tuple[str, ...], tuple[str, ...], list[str]]] = []
    for text, took, asked, source in texts:
        for i, (have, had, kinds, sources) in enumerate(merged_by):
            if _same_file(have, text):
                merged_by[i] = (have, had or took, kinds if had else asked, [*sources, source])
                break
        else:
            merged_by.append((text, took, asked, [source]))
    valid: list[Candidate] = []
    refused: list[tuple[Candidate, invariants.Violation]] = []
    unchanged = False
    for text, took, asked, sources in merged_by:
        interrupt.check()
        if _same_file(text, original):
            unchanged = True  # a reading that changes nothing is no reading of an edit
            continue
        c = dataclasses.replace(_candidate(orig, original, text, snippet, took, tuple(sources)), asked=asked)
        interrupt.check()
        broken = invariants.violations(original, text, snippet, "snippet", language, path)
        if broken:
            refused.append((c, broken[0]))
        else:
            valid.append(c)
    if any(not c.broken for c in valid):  # a reading that breaks the syntax is none where another does not
        refused += [(c, SYNTAX) for c in valid if c.broken]
        valid = [c for c in valid if not c.broken]
    valid.sort(key=lambda c: (c.cost, c.dropped))  # as costly: the one deleting less code first
    if not valid:
        if refused and not why:
            why = refused[0][1].message
        elif unchanged and not why:
            why = "its merge changes nothing in the file"
        return Weighed((), (), tuple(refused), why or "no reading", inherent)
    near = [c for c in valid if c.cost <= valid[0].cost + MARGIN]
    if len(near) > 1 and not why:
        why = "two readers of the snippet give two files"
    elif len(near) > 1:
        why = _asked_apart(near) or why
    return Weighed(tuple(near[:MOST]), tuple(near[MOST:] + valid[len(near) :]), tuple(refused), why, inherent)


def _question(took: str) -> str:
    return took.rsplit(": option ", 1)[0]


def _asked_apart(near: list[Candidate]) -> str:
    """The first question the readings within the margin answer in different ways: the snippet's real
    ambiguity (a question they all answer alike, an open start read one way by each, is none)."""
    chosen: dict[str, set[str]] = {}
    for c in near:
        for took in c.took:
            chosen.setdefault(_question(took), set()).add(took)
    return next((q for q, ways in chosen.items() if len(ways) > 1), "")


def _same_file(a: str, b: str) -> bool:
    la, lb = lines_of(a), lines_of(b)
    return len(la) == len(lb) and all(same(x, y) for x, y in zip(la, lb, strict=True))


def differ(original: str, texts: list[str]) -> tuple[Place, ...]:
    """Where files that each edit `original` differ: per stretch of the original that not every file gives
    the same lines for, each file's first line there that is not every file's (up to 5 stretches;
    "(nothing)" where a file puts no line, blank lines aside)."""
    original_lines = lines_of(original)
    opcodes = [Matcher(original_lines, lines_of(t)).get_opcodes() for t in texts]
    spans: list[tuple[int, int]] = []
    hunks = sorted({(i1, i2) for ops in opcodes for tag, i1, i2, _, _ in ops if tag != "equal"})
    for a, b in hunks:
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], b))
        else:
            spans.append((a, b))
    out = []
    for a, b in spans:
        regions = [_region(lines_of(t), ops, a, b) for t, ops in zip(texts, opcodes, strict=True)]
        if all(r == regions[0] for r in regions):
            continue  # every file gives these lines here
        same = 0
        while all(len(r) > same for r in regions) and all(r[same] == regions[0][same] for r in regions):
            same += 1
        firsts = tuple(next((x.strip() for x in r[same:] if x.strip()), "(nothing)") for r in regions)
        out.append(Place(a, b, firsts))
        if len(out) == 5:
            break
    return tuple(out)


def _region(nl: list[str], ops: Sequence[tuple[str, int, int, int, int]], a: int, b: int) -> list[str]:
    """The lines a file gives for the original's [a, b) (its line diff against the original: `ops`)."""

    def start(i: int) -> int:  # the first operation at original line i
        for tag, i1, i2, j1, _ in ops:
            if i1 <= i < i2 or i1 == i2 == i:
                return j1 + (i - i1) if tag == "equal" else j1
        return len(nl)

    def end(i: int) -> int:  # the last operation reaching original line i
        found = len(nl) if not ops else 0
        for tag, i1, i2, j1, j2 in ops:
            if i1 < i <= i2 or i1 == i2 == i:
                found = j1 + (i - i1) if tag == "equal" else j2
        return found

    return nl[start(a) : end(b) if b > a else max(start(a), end(b))]


TWIN_LINES = 3  # lines around two places compared to call them twins


def twins(original: str, places: Sequence[Place]) -> bool:
    """Whether two readings are one edit made at two places that read the same in the original (the same
    lines there and `TWIN_LINES` around): nothing in the file tells them apart, so no model should choose."""
    if len(places) != 2 or places[0].firsts != tuple(reversed(places[1].firsts)):
        return False
    keys = [key(x) for x in lines_of(original)]
    (a, b), (c, d) = (places[0].start, places[0].end), (places[1].start, places[1].end)
    if b - a != d - c:
        return False
    k = min(TWIN_LINES, a, c, len(keys) - b, len(keys) - d)
    return keys[a - k : b + k] == keys[c - k : d + k]


def unplaced(original: str, snippet: str, places: Sequence[Place]) -> bool:
    """Whether the readings differ only where a segment that shows no line of the original (blank lines
    are the original's) stands at the file's start with no marker above it, or at its end with none
    below: it stands there only because no marker is shown, and how it sits there (above the first
    line, or in its place) nothing tells; the model's choice there is no reading of the snippet, so none
    is made (a new import with a marker below it, above the file's first line or in its place: the edit
    may put it under the file's other imports)."""
    lines = snippet.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    marks = [n for n, x in enumerate(lines) if is_marker(x)]
    if not marks or not places:
        return False
    shown = {x.strip() for x in lines_of(original)}
    size = len(lines_of(original))

    def bare(segment: list[str]) -> bool:  # new lines only: not one line of the original
        return any(x.strip() for x in segment) and not any(x.strip() in shown for x in segment)

    lead, trail = lines[: marks[0]], lines[marks[-1] + 1 :]
    return (bare(lead) and all(p.end <= len(lead) for p in places)) or (
        bare(trail) and all(p.start >= size - len(trail) for p in places)
    )
