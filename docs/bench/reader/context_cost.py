"""What the llama.cpp context's settings for the tie-break's side-by-side reading cost the decode loop.

models/llamacpp.py creates its context with `n_seq_max = N_SEQ` and `kv_unified` on, so that the
tie-break can read its readings side by side (`forward_branches`). This measures what those settings
cost the decode loop's own forward passes: three contexts of the default GGUF in one process, the plain
settings (`n_seq_max` 1, `kv_unified` off) twice and the product's once, each holding the same prompt
prefix; then, verify block by verify block (9 tokens, every fourth a single token, as the loop's blocks
go), each context runs the same block, the three in a rotating order, and each block's time is compared
between them. The two plain contexts give the machine's noise on the same comparison.

    python docs/bench/reader/context_cost.py OUT.json [--blocks 160]

Reruns from the checkout (imports applyedit from it); nothing else should run beside it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))


def main() -> None:
    import llama_cpp

    from applyedit.models import llamacpp
    from applyedit.models.engine import Engine
    from applyedit.models.tokens import text_ids

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--blocks", type=int, default=160)
    args = parser.parse_args()
    engine = Engine.open(None, None, None, backend="llamacpp")
    ids = text_ids(engine.tokenizer, (ROOT / "fixtures/py_large_module_instr/before.py").read_text())
    init = llama_cpp.llama_init_from_model

    def load(n_seq: int, unified: bool) -> llamacpp.LlamaCppModel:
        def settings(model: object, params: llama_cpp.llama_context_params) -> object:
            params.n_seq_max, params.kv_unified = n_seq, unified
            return init(model, params)

        llama_cpp.llama_init_from_model = settings
        try:
            return llamacpp.LlamaCppModel.target(engine)
        finally:
            llama_cpp.llama_init_from_model = init

    names = ["plain", "plain again", f"n_seq_max {llamacpp.N_SEQ}, kv_unified"]
    models = [load(1, False), load(1, False), load(llamacpp.N_SEQ, True)]
    start = 2048
    for model in models:
        model.prefill(ids[:start])
    times: list[list[float]] = [[] for _ in models]
    at = start
    for n in range(args.blocks):
        size = 1 if n % 4 == 0 else 9
        order = [(n + i) % len(models) for i in range(len(models))]
        for i in order:
            t0 = time.perf_counter()
            models[i].forward(ids[at : at + size], size)
            times[i].append(time.perf_counter() - t0)
        at += size

    def compare(i: int, j: int) -> dict[str, float]:
        ratios = sorted(a / b for a, b in zip(times[i], times[j], strict=True))
        q = len(ratios) // 4
        return {
            "sum_ratio": round(sum(times[i]) / sum(times[j]), 4),
            "median_ratio": round(statistics.median(ratios), 4),
            "quartiles": [round(ratios[q], 4), round(ratios[3 * q], 4)],
        }

    record = {
        "what": "per verify block, the product's context settings against the plain ones, paired",
        "prompt_tokens": start,
        "blocks": args.blocks,
        "threads": llamacpp.threads(),
        "seconds": {name: round(sum(t), 3) for name, t in zip(names, times, strict=True)},
        "product_vs_plain": compare(2, 0),
        "product_vs_plain_again": compare(2, 1),
        "plain_again_vs_plain": compare(1, 0),
    }
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
