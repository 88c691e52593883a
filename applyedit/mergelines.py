"""The line comparisons the snippet merge rests on (merge.py, mergealign.py): a line's key and
indentation, "the same line" and "an edited line", openers of blocks, distinctive lines, and range
minima of indentation. Pure functions of text lines.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

_BLANK = 1 << 30  # the indentation of a blank line: it never bounds a block
_TRIVIAL = frozenset("else try finally except pass return break continue end fi done do".split())


def _min_table(vals: list[int]) -> list[list[int]]:
    """Sparse table: row r holds the minima of `vals` over windows of 2**r."""
    table = [vals]
    while 2 ** len(table) <= len(vals):
        row, w = table[-1], 2 ** (len(table) - 1)
        table.append([min(row[i], row[i + w]) for i in range(len(row) - w)])
    return table


def _rmin(table: list[list[int]], lo: int, hi: int) -> int:
    """min(vals[lo:hi]) from `_min_table(vals)`; _BLANK when empty."""
    if hi <= lo:
        return _BLANK
    r = (hi - lo).bit_length() - 1
    return min(table[r][lo], table[r][hi - 2**r])


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _key(line: str) -> str:
    return " ".join(line.split())


def _indent(line: str) -> int:
    text = line.expandtabs(4)
    return len(text) - len(text.lstrip()) if text.strip() else _BLANK


def _rtrim(lines: Sequence[str], lo: int, hi: int) -> int:
    while hi > lo and not lines[hi - 1].strip():
        hi -= 1
    return hi


def _distinctive(key: str) -> bool:
    words = " ".join(re.sub(r"\W+", " ", key).split())
    return bool(words) and words not in _TRIVIAL


def _same(a: str, b: str) -> bool:
    return any(a.rstrip().expandtabs(t) == b.rstrip().expandtabs(t) for t in (4, 8))


def _opens(lines: Sequence[str], i: int) -> bool:
    nxt = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), None)
    return nxt is not None and _indent(lines[nxt]) > _indent(lines[i])


def _edited(sl: Sequence[str], i: int, ol: Sequence[str], j: int) -> bool:
    """sl[i] reads as ol[j] edited in place: same indentation, close text, neither opens a block."""
    a, b = sl[i], ol[j]
    if not a.strip() or _indent(a) != _indent(b) or _opens(sl, i) or _opens(ol, j):
        return False
    return difflib.SequenceMatcher(None, a.strip(), b.strip()).ratio() >= 0.75


def _same_name(a: str, b: str) -> bool:
    """Two lines that start with the same two words (`def has(cls):`, `def has(cls, total=None):`)."""
    wa, wb = re.findall(r"\w+", a)[:2], re.findall(r"\w+", b)[:2]
    return len(wa) == 2 and wa == wb


def _alike(a: str, b: str) -> bool:
    """Two openers that are probably one line edited: same first two words, or close text."""
    wa, wb = re.findall(r"\w+", a)[:2], re.findall(r"\w+", b)[:2]
    close = difflib.SequenceMatcher(None, a.strip(), b.strip()).ratio() >= 0.75
    return (len(wa) == 2 and wa == wb) or close
