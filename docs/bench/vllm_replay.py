"""Replay vLLM's drafters on recorded outputs: exact draft and acceptance counts per method, and the time
each would take at a verify cost measured on the same engine (`vllm_cost.py`).

Why a replay: greedy output does not depend on the drafter (speculation is lossless), so with a case's
prompt and its greedy output known, each drafter's proposals, the tokens the target would accept and
the length of every verify pass follow exactly, with no model. The drafters are vLLM's own classes,
called through the same methods vLLM calls: `NgramProposer.batch_propose` (vllm.v1.spec_decode),
`SuffixDecodingProposer.propose` (Arctic Inference's suffix trees, where `arctic-inference` is
installed) and applyedit's `CopyDrafter.propose`. What a replay does not measure is time: each pass is
charged the seconds `vllm_cost.py` measured for a pass verifying that many draft tokens, in that
case's context, on the same engine (prefill too). Wall-clock runs (`vllm_bench.py`) check the model on
the cases that fit the session.

Run in the vLLM venv:

    python docs/bench/vllm_replay.py OUTPUTS.jsonl COST.jsonl [--k 16] > replay.jsonl

OUTPUTS.jsonl: lines of `vllm_bench.py` (any method: the replay takes each case's output ids from the
first line of that case, and checks that every other line of the case has the same ids). COST.jsonl:
lines of `vllm_cost.py` (a case's curve is interpolated by prompt length between the measured
prompts: the weights, read once per pass, dominate a pass on this model; the context adds a little).
Each output line: method, case, output tokens, passes, drafted and accepted
tokens, modeled seconds and tokens/s, and the drafts' lengths pass by pass.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vllm_bench import case_prompt  # noqa: E402

MAX_LEN = 8192
Propose = Callable[[list[int], list[int]], list[int]]  # (row ids so far, tokens sampled last pass) -> draft


def config(k: int, **spec: object) -> SimpleNamespace:
    """The parts of a VllmConfig that the drafters read."""
    return SimpleNamespace(
        speculative_config=SimpleNamespace(num_speculative_tokens=k, **spec),
        model_config=SimpleNamespace(max_model_len=MAX_LEN, tokenizer=None, trust_remote_code=False),
        scheduler_config=SimpleNamespace(max_num_seqs=4),
        parallel_config=SimpleNamespace(tensor_parallel_size=1),
        device_config=SimpleNamespace(device_type="cpu"),
    )


def row(ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    buf = np.zeros((1, MAX_LEN), dtype=np.int32)
    buf[0, : len(ids)] = ids
    return buf, np.array([len(ids)], dtype=np.int32)


def ngram(k: int, lo: int, hi: int) -> Callable[[], Propose]:
    from vllm.v1.spec_decode.ngram_proposer import NgramProposer

    def make() -> Propose:
        proposer = NgramProposer(config(k, prompt_lookup_min=lo, prompt_lookup_max=hi))

        def propose(ids: list[int], sampled: list[int]) -> list[int]:
            buf, n = row(ids)
            return proposer.propose(k, [sampled], n, buf)[0]

        return propose

    return make


def suffix(k: int) -> Callable[[], Propose]:
    from vllm.v1.spec_decode.suffix_decoding import SuffixDecodingProposer

    def make() -> Propose:
        proposer = SuffixDecodingProposer(
            config(
                k,
                suffix_decoding_max_tree_depth=24,
                suffix_decoding_max_cached_requests=10000,
                suffix_decoding_max_spec_factor=1.0,
                suffix_decoding_min_token_prob=0.1,
            )
        )
        prompt_len: list[int] = []

        def propose(ids: list[int], sampled: list[int]) -> list[int]:
            if not prompt_len:
                prompt_len.append(len(ids) - len(sampled))
            buf, n = row(ids)
            batch = SimpleNamespace(
                req_ids=["r"],
                req_id_to_index={"r": 0},
                num_tokens_no_spec=n,
                num_prompt_tokens=[prompt_len[0]],
                token_ids_cpu=buf,
            )
            return list(proposer.propose(k, batch, [sampled]))[0]

        return propose

    return make


def applyedit(k: int, tokenizer: str) -> Callable[[], Propose]:
    from applyedit.models.vllmdraft import CopyDrafter

    def make() -> Propose:
        cfg = config(k)
        cfg.model_config.tokenizer = tokenizer
        drafter = CopyDrafter(cfg)
        drafter.load_model()

        def propose(ids: list[int], sampled: list[int]) -> list[int]:
            buf, n = row(ids)
            return drafter.propose([sampled], n, buf)[0]

        return propose

    return make


def replay(
    propose: Propose, prompt: list[int], target: list[int], clock: list[float] | None = None
) -> list[tuple[int, int]]:
    """(drafted, accepted) per verify pass after the prefill (which samples the first token); `clock`
    gets the seconds spent drafting added to its first item."""
    out, passes, sampled = [target[0]], [], [target[0]]
    while len(out) < len(target):
        t0 = time.perf_counter()
        draft = propose(prompt + out, sampled)
        if clock is not None:
            clock[0] += time.perf_counter() - t0
        rest = target[len(out) :]
        accepted = 0
        while accepted < min(len(draft), len(rest)) and draft[accepted] == rest[accepted]:
            accepted += 1
        sampled = rest[: accepted + 1]
        out += sampled
        passes.append((len(draft), accepted))
    return passes


def pass_cost(curve: dict[int, float], drafted: int) -> float:
    """Seconds of a pass verifying `drafted` tokens: measured points, linear in between and beyond."""
    points = sorted(curve)
    if drafted in curve:
        return curve[drafted]
    lo = max((p for p in points if p < drafted), default=points[0])
    hi = min((p for p in points if p > drafted), default=points[-1])
    if hi == lo:  # beyond the last point: the last slope
        lo, hi = points[-2], points[-1]
    return curve[lo] + (curve[hi] - curve[lo]) * (drafted - lo) / (hi - lo)


def cost_at(measured: list[tuple[int, float, dict[int, float]]], length: int) -> tuple[float, dict[int, float]]:
    """The prefill seconds and pass-cost curve at a prompt of `length` tokens: linear between the two
    measured prompts around it (beyond them: along the nearest two)."""
    measured = sorted(measured)
    if len(measured) == 1:
        return measured[0][1], measured[0][2]
    i = next((j for j in range(1, len(measured) - 1) if measured[j][0] >= length), len(measured) - 1)
    (a, pa, ca), (b, pb, cb) = measured[i - 1], measured[i]
    w = (length - a) / (b - a)
    return pa + w * (pb - pa), {d: ca[d] + w * (cb[d] - ca[d]) for d in ca}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("outputs")
    parser.add_argument("cost")
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--methods", default="greedy,ngram,ngram5,suffix,applyedit")
    args = parser.parse_args()

    from applyedit.models import modelstore

    targets: dict[str, list[int]] = {}
    for line in Path(args.outputs).read_text().splitlines():
        rec = json.loads(line)
        known = targets.setdefault(rec["case"], rec["ids"])
        if known != rec["ids"]:
            print(f"{rec['case']}: {rec['method']} output differs from the first line's", file=sys.stderr)
    measured = []
    for line in Path(args.cost).read_text().splitlines():
        rec = json.loads(line)
        measured.append((rec["prompt_tokens"], rec["prefill_s"], {int(d): s for d, s in rec["pass_s"].items()}))
    k = args.k
    makers: dict[str, Callable[[], Propose]] = {
        "greedy": lambda: lambda ids, sampled: [],  # no drafts: one token per pass
        "ngram": ngram(k, 2, 5),  # the settings vllm_bench.py runs
        "ngram5": ngram(k, 5, 5),  # vLLM's defaults
        "suffix": lambda: suffix(k)(),
        "applyedit": applyedit(k, str(modelstore.default_model_dir())),
    }
    for case, target in targets.items():
        prompt = case_prompt(case)
        prefill, curve = cost_at(measured, len(prompt))
        for method in args.methods.split(","):
            clock = [0.0]
            passes = replay(makers[method](), prompt, target, clock)
            seconds = prefill + sum(pass_cost(curve, d) for d, _ in passes)
            print(
                json.dumps(
                    {
                        "method": method,
                        "k": k,
                        "case": case,
                        "prompt_tokens": len(prompt),
                        "tokens": len(target),
                        "passes": len(passes) + 1,
                        "drafted": sum(d for d, _ in passes),
                        "accepted": sum(a for _, a in passes),
                        "seconds": round(seconds, 2),
                        "tokens_per_s": round(len(target) / seconds, 3),
                        "drafting_s": round(clock[0], 3),  # the drafter's own time, this replay's (not in seconds)
                        "drafts": [d for d, _ in passes],
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
