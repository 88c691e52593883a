"""The torch backend's CPU weights: the matmul kernels they run on and the fast-load copy.

Owns the choice of CPU matmul kernels ("onednn": oneDNN's inner product on plain weights, or "mkl":
MKL's sgemm on transposed ones; `APPLYEDIT_CPU_KERNELS` forces one), laying a model's Linear weights out
for them, and the fast-load copy: the weights saved as they sit in memory, mapped back in under a
second without converting anything. Same values either way (the tests compare logits bit for bit).
Knows nothing of decoding.
"""

from __future__ import annotations

import logging
import time
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from applyedit.errors import ModelError

if TYPE_CHECKING:
    import torch

logger = logging.getLogger(__name__)


def transpose_linear_weights(model: Any) -> int:
    """Store each Linear weight (out, in) as the transpose of a contiguous (in, out) matrix.

    `F.linear` then multiplies by a row-major (in, out) matrix, which MKL's sgemm runs 15-35 %
    faster on this project's AVX2 CPUs for the small blocks verification feeds (measured with
    `applyedit bench`). Same values; shared (tied) weights and weights already laid out so are left
    alone. The fallback of `use_cpu_kernels` where oneDNN is missing.
    """
    import torch

    embeddings = {p.data_ptr() for m in model.modules() if isinstance(m, torch.nn.Embedding) for p in m.parameters()}
    count = 0
    for module in model.modules():
        if isinstance(module, torch.nn.Linear) and module.weight.data_ptr() not in embeddings:
            w = module.weight.detach()
            if not w.t().is_contiguous():
                module.weight = torch.nn.Parameter(w.t().contiguous().t(), requires_grad=False)
            count += 1
    return count


@cache
def _onednn_linear() -> type | None:
    """A `torch.nn.Linear` whose forward is oneDNN's inner product (`mkldnn._linear_pointwise`, the op
    inductor's CPU backend emits) on the plain (out, in) weight, or None where the op is missing or
    fails a probe. On this project's 2-core AVX2 CPU it verifies blocks of 2-64 tokens far faster
    than MKL's sgemm (which packs the weights again in every call); `applyedit model calibrate`
    and `applyedit bench` measure it."""
    import torch

    op = getattr(torch.ops.mkldnn, "_linear_pointwise", None)
    if op is None or not torch.backends.mkldnn.is_available():
        return None
    try:
        x, w, b = torch.randn(3, 16), torch.randn(8, 16), torch.randn(8)
        if not torch.allclose(op(x, w, b, "none", [], ""), torch.nn.functional.linear(x, w, b), atol=1e-5):
            return None
    except Exception:  # an unsupported build: the transposed sgemm path is used instead
        return None

    class OneDNNLinear(torch.nn.Linear):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return op(x, self.weight, self.bias, "none", [], "")  # type: ignore[misc]  # checked above

    return OneDNNLinear


def cpu_kernels(dtype: torch.dtype) -> str:
    """The CPU matmul kernels for `dtype`: "onednn" (fp32 where the oneDNN op works) or "mkl" (MKL
    sgemm on transposed weights, `transpose_linear_weights`). `APPLYEDIT_CPU_KERNELS=mkl` forces the
    fallback (to measure one against the other). Which one runs is part of the cost curve's key."""
    import os

    import torch

    wanted = os.environ.get("APPLYEDIT_CPU_KERNELS", "").strip().lower()
    if wanted not in ("", "onednn", "mkl"):
        raise ModelError(f"APPLYEDIT_CPU_KERNELS={wanted!r}: use onednn or mkl")
    return "onednn" if dtype == torch.float32 and wanted != "mkl" and _onednn_linear() else "mkl"


def use_cpu_kernels(model: Any, dtype: torch.dtype) -> str:
    """Lay `model`'s Linear weights out for `cpu_kernels(dtype)` and switch to them; returns their name:
    "onednn" makes every Linear a oneDNN one on plain contiguous weights."""
    import torch

    kernels = cpu_kernels(dtype)
    if kernels == "mkl":
        transpose_linear_weights(model)
        return kernels
    onednn = _onednn_linear()
    assert onednn is not None  # cpu_kernels chose "onednn": the op is there
    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            if not module.weight.is_contiguous():
                module.weight = torch.nn.Parameter(module.weight.detach().contiguous(), requires_grad=False)
            module.__class__ = onednn
    return "onednn"


CPU_LAYOUT = "applyedit-cpu-fp32-v2"  # fast-load copy format, followed by "/<kernels>" (see `use_cpu_kernels`)


def load_pretrained(path: Path, device: str, dtype: torch.dtype) -> Any:
    """The plain transformers load, in eval mode."""
    from transformers import AutoModelForCausalLM

    try:
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, use_safetensors=True)
    except Exception as e:
        raise ModelError(f"could not load the model from {path}: {e}") from e
    return model.to(device).eval()


def save_cpu_weights(model: Any, dest: Path, kernels: str) -> None:
    """Write `model`'s weights as they sit in memory on the CPU, so `load_cpu_weights` maps them back
    without converting anything: each transposed Linear weight is stored as its contiguous (in, out)
    matrix, tied weights once. Best effort: a full disk costs the next start time, not this run."""
    import json

    from safetensors.torch import save_file

    from applyedit.models.modelstore import write_file_atomic

    tensors: dict[str, Any] = {}
    transposed: list[str] = []
    seen: set[int] = set()
    for name, t in model.state_dict().items():
        if t.data_ptr() in seen:
            continue  # a tied weight: `tie_weights` restores it on load
        seen.add(t.data_ptr())
        if t.dim() == 2 and not t.is_contiguous() and t.t().is_contiguous():
            tensors[name] = t.t()
            transposed.append(name)
        else:
            tensors[name] = t.contiguous()
    meta = {"layout": f"{CPU_LAYOUT}/{kernels}", "transposed": json.dumps(transposed)}
    t0 = time.perf_counter()
    try:
        write_file_atomic(dest, lambda tmp: save_file(tensors, str(tmp), metadata=meta))
    except OSError as e:
        logger.warning("could not write the fast-load copy %s: %s", dest, e)
        return
    logger.info("wrote the fast-load copy %s in %.1f s", dest, time.perf_counter() - t0)


def load_cpu_weights(path: Path, weights: Path, kernels: str) -> Any:
    """Build the model from `path`'s config with empty parameters and assign the mmap-backed tensors
    of a `save_cpu_weights` file written for `kernels`: the same values in the same memory layout as
    `load_pretrained` + `use_cpu_kernels` give (a test compares logits bit for bit), without touching
    them until a forward pass does."""
    import json
    from itertools import chain

    import torch
    from accelerate import init_empty_weights
    from safetensors import safe_open
    from transformers import AutoConfig, AutoModelForCausalLM, GenerationConfig

    config = AutoConfig.from_pretrained(path)
    with init_empty_weights(include_buffers=False):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    with safe_open(str(weights), framework="pt") as f:
        meta = f.metadata() or {}
        expected = f"{CPU_LAYOUT}/{kernels}"
        if meta.get("layout") != expected:
            raise ValueError(f"layout {meta.get('layout')!r}, expected {expected!r}")
        transposed = set(json.loads(meta["transposed"]))
        state = {k: f.get_tensor(k).t() if k in transposed else f.get_tensor(k) for k in f.keys()}
    result = model.load_state_dict(state, strict=False, assign=True)
    if result.unexpected_keys:
        raise ValueError(f"unexpected weights {result.unexpected_keys[:3]}")
    model.tie_weights()
    empty = [n for n, p in chain(model.named_parameters(), model.named_buffers()) if p.is_meta]
    if empty:
        raise ValueError(f"no weights for {empty[:3]}")
    if (path / "generation_config.json").is_file():
        model.generation_config = GenerationConfig.from_pretrained(path)
    return model.eval()
