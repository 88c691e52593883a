"""What a verify pass costs at the contexts the bench's cases run at, and each loop run's bound priced there.

`applyedit bench` prices its bound (the perfect drafter: the output itself as the draft, up to the K
cap) on the cost curve that `model calibrate` measures over a 512-token prefix. A case's passes run
over its whole prompt and the output so far (350 to about 6,000 tokens in the bench suite), and a
block's attention grows with that context while the curve does not. This script measures t(k) over
several prefix lengths on one loaded model (one prefill, extended from length to length; the
minimum of 3 interleaved rounds per point, as `model calibrate` takes it), then, for every loop run
in the given bench records:

- `modelled`: the run's own recorded passes (`pattern`: each block's length), each priced at its
  own context (prompt plus the tokens emitted before it), against the measured `forward_s`: how much
  of the measured decode time the per-context curve explains;
- `bound`: the perfect drafter after the same prefill (the prefill yields the first token; then
  passes of up to K + 1 tokens until the end-of-sequence token), each pass priced at its context;
- `efficiency = bound / measured decode time`, the issue-19 metric with the bound priced where the
  run's passes ran.

    .venv/bin/python docs/bench/context_cost.py docs/bench/issue19-suite-llamacpp.json \
        --json docs/bench/issue19-context-cost.json

Run it on a quiet machine (the curves are timings). Knows nothing the product does not: the model is
the engine's, the passes are the bench record's.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from applyedit.models.costmodel import PROBE_KS, CostCurve, probe_ids, time_blocks
from applyedit.models.engine import Engine

PREFIXES = (512, 1024, 2048, 4096, 6144)
REPS = 3


def measure(engine: Engine, prefixes: tuple[int, ...]) -> dict[int, CostCurve]:
    """t(k) over each prefix length: the cache grows once, the probe blocks are cropped away."""
    model = engine.model
    model.reset()
    ids = probe_ids(max(prefixes))
    curves, have = {}, 0
    for prefix in prefixes:
        model.forward(ids[have:prefix], num_logits=1)
        have = prefix
        points = time_blocks(model, prefix, PROBE_KS, reps=REPS, max_reps=REPS)  # exactly REPS rounds
        curves[prefix] = CostCurve(points, "calibrated")
        print(f"prefix {prefix}: " + ", ".join(f"t({k}) {v * 1000:.0f} ms" for k, v in points.items()), flush=True)
    model.reset()
    return curves


def price(curves: dict[int, CostCurve], k: int, context: int) -> float:
    """t(k) at `context`: linear between the measured prefixes, the last segment's slope beyond."""
    xs = sorted(curves)
    lo, hi = (xs[0], xs[1]) if context <= xs[1] else (xs[-2], xs[-1])
    for a, b in zip(xs, xs[1:], strict=False):
        if a <= context <= b:
            lo, hi = a, b
    ta, tb = curves[lo](k), curves[hi](k)
    return ta + (context - lo) * (tb - ta) / (hi - lo)


def perfect(curves: dict[int, CostCurve], prompt: int, num_tokens: int, k_cap: int) -> float:
    """The perfect drafter's decode phase: after the prefill's first token, the rest and the end token
    in passes of up to `k_cap` drafts plus the bonus token, each at its context."""
    seconds, left, context = 0.0, num_tokens, prompt + 1
    while left > 0:
        k = max(0, min(k_cap, left - 1))
        seconds += price(curves, k, context)
        context += k + 1
        left -= k + 1
    return seconds


def analyse(records: list[Path], curves: dict[int, CostCurve]) -> list[dict[str, Any]]:
    rows = []
    for path in records:
        record = json.loads(path.read_text())
        methods = {m["name"]: m for m in _methods(record)}
        for case, raw in record["raw"].items():
            for name, runs in raw["runs"].items():
                method = methods.get(name)
                if method is None or method["runner"] != "loop" or not runs or "pattern" not in runs[0]:
                    continue
                per_run = []
                for run in runs:
                    blocks, emitted = run["pattern"]["blocks"], run["pattern"]["emitted"]
                    context, modelled = raw["prompt_tokens"], 0.0
                    for block, kept in zip(blocks, emitted, strict=True):
                        modelled += price(curves, block - 1, context)
                        context += kept
                    n = sum(emitted)
                    bound = perfect(curves, raw["prompt_tokens"], n, method["k"] or 64)
                    decode = run["wall_s"] - run["ttft_s"]
                    per_run.append((modelled, run["profile"]["forward_s"], bound, decode, len(blocks), n))
                med = [statistics.median(col) for col in zip(*per_run, strict=True)]
                greedy = [r for m, rs in raw["runs"].items() if _is_greedy(methods.get(m)) for r in rs]
                g_wall = statistics.median(r["wall_s"] for r in greedy) if greedy else None
                g_decode = statistics.median(r["wall_s"] - r["ttft_s"] for r in greedy) if greedy else None
                g_ttft = statistics.median(r["ttft_s"] for r in greedy) if greedy else None
                rows.append(
                    {
                        "record": str(path),
                        "case": case,
                        "method": name,
                        "prompt_tokens": raw["prompt_tokens"],
                        "tokens": int(med[5]),
                        "passes": med[4],
                        "modelled_forward_s": med[0],
                        "measured_forward_s": med[1],
                        "bound_decode_s": med[2],
                        "measured_decode_s": med[3],
                        "efficiency_decode": med[2] / med[3],
                        # what the bound allows against plain greedy: decode, and end to end after
                        # greedy's own time to the first token (the prefill)
                        "greedy_decode_s": g_decode,
                        "greedy_wall_s": g_wall,
                        "bound_decode_x_greedy": g_decode / med[2] if g_decode else None,
                        "bound_wall_x_greedy": g_wall / (g_ttft + med[2]) if g_wall and g_ttft else None,
                    }
                )
    return rows


def _is_greedy(method: dict[str, Any] | None) -> bool:
    """Plain greedy on the bench's own backend (the ratios' baseline)."""
    return bool(method) and method["runner"] == "generate" and not method["lookup"] and not method["backend"]


def _methods(record: dict[str, Any]) -> list[dict[str, Any]]:
    for case in record["cases"].values():
        return [m["method"] for m in case["methods"].values()]
    return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--curves", type=Path, help="reuse the curves of an earlier --json instead of measuring")
    args = parser.parse_args()
    if args.curves:
        saved = json.loads(args.curves.read_text())["curves"]
        curves = {int(p): CostCurve({int(k): v for k, v in c.items()}, "cache") for p, c in saved.items()}
    else:
        engine = Engine.open(backend="llamacpp")
        curves = measure(engine, PREFIXES)
    rows = analyse(args.records, curves)
    print(
        "| case (prompt, tokens) | method | passes | forward s: modelled / measured | bound decode s | decode s "
        "| efficiency | bound × greedy: decode, end to end |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        allows = (
            f"{r['bound_decode_x_greedy']:.2f}×, {r['bound_wall_x_greedy']:.2f}×" if r["bound_decode_x_greedy"] else "–"
        )
        print(
            f"| {r['case']} ({r['prompt_tokens']}, {r['tokens']}) | {r['method']} | {r['passes']:g} | "
            f"{r['modelled_forward_s']:.1f} / {r['measured_forward_s']:.1f} | {r['bound_decode_s']:.1f} | "
            f"{r['measured_decode_s']:.1f} | {r['efficiency_decode']:.0%} | {allows} |"
        )
    if args.json:
        args.json.write_text(
            json.dumps({"curves": {p: c.to_json() for p, c in curves.items()}, "rows": rows}, indent=1) + "\n"
        )


if __name__ == "__main__":
    main()
