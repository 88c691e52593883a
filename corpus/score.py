"""Score `applyedit.merge.merge` alone (no model) on generated corpus cases: per style and language,
how many merges are exact, how many the merger declined (not ok), and how many it got wrong while
saying ok. Owns the scoring and its plain-text table; the cases come from generate.py.

    python corpus/score.py [--seed 17] [--show wrong|notok] [--dir corpus/sample]
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from applyedit.merge import merge  # noqa: E402


@dataclass(frozen=True)
class Outcome:
    name: str
    language: str
    style: str
    result: str  # "exact" | "notok" | "wrong"
    reason: str


def score(cases: Iterable[tuple[str, str, str, str, str, str]]) -> list[Outcome]:
    """(name, language, style, before, snippet, after) -> one outcome each."""
    out = []
    for name, language, style, before, snippet, after in cases:
        r = merge(before, snippet)
        result = "notok" if not r.ok else "exact" if r.merged == after else "wrong"
        out.append(Outcome(name, language, style, result, r.reason))
    return out


def table(outcomes: list[Outcome]) -> str:
    rows = ["style  language    cases  exact  not-ok  wrong"]
    keys = sorted({(o.style, o.language) for o in outcomes})
    for style in sorted({s for s, _ in keys}):
        for key in [*(k for k in keys if k[0] == style), (style, "all")]:
            sel = [o for o in outcomes if o.style == key[0] and key[1] in ("all", o.language)]
            n = {r: sum(o.result == r for o in sel) for r in ("exact", "notok", "wrong")}
            rows.append(f"{key[0]:6} {key[1]:11} {len(sel):5}  {n['exact']:5}  {n['notok']:6}  {n['wrong']:5}")
    return "\n".join(rows)


def from_dir(root: Path) -> list[tuple[str, str, str, str, str, str]]:
    found = []
    for d in sorted(p for p in root.iterdir() if (p / "case.toml").is_file()):
        meta = tomllib.loads((d / "case.toml").read_text())
        before = next(d.glob("before.*")).read_text(encoding="utf-8")
        after = next(d.glob("after.*")).read_text(encoding="utf-8")
        found.append((d.name, meta["language"], meta.get("style", "?"), before,
                      (d / "edit.txt").read_text(encoding="utf-8"), after))
    return found


def main(argv: list[str] | None = None) -> int:
    import generate

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=generate.SEED)
    p.add_argument("--dir", type=Path, help="score the cases in this folder instead of generating")
    p.add_argument("--show", choices=("wrong", "notok"), help="list these cases")
    args = p.parse_args(argv)
    if args.dir:
        cases = from_dir(args.dir)
    else:
        cases = [(c.name, c.language, c.style, c.before, c.snippet, c.after) for c in generate.corpus(args.seed)]
    outcomes = score(cases)
    print(table(outcomes))
    for o in outcomes:
        if args.show and o.result == args.show:
            print(f"{o.name}: {o.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
