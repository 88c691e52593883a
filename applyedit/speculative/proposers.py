"""Draft proposers: where the next K tokens come from before the target model verifies them.

Owns the proposer contract: two verbs (`propose(output, k)` returns a `Draft`, `observe(num_drafted,
num_accepted)` reports the verify pass) and the `Draft` value, the only thing the decode loop reads
from a proposer. Owns the copy proposer: a pointer into a token source (the original file, the
edit) that simply advances while the output keeps matching, and a resync ladder (longest suffix
n-gram first, nearest match after the old pointer, then before) when it stops matching. Works on
token ids only; knows nothing of the model, the cache, text or regions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal, Protocol

if TYPE_CHECKING:
    from applyedit.speculative.logits import Logits

NGRAM_SIZES = (12, 8, 6, 4, 3, 2, 1)  # resync tries the longest suffix first
Drafter = Literal["copy", "draft-model"]  # who drafted a `Draft`
COPY: Final = "copy"
MODEL: Final = "draft-model"


@dataclass(frozen=True, slots=True)
class Draft:
    """One proposal: what the loop verifies and what the K policy weighs.

    `support`: output tokens agreeing with the copy source right before the draft (the K policy's
    evidence of alignment; 0 for a draft model). `probs`: set only by a proposer that samples its
    drafts (a draft model, when sampling), the distributions q it drew them from, a `(len(ids), V)`
    array of the draft's logits' kind warped like the target (`sampling.warp` at the same temperature
    and top-p), so the exact rule can use min(1, p/q) and the residual max(0, p − q); its draws come
    from a random stream of its own, independent of the loop's. None: each draft token is a point mass
    (copied), kept with probability p(x).
    """

    ids: tuple[int, ...] = ()
    support: int = 0
    drafter: Drafter = COPY
    probs: Logits | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        assert self.probs is None or self.probs.shape[0] == len(self.ids), "one draft distribution per draft token"


class Proposer(Protocol):
    """Proposes drafts and learns from their outcome; the loop reads nothing else of it."""

    def propose(self, output: Sequence[int], k: int) -> Draft:
        """Up to `k` draft tokens to follow `output` (the tokens emitted so far)."""
        ...

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        """Feedback after a verify step: how many of the drafted tokens the target accepted."""
        ...


class NullProposer:
    """Never drafts: the loop degenerates to plain greedy decoding, one token per pass."""

    def propose(self, output: Sequence[int], k: int) -> Draft:
        return Draft()

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        pass


@dataclass(frozen=True, slots=True)
class Source:
    """A token sequence to copy from; `blocked[i]` marks tokens that must never be drafted."""

    name: str  # "original" | "edit"
    ids: tuple[int, ...]
    blocked: tuple[bool, ...] = ()

    def can_draft(self, pos: int) -> bool:
        return pos < len(self.ids) and not (self.blocked and self.blocked[pos])


@dataclass
class _Pointer:
    source: int  # index into CopyProposer.sources
    pos: int  # next source token to draft
    synced: int  # output length up to which the pointer has followed the output


def build_index(ids: Sequence[int], sizes: Sequence[int] = NGRAM_SIZES) -> dict[tuple[int, ...], list[int]]:
    """Map each n-gram (n in `sizes`) to the positions right after its occurrences, in order.

    Example: ids [5, 6, 5, 6, 7], sizes (2,) -> {(5, 6): [2, 4], (6, 5): [3], (6, 7): [5]}; the value
    is where a copy continues after seeing that n-gram, so (5, 6) continues at 2 or at 4.
    """
    index: dict[tuple[int, ...], list[int]] = {}
    for n in sizes:
        for end in range(n, len(ids) + 1):
            index.setdefault(tuple(ids[end - n : end]), []).append(end)
    return index


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens `a` and `b` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def nearest(positions: list[int], anchor: int) -> int | None:
    """The first position >= anchor, else the last one before it (files are rewritten top down)."""
    after = [p for p in positions if p >= anchor]
    if after:
        return after[0]
    return positions[-1] if positions else None


@dataclass
class CopyProposer:
    """Copies from the sources with a pointer; resyncs on the output's suffix when the pointer breaks."""

    sources: list[Source]
    sizes: tuple[int, ...] = NGRAM_SIZES
    support: int = 0  # output tokens agreeing with the source right before the pointer
    _index: list[dict[tuple[int, ...], list[int]]] = field(default_factory=list, repr=False)
    _ptr: _Pointer | None = None

    def __post_init__(self) -> None:
        self._index = [build_index(s.ids, self.sizes) for s in self.sources]
        # Before anything is emitted the output starts where the first source (the original) starts.
        self._ptr = _Pointer(0, 0, 0) if self.sources else None

    def propose(self, output: Sequence[int], k: int) -> Draft:
        if k <= 0 or not self.sources:
            return Draft(support=self.support)
        ptr = self._follow(output)
        if ptr is None:
            return Draft()
        src = self.sources[ptr.source]
        end = ptr.pos
        while end - ptr.pos < k and src.can_draft(end):
            end += 1
        return Draft(src.ids[ptr.pos : end], self.support)

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        pass  # the pointer follows the output itself in `_follow`; nothing to learn here yet

    def _follow(self, output: Sequence[int]) -> _Pointer | None:
        """Advance the pointer over newly emitted tokens; resync at the first one that differs."""
        ptr = self._ptr
        if ptr is not None and ptr.synced <= len(output):
            ids = self.sources[ptr.source].ids
            while ptr.synced < len(output):
                if ptr.pos < len(ids) and ids[ptr.pos] == output[ptr.synced]:
                    ptr.pos += 1
                    ptr.synced += 1
                    self.support += 1
                else:
                    break
            if ptr.synced == len(output) and self.sources[ptr.source].can_draft(ptr.pos):
                return ptr
        self._ptr = self._resync(output, ptr)
        return self._ptr

    def _resync(self, output: Sequence[int], old: _Pointer | None) -> _Pointer | None:
        """Find the longest output suffix in the sources; prefer the old source, near the old pointer."""
        order = list(range(len(self.sources)))
        if old is not None:
            order.sort(key=lambda s: s != old.source)
        for n in self.sizes:
            if n > len(output):
                continue
            key = tuple(output[-n:])
            for s in order:
                positions = [p for p in self._index[s].get(key, ()) if self.sources[s].can_draft(p)]
                anchor = old.pos if old is not None and old.source == s else 0
                pos = nearest(positions, anchor)
                if pos is not None:
                    self.support = n
                    return _Pointer(s, pos, len(output))
        self.support = 0
        return None
