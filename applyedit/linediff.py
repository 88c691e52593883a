"""Comparing lines and sequences of lines, in time that stays bounded on large inputs.

Owns the two comparisons every reader and check rests on: how alike two lines are (`likeness`, difflib's
ratio, but a line longer than `LONG_LINE` compares by equality only, so an 8 MiB line costs a hash, not a
quadratic ratio), and the line diff of two texts (`Matcher`, difflib's, with the common head and tail
matched before difflib looks at the middle: an edit of a few lines in a 20,000-line file, whose repeated
lines make difflib's search quadratic, diffs in the time of the lines that changed). Also the
line keys the readers compare (`key`: whitespace collapsed; `same` up to trailing blanks and tab width;
`depth`, the indentation; `alike`: an edit of the other; `edited_in_order`: lines each shown, edited or
not, by another list's). Knows nothing of what the lines are.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

LONG_LINE = 1_000  # characters: past this a line is alike another only when equal to it (no code line is this long)


def likeness(a: str, b: str) -> float:
    """difflib's ratio of two lines (1.0 equal, 0.0 nothing in common); 1.0 or 0.0 by equality alone when
    either is longer than `LONG_LINE`."""
    if a == b:
        return 1.0
    if len(a) > LONG_LINE or len(b) > LONG_LINE:
        return 0.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


class Matcher(difflib.SequenceMatcher):
    """difflib's SequenceMatcher over two sequences of lines (no junk), whose matching blocks take the
    sequences' common head and tail whole and run difflib's search on what lies between them only.
    `get_opcodes` and `get_grouped_opcodes` build on those blocks, as difflib's do."""

    def __init__(self, a: Sequence[Any], b: Sequence[Any]) -> None:
        self.lines = (a, b)
        self.blocks: list[difflib.Match] | None = None
        super().__init__(None, a, b, autojunk=False)

    def get_matching_blocks(self) -> list[difflib.Match]:
        if self.blocks is not None:
            return self.blocks
        a, b = self.lines
        head = 0
        while head < len(a) and head < len(b) and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
            tail += 1
        middle = difflib.SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail], autojunk=False)
        blocks = [(0, 0, head)] if head else []
        blocks += [(i + head, j + head, n) for i, j, n in middle.get_matching_blocks() if n]
        if tail:
            blocks.append((len(a) - tail, len(b) - tail, tail))
        joined: list[difflib.Match] = []
        for i, j, n in blocks:
            last = joined[-1] if joined else None
            if last is not None and last.a + last.size == i and last.b + last.size == j:
                joined[-1] = difflib.Match(last.a, last.b, last.size + n)
            else:
                joined.append(difflib.Match(i, j, n))
        joined.append(difflib.Match(len(a), len(b), 0))
        self.blocks = joined
        return joined


def key(line: str) -> str:
    """A line as the readings compare it: whitespace collapsed."""
    return " ".join(line.split())


def depth(line: str) -> int:
    """A line's indentation in columns (a tab is 4)."""
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def same(a: str, b: str) -> bool:
    """The same line up to trailing blanks and tab width (4 or 8)."""
    return any(a.rstrip().expandtabs(t) == b.rstrip().expandtabs(t) for t in (4, 8))


ALIKE = 0.6  # a line this alike (difflib ratio) another is an edit of it


def alike(a: str, b: str) -> bool:
    """Whether line `a` is an edit of line `b` (or the same): `ALIKE` of their text in common."""
    return likeness(a, b) >= ALIKE


def edited_in_order(old: Sequence[str], new: Sequence[str]) -> bool:
    """Whether every line of `old` is shown by a line of `new`, in order: the same line or an edit of it
    (`alike`); `new` may hold more lines besides. Blank lines are left out of both."""
    lines = iter(x for x in new if x.strip())
    return all(any(alike(n, o) for n in lines) for o in old if o.strip())
