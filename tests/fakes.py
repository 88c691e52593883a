"""Test doubles and tiny models shared by the tests (no test module imports another).

Behind the model seam: a scripted target that "generates" a fixed token script, so the real loop,
proposer, checks, diff writer and CLI all run with only the forward pass scripted; and vLLM's engine
with no model behind it (`FakeVllm`), for the vLLM backend's own code where vLLM is not installed. For the loop's
exactness tests: tiny random Qwen2 models on the product's CPU kernels, their prompts and plain greedy
references from transformers' generate(), drafters that are always right or always wrong, and
hand-built cost curves. The product never ships this path.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch

from applyedit import api
from applyedit.models import modelstore
from applyedit.models.costmodel import CostCurve, prior
from applyedit.models.device import pick_dtype
from applyedit.models.kernels import use_cpu_kernels
from applyedit.models.tokens import context_length
from applyedit.speculative.policy import AdaptiveK, FixedK, KPolicy
from applyedit.speculative.proposers import Draft, Source

# A small Python file of two functions: the region and report tests edit it.
TWO_FUNCTIONS = """def add(a, b):
    total = a + b
    return total


def sub(a, b):
    print("debug")
    diff = a - b
    return diff
"""


class ScriptedModel:
    """Greedy-decodes exactly `script` (then `eos`) whatever the prompt, with a real position cache."""

    def __init__(self, script: Sequence[int], eos: int, vocab: int, confidence: float = 1.0) -> None:
        self.script = [*script, eos]
        self.confidence = confidence  # the scripted token's logit (the others' are 0)
        self.eos_ids = frozenset({eos})
        self.vocab = vocab
        self.num_forwards = 0
        self._len = 0
        self._base: int | None = None  # cache length when decoding began (prompt minus its last token)

    kernels = ""  # no matmul kernels to choose (the engine keys cost curves by them)
    concurrent_runs = 1
    prompt_cache = None
    on_prefill = None  # a run may set it; a script has no prefill to report

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
            logits[row, self.script[min(index, len(self.script) - 1)]] = self.confidence
        return logits

    def crop_to(self, length: int) -> None:
        assert 0 <= length <= self._len
        self._len = length


def scripted_engine(tokenizer: tuple[Path, Any], text: str, confidence: float = 1.0) -> api.Engine:
    """An Engine (real tokenizer) whose target greedily writes `text`, the raw output after the opening fence
    (`confidence`: the scripted token's logit, the others' 0; a sure model scores texts by likelihood)."""
    path, tok = tokenizer
    engine = api.Engine(
        modelstore.resolve(None), path, tok, "cpu", pick_dtype("fp32", "cpu"), context_length(path), cost=prior()
    )
    eos = tok.convert_tokens_to_ids("<|im_end|>")
    engine._model = ScriptedModel(engine.encode(text), eos, len(tok), confidence)  # type: ignore[assignment]
    return engine


CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def corpus_module(path: str) -> Any:  # noqa: ANN401 (a module)
    """A script of corpus/ (not a package module) imported by its path under corpus/ ("releases/cases"),
    once per test session."""
    key = "corpus_" + path.replace("/", "_")
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, CORPUS / f"{path}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


@lru_cache(maxsize=None)
def tiny_qwen(seed: int, vocab: int = 256, positions: int = 512) -> Any:
    """A tiny random Qwen2 (2 layers, 64 wide) on the product's CPU kernels, for exact loop tests."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=vocab,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=positions,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=0,
        tie_word_embeddings=False,
    )
    model = Qwen2ForCausalLM(config).eval()
    # Random init gives near-uniform logits; scale the head so greedy choices are well separated.
    with torch.no_grad():
        model.lm_head.weight.mul_(8.0)
    use_cpu_kernels(model, torch.float32)  # the product's CPU kernels: lossless is checked on them
    return model


# The loop's exactness tests: tiny models, their prompts and plain greedy references.
VOCAB = 256
MAX_NEW = 40
SEEDS = range(50)
# A CPU-like curve: one token cheap, any block ~4x that, slowly rising (seconds per pass).
CPU = CostCurve({0: 0.6, 1: 1.2, 2: 1.6, 4: 2.0, 8: 2.2, 16: 2.5, 32: 3.1, 64: 4.5})
# A GPU-like curve: nearly flat in k.
GPU = CostCurve({0: 0.020, 1: 0.020, 2: 0.021, 4: 0.021, 8: 0.022, 16: 0.023, 32: 0.025, 64: 0.030})
POLICIES: dict[str, Callable[[], KPolicy]] = {
    "fixed4": lambda: FixedK(4),
    "adaptive": lambda: AdaptiveK(k_max=8, k_probe=4, support_min=2),
}


def tiny_model(seed: int) -> Any:
    """The tiny Qwen2 of `seed` with VOCAB tokens."""
    return tiny_qwen(seed, VOCAB)


def prompt_for(seed: int, length: int = 24) -> list[int]:
    g = torch.Generator().manual_seed(1000 + seed)
    # Include the pad id 0 on purpose: generate() must get an explicit attention mask for it.
    ids = torch.randint(0, VOCAB, (length,), generator=g).tolist()
    ids[3] = 0
    return ids


@lru_cache(maxsize=None)
def reference(seed: int, max_new: int = MAX_NEW, eos: int | None = None) -> tuple[int, ...]:
    """Plain greedy decoding of `tiny_model(seed)` after `prompt_for(seed)`, by transformers' own generate()."""
    model, prompt = tiny_model(seed), prompt_for(seed)
    ids = torch.tensor([prompt])
    out = model.generate(
        ids,
        attention_mask=torch.ones_like(ids),
        do_sample=False,
        max_new_tokens=max_new,
        min_new_tokens=0,
        eos_token_id=eos,
        pad_token_id=VOCAB - 1,
    )
    tokens = out[0, len(prompt) :].tolist()
    if eos is not None and eos in tokens:
        tokens = tokens[: tokens.index(eos)]
    return tuple(tokens)


def noisy_copy_source(seed: int) -> Source:
    """The reference with every 7th token corrupted: the copy proposer must miss and resync."""
    ref = list(reference(seed))
    return Source("original", tuple((t + 3) % VOCAB if i % 7 == 3 else t for i, t in enumerate(ref)))


class Oracle:
    """Drafts exactly the reference continuation `ref`: under greedy decoding every draft token is kept."""

    def __init__(self, ref: Sequence[int], vocab: int = VOCAB) -> None:
        self.ref = list(ref)
        self.vocab = vocab

    def continuation(self, output: Sequence[int], k: int) -> list[int]:
        return self.ref[len(output) : len(output) + k]

    def propose(self, output: Sequence[int], k: int) -> Draft:
        return Draft(tuple(self.continuation(output, k)))

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        pass


class Contrarian(Oracle):
    """Drafts, at every position, the token after the reference's (mod `vocab`), or 7s past its end:
    under greedy decoding nothing is ever kept."""

    def propose(self, output: Sequence[int], k: int) -> Draft:
        return Draft(tuple((t + 1) % self.vocab for t in self.continuation(output, k)) or (7,) * k)


class FakeVllm:
    """vLLM's `LLM` as models/vllmengine.py drives it (`llm_engine`: `add_request`, `abort_request`,
    `step`) with no model behind it: each request finishes after `steps` engine steps of `pause`
    seconds, writing `tokens`; `steps` None: it never finishes. `held` is what the engine works on."""

    def __init__(self, vocab: int, steps: int | None = None, tokens: Sequence[int] = (), pause: float = 0.01) -> None:
        self.llm_engine = self
        self.model_config = SimpleNamespace(get_vocab_size=lambda: vocab)
        self.steps, self.tokens, self.pause = steps, list(tokens), pause
        self.held: dict[str, int | None] = {}
        self.aborted: list[str] = []

    def add_request(self, rid: str, prompt: Any, params: Any) -> None:
        self.held[rid] = self.steps

    def abort_request(self, rids: Sequence[str]) -> None:
        for rid in rids:
            self.held.pop(rid, None)
            self.aborted.append(rid)

    def step(self) -> list[Any]:
        time.sleep(self.pause)
        done = []
        for rid, left in list(self.held.items()):
            if left is not None and left <= 1:
                del self.held[rid]
                completion = SimpleNamespace(token_ids=self.tokens, finish_reason="stop", spec_decode_metrics=None)
                done.append(SimpleNamespace(request_id=rid, finished=True, outputs=[completion]))
            elif left is not None:
                self.held[rid] = left - 1
        return done


def fake_vllm_engine(tokenizer: tuple[Path, Any], fake: FakeVllm) -> api.Engine:
    """An Engine (real tokenizer) whose backend is models/vllmengine.py's, driving `fake` instead of vLLM."""
    from applyedit.models.vllmengine import VllmModel

    class Unsampled(VllmModel):
        def _params(self, request: Any) -> Any:
            return request.max_tokens  # vLLM's SamplingParams, which the fake never reads

    path, tok = tokenizer
    engine = api.Engine(
        modelstore.resolve(None), path, tok, "cpu", pick_dtype("fp32", "cpu"), context_length(path), cost=prior()
    )
    engine.backend = "vllm"
    eos = tok.convert_tokens_to_ids("<|im_end|>")
    engine._model = Unsampled(fake, tok, frozenset({eos}), 0, "cpu")  # type: ignore[assignment]
    return engine
