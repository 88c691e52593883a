"""What every edit format reads into: `Change` (lines to find, lines to put in their place, and what
helps place them) and `FilePart` (the changes an edit makes to one file it names); and which parts
of a multi-file edit are the target's (`for_target`: by path, then by basename).

Plain data and path comparison. Knows nothing of any format's syntax, of matching (ladder.py) or of
the file's text.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass

from applyedit.errors import InputError


@dataclass(frozen=True)
class Change:
    """One hunk, block or replacement: `old` lines to find in the file, `new` lines to put there.

    `line`: the 1-based line the edit says `old` starts at (a diff's hunk header), only to break a tie
    between places. `anchors`: lines that must stand above the place, in this order (apply_patch's
    `@@ def name` lines). `at_end`: `old` should end the file (apply_patch's `*** End of File`).
    `everywhere`: replace every place (str_replace's `replace_all`). `old` empty: an insertion, at
    `line` when given, else after the last anchor, else at the file's end.

    A SEARCH/REPLACE block with lazy markers (`# ... existing code ...`): `shown`, the SEARCH's parts
    between its markers, where `old` as written stands nowhere (the markers stand for the lines between
    the parts: the place runs from the first part's first line to the last part's last); `lazy`, `new`
    is an update snippet (it holds a marker that `old` does not), read against the place by the
    caller's snippet reader, not written as it is (it is too where the place was found by `shown` and
    `new` holds a marker)."""

    old: tuple[str, ...]
    new: tuple[str, ...]
    label: str  # "hunk 2", "block 1": how messages name it
    line: int | None = None
    anchors: tuple[str, ...] = ()
    at_end: bool = False
    everywhere: bool = False
    text: tuple[str, str] | None = None  # str_replace: the exact strings, tried as text before as lines
    shown: tuple[tuple[str, ...], ...] = ()
    lazy: bool = False


@dataclass(frozen=True)
class FilePart:
    """What an edit does to one file: `path` as the edit names it (None: it names none), `action`
    "update", "add" (the edit creates the file), "delete" or "move" (to `moved_to`)."""

    path: str | None
    changes: tuple[Change, ...]
    action: str = "update"
    moved_to: str | None = None


def clean_path(path: str) -> str:
    """A path as an edit writes it, comparable: quotes, a diff's `a/` `b/` prefix, `./` and a
    timestamp after a tab taken off."""
    path = path.split("\t")[0].strip().strip("`'\"*")
    while path.startswith("./"):
        path = path[2:]
    return posixpath.normpath(path.replace("\\", "/")) if path else path


def _same_path(named: str, target: str) -> bool:
    return named == target or target.endswith("/" + named) or named.endswith("/" + target)


def for_target(parts: Sequence[FilePart], target: str, what: str) -> tuple[list[FilePart], list[str]]:
    """The parts of an edit that are the target's, and the other files the edit names.

    `target`: the file's path as the diff shows it. A part naming no file is the target's. Of the
    named ones, those whose path is the target's (or ends with it, or it with theirs) are taken;
    where none is, those with the target's basename. An edit whose every part names other files is
    refused, naming them; a part that creates, deletes or moves the target is refused too."""
    target = clean_path(target)
    names = [clean_path(p.path) for p in parts if p.path is not None]
    chosen = {n for n in names if _same_path(n, target)}
    if not chosen:
        chosen = {n for n in names if posixpath.basename(n) == posixpath.basename(target)}
    mine = [p for p in parts if p.path is None or clean_path(p.path) in chosen]
    others = list(dict.fromkeys(n for n in names if n not in chosen))
    if not mine:
        raise InputError(
            f"the {what} is for {', '.join(others)}, not {target}; nothing was written "
            "(run applyedit on that file, or pass the edit for this one)"
        )
    for part in mine:
        if part.action != "update":
            where = "" if part.moved_to is None else f" to {part.moved_to}"
            raise InputError(
                f"the {what} {_ACTIONS[part.action]} {target}{where}; "
                "applyedit edits a file in place and never creates, deletes or moves one; nothing was written"
            )
    return mine, others


_ACTIONS = {"add": "creates", "delete": "deletes", "move": "moves"}
