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
it on torch fp32). `DiskStore` (optional) keeps every stored snapshot on disk as well, in a folder
keyed by the model file's hash, the backend, dtype and kernels, so a restarted server finds them
again. Knows nothing of edits or HTTP.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import shutil
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from applyedit import files
from applyedit.errors import InputError

if TYPE_CHECKING:
    from applyedit.models.base import Backend

logger = logging.getLogger(__name__)

BLOCK = 256  # tokens per block; equals the backends' prefill chunk (backend.PREFILL_CHUNK), see above


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
    disk: DiskStore | None = None  # also on disk (a restart finds the snapshots again)
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
        found: tuple[int, Entry | None] = (0, None)
        with self._lock:
            self.stats.lookups += 1
            for n in range(len(hashes), 0, -1):
                holders = self._holders.get(hashes[n - 1])
                if holders:
                    # the most recently used holder (holders is small: entries sharing this prefix)
                    key = max(holders, key=list(self._entries).index)
                    self._entries.move_to_end(key)
                    found = (n * self.block, self._entries[key])
                    break
        if self.disk is not None:
            n, entry = self.disk.lookup(hashes)
            if entry is not None and n * self.block > found[0]:
                if entry.nbytes <= self.limit_bytes:
                    self._keep(entry)
                return n * self.block, entry
        return found

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
        entry = Entry(tuple(ids), tuple(block_hashes(ids, self.block)), snapshot, nbytes)
        if nbytes > self.limit_bytes:
            self.stats.too_big += 1
            logger.info("prompt cache: a snapshot of %d tokens (%d bytes) exceeds the whole budget", len(ids), nbytes)
            return False
        self._keep(entry)
        self.stats.stored += 1
        if self.disk is not None:
            self.disk.write(entry)
        return True

    def _keep(self, entry: Entry) -> None:
        """Add `entry` in memory: entries it extends go, then the least recently used until it fits."""
        hashes = entry.hashes
        with self._lock:
            for key in [k for k in self._entries if k in hashes]:  # a prefix of the new one: redundant
                self._drop(key)
            self._entries[hashes[-1]] = entry
            for h in hashes:
                self._holders.setdefault(h, set()).add(hashes[-1])
            while self.nbytes > self.limit_bytes and len(self._entries) > 1:
                self._drop(next(iter(self._entries)))
                self.stats.evicted += 1

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
        return {
            "entries": len(self),
            "bytes": self.nbytes,
            "limit_bytes": self.limit_bytes,
            "block": self.block,
            **self.stats.__dict__,
        }


MAGIC = b"applyedit-snap/3"  # a snapshot file's first bytes (a file without them is not one of ours)
MAX_HEADER_BYTES = 16 << 20  # a header names at most a context's tokens: far less than this


class DamagedSnapshot(ValueError):
    """A snapshot file that is not exactly what `DiskStore.write` wrote (deleted, never used)."""


class DiskStore:
    """Snapshots in files, `<hash of the prefix's last block>.snap`, at most `limit_bytes` of them
    (oldest use out), in `folder`, which the caller keys by model, backend, dtype and kernels
    (`folder_key`). `encode` / `decode` turn a backend's snapshot into bytes and back.

    A file is `MAGIC`, the header's length (8 bytes, little-endian), the header (JSON: the prefix's
    tokens, the snapshot's size in memory, the payload's length and SHA-256, and the binding), the
    header's SHA-256 (32 bytes), then the payload (the backend's bytes). The binding ties the payload
    to its prompt: an HMAC, under the store's `secret`, of the hash of the prefix's blocks (the key
    the file is found by, derived from its tokens) and the payload's SHA-256; a payload moved to
    another prompt's file, its checksums recomputed, no longer matches it (without the secret it
    cannot be forged). Nothing in the folder is trusted: it is made
    a real folder (a symlink there is replaced), its entries are checked at start (a symlink, a
    folder or a file with a bad header named `*.snap` is deleted and logged, never fatal), files are
    opened without following links, and a payload is used only when its length, checksum and binding
    match (a damaged file, or one bound to another prompt, is deleted). Best effort: a file that
    cannot be written or read is skipped."""

    def __init__(
        self,
        folder: Path,
        limit_bytes: int,
        encode: Callable[[Any], bytes],
        decode: Callable[[bytes], Any],
        block: int = BLOCK,
        secret: bytes = b"",
    ) -> None:
        self.folder, self.limit_bytes, self.encode, self.decode, self.block = folder, limit_bytes, encode, decode, block
        self.secret = secret or MAGIC  # a store without a secret still binds, but anyone can forge it
        if folder.is_symlink() or (os.path.lexists(folder) and not folder.is_dir()):
            logger.warning("prompt cache: %s is not a folder (a symlink or a file): replaced by one", folder)
            folder.unlink()
        self.folder.mkdir(parents=True, exist_ok=True)
        self._index: dict[bytes, tuple[Path, int]] = {}  # block hash -> (file, blocks in that file's prefix)
        self._lock = threading.Lock()
        for path in sorted(self.folder.glob("*.snap")):
            try:
                with self._open(path) as f:
                    ids = self._header(f, path)[0]["ids"]
            except (OSError, ValueError) as e:
                self._delete(path, e)
                continue
            self._add(path, block_hashes(ids, block))

    def _add(self, path: Path, hashes: Sequence[bytes]) -> None:
        for n, h in enumerate(hashes, 1):
            if self._index.get(h, (None, 0))[1] <= n:
                self._index[h] = (path, n)

    @staticmethod
    def _open(path: Path) -> Any:
        """`path` opened for reading when it is a regular file, never through a symlink."""
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        f = os.fdopen(fd, "rb")
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            f.close()
            raise DamagedSnapshot("not a regular file")
        return f

    def _header(self, f: Any, path: Path) -> tuple[dict[str, Any], int]:
        """The checked header of an open snapshot file and the payload's offset; DamagedSnapshot otherwise."""
        if f.read(len(MAGIC)) != MAGIC:
            raise DamagedSnapshot("not an applyedit snapshot")
        size = int.from_bytes(f.read(8), "little")
        if size > MAX_HEADER_BYTES:
            raise DamagedSnapshot(f"header of {size:,} bytes")
        raw, digest = f.read(size), f.read(32)
        if len(raw) != size or hashlib.sha256(raw).digest() != digest:
            raise DamagedSnapshot("header checksum mismatch")
        try:
            header = json.loads(raw)
        except (ValueError, RecursionError) as e:
            raise DamagedSnapshot(f"header is not JSON ({e})") from None
        ids, nbytes, length = (header.get(n) if isinstance(header, dict) else None for n in ("ids", "nbytes", "bytes"))
        whole = isinstance(ids, list) and ids and len(ids) % self.block == 0
        if not whole or not all(type(t) is int and t >= 0 for t in ids):  # type: ignore[union-attr]
            raise DamagedSnapshot("header names no whole blocks of tokens")
        if type(nbytes) is not int or nbytes < 0 or type(length) is not int or length < 0:
            raise DamagedSnapshot("header sizes are not sizes")
        if not isinstance(header.get("sha256"), str) or not isinstance(header.get("bound"), str):
            raise DamagedSnapshot("header has no payload checksum or binding")
        offset = len(MAGIC) + 8 + size + 32
        if os.fstat(f.fileno()).st_size != offset + length:
            raise DamagedSnapshot("payload length mismatch (truncated or extended)")
        return header, offset

    def _delete(self, path: Path, why: BaseException) -> None:
        """Remove a damaged entry (a folder too), its index entries with it; logged, never raised."""
        logger.warning("prompt cache: deleting %s (%s)", path, why)
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        except OSError as e:
            logger.warning("prompt cache: could not delete %s: %s", path, e)
        self._index = {h: v for h, v in self._index.items() if v[0] != path}

    def lookup(self, hashes: Sequence[bytes]) -> tuple[int, Entry | None]:
        with self._lock:
            for n in range(len(hashes), 0, -1):
                hit = self._index.get(hashes[n - 1])
                if hit is None:
                    continue
                path = hit[0]
                try:
                    with self._open(path) as f:
                        header, _ = self._header(f, path)
                        data = f.read(header["bytes"] + 1)
                    if len(data) != header["bytes"] or hashlib.sha256(data).hexdigest() != header["sha256"]:
                        raise DamagedSnapshot("payload checksum mismatch")
                    held = block_hashes(header["ids"], self.block)
                    if len(held) < n or held[n - 1] != hashes[n - 1]:
                        raise DamagedSnapshot("the file holds another prefix than its name and index say")
                    if not hmac.compare_digest(header["bound"], self._binding(held[-1], data)):
                        raise DamagedSnapshot("its payload is not bound to the prompt it names (another prompt's?)")
                    snapshot = self.decode(data)
                    os.utime(path, follow_symlinks=False)  # recently used
                except Exception as e:  # noqa: BLE001  # whatever a damaged file does: deleted, never used
                    self._delete(path, e)
                    continue
                ids = tuple(header["ids"])
                size = max(header["nbytes"], header["bytes"])  # a size claimed below the payload's is not believed
                return n, Entry(ids, tuple(held), snapshot, size)
        return 0, None

    def _binding(self, prompt_key: bytes, payload: bytes) -> str:
        """The HMAC tying `payload` to the prompt whose last block hash is `prompt_key`."""
        return hmac.new(self.secret, prompt_key + hashlib.sha256(payload).digest(), hashlib.sha256).hexdigest()

    def write(self, entry: Entry) -> None:
        path = self.folder / f"{entry.hashes[-1].hex()}.snap"
        try:
            payload = self.encode(entry.snapshot)
            header = json.dumps(
                {
                    "ids": list(entry.ids),
                    "nbytes": entry.nbytes,
                    "bytes": len(payload),
                    "sha256": hashlib.sha256(payload).hexdigest(),
                    "bound": self._binding(entry.hashes[-1], payload),
                }
            ).encode()
            with files.replacing(path) as tmp, tmp.open("wb") as f:
                f.write(MAGIC + len(header).to_bytes(8, "little") + header + hashlib.sha256(header).digest())
                f.write(payload)
        except OSError as e:
            logger.warning("prompt cache: could not write %s: %s", path, e)
            return
        with self._lock:
            self._add(path, entry.hashes)
            snaps = sorted(
                (p for p in self.folder.glob("*.snap") if p.is_file() and not p.is_symlink()),
                key=lambda p: p.lstat().st_mtime,
            )
            total = sum(p.lstat().st_size for p in snaps)
            while total > self.limit_bytes and len(snaps) > 1:
                old = snaps.pop(0)
                total -= old.lstat().st_size
                old.unlink(missing_ok=True)
                self._index = {h: v for h, v in self._index.items() if v[0] != old}


def secret_key(path: Path) -> bytes:
    """The secret that binds a disk store's snapshots (`DiskStore`), kept in `path` (made once, only
    its owner may read it); b"" when it can be neither read nor made (snapshots still bind, unkeyed)."""
    try:
        key = path.read_bytes()
        if len(key) == 32:
            return key
    except OSError:
        pass
    key = os.urandom(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomic(path, key, follow=False)  # a new file: owner-only (mkstemp's mode)
        return key
    except (OSError, InputError) as e:  # InputError: files.py's word for a write that failed
        logger.warning("prompt cache: cannot keep a secret in %s (%s); snapshots are bound without one", path, e)
        return b""


def folder_key(weights: Path, backend: str, dtype: str, kernels: str, memo_dir: Path, block: int = BLOCK) -> str:
    """`<sha256 of the weights file, 16 hex>-<backend>-<dtype>[-<kernels>]-b<block>`; the file's hash is
    remembered in `memo_dir` by path, size and mtime (hashing gigabytes takes seconds)."""
    st = weights.stat()
    memo = memo_dir / "weights-sha256.json"
    stamp = f"{weights.resolve()}:{st.st_size}:{st.st_mtime_ns}"
    try:
        known = json.loads(memo.read_text())
    except (OSError, ValueError, RecursionError):
        known = {}
    digest = known.get(stamp) if isinstance(known, dict) else None
    if not isinstance(digest, str):
        h = hashlib.sha256()
        with weights.open("rb") as f:
            while chunk := f.read(1 << 24):
                h.update(chunk)
        digest = h.hexdigest()
        try:
            memo_dir.mkdir(parents=True, exist_ok=True)
            memo_json = json.dumps({**(known if isinstance(known, dict) else {}), stamp: digest})
            files.write_atomic(memo, memo_json.encode(), follow=False)
        except (OSError, InputError):  # InputError: files.py's word for a write that failed
            pass
    return "-".join(x for x in (digest[:16], backend, dtype, kernels, f"b{block}") if x)


def codec(backend: str, device: str = "cpu") -> tuple[Callable[[Any], bytes], Callable[[bytes], Any]]:
    """Snapshots to bytes and back: llama.cpp's state bytes as they are; torch's tensors as safetensors."""
    if backend == "llamacpp":
        return bytes, bytes

    def encode(snapshot: Any) -> bytes:
        from safetensors.torch import save

        return save({f"{n}.{i}": t.contiguous().cpu() for n, kv in enumerate(snapshot) for i, t in enumerate(kv)})

    def decode(data: bytes) -> Any:
        from safetensors.torch import load

        tensors = load(data)
        return tuple((tensors[f"{n}.0"].to(device), tensors[f"{n}.1"].to(device)) for n in range(len(tensors) // 2))

    return encode, decode


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def prefill(model: Backend, cache: PromptCache, ids: list[int]) -> int:
    """Make `model`'s cache hold exactly `ids`, computing only what neither its live cache nor `cache`
    holds (both cut at block boundaries); store the prompt's block-aligned prefix for later prompts.
    Returns the number of tokens computed."""
    block = cache.block
    live = min(common_prefix(model.cached_ids, ids), len(ids)) // block * block
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
