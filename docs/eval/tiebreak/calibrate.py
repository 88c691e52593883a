"""Calibration data for the model tie-break (spec/tiebreak.py, api.choose_reading) on the release corpus:
for each case whose two readers give two files that both meet every invariant (`MergeResult.readings`,
where a default run asks the model), score both with the default model after the product's prompt and
record the gap (the expected file's log-likelihood minus the other's, nats), or, where neither reading
is the expected file, the gap between them (any pick there is wrong). The margin that makes every pick
right lies above the largest gap of a wrong pick.

    python docs/eval/tiebreak/calibrate.py OUT.jsonl [--max-lines 250] [--limit N]   # resumable

Knows the corpus (corpus/releases/cases.py), the readers (merge/confirm.py) and the product's prompt
(api.prepare); scores with spec/tiebreak.score on whichever backend the engine opens.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "corpus" / "releases"))


def main(argv: list[str] | None = None) -> int:
    import cases as release_cases

    from applyedit import api
    from applyedit.merge import confirm, reindent
    from applyedit.spec.tiebreak import score

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--max-lines", type=int, default=250)
    p.add_argument("--limit", type=int, default=0)
    args = p.parse_args(argv)
    done = set()
    if args.out.exists():
        done = {json.loads(x)["name"] for x in args.out.read_text().splitlines() if x.strip()}
    engine = api.Engine.open()
    count = 0
    for c in release_cases.cases():
        if c.name in done or len(c.before.split("\n")) > args.max_lines:
            continue
        snippet = reindent.to_file_style(c.before, c.snippet)
        result = confirm.confirmed(c.before, snippet, c.language, with_readings=True)
        if len(result.readings) != 2:
            continue
        readings = list(result.readings)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / Path(c.path).name
            path.write_text(c.before, encoding="utf-8")
            job = api.prepare(path, snippet, engine)
        got = score(engine.model, job.prompt_ids, [engine.encode(r) for r in readings])
        row: dict = {"name": c.name, "tokens": [s.tokens for s in got], "prompt": len(job.prompt_ids)}
        if c.after in readings:
            right = readings.index(c.after)
            row |= {"truth": "merge" if right == 0 else "context",
                    "margin": round(got[right].logprob - got[1 - right].logprob, 3)}
        else:  # any pick is wrong: the gap either way
            row |= {"truth": "absent", "margin": round(-abs(got[0].logprob - got[1].logprob), 3)}
        with args.out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(row, flush=True)
        count += 1
        if args.limit and count >= args.limit:
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
