"""Apply cases from the release edits (data/*.jsonl.gz, written by mine.py from the package
registries): deterministically, each edit gives a clean and a messy update snippet, drawn from the
true change, whose expected result is the file after the edit.

Owns the derivation: the changed line ranges in the new file (difflib over lines; a pure deletion is
an empty range at the deletion point; a pure insertion or deletion slid along equal lines to where a
snippet can show it), the snippets (corpus/generate.py's `render`: `clean` shows
every changed line with two non-blank context lines each side and one marker per elided stretch;
`messy` draws a `messy_style` from a random generator seeded per edit), the instruction (the
changelog entry that names the edit, when it reads as one) and the frozen sample in the fixture format
(`applyedit eval corpus/releases/sample` runs it). Ignores the merger and the model.

    python corpus/releases/cases.py --sample corpus/releases/sample   # rewrite the frozen sample
    python corpus/releases/cases.py --all OUT_DIR                      # every case as a fixture
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import hashlib
import importlib.util
import json
import random
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
SAMPLE = HERE / "sample"
SEED = 27
PREFIX = {"python": "py", "javascript": "js", "typescript": "ts", "go": "go", "rust": "rs", "java": "java",
          "c": "c", "cpp": "cpp"}
SAMPLE_PAIRS_PER_LANGUAGE = 10  # each with its clean and its messy snippet
SAMPLE_MAX_LINES = 300


def _load_generate():  # noqa: ANN202 (a module)
    """corpus/generate.py, imported by path (it is not a package module)."""
    if "generate" in sys.modules:
        return sys.modules["generate"]
    root = HERE.parent.parent
    if str(root) not in sys.path:  # generate.py imports applyedit from the checkout
        sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location("generate", HERE.parent / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate"] = module
    spec.loader.exec_module(module)
    return module


generate = _load_generate()

# Java, C and C++ are not among generate.py's languages: their functions are found here with the same rules.
_OTHER_FUNCS = {
    "java": {"method_declaration", "constructor_declaration", "lambda_expression"},
    "c": {"function_definition"},
    "cpp": {"function_definition", "lambda_expression"},
}


@dataclass(frozen=True)
class Case:
    name: str
    package: str
    edit: str  # "<from>..<to>:<path>#<cluster>"
    path: str
    language: str
    license: str
    message: str
    style: str  # "clean" | "messy"
    messy: tuple[str, ...]  # the messy style's traits (generate.Style.tags)
    before: str
    after: str
    snippet: str
    instruction: str | None
    where: tuple[tuple[int, int], ...]  # changed rows [start, end) in the new file
    unambiguous: bool  # the clean snippet places every change (generate._clean_is_unambiguous) and shows it (_distinct)

    @property
    def ext(self) -> str:
        return Path(self.path).suffix


def records(root: Path = DATA) -> list[dict]:
    """Every release edit, sorted by language, package, version, path and edit id."""
    found = []
    for path in sorted(root.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            found += [json.loads(line) for line in f if line.strip()]
    return sorted(found, key=lambda r: (r["language"], r["package"], _version_key(r["to"]), r["path"], r["edit"]))


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def lines_of(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def _key(line: str) -> str:
    return " ".join(line.split())


_START, _END = "\x00start", "\x00end"  # the file's ends, as lines no file holds


def text_key(old: list[str]) -> str:
    """The original's non-blank lines, whitespace-normalized, between its two ends, for _distinct."""
    return "\n".join([_START, *(k for k in (_key(x) for x in old) if k), _END])


def _distinct(old_text: str, new: list[str], j1: int, j2: int) -> bool:
    """Whether the new rows [j1, j2) with two non-blank lines of context each side (blank lines
    ignored) differ from every block of the original (text_key), i.e. a snippet showing them shows a
    change. Context that reaches a file's end (no marker there in a clean snippet) must match there."""
    above = [k for k in range(j1 - 1, -1, -1) if new[k].strip()][:2]
    below = [k for k in range(j2, len(new)) if new[k].strip()][:2]
    rows = sorted(above + [k for k in range(j1, j2) if new[k].strip()] + below)
    keys = [_key(new[k]) for k in rows]
    if not any(x.strip() for x in new[: rows[0] if rows else j1]):
        keys.insert(0, _START)
    if not any(x.strip() for x in new[(rows[-1] + 1 if rows else j2) :]):
        keys.append(_END)
    block = "\n".join(keys)
    return ("\n" + block + "\n") not in ("\n" + old_text + "\n")


_CLOSERS = ("}", ")", "]", "end")


def _rank(old_text: str, new: list[str], lines: list[str], at: tuple[int, int, int, int], s: int) -> tuple:
    """How well the block lines[lo:hi] (new rows [j1, j2)) slid by s shows (the larger the better)."""
    lo, hi, j1, j2 = at
    block = lines[lo + s : hi + s]
    boundary = lo + s == 0 or not block[0].strip() or not lines[lo + s - 1].strip()
    first = next((x for x in block if x.strip()), "")
    return (
        _distinct(old_text, new, j1 + s, j2 + s),
        boundary and not first.strip().startswith(_CLOSERS),
        -len(generate._indent_of(first).expandtabs(4)),
        s == 0,
        -abs(s),
        -s,
    )


def _slide(old: list[str], new: list[str], ops: list[list[int]]) -> None:
    """Slide each pure insertion or deletion along the equal lines around it (the text it makes stays
    the same) to where a snippet shows it best: a change that a snippet can show (_distinct), then a
    block that starts a paragraph (after a blank line, or with one) and not with a closing bracket,
    then the least indented first line, then difflib's own place, then the nearest."""
    old_text = text_key(old)
    for n, op in enumerate(ops):
        i1, i2, j1, j2 = op
        if i1 != i2 and j1 != j2:
            continue
        lines, lo, hi = (old, i1, i2) if j1 == j2 else (new, j1, j2)  # the block that slides
        prev_i, prev_j = (ops[n - 1][1], ops[n - 1][3]) if n else (0, 0)
        next_i, next_j = (ops[n + 1][0], ops[n + 1][2]) if n + 1 < len(ops) else (len(old), len(new))
        shifts = [0]
        s = 0
        while i1 + s - 1 >= prev_i and j1 + s - 1 >= prev_j and lines[lo + s - 1] == lines[hi + s - 1]:
            s -= 1
            shifts.append(s)
        s = 0
        while i2 + s < next_i and j2 + s < next_j and hi + s < len(lines) and lines[lo + s] == lines[hi + s]:
            s += 1
            shifts.append(s)
        if len(shifts) == 1:
            continue

        best = max(shifts, key=lambda s: _rank(old_text, new, lines, (lo, hi, j1, j2), s))
        op[:] = [i1 + best, i2 + best, j1 + best, j2 + best]


def changed_ranges(old: list[str], new: list[str]) -> list[tuple[int, int]]:
    """Rows [start, end) of `new` that the change wrote; a pure deletion is (k, k) where it was.

    difflib's line diff, each pure insertion or deletion slid to where a snippet shows it (_slide)."""
    ops = [
        [i1, i2, j1, j2]
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
        if tag != "equal"
    ]
    _slide(old, new, ops)
    return [(j1, j2) for _i1, _i2, j1, j2 in ops]


def functions(text: str, language: str, path: str) -> list | None:
    """generate.functions for the file (Java's found here); None if the file does not parse."""
    src = generate.Source(language, Path(path), text)
    if language in generate._FUNCS:
        return generate.functions(src)
    if language not in _OTHER_FUNCS:
        return None
    found = []
    for node in generate._walk(generate._tree(text, language).root_node):
        if node.type not in _OTHER_FUNCS[language]:
            continue
        body = node.child_by_field_name("body")
        if body is None or body.start_point.row == body.end_point.row:
            continue
        stmts = tuple(
            (s.start_point.row, s.end_point.row)
            for s in generate._body_statements(body)
            if s.start_point.row > node.start_point.row
        )
        found.append(generate.Func(generate._name(node), node.start_point.row, node.end_point.row, stmts, True))
    return found


_VERBS = frozenset(
    """add allow avoid change check clarify clean cleanup convert correct deprecate disable
document don't do drop enable ensure export expose extract fix forward handle ignore implement improve
include inline introduce keep let make mark move normalize optimize pass prefer prevent print propagate
raise refactor reject remove rename reorder replace reset respect restore return reuse rewrite set
show simplify skip sort specify split stop store support switch throw treat tweak update use validate
wrap""".split()
)
_CONVENTIONAL = re.compile(r"^\s*(\[[^\]]*\]\s*|[\w-]+(\([^)]*\))?!?:\s+)")


_PAST = {"added": "add", "adds": "add", "fixed": "fix", "fixes": "fix", "removed": "remove", "removes": "remove",
         "changed": "change", "changes": "change", "improved": "improve", "improves": "improve",
         "updated": "update", "updates": "update", "deprecated": "deprecate", "dropped": "drop", "made": "make",
         "allowed": "allow", "allows": "allow", "renamed": "rename", "replaced": "replace", "handled": "handle",
         "handles": "handle", "supported": "support", "supports": "support", "ensured": "ensure",
         "prevented": "prevent", "prevents": "prevent", "avoided": "avoid", "avoids": "avoid", "used": "use",
         "uses": "use", "raised": "raise", "raises": "raise", "implemented": "implement", "exposed": "expose",
         "moved": "move", "simplified": "simplify", "corrected": "correct", "introduced": "introduce",
         "enabled": "enable", "disabled": "disable", "restored": "restore", "optimized": "optimize"}


def instruction(message: str) -> str | None:
    """The message (a changelog entry) when it reads as an instruction (imperative, 3+ words; a leading
    "Fixed" or "Adds" read as "Fix", "Add"), else None."""
    text = _CONVENTIONAL.sub("", message.strip(), count=1)
    first, _, rest = text.partition(" ")
    if first.lower() in _PAST:
        text = f"{_PAST[first.lower()]} {rest}"
    text = re.sub(r"\s*\((#\d+|closes #\d+|fixes #\d+)\)\s*$", "", text).strip().rstrip(".")
    words = text.split()
    if len(words) < 3 or words[0].lower() not in _VERBS:
        return None
    if re.fullmatch(r"(?i)(fix(es|ed)?|close[sd]?)\s+(issue\s+)?#?\d+\W*", text) or re.search(r"(?i)\bwip\b", text):
        return None
    if len([w for w in words if re.search(r"[A-Za-z]{2}", w)]) < 3:  # "fix #123 #124"
        return None
    return text[0].upper() + text[1:]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def case_stem(r: dict) -> str:
    """The case's name without its style: language, package, newer version, file, cluster."""
    path = Path(r["path"])
    where = _slug("_".join([*path.parent.parts[-1:], path.name]))
    return f"{PREFIX[r['language']]}_{_slug(r['package'])}_{_slug(r['to'])}_{where}_{r['edit'].rsplit('#', 1)[1]}"


def cases_for(r: dict, seed: int = SEED) -> list[Case]:
    """An edit's clean and messy case (only the clean one when no messy style draws another snippet)."""
    old, new = lines_of(r["before"]), lines_of(r["after"])
    where = changed_ranges(old, new)
    fns = functions(r["after"], r["language"], r["path"])
    clean_lines = generate.render(r["language"], new, where, generate.Style(), fns)
    styles = [("clean", generate.Style())]
    rng = random.Random(f"{seed}:{r['package']}:{r['edit']}")
    for _ in range(8):
        s = generate.messy_style(rng, r["language"])
        if generate.render(r["language"], new, where, s, fns) != clean_lines:
            styles.append(("messy", s))
            break
    old_text = text_key(old)
    unambiguous = generate._clean_is_unambiguous(old, new, where) and all(
        _distinct(old_text, new, a, b) for a, b in where
    )
    out = []
    for style_name, style in styles:
        snippet = "\n".join(generate.render(r["language"], new, where, style, fns)) + "\n"
        name = f"{case_stem(r)}_{style_name}"
        out.append(
            Case(
                name,
                r["package"],
                r["edit"],
                r["path"],
                r["language"],
                r["license"],
                r["message"],
                style_name,
                style.tags(),
                r["before"],
                r["after"],
                snippet,
                instruction(r["message"]),
                tuple(where),
                unambiguous,
            )
        )
    return out


def shows_edges(before: str, after: str) -> bool:
    """Whether a snippet can show the change at the file's edges: it cannot when the change adds or
    removes blank lines at the very start or end of the file, or the final newline (`render` trims a
    snippet's edge blank lines, and no text says "no newline here"). Such an edit's file after it is
    out of any snippet's reach, so the edit gives no case."""

    def edges(text: str) -> tuple[int, int, bool]:
        return len(text) - len(text.lstrip("\n")), len(text) - len(text.rstrip("\n")), text.endswith("\n")

    return edges(before) == edges(after)


def cases(root: Path = DATA, seed: int = SEED) -> Iterator[Case]:
    """Every case of every release edit whose change a snippet can show (`shows_edges`), in a fixed
    order (language, package, version, path, edit; clean first)."""
    for r in records(root):
        if shows_edges(r["before"], r["after"]):
            yield from cases_for(r, seed)


def sample(all_cases: list[Case], pairs_per_language: int = SAMPLE_PAIRS_PER_LANGUAGE, seed: int = SEED) -> list[Case]:
    """A balanced subset: per language, edits taken with both their clean and messy snippet, files of
    at most SAMPLE_MAX_LINES lines, the packages in turn, in a seeded order."""
    pairs: dict[tuple[str, str], list[Case]] = {}
    for c in all_cases:
        pairs.setdefault((c.package, c.edit), []).append(c)
    picked: list[Case] = []
    for language in PREFIX:
        full = [
            p
            for p in pairs.values()
            if len(p) == 2
            and p[0].language == language
            and max(len(lines_of(p[0].before)), len(lines_of(p[0].after))) <= SAMPLE_MAX_LINES
        ]
        by_package: dict[str, list[list[Case]]] = {}
        for p in sorted(full, key=lambda p: hashlib.sha256(f"{seed}:{p[0].package}:{p[0].edit}".encode()).hexdigest()):
            by_package.setdefault(p[0].package, []).append(p)
        chosen: list[list[Case]] = []
        while len(chosen) < pairs_per_language and any(by_package.values()):
            for package in sorted(by_package):
                if by_package[package] and len(chosen) < pairs_per_language:
                    chosen.append(by_package[package].pop(0))
        picked += [c for p in sorted(chosen, key=lambda p: p[0].name) for c in p]
    return picked


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a TOML basic string here


def write(case: Case, root: Path) -> Path:
    d = root / case.name
    d.mkdir(parents=True, exist_ok=True)
    (d / f"before{case.ext}").write_text(case.before, encoding="utf-8", newline="")
    (d / f"after{case.ext}").write_text(case.after, encoding="utf-8", newline="")
    (d / "edit.txt").write_text(case.snippet, encoding="utf-8", newline="")
    meta = {
        "why": f"Real edit between two releases ({case.style} snippet drawn from its change)"
        + (f": {case.message}" if case.message else ""),
        "kind": "snippet",
        "language": case.language,
        "bench": False,
        "known_failure": False,
        "tags": [],
        "style": case.style,
        "messy": list(case.messy),
        "package": case.package,
        "edit": case.edit,
        "path": case.path,
        "license": case.license,
        "unambiguous": case.unambiguous,
    }
    if case.instruction is not None:
        meta["instruction"] = case.instruction
    (d / "case.toml").write_text("".join(f"{k} = {_toml(v)}\n" for k, v in meta.items()), encoding="utf-8")
    return d


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--sample", type=Path, metavar="DIR", help="write the balanced frozen sample here")
    group.add_argument("--all", type=Path, metavar="DIR", help="write every case here")
    args = p.parse_args(argv)
    chosen = list(cases())
    out = args.all
    if args.sample:
        chosen, out = sample(chosen), args.sample
    if out.exists():
        for d in out.iterdir():
            if d.is_dir() and (d / "case.toml").is_file():
                shutil.rmtree(d)
    for c in chosen:
        write(c, out)
    langs = sorted({c.language for c in chosen})
    print(f"{len(chosen)} cases in {out} ({', '.join(langs)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
