"""TorchModel.load on the CPU: the fp32 fast-load copy gives the very model the plain load gives.

Tiny Qwen2 models are saved to a temp folder with `save_pretrained`, as a model directory would
hold them; APPLYEDIT_HOME points at a temp cache, so the copy is written and read there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

from applyedit.models.torchmodel import TorchModel
from applyedit.models.kernels import CPU_LAYOUT, load_cpu_weights, use_cpu_kernels
from applyedit.errors import ModelError
from applyedit.models.modelstore import cpu_weights_file

IDS = [5, 17, 3, 99, 42, 7, 7, 250, 0, 64]


def save_tiny(dest: Path, tied: bool, seed: int = 0) -> Path:
    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=256,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=0,
        tie_word_embeddings=tied,
    )
    Qwen2ForCausalLM(config).save_pretrained(dest)
    return dest


def logits(model: TorchModel) -> torch.Tensor:
    model.reset()
    return model.forward(IDS, num_logits=len(IDS))


def layout(model: TorchModel) -> dict[str, tuple[tuple[int, ...], tuple[int, ...], torch.dtype]]:
    return {n: (tuple(p.shape), p.stride(), p.dtype) for n, p in model.model.state_dict().items()}


@pytest.fixture
def tok(tokenizer: tuple[Path, Any]) -> Any:
    return tokenizer[1]  # the real tokenizer: stop ids come from it


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("APPLYEDIT_HOME", str(tmp_path / "home"))
    return tmp_path


@pytest.mark.parametrize("tied", [False, True])
def test_second_load_maps_the_copy_and_matches_bit_for_bit(home: Path, tok: Any, tied: bool) -> None:
    path = save_tiny(home / "model", tied)
    assert not cpu_weights_file(path).exists()
    first = TorchModel.load(path, "cpu", torch.float32, tok)
    copy = cpu_weights_file(path)
    assert copy.is_file(), "the first CPU fp32 load writes the fast-load copy"
    second = TorchModel.load(path, "cpu", torch.float32, tok)
    assert torch.equal(logits(first), logits(second))
    assert layout(first) == layout(second)  # same strides: the transposed Linear layout survives
    assert second.eos_ids == first.eos_ids
    head, embed = second.model.lm_head.weight, second.model.model.embed_tokens.weight
    assert (head.data_ptr() == embed.data_ptr()) == tied
    # The second load really came from the copy: its weights are views of the mapped file.
    direct = load_cpu_weights(path, copy, first.kernels)
    assert torch.equal(direct.model.layers[0].mlp.up_proj.weight, second.model.model.layers[0].mlp.up_proj.weight)


def test_damaged_copy_is_rebuilt_not_trusted(home: Path, tok: Any) -> None:
    path = save_tiny(home / "model", tied=False)
    reference = logits(TorchModel.load(path, "cpu", torch.float32, tok))
    copy = cpu_weights_file(path)
    size = copy.stat().st_size
    with copy.open("r+b") as f:
        f.truncate(size // 2)
    with pytest.raises(Exception):
        load_cpu_weights(path, copy, "onednn")
    again = TorchModel.load(path, "cpu", torch.float32, tok)
    assert torch.equal(logits(again), reference)
    assert copy.stat().st_size == size, "the damaged copy was written again"


def test_copy_of_another_layout_is_refused(home: Path, tok: Any) -> None:
    from safetensors.torch import save_file

    path = save_tiny(home / "model", tied=False)
    TorchModel.load(path, "cpu", torch.float32, tok)
    copy = cpu_weights_file(path)
    save_file({"x": torch.zeros(2)}, str(copy), metadata={"layout": CPU_LAYOUT + "/onednn", "transposed": "[]"})
    with pytest.raises(ValueError, match="layout"):
        load_cpu_weights(path, copy, "mkl")  # a copy for other kernels is refused


def test_changed_weights_get_a_new_copy(home: Path, tok: Any) -> None:
    path = save_tiny(home / "model", tied=False, seed=0)
    before = logits(TorchModel.load(path, "cpu", torch.float32, tok))
    old_copy = cpu_weights_file(path)
    save_tiny(path, tied=False, seed=1)  # the same folder, new weights
    assert cpu_weights_file(path) != old_copy
    after = logits(TorchModel.load(path, "cpu", torch.float32, tok))
    assert not torch.equal(before, after)
    fresh = Qwen2ForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    use_cpu_kernels(fresh, torch.float32)  # the CPU kernels and layout, so the comparison can be exact
    assert torch.equal(after, fresh(torch.tensor([IDS])).logits[0].float())


def test_other_dtypes_write_no_copy(home: Path, tok: Any) -> None:
    path = save_tiny(home / "model", tied=False)
    TorchModel.load(path, "cpu", torch.bfloat16, tok)
    assert not cpu_weights_file(path).exists()


def test_cpu_kernels_compute_what_plain_linear_layers_compute(home: Path, tok: Any) -> None:
    """Both CPU kernel choices give the logits of the untouched transformers model (to rounding)."""
    path = save_tiny(home / "model", tied=False)
    plain = Qwen2ForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    expected = plain(torch.tensor([IDS])).logits[0]
    loaded = TorchModel.load(path, "cpu", torch.float32, tok)
    assert loaded.kernels == "onednn"  # the op exists in the pinned torch on x86
    assert type(loaded.model.lm_head).__name__ == "OneDNNLinear"
    torch.testing.assert_close(logits(loaded), expected, rtol=1e-4, atol=1e-5)
    fallback = Qwen2ForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    transposed = TorchModel(model=fallback, eos_ids=frozenset(), kernels="mkl")
    from applyedit.models.kernels import transpose_linear_weights

    transpose_linear_weights(fallback)
    ptrs = [m.weight.data_ptr() for m in fallback.modules() if isinstance(m, torch.nn.Linear)]
    transpose_linear_weights(fallback)  # a second call (a fast-load copy already laid out) copies nothing
    assert ptrs == [m.weight.data_ptr() for m in fallback.modules() if isinstance(m, torch.nn.Linear)]
    torch.testing.assert_close(logits(transposed), expected, rtol=1e-4, atol=1e-5)


def test_the_mkl_fallback_can_be_forced(home: Path, tok: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save_tiny(home / "model", tied=False)
    onednn = TorchModel.load(path, "cpu", torch.float32, tok)
    monkeypatch.setenv("APPLYEDIT_CPU_KERNELS", "mkl")
    mkl = TorchModel.load(path, "cpu", torch.float32, tok)  # refuses the onednn copy, writes its own
    assert (onednn.kernels, mkl.kernels) == ("onednn", "mkl")
    assert type(mkl.model.lm_head) is torch.nn.Linear and not mkl.model.lm_head.weight.is_contiguous()
    torch.testing.assert_close(logits(mkl), logits(onednn), rtol=1e-4, atol=1e-5)
    monkeypatch.setenv("APPLYEDIT_CPU_KERNELS", "fast")
    with pytest.raises(ModelError, match="APPLYEDIT_CPU_KERNELS"):
        TorchModel.load(path, "cpu", torch.float32, tok)


@pytest.mark.parametrize("length", [63, 64, 67, 70, 1030])
def test_padded_prompt_chunks_leave_the_cache_and_logits_as_without(
    home: Path, tok: Any, length: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prompt chunk of PAD_MIN rows or more is padded to a multiple of PAD_ROWS and the padding
    cropped: the cache holds exactly the real tokens, and the logits (of the prompt's last tokens and
    of the next pass) are those of the model over the real tokens alone."""
    import applyedit.models.torchmodel as backend

    path = save_tiny(home / "model", tied=False)
    model = TorchModel.load(path, "cpu", torch.float32, tok)
    ids = [(i * 37) % 250 + 3 for i in range(length)]
    plain = Qwen2ForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    use_cpu_kernels(plain, torch.float32)
    with torch.inference_mode():
        expected = plain(torch.tensor([ids + [5, 9]])).logits[0]
    seen: list[int] = []
    real_call = model.model.forward
    monkeypatch.setattr(model.model, "forward", lambda **kw: seen.append(kw["input_ids"].shape[1]) or real_call(**kw))
    model.reset()
    got = model.forward(ids, num_logits=2)
    assert model.cached_len == length == model._cache.get_seq_length()
    assert all(n % backend.PAD_ROWS == 0 for n in seen if n >= backend.PAD_MIN)
    assert sum(seen) >= length and (sum(seen) > length) == any(
        n % backend.PAD_ROWS
        for n in (min(length - i, backend.PREFILL_CHUNK) for i in range(0, length, backend.PREFILL_CHUNK))
        if n >= backend.PAD_MIN
    )
    torch.testing.assert_close(got, expected[length - 2 : length], rtol=1e-4, atol=1e-4)
    after = model.forward([5, 9], num_logits=2)  # the next pass sees only the real tokens
    torch.testing.assert_close(after, expected[length:], rtol=1e-4, atol=1e-4)
    seen.clear()
    model.forward(
        [(i * 11) % 250 + 3 for i in range(65)], num_logits=65
    )  # a verify block of 65 rows: every row's logits, no padding
    assert seen == [65] and model.cached_len == length + 2 + 65
