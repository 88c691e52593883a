"""The bounded comparisons (applyedit/linediff.py): the line diff is a true diff of its inputs, takes a
common head and tail whole, and a line past `LONG_LINE` compares by equality alone."""

from __future__ import annotations

import difflib
import random

import pytest

from applyedit.linediff import LONG_LINE, Matcher, likeness


def rebuilt(a: list[str], b: list[str]) -> list[str]:
    """`b` built from `a` and the matcher's opcodes, as a patch would."""
    out: list[str] = []
    for tag, i1, i2, j1, j2 in Matcher(a, b).get_opcodes():
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
            out += a[i1:i2]
        else:
            out += b[j1:j2]
    return out


@pytest.mark.parametrize("seed", range(40))
def test_the_opcodes_turn_one_sequence_into_the_other(seed: int) -> None:
    rng = random.Random(seed)
    a = [rng.choice("abcde") for _ in range(rng.randint(0, 40))]
    b = list(a)
    for _ in range(rng.randint(0, 6)):
        i = rng.randint(0, len(b))
        op = rng.choice(("insert", "delete", "replace"))
        if op == "insert" or not b:
            b.insert(i, rng.choice("abcxyz"))
        elif op == "delete":
            del b[min(i, len(b) - 1)]
        else:
            b[min(i, len(b) - 1)] = rng.choice("xyz")
    assert rebuilt(a, b) == b
    blocks = Matcher(a, b).get_matching_blocks()
    assert blocks[-1] == (len(a), len(b), 0)
    assert all(x.a + x.size <= y.a and x.b + x.size <= y.b for x, y in zip(blocks, blocks[1:], strict=False))


def test_an_edit_in_a_long_repetitive_file_is_one_change_where_it_is() -> None:
    """20,000 lines of ten alike functions over and over (difflib alone searches each repeated line's
    every place: tens of seconds), one line edited in the middle: one replace there, the rest equal."""
    a = [f"    line {i % 10}" for i in range(20_000)]
    b = list(a)
    b[10_005] = "    line edited"
    ops = [op for op in Matcher(a, b).get_opcodes() if op[0] != "equal"]
    assert ops == [("replace", 10_005, 10_006, 10_005, 10_006)]


def test_where_the_edit_is_plain_the_diff_is_difflibs() -> None:
    a = ["def f():", "    x = 1", "    return x", "", "def g():", "    pass"]
    b = ["def f():", "    x = 2", "    y = 3", "    return x", "", "def g():", "    pass"]
    plain = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    assert Matcher(a, b).get_opcodes() == plain


def test_likeness_is_difflibs_ratio_for_code_lines() -> None:
    a, b = "total = price * count", "total = price * amount"
    assert likeness(a, b) == difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    assert likeness(a, a) == 1.0


def test_a_line_past_the_limit_is_alike_another_only_when_equal() -> None:
    """An 8 MiB line (a data blob in a snippet) costs a comparison, not a quadratic ratio; the
    counterexample: a line at the limit is still compared by its ratio."""
    long = "s = '" + "x" * (8 * 1024 * 1024) + "'"
    assert likeness(long, long[:-1] + "y") == 0.0
    assert likeness(long, str(long)) == 1.0
    at_limit = "y" * LONG_LINE
    assert 0.9 < likeness(at_limit, at_limit[:-1] + "z") < 1.0
