"""The release corpus (corpus/releases/): big and varied enough, taken from the package registries
with every package's license and archive checksums kept, the derivation of snippets deterministic,
and the committed sample what cases.py writes."""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from fakes import corpus_module

ROOT = Path(__file__).resolve().parent.parent / "corpus" / "releases"


cases = corpus_module("releases/cases")


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return cases.records()


@pytest.fixture(scope="module")
def all_cases() -> list:
    return list(cases.cases())


mine = corpus_module("releases/mine")


def test_size_packages_languages_and_licenses(records: list[dict]) -> None:
    assert len(records) >= 1500
    packages = Counter(r["package"] for r in records)
    assert len(packages) >= 20 and max(packages.values()) <= mine.CAP_PER_PACKAGE
    assert len({r["language"] for r in records}) >= 6
    assert {r["registry"] for r in records} <= {"pypi", "npm"}
    table = {p.name: p for p in mine.PACKAGES}
    for name in packages:
        text = (ROOT / "licenses" / f"{table[name].slug}.txt").read_text(encoding="utf-8")
        assert len(text) > 300, name
    assert {r["license"] for r in records} <= {
        "MIT",
        "BSD-3-Clause",
        "BSD-2-Clause",
        "Apache-2.0",
        "ISC",
        "Apache-2.0 OR MIT",
        "Apache-2.0 OR BSD-2-Clause",
    }
    sources = (ROOT / "SOURCES.md").read_text(encoding="utf-8")
    assert all(f"| {name} |" in sources for name in packages)
    for path in (ROOT / "data").glob("*"):
        assert path.stat().st_size < 5 * 2**20, path.name


def test_every_archive_is_recorded_with_its_checksum(records: list[dict]) -> None:
    """Each version pair an edit comes from is two consecutive versions of the package's table, and every
    archive of the table has its file name, size and SHA-256 in archives.json and SOURCES.md."""
    lock = json.loads((ROOT / "archives.json").read_text(encoding="utf-8"))
    sources = (ROOT / "SOURCES.md").read_text(encoding="utf-8")
    table = {p.name: p for p in mine.PACKAGES}
    for p in mine.PACKAGES:
        for v in p.versions:
            a = lock[f"{p.registry}/{p.name}/{v}"]
            assert len(a["sha256"]) == 64 and a["size"] > 0 and a["version"] == v
            assert f"`{a['sha256']}`" in sources
    for r in records:
        versions = table[r["package"]].versions
        assert versions.index(r["to"]) == versions.index(r["from"]) + 1, r["edit"]


def test_every_edit_is_one_cluster_recorded_whole(records: list[dict]) -> None:
    assert len({(r["package"], r["edit"]) for r in records}) == len(records)
    for r in records:
        assert r["after"] != r["before"], r["edit"]
        assert r["edit"].startswith(f"{r['from']}..{r['to']}:{r['path']}#"), r["edit"]
        assert r["path"] and r["language"] in cases.PREFIX, r["edit"]
        old, new = cases.lines_of(r["before"]), cases.lines_of(r["after"])
        assert mine.MIN_LINES <= len(old) <= mine.MAX_LINES and len(new) <= mine.MAX_LINES, r["edit"]
        groups = mine.clusters(old, new)
        assert len(groups) == 1, r["edit"]
        changed = sum(i2 - i1 + j2 - j1 for i1, i2, j1, j2 in groups[0])
        assert 1 <= changed <= mine.MAX_CHANGED, r["edit"]


def test_clusters_and_one_cluster_applied() -> None:
    old = [f"line {i}" for i in range(20)]
    new = old[:2] + ["changed 2"] + old[3:5] + ["added"] + old[5:15] + old[16:]
    groups = mine.clusters(old, new)
    assert len(groups) == 2  # rows 2 and 5 are 2 unchanged lines apart: one cluster; row 15 another
    assert mine.apply_cluster(old, new, groups[0]) == old[:2] + ["changed 2"] + old[3:5] + ["added"] + old[5:]
    assert mine.apply_cluster(old, new, groups[1]) == old[:15] + old[16:]


def test_changelog_entry_names_the_edit() -> None:
    entries = ["Fix `Console.print` dropping the last line", "Add the ``strict`` option to parse_args"]
    assert mine.message_for(entries, ["    def print(self, text):"]) == entries[0]
    assert mine.message_for(entries, ["    strict = False"]) == entries[1]
    assert mine.message_for(entries, ["    x = 1"]) == ""
    assert cases.instruction(entries[0]) == entries[0]
    assert cases.instruction("Fixed a crash when `value` is empty") == "Fix a crash when `value` is empty"
    assert mine.clean_entry("Fixed :issue:`123` handling of ``None`` (#45) by @someone in x") == (
        "Fixed handling of `None`"
    )
    assert mine.clean_entry("2676_, 2678_: replace unsafe `sprintf` calls (7fd0575), closes") == (
        "replace unsafe `sprintf` calls"
    )


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
    assert cases.instruction("Added a timeout to the client") == "Add a timeout to the client"
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
        assert again == [c for c in all_cases if (c.package, c.edit) == (r["package"], r["edit"])]
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
    assert len(sample) >= 120 and len({c.language for c in sample}) >= 6
    assert len({c.name for c in all_cases}) == len(all_cases)
    assert Counter(c.style for c in sample) == {"clean": len(sample) // 2, "messy": len(sample) // 2}
    for c in sample:
        d = root / c.name
        assert (d / f"before{c.ext}").read_text(encoding="utf-8") == c.before
        assert (d / f"after{c.ext}").read_text(encoding="utf-8") == c.after
        assert (d / "edit.txt").read_text(encoding="utf-8") == c.snippet
        meta = tomllib.loads((d / "case.toml").read_text(encoding="utf-8"))
        assert (meta["style"], meta["language"], meta["kind"]) == (c.style, c.language, "snippet")
        assert (meta["package"], meta["edit"], meta["path"], meta["license"]) == (c.package, c.edit, c.path, c.license)
        assert meta.get("instruction") == c.instruction
