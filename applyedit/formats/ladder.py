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

Works on LF lines; knows nothing of any format's syntax (the readers make `parts.Change`s).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from applyedit.errors import AmbiguousEditError
from applyedit.formats.parts import Change

__all__ = ["LOOK_ALIKES", "STEPS", "apply_changes", "plain"]

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


def _replacement(window: Sequence[str], change: Change, place: Place) -> list[str]:
    """The lines that replace `window`: the change's new lines, those it keeps of its old ones as the
    file has them, the others re-indented by the place's shift and with look-alikes the file does not
    use made plain."""
    slips = {c for c in "".join(change.old) if ord(c) in LOOK_ALIKES} - set("".join(window))
    table = {ord(c): LOOK_ALIKES[ord(c)] for c in slips}

    def moved(line: str) -> str:
        if not (place.add or place.remove or table):
            return line
        if not line.strip():
            return ""
        cut = len(place.remove) if line.startswith(place.remove) else len(_indent(line))
        return place.add + line[cut:].translate(table)

    matcher = difflib.SequenceMatcher(None, [plain(x) for x in change.old], [plain(x) for x in change.new], False)
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


def _places(lines: list[str], change: Change, run: _Run, what: str, name: str) -> tuple[list[Place], str]:
    """The places a change goes at the first step of the ladder that finds any, and that step."""
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
        raise _nowhere(lines, change, what, name)
    if change.everywhere:
        kept: list[Place] = []
        for p in found:
            if not kept or p.start >= kept[-1].start + kept[-1].size:
                kept.append(p)
        return kept, step
    if len(found) > 1:
        picked = _picked(found, run.expected(change.line))
        if picked is None:
            raise _ambiguous(change, found, what, name)
        return [picked], step
    return found, step


def _note(change: Change, step: str, places: Sequence[Place], expected: int | None) -> str | None:
    how = [_HOW[step]] if step != "exact" else []
    if expected is not None and places and places[0].start + 1 != expected:
        how.append(f"at line {places[0].start + 1}, not {expected} as numbered")
    return f"{change.label} placed {' and '.join(how)}" if how else None


def apply_changes(lines: list[str], changes: Sequence[Change], what: str, name: str) -> tuple[list[str], list[str]]:
    """`lines` with every change made, in order (a later one sees what the earlier wrote), and a note
    for each change the ladder placed past its first step or away from its line number. `what` names
    the edit ("unified diff"), `name` the file, in refusals."""
    run = _Run([])
    notes: list[str] = []
    for change in changes:
        if change.text is not None and (done := _text_replaced(lines, change, what, name)) is not None:
            lines = done
            continue
        if not change.old:
            at, where = _insertion(lines, change, run, what, name)
            lines = lines[:at] + list(change.new) + lines[at:]
            notes += [] if change.line is not None else [f"{change.label} inserted {where}"]
        else:
            places, step = _places(lines, change, run, what, name)
            for place in reversed(places):
                window = lines[place.start : place.start + place.size]
                lines = lines[: place.start] + _replacement(window, change, place) + lines[place.start + place.size :]
            if (note := _note(change, step, places, run.expected(change.line))) is not None:
                notes.append(note)
        if change.line is not None:
            run.moved.append((change.line, len(change.new) - len(change.old)))
    return lines, notes


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
