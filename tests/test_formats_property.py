"""Property: for random files and random line edits, the unified diff (difflib's), the SEARCH/REPLACE
blocks, the apply_patch patch and the str_replace list of the same change all give the file that
`git apply` makes of the diff (applyedit/formats/)."""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from applyedit import formats

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

WORDS = st.sampled_from(["x = 1", "return y", "", "    pass", "if a:", "# note", "call(b)", "}"])


@st.composite
def changes(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A file of distinct lines (blank ones and repeats of a word only inside a line) and the file after
    random deletions, replacements and insertions of new distinct lines."""
    size = draw(st.integers(3, 25))
    before = [f"line {i}: {draw(WORDS)}".rstrip() for i in range(size)]
    after: list[str] = []
    fresh = iter(range(10_000))
    for line in before:
        op = draw(st.sampled_from(["keep", "keep", "keep", "delete", "replace", "insert"]))
        if op in ("keep", "insert"):
            after.append(line)
        if op in ("replace", "insert"):
            after += [f"new {next(fresh)}: {draw(WORDS)}" for _ in range(draw(st.integers(1, 3)))]
    return before, after


def text(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


def groups(before: list[str], after: list[str]) -> list[tuple[list[str], list[str]]]:
    """Each group of changes with a line of context around it: the old lines and the new lines."""
    found = []
    for group in difflib.SequenceMatcher(None, before, after, autojunk=False).get_grouped_opcodes(1):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        found.append((before[i1:i2], after[j1:j2]))
    return found


def git_apply(before: str, diff: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "f.py").write_text(before)
        (Path(folder) / "change.patch").write_text(diff)
        subprocess.run(["git", "apply", "change.patch"], cwd=folder, check=True, capture_output=True)
        return (Path(folder) / "f.py").read_text()


def renderings(before: list[str], after: list[str]) -> dict[str, str]:
    diff = "".join(
        difflib.unified_diff(text(before).splitlines(True), text(after).splitlines(True), "a/f.py", "b/f.py")
    )
    blocks = "".join(
        "f.py\n```\n<<<<<<< SEARCH\n" + text(old) + "=======\n" + text(new) + ">>>>>>> REPLACE\n```\n\n"
        for old, new in groups(before, after)
    )
    patch = (
        "*** Begin Patch\n*** Update File: f.py\n"
        + "".join("@@\n" + _chunk(old, new) for old, new in groups(before, after))
        + "*** End Patch\n"
    )
    replacements = json.dumps(
        [{"path": "f.py", "old_str": text(old), "new_str": text(new)} for old, new in groups(before, after)]
    )
    return {"diff": diff, "search-replace": blocks, "patch": patch, "str-replace": replacements}


def _chunk(old: list[str], new: list[str]) -> str:
    """A chunk in apply_patch's form: context once, removed lines, added lines."""
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            out += [f" {x}\n" for x in old[i1:i2]]
        else:
            out += [f"-{x}\n" for x in old[i1:i2]] + [f"+{x}\n" for x in new[j1:j2]]
    return "".join(out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes())
def test_every_rendering_of_a_change_gives_what_git_apply_gives(change: tuple[list[str], list[str]]) -> None:
    before, after = change
    if before == after:
        return
    shown = renderings(before, after)
    expected = git_apply(text(before), shown["diff"])
    assert expected == text(after)  # the diff itself is right
    for name, edit in shown.items():
        assert formats.detect(edit) == name, edit
        assert formats.apply_edit(text(before), edit, name, "f.py").text == expected, (name, edit)
