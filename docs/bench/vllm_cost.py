"""vLLM's verify cost on this machine: seconds per pass verifying d draft tokens, in each case's context.

A custom proposer (`FixedDraft`, plugged in like applyedit's drafter) drafts exactly d tokens every
pass: a run of one token id the model almost never emits, so nearly every draft is rejected and each
pass emits one token. A pass's seconds are then the run's seconds over its passes (tokens − accepted,
from vLLM's counters). The prompt is the case's real prompt; prefix caching keeps it, so after the
first request (timed as the prefill) each request is decode passes only. Each point is the median of
`APPLYEDIT_COST_ROUNDS` rounds (3) taken in turn over the draft lengths. `vllm_replay.py` charges
every replayed pass from these curves, interpolated by prompt length between the measured cases.

Run in the vLLM venv, with nothing else running:

    PYTHONPATH=docs/bench python docs/bench/vllm_cost.py CASE... > cost.jsonl

A case is a fixture's name or FILE:EDIT in docs/bench/inputs. Each line: the case, its prompt tokens,
the prefill's seconds and {d: seconds per pass}.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from typing import Any

import vllm_bench  # first: it sets the engine's environment

DRAFTS = (0, 2, 4, 8, 12, 16, 24, 32)
K_MAX = max(DRAFTS)
TOKENS = int(os.environ.get("APPLYEDIT_COST_TOKENS", "8"))  # output tokens per measured request
ROUNDS = int(os.environ.get("APPLYEDIT_COST_ROUNDS", "3"))  # interleaved over the draft lengths; the median counts
UNLIKELY = 151643  # <|endoftext|> inside a reply: the model emits <|im_end|> instead
LENGTH = [0]  # the draft length now; set by main between requests (the engine runs in this process)


class FixedDraft:
    """A vLLM custom proposer drafting LENGTH[0] copies of an unlikely token for every row."""

    def __init__(self, vllm_config: Any) -> None:
        pass

    def load_model(self, *args: Any, **kwargs: Any) -> None:
        pass

    def propose(self, sampled_token_ids: list[list[int]], *args: Any, **kwargs: Any) -> list[list[int]]:
        return [[UNLIKELY] * LENGTH[0] if sampled else [] for sampled in sampled_token_ids]


def main() -> None:
    import vllm_cost  # this file as the module vLLM imports the proposer from (one LENGTH for both)
    from transformers import AutoTokenizer
    from vllm import SamplingParams
    from vllm_bench import case_prompt, counters

    from applyedit.models import modelstore

    tok = AutoTokenizer.from_pretrained(modelstore.default_model_dir())
    spec = {"method": "custom_class", "model": "vllm_cost.FixedDraft", "num_speculative_tokens": K_MAX}
    llm = vllm_bench.start_engine(spec, enable_prefix_caching=True)

    def run(ids: list[int], tokens: int) -> tuple[float, int]:
        before = counters(llm)
        t0 = time.perf_counter()
        llm.generate(
            [{"prompt_token_ids": ids}],
            SamplingParams(temperature=0.0, max_tokens=tokens, ignore_eos=True),
            use_tqdm=False,
        )
        seconds = time.perf_counter() - t0
        accepted = counters(llm)[2] - before[2]
        return seconds, tokens - accepted

    for case in sys.argv[1:]:
        ids = case_prompt(case, tok)
        vllm_cost.LENGTH[0] = 0
        prefill, _ = run(ids, 1)
        samples: dict[int, list[float]] = {d: [] for d in DRAFTS}
        for _ in range(ROUNDS):  # interleaved: a burst of other work spoils one round's points, not one d's
            for d in DRAFTS:
                vllm_cost.LENGTH[0] = d
                seconds, passes = run(ids, TOKENS + 1)  # the first pass is the cached prompt's last block
                first, _ = run(ids, 1)
                samples[d].append((seconds - first) / max(1, passes - 1))
        per_pass = {d: round(statistics.median(s), 4) for d, s in samples.items()}
        spread = {d: round(max(s) - min(s), 4) for d, s in samples.items()}
        print(
            json.dumps(
                {
                    "case": case,
                    "prompt_tokens": len(ids),
                    "prefill_s": round(prefill, 3),
                    "pass_s": per_pass,
                    "spread_s": spread,
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
