"""The edit formats (applyedit/formats/): unified diffs, SEARCH/REPLACE blocks, apply_patch and
str_replace JSON, each applied exactly with no model, tested on the slips assistants make in each (wrong
hunk numbers, blank context lines without their space, drifted context, re-indented blocks, curly
quotes, CRLF files, a block found twice or nowhere, later blocks depending on earlier ones, edits for
another file). Every expected file is written out by hand below."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from applyedit import api, formats
from applyedit.cli import main as cli
from applyedit.errors import AmbiguousEditError, InputError, OutputCheckError

CALC = """import math


class Calculator:
    def __init__(self):
        self.result = 0

    def add(self, n):
        self.result += n
        return self

    def sub(self, n):
        self.result -= n
        return self

    def reset(self):
        self.result = 0
        return self

    def value(self):
        return self.result
"""

# The reproducer: a SEARCH/REPLACE block in a fence after a file-name line.
SR_REPRODUCER = """calc.py
```python
<<<<<<< SEARCH
    def reset(self):
        self.result = 0
        return self
=======
    def reset(self):
        self.result = 0
        return self

    def exp(self, n):
        self.result = math.pow(self.result, n)
        return self
>>>>>>> REPLACE
```
"""

WITH_EXP = """import math


class Calculator:
    def __init__(self):
        self.result = 0

    def add(self, n):
        self.result += n
        return self

    def sub(self, n):
        self.result -= n
        return self

    def reset(self):
        self.result = 0
        return self

    def exp(self, n):
        self.result = math.pow(self.result, n)
        return self

    def value(self):
        return self.result
"""

# The same change as a unified diff whose hunk header is numbered wrong (the code is at 16-21, not 12).
DIFF_REPRODUCER = """--- a/calc.py
+++ b/calc.py
@@ -12,4 +12,8 @@
     def reset(self):
         self.result = 0
         return self
+
+    def exp(self, n):
+        self.result = math.pow(self.result, n)
+        return self
"""


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to construct a model fails the test."""

    def refuse(cls: Any, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a model was opened for an edit the formats answer")

    monkeypatch.setattr(api.Engine, "open", classmethod(refuse))


class Run:
    """One CLI run in-process: its exit code, stdout and stderr."""

    def __init__(self, capture: pytest.CaptureFixture[bytes], *args: str) -> None:
        capture.readouterr()
        with pytest.raises(SystemExit) as info:
            cli.main(list(args))
        out, err = capture.readouterr()
        self.code, self.out, self.err = int(info.value.code or 0), out.decode(), err.decode()


def applied(edit: str, name: str | None = None, original: str = CALC, target: str = "calc.py") -> formats.Applied:
    found = formats.detect(edit)
    assert found == (name or found) and found is not None, found
    return formats.apply_edit(original, edit, found, target)


# --- the reproducers, through the CLI, with no model


@pytest.mark.parametrize("edit", [SR_REPRODUCER, DIFF_REPRODUCER], ids=["search-replace", "diff"])
def test_the_reproducers_exit_0_with_the_expected_file_and_no_model(
    edit: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfdbinary: pytest.CaptureFixture[bytes],
    no_model: None,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "edit.txt").write_text(edit)
    done = Run(capfdbinary, "calc.py", "--edit", "edit.txt", "--in-place")
    assert done.code == 0, done.err
    assert (tmp_path / "calc.py").read_text() == WITH_EXP
    assert "no model ran" in done.err


def test_the_cli_prints_a_diff_that_git_applies_and_reports_the_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes], no_model: None
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "edit.txt").write_text(SR_REPRODUCER)
    done = Run(capfdbinary, "calc.py", "--edit", "edit.txt", "--report-json", "r.json")
    assert done.code == 0, done.err
    assert done.out.startswith("diff --git a/calc.py b/calc.py\n")
    assert "+    def exp(self, n):" in done.out
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["kind"] == "search-replace" and record["answer"] == "merge"
    assert "SEARCH/REPLACE" in record["summary"]["backend_reason"]


def test_a_refused_block_lists_its_places_in_the_report_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes], no_model: None
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "edit.txt").write_text(
        "<<<<<<< SEARCH\n        return self\n=======\n        return None\n>>>>>>> REPLACE\n"
    )
    done = Run(capfdbinary, "calc.py", "--edit", "edit.txt", "--report-json", "r.json")
    assert done.code == 1 and "stands at 3 places" in done.err
    record = json.loads((tmp_path / "r.json").read_text())
    assert [p["line"] for p in record["places"]] == [10, 14, 18]
    assert (tmp_path / "calc.py").read_text() == CALC


def test_a_forced_format_the_edit_is_not_written_in_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes], no_model: None
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "edit.txt").write_text(SR_REPRODUCER)
    done = Run(capfdbinary, "calc.py", "--edit", "edit.txt", "--edit-format", "patch")
    assert done.code == 1 and "--edit-format patch: the edit is not a apply_patch edit" in done.err
    assert done.out == "" and "Traceback" not in done.err


def test_edit_format_instruction_hands_a_diff_to_the_model(tmp_path: Path, no_model: None) -> None:
    """`--edit-format instruction` turns the detection off: the run goes for the model (refused here)."""
    (tmp_path / "calc.py").write_text(CALC)
    with pytest.raises(AssertionError, match="a model was opened"):
        api.apply(tmp_path / "calc.py", DIFF_REPRODUCER, edit_format="instruction", cwd=tmp_path)


def test_edit_format_snippet_refuses_words_that_are_no_snippet(tmp_path: Path, no_model: None) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    with pytest.raises(InputError, match="--edit-format snippet: the edit has no lazy marker"):
        api.apply(tmp_path / "calc.py", "Rename add to plus.", edit_format="snippet", cwd=tmp_path)


def test_a_diff_that_breaks_the_file_is_refused_by_the_output_checks(tmp_path: Path, no_model: None) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    broken = "@@ -20,2 +20,2 @@\n     def value(self):\n-        return self.result\n+        return (self.result\n"
    with pytest.raises(OutputCheckError) as refused:
        api.apply(tmp_path / "calc.py", broken, cwd=tmp_path)
    assert refused.value.exit_code == 3 and refused.value.rejected is not None
    assert "return (self.result" in refused.value.rejected


def test_crlf_file_keeps_its_line_endings(tmp_path: Path, no_model: None) -> None:
    (tmp_path / "calc.py").write_bytes(CALC.replace("\n", "\r\n").encode())
    result = api.apply(tmp_path / "calc.py", DIFF_REPRODUCER.replace("\n", "\r\n"), cwd=tmp_path)
    assert result.after == WITH_EXP.replace("\n", "\r\n")
    assert result.kind == "diff" and result.answer == "merge"


def test_an_edit_that_changes_nothing_answers_with_no_diff(tmp_path: Path, no_model: None) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    same = '{"old_str": "    def value(self):", "new_str": "    def value(self):"}'
    result = api.apply(tmp_path / "calc.py", same, cwd=tmp_path)
    assert result.diff == "" and result.after == CALC


# --- unified diffs


def test_diff_with_wrong_numbers_is_placed_by_its_context_and_says_so() -> None:
    done = applied(DIFF_REPRODUCER, "diff")
    assert done.text == WITH_EXP
    assert done.notes == ("hunk 1 placed at line 16, not 12 as numbered",)


def test_diff_blank_context_lines_without_their_space_and_no_numbers() -> None:
    """A model that drops the space of blank context lines, and writes `@@ ... @@` with no headers."""
    edit = (
        "```diff\n@@ ... @@\n         return self\n\n     def sub(self, n):\n-        self.result -= n\n"
        "+        self.result = self.result - n\n         return self\n```\n"
    )
    expected = CALC.replace("self.result -= n", "self.result = self.result - n")
    assert applied(edit, "diff").text == expected


def test_diff_hunks_out_of_order_and_drifted_apply_where_their_context_is() -> None:
    edit = """diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -25,3 +25,3 @@ class Calculator:
     def value(self):
-        return self.result
+        return float(self.result)
@@ -3,4 +3,5 @@
 class Calculator:
+    \"\"\"A chainable calculator.\"\"\"
     def __init__(self):
         self.result = 0
"""
    expected = CALC.replace("class Calculator:\n", 'class Calculator:\n    """A chainable calculator."""\n').replace(
        "        return self.result\n", "        return float(self.result)\n"
    )
    done = applied(edit, "diff")
    assert done.text == expected
    assert "hunk 1 placed at line 20, not 25 as numbered" in done.notes


def test_diff_hunk_number_breaks_a_tie_and_without_one_it_is_refused() -> None:
    # `return self` and a blank line stand at lines 10, 14 and 18: the header's 14 picks the second
    tie = "@@ -14,2 +14,3 @@\n         return self\n+        # done\n \n"
    done = applied(tie, "diff")
    assert done.text == CALC.replace(
        "        self.result -= n\n        return self\n",
        "        self.result -= n\n        return self\n        # done\n",
    )
    with pytest.raises(AmbiguousEditError) as refused:
        applied("@@ ... @@\n         return self\n+        # done\n \n", "diff")
    assert [p["line"] for p in refused.value.places] == [10, 14, 18]
    assert "lines 10-11, 14-15 and 18-19" in str(refused.value)


def test_diff_found_nowhere_names_the_closest_place_and_what_differs() -> None:
    edit = (
        "@@ -8,3 +8,3 @@\n     def add(self, n):\n-        self.result += m\n+        self.result += 2 * n\n"
        "         return self\n"
    )
    with pytest.raises(AmbiguousEditError) as refused:
        applied(edit, "diff")
    message = str(refused.value)
    assert "the closest place is line 8 (2 of its 3 lines agree)" in message
    assert "'self.result += m'" in message and "'self.result += n'" in message
    assert refused.value.places[0]["line"] == 8


def test_diff_for_another_file_is_refused_naming_it_and_a_multi_file_diff_applies_its_part() -> None:
    other = "--- a/other.py\n+++ b/other.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    with pytest.raises(InputError, match="the unified diff is for other.py, not calc.py"):
        applied(other, "diff")
    done = applied(other + DIFF_REPRODUCER, "diff")
    assert done.text == WITH_EXP
    assert "the unified diff also names other.py: only its part for calc.py was applied" in done.notes


def test_diff_that_creates_or_deletes_the_file_is_refused() -> None:
    creates = "--- /dev/null\n+++ b/calc.py\n@@ -0,0 +1 @@\n+import os\n"
    with pytest.raises(InputError, match="creates calc.py"):
        applied(creates, "diff")
    deletes = (
        "diff --git a/calc.py b/calc.py\ndeleted file mode 100644\n--- a/calc.py\n+++ /dev/null\n@@ -1 +0,0 @@\n"
        "-import math\n"
    )
    with pytest.raises(InputError, match="deletes calc.py"):
        applied(deletes, "diff")


def test_diff_path_is_matched_by_path_then_by_basename() -> None:
    edit = DIFF_REPRODUCER.replace("a/calc.py", "a/src/calc.py").replace("b/calc.py", "b/src/calc.py")
    assert formats.apply_edit(CALC, edit, "diff", "src/calc.py").text == WITH_EXP
    assert formats.apply_edit(CALC, edit, "diff", "elsewhere/calc.py").text == WITH_EXP


# --- SEARCH/REPLACE blocks


def test_block_re_indented_by_the_model_lands_re_indented() -> None:
    """The model wrote the method at column 0 (as it would a top-level function)."""
    edit = (
        "<<<<<<< SEARCH\ndef sub(self, n):\n    self.result -= n\n    return self\n=======\ndef sub(self, n):\n"
        "    self.result -= n\n    if self.result < 0:\n        self.result = 0\n    return self\n>>>>>>> REPLACE\n"
    )
    expected = CALC.replace(
        "        self.result -= n\n",
        "        self.result -= n\n        if self.result < 0:\n            self.result = 0\n",
    )
    done = applied(edit, "search-replace")
    assert done.text == expected
    assert done.notes == ("block 1 placed with its indentation shifted to the file's",)


def test_block_with_curly_quotes_matches_and_writes_the_file_s_plain_quotes() -> None:
    original = CALC.replace("    def value(self):\n", '    def value(self):\n        """The result so far."""\n')
    edit = (
        "<<<<<<< SEARCH\n        \u201c\u201c\u201cThe result so far.\u201d\u201d\u201d\n"
        "        return self.result\n=======\n"
        "        \u201c\u201c\u201cThe result so far \u2014 a number.\u201d\u201d\u201d\n"
        "        return self.result\n>>>>>>> REPLACE\n"
    )
    done = applied(edit, "search-replace", original)
    # the quotes it misread are the file's again; the dash it only writes is its own choice, kept
    assert done.text == original.replace('"""The result so far."""', '"""The result so far \u2014 a number."""')
    assert "curly quotes" in done.notes[0]


def test_block_ignoring_trailing_whitespace() -> None:
    edit = (
        "<<<<<<< SEARCH\n    def value(self):   \n        return self.result\t\n=======\n    def value(self):\n"
        "        return -self.result\n>>>>>>> REPLACE\n"
    )
    done = applied(edit, "search-replace")
    assert done.text == CALC.replace("return self.result", "return -self.result")
    assert done.notes == ("block 1 placed ignoring trailing whitespace",)


def test_later_block_depends_on_an_earlier_one_and_an_empty_search_appends() -> None:
    second = (
        "<<<<<<< SEARCH\n    def exp(self, n):\n        self.result = math.pow(self.result, n)\n=======\n"
        "    def exp(self, n):\n        self.result = self.result**n\n>>>>>>> REPLACE\n"
    )
    append = "<<<<<<< SEARCH\n=======\n\n\nCALC = Calculator()\n>>>>>>> REPLACE\n"
    done = applied(SR_REPRODUCER + "\n" + second + append, "search-replace")
    assert done.text == WITH_EXP.replace("math.pow(self.result, n)", "self.result**n") + "\n\nCALC = Calculator()\n"


def test_the_cline_variant_of_the_markers() -> None:
    edit = "------- SEARCH\n        self.result += n\n=======\n        self.result += abs(n)\n+++++++ REPLACE\n"
    assert applied(edit, "search-replace").text == CALC.replace("self.result += n", "self.result += abs(n)")


def test_blocks_for_another_file_are_named_and_left_out() -> None:
    other = "other.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"
    done = applied(other + SR_REPRODUCER, "search-replace")
    assert done.text == WITH_EXP and "also names other.py" in done.notes[-1]
    with pytest.raises(InputError, match="is for other.py, not calc.py"):
        applied(other, "search-replace")


STORE = """class Store:
    def __init__(self):
        self.items = {}
        self.hits = 0

    def get(self, key):
        self.hits += 1
        value = self.items.get(key)
        if value is None:
            return None
        return value

    def put(self, key, value):
        self.items[key] = value
        return value
"""

# get() takes a default: the lines the markers stand for are kept, the rest as the REPLACE writes it.
STORE_DEFAULT = STORE.replace("def get(self, key):", "def get(self, key, default=None):").replace(
    "return None", "return default"
)

LAZY_REPLACE = """store.py
```python
<<<<<<< SEARCH
    def get(self, key):
        self.hits += 1
        value = self.items.get(key)
        if value is None:
            return None
        return value
=======
    def get(self, key, default=None):
        # ... existing code ...
        if value is None:
            return default
        return value
>>>>>>> REPLACE
```
"""

LAZY_BOTH = """<<<<<<< SEARCH
    def get(self, key):
        # ... existing code ...
            return None
        return value
=======
    def get(self, key, default=None):
        # ... existing code ...
            return default
        return value
>>>>>>> REPLACE
"""


def store_run(tmp_path: Path, edit: str, original: str = STORE, **settings: Any) -> Any:
    (tmp_path / "store.py").write_text(original)
    return api.apply(tmp_path / "store.py", edit, cwd=tmp_path, **settings)


@pytest.mark.parametrize("edit", [LAZY_REPLACE, LAZY_BOTH], ids=["in-replace", "in-search-and-replace"])
def test_a_lazy_marker_in_a_block_is_read_by_the_snippet_reader_within_the_block(
    edit: str, tmp_path: Path, no_model: None
) -> None:
    """Issue 61: a REPLACE part with `# ... existing code ...` is an update snippet read against the place
    its SEARCH finds (it was refused); a marker in the SEARCH stands for the lines between its parts."""
    result = store_run(tmp_path, edit)
    assert result.after == STORE_DEFAULT and result.kind == "search-replace" and result.answer == "merge"
    assert any("lines 6-11" in n and "REPLACE part" in n and "update snippet" in n for n in result.notes)
    assert all("existing code" not in line for line in result.after.splitlines())


def test_a_lazy_marker_in_the_search_part_alone_spans_the_lines_the_replace_replaces(
    tmp_path: Path, no_model: None
) -> None:
    edit = (
        "<<<<<<< SEARCH\n    def get(self, key):\n        # ... existing code ...\n        return value\n=======\n"
        "    def get(self, key):\n        return self.items.get(key)\n>>>>>>> REPLACE\n"
    )
    result = store_run(tmp_path, edit)
    assert result.after == STORE.replace(
        STORE[STORE.index("        self.hits += 1") : STORE.index("\n\n    def put")],
        "        return self.items.get(key)",
    )
    assert "its SEARCH part spans lines 6-11" in " ".join(result.notes)


def test_without_the_snippet_reader_a_lazy_replace_is_refused_not_written() -> None:
    """formats/ alone (no reader from the layer above) writes no marker into the file."""
    with pytest.raises(InputError, match="holds the lazy marker '# ... existing code ...' in its REPLACE part"):
        formats.apply_edit(STORE, LAZY_REPLACE, "search-replace", "store.py")


# A file whose line looks like a marker: in a SEARCH found as written, it is context.
SCAFFOLD = """def scaffold():
    lines = []
    # ... existing code ...
    return lines


def build():
    lines = []
    lines.append(1)
    return lines
"""

SCAFFOLD_EDIT = (
    "<<<<<<< SEARCH\n    lines = []\n    # ... existing code ...\n    return lines\n=======\n"
    '    lines = ["header"]\n    # ... existing code ...\n    return lines\n>>>>>>> REPLACE\n'
)


def test_a_marker_looking_line_of_the_file_is_context_not_a_marker(tmp_path: Path, no_model: None) -> None:
    """The counterexample: the SEARCH as written stands in the file (its `# ... existing code ...` is a line
    of scaffold()), so the block applies as written there; read as a marker, its parts would span both
    functions' lines and be refused. Where the file has no such line, it is a marker: two places, refused."""
    result = store_run(tmp_path, SCAFFOLD_EDIT, SCAFFOLD)
    assert result.after == SCAFFOLD.replace("lines = []", 'lines = ["header"]', 1)
    assert not any("lazy" in n or "snippet" in n for n in result.notes)
    without = SCAFFOLD.replace("    # ... existing code ...\n", "    lines.append(0)\n")
    with pytest.raises(AmbiguousEditError, match="block 1 of the SEARCH/REPLACE edit stands at 2 places") as refused:
        store_run(tmp_path, SCAFFOLD_EDIT, without)
    assert [p["line"] for p in refused.value.places] == [2, 8]


TWO_RETURNS = """class A:
    def f(self):
        return 1

    def g(self):
        return 1
"""

# The REPLACE ends g() with `return 2` under a marker: an edit of `return 1`, or a line after it?
UNCERTAIN = (
    "<<<<<<< SEARCH\n    def f(self):\n        return 1\n\n    def g(self):\n        return 1\n=======\n"
    "    def f(self):\n        return 1\n\n    def g(self):\n        # ... existing code ...\n        return 2\n"
    ">>>>>>> REPLACE\n"
)


def test_a_block_whose_snippet_reading_is_uncertain_is_refused_with_its_readings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes], no_model: None
) -> None:
    """Refused as any snippet is (exit 1, nothing written), its readings and places in the file's lines in
    --report-json; `--reading N` takes one."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(TWO_RETURNS)
    (tmp_path / "edit.txt").write_text(UNCERTAIN)
    done = Run(capfdbinary, "a.py", "--edit", "edit.txt", "--report-json", "r.json")
    assert done.code == 1 and done.out == "" and (tmp_path / "a.py").read_text() == TWO_RETURNS
    assert "an update snippet read against lines 2-6 of a.py, has no certain reading" in done.err
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["readings"] == 2 and record["places"] == [{"line": 6, "end": 6, "readings": ["return 1", "return 2"]}]
    two = store_run(tmp_path, UNCERTAIN, TWO_RETURNS, reading=2)
    assert two.after == TWO_RETURNS.replace("return 1\n", "return 2\n").replace("return 2", "return 1", 1)
    one = store_run(tmp_path, UNCERTAIN, TWO_RETURNS, reading=1)
    assert one.after == TWO_RETURNS + "        return 2\n"


def test_a_block_without_its_end_is_refused() -> None:
    with pytest.raises(InputError, match="has no >>>>>>> REPLACE line"):
        formats.apply_edit(CALC, "<<<<<<< SEARCH\nx\n=======\ny\n", "search-replace", "calc.py")


# --- apply_patch


def test_patch_with_anchor_lines_and_end_of_file() -> None:
    edit = """*** Begin Patch
*** Update File: calc.py
@@ class Calculator:
@@     def reset(self):
-        self.result = 0
+        self.result = 0.0
         return self
@@
     def value(self):
         return self.result
+
+    __call__ = value
*** End of File
*** End Patch
"""
    expected = (
        CALC.replace("        self.result = 0\n        return self", "        self.result = 0.0\n        return self")
        + "\n    __call__ = value\n"
    )
    assert applied(edit, "patch").text == expected


def test_patch_anchor_picks_the_place_among_several() -> None:
    edit = (
        "*** Begin Patch\n*** Update File: calc.py\n@@     def sub(self, n):\n-        return self\n"
        "+        return self  # sub\n*** End Patch\n"
    )
    assert applied(edit, "patch").text == CALC.replace(
        "        self.result -= n\n        return self", "        self.result -= n\n        return self  # sub"
    )


def test_patch_chunk_that_repeats_its_anchor_as_context() -> None:
    edit = (
        "*** Begin Patch\n*** Update File: calc.py\n@@     def sub(self, n):\n     def sub(self, n):\n"
        "-        self.result -= n\n+        self.result -= abs(n)\n*** End Patch\n"
    )
    assert applied(edit, "patch").text == CALC.replace("self.result -= n", "self.result -= abs(n)")


def test_patch_for_another_file_only_and_one_that_moves_the_file_are_refused() -> None:
    with pytest.raises(InputError, match="is for lib/other.py, not calc.py"):
        applied("*** Begin Patch\n*** Update File: lib/other.py\n@@\n-a\n+b\n*** End Patch\n", "patch")
    moves = (
        "*** Begin Patch\n*** Update File: calc.py\n*** Move to: calc2.py\n@@\n-import math\n+import cmath\n"
        "*** End Patch\n"
    )
    with pytest.raises(InputError, match="moves calc.py to calc2.py"):
        applied(moves, "patch")


def test_patch_line_that_is_no_patch_line_is_refused() -> None:
    edit = "*** Begin Patch\n*** Update File: calc.py\n@@\n-import math\nimport cmath\n*** End Patch\n"
    with pytest.raises(InputError, match="line 5 of the patch"):
        applied(edit, "patch")


# --- str_replace


def test_str_replace_list_in_order_with_both_key_spellings_and_replace_all() -> None:
    edit = json.dumps(
        [
            {
                "command": "str_replace",
                "path": "calc.py",
                "old_str": "self.result = 0",
                "new_str": "self.total = 0",
                "replace_all": True,
            },
            {"old_string": "self.total = 0\n        return self", "new_string": "self.total = 0\n        return None"},
        ]
    )
    expected = CALC.replace(
        "        self.result = 0\n        return self", "        self.total = 0\n        return None"
    ).replace("    def __init__(self):\n        self.result = 0", "    def __init__(self):\n        self.total = 0")
    assert applied(edit, "str-replace").text == expected


def test_str_replace_found_twice_is_refused_with_both_places() -> None:
    with pytest.raises(AmbiguousEditError) as refused:
        applied('{"old_str": "return self\\n", "new_str": "return None\\n"}', "str-replace")
    assert [p["line"] for p in refused.value.places] == [10, 14, 18]


def test_str_replace_with_look_alike_dashes_and_a_tool_call_around_it() -> None:
    original = "# cost \u2013 in cents\nPRICE = 3\n"
    call = {
        "name": "str_replace_based_edit_tool",
        "input": {
            "command": "str_replace",
            "path": "p.py",
            "old_str": "# cost - in cents\nPRICE = 3",
            "new_str": "# cost - in cents\nPRICE = 4",
        },
    }
    done = formats.apply_edit(original, json.dumps(call), "str-replace", "p.py")
    assert done.text == "# cost \u2013 in cents\nPRICE = 4\n"


def test_multi_edit_object_with_an_edits_list() -> None:
    edit = json.dumps(
        {
            "file_path": "/repo/calc.py",
            "edits": [
                {"old_string": "import math", "new_string": "import cmath"},
                {"old_string": "math.", "new_string": "cmath.", "replace_all": True},
            ],
        }
    )
    assert formats.apply_edit(WITH_EXP, edit, "str-replace", "calc.py").text == WITH_EXP.replace("math", "cmath")


# --- detection never takes a snippet or an instruction for a format

ROOT = Path(__file__).resolve().parent.parent


def _known_edits() -> list[str]:
    found = [
        p.read_text()
        for pattern in ("fixtures/*/edit.txt", "corpus/sample/*/edit.txt", "corpus/releases/sample/*/edit.txt")
        for p in ROOT.glob(pattern)
    ]
    for path in sorted((ROOT / "corpus" / "assistant" / "data").glob("*.jsonl")):
        found += [json.loads(line)["snippet"] for line in path.read_text().splitlines() if line.strip()]
    return found


def test_no_snippet_or_instruction_of_the_fixtures_or_corpora_is_taken_for_a_format() -> None:
    edits = _known_edits()
    assert len(edits) > 400
    assert [e[:80] for e in edits if formats.detect(e) is not None] == []


@pytest.mark.parametrize(
    "edit",
    [
        "Replace the @@ decorator text with @cache and remove the - sign.",
        (
            "# ... existing code ...\n    def sub(self, n):\n        self.result -= n  # --- careful\n"
            "# ... existing code ...\n"
        ),
        "# ... existing code ...\n# ======= Section =======\n    x = 1\n# ... existing code ...\n",
        "- item one\n- item two\n+ plus\n",
        '{"instruction": "rename add to plus"}',
        "Change the SEARCH box label.\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> main\n",
    ],
)
def test_words_snippets_and_look_alike_text_are_no_format(edit: str) -> None:
    assert formats.detect(edit) is None


def test_edit_format_choices_are_the_formats_and_the_two_kinds() -> None:
    from applyedit.options import EDIT_FORMATS

    assert set(EDIT_FORMATS) == {"auto", "snippet", "instruction", *formats.NAMES}


# --- the server: /v1/apply and the chat route's <update> block


def test_the_server_applies_the_formats_with_no_model_pass(tokenizer: tuple[Path, Any]) -> None:
    pytest.importorskip("fastapi")
    from fakes import scripted_engine
    from fastapi.testclient import TestClient

    from applyedit.serve.app import Settings, create_app

    engine = scripted_engine(tokenizer, "never written")
    with TestClient(create_app(engine, Settings())) as client:
        body = {"path": "calc.py", "content": CALC, "edit": SR_REPRODUCER}
        answer = client.post("/v1/apply", json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["after"] == WITH_EXP and answer.json()["kind"] == "search-replace"
        forced = client.post("/v1/apply", json={**body, "edit": DIFF_REPRODUCER, "options": {"edit_format": "diff"}})
        assert forced.status_code == 200, forced.text
        assert forced.json()["after"] == WITH_EXP and forced.json()["kind"] == "diff"
        message = f"<code>\n{CALC}</code>\n<update>\n{DIFF_REPRODUCER}</update>"
        chat = client.post(
            "/v1/chat/completions",
            json={"model": "applyedit", "messages": [{"role": "user", "content": message}], "path": "calc.py"},
        )
        assert chat.status_code == 200, chat.text
        assert chat.json()["choices"][0]["message"]["content"] == WITH_EXP
    assert engine.model.num_forwards == 0
