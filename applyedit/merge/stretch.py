"""Stretches of lines as the structural reader (merge/structure.py) handles them, between shown
definitions, each definition one opaque line (`token`): the lines that pin a stretch of the snippet to
the file's (`pins`), markers taken out (`without_markers`), two runs joined at their blank lines
(`joined`), the open edges of a stretch (`file_edge`, `open_edge`, `implied_marker`), and new lines
that are no edit of the stretch's (`added`); whether a reading shows every line of the snippet
(`shows_all`). Pure lines in and out.
"""

from __future__ import annotations

import hashlib
import re

from applyedit import outline
from applyedit.markers import is_marker

IMPLIED = "# ... existing code ..."  # the marker an open edge implies (the line reader's own)


def token(seed: str) -> str:
    """An opaque line standing for one definition (or a stretch's edge) in the line reader's text."""
    return "\u00a7" + hashlib.sha1(seed.encode("utf-8")).hexdigest()[:16]


def pins(original: list[str], shown: list[str]) -> list[tuple[int, int]] | None:
    """In a scope's stretch, the snippet's lines that stand once in the file's stretch, in its order, as
    (shown row, original row): a declaration or a comment pins what is around it as a definition does.
    None where a line of the file's stands there more than once (the line reader weighs those)."""
    rows: dict[str, list[int]] = {}
    for row, line in enumerate(original):
        if line.strip():
            rows.setdefault(line.strip(), []).append(row)
    pins = []
    for row, line in enumerate(shown):
        found = rows.get(line.strip(), []) if line.strip() and not is_marker(line) else []
        if len(found) > 1:
            return None
        if found:
            pins.append((row, found[0]))
    ordered = [o for _, o in pins]
    return pins if ordered == sorted(set(ordered)) else None


def is_token(line: str) -> bool:
    return line.strip().startswith("\u00a7")


def file_edge(original: list[str], shown: list[str]) -> bool:
    """Whether the snippet shows no line and no marker past a line of the file's head or tail while the file
    has code there: whether the file starts (ends) at that line is the line reader's question."""
    return not any(x.strip() for x in shown) and any(x.strip() and not is_token(x) for x in original)


def open_edge(line: str, have: set[str], original: list[str], side: int) -> bool:
    """An open edge keeps what the snippet leaves out past it when the snippet's line there is a line of
    the file (context) other than the file's own edge line."""
    code = [x.strip() for x in original if x.strip()]
    return not is_marker(line) and line.strip() in have and line.strip() != code[side]


def implied_marker(line: str) -> str:
    return " " * outline.indent(line) + IMPLIED


def added(original: list[str], shown: list[str]) -> bool | None:
    """Whether a body's new lines, after a marker at its end, are added there: True where they share no
    word with any line of the body (a line with no word of another is no edit of it); None where they
    share one, so they may be added or edit its last lines; False past a last `return` (`throw`,
    `raise`), where code never runs: they edit it."""
    if next((x.split()[0] for x in reversed(original) if x.strip()), "") in {"return", "throw", "raise", "return;"}:
        return False
    words = {w for x in original for w in re.findall(r"\w+", x)}
    return None if any(words & set(re.findall(r"\w+", x)) for x in shown if not is_marker(x)) else True


def without_markers(lines: list[str]) -> list[str]:
    """The lines with their markers taken out; where a marker stood between blank lines, the longer run."""
    out: list[str] = []
    pending = 0  # blank lines before the marker just taken out, which blank lines after it replace
    for line in lines:
        if is_marker(line):
            pending = len(out) - len(without_trailing_blanks(out))
            continue
        if not line.strip() and pending:
            pending -= 1
            continue
        pending = 0 if line.strip() else pending
        out.append(line)
    return out


def without_trailing_blanks(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


def joined(top: list[str], bottom: list[str]) -> list[str]:
    """Two runs of lines one after the other, the blank lines where they meet the longer of the two runs."""
    top_core = list(top)
    top_blanks = 0
    while top_core and not top_core[-1].strip():
        top_core.pop()
        top_blanks += 1
    bottom_core = list(bottom)
    bottom_blanks = 0
    while bottom_core and not bottom_core[0].strip():
        bottom_core.pop(0)
        bottom_blanks += 1
    return [*top_core, *[""] * max(top_blanks, bottom_blanks), *bottom_core]


def shows_all(snippet: list[str], marked: list[bool], original: list[str], out: list[str]) -> bool:
    """Every line of the snippet but its markers stands in the reading, in order, and no marker is written
    as code (a marker stands for code; a line of the file's own aside)."""
    written = {x.strip() for x, m in zip(snippet, marked, strict=True) if m}
    if any(x.strip() in written - {y.strip() for y in original} for x in out):
        return False
    rest = iter(out)  # `in` goes on past each line found: the snippet's lines in order, a subsequence
    return all(line in rest for line, marker in zip(snippet, marked, strict=True) if line.strip() and not marker)
