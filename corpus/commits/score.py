"""Score the product's no-model answer on the commit corpus: every case (clean and messy snippets of
real commits, cases.py) merged by APPLY, per style and language: how many are exact, how many were
declined (not ok), how many are wrong (ok, but not the file after the commit) and how many raised
an exception. Owns the scoring, its table and its JSON; the cases come from cases.py.

APPLY is `applyedit.confirm.confirmed(original, snippet, language)` when that module exists, else
`applyedit.merge.merge` read as the product reads a snippet (a snippet without any marker is read
with implied markers when it is a piece of the file, merge.implied_snippet).

    python corpus/commits/score.py [--show wrong|declined|raised] [--json PATH] [--dir corpus/commits/sample]
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent))


def _merge_as_read(original: str, snippet: str, language: str) -> Any:  # noqa: ANN401 (a MergeResult)
    from applyedit.markers import is_marker
    from applyedit.merge import implied_snippet, merge

    if not any(is_marker(x) for x in snippet.split("\n")):
        snippet = implied_snippet(original, snippet, language) or snippet
    return merge(original, snippet)


def _apply_function() -> tuple[str, Callable[[str, str, str], Any]]:
    try:
        from applyedit.confirm import confirmed
    except ImportError:
        return "applyedit.merge.merge", _merge_as_read
    return "applyedit.confirm.confirmed", confirmed


APPLY_NAME, APPLY = _apply_function()  # (original, snippet, language) -> .ok, .merged, .reason


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
            r = APPLY(before, snippet, language)
        except Exception as e:  # noqa: BLE001 (a crash is scored, not fatal)
            out.append(Outcome(name, language, style, "raised", f"{type(e).__name__}: {e}", unambiguous))
            continue
        result = "declined" if not r.ok else "exact" if r.merged == after else "wrong"
        out.append(Outcome(name, language, style, result, r.reason or "", unambiguous))
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
        import cases as commit_cases

        cases = [(c.name, c.language, c.style, c.before, c.snippet, c.after, c.unambiguous)
                 for c in commit_cases.cases()]
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
