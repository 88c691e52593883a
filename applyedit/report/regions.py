"""Regions of the output: which output lines were copied, edited or lost, inside which definitions.

Owns `find_regions` (line-diff the output body against the original, split the runs at definition
boundaries from `syntax`, label each run with the definitions around it). What each region cost
(tokens, drafts, passes) is attributed in `stats`. Knows nothing of tokens, the model, tree-sitter's
API or rendering.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from applyedit import syntax, textio
from applyedit.linediff import Matcher

__all__ = ["Region", "find_regions"]

Kind = Literal["unchanged", "edited", "deleted"]
Chain = tuple[syntax.Definition, ...]
PathHint = str | os.PathLike[str] | None  # a file name: ".tsx" selects the TSX grammar


@dataclass(frozen=True, slots=True)
class Region:
    """A run of output lines, all copied or all edited, inside one definition chain; 1-based, inclusive.

    A deleted region has no output lines: `start_line` is the output line before which original lines
    vanished and `end_line` = `start_line` - 1. `orig_start`..`orig_end` are the original lines it
    corresponds to (empty, `orig_end` = `orig_start` - 1, for pure insertions); the pieces of one
    edited run share the run's original range.
    """

    kind: Kind
    start_line: int
    end_line: int
    orig_start: int
    orig_end: int
    label: str

    @property
    def lines(self) -> int:
        return self.end_line - self.start_line + 1


def _chains(text: str, lines: list[str], language: str, path: PathHint) -> list[Chain]:
    """The enclosing definitions of every line, 0-based; all () without a grammar."""
    defs = syntax.definitions(text, language, path) or []
    return syntax.enclosing_each(defs, len(lines))


def _common(chains: list[Chain]) -> Chain:
    prefix = chains[0]
    for chain in chains[1:]:
        prefix = prefix[: next((n for n, (a, b) in enumerate(zip(prefix, chain, strict=False)) if a != b), len(chain))]
    return prefix


def _label(lines: list[str], chains: list[Chain], lo: int, hi: int, fallback: str) -> str:
    """The definitions around every non-blank line of [lo, hi) (0-based), or `fallback` at top level."""
    filled = [chains[n] for n in range(lo, hi) if lines[n].strip()] or [chains[lo]]
    return syntax.label(_common(filled)) or fallback


def _split(lines: list[str], keys: list[Chain], lo: int, hi: int) -> list[tuple[int, int]]:
    """Cut [lo, hi) where the key changes; blank lines join the next non-blank line of the run (the one
    before them, at the run's end), so they never make a region of their own."""
    keyed = [n for n in range(lo, hi) if lines[n].strip()]
    if not keyed:
        return [(lo, hi)]
    pieces, start = [], lo
    for prev, n in pairwise(keyed):
        if keys[n] != keys[prev]:
            pieces.append((start, prev + 1))
            start = prev + 1
    pieces.append((start, hi))
    return pieces


def find_regions(original: str, body: str, language: str, path: PathHint = None) -> list[Region]:
    """The regions of `body` (LF-only output file) against `original`, in output order.

    Unchanged runs are split at top-level definition boundaries, edited runs at every definition
    boundary (each edited region names the one definition it changes); pure deletions become zero-line
    deleted regions labelled from the original. Labels fall back to "lines A-B" at top level and for
    languages without a grammar ("original lines A-B" for deletions).
    """
    old, new = textio.lines_of(original), textio.lines_of(body)
    new_chains = _chains(body, new, language, path)
    old_chains: list[Chain] | None = None
    regions: list[Region] = []
    matcher = Matcher(old, new)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "delete":
            if old_chains is None:
                old_chains = _chains(original, old, language, path)
            label = _label(old, old_chains, i1, i2, f"original lines {i1 + 1}-{i2}")
            regions.append(Region("deleted", j1 + 1, j1, i1 + 1, i2, label))
            continue
        kind: Kind = "unchanged" if tag == "equal" else "edited"
        keys = [chain[:1] for chain in new_chains] if kind == "unchanged" else new_chains
        for lo, hi in _split(new, keys, j1, j2):
            orig = (i1 + lo - j1 + 1, i1 + hi - j1) if kind == "unchanged" else (i1 + 1, i2)
            label = _label(new, new_chains, lo, hi, f"lines {lo + 1}-{hi}")
            regions.append(Region(kind, lo + 1, hi, *orig, label))
    return regions
