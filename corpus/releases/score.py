"""Score the product's no-model answer on the release corpus: every case (clean and messy snippets of
real edits between package releases, cases.py) answered as the product answers without a model, per
style and language: how many are exact, how many were declined (the model would decide, or the run is
refused), how many are wrong (answered alone, but not the file after the edit) and how many raised an
exception. Owns `answer_alone`, the scoring, its table and its JSON; the cases come from cases.py.

`answer_alone` reads a snippet as `api.apply` does (implied markers, re-indented to the file's style),
takes the confirmed merge (merge/confirm.py) and holds it to the output checks, as
`outcome.answer_by_merge` does.

    python corpus/releases/score.py [--show wrong|declined|raised] [--json PATH] [--dir corpus/releases/sample]
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent))

APPLY_NAME = "the confirmed merge, held to the output checks (score.answer_alone)"


def answer_alone(before: str, snippet: str, language: str) -> tuple[str | None, str]:
    """The file the product writes with no model (None when the model decides or the run is refused),
    and the reason when it is None."""
    from applyedit import checks, textio
    from applyedit.errors import ApplyEditError
    from applyedit.markers import is_marker
    from applyedit.merge import confirm, implied_snippet, reindent
    from applyedit.options import RunOptions

    if not any(is_marker(x) for x in snippet.split("\n")):
        snippet = implied_snippet(before, snippet, language) or snippet
    snippet = reindent.to_file_style(before, snippet)
    result = confirm.confirmed(before, snippet, language)
    src = textio.source_from(Path("case.txt"), before.encode("utf-8"), language)
    body = checks.merge_answer(src, result)
    if body is None:
        return None, result.reason or "not confirmed"
    if body == before:
        return None, "unchanged"
    try:
        checks.check_all(src, body, snippet, "snippet", result, RunOptions())
    except ApplyEditError as e:
        return None, f"check: {e}"
    return body, ""


@dataclass(frozen=True)
class Outcome:
    name: str
    language: str
    style: str
    result: str  # "exact" | "declined" | "wrong" | "raised" (APPLY raised an exception)
    reason: str
    unambiguous: bool


def score(cases: Iterable[tuple[str, str, str, str, str, str, bool]]) -> list[Outcome]:
    """(name, language, style, before, snippet, after, unambiguous) -> one outcome each."""
    out = []
    for name, language, style, before, snippet, after, unambiguous in cases:
        try:
            answer, reason = answer_alone(before, snippet, language)
        except Exception as e:  # noqa: BLE001 (a crash is scored, not fatal)
            out.append(Outcome(name, language, style, "raised", f"{type(e).__name__}: {e}", unambiguous))
            continue
        result = "declined" if answer is None else "exact" if answer == after else "wrong"
        out.append(Outcome(name, language, style, result, reason, unambiguous))
    return out


def rows(outcomes: list[Outcome]) -> list[dict]:
    found = []
    keys = sorted({(o.style, o.language) for o in outcomes})
    for style in sorted({s for s, _ in keys}):
        for key in [*(k for k in keys if k[0] == style), (style, "all")]:
            sel = [o for o in outcomes if o.style == key[0] and key[1] in ("all", o.language)]
            row = {"style": key[0], "language": key[1], "cases": len(sel)}
            row.update({r: sum(o.result == r for o in sel) for r in ("exact", "declined", "wrong", "raised")})
            row["wrong_unambiguous"] = sum(o.result == "wrong" and o.unambiguous for o in sel)
            found.append(row)
    return found


def table(outcomes: list[Outcome]) -> str:
    lines = ["style  language    cases  exact  declined  wrong  raised  (wrong, context unambiguous)"]
    for r in rows(outcomes):
        lines.append(f"{r['style']:6} {r['language']:11} {r['cases']:5}  {r['exact']:5}  {r['declined']:8}  "
                     f"{r['wrong']:5}  {r['raised']:6}  {r['wrong_unambiguous']:5}")
    return "\n".join(lines)


def from_dir(root: Path) -> list[tuple[str, str, str, str, str, str, bool]]:
    found = []
    for d in sorted(p for p in root.iterdir() if (p / "case.toml").is_file()):
        meta = tomllib.loads((d / "case.toml").read_text(encoding="utf-8"))
        before = next(d.glob("before.*")).read_text(encoding="utf-8")
        after = next(d.glob("after.*")).read_text(encoding="utf-8")
        found.append((d.name, meta["language"], meta.get("style", "?"), before,
                      (d / "edit.txt").read_text(encoding="utf-8"), after, bool(meta.get("unambiguous", True))))
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dir", type=Path, help="score the fixture cases in this folder instead of the whole corpus")
    p.add_argument("--show", choices=("wrong", "declined", "raised"), help="list these cases with their reasons")
    p.add_argument("--json", type=Path, metavar="PATH", help="write the table (and the listed cases) as JSON")
    args = p.parse_args(argv)
    if args.dir:
        cases = from_dir(args.dir)
    else:
        import cases as release_cases

        cases = [(c.name, c.language, c.style, c.before, c.snippet, c.after, c.unambiguous)
                 for c in release_cases.cases()]
    outcomes = score(cases)
    print(f"merged by {APPLY_NAME}")
    print(table(outcomes))
    listed = [o for o in outcomes if args.show and o.result == args.show]
    for o in listed:
        print(f"{o.name}: {o.reason}{'' if o.unambiguous else ' [context ambiguous]'}")
    if args.json:
        args.json.write_text(json.dumps({"apply": APPLY_NAME, "table": rows(outcomes),
                                         "listed": [asdict(o) for o in listed]}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
