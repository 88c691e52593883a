"""The exact prompt cache: model states of prompt prefixes, reused by later prompts that start the same way.

Owns the index, the byte budget and the resumed prefill. A prompt is cut into blocks of `BLOCK`
tokens, each named by a hash of its tokens and of every block before it (as serving engines name
their KV blocks), so a lookup walks a new prompt's blocks and finds the longest cached prefix without
comparing token lists. Each entry is one snapshot of a prefix (a whole number of blocks) and is
found through every block hash of that prefix, so a snapshot of system prompt + file + edit A also
serves edit B of the same file (restored, then cropped to the shared blocks). Entries are bounded by
bytes, least recently used out; a snapshot whose prefix a new one extends is dropped as redundant.

Snapshots are opaque here: the backend takes and restores them (`snapshot()` / `restore()`; torch:
the cache tensors, llama.cpp: the sequence's state bytes). Exactness: prefixes are cut only at block
boundaries and both backends prefill in chunks of exactly `BLOCK` tokens from position 0, so a prompt
resumed from a snapshot runs the same forwards, over the same rows, on the same cached values as a
fresh run after that point: greedy output is byte-identical with and without the cache (tests check
it on torch fp32). Knows nothing of files, edits or HTTP.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

logger = logging.getLogger(__name__)

BLOCK = 256  # tokens per block; equals the backends' prefill chunk (backend.PREFILL_CHUNK), see above


class Snapshotting(Protocol):
    """What a backend offers the cache (beyond the `TargetModel` seam)."""

    _ids: list[int]

    def reset(self) -> None: ...

    def forward(self, ids: list[int], num_logits: int) -> Any: ...

    def crop_to(self, length: int) -> None: ...

    def snapshot(self) -> tuple[Any, int]:
        """The state of everything cached now, and its size in bytes."""
        ...

    def restore(self, snapshot: Any, ids: Sequence[int]) -> None:
        """Make the cache hold exactly the snapshot, whose tokens are `ids`."""
        ...


def block_hashes(ids: Sequence[int], block: int = BLOCK) -> list[bytes]:
    """One hash per full block of `ids`: of the block's tokens and of the hash before it."""
    out: list[bytes] = []
    parent = b""
    for start in range(0, len(ids) - block + 1, block):
        h = hashlib.blake2b(parent, digest_size=16)
        h.update(b",".join(str(t).encode() for t in ids[start : start + block]))
        parent = h.digest()
        out.append(parent)
    return out


@dataclass
class Entry:
    ids: tuple[int, ...]  # the prefix this snapshot holds (a whole number of blocks)
    hashes: tuple[bytes, ...]
    snapshot: Any
    nbytes: int


@dataclass
class CacheStats:
    lookups: int = 0
    hits: int = 0  # lookups that reused at least one block
    reused_tokens: int = 0  # prompt tokens not computed again, summed over lookups
    stored: int = 0
    evicted: int = 0
    too_big: int = 0  # snapshots larger than the whole budget: never kept


@dataclass
class PromptCache:
    """Snapshots of prompt prefixes, at most `limit_bytes` of them, found by block hashes."""

    limit_bytes: int
    block: int = BLOCK
    stats: CacheStats = field(default_factory=CacheStats)
    _entries: OrderedDict[bytes, Entry] = field(default_factory=OrderedDict, repr=False)  # by last hash, LRU first
    _holders: dict[bytes, set[bytes]] = field(default_factory=dict, repr=False)  # block hash -> entries holding it
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def nbytes(self) -> int:
        return sum(e.nbytes for e in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, ids: Sequence[int]) -> tuple[int, Entry | None]:
        """The longest cached prefix of `ids` (a whole number of blocks) and an entry holding it."""
        hashes = block_hashes(ids, self.block)
        with self._lock:
            self.stats.lookups += 1
            for n in range(len(hashes), 0, -1):
                holders = self._holders.get(hashes[n - 1])
                if holders:
                    # the most recently used holder (holders is small: entries sharing this prefix)
                    key = max(holders, key=list(self._entries).index)
                    self._entries.move_to_end(key)
                    return n * self.block, self._entries[key]
        return 0, None

    def covers(self, ids: Sequence[int]) -> bool:
        """Whether some entry already holds all of `ids` (a whole number of blocks)."""
        hashes = block_hashes(ids, self.block)
        return bool(hashes) and len(hashes) * self.block == len(ids) and bool(self._holders.get(hashes[-1]))

    def store(self, ids: Sequence[int], take: Callable[[], tuple[Any, int]]) -> bool:
        """Keep a snapshot of `ids` (a whole number of blocks) unless one already holds them; `take()`
        makes it (only when needed). Entries it extends go; then the least recently used until the
        total fits. Returns whether it was kept."""
        assert len(ids) % self.block == 0, "prefixes are cut at block boundaries"
        if not ids or self.limit_bytes <= 0 or self.covers(ids):
            return False
        snapshot, nbytes = take()
        hashes = tuple(block_hashes(ids, self.block))
        with self._lock:
            if nbytes > self.limit_bytes:
                self.stats.too_big += 1
                logger.info("prompt cache: a snapshot of %d tokens (%d bytes) exceeds the whole budget", len(ids), nbytes)
                return False
            for key in [k for k in self._entries if k in hashes]:  # a prefix of the new one: redundant
                self._drop(key)
            entry = Entry(tuple(ids), hashes, snapshot, nbytes)
            self._entries[hashes[-1]] = entry
            for h in hashes:
                self._holders.setdefault(h, set()).add(hashes[-1])
            self.stats.stored += 1
            while self.nbytes > self.limit_bytes:
                self._drop(next(iter(self._entries)))
                self.stats.evicted += 1
        return True

    def clear(self) -> None:
        with self._lock:
            for key in list(self._entries):
                self._drop(key)

    def _drop(self, key: bytes) -> None:
        entry = self._entries.pop(key)
        for h in entry.hashes:
            holders = self._holders.get(h)
            if holders is not None:
                holders.discard(key)
                if not holders:
                    del self._holders[h]

    def to_dict(self) -> dict[str, Any]:
        return {"entries": len(self), "bytes": self.nbytes, "limit_bytes": self.limit_bytes, "block": self.block,
                **self.stats.__dict__}


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def prefill(model: Snapshotting, cache: PromptCache, ids: list[int]) -> int:
    """Make `model`'s cache hold exactly `ids`, computing only what neither its live cache nor `cache`
    holds (both cut at block boundaries); store the prompt's block-aligned prefix for later prompts.
    Returns the number of tokens computed."""
    block = cache.block
    live = min(common_prefix(model._ids, ids), len(ids)) // block * block
    hit, entry = cache.lookup(ids)
    if entry is not None and hit > live:
        model.restore(entry.snapshot, entry.ids)
        model.crop_to(hit)
        start = hit
    elif live:
        model.crop_to(live)
        start = live
    else:
        model.reset()
        start = 0
    cache.stats.reused_tokens += start
    cache.stats.hits += start > 0
    end = len(ids) // block * block
    if end > start:
        model.forward(ids[start:end], num_logits=1)
    if end > 0:
        cache.store(ids[:end], model.snapshot)
    rest = max(start, end)
    if rest < len(ids):
        model.forward(ids[rest:], num_logits=1)
    return len(ids) - start


def reuse_report(prompt_tokens: int, prefilled: int) -> dict[str, int]:
    """The report's view of one run: prompt tokens, those taken from a cache, those computed. The
    prompt's last token is never prefilled (it opens the first verify pass)."""
    return {"prompt_tokens": prompt_tokens, "reused": max(0, prompt_tokens - 1 - prefilled), "prefilled": prefilled}
