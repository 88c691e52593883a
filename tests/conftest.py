"""Fixtures shared by several test modules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from applyedit.models import modelstore
from applyedit.models.backend import load_tokenizer


@pytest.fixture(scope="session")
def tokenizer() -> tuple[Path, Any]:
    """The default model's folder and its real tokenizer (the weights are not loaded)."""
    path = modelstore.prepare(modelstore.resolve(None))
    return path, load_tokenizer(path)


@pytest.fixture(scope="module")
def one_thread() -> Any:
    """Tiny tensors gain nothing from threads, and on a busy machine their hand-offs stall for long."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
