"""When the line reader's cheapest reading is the answer with no model (merge/confirm.py asks): `certain`
weighs the cheapest reading against the others (merge/readings.py's costs, what each deletes, repeats
and asks) and against the merge's file; and four questions have an answer from the code itself, each
a function here: a reading that edits the lines in place where the snippet's new lines are edits of
them (`edited_in_place`), one that copies none of the file's lines the snippet does not show
(`copies_none`), a head line edited in place (`head_line_edited`), and an open start or end whose
lines past it are imports imported again or left unused (`imports_cut`). Pure text in, a verdict out;
knows nothing of how readings are made.
"""

from __future__ import annotations

import re
from collections import Counter

from applyedit import imports, invariants, syntax
from applyedit.errors import quoted
from applyedit.linediff import Matcher, alike, key, likeness
from applyedit.markers import is_marker
from applyedit.merge import places, readings, segment
from applyedit.merge.original import telling

__all__ = ["DROPPED", "FEWER", "certain", "copies_none", "edited_in_place", "head_line_edited", "imports_cut"]


def certain(weighed: readings.Weighed, original: str, snippet: str, language: str, pairing: bool = False) -> bool:
    """Whether the cheapest reading is the answer with no model. First, a pinned reading: the context
    reading's, cheaper than every other, asking nothing but whether an open start or end is replaced, and
    each segment's new lines standing between two lines that stand once in the original (or the file's
    start or end, read so: `_bounded`): what lies between the pins is replaced, whatever that deletes,
    however the merge reads it. Else: it is the context reading's, no other reading lies within
    `readings.MARGIN` of it (or those that do delete code the snippet never shows where it deletes far
    less: `_keeps_code`), and it is plainly better than the merge's reading where the merge reads the
    snippet otherwise (`_plainly_better`), or the one plain reading where the merge reads none
    (`_alone_plain`). An open start or end after new lines (replaced or kept: the cost does not tell
    them apart) is decided only when both readers read it one way (or the merge's
    file, reading it the other way, fails a check), the other way costs `OPEN_GAP` more, and `PINS` lines
    of the snippet that say something stand once in the original (a place no weak context, `*` or
    `## Example`, could have picked); one such line where the other way is a valid reading."""
    valid = [*weighed.candidates, *weighed.rest]
    best = valid[0]
    gap = valid[1].cost - best.cost if len(valid) > 1 else float("inf")
    if "context" in best.sources and gap > 0 and all(k == places.OPEN for k in best.asked):
        if _bounded(original, snippet, best.text):  # what lies between each segment's pins is replaced
            return True
    if _other_way_broken(weighed, original, snippet, language) or _one_way_cheaper(valid, gap):
        return True
    if "context" not in best.sources:  # the merge's reading: if the context reader's is plainly the worse
        return _merge_plainly_better(best, weighed, gap)
    if gap <= readings.MARGIN and not _keeps_code(best, weighed, original, snippet):
        return False
    if "merge" not in best.sources:  # the readers disagree: the context reading's, if it is plainly the better
        refused = (c for c, _ in weighed.refused)  # the merge's file may break the syntax or an invariant
        merged = next((c for c in [*valid, *refused] if "merge" in c.sources), None)
        if merged is None:  # the merge reads none: the context reading's, if it is the one reading and a plain one
            return _alone_plain(weighed, original, snippet, pairing)
        if not _plainly_better(best, merged, weighed, original, snippet):
            return False
    if places.OPEN not in best.asked:
        return True
    # both readers read it so, or the merge's file (another reading) fails a check
    agreed = "merge" in best.sources or not any("merge" in c.sources for c in valid)
    # one pin where the other way is a valid reading, its cost measured (not a refusal's infinite gap)
    return agreed and gap >= OPEN_GAP and _pinned(original, snippet, PINS if len(valid) == 1 else 1)


def _alone_plain(weighed: readings.Weighed, original: str, snippet: str, pairing: bool) -> bool:
    """Where the merge reads none, whether the context reading is the answer: the one valid reading with its
    open end read as kept (the other way breaking something), or the one place (way) of a segment whose
    other places' (ways') readings fail a check, deleting no code, or kept where every other reading
    deletes more than a few lines past that open start or end (or `_keeps_code`); deleting at most
    `DROPPED` lines of code (`segment.FEW_PAST` past an open start or end, `FEWER` where the merge
    read none only for how lines above an anchor pair, `pairing`) and repeating none of the context."""
    valid = [*weighed.candidates, *weighed.rest]
    best = valid[0]
    kept = all(k == places.UNCHANGED for k in best.asked)
    # (one more of the snippet's places past `segment.MOST_PLACES` was never weighed)
    others_fail = any("context" in c.sources for c, _ in weighed.refused)
    placed = others_fail and not best.dropped and all(k in (places.PLACES, places.WAY) for k in best.asked)
    far = kept and all(c.dropped > best.dropped + segment.FEW_PAST for c in valid[1:])
    one = (len(valid) == 1 and (kept or placed)) or far or _keeps_code(best, weighed, original, snippet)
    few = segment.FEW_PAST if kept and best.asked else DROPPED  # the file starts (ends) there
    # the merge read none only for how lines above an anchor pair, and the context reader asked
    # nothing: the lines it deletes there are the ones the snippet replaces
    plain = pairing and not best.asked and not weighed.refused
    return one and best.dropped <= (FEWER if plain else few) and best.repeats <= plain


def _plainly_better(
    best: readings.Candidate, merged: readings.Candidate, weighed: readings.Weighed, original: str, snippet: str
) -> bool:
    """Where the readers disagree, whether the context reading (`best`) is plainly better than the merge's
    (`merged`, valid or refused): it deletes no code outright (at most `DROPPED` lines where the merge's
    file is refused), unless the merge's valid reading deletes `FEWER` more, or keeps the lines this one
    deletes only inside a comment, or this one deletes only lines the snippet shows gone; and it reads no
    more of the snippet's context as new code, unless the merge's file is refused for breaking the syntax
    where this one, which asked nothing and deletes nothing, does not (those lines, kept as context,
    broke the file)."""
    valid = [*weighed.candidates, *weighed.rest]
    fewer = merged in valid and best.dropped + FEWER < merged.dropped  # the merge's reading deletes far more
    # or keeps the lines this one deletes only inside a comment: a `/**` of the snippet's read as new above them
    fewer = fewer or (merged not in valid and merged.swallowed >= best.dropped)
    # or deletes only lines the snippet shows gone: between two of its lines that stand once, no marker between
    fewer = fewer or (merged not in valid and _drops_shown(original, snippet, best.text))
    why = next((why.name for c, why in weighed.refused if c is merged), "")
    syntax = why in (readings.SYNTAX.name, "compiles")
    syntax = syntax and best.broken == 0 and not best.asked and not best.dropped
    return not (
        (best.dropped > (DROPPED if merged not in valid else 0) and not fewer)
        or (best.repeats > merged.repeats and not syntax)
    )


def _one_way_cheaper(valid: list[readings.Candidate], gap: float) -> bool:
    """Whether the snippet's one question is the way a segment stands at its one place (its new lines
    added there, or in place of the lines there: `places.WAY`), two valid readings answer it, and
    the cheaper costs `WAY_GAP` less, deleting no more code and reading no more of the snippet's
    context as new: the careful reader's way (the new lines edit the alike lines there, or stand beside
    lines they are nothing like); under that gap the question stays (docs/eval/reader.md)."""
    if len(valid) != 2 or gap < WAY_GAP:
        return False
    best, other = valid
    apart = [k for took, k in zip(best.took, best.asked, strict=False) if took not in other.took]
    return (
        apart == [places.WAY]
        and len(best.took) == len(other.took)
        and all("context" in c.sources for c in valid)
        and best.dropped <= other.dropped
        and best.repeats <= other.repeats
    )


def _other_way_broken(weighed: readings.Weighed, original: str, snippet: str, language: str) -> bool:
    """Whether the one valid reading is the context reading's, took one way of an open start or end and
    nothing else, repeats none of the snippet's context, and another reading breaks the file's syntax
    (`readings.BROKEN`) where it does not, so the question has one answer: where that other reading binds
    a name twice (new imports read as added to the original's that import the same name from another
    module, an early error in JavaScript and TypeScript: `Candidate.clashes`), or where this reading
    deletes no code outright and a line of the snippet that says something stands once in the original
    (a snippet's open end: deleting the rest leaves a block unclosed; nobody deletes code by leaving it
    out, a definition shown whole included): not any syntax error of the other way, with code deleted
    or weak context (a truncated snippet's open end; `*` lines that stand in another doc comment)."""
    valid = [*weighed.candidates, *weighed.rest]
    if len(valid) != 1 or "context" not in valid[0].sources or valid[0].repeats or valid[0].clashes:
        return False
    best = valid[0]
    if not best.asked or any(k != places.OPEN for k in best.asked):
        return False
    broken = [c for c, why in weighed.refused if why == readings.SYNTAX]
    if not broken:
        return False
    if any(c.clashes for c in broken):
        return True
    return not best.dropped and _pinned(original, snippet, 1)


def imports_cut(weighed: readings.Weighed, original: str, language: str) -> readings.Candidate | None:
    """Of the readings of an open start or end (the original's lines past a segment with no marker above
    or below kept, or deleted: `places.AT_AN_END`, `places.OPEN`; the merge's reading among
    them), the shortest, where every other differs from it only by keeping lines it deletes, and those
    are import statements and nothing else (in Python, a version check whose every statement is an
    import too), every name they import either imported again by the snippet's new lines (imports
    rewritten one per line) or used nowhere in the shortest reading though it was in the original outside
    its imports (a version check around an import rewritten as one import: `import sys` left unused), or
    a Python 2 `from __future__ import` (every feature but `annotations` a no-op in Python 3). None where
    that is not so."""
    valid = [*weighed.candidates, *weighed.rest]
    ends = (places.AT_AN_END, places.OPEN)
    if not 2 <= len(valid) <= readings.MOST or any(any(k not in ends for k in c.asked) for c in valid):
        return None
    if not any(c.asked for c in valid) or any(c.repeats for c in valid):
        return None
    cut = min(valid, key=lambda c: len(c.text))
    again = {name for name, _ in imports.imported_names(cut.text, language) or []}
    used = imports.without_imports(original, language)

    def uses(text: str, name: str) -> int:
        return len(re.findall(rf"(?<![\w.]){re.escape(name)}\b", text))

    for keep in valid:
        if keep is cut:
            continue
        a, b = keep.text.split("\n"), cut.text.split("\n")
        extra = []
        for op, i1, i2, _, _ in Matcher(a, b).get_opcodes():
            if op == "equal":
                continue
            if op != "delete":
                return None
            extra += a[i1:i2]
        block = "\n".join(extra) + "\n"
        bound = imports.imported_names(block, language) or []
        names = {name for name, module in bound if module != "__future__" or name == "annotations"}
        if not bound or not imports.imports_only(block, language):
            return None
        if not all(name in again or (not uses(cut.text, name) and uses(used, name)) for name in names):
            return None
    return cut


def _merge_plainly_better(best: readings.Candidate, weighed: readings.Weighed, gap: float) -> bool:
    """Whether the merge's reading, where the context reader reads the snippet otherwise, is the answer:
    no other reading within `readings.MARGIN` of it, it deletes no code outright, repeats none of the
    snippet's context and asks nothing, and the context reader's reading, not a question the snippet
    leaves open (`weighed.inherent`), fails a check. (Not where it is valid and deletes code outright: a
    block's body rewritten reads so too.)"""
    if gap <= readings.MARGIN or best.dropped or best.repeats or best.asked or weighed.inherent:
        return False
    valid = [*weighed.candidates, *weighed.rest]
    refused = [c for c, _ in weighed.refused if "context" in c.sources]
    return bool(refused) and not any("context" in c.sources for c in valid)


def _keeps_code(best: readings.Candidate, weighed: readings.Weighed, original: str, snippet: str) -> bool:
    """Whether the cheapest reading, within the margin of others, is the one a careful reader takes: it asks where
    or how a segment stands, repeats none of the snippet's context and deletes at most `DROPPED` line, where every
    other reading near it deletes more code the snippet never shows (one line more; `PLACE_DROPS` more where this
    one deletes a line) or reads some of its context as new. That answers a question of way (`places.WAY`); one of
    places (`places.PLACES`) needs the segment pinned (a line of the snippet that says something stands once in the
    original) or every other place deleting `PLACE_DROPS` more, both where it deletes a line (or, unpinned, every
    other deleting `FAR_DROPS` more), never between twins (`readings.twins`). Any other question it took has one
    valid answer that every other reading took too, and then no question of places."""
    near = [c for c in weighed.candidates if c is not best]
    more = 1 if not best.dropped else PLACE_DROPS  # code lines each other reading deletes past this one's
    if not best.asked or best.dropped > DROPPED or best.repeats:
        return False
    if not all(c.dropped >= best.dropped + more or c.repeats for c in near):  # none cheaper: `near` is sorted
        return False
    kinds = (places.WAY, places.PLACES)
    settled = {t for t, k in zip(best.took, best.asked, strict=False) if k not in kinds}
    if any(not settled <= set(c.took) for c in [*weighed.candidates, *weighed.rest] if c is not best):
        return False
    asked = [k for k in best.asked if k in kinds]
    if settled and places.PLACES in asked:
        return False  # a weak context (`free(kip);`) may stand at any of them
    if asked and all(k == places.WAY for k in asked):
        return True
    pinned = _pinned(original, snippet, 1)
    far = all(c.dropped >= best.dropped + PLACE_DROPS for c in near)  # every other place deletes far more
    return (
        bool(near)
        and bool(asked)
        and (pinned or far)
        and (not best.dropped or (pinned and far) or all(c.dropped >= best.dropped + FAR_DROPS for c in near))
        and not any(readings.twins(original, readings.differ(original, [best.text, c.text])) for c in near)
    )


def edited_in_place(
    weighed: readings.Weighed, original: str, language: str, path: str | None
) -> tuple[readings.Candidate, str] | None:
    """The reading a careful reader takes where the question is only which of several places a segment
    stands at, and the snippet edits lines in place: at one place, the lines the reading replaces are,
    one for one, `places.EDITED` alike the snippet's new lines in their place (a parameter added to
    a signature); at every other place some line it replaces is far less so (under `UNEDITED`: a line
    of another function's signature), or it deletes or replaces lines unevenly. That reading costs no
    more than any other, and loses no definition of the original (a function renamed in place may be a
    new one beside it). None where no reading, or more than one, is so."""
    near = list(weighed.candidates)
    if len(near) < 2 or any(not c.asked or set(c.asked) != {places.PLACES} for c in near):
        return None
    olines = original.split("\n")

    def least_alike(text: str) -> float | None:  # every change one for one: the least alike line pair; else None
        new = text.split("\n")
        ops = [op for op in Matcher(olines, new).get_opcodes() if op[0] != "equal"]
        least = 1.0
        for tag, i1, i2, j1, j2 in ops:
            if tag != "replace" or i2 - i1 != j2 - j1:
                return None
            for a, b in zip(olines[i1:i2], new[j1:j2], strict=True):
                if (not a.strip()) != (not b.strip()):
                    return None
                if a.strip():
                    least = min(least, likeness(a.strip(), b.strip()))
        return least if ops else None

    least = {id(c): least_alike(c.text) for c in near}  # each reading diffed once
    found = [c for c in near if (least[id(c)] or 0.0) >= places.EDITED]
    if len(found) != 1 or any((least[id(c)] or 0.0) >= UNEDITED for c in near if c is not found[0]):
        return None
    if found[0].cost > min(c.cost for c in near):
        return None
    before, after = syntax.definitions(original, language, path), syntax.definitions(found[0].text, language, path)
    if before is None or after is None:
        return None
    if Counter(d.name for d in before) - Counter(d.name for d in after):
        return None
    return found[0], "the segment read where the lines it edits stand, each alike its new line (one place of several)"


def head_line_edited(
    weighed: readings.Weighed, original: str, snippet: str, language: str, path: str | None
) -> tuple[readings.Candidate, str] | None:
    """The reading a careful reader takes where the snippet shows a definition's head with one line above
    its header line edited (a modifier added or dropped: `static int` for `static inline int`,
    `#[derive(Debug, Clone)]` for `#[derive(Debug)]`, `@pytest.fixture(scope="module")` for
    `@pytest.fixture`), a marker above: two readings, one replacing the original's line there, the other
    keeping it and adding the new line under it, a head with both lines (two return types, one derive
    twice). The words of one line are a part of the other's (`@staticmethod` against `@classmethod`,
    two decorators that may stack, stays a question), the original line is not shown in the snippet, and
    the replacing reading costs no more. None otherwise."""
    near = list(weighed.candidates)
    if len(near) != 2:
        return None
    shown = {x.strip() for x in snippet.split("\n")}
    olines = original.split("\n")
    for keep, kept in ((near[0], near[1]), (near[1], near[0])):
        r, i = keep.text.split("\n"), kept.text.split("\n")
        if len(i) != len(r) + 1:
            continue
        k = next((n for n, (a, b) in enumerate(zip(r, i, strict=False)) if a != b), len(r))
        if i[k + 1 :] != r[k:] or k + 1 >= len(r):
            continue
        old, new, header = i[k], r[k], r[k + 1]
        words_old, words_new = set(re.findall(r"\w+", old)), set(re.findall(r"\w+", new))
        if (
            old.strip() in shown
            or new.strip() not in shown
            or header.strip() not in shown
            or not header.strip()
            or new.strip() in {x.strip() for x in olines}
            or old[: len(old) - len(old.lstrip())] != new[: len(new) - len(new.lstrip())]
            or not words_old
            or not words_new
            or not (words_old < words_new or words_new < words_old)
            or keep.cost > kept.cost
        ):
            continue
        at = [n for n in range(len(olines) - 1) if olines[n] == old and olines[n + 1] == header]
        defs = syntax.definitions(keep.text, language, path)
        if len(at) != 1 or not defs:
            continue
        if not any(d.start_line <= k + 1 < d.end_line and re.search(rf"\b{re.escape(d.name)}\b", header) for d in defs):
            continue
        return keep, f"the line above {quoted(header)} read as edited in place ({quoted(new)} for {quoted(old)})"
    return None


def copies_none(weighed: readings.Weighed, original: str, snippet: str) -> tuple[readings.Candidate, str] | None:
    """Where the two readers give two files, both valid and near, the context reader's when it costs no
    more and reads every line the snippet shows as the original's, where the merge's reads one as new code
    beside the original's copy (a `return` or `continue` below a new line, kept twice: `readings.repeated`
    counts only lines that say something), deleting nothing, or `DROPPED` line the snippet shows gone
    (`_drops_shown`: the line the new one replaces, between two lines shown together). None otherwise."""
    near = list(weighed.candidates)
    if len(near) != 2 or any(c.asked or c.repeats or len(c.sources) != 1 for c in near):
        return None
    context, merged = sorted(near, key=lambda c: c.sources != ("context",))
    if context.sources != ("context",) or merged.sources != ("merge",) or context.cost > merged.cost:
        return None
    keys = Counter(key(x) for x in original.split("\n") if x.strip())
    shown = {key(x) for x in snippet.split("\n") if x.strip() and not is_marker(x)}

    def copies(text: str) -> int:  # lines the snippet shows that the reading holds more often than the original
        now = Counter(key(x) for x in text.split("\n") if x.strip())
        return sum(now[k] > keys[k] > 0 for k in shown)

    if copies(context.text) or not copies(merged.text):
        return None
    if context.dropped and (context.dropped > DROPPED or not _drops_shown(original, snippet, context.text)):
        return None
    return (
        context,
        "the context reader's reading: the merge's reads a line the snippet shows as new code beside its copy",
    )


def _drops_shown(original: str, snippet: str, text: str) -> bool:
    """Whether every code line `text` deletes outright (`readings.dropped`) lies between two lines it
    keeps that the snippet shows in one stretch, no marker between them, one of the two saying something
    and standing once in the original (it places the stretch), neither alike a line between (the
    snippet's line an edit of it, read at another place): the snippet shows those lines gone (a
    `#if` line deleted between a comment line that stands once and the line below it), not code it
    never shows. False where it deletes none."""
    a = [key(x) for x in original.split("\n") if x.strip()]
    b = [key(x) for x in text.split("\n") if x.strip()]
    counts = Counter(a)
    shown = [key(x) for x in snippet.split("\n")]
    marks = [is_marker(x) for x in snippet.split("\n")]

    def stretch(pin: str, other: str, step: int) -> bool:  # `other` shown after (before) `pin`, no marker between
        n = shown.index(pin) + step
        while 0 <= n < len(shown) and not marks[n]:
            if shown[n] == other:
                return True
            n += step
        return False

    def pinned(top: int, bottom: int) -> bool:  # rows a[top] and a[bottom] hold what lies between them
        if top < 0 or bottom >= len(a) or a[top] not in shown or a[bottom] not in shown:
            return False
        if any(alike(a[i], a[k]) for i in range(top + 1, bottom) for k in (top, bottom)):
            return False  # a line kept may be an edit of one deleted, read at another place (`.doc=nullptr`)
        if counts[a[top]] == 1 and telling(a[top]) and stretch(a[top], a[bottom], 1):
            return True
        return counts[a[bottom]] == 1 and telling(a[bottom]) and stretch(a[bottom], a[top], -1)

    found = False
    for tag, i1, i2, j1, j2 in Matcher(a, b).get_opcodes():
        if tag in ("equal", "insert"):
            continue
        if any(not any(alike(a[i], b[j]) for j in range(j1, j2)) for i in range(i1, i2)):
            if not pinned(i1 - 1, i2):
                return False
            found = True
    return found


PLACE_DROPS = 2  # code lines every other place's reading deletes, for `_keeps_code` to take an unpinned place
FEWER = 5  # code lines deleted outright fewer than the merge's reading deletes, for a context reading to delete some
# At every other place of a segment that edits lines in place (`edited_in_place`), some line replaced is less
# alike its new line than this (difflib ratio; `places.EDITED` at the place taken): 0.83 and 0.88 were too near.
UNEDITED = 0.8
FAR_DROPS = 3  # code lines every other place deletes more, for `_keeps_code` to take an unpinned one deleting a line
DROPPED = 1  # code lines a context reading may delete outright where the merge's reading is refused or none
OPEN_GAP = 20.0  # how much costlier the other reading of an open end after new lines must be
WAY_GAP = 2.0  # how much cheaper one way of a segment at its one place must be (`_one_way_cheaper`)
PINS = 2  # lines of the snippet standing once in the original that pin such a reading (`_pinned`)


def _bounded(original: str, snippet: str, text: str) -> bool:
    """Whether each segment of the snippet has new lines (no line of the original) and, above the first
    of them and below the last, a line that says something and stands exactly once in the original: a
    careful reader replaces what lies between those two, however much code that deletes (a loop
    rewritten as an object literal). Pins are sought among all of a segment's lines, not only its first
    and last three (a short segment's `};`, an edit of a `}` that stands elsewhere too, pins nothing).
    The file's start pins a first segment with no marker above whose first line is the original's first
    line of code, where the reading (`text`) starts with the segment (a file's head doc comment
    rewritten); likewise its end (by its text alone, a bare `}` pinned wrongly: the last
    line of most files)."""
    keys = [key(x) for x in original.split("\n")]
    counts = Counter(keys)
    code = [k for k in keys if k]
    read = [key(x) for x in text.split("\n") if x.strip()]
    segs = invariants.segments(snippet)
    for n, seg in enumerate(segs):
        ks = [key(x) for x in seg.lines if x.strip()]
        new = [i for i, k in enumerate(ks) if not counts[k]]
        pins = [i for i, k in enumerate(ks) if counts[k] == 1 and telling(k)]
        if code and n == 0 and not seg.marker_before and ks and ks[0] == code[0] and read[: len(ks)] == ks:
            pins.append(-1)  # the file's start: no marker above, its first line the original's first, read so
        if (
            code
            and n == len(segs) - 1
            and not seg.marker_after
            and ks
            and ks[-1] == code[-1]
            and read[-len(ks) :] == ks
        ):
            pins.append(len(ks))  # likewise the file's end
        if not new or not any(i < new[0] for i in pins) or not any(i > new[-1] for i in pins):
            return False
    return True


def _pinned(original: str, snippet: str, pins: int) -> bool:
    """Whether `pins` lines of the snippet that say something each stand exactly once in the original."""
    counts = Counter(key(x) for x in original.split("\n"))
    return sum(counts[k] == 1 and telling(k) for k in (key(x) for x in snippet.split("\n"))) >= pins
