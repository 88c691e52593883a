"""Outcome tables for issue 17 from `applyedit eval --json` records: exact / refused / wrong with exit 0,
per snippet style and language, for three ways to answer, all read off the same model outputs.

    PYTHONPATH=. python docs/eval/outcomes.py CASES_DIR RUN.json [RUN.json ...]

A record holds each case's model output (`raw_output`, or for older records the `produced` file),
so the checks and the fallback can be replayed on it. Columns:

- today: the model's output under the checks before issue 17 (lazy markers, dropped code, syntax)
- checks: ... and the never-silently-wrong checks (unchanged, missing new lines, far longer); no fallback
- fallback: ... and `--fallback merge` (the merge answers where the model's output is refused)
- run: what the recorded run itself answered (its own options)
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from applyedit import checks, markers, merge, textio
from applyedit.errors import ApplyEditError
from applyedit.tools.evaluate import discover


def replay(case, raw: str | None, produced: str | None) -> dict[str, str]:
    src = textio.read_source(case.before, case.meta.get("language"))
    edit = textio.extract_edit(case.edit.read_text(encoding="utf-8"), src.language)
    kind = "snippet" if any(markers.is_marker(x) for x in edit.split("\n")) else "instruction"
    if kind == "instruction" and (wrapped := merge.implied_snippet(src.text, edit, src.language)):
        edit, kind = wrapped, "snippet"  # as api.prepare reads a marker-less piece of the file
    fence = textio.fence_for(src.text, edit)
    merged = merge.merge(src.text, edit) if kind == "snippet" else None
    expected = case.after.read_bytes().decode("utf-8")

    def judge(body: str) -> str:
        return "exact" if textio.restore(body, src.style) == expected else "wrong0"

    fallen = checks.merge_answer(src, merged)
    fall = judge(fallen) if fallen is not None else "refused"
    try:
        if raw is not None:
            body = textio.extract_body(raw, fence, ended=True, original=src.text)
        elif produced is not None:
            body = textio.normalise(produced)[0]
            body += "\n" if body and not body.endswith("\n") else ""
        else:
            raise ApplyEditError("no output")
    except ApplyEditError:
        return {"today": "refused", "checks": "refused", "fallback": fall}
    try:
        checks.check_output(src.text, body, False)
        checks.check_drops(src.text, body, merged, False)
        checks.check_syntax(src, body, False)
    except ApplyEditError:
        return {"today": "refused", "checks": "refused", "fallback": fall}
    try:
        checks.check_answer(src.text, body, kind, edit, merged, False, False)
    except ApplyEditError:
        return {"today": judge(body), "checks": "refused", "fallback": fall}
    return {"today": judge(body), "checks": judge(body), "fallback": judge(body)}


def main(cases_dir: str, *records: str) -> None:
    cases = {c.name: c for c in discover(Path(cases_dir))}
    for path in records:
        data = json.loads(Path(path).read_text())
        table: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for r in data["cases"]:
            if r["name"] not in cases:
                continue
            case = cases[r["name"]]
            style = case.meta.get("style") or case.meta.get("kind", "?")
            lang = case.meta.get("language") or textio.language_for(case.before)
            row = replay(case, r.get("raw_output"), r.get("produced"))
            row["run"] = "exact" if r["exact"] else ("refused" if r["error"] else "wrong0")
            for group in ((style, lang), (style, "all"), ("all", "all")):
                for col, value in row.items():
                    table[group][(col, value)] += 1
                table[group]["n"] += 1
                table[group]["merge answered"] += r.get("answer") == "merge"
        options = data.get("options", {})
        print(f"\n{path}: backend {data['backend']} ({data['dtype']}), anchor {options.get('anchor', 'none (before issue 17)')}, "
              f"the run's fallback {options.get('fallback', 'none')}")
        print("\n| style | language | n | today: exact / refused / wrong exit 0 | + checks | + fallback | the run | merge answered |")
        print("|---|---|---|---|---|---|---|---|")
        for (style, lang), c in sorted(table.items(), key=lambda kv: (kv[0][0] == "all", kv[0][0], kv[0][1] == "all", kv[0][1])):
            cells = [" / ".join(str(c[(col, v)]) for v in ("exact", "refused", "wrong0"))
                     for col in ("today", "checks", "fallback", "run")]
            print(f"| {style} | {lang} | {c['n']} | {' | '.join(cells)} | {c['merge answered']} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
