"""Test doubles behind the model seam: a scripted target that "generates" a fixed token script.

The real loop, proposer, checks, diff writer and CLI all run; only the forward pass is scripted
(DESIGN.md §9 "Test doubles"). The product never ships this path.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import torch

from applyedit import api
from applyedit.models import modelstore
from applyedit.models.backend import context_length, pick_dtype
from applyedit.models.kernels import use_cpu_kernels
from applyedit.models.costmodel import prior


class ScriptedModel:
    """Greedy-decodes exactly `script` (then `eos`) whatever the prompt, with a real position cache."""

    def __init__(self, script: Sequence[int], eos: int, vocab: int) -> None:
        self.script = [*script, eos]
        self.eos_ids = frozenset({eos})
        self.vocab = vocab
        self.num_forwards = 0
        self._len = 0
        self._base: int | None = None  # cache length when decoding began (prompt minus its last token)

    kernels = ""  # no matmul kernels to choose (the engine keys cost curves by them)

    @property
    def vocab_size(self) -> int:
        return self.vocab

    def reset(self) -> None:
        self._len, self._base = 0, None

    def prefill(self, ids: list[int]) -> int:
        self._len = self._base = len(ids)
        self.num_forwards += bool(ids)
        return len(ids)

    @property
    def cached_len(self) -> int:
        return self._len

    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor:
        if self._base is None:  # the first call after reset is the prefill (prompt minus its last token)
            self._base = self._len = len(ids)
            self.num_forwards += 1
            return torch.zeros(1, self.vocab)
        start = self._len
        self._len += len(ids)
        self.num_forwards += 1
        logits = torch.zeros(num_logits, self.vocab)
        first = len(ids) - num_logits
        for row in range(num_logits):
            index = start + first + row - self._base  # output index this position predicts
            logits[row, self.script[min(index, len(self.script) - 1)]] = 1.0
        return logits

    def crop_to(self, length: int) -> None:
        assert 0 <= length <= self._len
        self._len = length


def scripted_engine(tokenizer: tuple[Path, Any], text: str) -> api.Engine:
    """An Engine (real tokenizer) whose target greedily writes `text`, the raw output after the opening fence."""
    path, tok = tokenizer
    engine = api.Engine(modelstore.resolve(None), path, tok, "cpu", pick_dtype("fp32", "cpu"), context_length(path),
                        cost=prior())
    eos = tok.convert_tokens_to_ids("<|im_end|>")
    engine._model = ScriptedModel(engine.encode(text), eos, len(tok))  # type: ignore[assignment]
    return engine


@lru_cache(maxsize=None)
def tiny_qwen(seed: int, vocab: int = 256, positions: int = 512) -> Any:
    """A tiny random Qwen2 (2 layers, 64 wide) on the product's CPU kernels, for exact loop tests."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=vocab, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=positions,
        bos_token_id=0, eos_token_id=1, pad_token_id=0, tie_word_embeddings=False,
    )
    model = Qwen2ForCausalLM(config).eval()
    # Random init gives near-uniform logits; scale the head so greedy choices are well separated.
    with torch.no_grad():
        model.lm_head.weight.mul_(8.0)
    use_cpu_kernels(model, torch.float32)  # the product's CPU kernels: lossless is checked on them
    return model
