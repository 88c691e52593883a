"""The exact prompt cache: its index and budget on plain data, and reuse on tiny real models (torch fp32).

Byte-identity is the contract: a prompt resumed from a cached prefix decodes exactly what a fresh
model decodes (same tokens, same prefill logits bit for bit), because prefixes are cut where the
backends' prefill chunks start.
"""

from __future__ import annotations

import time
from typing import Any

import numpy
import pytest
import torch
from transformers import Qwen2ForCausalLM

from applyedit.models.prefill import PREFILL_CHUNK
from applyedit.models.torchmodel import TorchModel
from applyedit.speculative.loop import run
from applyedit.speculative.policy import AdaptiveK, FixedK
from applyedit.models.promptcache import BLOCK, PromptCache, block_hashes, common_prefix, reuse_report
from applyedit.speculative.proposers import CopyProposer, NullProposer, Source
from applyedit.models.costmodel import prior
from fakes import tiny_qwen

VOCAB = 300


def ids_of(n: int, seed: int) -> list[int]:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(2, VOCAB, (n,), generator=g).tolist()


# -- the index and the budget, on opaque snapshots


def fake_store(cache: PromptCache, ids: list[int], nbytes: int = 100) -> bool:
    return cache.store(ids, lambda: (("snap", tuple(ids)), nbytes))


def test_block_size_is_the_prefill_chunk() -> None:
    assert BLOCK == PREFILL_CHUNK  # the exactness argument needs it


def test_lookup_finds_the_longest_cached_block_prefix() -> None:
    cache = PromptCache(10_000, block=4)
    a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    assert fake_store(cache, a)
    assert cache.lookup(a + [99]) == (12, cache.lookup(a)[1])
    n, entry = cache.lookup([1, 2, 3, 4, 5, 6, 7, 0, 9])  # differs inside the second block
    assert n == 4 and entry is not None and entry.ids == tuple(a)
    assert cache.lookup([1, 2, 3]) == (0, None)  # shorter than a block
    assert cache.lookup([0, 2, 3, 4, 5]) == (0, None)
    # the hash of a block covers everything before it: same block, other history -> no hit
    assert cache.lookup([9, 9, 9, 9, 5, 6, 7, 8]) == (0, None)
    assert block_hashes([1, 2, 3, 4, 5, 6, 7, 8], 4)[1] != block_hashes([9, 9, 9, 9, 5, 6, 7, 8], 4)[1]


def test_store_skips_what_is_held_and_drops_what_it_extends() -> None:
    cache = PromptCache(10_000, block=4)
    assert fake_store(cache, [1, 2, 3, 4])
    assert not fake_store(cache, [1, 2, 3, 4])  # held already
    assert fake_store(cache, [1, 2, 3, 4, 5, 6, 7, 8])  # extends the first: it goes
    assert len(cache) == 1 and cache.nbytes == 100
    assert not fake_store(cache, [1, 2, 3, 4])  # held inside the longer one
    assert fake_store(cache, [1, 2, 3, 4, 0, 0, 0, 0])  # a sibling: both stay
    assert len(cache) == 2


def test_bounded_by_bytes_least_recently_used_out() -> None:
    cache = PromptCache(250, block=2)
    a, b, c = [1, 1], [2, 2], [3, 3]
    assert fake_store(cache, a) and fake_store(cache, b)
    assert cache.lookup(a + [5])[0] == 2  # a is now the most recently used
    assert fake_store(cache, c)  # 300 bytes > 250: the least recently used (b) goes
    assert cache.nbytes == 200 and cache.stats.evicted == 1
    assert cache.lookup(b)[0] == 0 and cache.lookup(a)[0] == 2 and cache.lookup(c)[0] == 2
    assert not fake_store(cache, [4, 4], nbytes=251)  # bigger than the whole budget: never kept
    assert cache.stats.too_big == 1 and len(cache) == 2
    assert not fake_store(PromptCache(0, block=2), a)  # budget 0: no cache
    with pytest.raises(AssertionError):
        PromptCache(100, block=2).store([1, 2, 3], lambda: ("s", 1))  # not a whole number of blocks


def test_reuse_report() -> None:
    assert reuse_report(1000, 232) == {"prompt_tokens": 1000, "reused": 767, "prefilled": 232}
    assert reuse_report(10, 9) == {"prompt_tokens": 10, "reused": 0, "prefilled": 9}


# -- reuse on a tiny real model: byte-identical output, bit-identical logits


def tiny(seed: int) -> Qwen2ForCausalLM:
    return tiny_qwen(seed, VOCAB, 4096)


def target(seed: int, cache: PromptCache | None = None) -> TorchModel:
    m = TorchModel(model=tiny(seed), eos_ids=frozenset({1}), device="cpu", kernels="onednn")
    m.prompt_cache = cache
    return m


def decode_tokens(model: TorchModel, prompt: list[int], proposer: str = "copy") -> tuple[list[int], int]:
    drafter = CopyProposer([Source("prompt", tuple(prompt))]) if proposer == "copy" else NullProposer()
    policy = AdaptiveK(cost=prior(), k_max=16) if proposer == "copy" else FixedK(0)
    result = run(model, prompt, drafter, policy, 48)
    return result.tokens, result.prefilled


@pytest.mark.parametrize("seed", range(4))
def test_resumed_prompts_decode_byte_identical(seed: int, one_thread: None) -> None:
    """Edits A then B of one "file" (a shared 600-token head) on a cached model against B on a fresh one."""
    head = ids_of(600, seed)
    a, b = head + ids_of(90, 100 + seed), head + ids_of(131, 200 + seed)
    cache = PromptCache(64 << 20)
    warm = target(seed, cache)
    out_a, computed_a = decode_tokens(warm, a)
    assert computed_a == len(a) - 1 and cache.stats.stored == 1
    out_b, computed_b = decode_tokens(warm, b)
    reused = 600 // BLOCK * BLOCK
    assert computed_b == len(b) - 1 - reused  # only what the cache lacks
    assert cache.stats.reused_tokens == reused
    fresh_b, _ = decode_tokens(target(seed), b)
    assert out_b == fresh_b
    assert out_a == decode_tokens(target(seed), a)[0]
    # the repeat of A: its own snapshot (cut at the last block boundary) serves it
    again, computed = decode_tokens(warm, a)
    assert again == out_a and computed == len(a) - 1 - (len(a) - 1) // BLOCK * BLOCK
    # plain greedy through the cache agrees too
    assert decode_tokens(warm, b, "none")[0] == decode_tokens(target(seed), b, "none")[0]


def test_restored_prefill_gives_bit_identical_logits(one_thread: None) -> None:
    prompt = ids_of(700, 7)
    fresh = target(0)
    fresh.reset()
    want = fresh.forward(prompt, num_logits=1)
    cache = PromptCache(64 << 20)
    cached = target(0, cache)
    cached.prefill(prompt[:600])  # stores the first 512 tokens
    other = target(0, cache)  # another model object: only the cache is shared
    assert other.prefill(prompt[:-1]) == len(prompt) - 1 - 512
    got = other.forward(prompt[-1:], num_logits=1)
    fresh.crop_to(len(prompt) - 1)
    want = fresh.forward(prompt[-1:], num_logits=1)
    assert torch.equal(got, want)


def test_snapshots_are_not_changed_by_later_runs(one_thread: None) -> None:
    cache = PromptCache(64 << 20)
    model = target(1, cache)
    prompt = ids_of(520, 3)
    model.prefill(prompt)
    (entry,) = cache._entries.values()
    before = [t.clone() for kv in entry.snapshot for t in kv]
    model.forward(ids_of(40, 4), num_logits=40)
    model.crop_to(300)
    model.forward(ids_of(30, 5), num_logits=1)
    assert all(torch.equal(x, y) for x, y in zip(before, [t for kv in entry.snapshot for t in kv]))
    assert entry.nbytes == 2 * 2 * (2 * 16) * 512 * 4  # layers x (k, v) x (kv heads x head dim) x tokens x fp32


def test_cache_memory_stays_within_its_budget(one_thread: None) -> None:
    per_prefix = 2 * 2 * (2 * 16) * 256 * 4  # one block of the tiny model
    cache = PromptCache(3 * per_prefix)
    model = target(2, cache)
    for n in range(8):  # eight different one-block prompts
        model.prefill(ids_of(300, 50 + n))
        assert cache.nbytes <= cache.limit_bytes
    assert len(cache) == 3 and cache.stats.evicted == 5
    other = target(2, cache)  # another model object: only the cache is shared
    assert other.prefill(ids_of(300, 57)) == 300 - 256  # the most recent one is still there
    assert other.prefill(ids_of(300, 50)) == 300  # the oldest is gone
    assert cache.stats.hits == 1


# -- llama.cpp: the sequence state saved and restored (the default model's GGUF, as tests/test_llamacpp.py)


@pytest.mark.model
def test_llamacpp_resumed_prompt_matches_a_fresh_one() -> None:
    """A prompt resumed from a restored sequence state gives the same logits and greedy tokens as a
    fresh prefill of the whole prompt (same batches: llama.cpp's kernels depend on batch sizes)."""
    pytest.importorskip("llama_cpp")
    from applyedit import api

    engine = api.Engine.open(backend="llamacpp")
    model = engine.model
    text = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(60))
    head = engine.encode(text)
    a, b = head + engine.encode("# edit A\n"), head + engine.encode("# edit B, longer\n")
    assert len(head) > 2 * BLOCK

    def greedy(prompt: list[int], n: int = 12) -> tuple[Any, list[int]]:  # llama.cpp's logits: numpy
        model.prefill(prompt[:-1])
        first = model.forward(prompt[-1:], num_logits=1)
        out, token = [], int(first[-1].argmax())
        for _ in range(n):
            out.append(token)
            token = int(model.forward([token], num_logits=1)[-1].argmax())
        return first, out

    model.prompt_cache = None
    model.reset()
    want_logits, want = greedy(b)
    cache = PromptCache(256 << 20)
    model.prompt_cache = cache
    try:
        model.reset()
        greedy(a)  # stores A's block-aligned prefix
        model.reset()  # the live state is gone: B must come from the stored snapshot
        got_logits, got = greedy(b)
        assert cache.stats.reused_tokens == common_prefix(a, b) // BLOCK * BLOCK and cache.stats.hits == 1
        assert got == want and numpy.array_equal(got_logits, want_logits)
        assert 0 < cache.nbytes <= cache.limit_bytes
    finally:
        model.prompt_cache = None


# -- on disk (--cache-dir): a restart finds the snapshots again


def test_disk_store_survives_a_restart(tmp_path: Any, one_thread: None) -> None:
    from applyedit.models.promptcache import DiskStore, codec

    encode, decode = codec("torch")
    head = ids_of(600, 11)
    a, b = head + ids_of(50, 12), head + ids_of(70, 13)
    first = PromptCache(64 << 20, disk=DiskStore(tmp_path, 64 << 20, encode, decode))
    decode_tokens(target(3, first), a)
    assert len(list(tmp_path.glob("*.snap"))) == 1
    # "restart": a new cache, a new model object; only the folder is shared
    second = PromptCache(64 << 20, disk=DiskStore(tmp_path, 64 << 20, encode, decode))
    assert len(second) == 0
    out_b, computed = decode_tokens(target(3, second), b)
    assert computed == len(b) - 1 - 512 and len(second) == 1  # from disk, then kept in memory
    assert out_b == decode_tokens(target(3), b)[0]
    # a damaged file is dropped, never trusted
    (snap,) = tmp_path.glob("*.snap")
    snap.write_bytes(snap.read_bytes()[:100])
    third = PromptCache(64 << 20, disk=DiskStore(tmp_path, 64 << 20, encode, decode))
    assert decode_tokens(target(3, third), b)[1] == len(b) - 1  # computed again, and stored again
    assert third.stats.stored == 1 and len(list(tmp_path.glob("*.snap"))) == 1


def test_disk_store_budget_and_folder_key(tmp_path: Any) -> None:
    from applyedit.models.promptcache import DiskStore, folder_key

    store = DiskStore(tmp_path / "c", 2800, lambda s: bytes(1000), lambda d: "snap", block=2)
    cache = PromptCache(10_000, block=2, disk=store)
    for n in range(4):
        assert fake_store(cache, [n, n])
        time.sleep(0.01)  # distinct mtimes: the oldest goes first
    files = sorted(p.name for p in (tmp_path / "c").glob("*.snap"))
    assert len(files) == 2  # 4 x ~1.3 KB (a 1 KB payload, its header) in a 2.8 KB budget
    restarted = PromptCache(10_000, block=2, disk=DiskStore(tmp_path / "c", 2800, bytes, lambda d: "snap", block=2))
    assert restarted.lookup([3, 3, 9])[0] == 2 and restarted.lookup([0, 0])[0] == 0
    weights = tmp_path / "w.bin"
    weights.write_bytes(b"weights")
    key = folder_key(weights, "torch", "float32", "onednn", tmp_path)
    assert key.endswith("-torch-float32-onednn-b256") and key == folder_key(
        weights, "torch", "float32", "onednn", tmp_path
    )
    weights.write_bytes(b"other weights")
    assert folder_key(weights, "torch", "float32", "onednn", tmp_path) != key
    assert folder_key(weights, "llamacpp", "gguf", "", tmp_path).endswith("-llamacpp-gguf-b256")


# -- on disk, hostile: whatever the folder holds, nothing outside it is written and nothing damaged is used


def disk(folder: Any, decode: Any = bytes, limit: int = 1 << 20) -> Any:
    from applyedit.models.promptcache import DiskStore

    return DiskStore(folder, limit, bytes, decode, block=2)


def forge(path: Any, header: dict[str, Any], payload: bytes) -> None:
    """A snapshot file with right checksums around whatever header and payload a test wants."""
    import hashlib
    import json

    from applyedit.models.promptcache import MAGIC

    raw = json.dumps(header).encode()
    path.write_bytes(MAGIC + len(raw).to_bytes(8, "little") + raw + hashlib.sha256(raw).digest() + payload)


def test_a_symlinked_key_folder_is_replaced_not_followed(tmp_path: Any) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "key").symlink_to(outside, target_is_directory=True)
    cache = PromptCache(10_000, block=2, disk=disk(tmp_path / "cache" / "key"))
    assert cache.store([1, 2], lambda: (b"state", 5))
    assert list(outside.iterdir()) == []
    folder = tmp_path / "cache" / "key"
    assert folder.is_dir() and not folder.is_symlink() and len(list(folder.glob("*.snap"))) == 1


def test_a_damaged_payload_is_deleted_never_used(tmp_path: Any) -> None:
    """A flipped bit, a cut or an added byte, a decoder that fails: each file is deleted, none used."""
    folder = tmp_path / "c"
    for damage in (lambda b: b[:-1] + bytes([b[-1] ^ 1]), lambda b: b[:-2], lambda b: b + b"x"):
        cache = PromptCache(10_000, block=2, disk=disk(folder))
        assert cache.store([1, 2], lambda: (b"state", 5))
        (snap,) = folder.glob("*.snap")
        snap.write_bytes(damage(snap.read_bytes()))
        restarted = PromptCache(10_000, block=2, disk=disk(folder))
        assert restarted.lookup([1, 2, 3]) == (0, None) and not snap.exists()

    def broken(data: bytes) -> Any:
        raise RuntimeError("the backend cannot read this state")

    assert PromptCache(10_000, block=2, disk=disk(folder)).store([1, 2], lambda: (b"state", 5))
    cache = PromptCache(10_000, block=2, disk=disk(folder, broken))
    assert cache.lookup([1, 2, 3]) == (0, None) and list(folder.glob("*.snap")) == []
    assert PromptCache(10_000, block=2, disk=disk(folder)).lookup([1, 2]) == (0, None)  # deleted for good


def snapshot_parts(path: Any) -> tuple[dict[str, Any], bytes]:
    """A snapshot file's header (as JSON) and payload."""
    import json

    from applyedit.models.promptcache import MAGIC

    data = path.read_bytes()
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    return json.loads(data[start : start + size]), data[start + size + 32 :]


def test_a_payload_moved_to_another_prompts_file_is_refused_and_deleted(tmp_path: Any) -> None:
    """Two prompts' snapshots with their payloads swapped and every checksum recomputed: each file is
    whole and names its own prompt, but its payload is bound to the other prompt (the binding, an HMAC
    under the store's secret of the prompt's block hash and the payload): refused and deleted, never
    restored. Untouched snapshots are used, and one written under another secret is not."""
    import hashlib

    from applyedit.models.promptcache import DiskStore

    folder, secret = tmp_path / "c", b"k" * 32

    def store(key: bytes = secret) -> Any:
        return DiskStore(folder, 1 << 20, bytes, bytes, block=2, secret=key)

    cache = PromptCache(10_000, block=2, disk=store())
    assert cache.store([1, 2], lambda: (b"the state after 1 2", 19)) and cache.store([3, 4], lambda: (b"after 3 4", 9))
    a, b = (folder / f"{block_hashes(ids, 2)[-1].hex()}.snap" for ids in ([1, 2], [3, 4]))
    restarted = PromptCache(10_000, block=2, disk=store())
    hit, entry = restarted.lookup([1, 2, 9])
    assert hit == 2 and entry is not None and entry.snapshot == b"the state after 1 2"  # untouched: used
    (head_a, pay_a), (head_b, pay_b) = snapshot_parts(a), snapshot_parts(b)
    for path, header, payload in ((a, head_a, pay_b), (b, head_b, pay_a)):
        forge(path, {**header, "bytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}, payload)
    tampered = PromptCache(10_000, block=2, disk=store())
    assert tampered.lookup([1, 2, 9]) == (0, None) and not a.exists()
    assert tampered.lookup([3, 4, 9]) == (0, None) and not b.exists()
    assert cache.store([5, 6], lambda: (b"after 5 6", 9))  # written under this secret, read under another
    assert PromptCache(10_000, block=2, disk=store(b"x" * 32)).lookup([5, 6, 1]) == (0, None)
    assert list(folder.glob("*.snap")) == []


def test_header_claims_are_checked(tmp_path: Any) -> None:
    """A negative or tiny size, foreign ids, a file named for another prefix: never believed."""
    import hashlib

    folder = tmp_path / "c"
    folder.mkdir()
    payload = b"state" * 100
    good = {"ids": [1, 2], "nbytes": 5, "bytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}
    good["bound"] = disk(tmp_path / "unused")._binding(block_hashes([1, 2], 2)[-1], payload)  # no secret given
    forge(folder / "negative.snap", {**good, "nbytes": -(10**12)}, payload)
    forge(folder / "ids.snap", {**good, "ids": [1, "x"]}, payload)
    forge(folder / "odd.snap", {**good, "ids": [1, 2, 3]}, payload)
    forge(folder / "deep.snap", {**good, "ids": [[[[1]]]]}, payload)
    store = disk(folder)
    assert sorted(p.name for p in folder.iterdir()) == []
    forge(folder / "small.snap", {**good, "nbytes": 0}, payload)  # claims nothing: counted at its payload's size
    cache = PromptCache(10_000, block=2, disk=disk(folder))
    hit, entry = cache.lookup([1, 2, 9])
    assert hit == 2 and entry is not None and entry.nbytes == len(payload) and cache.nbytes == len(payload)
    del store


def test_bad_entries_at_start_are_deleted_and_logged(tmp_path: Any, caplog: Any) -> None:
    from applyedit.models.promptcache import MAGIC

    folder, outside = tmp_path / "c", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (outside / "victim").write_bytes(b"keep me")
    (folder / "link.snap").symlink_to(outside / "victim")
    (folder / "dir.snap").mkdir()
    (folder / "dir.snap" / "f").write_text("x")
    (folder / "header.snap").write_bytes(MAGIC + (5).to_bytes(8, "little") + b"{bad}" + bytes(32))
    (folder / "huge.snap").write_bytes(MAGIC + (1 << 62).to_bytes(8, "little"))
    (folder / "v1.snap").write_bytes((11).to_bytes(8, "little") + b'{"ids": []}')
    (folder / "notes.txt").write_text("not ours to judge")
    with caplog.at_level("WARNING"):
        cache = PromptCache(10_000, block=2, disk=disk(folder))
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    assert (outside / "victim").read_bytes() == b"keep me"
    assert sum("deleting" in r.getMessage() for r in caplog.records) == 5
    assert cache.store([1, 2], lambda: (b"state", 5)) and cache.lookup([1, 2])[0] == 2
