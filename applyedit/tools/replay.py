"""Replay a bench run's pass pattern on another device with random weights: GPU timing without the model.

Owns: reading an `applyedit bench --json` file (it saves, per loop run, every verify pass's block
length and the tokens it kept, plus the model's config.json), building a randomly initialised model
of that architecture in the chosen dtype and device, and timing, per case, plain greedy decoding (a
prefill of the prompt, then one pass per remaining token) against each recorded applyedit run (a
prefill of the prompt minus its last token, then the recorded blocks, the cache cropped to what each
pass kept, every row's argmax read as the loop reads it). A transformer's compute does not depend on
its weight values, so these wall-clock ratios are honest; the token ids are random and never used.
Knows nothing of proposers or text. Tests run it on a CPU with a shrunken config; it never needs a GPU.

    python -m applyedit.tools.replay bench.json [more.json ...] --device cuda --dtype bf16 --json replay.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from applyedit import files
from applyedit.models.device import pick_dtype
from applyedit.models.torchmodel import TorchModel

GREEDY = "plain greedy (replayed)"


def build_model(config: dict[str, Any], device: str, dtype: str, overrides: dict[str, Any] | None = None) -> TorchModel:
    """A randomly initialised model of `config`'s architecture (seeded), behind the usual seam."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    torch.manual_seed(0)
    unused = ("architectures", "transformers_version", "pad_token_id", "bos_token_id", "eos_token_id")
    fields = {k: v for k, v in config.items() if k not in unused}  # token ids: random tokens here
    if overrides and "num_hidden_layers" in overrides:
        fields.pop("layer_types", None)  # per-layer list; rebuilt for the new depth
    cfg = AutoConfig.for_model(**{**fields, **(overrides or {})})
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(cfg, dtype=pick_dtype(dtype, device)).eval()
    torch.set_grad_enabled(False)
    return TorchModel(model=model, eos_ids=frozenset(), device=device)


def _sync(device: str) -> Callable[[], None]:
    import torch

    return torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)


def time_passes(model: TorchModel, prefill: int, blocks: Sequence[int], kept: Sequence[int]) -> dict[str, float]:
    """Prefill `prefill` random tokens, then one verify pass per block, keeping `kept` tokens of each."""
    import torch

    vocab = model.model.config.vocab_size
    gen = torch.Generator().manual_seed(1)
    sync = _sync(model.device)

    def ids(n: int) -> list[int]:
        return torch.randint(0, vocab, (n,), generator=gen).tolist()

    model.reset()
    sync()
    t0 = time.perf_counter()
    model.prefill(ids(prefill))
    sync()
    t_prefill = time.perf_counter() - t0
    n = model.cached_len
    for block, keep in zip(blocks, kept, strict=True):
        logits = model.forward(ids(block), num_logits=block)
        logits.argmax(dim=-1).tolist()  # the loop reads every row's choice (and so waits for the device)
        n += keep
        model.crop_to(min(n, model.cached_len))
    sync()
    return {"prefill_s": t_prefill, "wall_s": time.perf_counter() - t0, "passes": len(blocks)}


def replay(
    bench: dict[str, Any],
    model: TorchModel,
    repeats: int = 1,
    log: Callable[[str], None] = print,
    only: Sequence[str] = (),
    greedy_repeats: int | None = None,
) -> dict[str, Any]:
    """Per case: plain greedy and every recorded loop method (those whose name contains one of
    `only`, when given), replayed `repeats` times (plain greedy `greedy_repeats` times); medians."""
    out: dict[str, Any] = {}
    greedy_repeats = repeats if greedy_repeats is None else greedy_repeats
    for name, record in bench["raw"].items():
        prompt = record["prompt_tokens"]
        runs = {
            m: rs[0]
            for m, rs in record["runs"].items()
            if rs and "pattern" in rs[0] and (not only or any(o in m for o in only))
        }
        if not runs:
            continue
        tokens = len(next(iter(runs.values()))["tokens"])
        # plain greedy: the prefill yields the first token, then one pass per remaining token
        plans = {GREEDY: (prompt, [1] * max(0, tokens - 1), [1] * max(0, tokens - 1))}
        for method, run in runs.items():
            plans[method] = (prompt - 1, run["pattern"]["blocks"], run["pattern"]["emitted"])
        rows: dict[str, Any] = {}
        for rep in range(max(repeats, greedy_repeats)):
            for method, (prefill, blocks, kept) in plans.items():
                if rep >= (greedy_repeats if method == GREEDY else repeats):
                    continue
                timing = time_passes(model, prefill, blocks, kept)
                rows.setdefault(method, []).append(timing)
                log(f"replay: {name}: {method} #{rep + 1}: {timing['passes']} passes, {timing['wall_s']:.2f} s")
        base = statistics.median(t["wall_s"] for t in rows[GREEDY])
        out[name] = {
            method: {
                "passes": ts[0]["passes"],
                "repeats": len(ts),
                "wall_s": statistics.median(t["wall_s"] for t in ts),
                "prefill_s": statistics.median(t["prefill_s"] for t in ts),
                "speedup_vs_greedy": base / statistics.median(t["wall_s"] for t in ts),
            }
            for method, ts in rows.items()
        }
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m applyedit.tools.replay", description=__doc__.split("\n\n")[0])
    parser.add_argument("bench_json", type=Path, nargs="+", help="the output of `applyedit bench --json` (one or more)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--dtype", default="bf16")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--greedy-repeats", type=int, help="repeats of plain greedy (default: --repeats)")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="SUBSTR",
        help="replay only the methods whose name contains this (repeatable)",
    )
    parser.add_argument("--json", type=Path, help="write the results here")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    benches = [json.loads(path.read_text()) for path in args.bench_json]
    for path, bench in zip(args.bench_json, benches, strict=True):
        if not bench.get("model_config"):
            print(f"{path}: no model_config saved (rerun applyedit bench --json)", file=sys.stderr)
            return 1
    if any(b["model_config"] != benches[0]["model_config"] for b in benches):
        print("the bench files hold different models", file=sys.stderr)
        return 1
    bench = {"raw": {name: record for b in benches for name, record in b["raw"].items()}}
    model = build_model(benches[0]["model_config"], args.device, args.dtype)
    time_passes(model, 512, [1, 8, 33, 65] * 4, [1, 4, 20, 65] * 4)  # warm-up: kernels, allocator, cuBLAS
    result = replay(
        bench,
        model,
        args.repeats,
        log=lambda m: print(m, file=sys.stderr),
        only=args.only,
        greedy_repeats=args.greedy_repeats,
    )
    for name, rows in result.items():
        print(f"\n{name} ({args.device}, {args.dtype}, random weights, medians of {args.repeats})")
        for method, row in rows.items():
            print(f"  {method:40} {row['passes']:6d} passes {row['wall_s']:9.2f} s  {row['speedup_vs_greedy']:6.2f}x")
    if args.json:
        import torch
        import transformers

        name = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"
        files.write_atomic(
            args.json,
            (
                json.dumps(
                    {
                        "device": args.device,
                        "device_name": name,
                        "dtype": args.dtype,
                        "torch": torch.__version__,
                        "transformers": transformers.__version__,
                        "repeats": args.repeats,
                        "greedy_repeats": args.greedy_repeats,
                        "sources": [str(p) for p in args.bench_json],
                        "cases": result,
                    },
                    indent=1,
                )
            ).encode(),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
