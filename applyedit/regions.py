"""Regions of the output and what each one cost (DESIGN.md §5), with the metrics `stats` lacks in `LEGEND`.

Owns `find_regions` (line-diff the output body against the original, split the runs at definition
boundaries from `syntax`) and `attribute` (give every emitted token, draft token and verify pass to
exactly one region, so the regions add up to the totals). Knows tokens only as output lines (from
`spans`); knows nothing of the model, tree-sitter's API or rendering.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from typing import Any, Literal

from applyedit import syntax
from applyedit.decode import Step

__all__ = ["LEGEND", "Region", "RegionStats", "anchored_lines", "attribute", "find_regions"]

LEGEND = """\
- lines: output lines of the file body in the region; a deleted region has none (it shows the original lines it lost).
- mean K: the draft length asked for, averaged over the region's passes (a proposer may offer fewer).
- time: the wall time of the region's passes summed (forward + bookkeeping); the prefill is in no region.
- region of a token: the region holding its output line; the closing fence and anything after the body go to "end".
- region of a draft token: its output position; a rejected draft token, the position of the correction token.
- region of a pass: the region of its first emitted token (with the pass's time and K).
- forced: tokens the anchor forced (original lines an unambiguous merge keeps, fed without drafting or verifying).
- anchored lines: output lines every token of which was forced.
- drafted by: which proposer drafted the region's draft tokens (copy, draft-model), with its share of them.
- plain passes: passes a plain greedy decoder needs for the same output, one per token.
- first / last emit: when the pass that emitted the region's first / last token ended, on the decode clock.
- time to first / last token: from the start of the prefill to the end of the pass that emitted it.
"""

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


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _chains(text: str, lines: list[str], language: str, path: PathHint) -> list[Chain]:
    """The enclosing definitions of every line, 0-based; all () without a grammar."""
    defs = syntax.definitions(text, language, path) or []
    return [syntax.enclosing(defs, n) if defs else () for n in range(1, len(lines) + 1)]


def _common(chains: list[Chain]) -> Chain:
    prefix = chains[0]
    for chain in chains[1:]:
        prefix = prefix[: next((n for n, (a, b) in enumerate(zip(prefix, chain)) if a != b), len(chain))]
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
    old, new = _lines(original), _lines(body)
    new_chains = _chains(body, new, language, path)
    old_chains: list[Chain] | None = None
    regions: list[Region] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
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


@dataclass
class RegionStats:
    """What one region (or the whole run) cost: an accumulator fed by `attribute`."""

    lines: int = 0
    tokens: int = 0  # emitted
    drafted: int = 0
    accepted: int = 0
    forced: int = 0  # emitted tokens the anchor forced
    passes: int = 0
    k_sum: int = 0  # K asked for, summed over passes
    time_ns: int = 0  # integer nanoseconds, so that region times add up to the total exactly
    first_emit_s: float | None = None  # decode clock: end of the pass emitting the first token here
    last_emit_s: float | None = None  # ... and the last one
    drafted_by: dict[str, int] = field(default_factory=dict)  # drafter ("copy" | "draft-model") -> drafted
    accepted_by: dict[str, int] = field(default_factory=dict)  # drafter -> accepted

    def observe_token(self, step: Step, forced: bool = False) -> None:  # steps come in order: the first seen is the earliest
        self.tokens += 1
        self.forced += forced
        self.last_emit_s = step.start_s + step.time_s
        self.first_emit_s = self.last_emit_s if self.first_emit_s is None else self.first_emit_s

    def observe_draft(self, accepted: bool, drafter: str = "copy") -> None:
        self.drafted += 1
        self.accepted += accepted
        self.drafted_by[drafter] = self.drafted_by.get(drafter, 0) + 1
        self.accepted_by[drafter] = self.accepted_by.get(drafter, 0) + accepted

    def observe_pass(self, step: Step) -> None:
        self.passes += 1
        self.k_sum += step.k
        self.time_ns += round(step.time_s * 1e9)

    @property
    def time_s(self) -> float:
        return self.time_ns / 1e9

    @property
    def acceptance(self) -> float:
        return self.accepted / self.drafted if self.drafted else 0.0

    @property
    def tokens_per_pass(self) -> float:
        return self.tokens / self.passes if self.passes else 0.0

    @property
    def mean_k(self) -> float:
        return self.k_sum / self.passes if self.passes else 0.0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for name in ("time_s", "acceptance", "tokens_per_pass", "mean_k"):
            data[name] = getattr(self, name)
        return data


def attribute(
    regions: Sequence[Region], steps: Sequence[Step], token_lines: Sequence[int], num_body_tokens: int
) -> tuple[list[RegionStats], RegionStats, RegionStats]:
    """Per-region stats, the "end" pseudo-region's, and the totals, by DESIGN.md §5's rules.

    `token_lines`: the 0-based output line of each emitted token (spans.token_lines); the first
    `num_body_tokens` tokens are the file body. Output positions past the body — the closing fence,
    draft tokens accepted past a stop cut, passes that emitted nothing (EOS at once) — belong to "end".
    Invariant: regions + end add up to the totals, field by field; the totals are the sums over steps.
    """
    owner: dict[int, int] = {}  # 0-based output line -> region index
    for index, region in enumerate(regions):
        owner.update(dict.fromkeys(range(region.start_line - 1, region.end_line), index))
    per_region = [RegionStats(lines=r.lines) for r in regions]
    end = RegionStats()
    totals = RegionStats(lines=sum(r.lines for r in regions))

    def at(position: int) -> RegionStats:
        if position >= min(num_body_tokens, len(token_lines)):
            return end
        index = owner.get(token_lines[position])
        return end if index is None else per_region[index]

    position = 0  # output position of the step's first emitted token
    for step in steps:
        assert step.num_accepted <= len(step.draft) <= step.k, "accepted <= drafted <= k"
        for target in (at(position), totals):
            target.observe_pass(step)
        for i in range(len(step.draft)):  # a rejected one (i >= num_accepted): where the correction goes
            for target in (at(position + step.forced + min(i, step.num_accepted)), totals):
                target.observe_draft(i < step.num_accepted, step.drafter or "copy")
        for i in range(len(step.emitted)):
            for target in (at(position + i), totals):
                target.observe_token(step, i < step.forced)
        position += len(step.emitted)
    return per_region, end, totals


def anchored_lines(steps: Sequence[Step], pieces: Sequence[bytes], num_lines: int) -> list[tuple[int, int]]:
    """1-based inclusive ranges of the first `num_lines` output lines whose every byte, newline
    included, came from a forced token (`pieces`: each emitted token's bytes, `spans.token_bytes`)."""
    forced = [i < s.forced for s in steps for i in range(len(s.emitted))]
    lines: list[bool] = []  # per completed line: all its bytes forced
    current = True
    for data, was in zip(pieces, forced):
        for byte in data:
            current = current and was
            if byte == 10:
                lines.append(current)
                current = True
    ranges: list[tuple[int, int]] = []
    for n, was in enumerate(lines[:num_lines], 1):
        if not was:
            continue
        if ranges and ranges[-1][1] == n - 1:
            ranges[-1] = (ranges[-1][0], n)
        else:
            ranges.append((n, n))
    return ranges
