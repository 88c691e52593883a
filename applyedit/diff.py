"""Unified diffs that `git apply` accepts, and the file paths written in their headers.

This module owns the diff text: git-style headers (paths quoted exactly as git quotes them), hunks,
and the `\\ No newline at end of file` marker. It knows nothing of the model and does not restore
line endings or encodings: it diffs exactly the two texts it is given, line endings included.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePath

from applyedit.errors import InputError
from applyedit.linediff import Matcher

__all__ = ["diff_path", "unified_diff"]

NO_NEWLINE_MARKER = "\\ No newline at end of file"

# git's quote.c (cq_lookup): these bytes get a named escape, other control bytes and DEL an octal
# one; bytes >= 0x80 are octal-escaped too (core.quotePath defaults to true).
_NAMED_ESCAPES = {
    0x07: "\\a",
    0x08: "\\b",
    0x09: "\\t",
    0x0A: "\\n",
    0x0B: "\\v",
    0x0C: "\\f",
    0x0D: "\\r",
    0x22: '\\"',
    0x5C: "\\\\",
}


def diff_path(file: Path | str, cwd: Path | None = None) -> str:
    """The path a diff names for `file`, as a POSIX path: symlinks resolved, relative to `cwd`
    (default: the process cwd) when inside it.

    The file edited is a symlink's target, so the diff names the target: `git apply` refuses a patch
    to a link's own name (git holds a link as its target's path). Inside `cwd` the path is relative
    to it (`./`, `..`, `//` gone); outside it, it stays as given: relative (with its `../`) when
    given so, else absolute. `git apply` takes paths outside its working area only with
    `--unsafe-paths`. Raises `InputError` for `cwd` itself.
    """
    base = os.path.realpath(os.fspath(cwd) if cwd is not None else os.getcwd())
    given = os.fspath(file)
    target = os.path.realpath(os.path.join(base, given))
    if target == base:
        raise InputError(f"{given} is the current directory, not a file")
    try:
        inside = os.path.commonpath([base, target]) == base
    except ValueError:  # different drives on Windows
        inside = False
    if inside or not os.path.isabs(given):
        return PurePath(os.path.relpath(target, base)).as_posix()
    return PurePath(target).as_posix()


def _git_quote(name: str) -> str:
    """Quote `name` as git does in diff headers: C-style in double quotes, only if needed."""
    raw = name.encode("utf-8", errors="surrogateescape")
    if not any(b < 0x20 or b == 0x7F or b >= 0x80 or b in (0x22, 0x5C) for b in raw):
        return name
    out = []
    for b in raw:
        if b in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[b])
        elif b < 0x20 or b >= 0x7F:
            out.append(f"\\{b:03o}")
        else:
            out.append(chr(b))
    return '"' + "".join(out) + '"'


def _split_lines(text: str) -> list[str]:
    """Split on "\\n" only, keeping it; "\\r" and other separators stay inside the line."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _hunk_range(start: int, stop: int) -> str:
    """Format a hunk range as git and difflib do: `l,s`, `l` when s == 1, `l-1,0` when empty."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    if length == 0:
        return f"{start},0"
    return f"{start + 1},{length}"


def unified_diff(before: str, after: str, path: str, context: int = 3) -> str:
    """Return a git-style unified diff turning `before` into `after` for file `path`.

    `path` is the header path as given by `diff_path` (no `a/`/`b/` prefix). The result is ""
    when the texts are equal; otherwise every line of it ends with "\\n".
    """
    if context < 0:
        raise ValueError(f"context must be >= 0, got {context}")
    if before == after:
        return ""
    old_lines = _split_lines(before)
    new_lines = _split_lines(after)

    old_name = _git_quote("a/" + path)
    new_name = _git_quote("b/" + path)
    out = [f"diff --git {old_name} {new_name}\n"]
    # git ends a ---/+++ line with a tab when the name holds a space (quote.c / diff.c).
    for marker, name in (("---", old_name), ("+++", new_name)):
        out.append(f"{marker} {name}{chr(9) if ' ' in name else ''}\n")

    def emit(prefix: str, line: str) -> None:
        out.append(prefix + line)
        if not line.endswith("\n"):  # only a side's last line can lack one
            out.append("\n" + NO_NEWLINE_MARKER + "\n")

    matcher = Matcher(old_lines, new_lines)
    for group in matcher.get_grouped_opcodes(context):
        old_range = _hunk_range(group[0][1], group[-1][2])
        new_range = _hunk_range(group[0][3], group[-1][4])
        out.append(f"@@ -{old_range} +{new_range} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for line in old_lines[i1:i2]:
                    emit(" ", line)
                continue
            for line in old_lines[i1:i2]:
                emit("-", line)
            for line in new_lines[j1:j2]:
                emit("+", line)
    return "".join(out)
