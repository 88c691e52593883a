"""The backend seam: what a model must offer to run the target or a draft, and the one table of backends.

Owns `TargetModel` (what the decode loop needs: a draft model offers it too), `Backend` (the target as
the engine, the run, the server and the prompt cache see it: the loop's seam plus the prompt cache's
snapshots, the hooks a run sets, and what the engine reads), `WholeRequests` (a backend that decodes
whole requests itself, known by that method: vLLM), `Branches` (a backend that reads several
continuations of its cache in one batch, known by that method: llama.cpp), `Loader` (what a backend's
class answers before any weights load, and how it loads the engine's target or a draft model, from what
`EngineView` shows of the engine) and `BACKENDS` (name -> `BackendEntry`: the class and whether it runs
the target, a draft model or both), which `--backend`, `--draft-backend`, `RunOptions.check` and the
engine read. Adding a backend, for the target or for drafts, is its own module plus one line here.
Imports nothing heavy: `--help` reads the names.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from applyedit.errors import InputError, either

if TYPE_CHECKING:
    from applyedit.decoded import DecodeResult
    from applyedit.models.costmodel import CostCurve
    from applyedit.models.modelstore import ModelSource, Progress


# A forward pass's logits `(rows, V)`, float32, as the backend computes them: a torch tensor (torch, on
# its device) or a numpy array (llama.cpp, which runs without torch). The decode layer reads either
# (speculative/logits.py).
Logits = Any


@dataclass(frozen=True)
class BackendEntry:
    """One backend: its class, as "module:Class" (imported when that backend runs) or the class itself,
    and what it runs: the target (`--backend`), a draft model (`--draft-backend`), or both."""

    cls: str | type
    target: bool = True
    draft: bool = True


# The backends, in the order --help lists them.
BACKENDS: dict[str, BackendEntry] = {
    "torch": BackendEntry("applyedit.models.torchmodel:TorchModel"),  # transformers: the exactness reference
    "llamacpp": BackendEntry("applyedit.models.llamacpp:LlamaCppModel"),  # the GGUF on the CPU (the llamacpp extra)
    # a vLLM engine with applyedit's drafter; it decodes whole requests, so it runs no draft model
    "vllm": BackendEntry("applyedit.models.vllmengine:VllmModel", draft=False),
}


def target_backends() -> tuple[str, ...]:
    """The names `--backend` takes (besides "auto"), as the table holds them now."""
    return tuple(name for name, entry in BACKENDS.items() if entry.target)


def draft_backends() -> tuple[str, ...]:
    """The names `--draft-backend` takes (besides "auto"), as the table holds them now."""
    return tuple(name for name, entry in BACKENDS.items() if entry.draft)


class TargetModel(Protocol):
    """What the decode loop needs from a model."""

    eos_ids: frozenset[int]

    def reset(self) -> None: ...

    def prefill(self, ids: list[int]) -> int:
        """Make the cache hold exactly `ids`; return how many tokens had to be computed (0: reused)."""
        ...

    def forward(self, ids: list[int], num_logits: int) -> Logits:
        """Append `ids` to the cache; return logits `(num_logits, V)` for the last positions."""
        ...

    def crop_to(self, length: int) -> None:
        """Drop cached positions past `length`."""
        ...

    @property
    def cached_len(self) -> int: ...


class Backend(TargetModel, Protocol):
    """The loaded target, as the engine, a run, the server and the prompt cache see it."""

    concurrent_runs: int  # requests the server runs at once (applyedit's own loop: one)
    kernels: str  # the CPU matmul kernels, where the backend chooses them ("" elsewhere)
    prompt_cache: Any  # a promptcache.PromptCache (`applyedit serve` attaches one); None: no reuse
    # Progress displays: called with (prompt tokens computed, prompt tokens) during a prefill; a run
    # sets it and clears it. None reports nothing.
    on_prefill: Callable[[int, int], None] | None
    # Called between two chunks of a prefill: it may raise to stop the prefill there (a server's run
    # whose client went away). None never stops.
    between_chunks: Callable[[], None] | None

    @property
    def vocab_size(self) -> int:
        """Rows of the logits (the vocabulary, padding included)."""
        ...

    @property
    def cached_ids(self) -> Sequence[int]:
        """The tokens the cache holds."""
        ...

    def snapshot(self) -> tuple[Any, int]:
        """The state of everything cached now, and its size in bytes (the prompt cache keeps it)."""
        ...

    def restore(self, snapshot: Any, ids: Sequence[int]) -> None:
        """Make the cache hold exactly the snapshot, whose tokens are `ids`."""
        ...


@runtime_checkable
class Branches(Protocol):
    """A backend that reads several continuations of its cache side by side, as a tree of sequences
    sharing the cached prefix (speculative/tiebreak.py scores readings so); others read them one by one."""

    def forward_branches(
        self, lead: Sequence[int], spans: Sequence[Sequence[int]]
    ) -> Iterator[tuple[int, int, Logits]]:
        """After the cache, `lead` (shared by all), then each of `spans` as a continuation of its own:
        yields `(k, at, rows)`, `rows[i]` the logits `(V,)` read for `spans[k][at + i]` (after the lead
        and the span's tokens before it), each span's rows in order and every one of them once. When the
        iterator is done or closed, the cache holds what it held before."""
        ...


@runtime_checkable
class WholeRequests(Protocol):
    """A backend that decodes a request from its prompt to its stop itself (vLLM drafts and batches): a
    run hands it the prompt instead of running the decode loop on it."""

    def decode_request(
        self, prompt: Sequence[int], budget: int, stop: Callable[[list[int]], int | None], deadline: float | None
    ) -> DecodeResult: ...


class EngineView(Protocol):
    """What a backend reads of the engine it loads a model for (models/engine.py's `Engine` is one)."""

    source: ModelSource  # the target's
    path: Path  # the folder the target's tokenizer (and the torch backend's weights) are read from
    tokenizer: Any  # Hugging Face's or models/vocab.py's `Vocab`, as the backend's `load_tokenizer` gives it
    device: str
    dtype: Any  # a torch.dtype; None where the target runs the file's own (llama.cpp: the GGUF's)
    context: int
    prepares: bool  # False: nothing may be prepared to disk (a server's engine)


class Loader(Protocol):
    """What a backend's class answers for the engine (models/engine.py), before any weights load."""

    def target(self, engine: EngineView) -> Backend:
        """The engine's target model (the engine's path, device, dtype and tokenizer), loaded."""
        ...

    def draft(self, source: ModelSource, engine: EngineView, progress: Progress | None = None) -> TargetModel:
        """The draft model `source`, loaded to draft for the engine's target (its tokenizer, device, dtype)."""
        ...

    def check(self, device: str) -> None:
        """Refuse, with the reason, to run on `device` or without what this backend needs installed."""
        ...

    def prepare(self, source: ModelSource, progress: Progress | None = None) -> Path:
        """The folder the tokenizer (and what this backend loads) is read from, prepared by the model store."""
        ...

    def load_tokenizer(self, path: Path) -> Any:
        """The tokenizer of the prepared folder, as the engine keeps it (torch: Hugging Face's; llama.cpp:
        models/vocab.py's, no transformers; vLLM: Hugging Face's, one call at a time)."""
        ...

    def pick_dtype(self, dtype: str | None, device: str) -> Any:
        """The dtype the target computes in for `--dtype` (torch's); None where it runs the file's own."""
        ...

    def fixed_cost(self, device: str) -> CostCurve | None:
        """The verify-pass cost curve when the backend has a fixed one; None: measured on the model."""
        ...

    def thread_count(self) -> int:
        """The threads the backend computes with."""
        ...

    def dtype_label(self, dtype: Any) -> str:
        """ "float32", "bfloat16", ... ; "gguf" where the file's own quantisation runs."""
        ...

    def weights_file(self, source: ModelSource, path: Path) -> Path | None:
        """The file the target's weights come from (what a disk prompt cache is keyed by); None: none."""
        ...


def loader(backend: str, role: str = "target") -> Loader:
    """The class that runs `backend` (BACKENDS) for `role`, "target" or "draft"; a name the table does
    not hold for that role is an InputError."""
    names = target_backends() if role == "target" else draft_backends()
    if backend not in names:
        flag = "--backend" if role == "target" else "--draft-backend"
        raise InputError(f"unknown {flag} {backend!r}; choose {either(names)}")
    cls = BACKENDS[backend].cls
    if isinstance(cls, str):
        module, name = cls.split(":")
        cls = getattr(importlib.import_module(module), name)
    return cast(Loader, cls)  # a class: its class-side methods are Loader's
