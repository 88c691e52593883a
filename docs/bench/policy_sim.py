"""Price K policies offline: a bench case's real greedy output, replayed through the real loop.

For every case of a saved bench (`applyedit bench ... --json`), the plain greedy run's tokens become
the script of a scripted target (tests/fakes.py), so the real prompt, proposer and K policy run as
in the product and make the same drafts; each verify pass is then priced with the calibrated cost
curve t(k). What a policy would cost on that case, in passes and modelled seconds, comes out in a
second per case without the model, so policy changes can be compared on every bench case before a
quiet real bench confirms them (the model's seconds are the curve's, not measured).

    .venv/bin/python docs/bench/policy_sim.py docs/bench/issue6-suite-cpu-fp32.json

Knows nothing the product does not: the policies are applyedit.speculative.policy's; a variant is a class here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from fakes import ScriptedModel  # noqa: E402

from applyedit import api, merge  # noqa: E402
from applyedit.tools import bench  # noqa: E402
from applyedit.models import modelstore  # noqa: E402
from applyedit.models.device import pick_dtype  # noqa: E402
from applyedit.models.tokens import context_length, load_tokenizer  # noqa: E402
from applyedit.models.costmodel import CostCurve  # noqa: E402
from applyedit.speculative.loop import run  # noqa: E402
from applyedit.speculative.runwatch import FenceStop  # noqa: E402
from applyedit.speculative.policy import AdaptiveK, FixedK  # noqa: E402
from applyedit.speculative import registry  # noqa: E402
from applyedit.speculative.proposers import Drafter  # noqa: E402


@dataclass
class CountedAlpha(AdaptiveK):
    """A variant: the aligned acceptance α from counts (a Beta(9, 1) prior, α = 0.9 before any
    evidence), so the one rejection where an edit begins costs one miss among all the tokens copied
    so far instead of 30% of α, and K grows back as soon as the output re-aligns."""

    hits: int = 9
    misses: int = 1

    def observe(self, num_drafted: int, num_accepted: int, drafter: Drafter = "copy") -> None:
        if num_drafted == 0 or drafter == "draft-model":
            return
        rejected = num_accepted < num_drafted
        if self.alignment.aligned or not rejected:
            self.hits += num_accepted
            self.misses += rejected
            self.alpha = min(0.995, self.hits / (self.hits + self.misses))
        self.alignment.observe(num_drafted, num_accepted, drafter)
        self.k_allowed = self.k_probe if rejected else min(self.k_max, 2 * max(self.k_allowed, num_drafted))


def policies(cost: CostCurve, k_max: int) -> dict[str, Callable[[], Any]]:
    """The policies to compare, each a factory of a fresh policy object."""
    return {
        "adaptive": lambda: AdaptiveK(cost=cost, k_max=k_max),
        "counted α": lambda: CountedAlpha(cost=cost, k_max=k_max),
        "fixed 16": lambda: FixedK(16),
        "fixed 32": lambda: FixedK(32),
        "fixed 64": lambda: FixedK(64),
    }


def simulate(engine: api.Engine, target: bench.Target, script: list[int], eos: int,
             make_policy: Callable[[], Any], cost: CostCurve) -> tuple[int, float]:
    """(passes, modelled decode seconds) of one policy on one case."""
    job = api.prepare(target.file, target.edit, engine, cwd=target.cwd, language=target.language)
    model = ScriptedModel(script, eos, len(engine.tokenizer))
    merged = merge.merge(job.src.text, job.edit) if job.kind == "snippet" else None
    proposer = registry.make_proposer("copy", engine, job.src.text, job.fence, job.edit, job.kind, merged)
    result = run(model, job.prompt_ids, proposer, make_policy(), job.budget, FenceStop(engine.decode, job.fence))
    return len(result.steps), sum(cost(s.k) for s in result.steps)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench_json", type=Path)
    ap.add_argument("--curve", type=Path, help="calibration JSON (default: the cached torch fp32 CPU curve)")
    ap.add_argument("--k-max", type=int, default=64)
    args = ap.parse_args(argv)
    saved = json.loads(args.bench_json.read_text())
    source = modelstore.resolve(None)
    path = modelstore.prepare(source)
    tokenizer = load_tokenizer(path)
    engine = api.Engine(source, path, tokenizer, "cpu", pick_dtype("fp32", "cpu"), context_length(path))
    curve_file = args.curve or next((modelstore.home() / "calibration").glob(f"{source.name}-torch-cpu-float32*.json"))
    cost = CostCurve({int(k): float(v) for k, v in json.loads(curve_file.read_text()).items()}, "cache")
    engine.cost = cost
    eos = tokenizer.convert_tokens_to_ids("<|im_end|>")
    targets = {t.name: t for t in bench.targets(ROOT / "fixtures", None, None, everything=True)}
    factories = policies(cost, args.k_max)
    print(f"cost curve {curve_file.name}: " + ", ".join(f"t({k})={v * 1000:.0f} ms" for k, v in sorted(cost.points.items())))
    print("case".ljust(32) + "".join(name.rjust(18) for name in factories) + "   (passes / modelled decode s)")
    totals = {name: 0.0 for name in factories}
    for name, record in saved["raw"].items():
        greedy = record.get("runs", {}).get("greedy")
        if not greedy or name not in targets:
            continue
        script = list(greedy[0]["tokens"])
        if script and script[-1] == eos:
            script = script[:-1]
        cells = []
        for label, factory in factories.items():
            passes, seconds = simulate(engine, targets[name], script, eos, factory, cost)
            totals[label] += seconds
            cells.append(f"{passes:>5} / {seconds:6.1f} s")
        print(name[:31].ljust(32) + "".join(c.rjust(18) for c in cells))
    print("total".ljust(32) + "".join(f"{v:9.1f} s".rjust(18) for v in totals.values()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
