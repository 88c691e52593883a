"""The invariants (invariants.py), the context reading (merge/contextread.py) and the re-indenting of a
snippet (merge/reindent.py), each on small texts whose right answer is plain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from applyedit import defcheck, invariants
from applyedit.merge import confirm, contextread, reindent

ROOT = Path(__file__).resolve().parent.parent
PY = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"


def names(found: list[invariants.Violation]) -> list[str]:
    return [v.name for v in found]


def test_a_right_answer_meets_every_invariant() -> None:
    snippet = "# ... existing code ...\ndef b():\n    return 20\n# ... existing code ...\n"
    after = PY.replace("return 2\n", "return 20\n")
    assert invariants.violations(PY, after, snippet, "snippet", "python") == []


def test_each_invariant_fails_on_its_own_shape() -> None:
    snippet = "# ... existing code ...\ndef b():\n    return 20\n# ... existing code ...\n"
    after = PY.replace("return 2\n", "return 20\n")
    # a line far from the snippet deleted
    assert names(invariants.violations(PY, after.replace("    return 3\n", ""), snippet, "snippet", "python")) == [
        "snippet",
        "compiles",
    ]
    # the snippet's change left out
    assert "snippet" in names(invariants.violations(PY, PY, snippet, "snippet", "python"))
    # two functions swapped
    swapped = "def a():\n    return 1\n\n\ndef c():\n    return 3\n\n\ndef b():\n    return 20\n"
    assert "snippet" in names(invariants.violations(PY, swapped, snippet, "snippet", "python"))
    # a whole function the edit never names, gone (an instruction)
    gone = "def a():\n    return 1\n\n\ndef b():\n    return 20\n"
    assert names(invariants.violations(PY, gone, "Make b return 20.", "instruction", "python")) == ["definitions"]
    # ... unless the instruction asks to delete, or names it
    assert invariants.violations(PY, gone, "Make b return 20 and delete c.", "instruction", "python") == []
    assert invariants.violations(PY, gone, "Make b return 20, drop c.", "instruction", "python") == []


def test_python_must_still_compile() -> None:
    tabs = "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 0\n"
    mixed = "def f(x):\n\tif x:\n        return 1\n\treturn 0\n"
    found = invariants.violations(tabs, mixed, "Return 1 when x.", "instruction", "python")
    assert names(found) == ["compiles"] and "TabError" in found[0].message
    future = '"""Doc."""\nfrom __future__ import annotations\n\nimport os\n'
    found = invariants.violations(future, "import json\n" + future, "Import json.", "instruction", "python")
    assert names(found) == ["compiles"] and "__future__" in found[0].message
    # an original that does not compile either: nothing to say
    assert invariants.violations("def (:\n", "def ((:\n", "x", "instruction", "python") == []


def test_file_heads() -> None:
    go = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(1)\n}\n'
    assert names(invariants.violations(go, 'import "os"\n' + go, "Import os.", "instruction", "go")) == ["heads"]
    guard = "#ifndef A_H\n#define A_H\n\nint a(void);\n\n#endif\n"
    outside = guard + "int b(void);\n"
    inside = guard.replace("int a(void);\n", "int a(void);\nint b(void);\n")
    assert names(invariants.violations(guard, outside, "Declare b.", "instruction", "c")) == ["heads"]
    assert invariants.violations(guard, inside, "Declare b.", "instruction", "c") == []
    sh = "#!/bin/sh\necho hi\n"
    assert names(invariants.violations(sh, "set -e\n" + sh, "Add set -e.", "instruction", "bash")) == ["heads"]


def test_a_decorator_that_moved_is_a_lost_definition() -> None:
    before = (
        "class A:\n    @staticmethod\n    def make():\n        return A()\n\n    def helper(x):\n        return x * 2\n"
    )
    snippet = "# ... existing code ...\n    @staticmethod\n    def helper(x):\n        return x * 2\n"
    wrong = "class A:\n    @staticmethod\n    def helper(x):\n        return x * 2\n"
    found = invariants.violations(before, wrong, snippet, "snippet", "python")
    assert names(found) == ["definitions"] and "make" in found[0].message


def test_a_rename_and_a_shown_deletion_lose_nothing() -> None:
    renamed = PY.replace("def b():", "def beta():")
    snippet = "# ... existing code ...\ndef beta():\n    return 2\n# ... existing code ...\n"
    assert invariants.violations(PY, renamed, snippet, "snippet", "python") == []
    deletion = "# ... existing code ...\ndef a():\n    return 1\n\n\ndef c():\n    return 3\n"
    assert (
        invariants.violations(PY, PY.replace("def b():\n    return 2\n\n\n", ""), deletion, "snippet", "python") == []
    )


POINT = (
    "class Point:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n\n    def norm(self):\n"
    "        return (self.x ** 2 + self.y ** 2) ** 0.5\n\n\ndef origin():\n    return Point(0, 0)\n"
)
NORM = "\n    def norm(self):\n        return (self.x ** 2 + self.y ** 2) ** 0.5\n"


def test_a_renamed_definition_keeps_what_it_encloses() -> None:
    """The issue's rename: the methods of a renamed class are found under its new name; a rename that
    also deletes a method, or renames one the edit never names, still loses it."""
    ask = "Rename the class Point to Vector"
    vector = POINT.replace("Point", "Vector")
    assert invariants.violations(POINT, vector, ask, "instruction", "python") == []
    for wrong in (vector.replace(NORM, ""), vector.replace("def norm", "def length")):
        found = invariants.violations(POINT, wrong, ask, "instruction", "python")
        assert names(found) == ["definitions"] and "method norm" in found[0].message
    # an update snippet that shows the new header renames the class as well
    shown = "class Vector:\n    # ... existing code ...\n"
    assert invariants.violations(POINT, POINT.replace("class Point", "class Vector"), shown, "snippet", "python") == []
    # nested functions follow their renamed function
    nested = "def load(path):\n    def parse(line):\n        return line.strip()\n    return [parse(x) for x in path]\n"
    read_all = nested.replace("load", "read_all")
    assert invariants.violations(nested, read_all, "Rename load to read_all", "instruction", "python") == []
    found = invariants.violations(
        nested, read_all.replace("parse", "clean"), "Rename load to read_all", "instruction", "python"
    )
    assert names(found) == ["definitions"] and "function parse" in found[0].message


def test_a_renamed_rust_struct_keeps_its_impl_blocks() -> None:
    rust = (
        "struct Point {\n    x: f64,\n}\n\nimpl Point {\n    fn norm(&self) -> f64 {\n        self.x\n    }\n}\n\n"
        "impl std::fmt::Display for Point {\n    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {\n"
        '        write!(f, "{}", self.x)\n    }\n}\n'
    )
    ask = "Rename the struct Point to Vector"
    vector = rust.replace("Point", "Vector")
    assert invariants.violations(rust, vector, ask, "instruction", "rust") == []
    wrong = vector.replace("    fn norm(&self) -> f64 {\n        self.x\n    }\n", "")
    found = invariants.violations(rust, wrong, ask, "instruction", "rust")
    assert names(found) == ["definitions"] and "method norm" in found[0].message


FIXTURES = (
    'import pytest\n\n\n@pytest.fixture\ndef user():\n    return User("ann")\n\n\ndef session(user):\n'
    "    return Session(user)\n\n\ndef test_login(session):\n    assert session.login()\n"
)
FIXTURE_SNIPPET = (
    "# ... existing code ...\n@pytest.fixture\ndef session(user):\n    return Session(user)\n# ... existing code ...\n"
)


def test_a_snippet_shows_a_definition_by_its_header_not_by_a_use_of_its_name() -> None:
    """The issue's fixture: `def session(user):` uses the name `user`, it does not show the fixture
    `user`; an answer that deletes it loses a definition (an instruction that names it does not)."""
    wrong = FIXTURES.replace('def user():\n    return User("ann")\n\n\n', "")  # the decorator now session's
    found = invariants.violations(FIXTURES, wrong, FIXTURE_SNIPPET, "snippet", "python")
    assert names(found) == ["definitions"] and "function user" in found[0].message
    assert invariants.violations(FIXTURES, wrong, "Make session a fixture", "instruction", "python")
    assert invariants.violations(FIXTURES, wrong, "Fold user into session", "instruction", "python") == []
    right = FIXTURES.replace("def session(user):", "@pytest.fixture\ndef session(user):")
    assert invariants.violations(FIXTURES, right, FIXTURE_SNIPPET, "snippet", "python") == []


def test_a_header_the_snippet_shows_edited_is_no_lost_definition() -> None:
    """`const onAbort = () => {` made `onAbort = () => {` (assigned to a `let` above): the output has no
    function onAbort, and the snippet shows its header line, edited: a change it shows, not a loss. A
    snippet that shows no line alike the header still loses it."""
    original = (
        "export function wait(ms, signal) {\n  let onAbort\n  return new Promise((resolve, reject) => {\n"
        "    const timer = setTimeout(resolve, ms)\n    if (signal) {\n      const onAbort = () => {\n"
        "        clearTimeout(timer)\n        reject(new Error('Aborted'))\n      }\n"
        "      signal.addEventListener('abort', onAbort)\n    }\n  })\n}\n"
    )
    output = original.replace("      const onAbort = () => {", "      onAbort = () => {")
    snippet = "// ... existing code ...\n    if (signal) {\n      onAbort = () => {\n// ... existing code ...\n"
    assert invariants.violations(original, output, snippet, "snippet", "javascript") == []
    unseen = "// ... existing code ...\n    const timer = setTimeout(resolve, ms * 2)\n// ... existing code ...\n"
    output = output.replace("ms)", "ms * 2)")
    found = invariants.violations(original, output, unseen, "snippet", "javascript")
    assert "function onAbort" in " ".join(v.message for v in found)


def test_a_context_only_segment_deletes_between_its_two_blocks() -> None:
    """A segment of context only, read as two blocks of the original with code between them: the
    deletion it shows is justified when it shows two lines of code on each side of the cut, or when
    no later segment changes anything (it orients none); one line each side before a change is
    orientation, and deleting there is refused."""
    five = "".join(f"def f{n}():\n    x = {n}\n    return x\n\n\n" for n in range(5)).rstrip("\n") + "\n"
    gone = five.replace("def f2():\n    x = 2\n    return x\n\n\n", "")
    m = "# ... existing code ...\n"
    f0, f4 = f"{m}def f0():\n    x = 10\n", f"{m}    x = 40\n{m}"  # a change in f0 (above), in f4 (below)
    two_each_side = f"{m}    x = 1\n    return x\n\n\ndef f3():\n    x = 3\n"
    one_each_side = f"{m}    return x\n\n\ndef f3():\n"
    for snippet, after, ok in (
        (two_each_side + f4, gone.replace("x = 4\n", "x = 40\n"), True),
        (one_each_side + f4, gone.replace("x = 4\n", "x = 40\n"), False),
        (f0 + one_each_side + m, gone.replace("x = 0\n", "x = 10\n"), True),
    ):
        found = invariants.violations(five, after, snippet, "snippet", "python")
        assert names(found) == ([] if ok else ["deletions"]), snippet


def test_a_rename_into_a_name_the_original_defines_loses_the_renamed_one() -> None:
    """A function's header given another function's name: not a rename (that name stands already), but
    the first function lost and the other defined twice."""
    original = "def make_ascii(buf):\n    return 1\n\n\ndef make_four(buf):\n    return 4\n"
    output = original.replace("def make_ascii(buf):", "def make_four(buf):")
    snippet = "# ... existing code ...\ndef make_four(buf):\n    return 4\n"
    assert defcheck.lost_definitions(original, output, snippet, "python") == ["function make_ascii"]
    renamed = original.replace("def make_ascii(buf):", "def make_text(buf):")
    assert defcheck.lost_definitions(original, renamed, "def make_text(buf):\n    return 1\n", "python") == []


def test_the_context_reading() -> None:
    snippet = "# ... existing code ...\ndef b():\n    return 20\n\n\ndef c():\n# ... existing code ...\n"
    read = contextread.read(PY, snippet)
    assert read == tuple(PY.replace("return 2\n", "return 20\n").rstrip("\n").split("\n"))
    twice = "x = 1\ny = 2\n\nx = 1\ny = 2\n"
    found = contextread.read(twice, "# ... existing code ...\nx = 1\nz = 3\n# ... existing code ...\n")
    assert isinstance(found, contextread.NoReading) and found.inherent and "could stand at" in found.message


def test_confirmed_needs_both_readings_and_the_invariants() -> None:
    snippet = "# ... existing code ...\ndef b():\n    return 20\n\n\ndef c():\n# ... existing code ...\n"
    assert confirm.confirmed(PY, snippet, "python").ok
    twice = "def f():\n    return 1\n\n\ndef f():\n    return 1\n"
    result = confirm.confirmed(twice, "def f():\n    return 2\n# ... existing code ...\n", "python")
    assert not result.ok and result.ambiguous


def test_reindent_to_the_files_style() -> None:
    tabs = "def f(x):\n\tif x:\n\t\ty = 1\n\treturn 0\n"
    spaces = "# ...\n    if x:\n        y = 1\n        z = 2\n# ...\n"
    assert reindent.to_file_style(tabs, spaces) == "# ...\n\tif x:\n\t\ty = 1\n\t\tz = 2\n# ...\n"
    two = "def f(x):\n  if x:\n    y = 1\n  return 0\n"
    assert reindent.to_file_style(two, spaces) == "# ...\n  if x:\n    y = 1\n    z = 2\n# ...\n"
    # a snippet already in the file's style, or one whose context disagrees: unchanged
    assert reindent.to_file_style(two, "  if x:\n    z = 2\n") == "  if x:\n    z = 2\n"
    deep = "class A:\n    def f(self):\n        return 1\n"
    shown = "    def f(self):\n        return 2\n"
    assert reindent.to_file_style(deep, shown) == shown


def test_a_marker_less_piece_of_the_file_that_does_not_place_is_no_instruction(tmp_path: Path) -> None:
    """A snippet that lost its markers and stands at no single place is refused by default, not read
    as an instruction for the model (on the real-commit sample the model wrote a wrong file for one)."""
    from applyedit import api
    from applyedit.errors import AmbiguousEditError

    target = tmp_path / "t.py"
    target.write_text("def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n")
    fragment = "    x = 1\n    y = 2\n    return x\n"
    assert api.read_inputs(target, fragment).fragment
    assert not api.read_inputs(target, "Rename a to alpha and keep b as it is.").fragment
    with pytest.raises(AmbiguousEditError, match="piece of code with no lazy markers"):
        api.apply(target, fragment)
    assert target.read_text().count("x = 1") == 2


# Shapes found wrong on the release corpus (corpus/releases): each now refused, never answered wrong.

IMPORTS_TS = (
    "import { QueryObserver } from './queryObserver'\n"
    "import { hasNextPage } from './infiniteQueryBehavior'\n"
    "import type { Subscribable } from './subscribable'\n"
    "\n"
    "export class InfiniteQueryObserver extends QueryObserver {\n"
    "  fetchNextPage() {\n"
    "    return hasNextPage()\n"
    "  }\n"
    "}\n"
)


def test_a_moved_import_kept_twice_is_refused() -> None:
    """The snippet moves an import within its block; an answer that keeps the old copy too holds it twice
    a line apart, which neither the original nor the snippet does."""
    snippet = (
        "// ... existing code ...\n"
        "import { hasNextPage } from './infiniteQueryBehavior'\n"
        "import { QueryObserver } from './queryObserver'\n"
        "import type { Subscribable } from './subscribable'\n"
        "// ... existing code ...\n"
    )
    lines = IMPORTS_TS.split("\n")
    wrong = "\n".join([lines[0], lines[1], lines[0], *lines[2:]])
    assert invariants.imports_twice(IMPORTS_TS, wrong, snippet) == ["import { QueryObserver } from './queryObserver'"]
    broken = invariants.violations(IMPORTS_TS, wrong, snippet, "snippet", "typescript")
    assert any("twice" in v.message for v in broken)
    right = "\n".join([lines[1], lines[0], *lines[2:]])
    assert invariants.imports_twice(IMPORTS_TS, right, snippet) == []
    # the same import in two functions, far apart, is no move
    far = (
        "def a():\n    import os\n    return os.sep\n\n\ndef b():\n    x = 1\n    y = 2\n    import os\n    return os\n"
    )
    assert (
        invariants.imports_twice(far.replace("    import os\n    return os\n", "    return 0\n"), far, "# ...\n") == []
    )


def test_a_snippet_opening_with_a_closer_and_no_marker_is_refused() -> None:
    """`}` at a snippet's open start closes some block above: which one, and whether the code between is
    deleted, the snippet does not say (the answer alone was a wrong file)."""
    original = "function a () {\n  return 1\n}\n\nfunction b () {\n  return 2\n}\n\nfunction c () {\n  return 3\n}\n"
    snippet = "}\n\nfunction c () {\n  return 4\n}\n// ... existing code ...\n"
    result = confirm.confirmed(original, snippet, "javascript")
    assert not result.ok and result.ambiguous and "starts with '}'" in result.reason
    # with a marker above, the same segment is an edit of c()
    marked = confirm.confirmed(original, "// ... existing code ...\n" + snippet, "javascript")
    assert marked.ok and marked.merged == original.replace("return 3", "return 4")


def test_an_implied_snippet_near_the_file_start_leaves_the_start_open() -> None:
    """A marker-less edit whose first line is the file's second: whether the first line stays is the open
    start's question, not an implied marker's answer."""
    from applyedit.merge import implied_snippet

    original = (
        "import sys\nimport time\nfrom typing import List\n\nfrom .segment import Segment\n\n\n"
        "def f(x: List[int]) -> int:\n    return len(x)\n\n\ndef g() -> list[str]:\n    return sys.argv\n"
    )
    edit = "import time\nfrom typing import Final, List\n\nfrom .segment import Segment\n"
    wrapped = implied_snippet(original, edit, "python")
    assert wrapped == edit + "# ... existing code ...\n"
    result = confirm.confirmed(original, wrapped, "python")
    assert not result.ok and result.ambiguous and "does the file start there?" in result.reason
    # further down, the implied marker above stands
    body = "".join(f"def g{i}():\n    return {i}\n\n\n" for i in range(4))
    far = implied_snippet(body + original, edit, "python")
    assert far is not None and far.startswith("# ... existing code ...")


def test_new_code_with_no_line_of_the_file_is_no_instruction(tmp_path: Path) -> None:
    """Two new lines of Java with no marker and no line of the file around them: where they go is not
    said (read as an instruction, the model wrote a wrong file with exit 0 on the release sample)."""
    from applyedit import api
    from applyedit.errors import AmbiguousEditError

    target = tmp_path / "View.java"
    target.write_text("class View {\n  void layout(float eX, float vbX) {\n    float translateX = 0;\n  }\n}\n")
    code = "      translateX = eX - (vbX * scaleX);\n      translateY = eY - (vbY * scaleY);\n"
    assert api.read_inputs(target, code).fragment
    for words in ("Rename the class View to Panel.", "Add a docstring to every method", "Simplify"):
        assert not api.read_inputs(target, words).fragment, words
    with pytest.raises(AmbiguousEditError, match="piece of code with no lazy markers"):
        api.apply(target, code)


SEPARATED = 'RULES = {\n    "split": "a\u2028b",\n    "limit": 3,\n}\n'


def test_a_line_changed_where_no_reader_sees_it_is_refused() -> None:
    """The model wrote U+2029 for the U+2028 inside a string on a line the edit never names, and every
    check passed: now the `unseen` invariant refuses it, as it does a no-break space, a zero-width
    space or a Cyrillic letter slipped into an untouched line; the visible edit alone passes."""
    edit = "Change the limit to 5."
    right = SEPARATED.replace("3", "5")
    assert invariants.violations(SEPARATED, right, edit, "instruction", "python") == []
    for swapped in (
        "a\u2029b",
        "a\u00a0b",
        "a\u200b\u2028b",
        "\u0430\u2028b",
    ):  # U+2029, no-break, zero-width, Cyrillic a
        wrong = right.replace("a\u2028b", swapped)
        found = invariants.violations(SEPARATED, wrong, edit, "instruction", "python")
        assert names(found) == ["unseen"], swapped
        assert "line 2 differs from the original's only in characters no reader sees" in found[0].message
    wrong = right.replace("a\u2028b", "a\u2029b")
    assert (
        "U+2029 PARAGRAPH SEPARATOR"
        in invariants.violations(SEPARATED, wrong, edit, "instruction", "python")[0].message
    )
    # an edit that names them (the character, its name, a notation, the line itself): no refusal
    for named in (
        "Use U+2029 in the split string.",
        "Use a paragraph separator in split.",
        "Replace the line separator with \u2029.",
        '# ... existing code ...\n    "split": "a\u2029b",\n# ... existing code ...\n',
    ):
        assert invariants.unseen_changes(SEPARATED, wrong, named) == [], named
    # visible changes, indentation and trailing blanks are other checks' business
    assert invariants.unseen_changes(SEPARATED, SEPARATED.replace('"a', '"A').replace("    ", "\t"), edit) == []


CASES = sorted({p.parent for top in ("fixtures", "corpus") for p in (ROOT / top).rglob("before.*")})


@pytest.mark.parametrize("folder", CASES, ids=[p.name for p in CASES])
def test_no_right_answer_has_unseen_changes(folder: Path) -> None:
    """Every fixture's and corpus case's expected file passes the `unseen` invariant against its edit."""
    from applyedit import textio

    before, after = next(folder.glob("before.*")), next(folder.glob("after.*"))
    edit = (folder / "edit.txt").read_text(encoding="utf-8")
    assert invariants.unseen_changes(textio.read_source(before).text, textio.read_source(after).text, edit) == []


def test_an_instructions_output_with_an_unseen_change_is_refused(tokenizer: Any, tmp_path: Path) -> None:
    """The whole run (api.apply, a model scripted to write the file with U+2029 for U+2028): exit 3
    and the reason, where it answered with exit 0; `allow_unseen_changes` accepts it."""
    from fakes import scripted_engine

    from applyedit import api
    from applyedit.errors import OutputCheckError

    (tmp_path / "rules.py").write_text(SEPARATED, encoding="utf-8")
    wrong = SEPARATED.replace("3", "5").replace("a\u2028b", "a\u2029b")
    engine = scripted_engine(tokenizer, wrong + "```\n")
    with pytest.raises(OutputCheckError, match="no reader sees"):
        api.apply(tmp_path / "rules.py", "Change the limit to 5.", engine=engine, fallback="none")
    engine = scripted_engine(tokenizer, wrong + "```\n")
    done = api.apply(tmp_path / "rules.py", "Change the limit to 5.", engine=engine, allow_unseen_changes=True)
    assert done.after == wrong and any("no reader sees" in note for note in done.notes)
