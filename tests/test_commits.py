"""The commit corpus (corpus/commits/): big and varied enough, every repository's license kept, the
derivation of snippets deterministic, and the committed sample what cases.py writes."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "corpus" / "commits"


def _load(name: str):  # noqa: ANN202 (a module)
    key = f"commits_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, ROOT / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


cases = _load("cases")


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return cases.records()


@pytest.fixture(scope="module")
def all_cases() -> list:
    return list(cases.cases())


def test_size_repositories_languages_and_licenses(records: list[dict]) -> None:
    assert len(records) >= 1000
    repos = Counter(r["repo"] for r in records)
    assert len(repos) >= 10 and max(repos.values()) <= 150
    assert len({r["language"] for r in records}) >= 5
    for repo in repos:
        text = (ROOT / "licenses" / f"{repo.replace('/', '+')}.txt").read_text(encoding="utf-8")
        assert len(text) > 500, repo
    assert {r["license"] for r in records} <= {
        "MIT",
        "BSD-3-Clause",
        "BSD-2-Clause",
        "Apache-2.0",
        "ISC",
        "MIT OR Apache-2.0",
    }
    sources = (ROOT / "SOURCES.md").read_text(encoding="utf-8")
    assert all(f"| {repo} |" in sources for repo in repos)
    for path in (ROOT / "data").glob("*"):
        assert path.stat().st_size < 5 * 2**20, path.name


def test_every_commit_changes_one_file_and_is_recorded_whole(records: list[dict]) -> None:
    assert len({(r["repo"], r["commit"]) for r in records}) == len(records)
    for r in records:
        assert r["after"] != r["before"], r["commit"]
        assert len(r["commit"]) == 40 and all(ch in "0123456789abcdef" for ch in r["commit"]), r["commit"]
        assert r["path"] and r["message"] and r["language"] in cases.PREFIX, r["commit"]


def test_changed_ranges_and_a_pure_deletion() -> None:
    old = ["a", "b", "c", "d", "e", "f", "g"]
    assert cases.changed_ranges(old, ["a", "b", "X", "d", "e", "f", "g"]) == [(2, 3)]
    assert cases.changed_ranges(old, ["a", "b", "c", "f", "g"]) == [(3, 3)]  # d, e deleted: before row 3
    new = ["def f():", "    x = 1", "    y = 2", "    z = 3", "    w = 4", "    v = 5", "    return x"]
    old = new[:3] + ["    dropped = 0"] + new[3:]
    where = cases.changed_ranges(old, new)
    snippet = cases.generate.render("python", new, where, cases.generate.Style())
    # the two lines around the deletion stand side by side, two non-blank lines of context each side
    assert snippet == [
        "# ... existing code ...",
        "    x = 1",
        "    y = 2",
        "    z = 3",
        "    w = 4",
        "    # ... existing code ...",
    ]


def test_a_deletion_slides_to_where_the_snippet_shows_it() -> None:
    """Deleting b(), whose tail is a()'s tail too: difflib's place (after b's closing line) leaves as
    context `return 1`, `}`, `func c() {}`, a block the original holds as it is (b's tail); slid up,
    the context starts at `func a() {`, which the original never follows with `func c`."""
    old = [
        "x := 0",
        "",
        "func a() {",
        "\treturn 1",
        "}",
        "",
        "func b() {",
        "\tx()",
        "\treturn 1",
        "}",
        "",
        "func c() {}",
        "",
        "y := 1",
        "z := 2",
    ]
    new = old[:6] + old[11:]
    where = cases.changed_ranges(old, new)
    assert len(where) == 1 and where[0][0] == where[0][1] and cases._distinct(cases.text_key(old), new, *where[0])
    snippet = cases.generate.render("go", new, where, cases.generate.Style())
    assert snippet == [
        "// ... existing code ...",
        "func a() {",
        "\treturn 1",
        "}",
        "",
        "func c() {}",
        "// ... existing code ...",
    ]
    # a deletion at the end: the context holds as it is in the original, but not at its end
    old = ["a = 1", "b = 2", "c = 3", "d = 4"]
    assert cases._distinct(cases.text_key(old), old[:3], 3, 3)
    old = ["v", "w", "a", "b", "a", "b", "c", "d", "e"]  # a, b deleted once: the snippet (a, b, c, d) shows no change
    assert not cases._distinct(cases.text_key(old), old[:4] + old[6:], 4, 4)


def test_instruction_only_when_the_message_reads_as_one() -> None:
    assert cases.instruction("Add a timeout to the client") == "Add a timeout to the client"
    assert cases.instruction("fix(parser): handle empty input (#123)") == "Handle empty input"
    assert cases.instruction("Fixes #20.") is None
    assert cases.instruction("Merge pull request #5 from x/y") is None
    assert cases.instruction("v1.2.3") is None
    assert cases.instruction("Added tests") is None  # not imperative
    assert cases.instruction("Fix typo") is None  # fewer than three words


def test_derivation_is_deterministic(records: list[dict], all_cases: list) -> None:
    picked = records[:: max(1, len(records) // 40)]
    for r in picked:
        again = cases.cases_for(r)
        assert again == cases.cases_for(r)
        assert again == [c for c in all_cases if (c.repo, c.commit) == (r["repo"], r["commit"])]
    styles = Counter(c.style for c in all_cases)
    assert styles["messy"] >= 0.95 * styles["clean"]
    traits = Counter(t for c in all_cases for t in c.messy)
    for trait in (
        "context-1",
        "whole-function",
        "marker-in-body",
        "wording",
        "block-comment",
        "marker-indent-zero",
        "no-trailing-marker",
        "no-leading-marker",
    ):
        assert traits[trait] >= 20, trait


def test_committed_sample_is_what_cases_py_writes(all_cases: list) -> None:
    sample = cases.sample(all_cases)
    root = ROOT / "sample"
    on_disk = sorted(d.name for d in root.iterdir() if (d / "case.toml").is_file())
    assert on_disk == sorted(c.name for c in sample)
    assert len(sample) >= 120 and len({c.language for c in sample}) >= 5
    assert Counter(c.style for c in sample) == {"clean": len(sample) // 2, "messy": len(sample) // 2}
    for c in sample:
        d = root / c.name
        assert (d / f"before{c.ext}").read_text(encoding="utf-8") == c.before
        assert (d / f"after{c.ext}").read_text(encoding="utf-8") == c.after
        assert (d / "edit.txt").read_text(encoding="utf-8") == c.snippet
        meta = tomllib.loads((d / "case.toml").read_text(encoding="utf-8"))
        assert (meta["style"], meta["language"], meta["kind"]) == (c.style, c.language, "snippet")
        assert (meta["repo"], meta["commit"], meta["path"], meta["license"]) == (c.repo, c.commit, c.path, c.license)
        assert meta.get("instruction") == c.instruction
