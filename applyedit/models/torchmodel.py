"""The torch backend: score token ids on top of the cached prefix, crop the cache.

Owns `ExactPrefill` (the loop backends' base: prefill that reuses a cache only when the result is the
same as a fresh run's; the seam itself is models/base.py's), the tokenizer (loading, the chat template, ids of user
text), device and dtype choice, and `TorchModel`: a transformers causal LM with its KV cache (a
`DynamicCache` that always holds exactly the accepted prefix; `crop_to(n)` is the only way it shrinks).
Loading the weights on the CPU (the matmul kernels, the fast-load copy) is kernels.py's; llama.cpp is
llamacpp.py's; the model files are the model store's. Knows nothing of proposers, K, regions or files.
"""

from __future__ import annotations

import logging
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from applyedit.errors import InputError, ModelError
from applyedit.models.base import TargetModel as TargetModel  # the loop's seam (models/base.py)
from applyedit.models.kernels import cpu_kernels, load_cpu_weights, load_pretrained, save_cpu_weights, use_cpu_kernels

if TYPE_CHECKING:
    import torch

    from applyedit.models.base import EngineView
    from applyedit.models.costmodel import CostCurve
    from applyedit.models.modelstore import ModelSource, Progress

logger = logging.getLogger(__name__)

PREFILL_CHUNK = 256  # prompt tokens per prefill forward: bounds attention memory on long files
# Chunks start at multiples of PREFILL_CHUNK from position 0, which the prompt cache relies on: it cuts
# prefixes at the same boundaries (promptcache.BLOCK), so a resumed prompt runs a fresh run's chunks.
# On the CPU, oneDNN's inner product runs some row counts far slower than their neighbours (measured,
# 1536 -> 8960 projection: 703, 697, 689 and 259 rows at 229-256 us a row, multiples of 4 at 170-200),
# which made one real prompt's prefill 25% slower than generate()'s one row longer. Prompt chunks of
# PAD_MIN rows or more are padded to a multiple of PAD_ROWS with copies of their last token; the padded
# positions come after every real one (causal attention: they touch nothing real) and are cropped off.
# Verify blocks (every row's logits wanted; 65 rows ran as fast as 64) are never padded.
PAD_MIN, PAD_ROWS = 64, 4


def check_device(device: str | None) -> None:
    """Refuse a device name torch would only reject after the weights load (`--device tpu`)."""
    if device is not None and not re.fullmatch(r"auto|cpu|cuda(:\d+)?", device):
        raise InputError(f"unknown --device {device!r}; choose cpu, cuda, cuda:N or auto")


def pick_device(device: str | None) -> str:
    import torch

    check_device(device)

    if device in (None, "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ModelError("--device cuda was asked for, but no CUDA device is available")
    return device


def pick_dtype(dtype: str | None, device: str) -> torch.dtype:
    import torch

    table = {
        "fp32": torch.float32,
        "float32": torch.float32,
        "bf16": torch.bfloat16,
        "bfloat16": torch.bfloat16,
        "fp16": torch.float16,
        "float16": torch.float16,
    }
    if dtype in (None, "auto"):
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    if dtype not in table:
        raise ModelError(f"unknown --dtype {dtype!r}; use fp32, bf16 or fp16")
    return table[dtype]


def load_tokenizer(path: Path) -> Any:
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(path)
    except Exception as e:
        raise ModelError(f"could not load the tokenizer from {path}: {e}") from e


def context_length(path: Path) -> int:
    import json

    config = json.loads((path / "config.json").read_text())
    return int(config.get("max_position_embeddings") or 32768)


def text_ids(tokenizer: Any, text: str) -> list[int]:
    """Token ids of `text` as text: a special-token string in it (`<|im_end|>`) is tokenized as the
    characters it is, never as the control token (which would end or forge a chat turn)."""
    return list(tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"])


def chat_ids(tokenizer: Any, system: str, user: str, assistant_prefix: str) -> list[int]:
    """Token ids of the chat prompt with the assistant's reply already started by `assistant_prefix`.

    The chat template's own control tokens stay control tokens; the messages and the reply's start
    (the file, the edit, the prompts around them) are tokenized as text (`text_ids`). The template is
    rendered with stand-ins for the two messages, then each part is tokenized in its own way."""
    marks = ("\x00applyedit-system\x00", "\x00applyedit-user\x00")
    messages = [{"role": "system", "content": marks[0]}, {"role": "user", "content": marks[1]}]
    frame = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    parts = re.split(f"({re.escape(marks[0])}|{re.escape(marks[1])})", frame)
    if tuple(p for p in parts if p in marks) != marks:
        raise ModelError("the model's chat template does not place the system and user messages once each")
    ids: list[int] = []
    for part in parts:
        if part in marks:
            ids += text_ids(tokenizer, system if part == marks[0] else user)
        elif part:
            ids += tokenizer(part, add_special_tokens=False)["input_ids"]
    return ids + text_ids(tokenizer, assistant_prefix)


def stop_ids(tokenizer: Any, model_eos: int | list[int] | None) -> frozenset[int]:
    """End-of-turn and end-of-text ids: any of them ends decoding."""
    ids: set[int] = set()
    for value in (model_eos, tokenizer.eos_token_id):
        if isinstance(value, int):
            ids.add(value)
        elif value:
            ids.update(value)
    for token in ("<|im_end|>", "<|endoftext|>"):
        tid = tokenizer.convert_tokens_to_ids(token)
        if isinstance(tid, int) and tid != tokenizer.unk_token_id and tid is not None:
            ids.add(tid)
    return frozenset(ids)


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
    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor: ...

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
    def wrap_tokenizer(tokenizer: Any) -> Any:
        return tokenizer

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
        return cls.load(path, engine.device, engine.dtype, engine.tokenizer)

    @staticmethod
    def check(device: str) -> None:
        pass  # it runs on every device pick_device allows

    @staticmethod
    def thread_count() -> int:
        import torch

        return torch.get_num_threads()

    @staticmethod
    def dtype_label(dtype: Any) -> str:
        return str(dtype).removeprefix("torch.")

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
