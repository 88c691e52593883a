"""Verify-pass cost of the default model on this CPU with each matmul kernel, in one process.

Loads the default model once (torch, fp32, CPU) and times forward passes over blocks of n new tokens
on an 800-token cached prefix, switching every Linear between oneDNN's inner product ("onednn", the
default, on the plain weights) and MKL's sgemm ("mkl", the fallback: torch's own Linear on the
transposed weights `transpose_linear_weights` makes, its faster layout) between interleaved repeats;
prints the minimum of 3 per n, and one 1024-token prefill each. Holds both weight layouts (2 × 7 GB).

    .venv/bin/python docs/bench/cpu_kernels.py
"""

from __future__ import annotations

import time

import torch

from applyedit.models import modelstore
from applyedit.models.torchmodel import TorchModel, load_tokenizer

BLOCKS = (1, 2, 3, 5, 9, 17, 33, 65)


def main() -> None:
    torch.set_grad_enabled(False)
    path = modelstore.default_model_dir()
    model = TorchModel.load(path, "cpu", torch.float32, load_tokenizer(path))
    assert model.kernels == "onednn", "run without APPLYEDIT_CPU_KERNELS"
    linears = [m for m in model.model.modules() if isinstance(m, torch.nn.Linear)]
    plain = [m.weight for m in linears]
    transposed = [torch.nn.Parameter(w.detach().t().contiguous().t(), requires_grad=False) for w in plain]
    kinds = {"onednn": (type(linears[0]), plain), "mkl": (torch.nn.Linear, transposed)}

    def use(kind: str) -> None:
        cls, weights = kinds[kind]
        for m, w in zip(linears, weights):
            m.__class__, m.weight = cls, w

    prefix = [(i * 7919) % 30000 + 100 for i in range(800)]
    best = {kind: dict.fromkeys(BLOCKS, float("inf")) for kind in kinds}
    for _ in range(3):
        for kind in kinds:
            use(kind)
            model.reset()
            model.forward(prefix, 1)
            for n in BLOCKS:
                t0 = time.perf_counter()
                model.forward([(i * 104729) % 30000 + 100 for i in range(n)], n)
                best[kind][n] = min(best[kind][n], time.perf_counter() - t0)
                model.crop_to(len(prefix))
    for kind in kinds:
        use(kind)
        model.reset()
        t0 = time.perf_counter()
        model.forward(prefix + prefix[:224], 1)
        prefill = time.perf_counter() - t0
        passes = ", ".join(f"{n}: {1000 * s:.0f}" for n, s in best[kind].items())
        print(f"{kind}: ms per pass over n tokens {{{passes}}}; prefill of 1024 tokens {prefill:.1f} s")


if __name__ == "__main__":
    main()
