"""The torch backend: score token ids on top of the cached prefix, crop the cache.

Owns `TorchModel`: a transformers causal LM with its KV cache (a `DynamicCache` that always holds
exactly the accepted prefix; within the loop `crop_to(n)` is the only way it shrinks), on
models/prefill.py's `ExactPrefill`, with Hugging Face's tokenizer (models/tokens.py). Loading the
weights on the CPU (the matmul kernels, the fast-load copy) is kernels.py's; the device and dtype
choice is device.py's; llama.cpp is llamacpp.py's; the model files are the model store's. torch and
transformers are imported when a model loads, never when this module does. Knows nothing of
proposers, K, regions or files.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from applyedit.errors import ModelError
from applyedit.models.base import TargetModel as TargetModel  # the loop's seam (models/base.py)
from applyedit.models.device import pick_dtype
from applyedit.models.kernels import cpu_kernels, load_cpu_weights, load_pretrained, save_cpu_weights, use_cpu_kernels
from applyedit.models.prefill import PREFILL_CHUNK, ExactPrefill
from applyedit.models.tokens import load_tokenizer, stop_ids

if TYPE_CHECKING:
    import torch

    from applyedit.models.base import EngineView
    from applyedit.models.modelstore import ModelSource, Progress

logger = logging.getLogger(__name__)

TORCH_PIP = "pip install -e '.[torch]'"  # the torch extra: torch, transformers, accelerate


def available() -> bool:
    """Whether the torch extra is installed (torch and transformers), found without importing either."""
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in ("torch", "transformers"))


# On the CPU, oneDNN's inner product runs some row counts far slower than their neighbours (measured,
# 1536 -> 8960 projection: 703, 697, 689 and 259 rows at 229-256 us a row, multiples of 4 at 170-200),
# which made one real prompt's prefill 25% slower than generate()'s one row longer. Prompt chunks of
# PAD_MIN rows or more are padded to a multiple of PAD_ROWS with copies of their last token; the padded
# positions come after every real one (causal attention: they touch nothing real) and are cropped off.
# Verify blocks (every row's logits wanted; 65 rows ran as fast as 64) are never padded.
PAD_MIN, PAD_ROWS = 64, 4


@dataclass
class TorchModel(ExactPrefill):
    """A transformers causal LM plus its DynamicCache, behind the `TargetModel` seam."""

    model: Any  # transformers PreTrainedModel, eval mode
    eos_ids: frozenset[int]
    device: str = "cpu"
    kernels: str = ""  # CPU matmul kernels, "onednn" | "mkl" (`use_cpu_kernels`); "" elsewhere
    num_forwards: int = 0  # every forward call, prefill chunks included
    _cache: Any = field(default=None, repr=False)
    _ids: list[int] = field(default_factory=list, repr=False)  # the tokens the cache holds

    @classmethod
    def target(cls, engine: EngineView) -> TorchModel:
        """The engine's target model (models.engine.Engine: its path, device, dtype and tokenizer)."""
        return cls.load(engine.path, engine.device, engine.dtype, engine.tokenizer)

    @classmethod
    def draft(cls, source: ModelSource, engine: EngineView, progress: Progress | None = None) -> TorchModel:
        """A draft model on the target's device and dtype; it must share the target's tokenizer."""
        from applyedit.models import modelstore

        path = modelstore.prepare(source, progress, build=engine.prepares)
        if source.kind != "draft" and load_tokenizer(path).get_vocab() != engine.tokenizer.get_vocab():
            raise ModelError(
                f"--draft-model {source.name} has another tokenizer than {engine.source.name}; "
                "a draft model must share the target's"
            )
        dtype = engine.dtype if engine.dtype is not None else pick_dtype(None, engine.device)  # a llama.cpp target's
        return cls.load(path, engine.device, dtype, engine.tokenizer)

    @staticmethod
    def check(device: str) -> None:
        """It runs on every device pick_device allows, with the torch extra installed."""
        if not available():
            raise ModelError(f"--backend torch needs torch and transformers: {TORCH_PIP}")

    @staticmethod
    def pick_dtype(dtype: str | None, device: str) -> torch.dtype:
        return pick_dtype(dtype, device)

    @staticmethod
    def thread_count() -> int:
        import torch

        return torch.get_num_threads()

    @staticmethod
    def dtype_label(dtype: Any) -> str:
        # None: the engine of a llama.cpp target (the CPU), whose torch draft computes in pick_dtype's float32
        return "float32" if dtype is None else str(dtype).removeprefix("torch.")

    @staticmethod
    def weights_file(source: ModelSource, path: Path) -> Path | None:
        return path / "model.safetensors"

    @property
    def vocab_size(self) -> int:
        """Rows of the logits (the vocabulary, padding included)."""
        return int(self.model.config.vocab_size)

    @property
    def threads(self) -> int:
        return self.thread_count()

    @property
    def dtype_name(self) -> str:
        return self.dtype_label(self.model.dtype)

    @staticmethod
    def fast_load_file(path: Path, device: str, dtype: torch.dtype) -> Path | None:
        """Where `load` keeps the fast-load copy of `path` (None: this device and dtype use none)."""
        import torch

        from applyedit.models.modelstore import cpu_weights_file

        return cpu_weights_file(path) if device == "cpu" and dtype == torch.float32 else None

    @classmethod
    def load(cls, path: Path, device: str, dtype: torch.dtype, tokenizer: Any) -> TorchModel:
        """Load weights from `path`. On the CPU in fp32 the fast-load copy is used when present (an
        mmap, under a second); otherwise the weights are loaded, converted and laid out here, and
        the copy is written for next time."""
        import torch
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # stderr belongs to applyedit's own progress and summary
        t0 = time.perf_counter()
        torch.set_grad_enabled(False)
        cpu = device == "cpu"
        kernels = cpu_kernels(dtype) if cpu else ""
        fast = cls.fast_load_file(path, device, dtype)
        model = None
        if fast is not None and fast.is_file():
            try:
                model = load_cpu_weights(path, fast, kernels)
            except Exception as e:  # a damaged, older or foreign copy is rebuilt, never trusted
                logger.warning("ignoring the fast-load copy %s (%s); rebuilding it", fast, e)
        fresh = model is None
        if model is None:
            model = load_pretrained(path, device, dtype)
        if cpu:
            kernels = use_cpu_kernels(model, dtype)  # on a fast-load copy: the layout is there already
        if fresh and fast is not None:
            save_cpu_weights(model, fast, kernels)
        logger.info("loaded %s in %.1f s (kernels: %s)", path, time.perf_counter() - t0, kernels or "default")
        eos = stop_ids(tokenizer, model.generation_config.eos_token_id)
        return cls(model=model, eos_ids=eos, device=device, kernels=kernels)

    def prefill(self, ids: list[int]) -> int:
        """`ExactPrefill.prefill`; with `on_prefill` set, progress is also reported after each decoder
        layer of each chunk (forward hooks for the prefill only: the computation is unchanged)."""
        layers = getattr(getattr(self.model, "model", None), "layers", None)
        if self.on_prefill is None or not ids or not layers:
            return super().prefill(ids)
        calls, total = [0], len(ids)

        def layer_done(*_: Any) -> None:
            calls[0] += 1
            chunk, layer = divmod(calls[0], len(layers))
            start = chunk * PREFILL_CHUNK
            done = start + min(PREFILL_CHUNK, total - start) * layer // len(layers)
            if 0 < done < total:
                self._chunk_done(done, total)

        hooks = [layer.register_forward_hook(layer_done) for layer in layers]
        try:
            return super().prefill(ids)
        finally:
            for hook in hooks:
                hook.remove()

    def reset(self) -> None:
        from transformers import DynamicCache

        self._cache = DynamicCache(config=self.model.config)
        self._ids = []

    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor:
        import torch

        assert 1 <= num_logits <= len(ids)
        if self._cache is None:
            self.reset()
        # Long inputs (the prompt) go through in chunks so attention memory stays bounded; only the
        # last chunk's logits are kept. A verify block (every row's logits) is one chunk.
        size = len(ids) if num_logits == len(ids) else PREFILL_CHUNK
        chunks = [ids[i : i + size] for i in range(0, len(ids), size)]
        assert num_logits <= len(chunks[-1])
        for n, chunk in enumerate(chunks):
            last = n == len(chunks) - 1
            verify = last and num_logits == len(chunk)  # a verify block: every row's logits, never padded
            pad = -len(chunk) % PAD_ROWS if self.device == "cpu" and len(chunk) >= PAD_MIN and not verify else 0
            input_ids = torch.tensor([chunk + chunk[-1:] * pad], dtype=torch.long, device=self.device)
            start = len(self._ids)
            positions = torch.arange(start, start + len(chunk) + pad, device=self.device)
            with torch.inference_mode():
                out = self.model(
                    input_ids=input_ids,
                    past_key_values=self._cache,
                    use_cache=True,
                    position_ids=positions[None],
                    logits_to_keep=(num_logits if last else 1) + pad,
                )
            if pad:
                self._cache.crop(-pad)  # the padding's keys and values go (pinned transformers: a count)
            self.num_forwards += 1
            self._ids.extend(chunk)
            if not last:
                self._chunk_done((n + 1) * PREFILL_CHUNK, len(ids))
                if self.between_chunks is not None:
                    self.between_chunks()
        assert self._cache.get_seq_length() == len(self._ids), "cache must hold exactly the fed tokens"
        logits = out.logits[0, : out.logits.shape[1] - pad].float()
        return logits[-num_logits:]

    def crop_to(self, length: int) -> None:
        assert 0 <= length <= len(self._ids)
        if length < len(self._ids):
            self._cache.crop(length - len(self._ids))  # pinned transformers: a negative count removes tokens
            del self._ids[length:]
        assert self._cache.get_seq_length() == len(self._ids)

    # -- the prompt cache's snapshots (models/promptcache.py): the cache tensors of the cached prefix
    def snapshot(self) -> tuple[Any, int]:
        """Keys and values of every layer as cached now (tensors owning just their rows), and their bytes.
        The cache never writes into its tensors (appends and crops make new ones or views), so a
        tensor that owns exactly its rows is kept as it is and a cropped view is copied."""
        layers = []
        for layer in self._cache.layers:
            kv = []
            for t in (layer.keys, layer.values):
                owns = t.is_contiguous() and t.untyped_storage().nbytes() == t.numel() * t.element_size()
                kv.append(t if owns else t.clone())
            layers.append(tuple(kv))
        return tuple(layers), sum(t.numel() * t.element_size() for kv in layers for t in kv)

    def restore(self, snapshot: Any, ids: Sequence[int]) -> None:
        self.reset()
        for n, (keys, values) in enumerate(snapshot):
            self._cache.update(keys, values, n)  # copies: the snapshot stays as it was
        self._ids = list(ids)
        assert self._cache.get_seq_length() == len(self._ids)
