"""Lines that belong to the line below them (decorators, annotations, attributes, doc comments) in an
update snippet: replaced in place when the snippet shows changed ones right after a marker, added when
the original has none there or the snippet shows the old one beside the new one, and refused when
the snippet shows fewer than it would replace. Both readers (merge/head.py and anchors.py,
merge/contextread.py) and the confirmed merge (merge/confirm.py); then the issue's three reproducers
through the CLI (the class rename, the decorator changed in place, the fixture `user`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from clihelp import Run, model, run, work  # noqa: F401  (fixtures)

from applyedit import invariants
from applyedit.merge import confirm, contextread, merge

STATIC = (
    "class A:\n    @staticmethod\n    def make(x):\n        return x\n\n    @staticmethod\n    def build(x):\n"
    "        return x\n"
)
BARE = STATIC.replace("    @staticmethod\n    def build", "    def build")
PY_TAIL = "    def build(x):\n        return x\n"
DERIVE = "#[derive(Debug)]\nstruct Point {\n    x: i32,\n}\n\n#[derive(Debug)]\nstruct Size {\n    w: i32,\n}\n"
DOCUMENTED = DERIVE.replace("#[derive(Debug)]\nstruct Point", "/// A point.\n#[derive(Debug)]\nstruct Point").replace(
    "#[derive(Debug)]\nstruct Size", "/// A size.\n#[derive(Debug)]\nstruct Size"
)
TESTS = (
    "class T {\n    @Test\n    void a() {\n        check(1);\n    }\n\n    @Test\n    void b() {\n        check(2);\n"
    "    }\n}\n"
)
OVERRIDE = (
    'class T extends Base {\n    @Override\n    String name() {\n        return "t";\n    }\n\n    int size() {\n'
    "        return 1;\n    }\n}\n"
)
GO = (
    "package main\n\n// Start starts the server.\nfunc Start() error {\n\treturn nil\n}\n\n// Stop stops the server.\n"
    "func Stop() error {\n\treturn nil\n}\n"
)
TS = (
    "/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n\n"
    "/** Subtracts. */\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n"
)
JS = (
    "/**\n * Adds two numbers.\n */\nfunction add(a, b) {\n  return a + b;\n}\n\n/**\n * Subtracts.\n */\n"
    "function sub(a, b) {\n  return a - b;\n}\n"
)
JAVADOC = (
    'class T {\n    /**\n     * The name.\n     */\n    String name() {\n        return "t";\n    }\n\n'
    "    /**\n     * The size.\n     */\n    int size() {\n        return 1;\n    }\n}\n"
)
PY_M, C_M = "# ... existing code ...\n", "// ... existing code ...\n"

# (name, language, original, snippet, expected file)
CASES = [
    # replaced: the snippet shows a changed line right above the definition
    ("py_decorator_replaced", "python", STATIC, f"{PY_M}    @classmethod\n{PY_TAIL}",
     STATIC.replace("    @staticmethod\n    def build", "    @classmethod\n    def build")),
    ("rs_derive_replaced", "rust", DERIVE, f"{C_M}#[derive(Debug, Clone)]\nstruct Size {{\n{C_M}",
     DERIVE.replace("#[derive(Debug)]\nstruct Size", "#[derive(Debug, Clone)]\nstruct Size")),
    ("rs_derive_replaced_under_its_doc", "rust", DOCUMENTED, f"{C_M}#[derive(Debug, Clone)]\nstruct Size {{\n{C_M}",
     DOCUMENTED.replace("#[derive(Debug)]\nstruct Size", "#[derive(Debug, Clone)]\nstruct Size")),
    ("java_annotation_replaced", "java", TESTS, f"{C_M}    @Test(timeout = 100)\n    void b() {{\n{C_M}",
     TESTS.replace("    @Test\n    void b", "    @Test(timeout = 100)\n    void b")),
    ("go_doc_comment_replaced", "go", GO, f"{C_M}// Stop stops the server and waits.\nfunc Stop() error {{\n{C_M}",
     GO.replace("// Stop stops the server.", "// Stop stops the server and waits.")),
    ("ts_jsdoc_replaced", "typescript", TS,
     f"{C_M}/** Subtracts b from a. */\nexport function sub(a: number, b: number): number {{\n{C_M}",
     TS.replace("/** Subtracts. */", "/** Subtracts b from a. */")),
    ("js_jsdoc_block_replaced", "javascript", JS,
     f"{C_M}/**\n * Subtracts b from a.\n */\nfunction sub(a, b) {{\n{C_M}",
     JS.replace(" * Subtracts.", " * Subtracts b from a.")),
    # added: the original has none there
    ("py_decorator_added", "python", BARE, f"{PY_M}    @classmethod\n{PY_TAIL}",
     BARE.replace("    def build", "    @classmethod\n    def build")),
    ("rs_derive_added", "rust", DERIVE.replace("#[derive(Debug)]\nstruct Size", "struct Size"),
     f"{C_M}#[derive(Debug)]\nstruct Size {{\n{C_M}", DERIVE),
    ("java_annotation_added", "java", OVERRIDE, f"{C_M}    @Override\n    int size() {{\n{C_M}",
     OVERRIDE.replace("    int size", "    @Override\n    int size")),
    ("go_doc_comment_added", "go", GO.replace("// Stop stops the server.\n", ""),
     f"{C_M}// Stop stops the server.\nfunc Stop() error {{\n{C_M}", GO),
    ("js_jsdoc_added", "javascript", TS.replace("/** Subtracts. */\n", "").replace(": number", ""),
     f"{C_M}/** Subtracts. */\nexport function sub(a, b) {{\n{C_M}", TS.replace(": number", "")),
    ("java_annotation_added_below_the_javadoc_end", "java", JAVADOC,
     f"{C_M}     */\n    @Deprecated\n    int size() {{\n{C_M}",
     JAVADOC.replace("    int size", "    @Deprecated\n    int size")),
    # added: the snippet shows the old line beside the new one
    ("py_decorator_added_beside", "python", STATIC, f"{PY_M}    @staticmethod\n    @functools.cache\n{PY_TAIL}",
     STATIC.replace("    @staticmethod\n    def build", "    @staticmethod\n    @functools.cache\n    def build")),
    ("rs_attribute_added_beside", "rust", DERIVE, f'{C_M}#[derive(Debug)]\n#[serde(default)]\nstruct Size {{\n{C_M}',
     DERIVE.replace("#[derive(Debug)]\nstruct Size", "#[derive(Debug)]\n#[serde(default)]\nstruct Size")),
    ("java_annotation_added_beside", "java", TESTS, f"{C_M}    @Test\n    @Disabled\n    void b() {{\n{C_M}",
     TESTS.replace("    @Test\n    void b", "    @Test\n    @Disabled\n    void b")),
    # fewer lines than they would replace: replaced or added to? Refused.
    ("py_fewer_decorators", "python",
     STATIC.replace("    @staticmethod\n    def build", "    @property\n    @functools.cache\n    def build"),
     f"{PY_M}    @classmethod\n{PY_TAIL}", None),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_both_readings_and_the_confirmed_merge(case: tuple[str, str, str, str, str | None]) -> None:
    _, language, before, snippet, after = case
    first, second = merge(before, snippet), contextread.read(before, snippet, language)
    result = confirm.confirmed(before, snippet, language)
    if after is None:
        assert not first.ok and isinstance(second, contextread.NoReading) and second.inherent
        assert not result.ok and result.ambiguous, result
        return
    assert first.merged == after and second == tuple(after.rstrip("\n").split("\n"))
    assert result.ok and result.merged == after, result.reason


# the replaced cases' wrong answer: the new lines added above the definition, the old ones kept above them
KEPT = {
    "py_decorator_replaced": STATIC.replace("    def build", "    @classmethod\n    def build"),
    "rs_derive_replaced": DERIVE.replace("struct Size", "#[derive(Debug, Clone)]\nstruct Size"),
    "java_annotation_replaced": TESTS.replace("    void b", "    @Test(timeout = 100)\n    void b"),
    "go_doc_comment_replaced": GO.replace("func Stop", "// Stop stops the server and waits.\nfunc Stop"),
    "ts_jsdoc_replaced": TS.replace("export function sub", "/** Subtracts b from a. */\nexport function sub"),
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_the_invariants_refuse_the_old_line_kept_above_the_new_one(name: str) -> None:
    """What a model may write where the merge reads the line as replaced: refused (`snippet`)."""
    _, language, before, snippet, after = next(c for c in CASES if c[0] == name)
    assert invariants.violations(before, after, snippet, "snippet", language) == []
    found = invariants.violations(before, KEPT[name], snippet, "snippet", language)
    assert [v.name for v in found] == ["snippet"] and "keeps" in found[0].message


FIXTURES = (
    'import pytest\n\n\n@pytest.fixture\ndef user():\n    return User("ann")\n\n\ndef session(user):\n'
    "    return Session(user)\n\n\ndef test_login(session):\n    assert session.login()\n"
)
POINT = (
    "class Point:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n\n    def norm(self):\n"
    "        return (self.x ** 2 + self.y ** 2) ** 0.5\n\n\ndef origin():\n    return Point(0, 0)\n"
)
# the reproducers: (original, edit, expected file), each through the CLI with default settings
REPRODUCERS = {
    "decorator_changed_in_place": (
        STATIC,
        f"{PY_M}    @classmethod\n{PY_TAIL}",
        STATIC.replace("    @staticmethod\n    def build", "    @classmethod\n    def build"),
    ),
    "fixture_user_kept": (
        FIXTURES,
        f"{PY_M}@pytest.fixture\ndef session(user):\n    return Session(user)\n{PY_M}",
        FIXTURES.replace("def session(user):", "@pytest.fixture\ndef session(user):"),
    ),
}


@pytest.mark.parametrize("name", sorted(REPRODUCERS))
def test_the_snippet_reproducers_answer_exactly_without_the_model(
    name: str, work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    before, snippet, after = REPRODUCERS[name]
    target = work / "t.py"
    target.write_text(before)
    (work / "e.txt").write_text(snippet)
    engine = model(before + "```\n")  # a model that changes nothing: it must not be asked
    r = run("t.py", "--edit", "e.txt", "--in-place")
    assert r.code == 0 and target.read_text() == after, r.err
    assert engine._model.num_forwards == 0 and "certain" in r.err


def test_the_rename_reproducer_answers_with_the_renamed_file(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    """The model writes the renamed class: accepted (its methods are not lost); one that also drops a
    method is refused (exit 3, the file kept)."""
    target = work / "p.py"
    vector = POINT.replace("Point", "Vector")
    for written, code in ((vector.replace("    def norm", "    def length"), 3), (vector, 0)):
        target.write_text(POINT)
        model(written + "```\n")
        r = run("p.py", "--edit-text", "Rename the class Point to Vector", "--in-place")
        assert r.code == code and target.read_text() == (vector if code == 0 else POINT), r.err
