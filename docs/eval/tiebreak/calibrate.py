"""Calibration data for the model tie-break (speculative/tiebreak.py, api.choose_reading): for each case whose
snippet the product refuses with 2 to 5 candidate readings (`MergeResult.readings`, the careful reader's
valid readings, cheapest first: merge/readings.py), score every candidate with the default model after
the product's prompt and record each one's log-likelihood over the span where they differ (nats), its
tokens there, and which one is the expected file (None: none is). A margin makes a pick when the best
beats the second by it; the margin that makes every pick right lies above the largest gap of a wrong pick.

    python docs/eval/tiebreak/calibrate.py OUT.jsonl [--set releases|assistant] [--max-lines 250] [--limit N]
    python docs/eval/tiebreak/calibrate.py OUT.jsonl --table      # picks per margin, from OUT.jsonl

Resumable (cases already in OUT are skipped). The assistant set's held-out fifth is skipped unless
`--holdout`. Knows the corpora (corpus/releases/cases.py, corpus/assistant/), the reader (merge/confirm.py)
and the product's prompt (api.prepare); scores with spec/tiebreak.score on whichever backend the engine opens.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "corpus" / "releases"))
MARGINS = (0.5, 1, 2, 3, 4, 6, 8, 12, 16, 24)


def _cases(which: str, holdout: bool) -> Iterator[tuple[str, str, str, str, str, str]]:
    """(name, path, language, before, snippet, after) of a set, as the product reads the snippet."""
    from applyedit.markers import is_marker
    from applyedit.merge import implied_snippet, reindent

    if which == "releases":
        import cases as release_cases

        found = [(c.name, c.path, c.language, c.before, c.snippet, c.after) for c in release_cases.cases()]
    else:
        import importlib.util

        spec = importlib.util.spec_from_file_location("assistant_score", ROOT / "corpus" / "assistant" / "score.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["assistant_score"] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        found = [
            (c["name"], r["path"], c["language"], r["before"], c["snippet"], r["after"])
            for c, r in module.joined(module.load())
            if holdout or not c["holdout"]
        ]
    for name, path, language, before, snippet, after in found:
        if not any(is_marker(x) for x in snippet.split("\n")):
            snippet = implied_snippet(before, snippet, language) or snippet
        yield name, path, language, before, reindent.to_file_style(before, snippet), after


def picks(rows: list[dict], margin: float, greedy: bool = False) -> tuple[int, int, int]:
    """(right, wrong, abstained) when the best-scored reading is taken only by `margin` nats or more
    (and, with `greedy`, only when greedy decoding writes its whole scored span, a token of its own
    included, or, for a reading with none (a deletion at the file's end), when it is among the readings
    the reader weighs within its margin (`near`; rows without it: none) and greedy decoding writes every
    token scored, the closing fence included; never between twins or unplaced readings, which the product never
    asks the model about: the product's rule, spec/tiebreak.pick and api.choose_reading)."""
    right = wrong = abstained = 0
    for row in rows:
        ranked = sorted(range(len(row["logprob"])), key=lambda i: row["logprob"][i], reverse=True)
        top = ranked[0]
        required = row.get("required", row["tokens"])[top]
        later = row.get("later", [None] * len(ranked))[top]  # greedy at the later places (tiebreak.Scored.later)
        said = row.get("said", [True] * len(ranked))[top]  # its own text there not blank (api.said)
        ends = top < row.get("near", 0) and row["accepted"][top] >= row["tokens"][top]  # the model ends the file
        if greedy and (
            row.get("twins")
            or row.get("unplaced")  # new lines at the file's edge placed by no line: never asked (readings.unplaced)
            or row["accepted"][top] < required
            or not (required and said or ends)
            or later is False
        ):
            abstained += 1
        elif row["logprob"][top] - row["logprob"][ranked[1]] < margin:
            abstained += 1
        elif ranked[0] == row["truth"]:
            right += 1
        else:
            wrong += 1
    return right, wrong, abstained


def table(rows: list[dict]) -> str:
    held = sum(r["truth"] is not None for r in rows)
    lines = [
        f"{len(rows)} cases, the expected file among the candidates in {held}",
        "",
        "| margin (nats) | right | wrong | abstained | greedy only: right | wrong | abstained |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in MARGINS:
        lines.append("| {} | {} | {} | {} | {} | {} | {} |".format(m, *picks(rows, m), *picks(rows, m, greedy=True)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--set", choices=("releases", "assistant"), default="releases")
    p.add_argument("--holdout", action="store_true", help="the assistant set's held-out fifth too")
    p.add_argument("--max-lines", type=int, default=250)
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--lead", type=int, help="lines kept above the first difference (api.LEAD_LINES)")
    p.add_argument("--tail", type=int, help="lines kept below the last difference (api.TAIL_LINES)")
    p.add_argument("--only", nargs="*", default=(), help="score only these cases")
    p.add_argument("--names-from", type=Path, help="score only the cases of this earlier record")
    p.add_argument(
        "--led-only", action="store_true", help="only cases whose readings share more leading lines than api.LEAD_LINES"
    )
    p.add_argument("--table", action="store_true", help="print the picks per margin of OUT and stop")
    p.add_argument(
        "--margin", type=float, help="score as the product does at this margin (tiebreak.score): the whole stretch"
        " where the readings differ where the places alone make no pick"
    )
    args = p.parse_args(argv)
    rows = [json.loads(x) for x in args.out.read_text().splitlines() if x.strip()] if args.out.exists() else []
    if args.table:
        print(table(rows))
        return 0
    from applyedit import api
    from applyedit.merge import confirm
    from applyedit.merge.readings import _same_file
    from applyedit.speculative.proposers import common_prefix
    from applyedit.speculative.tiebreak import places, score

    done = {r["name"] for r in rows}
    if args.lead is not None:
        api.LEAD_LINES = args.lead
    if args.tail is not None:
        api.TAIL_LINES = args.tail
    only = None
    if args.names_from:
        only = {json.loads(x)["name"] for x in args.names_from.read_text().splitlines() if x.strip()}
    if args.only:
        only = set(args.only)
    engine = api.Engine.open()
    count = 0
    for name, path, language, before, snippet, after in _cases(args.set, args.holdout):
        if name in done or len(before.split("\n")) > args.max_lines or (only is not None and name not in only):
            continue
        result = confirm.confirmed(before, snippet, language, with_readings=True)
        if result.ok or len(result.readings) < 2:
            continue
        readings = list(result.readings)
        lead = api.window(before, readings)[0]  # lines not fed above the readings' first difference
        if args.led_only and not lead:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            file = Path(tmp) / Path(path).name
            file.write_text(before, encoding="utf-8")
            job = api.prepare(file, snippet, engine)
        t0 = time.perf_counter()
        # each file as the model would end it (its closing fence): a deletion at the end is scored too
        prompt_ids, ids, texts, window = api.tiebreak_inputs(job, readings)
        got = score(engine.model, prompt_ids, ids, texts=texts, margin=args.margin, budget=len(prompt_ids))
        truth = next((i for i, r in enumerate(readings) if _same_file(r, after)), None)
        row = {
            "name": name,
            "set": args.set,
            "prompt": len(prompt_ids),
            "seconds": round(time.perf_counter() - t0, 2),
            "logprob": [round(s.logprob, 3) for s in got],
            "tokens": [s.tokens for s in got],
            "accepted": [s.accepted for s in got],
            "required": [s.required for s in got],
            "later": [s.later for s in got],
            "whole": got[0].whole,
            "said": [api.said(readings, n) for n in range(len(readings))],
            "near": result.near,
            "places": len(places(ids, min(common_prefix(ids[0], x) for x in ids[1:]))),
            "truth": truth,
            "ambiguous": result.ambiguous,
            "twins": result.twins,
            "unplaced": result.unplaced,
            "cut": lead,
            "window": list(window),  # lines of the file the prompt leaves out above and below (api.window)
        }
        with args.out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(row, flush=True)
        count += 1
        if args.limit and count >= args.limit:
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
