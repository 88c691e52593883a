"""Unified diffs as people and models write them, read into `parts.FilePart`s: git-style
(`diff --git`, `new file mode`, ...) or plain `---`/`+++` headers, or none; `@@ -a,b +c,d @@` hunk headers
whose numbers or counts may be wrong, or `@@ ... @@` / `@@` with none; blank context lines that lost
their leading space; `\\ No newline at end of file` lines; prose and code fences around the diff.

A hunk becomes one `Change`: its context and removed lines to find, its context and added lines to
put there, its old start line only to break ties (ladder.py places it). Hunk counts are not trusted:
a hunk runs while its lines look like hunk lines, less the empty lines at its end. Knows nothing of
matching or of the file.
"""

from __future__ import annotations

import re

from applyedit.formats.parts import Change, FilePart, clean_path

__all__ = ["looks_like", "read"]

_NUMBERED = re.compile(r"^@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@+")
_LOOSE = re.compile(r"^@@+(?: .*)?$")  # `@@`, `@@ ... @@`, `@@ -a,b +c,d @@ def name`
_NUMBERS = re.compile(r"-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?")
_BODY = (" ", "+", "-", "\\")


def _header_pair(lines: list[str], i: int) -> bool:
    return lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def _body_line(line: str) -> bool:
    return line == "" or line.startswith(_BODY)


def looks_like(lines: list[str]) -> bool:
    """Whether the text holds a unified diff: a hunk header (`@@ -a,b +c,d @@`; a bare or `@@ ... @@` one
    needs `---`/`+++` headers above it or a hunk line right below it) followed by at least one added or
    removed line."""
    headed = any(_header_pair(lines, i) for i in range(len(lines)))
    for i, line in enumerate(lines):
        if not (_NUMBERED.match(line) or (_LOOSE.match(line) and (headed or line.strip("@ .") == ""))):
            continue
        end = i + 1
        while end < len(lines) and _body_line(lines[end]) and not _header_pair(lines, end):
            if lines[end].startswith("@@"):
                break
            if lines[end].startswith(("+", "-")):
                return True
            end += 1
    return False


class _Reader:
    """The diff's lines read top to bottom into file parts."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.parts: list[FilePart] = []
        self.path: str | None = None
        self.action = "update"
        self.moved_to: str | None = None
        self.changes: list[Change] = []
        self.hunks = 0

    def close_part(self) -> None:
        if self.changes or self.path is not None or self.action != "update":
            self.parts.append(FilePart(self.path, tuple(self.changes), self.action, self.moved_to))
        self.path, self.action, self.moved_to, self.changes = None, "update", None, []

    def file_headers(self, old: str, new: str) -> None:
        """A `---`/`+++` pair: the part's path and whether it creates or deletes the file."""
        old_path, new_path = clean_path(old[4:]), clean_path(new[4:])
        if self.changes:  # a second file's headers without `diff --git`
            self.close_part()
        if old_path == "/dev/null":
            self.action = "add"
        if new_path == "/dev/null":
            self.action = "delete"
        named = old_path if self.action == "delete" else new_path
        self.path = self.path or _strip_side(named)

    def git_header(self, line: str) -> None:
        self.close_part()
        found = re.match(r"diff --git (?:a/)?(\S+) (?:b/)?(\S+)", line)
        self.path = found.group(2) if found else None

    def read(self) -> list[FilePart]:
        i, lines = 0, self.lines
        while i < len(lines):
            line = lines[i]
            if line.startswith("diff --git "):
                self.git_header(line)
            elif line.startswith("new file mode"):
                self.action = "add"
            elif line.startswith("deleted file mode"):
                self.action = "delete"
            elif line.startswith("rename to ") and self.path is not None:
                self.action, self.moved_to = "move", clean_path(line[len("rename to ") :])
            elif _header_pair(lines, i):
                self.file_headers(line, lines[i + 1])
                i += 1
            elif line.startswith("@@"):
                i = self.hunk(i)
                continue
            i += 1
        self.close_part()
        return self.parts

    def hunk(self, at: int) -> int:
        """Read the hunk whose header is line `at`; returns the line after it."""
        header, end = self.lines[at], at + 1
        while end < len(self.lines):
            line = self.lines[end]
            if not _body_line(line) or _header_pair(self.lines, end) or line.startswith("@@"):
                break
            end += 1
        body = [x for x in self.lines[at + 1 : end] if not x.startswith("\\")]
        found = _NUMBERS.search(header)
        old_count = int(found.group(2) or 1) if found else None
        body = _without_trailing_blanks(body)
        self.hunks += 1
        if any(x.startswith(("+", "-")) for x in body):
            old = tuple(x[1:] if x else "" for x in body if not x.startswith("+"))
            new = tuple(x[1:] if x else "" for x in body if not x.startswith("-"))
            start = int(found.group(1)) if found else None
            numbered = None if start is None else start + 1 if old_count == 0 else max(start, 1)
            self.changes.append(Change(old, new, f"hunk {self.hunks}", line=numbered))
        return end


def _strip_side(path: str) -> str:
    """A diff header's path without git's `a/` or `b/`."""
    return path[2:] if path.startswith(("a/", "b/")) else path


def _without_trailing_blanks(body: list[str]) -> list[str]:
    """The hunk without the empty lines at its end: the blank line after a diff, or before its closing
    fence (a blank context line git writes as a lone space is kept)."""
    end = len(body)
    while end and body[end - 1] == "":
        end -= 1
    return body[:end]


def read(lines: list[str]) -> list[FilePart]:
    """The diff's parts, one per file it names (a diff with no file headers: one part naming none)."""
    return _Reader(lines).read()
