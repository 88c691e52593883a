"""Outcome tables for issue 17 from `applyedit eval --json` records: exact / refused / wrong with exit 0,
per snippet style and language, for four ways to answer, read off the same model outputs.

    python docs/eval/outcomes.py CASES_DIR RUN.json [RUN.json ...]

A record holds each case's raw model output, so one run with `--fallback merge` also gives the
answers without the fallback, and without the never-silently-wrong checks (today's behaviour
before issue 17: markers, dropped code and syntax only). Columns per record:

- today: the model's output under the checks of before issue 17 (no unchanged / new-lines / length checks)
- checks: the model's output under all checks, no fallback (refusals are exit 3)
- answer: what the run answered (with `--fallback merge`: the merge where the model's output was refused)
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from applyedit import api, merge, textio
from applyedit.errors import ApplyEditError
from applyedit.evaluate import discover


def today(case, raw: str | None) -> str:
    """exact | refused | wrong0 for the model's raw output under the checks before issue 17."""
    if raw is None:
        return "refused"
    src = textio.read_source(case.before, case.meta.get("language"))
    edit = textio.extract_edit(case.edit.read_text(encoding="utf-8"), src.language)
    kind = "snippet" if any(merge.is_marker(x) for x in edit.split("\n")) else "instruction"
    fence = textio.fence_for(src.text, edit)
    merged = merge.merge(src.text, edit) if kind == "snippet" else None
    try:
        body = textio.extract_body(raw, fence, ended=True, original=src.text)
        api.check_output(src.text, body, False)
        api.check_drops(src.text, body, merged, False)
        api.check_syntax(src, body, False)
    except ApplyEditError:
        return "refused"
    after = textio.restore(body, src.style)
    return "exact" if after == case.after.read_bytes().decode("utf-8") else "wrong0"


def outcome(r: dict) -> str:
    return "exact" if r["exact"] else ("refused" if r["error"] else "wrong0")


def main(cases_dir: str, *records: str) -> None:
    cases = {c.name: c for c in discover(Path(cases_dir))}
    for path in records:
        data = json.loads(Path(path).read_text())
        table: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for r in data["cases"]:
            case = cases[r["name"]]
            style = "messy" if "messy" in r["name"] else ("clean" if "clean" in r["name"] else case.meta.get("kind", "?"))
            lang = case.meta.get("language") or textio.language_for(case.before)
            answer = outcome(r)
            checks = "refused" if r.get("answer") == "merge" else answer
            row = {"today": today(case, r.get("raw_output")), "checks": checks, "answer": answer}
            for group in ((style, lang), (style, "all"), ("all", "all")):
                for col, value in row.items():
                    table[group][(col, value)] += 1
                table[group]["n"] += 1
                table[group]["merge answered"] += r.get("answer") == "merge"
        print(f"\n{path}: options={data.get('options')} backend={data['backend']}")
        print("| style | language | n | today: exact / refused / wrong exit 0 | all checks, no fallback | answer | merge answered |")
        print("|---|---|---|---|---|---|---|")
        for (style, lang), c in sorted(table.items(), key=lambda kv: (kv[0][0] == "all", kv[0][0], kv[0][1] == "all", kv[0][1])):
            cells = [" / ".join(str(c[(col, v)]) for v in ("exact", "refused", "wrong0")) for col in ("today", "checks", "answer")]
            print(f"| {style} | {lang} | {c['n']} | {' | '.join(cells)} | {c['merge answered']} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
