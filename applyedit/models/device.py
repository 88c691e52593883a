"""The device a run asks for, checked, the one `auto` picks, and torch's dtype.

Owns `check_device` (a name torch would only reject after the weights load: `--device tpu`),
`pick_device` ("auto": CUDA where torch sees a GPU, else the CPU) and `pick_dtype` (`--dtype` as a
torch dtype, for the backends that compute in one: it imports torch). torch is asked only where a GPU can
be there at all: with no GPU device node on the machine (/dev/nvidia*, /dev/dxg, /dev/kfd), or no
torch installed, "auto" is the CPU without importing it, so a llama.cpp run loads no torch. Knows
nothing of backends or models.
"""

from __future__ import annotations

import glob
import importlib.util
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

from applyedit.errors import InputError, ModelError

GPU_NODES = ("/dev/nvidia[0-9]*", "/dev/dxg", "/dev/kfd")  # NVIDIA; WSL's GPU; AMD's (ROCm builds of torch)


def check_device(device: str | None) -> None:
    """Refuse a device name torch would only reject after the weights load (`--device tpu`)."""
    if device is not None and not re.fullmatch(r"auto|cpu|cuda(:\d+)?", device):
        raise InputError(f"unknown --device {device!r}; choose cpu, cuda, cuda:N or auto")


def gpu_possible() -> bool:
    """Whether the machine has a GPU device node and torch is installed: only then can CUDA be there
    (the device nodes first: where there is none, torch is not even looked for)."""
    return any(glob.glob(pattern) for pattern in GPU_NODES) and importlib.util.find_spec("torch") is not None


def cuda_available() -> bool:
    """Whether torch sees a CUDA (or ROCm) device; False without importing torch where none can be."""
    if not gpu_possible():
        return False
    import torch

    return bool(torch.cuda.is_available())


def pick_device(device: str | None) -> str:
    """The device `device` names ("cuda" needs one there); None or "auto": CUDA when available, else the CPU."""
    check_device(device)
    if device in (None, "auto"):
        return "cuda" if cuda_available() else "cpu"
    if device.startswith("cuda") and not cuda_available():
        raise ModelError("--device cuda was asked for, but no CUDA device is available")
    return device


def pick_dtype(dtype: str | None, device: str) -> torch.dtype:
    """`--dtype` as torch's dtype; None or "auto": bfloat16 on CUDA, float32 on the CPU."""
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
