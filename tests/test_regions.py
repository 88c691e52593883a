"""Regions of the output (report/regions.py) per language, and a run's cost attributed to them (stats.attribute)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from fakes import TWO_FUNCTIONS

from applyedit.decoded import Step
from applyedit.report.regions import Region, find_regions
from applyedit.report.stats import RegionStats, anchored_lines, attribute

PY = TWO_FUNCTIONS
JS = """function add(a, b) {
  const total = a + b;
  return total;
}

function sub(a, b) {
  console.log("debug");
  const diff = a - b;
  return diff;
}
"""
GO = """package main

func add(a, b int) int {
	total := a + b
	return total
}

func sub(a, b int) int {
	println("debug")
	diff := a - b
	return diff
}
"""
RS = """struct Calc;

impl Calc {
    fn add(a: i32, b: i32) -> i32 {
        let total = a + b;
        total
    }

    fn sub(a: i32, b: i32) -> i32 {
        println!("debug");
        let diff = a - b;
        diff
    }
}
"""
JAVA = """public class Calc {
    int add(int a, int b) {
        int total = a + b;
        return total;
    }

    int sub(int a, int b) {
        System.out.println("debug");
        int diff = a - b;
        return diff;
    }
}
"""
SOURCES = {"python": PY, "javascript": JS, "go": GO, "rust": RS, "java": JAVA}


def two_edits(src: str) -> str:
    """Change the last line of `add` (total -> total * 2) and the `diff` line of `sub` (a - b -> b - a)."""
    return re.sub(r"total(;?)\n", r"total * 2\1\n", src, count=1).replace("a - b", "b - a")


def delete_debug(src: str) -> str:
    return "".join(line for line in src.splitlines(keepends=True) if "debug" not in line)


def table(regions: list[Region]) -> list[tuple[str, int, int, str]]:
    return [(r.kind, r.start_line, r.end_line, r.label) for r in regions]


# (kind, first output line, last output line, label), in output order.
TWO_EDITS = {
    "python": [
        ("unchanged", 1, 2, "def add"),
        ("edited", 3, 3, "def add"),
        ("unchanged", 4, 7, "def sub"),  # the blank lines go with the definition after them
        ("edited", 8, 8, "def sub"),
        ("unchanged", 9, 9, "def sub"),
    ],
    "javascript": [
        ("unchanged", 1, 2, "function add"),
        ("edited", 3, 3, "function add"),
        ("unchanged", 4, 4, "function add"),  # unchanged runs split where the top-level definition changes
        ("unchanged", 5, 7, "function sub"),
        ("edited", 8, 8, "function sub"),
        ("unchanged", 9, 10, "function sub"),
    ],
    "go": [
        ("unchanged", 1, 1, "lines 1-1"),  # `package main`: top level, labelled by its lines
        ("unchanged", 2, 4, "func add"),
        ("edited", 5, 5, "func add"),
        ("unchanged", 6, 6, "func add"),
        ("unchanged", 7, 9, "func sub"),
        ("edited", 10, 10, "func sub"),
        ("unchanged", 11, 12, "func sub"),
    ],
    "rust": [
        ("unchanged", 1, 1, "struct Calc"),
        ("unchanged", 2, 5, "impl Calc"),  # unchanged: one region per top-level definition
        ("edited", 6, 6, "impl Calc › fn add"),  # edited: the innermost definition
        ("unchanged", 7, 10, "impl Calc"),
        ("edited", 11, 11, "impl Calc › fn sub"),
        ("unchanged", 12, 14, "impl Calc"),
    ],
    "java": [
        ("unchanged", 1, 3, "class Calc"),
        ("edited", 4, 4, "class Calc › method add"),
        ("unchanged", 5, 8, "class Calc"),
        ("edited", 9, 9, "class Calc › method sub"),
        ("unchanged", 10, 12, "class Calc"),
    ],
}

# The deleted region: (output line before which the line vanished, original line, label).
DELETION = {
    "python": (7, 7, "def sub"),
    "javascript": (7, 7, "function sub"),
    "go": (9, 9, "func sub"),
    "rust": (10, 10, "impl Calc › fn sub"),
    "java": (8, 8, "class Calc › method sub"),
}


@pytest.mark.parametrize("language", SOURCES)
def test_two_edits_in_two_functions(language: str) -> None:
    """Two edits in two functions: two edited regions, each labelled with its function."""
    assert table(find_regions(SOURCES[language], two_edits(SOURCES[language]), language)) == TWO_EDITS[language]


@pytest.mark.parametrize("language", SOURCES)
def test_pure_deletion_is_a_zero_line_region(language: str) -> None:
    """A deleted line becomes a zero-line deleted region labelled with its enclosing definition in the original."""
    regions = find_regions(SOURCES[language], delete_debug(SOURCES[language]), language)
    [deleted] = [r for r in regions if r.kind == "deleted"]
    at, orig, label = DELETION[language]
    assert (deleted.start_line, deleted.end_line, deleted.orig_start, deleted.orig_end) == (at, at - 1, orig, orig)
    assert deleted.lines == 0 and deleted.label == label
    assert all(r.kind == "unchanged" for r in regions if r is not deleted)


def test_no_grammar_labels_by_lines() -> None:
    """Without a grammar, regions are the diff's runs, labelled "lines A-B" ("original lines A-B" if deleted)."""
    original = "alpha\nbeta\ngamma\ndelta\nepsilon\n"
    body = "alpha\nBETA\ngamma\nepsilon\n"
    assert [
        (r.kind, r.start_line, r.end_line, r.orig_start, r.orig_end, r.label)
        for r in find_regions(original, body, "text")
    ] == [
        ("unchanged", 1, 1, 1, 1, "lines 1-1"),
        ("edited", 2, 2, 2, 2, "lines 2-2"),
        ("unchanged", 3, 3, 3, 3, "lines 3-3"),
        ("deleted", 4, 3, 4, 4, "original lines 4-4"),
        ("unchanged", 4, 4, 5, 5, "lines 4-4"),
    ]


def test_method_edit_and_inserted_function() -> None:
    """A method edit names class and method; one edited run holding it and a new function splits in two."""
    original = "class Rule:\n    def __init__(self, name):\n        self.name = name\n\n\ndef f():\n    return 1\n"
    body = original.replace("= name\n", "= name.strip()\n").replace("def f", "def g():\n    pass\n\n\ndef f")
    assert [
        (r.kind, r.start_line, r.end_line, r.orig_start, r.orig_end, r.label)
        for r in find_regions(original, body, "python")
    ] == [
        ("unchanged", 1, 2, 1, 2, "class Rule"),  # the class line and the method's first line
        ("edited", 3, 3, 3, 3, "class Rule › def __init__"),
        ("edited", 4, 7, 3, 3, "def g"),  # the pieces of one edited run share its original lines
        ("unchanged", 8, 11, 4, 7, "def f"),
    ]


def test_edited_run_across_two_functions_is_split() -> None:
    """One edited run that spans two functions becomes two edited regions, one per function."""
    original = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    body = "def a():\n    return 10\n\n\ndef b():\n    return 20\n".replace("\n\n\ndef b", "\n\n\n# new\ndef b")
    assert table(find_regions(original, body, "python")) == [
        ("unchanged", 1, 1, "def a"),
        ("edited", 2, 2, "def a"),
        ("unchanged", 3, 4, "lines 3-4"),
        ("edited", 5, 5, "lines 5-5"),
        ("unchanged", 6, 6, "def b"),
        ("edited", 7, 7, "def b"),
    ]


def test_empty_texts() -> None:
    """An empty output has no regions; deleting everything is one deleted region at line 1."""
    assert find_regions("", "", "python") == []
    assert table(find_regions("x = 1\n", "", "python")) == [("deleted", 1, 0, "original lines 1-1")]


ALPHABETS = {
    "text": ["a", "b", "c", "", "  d"],
    "python": ["def f():", "    x = 1", "", "class A:", "    def g(self):", "        pass", "y = 2"],
}


@pytest.mark.parametrize("language", ALPHABETS)
@settings(derandomize=True, deadline=None, max_examples=100)
@given(data=st.data())
def test_regions_tile_the_output(language: str, data: st.DataObject) -> None:
    """Non-deleted regions cover every output line once, in order; unchanged ones copy their original lines."""
    old, new = (data.draw(st.lists(st.sampled_from(ALPHABETS[language]), max_size=14)) for _ in range(2))
    original, body = "".join(x + "\n" for x in old), "".join(x + "\n" for x in new)
    regions = find_regions(original, body, language)
    line = 1
    for r in regions:
        assert r.start_line == line and r.lines >= 0 and (r.lines == 0) == (r.kind == "deleted")
        line = r.end_line + 1
        if r.kind == "unchanged":
            assert new[r.start_line - 1 : r.end_line] == old[r.orig_start - 1 : r.orig_end]
        if r.kind == "deleted":
            assert r.orig_end >= r.orig_start
        assert r.label
    assert line == len(new) + 1


# --- attribution ---------------------------------------------------------------------------------


def step(index: int, k: int, drafted: int, accepted: int, emitted: int, start_s: float, time_s: float) -> Step:
    return Step(index, k, tuple(range(drafted)), accepted, tuple(range(emitted)), start_s, time_s)


FIELDS = ("lines", "tokens", "drafted", "accepted", "passes", "k_sum", "time_ns")


def numbers(s: RegionStats) -> tuple[int, ...]:
    return tuple(getattr(s, name) for name in FIELDS)


def test_attribution_by_hand() -> None:
    """A hand-built run: every token, draft token and pass lands where stats.LEGEND says."""
    regions = [
        Region("unchanged", 1, 2, 1, 2, "A"),
        Region("edited", 3, 3, 3, 3, "B"),
        Region("deleted", 4, 3, 4, 4, "C"),
        Region("unchanged", 4, 4, 5, 5, "D"),
    ]
    # Output tokens 0..6 by line: A A | A | B B | D | fence (line 4, after the 4-line body).
    lines = [0, 0, 1, 2, 2, 3, 4]
    steps = [
        step(0, 4, 4, 2, 3, 0.0, 0.1),  # 2 accepted (pos 0, 1) + correction at pos 2; 2 rejected at pos 2: A
        step(1, 4, 3, 0, 1, 0.1, 0.2),  # all 3 rejected at pos 3 (B); the correction is at pos 3: B
        step(2, 2, 0, 0, 1, 0.3, 0.05),  # nothing drafted; the bonus at pos 4: B
        step(3, 8, 2, 1, 2, 0.35, 0.3),  # accepted at pos 5 (D); correction = fence at pos 6 and 1 rejected: end
        step(4, 8, 1, 0, 0, 0.65, 0.01),  # an EOS-only pass: nothing emitted, its pass and draft go to end
    ]
    stats, end, totals = attribute(regions, steps, lines, num_body_tokens=6)
    assert [numbers(s) for s in stats] == [
        (2, 3, 4, 2, 1, 4, 100_000_000),
        (1, 2, 3, 0, 2, 6, 250_000_000),
        (0, 0, 0, 0, 0, 0, 0),
        (1, 1, 1, 1, 1, 8, 300_000_000),
    ]
    assert numbers(end) == (0, 1, 2, 0, 1, 8, 10_000_000)
    assert numbers(totals) == (4, 7, 10, 3, 5, 26, 660_000_000)
    assert stats[0].acceptance == 0.5 and stats[1].tokens_per_pass == 1.0 and stats[1].mean_k == 3.0
    assert (stats[0].first_emit_s, stats[1].last_emit_s) == (0.1, 0.35)
    assert (totals.first_emit_s, totals.last_emit_s) == (0.1, pytest.approx(0.65))  # the last token: step 3
    assert totals.time_s == pytest.approx(0.66)


def test_attribution_refuses_impossible_steps() -> None:
    """accepted <= drafted <= k is checked on every step."""
    with pytest.raises(AssertionError):
        attribute([], [step(0, 2, 3, 0, 1, 0.0, 0.1)], [0], 0)
    with pytest.raises(AssertionError):
        attribute([], [step(0, 4, 1, 2, 1, 0.0, 0.1)], [0], 0)


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[Region], list[Step], list[int], int]:
    steps, start = [], 0.0
    for index in range(draw(st.integers(0, 12))):
        k = draw(st.integers(0, 8))
        drafted = draw(st.integers(0, k))
        accepted = draw(st.integers(0, drafted))
        emitted = draw(st.integers(0, accepted + 1))  # a stop cut or EOS may shorten it, down to nothing
        time_s = draw(st.floats(0, 2, allow_nan=False))
        steps.append(step(index, k, drafted, accepted, emitted, start, time_s))
        start += time_s
    regions, line = [], 1
    for size in draw(st.lists(st.integers(0, 4), max_size=6)):  # size 0: a deleted region
        kind = "deleted" if size == 0 else draw(st.sampled_from(["unchanged", "edited"]))
        regions.append(Region(kind, line, line + size - 1, 1, 1, f"r{len(regions)}"))
        line += size
    num_lines = line - 1
    num_tokens = sum(len(s.emitted) for s in steps)
    num_body = draw(st.integers(0, num_tokens)) if num_lines else 0
    body = (
        sorted(draw(st.lists(st.integers(0, num_lines - 1), min_size=num_body, max_size=num_body))) if num_body else []
    )
    after = [
        num_lines + n
        for n in sorted(
            draw(st.lists(st.integers(0, 2), min_size=num_tokens - num_body, max_size=num_tokens - num_body))
        )
    ]
    return regions, steps, body + after, num_body


@settings(derandomize=True, deadline=None, max_examples=300)
@given(runs())
def test_regions_add_up_to_the_totals(run: tuple[list[Region], list[Step], list[int], int]) -> None:
    """Regions + end add up to the totals field by field, and the totals are the sums over the steps."""
    regions, steps, lines, num_body = run
    stats, end, totals = attribute(regions, steps, lines, num_body)
    for name in FIELDS:
        assert sum(getattr(s, name) for s in stats) + getattr(end, name) == getattr(totals, name), name
    assert end.lines == 0 and totals.lines == sum(r.lines for r in regions)
    assert totals.tokens == len(lines) == sum(len(s.emitted) for s in steps)
    assert totals.drafted == sum(len(s.draft) for s in steps)
    assert totals.accepted == sum(s.num_accepted for s in steps)
    assert totals.passes == len(steps) and totals.k_sum == sum(s.k for s in steps)
    assert totals.time_ns == sum(round(s.time_s * 1e9) for s in steps)
    assert totals.time_s == pytest.approx(sum(s.time_s for s in steps), abs=1e-6)
    for region, s in zip(regions, stats, strict=True):
        assert s.accepted <= s.drafted
        assert s.tokens == sum(region.start_line - 1 <= line < region.end_line for line in lines[:num_body])
        if region.kind == "deleted":
            assert numbers(s) == (0,) * len(FIELDS)
    assert end.tokens == len(lines) - num_body


def test_anchored_lines_are_the_lines_of_forced_tokens_only() -> None:
    """Output lines all of whose bytes (the newline too) came from forced tokens, blank lines included;
    forced tokens are counted per region, and a draft after them is placed after them."""

    pieces = [b"a = 1\n\n", b"b = 2\n", b"c", b" = 3\n", b"d = 4\n"]  # lines 1-5
    steps = [
        Step(0, 2, (7,), 1, (0, 1, 2), 0.0, 0.1, forced=2),  # forced: lines 1-3; drafted "c", kept
        Step(1, 0, (), 0, (3,), 0.1, 0.1),  # the model: " = 3\n"
        Step(2, 0, (), 0, (4,), 0.2, 0.1, forced=1),
    ]  # forced: line 5
    assert anchored_lines(steps, pieces, 5) == [(1, 3), (5, 5)]
    assert anchored_lines(steps, pieces, 4) == [(1, 3)]
    regions = [Region("unchanged", 1, 5, 1, 5, "all")]
    per_region, _, totals = attribute(regions, steps, [0, 2, 3, 3, 4], 5)
    assert per_region[0].forced == totals.forced == 3 and totals.accepted == 1
