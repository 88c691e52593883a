"""The loop backends' exact prefill: `ExactPrefill`, the common part of the torch and llama.cpp backends.

Owns `prefill` that reuses a cache only when the result is the same as a fresh run's (an exact hit, or
the prompt cache's whole blocks), `cached_len` and `cached_ids` over the ids a backend's cache holds
(`_ids`), the hooks a run sets, unset, and the class side the engine reads (models/base.py's `Loader`)
as most backends answer it: the model store's folder, Hugging Face's tokenizer, torch's dtype, a measured
cost curve.
`PREFILL_CHUNK`: the prompt's chunks, which the prompt cache cuts at too. The seam itself is
models/base.py's. Imports no backend library: a backend's own module does.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from applyedit.models.base import Logits
    from applyedit.models.costmodel import CostCurve
    from applyedit.models.modelstore import ModelSource, Progress

PREFILL_CHUNK = 256  # prompt tokens per prefill forward: bounds attention memory on long files
# Chunks start at multiples of PREFILL_CHUNK from position 0, which the prompt cache relies on: it cuts
# prefixes at the same boundaries (promptcache.BLOCK), so a resumed prompt runs a fresh run's chunks.


class ExactPrefill(ABC):
    """The loop backends' common part (`Backend`, models/base.py): `prefill` and `cached_len` for a
    backend that tracks the ids its cache holds in `_ids`; the hooks a run sets, unset."""

    _ids: list[int]
    eos_ids: frozenset[int]
    concurrent_runs = 1  # the server runs one request at a time
    kernels: str = ""  # the CPU matmul kernels, where the backend chooses them (part of cost and cache keys)
    prompt_cache: Any = None  # a promptcache.PromptCache (`applyedit serve` attaches one); None: no reuse
    # Progress displays: called with (prompt tokens computed, prompt tokens) at the start and end of a
    # prefill and after each of its chunks. Set on the instance; None reports nothing.
    on_prefill: Callable[[int, int], None] | None = None
    # Called between two chunks of a prefill, when the cache holds exactly `_ids`: it may raise to stop
    # the prefill there (a server's run whose client went away). Set on the instance; None never stops.
    between_chunks: Callable[[], None] | None = None

    @abstractmethod
    def reset(self) -> None: ...

    @abstractmethod
    def forward(self, ids: list[int], num_logits: int) -> Logits: ...

    @abstractmethod
    def crop_to(self, length: int) -> None: ...

    @abstractmethod
    def snapshot(self) -> tuple[Any, int]: ...

    @abstractmethod
    def restore(self, snapshot: Any, ids: Sequence[int]) -> None: ...

    @property
    @abstractmethod
    def vocab_size(self) -> int: ...

    @property
    def cached_ids(self) -> Sequence[int]:
        return self._ids

    # -- the class side the engine reads (models/base.py's Loader), as most backends answer it
    @staticmethod
    def prepare(source: ModelSource, progress: Progress | None = None) -> Path:
        """The model's folder: its tokenizer, and the dequantized copy the torch backend reads (written
        here on first use; the fast-load copy at the first load)."""
        from applyedit.models import modelstore

        return modelstore.prepare(source, progress)

    @staticmethod
    def load_tokenizer(path: Path) -> Any:
        """Hugging Face's tokenizer of the folder (transformers)."""
        from applyedit.models.tokens import load_tokenizer

        return load_tokenizer(path)

    @staticmethod
    def pick_dtype(dtype: str | None, device: str) -> Any:
        """torch's dtype for `--dtype` (models/device.py: it imports torch)."""
        from applyedit.models.device import pick_dtype

        return pick_dtype(dtype, device)

    @staticmethod
    def fixed_cost(device: str) -> CostCurve | None:
        return None  # the cost curve is measured on the loaded model (Engine.cost_curve)

    @property
    def cached_len(self) -> int:
        return len(self._ids)

    def prefill(self, ids: list[int]) -> int:
        """Reuse the cache only when it already starts with all of `ids` (the same prompt again, as in
        `bench`); without a prompt cache a partial match is recomputed from scratch, so an output never
        depends on what ran before it in the process (chunk boundaries, hence float rounding, stay those
        of a fresh run). With one, prefixes are reused at chunk boundaries only, for the same reason."""
        if ids and self._ids[: len(ids)] == ids:
            self.crop_to(len(ids))
            return 0
        if self.prompt_cache is not None:  # exact too: prefixes cut at chunk boundaries (models/promptcache.py)
            from applyedit.models import promptcache

            return promptcache.prefill(self, self.prompt_cache, ids)
        self.reset()
        if ids:
            self._chunk_done(0, len(ids))
            self.forward(ids, num_logits=1)
            self._chunk_done(len(ids), len(ids))
        return len(ids)

    def _chunk_done(self, done: int, total: int) -> None:
        if self.on_prefill is not None and (done, total) != getattr(self, "_reported", None):
            self._reported = (done, total)  # a chunk's end may be reported twice: once is enough
            self.on_prefill(done, total)
