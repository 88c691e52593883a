"""vLLM on applyedit's prompts: plain greedy, vLLM's `ngram` and `suffix`, and applyedit's copy drafter.

Run in the vLLM venv (docs/vllm.md), one method per process so each engine has the
machine's memory to itself:

    for m in greedy ngram applyedit; do
      python docs/bench/vllm_bench.py $m py_change_constant_instr go_change_timeout_instr js_delete_function_instr
    done > vllm-bench.jsonl

Each line: the method, the fixture, output tokens, seconds (`LLM.generate` of that one request,
prefill included), tokens/s, vLLM's draft and acceptance counters, the output's token ids (compare
them across methods: speculation must not change a token) and whether the output holds the fixture's
expected file. Requests run one at a time, in the order given. The model is the default model's
dequantized Hugging Face copy (`applyedit model prepare --backend torch`), float32 on the CPU.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_OMP_THREADS_BIND", "0-1")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")

K = int(os.environ.get("APPLYEDIT_VLLM_K", "8"))  # both drafters' cap (num_speculative_tokens)
METHODS = {
    "greedy": None,
    "ngram": {"method": "ngram", "num_speculative_tokens": K, "prompt_lookup_max": 5, "prompt_lookup_min": 2},
    "ngram5": {"method": "ngram", "num_speculative_tokens": K},  # vLLM's defaults: 5-grams only
    "suffix": {"method": "suffix", "num_speculative_tokens": K},  # Arctic Inference (`arctic-inference`)
    "applyedit": {
        "method": "custom_class",
        "model": "applyedit.models.vllmdraft.CopyDrafter",
        "num_speculative_tokens": K,
    },
}


def counters(llm):
    names = ("vllm:spec_decode_num_drafts", "vllm:spec_decode_num_draft_tokens", "vllm:spec_decode_num_accepted_tokens")
    got = {m.name: int(getattr(m, "value", 0)) for m in llm.get_metrics() if m.name in names}
    return [got.get(n, 0) for n in names]


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
INPUTS = Path(__file__).resolve().parent / "inputs"


def case_files(case: str) -> tuple[Path, str, Path | None]:
    """A case's file, edit and expected file: a fixture's name, or FILE:EDIT in docs/bench/inputs
    (no expected file)."""
    if ":" in case:
        file, edit = case.split(":")
        return INPUTS / file, (INPUTS / edit).read_text(encoding="utf-8"), None
    folder = FIXTURES / case
    after = next(folder.glob("after.*"))
    return next(folder.glob("before.*")), (folder / "edit.txt").read_text(encoding="utf-8"), after


def case_prompt(case: str, tok=None) -> list[int]:
    """The token ids of applyedit's prompt for `case`, as the product builds them."""
    from transformers import AutoTokenizer

    from applyedit import api, prompts, textio
    from applyedit.models import modelstore
    from applyedit.models.tokens import chat_ids

    tok = tok or AutoTokenizer.from_pretrained(modelstore.default_model_dir())
    file, edit, _ = case_files(case)
    inputs = api.read_inputs(file, edit)
    fence = textio.fence_for(inputs.src.text, inputs.edit)
    prompt = prompts.build(inputs.shown, inputs.src.language, inputs.src.text, inputs.edit, fence, inputs.kind)
    return chat_ids(tok, prompt.system, prompt.user, prompt.assistant_prefix)


def start_engine(spec: dict | None, **extra):
    """vLLM on the default model's dequantized copy, float32, as every bench script here runs it (one
    place: the cost curve must be measured on the engine the runs use)."""
    from vllm import LLM

    from applyedit.models import modelstore

    model = str(modelstore.default_model_dir())
    return LLM(
        model=model,
        dtype="float32",
        max_model_len=8192,
        enforce_eager=True,
        seed=0,
        speculative_config=spec,
        disable_log_stats=False,
        **extra,
    )


def main() -> None:
    from transformers import AutoTokenizer
    from vllm import SamplingParams

    from applyedit import api, textio
    from applyedit.models import modelstore

    method, cases = sys.argv[1], sys.argv[2:]
    tok = AutoTokenizer.from_pretrained(modelstore.default_model_dir())
    llm = start_engine(METHODS[method])
    for case in cases:
        file, edit, after = case_files(case)
        ids = case_prompt(case, tok)
        budget = api.output_budget(len(tok.encode(textio.read_source(file).text)), len(tok.encode(edit)))
        before = counters(llm)
        t0 = time.perf_counter()
        out = llm.generate(
            [{"prompt_token_ids": ids}], SamplingParams(temperature=0.0, max_tokens=budget), use_tqdm=False
        )[0].outputs[0]
        seconds = time.perf_counter() - t0
        drafts, drafted, accepted = (a - b for a, b in zip(counters(llm), before, strict=True))
        tokens = list(out.token_ids)
        expected = textio.read_source(after).text if after else None
        print(
            json.dumps(
                {
                    "method": method,
                    "k": K if METHODS[method] else 0,
                    "case": case,
                    "prompt_tokens": len(ids),
                    "tokens": len(tokens),
                    "seconds": round(seconds, 2),
                    "tokens_per_s": round(len(tokens) / seconds, 3),
                    "passes": len(tokens) - accepted,
                    "drafts": drafts,
                    "drafted": drafted,
                    "accepted": accepted,
                    "expected_file": None if expected is None else expected in out.text,
                    "ids": tokens,
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
