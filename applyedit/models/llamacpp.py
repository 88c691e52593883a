"""The llama.cpp backend: a GGUF model behind the same `TargetModel` seam as torch.

Owns every llama-cpp-python call: loading a GGUF (no dequantisation), one context with all cores on
both thread counts, the verify batch (`[last] + draft` with logits requested for exactly those
positions and read for every one of them), prefill in `n_batch` chunks, several continuations of the
cache read in one batch (`forward_branches`: a sequence each, sharing the cached prefix's cells in one
unified KV cache, `llama_memory_seq_cp`), and KV rollback with
`llama_memory_seq_rm` (the name of llama-cpp-python 0.3.36, pinned: older 0.3.x releases called it
`llama_kv_self_seq_rm` / `llama_kv_cache_seq_rm`). llama.cpp's own samplers, speculative helpers and
prompt-lookup draft model are not used: applyedit's loop, proposer and K policy drive it. Logits
leave it as numpy arrays, and its tokenizer is models/vocab.py's (the GGUF's tokenizer.json, read
without transformers; the same ids as Hugging Face's tokenizer, tests/test_vocab.py): a run on it
imports neither torch nor transformers. Knows nothing of proposers, K, regions or files.

Exactness: llama.cpp's kernels differ between batch sizes, so a near-tie can resolve differently in a
one-token pass and in a block pass; outputs are compared with the same backend's plain decoding and
reported as an agreement rate, while the torch fp32 path keeps the strict equality tests.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from applyedit import interrupt
from applyedit.errors import InputError, ModelError
from applyedit.models.prefill import PREFILL_CHUNK, ExactPrefill
from applyedit.models.tokens import stop_ids

if TYPE_CHECKING:
    from applyedit.models.base import EngineView, Logits
    from applyedit.models.modelstore import ModelSource, Progress

N_BATCH = 512  # tokens per llama_decode call: prefill chunk and the largest verify block
# Sequences one context holds: the decode loop's (0) and up to five continuations read side by side
# (`forward_branches`: the tie-break's readings), in one KV cache of n_ctx cells shared by all of them
# (`kv_unified`: without it llama.cpp gives each sequence n_ctx / N_SEQ cells).
N_SEQ = 6

_LOG_CALLBACK: Any = None  # keeps the ctypes callback alive for as long as the library may call it


def available() -> bool:
    """Whether llama-cpp-python is installed (the `llamacpp` extra)."""
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return False
    return True


def _silence(lib: Any) -> None:
    """llama.cpp logs to stderr by default; stderr belongs to applyedit's progress and summary."""
    global _LOG_CALLBACK
    if _LOG_CALLBACK is None:
        _LOG_CALLBACK = lib.llama_log_callback(lambda level, text, user_data: None)
        lib.llama_log_set(_LOG_CALLBACK, ctypes.c_void_p(0))


def threads() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _has_amx() -> bool:
    """Whether the CPU advertises AMX (Linux's /proc/cpuinfo flags)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            return any(line.startswith("flags") and " amx_int8" in line for line in f)
    except OSError:
        return False


def model_params(defaults: Callable[[], Any]) -> Any:  # noqa: ANN401 (llama_cpp's ctypes struct)
    """llama.cpp's default model parameters, made safe for this CPU: on AMX Xeons llama.cpp's AMX weight
    layout (an "extra buffer type") segfaults in ggml_backend_amx_mul_mat on the first forward pass
    (llama-cpp-python 0.3.36, Q4_K_M), so plain CPU buffers there (AVX-512 kernels, no repacking)."""
    params = defaults()  # llama_model_default_params
    if _has_amx():
        params.use_extra_bufts = False
    return params


@contextlib.contextmanager
def safe_defaults() -> Iterator[None]:
    """While it lasts, llama-cpp-python's high-level `Llama` (which reads the default model parameters
    itself: the bench's baselines) gets `model_params`' defaults."""
    import llama_cpp.llama_cpp as low

    original = low.llama_model_default_params
    low.llama_model_default_params = lambda: model_params(original)
    try:
        yield
    finally:
        low.llama_model_default_params = original


@dataclass
class LlamaCppModel(ExactPrefill):
    """A GGUF model in one llama.cpp context whose memory always holds exactly the accepted prefix."""

    path: Path
    eos_ids: frozenset[int]
    n_ctx: int
    device: str = "cpu"
    num_forwards: int = 0  # every llama_decode call, prefill chunks included
    kernels = ""  # llama.cpp chooses its own kernels: nothing to key by
    _lib: Any = field(default=None, repr=False)
    _model: Any = field(default=None, repr=False)
    _ctx: Any = field(default=None, repr=False)
    _mem: Any = field(default=None, repr=False)
    _batch: Any = field(default=None, repr=False)
    _n_vocab: int = 0
    _ids: list[int] = field(default_factory=list, repr=False)  # the tokens the context's memory holds

    @classmethod
    def load(cls, path: Path, eos_ids: frozenset[int], n_ctx: int, n_threads: int | None = None) -> LlamaCppModel:
        try:
            import llama_cpp as lib
        except ImportError as e:
            raise ModelError("--backend llamacpp needs llama-cpp-python (pip install -e '.[llamacpp]')") from e
        _silence(lib)
        lib.llama_backend_init()
        mparams = model_params(lib.llama_model_default_params)
        mparams.n_gpu_layers = 0
        model = lib.llama_model_load_from_file(str(path).encode(), mparams)
        if not model:
            raise ModelError(f"llama.cpp could not load {path}")
        cparams = lib.llama_context_default_params()
        n = n_threads or threads()
        cparams.n_ctx, cparams.n_batch, cparams.n_ubatch = n_ctx, N_BATCH, N_BATCH
        cparams.n_threads = cparams.n_threads_batch = n
        cparams.n_seq_max, cparams.kv_unified = N_SEQ, True
        ctx = lib.llama_init_from_model(model, cparams)
        if not ctx:
            lib.llama_model_free(model)
            raise ModelError(f"llama.cpp could not create a context of {n_ctx} tokens for {path}")
        vocab = lib.llama_model_get_vocab(model)
        return cls(
            path=path,
            eos_ids=eos_ids,
            n_ctx=n_ctx,
            _lib=lib,
            _model=model,
            _ctx=ctx,
            _mem=lib.llama_get_memory(ctx),
            _batch=lib.llama_batch_init(N_BATCH, 0, N_SEQ),
            _n_vocab=lib.llama_vocab_n_tokens(vocab),
        )

    @classmethod
    def target(cls, engine: EngineView) -> LlamaCppModel:
        """The engine's target model: its GGUF, stopping on the tokenizer's end ids, in its context."""
        assert engine.source.gguf is not None
        return cls.load(engine.source.gguf, stop_ids(engine.tokenizer, None), engine.context)

    @classmethod
    def draft(cls, source: ModelSource, engine: EngineView, progress: Progress | None = None) -> LlamaCppModel:
        """A draft model's GGUF (the packaged one assembled on first use), in the target's context."""
        from applyedit.models import modelstore

        gguf = modelstore.draft_gguf(source, progress, build=engine.prepares)
        if gguf is None:
            raise ModelError(f"--draft-backend llamacpp runs GGUF files; {source.name} is not one")
        if not available():
            raise ModelError("--draft-backend llamacpp needs llama-cpp-python: pip install -e '.[llamacpp]'")
        return cls.load(gguf, stop_ids(engine.tokenizer, None), engine.context)

    @staticmethod
    def check(device: str) -> None:
        if device != "cpu":
            raise InputError("--backend llamacpp runs on the CPU here; drop --device or use --backend torch")
        if not available():
            raise ModelError("--backend llamacpp needs llama-cpp-python: pip install -e '.[llamacpp]'")

    @staticmethod
    def prepare(source: ModelSource, progress: Progress | None = None) -> Path:
        """The tokenizer's folder only: llama.cpp reads the GGUF itself."""
        from applyedit.models import modelstore

        return modelstore.prepare_tokenizer(source, progress)

    @staticmethod
    def load_tokenizer(path: Path) -> Any:
        """models/vocab.py's tokenizer of the prepared folder: no transformers."""
        from applyedit.models.vocab import Vocab

        return Vocab.load(path)

    @staticmethod
    def pick_dtype(dtype: str | None, device: str) -> None:
        return None  # the GGUF's own quantisation (options refuse --dtype here)

    @staticmethod
    def thread_count() -> int:
        return threads()

    @staticmethod
    def dtype_label(dtype: Any) -> str:
        return "gguf"  # the file's own quantisation

    @staticmethod
    def weights_file(source: ModelSource, path: Path) -> Path | None:
        return source.gguf

    @property
    def vocab_size(self) -> int:
        return self._n_vocab

    @property
    def threads(self) -> int:
        return self.thread_count()

    @property
    def dtype_name(self) -> str:
        return "gguf"

    def close(self) -> None:
        if self._ctx:
            self._lib.llama_batch_free(self._batch)
            self._lib.llama_free(self._ctx)
            self._lib.llama_model_free(self._model)
            self._ctx = self._model = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass

    def reset(self) -> None:
        self._lib.llama_memory_clear(self._mem, True)
        self._ids = []

    def forward(self, ids: list[int], num_logits: int) -> Logits:
        """Append `ids`; logits `(num_logits, V)` for the last positions, a float32 numpy array."""
        import numpy as np

        self._decode(ids, num_logits)
        # The outputs of the last call, in batch order: exactly the `num_logits` rows asked for.
        ptr = self._lib.llama_get_logits(self._ctx)
        return np.ctypeslib.as_array(ptr, shape=(num_logits, self._n_vocab)).copy()

    def _decode(self, ids: list[int], num_logits: int) -> None:
        """Append `ids` in `n_batch` chunks, asking for the logits of the last `num_logits` positions."""
        assert 1 <= num_logits <= len(ids)
        # A prompt goes in chunks of PREFILL_CHUNK from position 0 (the prompt cache cuts there too); a
        # verify block, in one batch.
        size = N_BATCH if num_logits == len(ids) else PREFILL_CHUNK
        chunks = [ids[i : i + size] for i in range(0, len(ids), size)]
        assert num_logits <= len(chunks[-1]), "a verify block must fit in one batch"
        if len(self._ids) + len(ids) > self.n_ctx:
            raise ModelError(f"llama.cpp context full ({self.n_ctx} tokens)")
        for n, chunk in enumerate(chunks):
            first_out = len(chunk) - (num_logits if n == len(chunks) - 1 else 1)
            start = len(self._ids)
            self._submit([(token, start + i, (0,), i >= first_out) for i, token in enumerate(chunk)])
            self._ids.extend(chunk)
            if n < len(chunks) - 1:
                self._chunk_done((n + 1) * N_BATCH, len(ids))
                if self.between_chunks is not None:
                    self.between_chunks()

    def _submit(self, entries: Sequence[tuple[int, int, Sequence[int], bool]]) -> None:
        """One `llama_decode` call: per token, (token, position, its sequences, whether its logits are
        kept)."""
        batch = self._batch
        for i, (token, pos, seqs, wanted) in enumerate(entries):
            batch.token[i], batch.pos[i], batch.n_seq_id[i], batch.logits[i] = token, pos, len(seqs), wanted
            for j, seq in enumerate(seqs):
                batch.seq_id[i][j] = seq
        batch.n_tokens = len(entries)
        rc = self._lib.llama_decode(self._ctx, batch)
        if rc != 0:
            raise ModelError(f"llama_decode failed with code {rc} at position {entries[0][1]}")
        self.num_forwards += 1

    def forward_branches(
        self, lead: Sequence[int], spans: Sequence[Sequence[int]]
    ) -> Iterator[tuple[int, int, Logits]]:
        """`Branches.forward_branches` (models/base.py): `lead` once, in every span's sequence, then the
        spans' tokens side by side, `n_batch` tokens a `llama_decode` call, logits asked for the lead's
        last token and every span token but the last (which scores nothing); spans go up to N_SEQ - 1 at
        a time and as many as the context's free cells hold (a span too long for them raises, as
        `forward` does). The run's stop rule (interrupt.py) is checked before each `llama_decode` call:
        a run past its deadline, or whose client went away, stops between two batches (the spans'
        sequences dropped)."""
        import numpy as np

        assert lead, "the spans are read after at least one token"
        lib, base, after = self._lib, len(self._ids), len(self._ids) + len(lead)
        groups: list[list[int]] = [[]]
        for k, span in enumerate(spans):
            room = self.n_ctx - after - sum(len(spans[j]) for j in groups[-1])
            if groups[-1] and (len(groups[-1]) == N_SEQ - 1 or len(span) > room):
                groups.append([])
            groups[-1].append(k)
        for group in groups:
            if after + sum(len(spans[k]) for k in group) > self.n_ctx:
                raise ModelError(f"llama.cpp context full ({self.n_ctx} tokens)")
            seqs = {k: n + 1 for n, k in enumerate(group)}
            # (token, position, sequences, the (span, index) its logits row is read for); the lead first,
            # in every sequence, its last row read for each span's first token
            fed: list[tuple[int, int, list[int], list[tuple[int, int]]]] = [
                (token, base + i, list(seqs.values()), []) for i, token in enumerate(lead)
            ]
            fed[-1] = (*fed[-1][:3], [(k, 0) for k in group if spans[k]])
            for k in group:
                for i, token in enumerate(spans[k]):
                    fed.append((token, after + i, [seqs[k]], [(k, i + 1)] if i + 1 < len(spans[k]) else []))
            try:
                for seq in seqs.values():
                    lib.llama_memory_seq_cp(self._mem, 0, seq, -1, -1)
                for at in range(0, len(fed), N_BATCH):
                    chunk = fed[at : at + N_BATCH]
                    interrupt.check()
                    self._submit([(token, pos, ids, bool(reads)) for token, pos, ids, reads in chunk])
                    # the outputs come in batch order, a row per token asked for (`last`'s serves every
                    # span); within a chunk each span's rows are consecutive
                    picked: dict[int, tuple[int, list[int]]] = {}
                    row = 0
                    for _, _, _, reads in chunk:
                        for k, i in reads:
                            picked.setdefault(k, (i, []))[1].append(row)
                        row += bool(reads)
                    if row:
                        logits = np.ctypeslib.as_array(lib.llama_get_logits(self._ctx), shape=(row, self._n_vocab))
                        for k, (i, at_rows) in picked.items():
                            yield k, i, logits[at_rows]  # indexing by a list copies the rows out of llama.cpp's buffer
            finally:
                for seq in seqs.values():
                    lib.llama_memory_seq_rm(self._mem, seq, -1, -1)

    def greedy(self, prompt: list[int], max_new_tokens: int) -> tuple[list[int], float]:
        """llama.cpp's own plain greedy decoding, what a llama.cpp or Ollama user runs: the prompt in
        `n_batch` chunks, then one single-token `llama_decode` per token, each chosen by llama.cpp's
        greedy sampler (no logits leave the library). Returns the tokens (up to EOS, which is left
        out, or the budget) and the time to the first token. The cache is reset first."""
        lib = self._lib
        self.reset()
        sampler = lib.llama_sampler_init_greedy()
        tokens: list[int] = []
        first = 0.0
        try:
            t0 = time.perf_counter()
            self._decode(prompt, 1)
            while len(tokens) < max_new_tokens:
                token = int(lib.llama_sampler_sample(sampler, self._ctx, -1))
                if not tokens:
                    first = time.perf_counter() - t0
                if token in self.eos_ids:
                    break
                tokens.append(token)
                if len(tokens) < max_new_tokens:
                    self._decode([token], 1)
        finally:
            lib.llama_sampler_free(sampler)
        return tokens, first

    # -- the prompt cache's snapshots (models/promptcache.py): the sequence's state (llama_state_seq_*)
    def snapshot(self) -> tuple[Any, int]:
        """Sequence 0's state bytes (its KV cells), as llama.cpp serialises them, and their size."""
        size = self._lib.llama_state_seq_get_size(self._ctx, 0)
        buf = (ctypes.c_uint8 * size)()
        n = self._lib.llama_state_seq_get_data(self._ctx, buf, size, 0)
        if not n or n > size:
            raise ModelError("llama.cpp could not copy the sequence state")
        return ctypes.string_at(buf, n), n

    def restore(self, snapshot: Any, ids: Any) -> None:
        self.reset()
        buf = (ctypes.c_uint8 * len(snapshot)).from_buffer_copy(snapshot)
        if not self._lib.llama_state_seq_set_data(self._ctx, buf, len(snapshot), 0):
            self.reset()
            raise ModelError("llama.cpp could not restore a cached sequence state")
        self._ids = list(ids)

    def crop_to(self, length: int) -> None:
        assert 0 <= length <= len(self._ids)
        if length < len(self._ids):
            if not self._lib.llama_memory_seq_rm(self._mem, 0, length, -1):
                raise ModelError(f"llama.cpp could not drop cached positions from {length}")
            del self._ids[length:]
