"""The engine: which backend runs the target (and the draft model), and a loaded model kept for
several runs (eval, bench, serve).

Owns backend choice (`pick_backend`, the draft's in `Engine.draft_choice`), resolving and preparing
the model through the model store (never, for an engine whose `prepares` is off: a server's, whose
requests write no model files), and the cost-curve keys. What differs between backends (vocab
size, threads, dtype, matmul kernels, the folder it reads, whether it runs here, how a target or a
draft model loads) is the backend class's business (models/base.py's `Loader`, found by name and role
in `BACKENDS`): the engine reads it and never branches on the backend's name for it ("auto" picks a
name: `pick_backend`, `draft_choice`). Knows nothing of prompts, proposers or checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from applyedit.models import modelstore
from applyedit.models.base import Backend, loader
from applyedit.models.costmodel import CostCurve, load_or_calibrate
from applyedit.models.device import pick_device
from applyedit.models.tokens import context_length, text_ids


@dataclass
class Engine:
    """A resolved model with its tokenizer; the weights load on first use and stay loaded."""

    source: modelstore.ModelSource
    path: Path
    tokenizer: Any
    device: str
    dtype: Any  # a torch.dtype; None where the target runs the file's own (llama.cpp)
    context: int
    cost: CostCurve | None = None  # the verify-pass cost curve; measured once and cached
    backend: str = "torch"  # "torch" (transformers), "llamacpp" (the GGUF itself) or "vllm" (a vLLM engine)
    backend_reason: str = ""  # why this backend runs (pick_backend), shown in the summary
    # False: nothing is prepared, converted, assembled or calibrated to disk for a run (a server's
    # engine: its requests never write model files); a draft model not prepared yet is ModelNotPrepared
    prepares: bool = True
    _model: Backend | None = field(default=None, repr=False)  # loaded on first use
    _drafts: dict[str, Any] = field(default_factory=dict, repr=False)  # loaded draft models, by source and backend
    _draft_costs: dict[str, CostCurve] = field(default_factory=dict, repr=False)  # measured, unsaved (not `prepares`)

    @classmethod
    def open(
        cls,
        model: str | None = None,
        device: str | None = None,
        dtype: str | None = None,
        progress: modelstore.Progress | None = None,
        backend: str | None = None,
    ) -> Engine:
        source = modelstore.resolve(model)
        dev = pick_device(device)
        chosen, why = pick_backend(backend, dev, dtype=dtype, source=source)
        runs = loader(chosen)
        path = runs.prepare(source, progress)
        return cls(
            source,
            path,
            runs.load_tokenizer(path),
            dev,
            runs.pick_dtype(dtype, dev),
            context_length(path),
            cost=runs.fixed_cost(dev),
            backend=chosen,
            backend_reason=why,
        )

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def model(self) -> Backend:
        """The loaded target behind the `Backend` seam (models/base.py)."""
        if self._model is None:
            self._model = loader(self.backend).target(self)
        return self._model

    def draft_model(
        self, spec: str | None = None, backend: str | None = None, progress: modelstore.Progress | None = None
    ) -> Any:
        """The draft model of `--draft-model` (default: the packaged Qwen2.5-Coder-0.5B-Instruct) behind
        the `TargetModel` seam, loaded once by the backend `draft_choice` picks (its `Loader.draft`)."""
        source, chosen = self.draft_choice(spec, backend)
        key = f"{source.name}-{chosen}"
        if key not in self._drafts:
            self._drafts[key] = loader(chosen, "draft").draft(source, self, progress)
        return self._drafts[key]

    def draft_choice(self, spec: str | None, backend: str | None) -> tuple[modelstore.ModelSource, str]:
        """The draft model's source and the backend that runs it (see `draft_model`): the one asked for
        (a draft backend of BACKENDS), or for "auto" llama.cpp on the CPU when it is installed and the
        draft is a GGUF (far faster per token there than torch fp32), else torch like the target."""
        from applyedit.models import llamacpp

        source = modelstore.resolve_draft(spec)
        if backend not in (None, "auto"):
            loader(backend, "draft")  # a name the table holds for drafts, else an InputError
            return source, backend
        auto = self.device == "cpu" and source.gguf is not None and llamacpp.available()
        return source, "llamacpp" if auto else "torch"

    def draft_cost(self, spec: str | None = None, backend: str | None = None, fresh: bool = False) -> CostCurve:
        """The draft model's own cost curve (calibrated once per draft, backend and device, and cached;
        `fresh` measures it again): its t(0) is what one draft token costs."""
        source, chosen = self.draft_choice(spec, backend)
        dtype = loader(chosen, "draft").dtype_label(self.dtype)
        key = f"draft-{source.name}-{chosen}-{self.device}-{dtype}-{self.threads}t"
        if self.prepares:
            return load_or_calibrate(self.draft_model(spec, backend), modelstore.home(), key, fresh)
        if fresh or key not in self._draft_costs:  # measured here, written nowhere
            small = self.draft_model(spec, backend)
            self._draft_costs[key] = load_or_calibrate(small, modelstore.home(), key, fresh, save=False)
        return self._draft_costs[key]

    @property
    def vocab_size(self) -> int:
        """The number of rows of the target's logits (its vocabulary, padding included)."""
        return int(self.model.vocab_size)

    @property
    def kernels(self) -> str:
        """The loaded target's CPU matmul kernels ("" where the backend has no choice)."""
        return str(self.model.kernels)

    def cost_curve(self, fresh: bool = False) -> CostCurve:
        """The verify-pass cost curve of this model, backend, device, dtype and thread count (cached)."""
        if self.cost is None or fresh:
            kernels = self.kernels  # the CPU matmul kernels change the curve
            kernel_part = f"-{kernels}" if kernels else ""
            key = f"{self.source.name}-{self.backend}-{self.device}-{self.dtype_name}{kernel_part}-{self.threads}t"
            self.cost = load_or_calibrate(self.model, modelstore.home(), key, fresh)
        return self.cost

    @property
    def threads(self) -> int:
        """The threads the backend computes with (known before the weights load)."""
        return int(loader(self.backend).thread_count())

    @property
    def dtype_name(self) -> str:
        """ "float32", "bfloat16", ... on torch; "gguf" on llama.cpp (the file's own quantisation)."""
        return str(loader(self.backend).dtype_label(self.dtype))

    @property
    def weights_file(self) -> Path | None:
        """The file the target's weights come from (what a disk prompt cache is keyed by)."""
        return loader(self.backend).weights_file(self.source, self.path)

    def encode(self, text: str) -> list[int]:
        """User text's ids: a special-token string in it (`<|im_end|>`) stays text (tokens.text_ids)."""
        return text_ids(self.tokenizer, text)

    def decode(self, ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode(list(ids), skip_special_tokens=False))


def pick_backend(
    backend: str | None, device: str, *, dtype: str | None = None, source: modelstore.ModelSource | None = None
) -> tuple[str, str]:
    """The backend that runs the target, and why (`applyedit model` and the summary say it).

    Asked for (`--backend`, `APPLYEDIT_BACKEND` or the config file): that one; llama.cpp runs on the
    CPU only. Otherwise llama.cpp is the CPU default when the llamacpp extra is installed (the fastest
    path there); torch runs on CUDA, for a `--dtype` (llama.cpp runs the GGUF's own quantisation), for
    a model that is no GGUF file, and without the extra. torch fp32 stays the exactness reference."""
    if backend not in (None, "auto"):
        loader(backend).check(device)  # an unknown name is an InputError there
        return backend, f"--backend {backend}"
    from applyedit.models import llamacpp

    if device != "cpu":
        return "torch", "CUDA" if device.startswith("cuda") else f"--device {device}"
    if dtype not in (None, "auto"):
        return "torch", f"--dtype {dtype}"
    if source is not None and source.gguf is None:
        return "torch", "the model is not a GGUF file"
    if not llamacpp.available():
        return "torch", "the llamacpp extra is not installed"
    return "llamacpp", "the CPU default"


def backend_label(backend: str, reason: str) -> str:
    """'llama.cpp: the CPU default', 'torch: --backend torch', ... (for people, not for keys)."""
    return f"{'llama.cpp' if backend == 'llamacpp' else backend}: {reason}"
