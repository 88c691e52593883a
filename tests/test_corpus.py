"""The generated corpus (corpus/generate.py): deterministic, big and varied enough, the committed
sample is what the generator makes, and every expected file parses."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "corpus"


def _load(name: str):  # noqa: ANN202 (a module)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


generate = _load("generate")


@pytest.fixture(scope="module")
def corpus() -> list:
    return generate.corpus()


def test_same_seed_same_cases_other_seed_other_cases(corpus: list) -> None:
    src = generate.sources()[0]
    again = generate.cases_for(src, generate.SEED)
    assert again == [c for c in corpus if c.source == src.path.as_posix()]
    assert [c.after for c in generate.cases_for(src, generate.SEED + 1)] != [c.after for c in again]


def test_size_languages_styles_and_kinds(corpus: list) -> None:
    assert len(corpus) >= 300
    per = Counter((c.language, c.style) for c in corpus)
    assert len({lang for lang, _ in per}) >= 5
    assert all(per[(lang, "clean")] == per[(lang, "messy")] >= 30 for lang, _ in per)
    kinds = Counter(k for c in corpus for k in c.kinds)
    assert set(kinds) == {"change_stmt", "insert_stmt", "add_def", "delete_def", "change_sig"}
    assert sum(len(c.kinds) > 1 for c in corpus) >= 20  # several edits at once
    traits = Counter(t for c in corpus for t in c.messy)
    for trait in (
        "context-1",
        "context-0",
        "whole-function",
        "marker-in-body",
        "wording",
        "block-comment",
        "marker-indent-zero",
        "no-trailing-marker",
        "no-leading-marker",
    ):
        assert traits[trait] >= 5, trait


def test_edits_that_change_nothing_or_break_the_parse_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generator's filter, fed hand-made edits: one that changes nothing and one that no longer
    parses are both dropped, and only the edit that is a real, parsing change is kept."""
    src = generate.Source("python", Path("x.py"), "def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    same = generate.Edit(["change_stmt"], [(1, 2, ["    return 1"])])
    broken = generate.Edit(["change_stmt"], [(1, 2, ["    return (1"])])
    good = generate.Edit(["change_stmt"], [(1, 2, ["    return 10"])])
    assert not generate.parses(src.text, src.text.replace("return 1\n", "return (1\n"), "python")
    for offered, kept in (([same, broken], 0), ([broken, good], 1)):
        queue = list(offered)
        monkeypatch.setitem(generate.MUTATORS, "change_stmt", lambda *_, q=queue: q.pop(0) if q else None)
        monkeypatch.setattr(generate, "KINDS", ("change_stmt",))
        found = generate.edits_for(src, 1, count=1)
        assert [e for e, _ in found] == ([good] if kept else [])


def test_clean_snippet_shape() -> None:
    src = generate.Source("python", Path("x.py"), "")
    new = ["def a():", "    x = 1", "    y = 2", "    z = 3", "    w = 4", "", "", "def b():", "    return 5"]
    # one changed line (row 3); two non-blank context lines each side; markers for the rest
    clean = generate.render(src.language, new, [(3, 4)], generate.Style())
    assert clean == [
        "# ... existing code ...",
        "    x = 1",
        "    y = 2",
        "    z = 3",
        "    w = 4",
        "",
        "",
        "def b():",
        "    # ... existing code ...",
    ]  # indented like the code it stands for
    messy = generate.render(
        src.language, new, [(3, 4)], generate.Style(context=1, marker_indent="zero", wording="...", drop_trailing=True)
    )
    assert messy == ["# ...", "    y = 2", "    z = 3", "    w = 4"]


def test_committed_sample_is_the_generators(corpus: list) -> None:
    sample = generate.sample(corpus)
    root = ROOT / "sample"
    on_disk = sorted(d.name for d in root.iterdir() if (d / "case.toml").is_file())
    assert on_disk == sorted(c.name for c in sample)
    assert len(sample) >= 60 and len({c.language for c in sample}) >= 5
    assert Counter(c.style for c in sample) == {"clean": len(sample) // 2, "messy": len(sample) // 2}
    for c in sample:
        d = root / c.name
        assert (d / f"before{c.ext}").read_text(encoding="utf-8") == c.before
        assert (d / f"after{c.ext}").read_text(encoding="utf-8") == c.after
        assert (d / "edit.txt").read_text(encoding="utf-8") == c.snippet
        meta = tomllib.loads((d / "case.toml").read_text())
        assert (meta["style"], meta["language"], meta["kind"]) == (c.style, c.language, "snippet")


def test_merger_on_the_whole_corpus(corpus: list) -> None:
    """The merger alone: every clean snippet exact, never ok-but-wrong on a messy one, and most
    messy ones resolved."""
    from applyedit.markers import is_marker
    from applyedit.merge import implied_snippet, merge

    wrong, clean_misses, messy_exact, messy = [], [], 0, 0
    for c in corpus:
        # as the product reads it: a snippet without any lazy marker is read with implied markers
        # when it is a piece of the file (merge.implied_snippet), else it is an instruction
        marked = any(is_marker(x) for x in c.snippet.split("\n"))
        r = merge(c.before, c.snippet if marked else implied_snippet(c.before, c.snippet, c.language) or c.snippet)
        if r.ok and r.merged != c.after:
            wrong.append(c.name)
        if r.ok and not r.whole_file:  # the hunks are ordered, apart, and rebuild the merged text
            assert all(a.orig_end < b.orig_start for a, b in zip(r.hunks, r.hunks[1:])), c.name
            assert len(r.ops) == c.before.count("\n"), c.name
        if c.style == "clean" and not (r.ok and r.merged == c.after):
            clean_misses.append(f"{c.name}: {r.reason or 'wrong'}")
        if c.style == "messy":
            messy += 1
            messy_exact += r.ok and r.merged == c.after
    assert clean_misses == []
    assert wrong == []
    assert messy_exact >= 0.8 * messy


def test_implied_markers_only_for_pieces_of_the_file(corpus: list) -> None:
    """Marker-less messy snippets (both markers left out) are read with implied markers, never wrongly,
    and no instruction fixture, no prose, no whole new file is: those stay instructions."""
    from applyedit.markers import is_marker
    from applyedit.merge import implied_snippet, merge

    bare = [c for c in corpus if not any(is_marker(x) for x in c.snippet.split("\n"))]
    implied = {c.name: implied_snippet(c.before, c.snippet, c.language) for c in bare}
    assert len(bare) >= 5 and sum(w is not None for w in implied.values()) >= 0.7 * len(bare)
    for c in bare:
        if implied[c.name] is not None:
            assert merge(c.before, implied[c.name]).merged == c.after, c.name
    for d in sorted((ROOT.parent / "fixtures").glob("*_instr")):
        before = next(d.glob("before.*")).read_text(encoding="utf-8")
        meta = tomllib.loads((d / "case.toml").read_text())
        assert implied_snippet(before, (d / "edit.txt").read_text(encoding="utf-8"), meta["language"]) is None, d.name
    c = next(c for c in corpus if c.language == "python")
    lines = c.before.split("\n")
    whole = "\n".join(lines[:-5]) + "\n"  # the whole new file, its tail deleted: not a piece of it
    assert implied_snippet(c.before, whole, "python") is None
    assert implied_snippet(c.before, f"Please change this:\n{lines[3]}\n{lines[4]}\n", "python") is None


def test_merger_on_the_snippet_fixtures() -> None:
    """The hand-written snippet fixtures, each edit as the CLI hands it to the merger (a pasted chat
    reply taken out of its fence): every one exact (10 of 14 before the merger's rework)."""
    from applyedit.merge import merge
    from applyedit.textio import extract_edit

    fixtures = ROOT.parent / "fixtures"
    checked = 0
    for d in sorted(p for p in fixtures.iterdir() if (p / "case.toml").is_file()):
        meta = tomllib.loads((d / "case.toml").read_text())
        if meta.get("kind") != "snippet":
            continue
        before = next(d.glob("before.*")).read_bytes().decode("utf-8").replace("\r\n", "\n")
        after = next(d.glob("after.*")).read_bytes().decode("utf-8").replace("\r\n", "\n")
        r = merge(before, extract_edit((d / "edit.txt").read_text(encoding="utf-8"), meta["language"]))
        assert r.ok and r.merged == after, f"{d.name}: {r.reason or 'wrong'}"
        checked += 1
    assert checked >= 14
