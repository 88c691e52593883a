"""Score the product's no-model answer on the hand-written assistant set: every case of
data/<language>.jsonl (an update snippet written the way chat assistants write them, for a real edit
of the release corpus) joined with its release record by (package, edit), the record's `before` the
original and its `after` the expected file, and answered by corpus/releases/score.py's `answer_alone`:
how many are exact, declined (with the reason), wrong (answered alone, but not the file after the
edit) or raised, per language and per shape (a case counts under each of its shape tags).

Owns the join, the holdout split (`--holdout` scores only the set-aside fifth, the cases marked
`holdout`; the default only the rest), the tables and the JSON. Ignores how the snippets were written
(README.md), the merger and the model; `answer_alone` and the records are the release corpus's.

    python corpus/assistant/score.py [--holdout] [--show wrong|declined] [--json PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
RELEASES = HERE.parent / "releases"
RESULTS = ("exact", "declined", "wrong", "raised")


def _load(name: str, path: Path):  # noqa: ANN202 (a module)
    """A corpus script imported by path (it is not a package module), once."""
    if name in sys.modules:
        return sys.modules[name]
    root = HERE.parent.parent
    if str(root) not in sys.path:  # the scripts import applyedit from the checkout
        sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def release_cases():  # noqa: ANN201 (a module)
    """corpus/releases/cases.py: its `records()` are the release edits."""
    return _load("release_cases", RELEASES / "cases.py")


def release_score():  # noqa: ANN201 (a module)
    """corpus/releases/score.py: its `answer_alone` is the product's no-model answer."""
    return _load("release_score", RELEASES / "score.py")


def load(root: Path = DATA) -> list[dict]:
    """Every case of every data/*.jsonl, in file order (languages by file name)."""
    found = []
    for path in sorted(root.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            found += [json.loads(line) for line in f if line.strip()]
    return found


def joined(cases: list[dict], records: list[dict] | None = None) -> list[tuple[dict, dict]]:
    """Each case with its release record (KeyError naming the case when it has none)."""
    if records is None:
        records = release_cases().records()
    by_key = {(r["package"], r["edit"]): r for r in records}
    out = []
    for c in cases:
        record = by_key.get((c["package"], c["edit"]))
        if record is None:
            raise KeyError(f"{c['name']}: no release record {c['package']} {c['edit']}")
        out.append((c, record))
    return out


@dataclass(frozen=True)
class Outcome:
    name: str
    language: str
    shape: tuple[str, ...]
    result: str  # "exact" | "declined" | "wrong" | "raised"
    reason: str


def score(pairs: list[tuple[dict, dict]]) -> list[Outcome]:
    """(case, record) -> one outcome each, answered by answer_alone."""
    answer_alone = release_score().answer_alone
    out = []
    for c, r in pairs:
        shape = tuple(c["shape"])
        try:
            answer, reason = answer_alone(r["before"], c["snippet"], c["language"])
        except Exception as e:  # noqa: BLE001 (a crash is scored, not fatal)
            out.append(Outcome(c["name"], c["language"], shape, "raised", f"{type(e).__name__}: {e}"))
            continue
        result = "declined" if answer is None else "exact" if answer == r["after"] else "wrong"
        out.append(Outcome(c["name"], c["language"], shape, result, reason))
    return out


def _row(key: str, sel: list[Outcome]) -> dict:
    row = {"key": key, "cases": len(sel)}
    row.update({r: sum(o.result == r for o in sel) for r in RESULTS})
    return row


def rows(outcomes: list[Outcome]) -> dict[str, list[dict]]:
    """The counts per language (and all) and per shape tag."""
    languages = sorted({o.language for o in outcomes})
    shapes = sorted({s for o in outcomes for s in o.shape})
    return {
        "language": [_row(x, [o for o in outcomes if o.language == x]) for x in languages] + [_row("all", outcomes)],
        "shape": [_row(s, [o for o in outcomes if s in o.shape]) for s in shapes],
    }


def reason_kind(reason: str) -> str:
    """A declined case's reason without its details (what it quotes, its numbers, its parentheses
    and what follows its first colon), to count the reasons."""
    text = re.sub(r"\(from (['\"]).*?\1\)(?=[\s,:]|$)", "", reason)
    text = re.sub(r"(['\"]).*?\1(?=[\s,:]|$)", "'…'", text)
    text = re.sub(r"\([^()]*\)", "", text)
    text = re.sub(r"\d+", "N", text)
    head, _, rest = text.partition(": ")
    kind = f"{head}: {rest.split(': ')[0]}" if head == "check" else head
    return " ".join(kind.split())


def reasons(outcomes: list[Outcome]) -> list[tuple[str, int]]:
    """The declined cases' reason kinds, most frequent first."""
    return Counter(reason_kind(o.reason) for o in outcomes if o.result == "declined").most_common()


def table(outcomes: list[Outcome]) -> str:
    out = []
    for kind, found in rows(outcomes).items():
        out.append(f"{kind:22} cases  exact  declined  wrong  raised")
        out += [
            f"{r['key']:22} {r['cases']:5}  {r['exact']:5}  {r['declined']:8}  {r['wrong']:5}  {r['raised']:6}"
            for r in found
        ]
        out.append("")
    declined = reasons(outcomes)
    if declined:
        out.append("declined, by reason")
        out += [f"{n:5}  {reason}" for reason, n in declined]
    return "\n".join(out).rstrip("\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--holdout", action="store_true", help="score only the set-aside holdout cases")
    p.add_argument("--show", choices=("wrong", "declined"), help="list these cases with their reasons")
    p.add_argument("--json", type=Path, metavar="PATH", help="write the tables (and the listed cases) as JSON")
    args = p.parse_args(argv)
    cases = [c for c in load() if bool(c["holdout"]) == args.holdout]
    outcomes = score(joined(cases))
    print(f"{'holdout' if args.holdout else 'non-holdout'} cases, answered by answer_alone")
    print(table(outcomes))
    listed = [o for o in outcomes if args.show and o.result == args.show]
    for o in listed:
        print(f"{o.name} [{', '.join(o.shape)}]: {o.reason}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"holdout": args.holdout, "tables": rows(outcomes), "listed": [asdict(o) for o in listed]}, indent=1
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
