"""SEARCH/REPLACE blocks as chat assistants write them, read into `parts.FilePart`s: `<<<<<<< SEARCH`,
`=======`, `>>>>>>> REPLACE` (or `------- SEARCH` ... `+++++++ REPLACE`), each block with or without a
file-name line and a code fence above it (a block without one is for the file named last); several
blocks, applied in order; an empty SEARCH appends.

Lazy markers (`# ... existing code ...`) inside a block: a SEARCH part that holds one is also read as
its parts between the markers (`Change.shown`: where the SEARCH as written stands nowhere, the markers
stand for the lines between its parts); a REPLACE part that holds one its SEARCH part does not is an
update snippet (`Change.lazy`), read against the place the SEARCH finds by the caller's snippet
reader (ladder.py), never written into the file. Knows nothing of matching or of the file.
"""

from __future__ import annotations

import re

from applyedit import markers
from applyedit.errors import InputError
from applyedit.formats.parts import Change, FilePart

__all__ = ["looks_like", "read"]

_SEARCH = re.compile(r"^(?:<{5,9}|-{5,9}) ?SEARCH\s*$")
_DIVIDER = re.compile(r"^={5,9}\s*$")
_REPLACE = re.compile(r"^(?:>{5,9}|\+{5,9}) ?REPLACE\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})[\w+#.-]*\s*$")
_FILE_NAME = re.compile(r"^[\w.~@+-]*(?:[/\\][\w.~@+-]+)*\.[\w]+$|^[\w.~@+-]+(?:[/\\][\w.~@+-]+)+$")


def looks_like(lines: list[str]) -> bool:
    """Whether the text holds a whole block: a SEARCH line, then a divider, then a REPLACE line."""
    state = 0
    for line in lines:
        if state == 0 and _SEARCH.match(line):
            state = 1
        elif state == 1 and _DIVIDER.match(line):
            state = 2
        elif state == 2 and _REPLACE.match(line):
            return True
    return False


def _file_name(lines: list[str], at: int) -> str | None:
    """The file a block names: the line above it (above its opening fence), when it reads as a path
    (`calc.py`, `src/calc.py`, ``**`calc.py`**``, `calc.py:`)."""
    j = at - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j >= 0 and _FENCE.match(lines[j]):  # the block's opening fence
        j -= 1
    if j < 0:
        return None
    name = lines[j].strip().strip("*`'\"#: \t")
    name = re.sub(r"^(?:file(?:name)?|path)\s*:\s*", "", name, flags=re.I).strip("*`'\" \t")
    return name if _FILE_NAME.match(name) else None


def read(lines: list[str]) -> list[FilePart]:
    """One part per block, each naming the file named above it (or the one named last)."""
    parts: list[FilePart] = []
    named: str | None = None
    i, count = 0, 0
    while i < len(lines):
        if not _SEARCH.match(lines[i]):
            i += 1
            continue
        count += 1
        named = _file_name(lines, i) or named
        divider = next((j for j in range(i + 1, len(lines)) if _DIVIDER.match(lines[j])), None)
        end = (
            None
            if divider is None
            else next((j for j in range(divider + 1, len(lines)) if _REPLACE.match(lines[j])), None)
        )
        if divider is None or end is None:
            raise InputError(
                f"SEARCH/REPLACE block {count} (line {i + 1} of the edit) has no "
                f"{'=======' if divider is None else '>>>>>>> REPLACE'} line; nothing was written"
            )
        search, replace = lines[i + 1 : divider], lines[divider + 1 : end]
        change = Change(
            tuple(search), tuple(replace), f"block {count}", shown=_shown(search), lazy=_lazy(search, replace)
        )
        parts.append(FilePart(named, (change,)))
        i = end + 1
    return parts


def _shown(search: list[str]) -> tuple[tuple[str, ...], ...]:
    """A SEARCH part's stretches between its lazy markers (blank lines beside a marker left out), when it
    holds a marker and shows code besides; () otherwise."""
    if not any(markers.is_marker(x) for x in search):
        return ()
    found: list[tuple[str, ...]] = []
    run: list[str] = []
    for line in [*search, "# ..."]:  # a marker closes the last stretch
        if not markers.is_marker(line):
            run.append(line)
            continue
        while run and not run[-1].strip():
            run.pop()
        while run and not run[0].strip():
            run.pop(0)
        if run:
            found.append(tuple(run))
        run = []
    return tuple(found)


def _lazy(search: list[str], replace: list[str]) -> bool:
    """Whether a REPLACE part holds a lazy marker that its SEARCH part does not (an update snippet)."""
    kept = {x.strip() for x in search}
    return any(markers.is_marker(x) and x.strip() not in kept for x in replace)
