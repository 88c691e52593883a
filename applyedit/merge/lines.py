"""The line comparisons the snippet merge rests on (merge/__init__.py, anchors.py, head.py): a line's
key and indentation, "the same line" and "an edited line", openers of blocks, distinctive lines,
range minima of indentation, where a block of lines stands in the original, and pairing the lines
between two anchors; and the merge's internal "no unambiguous reading" errors. Pure functions of
text lines.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from applyedit.linediff import likeness

Pair = tuple[int, int]  # (snippet line, original line) read as the same line
_BLANK = 1 << 30  # the indentation of a blank line: it never bounds a block
_TRIVIAL = frozenset("else try finally except pass return break continue end fi done do".split())


class NoMerge(Exception):
    """Internal: no unambiguous reading; the message becomes `MergeResult.reason`."""


class Pairing(NoMerge):
    """Internal: how the snippet's lines above an anchor pair with the original's is the merge's doubt,
    not a question of where the snippet stands (`MergeResult.pairing`): they both add and delete lines
    and no line that says something pairs them, or the first of them after a marker is a weak line (a
    brace) that could be one of several there."""


class NoFit(NoMerge):
    """Internal: a new opener in a head would enclose the anchor; `after` is the snippet line past
    that new block (the anchors inside it were the new code's lines found elsewhere)."""

    def __init__(self, message: str, after: int) -> None:
        super().__init__(message)
        self.after = after


def min_table(vals: list[int]) -> list[list[int]]:
    """Sparse table: row r holds the minima of `vals` over windows of 2**r."""
    table = [vals]
    while 2 ** len(table) <= len(vals):
        row, w = table[-1], 2 ** (len(table) - 1)
        table.append([min(row[i], row[i + w]) for i in range(len(row) - w)])
    return table


def range_min(table: list[list[int]], lo: int, hi: int) -> int:
    """min(vals[lo:hi]) from `min_table(vals)`; _BLANK when empty."""
    if hi <= lo:
        return _BLANK
    r = (hi - lo).bit_length() - 1
    return min(table[r][lo], table[r][hi - 2**r])


def line_key(line: str) -> str:
    return " ".join(line.split())


def indent_of(line: str) -> int:
    text = line.expandtabs(4)
    return len(text) - len(text.lstrip()) if text.strip() else _BLANK


def rtrim(lines: Sequence[str], lo: int, hi: int) -> int:
    while hi > lo and not lines[hi - 1].strip():
        hi -= 1
    return hi


def distinctive(key: str) -> bool:
    words = " ".join(re.sub(r"\W+", " ", key).split())
    return bool(words) and words not in _TRIVIAL


def same_line(a: str, b: str) -> bool:
    return any(a.rstrip().expandtabs(t) == b.rstrip().expandtabs(t) for t in (4, 8))


def opens_block(lines: Sequence[str], i: int) -> bool:
    nxt = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), None)
    return nxt is not None and indent_of(lines[nxt]) > indent_of(lines[i])


def edited_line(snippet: Sequence[str], i: int, original: Sequence[str], j: int) -> bool:
    """snippet[i] reads as original[j] edited in place: same indentation, close text, neither opens a block."""
    a, b = snippet[i], original[j]
    if not a.strip() or indent_of(a) != indent_of(b) or opens_block(snippet, i) or opens_block(original, j):
        return False
    return likeness(a.strip(), b.strip()) >= 0.75


def same_name(a: str, b: str) -> bool:
    """Two lines that start with the same two words (`def has(cls):`, `def has(cls, total=None):`)."""
    wa, wb = re.findall(r"\w+", a)[:2], re.findall(r"\w+", b)[:2]
    return len(wa) == 2 and wa == wb


def alike_line(a: str, b: str) -> bool:
    """Two openers that are probably one line edited: same first two words, or close text."""
    wa, wb = re.findall(r"\w+", a)[:2], re.findall(r"\w+", b)[:2]
    close = likeness(a.strip(), b.strip()) >= 0.75
    return (len(wa) == 2 and wa == wb) or close


def found_block(block: Sequence[str], original: list[str], lo: int, hi: int, then: Sequence[str] = ()) -> bool:
    """`block` stands exactly in original[lo:hi]; with `then`: `then` stands exactly later, not right after."""
    at = [p for p in range(lo, hi - len(block) + 1) if all(same_line(x, original[p + i]) for i, x in enumerate(block))]
    if not then:
        return bool(at)
    return any(
        all(same_line(x, original[q + i]) for i, x in enumerate(then))
        for p in at[:50]
        for q in range(p + len(block) + 1, hi - len(then) + 1)
    )


def split_block(snippet: Sequence[str], original: list[str], lo: int, hi: int) -> bool:
    """The segment's lines also stand in original[lo:hi] as two blocks with lines between them."""
    return any(
        any(x.strip() for x in snippet[:t])
        and any(x.strip() for x in snippet[t:])
        and found_block(snippet[:t], original, lo, hi, snippet[t:])
        for t in range(1, len(snippet))
    )


def imbalance(snippet: Sequence[str], t: int) -> int:
    """How uneven the non-blank lines of a segment are above and below a cut before line `t`."""
    above = sum(1 for x in snippet[:t] if x.strip())
    return abs(above - sum(1 for x in snippet[t:] if x.strip()))


def fill_between(snippet_keys: list[str], original_keys: list[str], a: Pair, b: Pair) -> list[Pair]:
    """difflib's pairs strictly between pair `a` and pair `b`."""
    s1, o1 = a[0] + 1, a[1] + 1
    sm = difflib.SequenceMatcher(None, snippet_keys[s1 : b[0]], original_keys[o1 : b[1]], autojunk=False)
    return [(s1 + i + t, o1 + j + t) for i, j, n in sm.get_matching_blocks() for t in range(n)]
