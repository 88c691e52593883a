"""An update snippet re-indented to the file's style before it is placed: tabs or spaces, and the
width of one level (a 4-space snippet for a tab-indented or a 2-space file).

Decided by the snippet's context: its lines that the original has (whitespace aside) say how one of
the snippet's levels is written in the file. The snippet is changed only when every such line with
indentation agrees on one mapping that differs from the snippet's own, or, without such lines, when
the file indents with tabs only and the snippet with spaces only. Pure text.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

__all__ = ["to_file_style"]


def _lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _unit(widths: Iterable[int]) -> int:
    """The width of one level: the gcd of the widths, but for rare ones (under 1 in `_RARE` of 20 or more
    indented lines: a continuation line aligned under an opening bracket)."""
    found = Counter(w for w in widths if w > 0)
    total = sum(found.values())
    common = [w for w, n in found.items() if total < 20 or n * _RARE >= total]
    return math.gcd(*(common or found)) if found else 0


_RARE = 20


def _style(lines: list[str]) -> tuple[str, int]:
    """("tabs" | "spaces" | "mixed" | "none", the space unit). A block comment's continuation lines
    (` * text`, one space deeper than the comment's opening) say nothing of the unit."""
    leads = [_lead(x) for x in lines if x.strip() and _lead(x) and not x.lstrip().startswith("*")]
    if not leads:
        return "none", 0
    tabs = sum(1 for x in leads if set(x) == {"\t"})
    spaces = sum(1 for x in leads if set(x) == {" "})
    if tabs and not spaces:
        return "tabs", 0
    if spaces and not tabs:
        return "spaces", _unit(len(x) for x in leads)
    return "mixed", 0


def _levels(lead: str, unit: int) -> float:
    if set(lead) <= {"\t"}:
        return float(len(lead))
    return len(lead) / unit if unit else 0.0


def to_file_style(original: str, snippet: str) -> str:
    """`snippet` with its indentation written as the original writes it (unchanged when unsure)."""
    original_lines, snippet_lines = original.split("\n"), snippet.split("\n")
    ostyle, ounit = _style(original_lines)
    sstyle, sunit = _style(snippet_lines)
    if ostyle in ("none", "mixed") or sstyle in ("none", "mixed"):
        return snippet
    if ostyle == sstyle and (ostyle == "tabs" or ounit == sunit):
        return snippet
    where: dict[str, set[str]] = {}
    for line in original_lines:
        if line.strip():
            where.setdefault(" ".join(line.split()), set()).add(_lead(line))
    votes = []  # (snippet levels, file lead) for context lines with one indentation in the file
    for line in snippet_lines:
        leads = where.get(" ".join(line.split()))
        if line.strip() and leads is not None and len(leads) == 1:
            votes.append((_levels(_lead(line), sunit), next(iter(leads))))
    per_level = 1 if ostyle == "tabs" else ounit

    def written(levels: float) -> str | None:
        if levels != int(levels):
            return None
        return ("\t" if ostyle == "tabs" else " ") * (int(levels) * per_level)

    indented = [(lv, lead) for lv, lead in votes if lead]
    if indented:
        if not all(written(lv) == lead for lv, lead in votes):
            return snippet
    elif not (ostyle == "tabs" and sstyle == "spaces"):
        return snippet
    out = []
    for line in snippet_lines:
        lead = _lead(line)
        if not line.strip() or not lead:
            out.append(line)
            continue
        levels = _levels(lead, sunit)
        whole = int(levels)
        rest = len(lead) - whole * sunit if sstyle == "spaces" else 0
        new = written(float(whole))
        out.append((new or "") + " " * max(rest, 0) + line.lstrip(" \t"))
    return "\n".join(out)
