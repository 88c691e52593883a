"""Where each change of an edit goes in the file, by one matching ladder shared by every format, and
the file with the changes made in order (`apply_changes`).

The ladder's steps (`STEPS`), each tried only when the ones before found no place: the lines as
written; ignoring trailing whitespace; a uniform indentation shift (the change re-indented to where it
lands); Unicode punctuation look-alikes (curly quotes, dashes, non-breaking spaces) read as their plain
forms. A change that stands at several places at the first step that finds it is refused, listing
them, unless its line number (a diff hunk's) is nearer one than the others; a change found nowhere is
refused with the closest place and the first line that differs there. Nothing is placed by a partial
match. Lines of the change that it keeps (context, or SEARCH lines repeated in REPLACE) are written
as the file has them.

A SEARCH/REPLACE block with lazy markers (`parts.Change`'s `shown` and `lazy`): where its SEARCH as
written stands nowhere, its parts between the markers place it, each after the one before (nearest
first), at one step of the ladder and one indentation shift; the place runs from the first part's
first line to the last part's last, and more than one such place is refused like any change found
twice. A REPLACE that is an update snippet is read against its place by the caller's `Reader` (the
snippet reader, merge/: a layer above this one), in the place's indentation; with no reader it is
refused.

Works on LF lines; knows nothing of any format's syntax (the readers make `parts.Change`s).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from applyedit.errors import AmbiguousEditError, InputError
from applyedit.formats.parts import Change
from applyedit.markers import is_marker

__all__ = ["LOOK_ALIKES", "STEPS", "Reader", "apply_changes", "plain"]

# The snippet reader a block whose REPLACE is an update snippet is read by: (the place's lines, the
# REPLACE's lines in the place's indentation, the change, the place's first line, 0-based) -> the lines
# that replace the place. It refuses (raises) where the snippet's reading is not certain.
Reader = Callable[[list[str], list[str], Change, int], list[str]]

STEPS = ("exact", "trailing whitespace", "indentation", "look-alikes")
_HOW = {
    "trailing whitespace": "ignoring trailing whitespace",
    "indentation": "with its indentation shifted to the file's",
    "look-alikes": "reading curly quotes, dashes and non-breaking spaces as their plain forms",
}
# Each look-alike and the plain character it reads as (one for one: positions stay).
_QUOTES, _DOUBLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032", "\u201c\u201d\u201e\u201f\u2033"
_DASHES, _SPACES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "\u00a0\u2002\u2003\u2007\u2009\u200a\u202f"
LOOK_ALIKES = str.maketrans(
    _QUOTES + _DOUBLE_QUOTES + _DASHES + _SPACES,
    "'" * len(_QUOTES) + '"' * len(_DOUBLE_QUOTES) + "-" * len(_DASHES) + " " * len(_SPACES),
)


def plain(line: str) -> str:
    """A line as the last step and the nearest-place search compare it: look-alikes plain, no outer spaces."""
    return line.translate(LOOK_ALIKES).strip()


@dataclass(frozen=True)
class Place:
    """`size` file lines from `start` (0-based) match the change; `add`/`remove`: the indentation the
    file has more (less) than the change at every line."""

    start: int
    size: int
    add: str = ""
    remove: str = ""


def _key(step: str) -> Callable[[str], str]:
    if step == "exact":
        return lambda s: s
    if step == "look-alikes":
        return lambda s: s.translate(LOOK_ALIKES).rstrip()
    return str.rstrip


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _shift(old: Sequence[str], window: Sequence[str]) -> tuple[str, str] | None:
    """The one indentation shift that makes `old` the `window` (keys compared), or None."""
    first = next((j for j, o in enumerate(old) if o.strip()), None)
    if first is None or old[first].lstrip() != window[first].lstrip():
        return None
    mine, theirs = _indent(old[first]), _indent(window[first])
    if theirs.endswith(mine):
        add, remove = theirs[: len(theirs) - len(mine)], ""
    elif mine.endswith(theirs):
        add, remove = "", mine[: len(mine) - len(theirs)]
    else:
        return None
    for o, w in zip(old, window, strict=True):
        if not o.strip():
            if w.strip():
                return None
        elif not o.startswith(remove) or w != add + o[len(remove) :]:
            return None
    return add, remove


def find_places(lines: Sequence[str], old: Sequence[str], step: str) -> list[Place]:
    """Every place `old` stands in `lines` at this step (overlapping ones included)."""
    key = _key(step)
    wanted = [key(x) for x in old]
    keys = [key(x) for x in lines]
    found: list[Place] = []
    for i in range(len(lines) - len(old) + 1):
        window = keys[i : i + len(old)]
        if step in ("exact", "trailing whitespace"):
            if window == wanted:
                found.append(Place(i, len(old)))
        elif (shift := _shift(wanted, window)) is not None:
            found.append(Place(i, len(old), *shift))
    return found


def _after_anchors(lines: Sequence[str], anchors: Sequence[str]) -> list[int]:
    """Lines (0-based) where the last anchor stands below the ones before it, in order."""
    keys = [plain(x) for x in lines]
    at = [-1]
    for anchor in anchors:
        at = [i for i, k in enumerate(keys) if k == plain(anchor) and any(p < i for p in at)]
    return at


def _anchored(found: list[Place], anchors: list[int]) -> list[Place]:
    """Of the places, those that come first from an anchor on (at each anchor, the nearest at or below it:
    a chunk often repeats its anchor line as its first context line)."""
    kept = {min((p for p in found if p.start >= a), key=lambda p: p.start, default=None) for a in anchors}
    return sorted((p for p in kept if p is not None), key=lambda p: p.start)


@dataclass
class _Run:
    """The changes made so far: each one's line number (as the edit gave it) and the lines it added."""

    moved: list[tuple[int, int]]

    def expected(self, line: int | None) -> int | None:
        """A change's line number where the changes made so far moved it."""
        return None if line is None else line + sum(d for at, d in self.moved if at < line)


def _picked(found: list[Place], expected: int | None) -> Place | None:
    """The one place nearest the line number, when one is nearer than every other."""
    if expected is None:
        return None
    ranked = sorted(found, key=lambda p: abs(p.start + 1 - expected))
    near = abs(ranked[0].start + 1 - expected)
    return ranked[0] if abs(ranked[1].start + 1 - expected) > near else None


def _lines_of(places: Sequence[Place]) -> str:
    shown = [f"{p.start + 1}-{p.start + p.size}" if p.size > 1 else str(p.start + 1) for p in places]
    return ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]


def _ambiguous(change: Change, found: list[Place], what: str, name: str) -> AmbiguousEditError:
    error = AmbiguousEditError(
        f"{change.label} of the {what} stands at {len(found)} places in {name} (lines {_lines_of(found)}); "
        "nothing was written (add context lines that tell the places apart)"
    )
    error.places = tuple({"line": p.start + 1, "end": p.start + p.size, "change": change.label} for p in found)
    return error


def _nowhere(lines: Sequence[str], change: Change, what: str, name: str) -> AmbiguousEditError:
    """The refusal of a change found nowhere: its closest place (most of its lines in order) and the
    first line that differs there."""
    old, keys = [plain(x) for x in change.old], [plain(x) for x in lines]
    best, agree = 0, -1
    for i in range(max(1, len(lines) - len(old) + 1)):
        score = sum(1 for j, k in enumerate(old) if i + j < len(keys) and keys[i + j] == k)
        if score > agree:
            best, agree = i, score
    differs = next((j for j, k in enumerate(old) if best + j >= len(keys) or keys[best + j] != k), 0)
    theirs = lines[best + differs] if best + differs < len(lines) else "(the end of the file)"
    message = (
        f"{change.label} of the {what} stands nowhere in {name}: "
        + (
            f"the closest place is line {best + 1} ({agree} of its {len(old)} lines agree), where its line "
            f"{differs + 1} reads {change.old[differs].strip()!r} and the file has {theirs.strip()!r}"
            if agree > 0
            else "none of its lines stands in the file"
        )
        + "; nothing was written"
    )
    error = AmbiguousEditError(message)
    if agree > 0:
        error.places = (
            {
                "line": best + 1,
                "end": best + len(old),
                "change": change.label,
                "agree": agree,
                "edit": change.old[differs],
                "file": theirs,
            },
        )
    return error


def _mover(window: Sequence[str], change: Change, place: Place) -> Callable[[str], str]:
    """A new line of the change as it lands at `place`: re-indented by the place's shift, with the
    look-alikes the change misread (the file does not use them) made plain."""
    slips = {c for c in "".join(change.old) if ord(c) in LOOK_ALIKES} - set("".join(window))
    table = {ord(c): LOOK_ALIKES[ord(c)] for c in slips}

    def moved(line: str) -> str:
        if not (place.add or place.remove or table):
            return line
        if not line.strip():
            return ""
        cut = len(place.remove) if line.startswith(place.remove) else len(_indent(line))
        return place.add + line[cut:].translate(table)

    return moved


def _replacement(window: Sequence[str], change: Change, place: Place, spanned: bool = False) -> list[str]:
    """The lines that replace `window`: the change's new lines, those it keeps of its old ones as the
    file has them, the others as `_mover` lands them. `spanned`: the place was found by the change's
    parts between lazy markers, so the new lines are held to the window itself."""
    moved = _mover(window, change, place)
    old = window if spanned else change.old
    matcher = difflib.SequenceMatcher(None, [plain(x) for x in old], [plain(x) for x in change.new], False)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        out += list(window[i1:i2]) if tag == "equal" else [moved(x) for x in change.new[j1:j2]]
    return out


def _insertion(lines: list[str], change: Change, run: _Run, what: str, name: str) -> tuple[int, str]:
    """Where a change with no old lines goes: its line number, after its anchors, else the file's end."""
    expected = run.expected(change.line)
    if expected is not None:
        return min(max(expected - 1, 0), len(lines)), f"at line {min(max(expected, 1), len(lines) + 1)}, as numbered"
    if change.anchors:
        at = _after_anchors(lines, change.anchors)
        if len(at) != 1:
            found = [Place(a, 1) for a in at]
            if not found:
                raise _nowhere(lines, Change(change.anchors[-1:], (), change.label), what, name)
            raise _ambiguous(change, found, what, name)
        return at[0] + 1, f"after its anchor line {at[0] + 1}"
    return len(lines), "at the end of the file"


def _places(lines: list[str], change: Change, run: _Run, what: str, name: str) -> tuple[list[Place], str, bool]:
    """The places a change goes at the first step of the ladder that finds any, that step, and whether
    they were found by the change's parts between lazy markers (`_spanned`)."""
    anchors = _after_anchors(lines, change.anchors) if change.anchors else []
    for step in STEPS:
        found = find_places(lines, change.old, step)
        if change.anchors:
            found = _anchored(found, anchors)
        if change.at_end and any(p.start + p.size == len(lines) for p in found):
            found = [p for p in found if p.start + p.size == len(lines)]
        if found:
            break
    else:
        if not change.shown:
            raise _nowhere(lines, change, what, name)
        found, step = _spanned(lines, change, what, name)
        if len(found) > 1:
            raise _ambiguous(change, found, what, name)
        return found, step, True
    if change.everywhere:
        kept: list[Place] = []
        for p in found:
            if not kept or p.start >= kept[-1].start + kept[-1].size:
                kept.append(p)
        return kept, step, False
    if len(found) > 1:
        picked = _picked(found, run.expected(change.line))
        if picked is None:
            raise _ambiguous(change, found, what, name)
        return [picked], step, False
    return found, step, False


def _spanned(lines: list[str], change: Change, what: str, name: str) -> tuple[list[Place], str]:
    """The places a SEARCH with lazy markers spans by its parts between them (`change.shown`), at the first
    step of the ladder where every part stands, in order, with one indentation shift: from each place of
    the first part, each later part at its nearest place below the one before. A part found nowhere is
    refused as any change is; parts that stand only out of order too."""
    for step in STEPS:
        each = [find_places(lines, part, step) for part in change.shown]
        spans: list[Place] = []
        for first in each[0]:
            end, shift = first.start + first.size, (first.add, first.remove)
            for found in each[1:]:
                below = [p for p in found if p.start >= end and (p.add, p.remove) == shift]
                if not below:
                    break
                end = min(below, key=lambda p: p.start).start + below[0].size
            else:
                spans.append(Place(first.start, end - first.start, *shift))
        if spans:
            return spans, step
    for part in change.shown:
        if not any(find_places(lines, part, step) for step in STEPS):
            raise _nowhere(lines, Change(part, (), f"{change.label} (its part between lazy markers)"), what, name)
    raise AmbiguousEditError(
        f"{change.label} of the {what} stands nowhere in {name}: its parts between lazy markers stand in the file, "
        "but not in their order; nothing was written"
    )


def _note(change: Change, step: str, places: Sequence[Place], expected: int | None) -> str | None:
    how = [_HOW[step]] if step != "exact" else []
    if expected is not None and places and places[0].start + 1 != expected:
        how.append(f"at line {places[0].start + 1}, not {expected} as numbered")
    return f"{change.label} placed {' and '.join(how)}" if how else None


def apply_changes(
    lines: list[str], changes: Sequence[Change], what: str, name: str, read: Reader | None = None
) -> tuple[list[str], list[str]]:
    """`lines` with every change made, in order (a later one sees what the earlier wrote), and a note
    for each change the ladder placed past its first step or away from its line number. `what` names
    the edit ("unified diff"), `name` the file, in refusals. `read`: the snippet reader for a block
    whose REPLACE is an update snippet (an empty SEARCH: read against the whole file); without one,
    such a block is refused."""
    run = _Run([])
    notes: list[str] = []
    for change in changes:
        if change.text is not None and (done := _text_replaced(lines, change, what, name)) is not None:
            lines = done
            continue
        if not change.old and change.lazy:
            lines = _read(lines, change, Place(0, len(lines)), lines, read)
            notes.append(f"{change.label}: its REPLACE part read as an update snippet against the whole file")
        elif not change.old:
            at, where = _insertion(lines, change, run, what, name)
            lines = lines[:at] + list(change.new) + lines[at:]
            notes += [] if change.line is not None else [f"{change.label} inserted {where}"]
        else:
            places, step, spanned = _places(lines, change, run, what, name)
            for place in reversed(places):
                window = lines[place.start : place.start + place.size]
                if _snippet(change, spanned):
                    lines = _read(lines, change, place, window, read)
                else:
                    new = _replacement(window, change, place, spanned)
                    lines = lines[: place.start] + new + lines[place.start + place.size :]
            if (note := _note(change, step, places, run.expected(change.line))) is not None:
                notes.append(note)
            if (note := _lazy_note(change, places[0], spanned)) is not None:
                notes.append(note)
        if change.line is not None:
            run.moved.append((change.line, len(change.new) - len(change.old)))
    return lines, notes


def _snippet(change: Change, spanned: bool) -> bool:
    """Whether the change's REPLACE is an update snippet: it holds a lazy marker its SEARCH does not, or
    any where the SEARCH's own markers placed it (they were markers, not lines of the file)."""
    return change.lazy or (spanned and any(is_marker(x) for x in change.new))


def _lazy_note(change: Change, place: Place, spanned: bool) -> str | None:
    """What a block with lazy markers did: where its SEARCH's parts spanned, how its REPLACE was read."""
    where = f"lines {place.start + 1}-{place.start + place.size}"
    if not spanned:
        return f"{change.label}: its REPLACE part read as an update snippet against {where}" if change.lazy else None
    spans = f"{change.label}: its SEARCH part spans {where} (its lazy markers stand for the lines between its parts)"
    return spans + (
        ", and its REPLACE part was read as an update snippet against them" if _snippet(change, spanned) else ""
    )


def _read(lines: list[str], change: Change, place: Place, window: list[str], read: Reader | None) -> list[str]:
    """`lines` with the place's `window` replaced by the change's REPLACE read as an update snippet
    against it (`read`), the REPLACE first landed in the place's indentation."""
    marker = next(x.strip() for x in change.new if is_marker(x))
    if read is None:
        raise InputError(
            f"{change.label} holds the lazy marker {marker!r} in its REPLACE part, and no snippet reader reads it "
            "here; nothing was written (write that code out in the block, or send the edit as an update snippet)"
        )
    moved = _mover(window, change, place)
    new = read(list(window), [moved(x) for x in change.new], change, place.start)
    return lines[: place.start] + new + lines[place.start + place.size :]


def _text_replaced(lines: list[str], change: Change, what: str, name: str) -> list[str] | None:
    """A str_replace's exact strings replaced in the file's text (every place with `everywhere`); None
    where the old string stands nowhere as written (the ladder then reads it as lines)."""
    assert change.text is not None
    old, new = change.text
    text = "\n".join(lines) + "\n" if lines else ""
    count = text.count(old)
    if count == 0:
        return None
    if count > 1 and not change.everywhere:
        starts, at = [], text.find(old)
        while at >= 0:
            starts.append(Place(text.count("\n", 0, at), old.count("\n") + 1))
            at = text.find(old, at + 1)
        raise _ambiguous(change, starts, what, name)
    done = text.replace(old, new) if change.everywhere else text.replace(old, new, 1)
    kept = done.split("\n")
    return kept[:-1] if kept and kept[-1] == "" else kept
