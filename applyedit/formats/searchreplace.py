"""SEARCH/REPLACE blocks as chat assistants write them, read into `parts.FilePart`s: `<<<<<<< SEARCH`,
`=======`, `>>>>>>> REPLACE` (or `------- SEARCH` ... `+++++++ REPLACE`), each block with or without a
file-name line and a code fence above it (a block without one is for the file named last); several
blocks, applied in order; an empty SEARCH appends.

A block whose REPLACE part holds a lazy marker (`# ... existing code ...`) that its SEARCH part does
not is refused: the block is applied as written, so the marker would be written into the file. Knows
nothing of matching or of the file.
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
        _refuse_markers(search, replace, count)
        parts.append(FilePart(named, (Change(tuple(search), tuple(replace), f"block {count}"),)))
        i = end + 1
    return parts


def _refuse_markers(search: list[str], replace: list[str], count: int) -> None:
    """Refuse a block whose REPLACE part holds a lazy marker its SEARCH part does not."""
    kept = {x.strip() for x in search}
    marker = next((x for x in replace if markers.is_marker(x) and x.strip() not in kept), None)
    if marker is not None:
        raise InputError(
            f"SEARCH/REPLACE block {count} holds the lazy marker {marker.strip()!r} in its REPLACE part: a block "
            "is applied as written, so the marker would replace the code it stands for; write that code out "
            "in the block, or send the edit as an update snippet; nothing was written"
        )
