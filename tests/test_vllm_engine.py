"""vLLM with applyedit's copy drafter: the same tokens as vLLM's plain greedy (lossless), in batches.

vLLM runs in this process on tiny random Qwen2 models (head size 64, the default model's real
tokenizer, float32 on the CPU) built here; each test compares, request by request, the output of an
engine with `speculative_config={"method": "custom_class", "model":
"applyedit.models.vllmdraft.CopyDrafter", ...}` against an engine without speculation. A random model
writes no file, so half of the requests show it its own greedy output as the file: its drafts are
then accepted, and vLLM's own counters must say so. Skipped where vLLM is not installed (it lives in
a venv of its own: docs/vllm.md).
"""

from __future__ import annotations

import gc
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "vllm", reason="needs vLLM (requirements/vllm-cpu.txt or requirements/vllm-cuda.txt, in a venv of its own)"
)

from test_vllm import CASES, case_prompt  # noqa: E402

from applyedit import prompts, textio  # noqa: E402
from applyedit.models.tokens import chat_ids  # noqa: E402

# In-process engine core (no worker processes to spawn), both cores, a small KV cache.
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_OMP_THREADS_BIND", "0-1")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")

K = 8
MAX_LEN = 4096
WEIGHT_SEEDS = (0, 1)
PROMPT_SEEDS = range(6)
DRAFTER = {"method": "custom_class", "model": "applyedit.models.vllmdraft.CopyDrafter", "num_speculative_tokens": K}


def tiny_model(folder: Path, tok: Any, seed: int) -> Path:
    """A random 2-layer Qwen2 with head size 64 (the smallest the CPU attention takes) and the real vocabulary."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=151936, hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=1, head_dim=64, max_position_embeddings=MAX_LEN,
        eos_token_id=tok.convert_tokens_to_ids("<|im_end|>"), tie_word_embeddings=False,
    )  # fmt: skip
    model = Qwen2ForCausalLM(config).eval()
    with torch.no_grad():  # random init gives near-uniform logits: separate the greedy choices
        model.lm_head.weight.mul_(8.0)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def engine(folder: Path, speculative: dict[str, Any] | None) -> Any:
    from vllm import LLM

    return LLM(
        model=str(folder), dtype="float32", max_model_len=MAX_LEN, enforce_eager=True, seed=0,
        speculative_config=speculative, disable_log_stats=False,
    )  # fmt: skip


def counter(llm: Any, name: str) -> int:
    """A vLLM counter (the metrics are the process's: engines in one process add to the same ones)."""
    return int(sum(getattr(m, "value", 0) for m in llm.get_metrics() if m.name == name))


def generate(llm: Any, requests: list[tuple[list[int], int]]) -> list[list[int]]:
    from vllm import SamplingParams

    params = [SamplingParams(temperature=0.0, max_tokens=n) for _, n in requests]
    outs = llm.generate([{"prompt_token_ids": ids} for ids, _ in requests], params, use_tqdm=False)
    return [list(o.outputs[0].token_ids) for o in outs]


def echo_prompt(tok: Any, case: str, output: list[int]) -> list[int]:
    """applyedit's prompt for the fixture's edit on a 'file' that is the model's own greedy output."""
    _, _, inputs, _ = case_prompt(tok, case)
    text = tok.decode(output, skip_special_tokens=True).replace("`", "'") + "\n"
    fence = textio.fence_for(text, inputs.edit)
    prompt = prompts.build(inputs.shown, inputs.src.language, text, inputs.edit, fence, inputs.kind)
    return chat_ids(tok, prompt.system, prompt.user, prompt.assistant_prefix)


@pytest.fixture(scope="module", params=WEIGHT_SEEDS)
def engines(request: Any, tokenizer: Any, tmp_path_factory: Any) -> Iterator[tuple[Any, Any, Any]]:
    """(tokenizer, plain greedy engine, engine with applyedit's drafter) on one tiny model."""
    _, tok = tokenizer
    folder = tiny_model(tmp_path_factory.mktemp(f"tiny{request.param}"), tok, request.param)
    plain = engine(folder, None)
    drafted = engine(folder, DRAFTER)
    yield tok, plain, drafted
    del plain, drafted
    gc.collect()


@pytest.mark.timeout(1800)
def test_drafter_output_equals_plain_greedy_in_mixed_batches(engines: tuple[Any, Any, Any]) -> None:
    """Batches of 6 mixed requests (fixture prompts, prompts holding the model's own output, one request
    twice, different lengths), several seeds: every output equals plain greedy's, and drafts were accepted."""
    tok, plain, drafted = engines
    fitting = [c for c in CASES if len(case_prompt(tok, c)[0]) < MAX_LEN - 600]
    names = ("vllm:spec_decode_num_draft_tokens", "vllm:spec_decode_num_accepted_tokens")
    drafts = accepted = 0
    for seed in PROMPT_SEEDS:
        rng = random.Random(seed)
        cases = rng.sample(fitting, 3)
        first = generate(plain, [(case_prompt(tok, c)[0], 160) for c in cases])
        requests = [(case_prompt(tok, c)[0], rng.randint(24, 96)) for c in cases]
        requests += [(echo_prompt(tok, c, out), rng.randint(64, 160)) for c, out in zip(cases, first, strict=True)]
        requests.append(requests[-1])
        rng.shuffle(requests)
        want = generate(plain, requests)
        before = [counter(drafted, name) for name in names]
        got = generate(drafted, requests)
        drafts, accepted = (
            a + counter(drafted, name) - b for a, name, b in zip((drafts, accepted), names, before, strict=True)
        )
        assert got == want, f"prompt seed {seed}"
    print(f"drafted {drafts} tokens, {accepted} accepted")
    assert accepted > 0, (drafts, accepted)
