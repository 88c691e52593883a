"""OpenAI's apply_patch format, read into `parts.FilePart`s: `*** Begin Patch`, then per file
`*** Update File: PATH` (optionally `*** Move to: PATH`), `*** Add File: PATH` or `*** Delete File: PATH`;
an update's chunks each after `@@` or `@@ ANCHOR` lines (the anchors: lines that stand above the chunk,
in order), of ` ` context, `-` removed and `+` added lines, `*** End of File` when the chunk ends the
file; `*** End Patch`.

A chunk becomes one `Change` (its anchors and `at_end` carried, no line number). A blank line inside a
chunk is read as blank context; any other line that is none of these is refused. Knows nothing of
matching or of the file.
"""

from __future__ import annotations

from applyedit.errors import InputError
from applyedit.formats.parts import Change, FilePart, clean_path

__all__ = ["looks_like", "read"]

BEGIN, END = "*** Begin Patch", "*** End Patch"
_FILE_ACTIONS = {"*** Update File:": "update", "*** Add File:": "add", "*** Delete File:": "delete"}
_MOVE, _END_OF_FILE = "*** Move to:", "*** End of File"


def looks_like(lines: list[str]) -> bool:
    """Whether the text holds a patch: a `*** Begin Patch` line."""
    return any(line.strip() == BEGIN for line in lines)


class _Chunks:
    """The chunks of one file's update, read line by line."""

    def __init__(self) -> None:
        self.changes: list[Change] = []
        self.anchors: list[str] = []
        self.body: list[str] = []
        self.at_end = False

    def close(self) -> None:
        while self.body and self.body[-1] == "":  # blank lines between chunks, or before the end
            self.body.pop()
        if any(x.startswith(("+", "-")) for x in self.body):
            old = tuple(x[1:] for x in self.body if not x.startswith("+"))
            new = tuple(x[1:] for x in self.body if not x.startswith("-"))
            label = f"chunk {len(self.changes) + 1}"
            self.changes.append(Change(old, new, label, anchors=tuple(self.anchors), at_end=self.at_end))
        self.anchors, self.body, self.at_end = ([], [], False) if self.body else (self.anchors, [], False)

    def take(self, line: str, number: int) -> None:
        if line.startswith("@@"):
            if self.body:
                self.close()
            if anchor := line[2:].strip():
                self.anchors.append(anchor)
        elif line.strip() == _END_OF_FILE:
            self.at_end = True
            self.close()
        elif line.startswith((" ", "+", "-")) or not line.strip():
            self.body.append(line if line.strip() else "")
        else:
            raise InputError(
                f"line {number} of the patch ({line.strip()!r}) is neither context (' '), a removed line ('-') "
                "nor an added one ('+'); nothing was written"
            )


def read(lines: list[str]) -> list[FilePart]:
    """One part per file the patch names."""
    start = next(i for i, line in enumerate(lines) if line.strip() == BEGIN)
    parts: list[FilePart] = []
    path: str | None = None
    action, moved_to = "update", None
    chunks = _Chunks()

    def close_file() -> None:
        chunks.close()
        if path is not None:
            parts.append(FilePart(path, tuple(chunks.changes), action, moved_to))

    for number, line in enumerate(lines[start + 1 :], start + 2):
        head = next((h for h in _FILE_ACTIONS if line.startswith(h)), None)
        if line.strip() == END:
            break
        if head is not None:
            close_file()
            path, action, moved_to, chunks = clean_path(line[len(head) :]), _FILE_ACTIONS[head], None, _Chunks()
        elif line.startswith(_MOVE) and path is not None:
            action, moved_to = "move", clean_path(line[len(_MOVE) :])
        elif path is not None and action == "update":
            chunks.take(line, number)
    close_file()
    if not parts:
        raise InputError("the patch names no file (no '*** Update File: PATH' line); nothing was written")
    return parts
