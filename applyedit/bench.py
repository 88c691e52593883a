"""`applyedit bench`: plain greedy vs transformers' prompt lookup vs applyedit, one model, one prompt.

Owns running the methods side by side on one loaded model (same dtype, threads, prompt, budget and
end-of-turn ids), counting every target forward pass with a hook, checking that the outputs agree,
and the result table. Speed is reported here, never asserted in tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from applyedit import api, prompts, textio
from applyedit.backend import chat_ids
from applyedit.diff import diff_path


def _count_forwards(model: Any) -> list[int]:
    counter = [0]

    def hook(*_: Any) -> None:
        counter[0] += 1

    model.register_forward_pre_hook(hook)
    return counter


def _generate(engine: api.Engine, prompt_ids: list[int], budget: int, counter: list[int], **kwargs: Any) -> dict[str, Any]:
    """One `model.generate` run (greedy), timed, with its forward passes counted."""
    import torch

    model = engine.model.model
    ids = torch.tensor([prompt_ids], device=engine.device)
    eos = sorted(engine.model.eos_ids)
    before = counter[0]
    t0 = time.perf_counter()
    out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False, max_new_tokens=budget,
                         eos_token_id=eos, pad_token_id=eos[0], top_p=None, top_k=None, temperature=None,
                         **kwargs)
    wall = time.perf_counter() - t0
    tokens = out[0, len(prompt_ids):].tolist()
    while tokens and tokens[-1] in engine.model.eos_ids:
        tokens.pop()
    return {"tokens": tokens, "wall_s": wall, "passes": counter[0] - before - 1, "text": engine.decode(tokens)}


def bench_one(
    file: Path,
    edit: str,
    *,
    model: str | None = None,
    device: str | None = None,
    dtype: str | None = None,
    k: int = api.DEFAULT_K,
    k_policy: str = "adaptive",
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Run the three methods on one file and edit; return the results as data."""
    import torch

    engine = api.Engine.open(model, device, dtype)
    counter = _count_forwards(engine.model.model)
    src = textio.read_source(file)
    edit_text = textio.extract_edit(edit, src.language)
    fence = textio.fence_for(src.text, edit_text)
    prompt = prompts.build(diff_path(file), src.language, src.text, edit_text, fence)
    prompt_ids = chat_ids(engine.tokenizer, prompt.system, prompt.user, prompt.assistant_prefix)
    budget = api.output_budget(len(engine.encode(src.text)), len(engine.encode(edit_text)))
    rows: dict[str, dict[str, Any]] = {}

    # Prefill alone, measured once: the floor every method pays before its first token.
    t0 = time.perf_counter()
    engine.model.reset()
    engine.model.forward(prompt_ids, num_logits=1)
    prefill_s = time.perf_counter() - t0
    log(f"bench: prompt {len(prompt_ids)} tokens, prefill {prefill_s:.1f} s, budget {budget}, threads {torch.get_num_threads()}")

    def record(name: str, row: dict[str, Any]) -> None:
        rows[name] = row
        log(f"bench: {name}: {len(row['tokens'])} tokens, {row['passes']} passes, {row['wall_s']:.1f} s")

    log("bench: plain greedy (model.generate)…")
    record("greedy", _generate(engine, prompt_ids, budget, counter))
    log("bench: transformers prompt lookup (prompt_lookup_num_tokens=10)…")
    record("prompt_lookup", _generate(engine, prompt_ids, budget, counter, prompt_lookup_num_tokens=10))
    log(f"bench: applyedit (copy proposer, {k_policy} k ≤ {k})…")
    t0 = time.perf_counter()
    # The bench measures speed and agreement, not edit quality: output checks are off here.
    engine.cost_curve()  # calibrated once and cached: not part of any method's time
    result = api.apply(file, edit, engine=engine, k=k, k_policy=k_policy, allow_markers=True)
    wall = time.perf_counter() - t0
    record("applyedit", {"tokens": result.decode.tokens, "wall_s": wall, "passes": result.summary.passes,
                         "text": result.output})

    bodies = {name: _body(row["text"], fence) for name, row in rows.items()}
    reference = rows["greedy"]["tokens"]
    agree = all(bodies[n] == bodies["greedy"] for n in rows) and all(
        reference[: len(r["tokens"])] == r["tokens"] for r in rows.values())
    for name, row in rows.items():
        row["num_tokens"] = len(row.pop("tokens"))
        row.pop("text")
        row["tokens_per_s"] = row["num_tokens"] / row["wall_s"]
        row["tokens_per_pass"] = row["num_tokens"] / max(1, row["passes"])
        row["speedup_vs_greedy"] = rows["greedy"]["wall_s"] / row["wall_s"]
    return {
        "file": str(file), "model": engine.source.name, "device": engine.device, "dtype": engine.dtype_name,
        "threads": torch.get_num_threads(), "prompt_tokens": len(prompt_ids), "prefill_s": prefill_s,
        "budget": budget, "outputs_agree": agree, "methods": rows,
    }


def _body(text: str, fence: str) -> str | None:
    try:
        return textio.extract_body(text, fence)
    except Exception:
        return None
