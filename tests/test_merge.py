"""Table tests for applyedit.merge: lazy-marker detection and snippet-to-original alignment."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from applyedit.markers import is_marker
from applyedit.merge import Hunk, MergeResult, dropped_lines, merge

M = "# ... existing code ...\n"  # the marker most snippets below use

# 0 import socket / 3 def connect / 4 sock = / 5 return Client / 8 def ping / 9 reply = /
# 10 return reply / 13 def close / 14 client.sock.close() ; 15 lines
PY = """import socket


def connect(host, port):
    sock = socket.create_connection((host, port))
    return Client(sock)


def ping(client):
    reply = client.send("ping")
    return reply == "pong"


def close(client):
    client.sock.close()
"""
NEW_DEF = "def connect(host, port, timeout=60):"
NEW_SOCK = "    sock = socket.create_connection((host, port), timeout)"
OLD_SOCK = "    sock = socket.create_connection((host, port))"
SETBLOCK = "    sock.setblocking(False)"
PING_BODY = '    reply = client.send("ping")\n    return reply == "pong"\n'

REMOVE = "    def remove(self, item):\n        self.items.remove(item)"
CLS = """class Store:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)

    def clear(self):
        self.items = []
"""

JS = """import { log } from "./log";

function add(a, b) {
  return a + b;
}

function sub(a, b) {
  return a - b;
}

export { add, sub };
"""

GO = """package main

import "fmt"

func greet(name string) {
\tfmt.Println("hi", name)
}

func main() {
\tgreet("bob")
}
"""

C = """#include <stdio.h>

int add(int a, int b) {
    return a + b;
}

int main(void) {
    printf("%d\\n", add(1, 2));
    return 0;
}
"""

HTML = "<ul>\n  <li>one</li>\n  <li>two</li>\n</ul>\n"

NONE3 = "".join(  # three functions sharing `if x:` / `return None`
    f"def f{i}(x):\n    if x:\n        return None\n    return {i}\n\n\n" for i in range(3)
)

MARKERS = [
    # python comment, the canonical wording
    ("# ... existing code ...", True),
    # no spaces around the dots
    ("// ...existing code...", True),
    # indented marker inside a class or function
    ("    # ... existing code ...", True),
    # tab-indented marker
    ("\t// ... existing code ...", True),
    # unicode ellipsis and a longer phrase
    ("# … rest of the file unchanged …", True),
    # C block comment holding only dots
    ("/* ... */", True),
    # C block comment with words
    ("/* ... existing code ... */", True),
    # JSX comment
    ("{/* ... existing code ... */}", True),
    # HTML comment
    ("<!-- ... existing code ... -->", True),
    # SQL / Lua / Haskell comment
    ("-- ... existing code ...", True),
    # Lisp / assembly comment
    (";; ... existing code ...", True),
    # no dots at all
    ("# existing code", True),
    # "rest of the file", capitalised, no dots
    ("// Rest of the file", True),
    # "rest of file", no article
    ("// rest of file", True),
    # "rest of code" with dots
    ("# ... rest of code ...", True),
    # "unchanged" alone
    ("# ... unchanged ...", True),
    # "unchanged code" without dots
    ("// unchanged code", True),
    # "keep existing"
    ("# ... keep existing ...", True),
    # "other methods", indented in a class
    ("    # ... other methods ...", True),
    # "previous code"
    ("// previous code", True),
    # "remaining code"
    ("# remaining code", True),
    # a comment holding only dots is a marker
    ("# ...", True),
    # a comment holding only the unicode ellipsis
    ("// …", True),
    # brackets around the words
    ("# ... (existing code) ...", True),
    # a bare Ellipsis statement is code, not a marker
    ("...", False),
    # an indented Ellipsis (a stub body) is code too
    ("        ...", False),
    # the words inside a string are code
    ('x = "... existing code ..."', False),
    # a trailing comment after code is not comment-only
    ("x = 1  # ... existing code ...", False),
    # an ordinary comment that happens to use the words
    ("# existing code is slow", False),
    # a long ordinary comment mentioning existing code
    ("# TODO: refactor the existing code for speed when we have time", False),
    # "rest" as in REST
    ("# rest api client", False),
    # an empty python comment
    ("#", False),
    # an empty C++ comment
    ("//", False),
    # a shebang
    ("#!/usr/bin/env python", False),
    # a C decrement
    ("--i;", False),
    # an unclosed block comment
    ("/* ... existing code ...", False),
]

OK_CASES = [
    # replace one function body: the snippet leaves the block, so the whole body goes
    pytest.param(
        PY,
        f"{M}def ping(client):\n    return client.alive()\n{M}",
        PY.replace(PING_BODY, "    return client.alive()\n"),
        [(9, 11, ("    return client.alive()",))],
        id="replace-function-body",
    ),
    # change one line between two context lines
    pytest.param(
        PY,
        f'{M}def ping(client):\n    reply = client.send("ping", timeout=5)\n    return reply == "pong"\n{M}',
        PY.replace('send("ping")', 'send("ping", timeout=5)'),
        [(9, 10, ('    reply = client.send("ping", timeout=5)',))],
        id="one-line-between-context",
    ),
    # add a parameter: def line and first body line change, anchored by the line below
    pytest.param(
        PY,
        f"{M}{NEW_DEF}\n{NEW_SOCK}\n    return Client(sock)\n{M}",
        PY.replace("def connect(host, port):", NEW_DEF).replace(OLD_SOCK, NEW_SOCK),
        [(3, 5, (NEW_DEF, NEW_SOCK))],
        id="add-parameter",
    ),
    # only the def line changes; the opener in the head replaces the original opener
    pytest.param(
        PY,
        f"{M}{NEW_DEF}\n{OLD_SOCK}\n    return Client(sock)\n{M}",
        PY.replace("def connect(host, port):", NEW_DEF),
        [(3, 4, (NEW_DEF,))],
        id="def-line-only",
    ),
    # first body line edited in place before an indented marker (rest of the body kept)
    pytest.param(
        PY,
        f"def connect(host, port):\n{NEW_SOCK}\n    {M}",
        PY.replace(OLD_SOCK, NEW_SOCK),
        [(4, 5, (NEW_SOCK,))],
        id="edit-in-place-before-indented-marker",
    ),
    # a close edit of the line above a context line replaces it, not a duplicate
    pytest.param(
        PY,
        f"{M}{NEW_SOCK}\n    return Client(sock)\n{M}",
        PY.replace(OLD_SOCK, NEW_SOCK),
        [(4, 5, (NEW_SOCK,))],
        id="edit-in-place-above-context",
    ),
    # a new first body line before an indented marker is an insertion
    pytest.param(
        PY,
        f'{M}def ping(client):\n    client.log("ping")\n    {M}',
        PY.replace("def ping(client):\n", 'def ping(client):\n    client.log("ping")\n'),
        [(9, 9, ('    client.log("ping")',))],
        id="insert-first-body-line",
    ),
    # insert a new method after an anchored one, markers indented in the class
    pytest.param(
        CLS,
        "class Store:\n    # ... existing code ...\n    def add(self, item):\n"
        "        self.items.append(item)\n\n    def remove(self, item):\n"
        "        self.items.remove(item)\n\n    # ... existing code ...\n",
        CLS.replace("\n    def clear", f"\n{REMOVE}\n\n    def clear"),
        [(7, 7, ("    def remove(self, item):", "        self.items.remove(item)", ""))],
        id="insert-method-after-anchor",
    ),
    # delete a function: its neighbours are shown adjacent with no marker between
    pytest.param(
        PY,
        f"{M}    return Client(sock)\n\n\ndef close(client):\n    client.sock.close()\n",
        PY.replace(f"def ping(client):\n{PING_BODY}\n\n", ""),
        [(8, 13, ())],
        id="delete-function",
    ),
    # two separate edits separated by a marker
    pytest.param(
        PY,
        f"{M}{NEW_DEF}\n{NEW_SOCK}\n    return Client(sock)\n{M}"
        "def close(client):\n    client.flush()\n    client.sock.close()\n",
        PY.replace("def connect(host, port):", NEW_DEF)
        .replace(OLD_SOCK, NEW_SOCK)
        .replace("    client.sock", "    client.flush()\n    client.sock"),
        [(3, 5, (NEW_DEF, NEW_SOCK)), (14, 14, ("    client.flush()",))],
        id="two-edits",
    ),
    # edit at the top with no leading marker: the file starts there anyway
    pytest.param(
        PY,
        f"import socket\nimport ssl\n\n\ndef connect(host, port):\n{M}",
        PY.replace("import socket\n", "import socket\nimport ssl\n"),
        [(1, 1, ("import ssl",))],
        id="edit-at-top-no-leading-marker",
    ),
    # edit at the bottom with no trailing marker
    pytest.param(
        PY,
        f"{M}def close(client):\n    client.flush()\n    client.sock.close()\n",
        PY.replace("    client.sock", "    client.flush()\n    client.sock"),
        [(14, 14, ("    client.flush()",))],
        id="edit-at-bottom",
    ),
    # pure-new function after a leading marker only -> appended at the end
    pytest.param(
        PY,
        f"{M}\ndef reconnect(client):\n    return connect(*client.addr)\n",
        PY + "\ndef reconnect(client):\n    return connect(*client.addr)\n",
        [(15, 15, ("", "def reconnect(client):", "    return connect(*client.addr)"))],
        id="append-new-function",
    ),
    # pure-new line before a trailing marker only -> inserted at the top
    pytest.param(
        PY,
        f"import ssl\n{M}",
        "import ssl\n" + PY,
        [(0, 0, ("import ssl",))],
        id="prepend-new-import",
    ),
    # context that differs only in trailing blanks still anchors; the blanks are the snippet's (a
    # commit that strips them shows them stripped)
    pytest.param(
        PY.replace("return Client(sock)\n", "return Client(sock)   \n"),
        f"{M}{OLD_SOCK}\n{SETBLOCK}\n    return Client(sock)\n{M}",
        PY.replace("    return Client(sock)\n", f"{SETBLOCK}\n    return Client(sock)\n"),
        [(5, 6, (SETBLOCK, "    return Client(sock)"))],
        id="trailing-blank-context",
    ),
    # tab-indented original, context typed with spaces: anchors, tabs kept
    pytest.param(
        PY.replace("    ", "\t"),
        f'{M}def ping(client):\n    reply = client.send("ping")\n    log(reply)\n    return reply == "pong"\n{M}',
        PY.replace("    ", "\t").replace('"ping")\n', '"ping")\n    log(reply)\n'),
        [(10, 10, ("    log(reply)",))],
        id="tabs-vs-spaces-context",
    ),
    # re-indented lines anchor too but are edits (wrapping a body in `if`)
    pytest.param(
        PY,
        f'{M}def ping(client):\n    if client:\n        reply = client.send("ping")\n'
        f'        return reply == "pong"\n    return False\n{M}',
        PY.replace(
            PING_BODY,
            '    if client:\n        reply = client.send("ping")\n        return reply == "pong"\n    return False\n',
        ),
        [
            (
                9,
                11,
                (
                    "    if client:",
                    '        reply = client.send("ping")',
                    '        return reply == "pong"',
                    "    return False",
                ),
            )
        ],
        id="reindent-is-an-edit",
    ),
    # a repeated line anchors next to the distinctive line above it
    pytest.param(
        NONE3,
        f"{M}def f1(x):\n    if x:\n        log(x)\n        return None\n{M}",
        NONE3.replace("def f1(x):\n    if x:\n", "def f1(x):\n    if x:\n        log(x)\n"),
        [(8, 8, ("        log(x)",))],
        id="repeated-line-near-anchor",
    ),
    # no markers, one function shown: the rest of the file is kept
    pytest.param(
        PY,
        "def ping(client):\n    return client.alive()\n",
        PY.replace(PING_BODY, "    return client.alive()\n"),
        [(9, 11, ("    return client.alive()",))],
        id="no-markers-one-function",
    ),
    # JS body replaced with // markers; the closing brace pairs with the original one
    pytest.param(
        JS,
        "// ... existing code ...\nfunction sub(a, b) {\n  const r = a - b;\n  return r;\n}\n"
        "// ... existing code ...\n",
        JS.replace("  return a - b;\n", "  const r = a - b;\n  return r;\n"),
        [(7, 8, ("  const r = a - b;", "  return r;"))],
        id="js-body",
    ),
    # JS function inserted after another; braces and blanks pair up first
    pytest.param(
        JS,
        "// ...existing code...\nfunction add(a, b) {\n  return a + b;\n}\n\n"
        "function mul(a, b) {\n  return a * b;\n}\n\n// ...existing code...\n",
        JS.replace("function sub", "function mul(a, b) {\n  return a * b;\n}\n\nfunction sub"),
        [(6, 6, ("function mul(a, b) {", "  return a * b;", "}", ""))],
        id="js-insert-function",
    ),
    # Go with tabs and // ...existing code... markers: signature change plus new lines
    pytest.param(
        GO,
        "// ...existing code...\nfunc greet(name string, loud bool) {\n\tif loud {\n"
        '\t\tfmt.Println("HI", name)\n\t\treturn\n\t}\n\tfmt.Println("hi", name)\n}\n'
        "// ...existing code...\n",
        GO.replace(
            "func greet(name string) {\n",
            'func greet(name string, loud bool) {\n\tif loud {\n\t\tfmt.Println("HI", name)\n\t\treturn\n\t}\n',
        ),
        [
            (
                4,
                5,
                (
                    "func greet(name string, loud bool) {",
                    "\tif loud {",
                    '\t\tfmt.Println("HI", name)',
                    "\t\treturn",
                    "\t}",
                ),
            )
        ],
        id="go-signature",
    ),
    # C with /* ... */ markers
    pytest.param(
        C,
        "/* ... */\nint add(int a, int b) {\n    return a + b + 0;\n}\n/* ... */\n",
        C.replace("return a + b;", "return a + b + 0;"),
        [(3, 4, ("    return a + b + 0;",))],
        id="c-block-comment-markers",
    ),
    # HTML: a new item, then the closing tag pairs with the original one
    pytest.param(
        HTML,
        "<!-- ... existing code ... -->\n  <li>two</li>\n  <li>three</li>\n</ul>\n",
        HTML.replace("</ul>", "  <li>three</li>\n</ul>"),
        [(3, 3, ("  <li>three</li>",))],
        id="html-comment-markers",
    ),
]

WHOLE_FILE = PY.replace('"ping")', '"PING")').replace("socket\n", "socket\nimport ssl\n", 1)

FAIL_CASES = [
    # context appears three times and nothing more distinctive -> ambiguous
    pytest.param(
        NONE3,
        f"{M}        log(x)\n        return None\n{M}",
        "context line 'return None' matches 3 places",
        id="ambiguous-context",
    ),
    # nothing in the snippet is in the original, markers on both sides
    pytest.param(PY, f"{M}def shout():\n    print('HEY')\n{M}", "no snippet line matches", id="unanchored"),
    # nothing matches and no markers: not a rewrite (the original has code) and not placeable
    pytest.param(PY, "def shout():\n    print('HEY')\n", "no snippet line matches", id="no-match"),
    # one segment anchors, a nested one between markers does not
    pytest.param(
        PY,
        f"{M}def ping(client):\n    reply = client.send('x')\n{M}    return value\n{M}",
        "could not be anchored: 'return value'",
        id="segment-unanchored",
    ),
    # the head's opener contradicts the block its context sits in
    pytest.param(PY, f"{M}with lock:\n    return Client(sock)\n{M}", "does not fit", id="opener-mismatch"),
    # markers and nothing else
    pytest.param(PY, f"{M}\n{M}", "no code besides lazy markers", id="only-markers"),
]


@pytest.mark.parametrize(("line", "expected"), MARKERS)
def test_is_marker(line: str, expected: bool) -> None:
    """is_marker tells a lazy marker from code and from ordinary comments."""
    assert is_marker(line) is expected


@pytest.mark.parametrize(("original", "snippet", "merged", "hunks"), OK_CASES)
def test_merge_ok(original: str, snippet: str, merged: str, hunks: list[tuple[int, int, tuple[str, ...]]]) -> None:
    """An unambiguous snippet merges to the exact text, with the exact hunks and line kinds."""
    result = merge(original, snippet)
    assert result.ok, result.reason
    assert result.merged == merged
    assert [(h.orig_start, h.orig_end, h.new_lines) for h in result.hunks] == hunks
    assert tuple((h.orig_start, h.orig_end) for h in result.hunks) == tuple((a, b) for a, b, _ in hunks)
    assert not result.whole_file
    assert not any(is_marker(line) for line in merged.splitlines())
    lines = original.splitlines()
    assert len(result.ops) == len(lines)
    for h in result.hunks:  # hunk lines are replaced/deleted; all others are kept/context
        assert set(result.ops[h.orig_start : h.orig_end]) <= {"replaced", "deleted"}
    changed = {j for h in result.hunks for j in range(h.orig_start, h.orig_end)}
    assert all(kind in ("kept", "context") for j, kind in enumerate(result.ops) if j not in changed)


@pytest.mark.parametrize(("original", "snippet", "reason"), FAIL_CASES)
def test_merge_refuses(original: str, snippet: str, reason: str) -> None:
    """A snippet with no single reading is refused with a reason, not guessed."""
    result = merge(original, snippet)
    assert not result.ok
    assert reason in result.reason
    assert result.merged is None and result.hunks == () and result.ops == ()


def test_docstring_example_ops() -> None:
    """The worked example: per-line kinds and the one replacing hunk."""
    snippet = f"{M}b()\nx()\nd()\n{M}"
    result = merge("a()\nb()\nc()\nd()\ne()\n", snippet)
    assert result.merged == "a()\nb()\nx()\nd()\ne()\n"
    assert result.hunks == (Hunk(2, 3, ("x()",)),)
    assert result.ops == ("kept", "context", "replaced", "context", "kept")


def test_delete_marks_lines_deleted() -> None:
    """A deleted function's lines are 'deleted'; its shown neighbours' lines are 'context'."""
    snippet = f"{M}    return Client(sock)\n\n\ndef close(client):\n    client.sock.close()\n"
    result = merge(PY, snippet)
    assert result.ops[8:13] == ("deleted",) * 5
    assert result.ops[5] == result.ops[13] == "context"
    assert result.ops[0] == "kept"


def test_whole_file_rewrite_is_verbatim() -> None:
    """A marker-less snippet matching most of the file replaces it verbatim, hunks still exact."""
    result = merge(PY, WHOLE_FILE)
    assert result.ok and result.whole_file
    assert result.merged == WHOLE_FILE
    assert result.hunks == (
        Hunk(1, 1, ("import ssl",)),
        Hunk(9, 10, ('    reply = client.send("PING")',)),
    )


def test_whole_file_without_trailing_newline() -> None:
    """A whole-file rewrite keeps the snippet's own last-line ending."""
    snippet = WHOLE_FILE.rstrip("\n")
    assert merge(PY, snippet).merged == snippet


def test_empty_original_takes_snippet() -> None:
    """An empty original is rewritten by a marker-less snippet, appended to after a marker."""
    assert merge("", "def f():\n    pass\n").merged == "def f():\n    pass\n"
    assert merge("", f"{M}def f():\n    pass\n").merged == "def f():\n    pass\n"


def test_unchanged_snippet_has_no_hunks() -> None:
    """A snippet that repeats the original under markers changes nothing."""
    result = merge(PY, f"{M}{PY}{M}")
    assert result.ok and result.merged == PY and result.hunks == ()


def test_original_without_final_newline() -> None:
    """The merged text keeps the original's missing final newline."""
    original = PY.rstrip("\n")
    result = merge(original, f"{M}def close(client):\n    client.flush()\n    client.sock.close()")
    assert result.merged == original.replace("    client.sock", "    client.flush()\n    client.sock")


def test_large_file_is_fast_enough() -> None:
    """A 2000-line file of near-identical functions merges (and rewrites) without blowing up."""
    body = "    if x:\n        return None\n    return x + "
    funcs = [f"def f{i}(x):\n{body}{i}\n" for i in range(400)]
    original = "\n".join(funcs)
    snippet = f"{M}{funcs[250].replace('return x +', 'return -x +')}{M}"
    result = merge(original, snippet)
    assert result.ok and [(h.orig_start, h.orig_end) for h in result.hunks] == [(1253, 1254)]
    rewrite = original.replace("return None", "return 0")
    assert merge(original, rewrite).merged == rewrite


def test_result_is_frozen() -> None:
    """MergeResult and Hunk are immutable values."""
    result = merge(PY, f"{M}def close(client):\n    client.flush()\n    client.sock.close()\n")
    assert isinstance(result, MergeResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.ok = False  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.hunks[0].orig_start = 0  # type: ignore[misc]


LINE = st.sampled_from(
    "def a():|    return 1|    return None||}|function f() {|  x();|class A:|    def m(self):"
    "|        pass|import os|x = 1|\tfoo()|if x:|else:".split("|")
)
ACTION = st.sampled_from(["keep", "keep", "keep", "drop", "marker", "replace", "insert"])


def _apply(original: str, hunks: tuple[Hunk, ...]) -> str:
    """Rebuild a text from the original and hunks, the way a consumer of `hunks` would."""
    lines, out, pos = original.splitlines(), [], 0
    for h in hunks:
        out += [*lines[pos : h.orig_start], *h.new_lines]
        pos = h.orig_end
    out += lines[pos:]
    return "\n".join(out) + ("\n" if out and (original.endswith("\n") or not original) else "")


def test_merge_is_total_and_consistent() -> None:
    """merge never raises; an ok result's hunks are ordered, rebuild `merged` and match `ops`. A refusal
    returns early, so a minimum share of the examples must reach the checks on a merged result."""
    reached = {"all": 0, "merged": 0}

    @settings(max_examples=250, deadline=None, derandomize=True)
    @given(st.lists(LINE, max_size=14), st.data())
    def check(original_lines: list[str], data: st.DataObject) -> None:
        snippet_lines: list[str] = []
        for line in original_lines:  # a chat-model-like edit: keep, drop, elide, replace, insert
            action = data.draw(ACTION)
            if action in ("keep", "insert"):
                snippet_lines.append(line)
            if action in ("replace", "insert"):
                snippet_lines.append(data.draw(LINE))
            if action == "marker":
                snippet_lines.append(M.rstrip("\n"))
        original = "".join(f"{x}\n" for x in original_lines)
        result = merge(original, "".join(f"{x}\n" for x in snippet_lines))
        reached["all"] += 1
        if not result.ok:
            assert result.reason and result.merged is None
            return
        reached["merged"] += 1
        assert result.merged is not None and len(result.ops) == len(original_lines)
        assert all(a.orig_end < b.orig_start for a, b in zip(result.hunks, result.hunks[1:]))
        if not result.whole_file:
            assert result.merged == _apply(original, result.hunks)
        for h in result.hunks:
            assert set(result.ops[h.orig_start : h.orig_end]) <= {"replaced", "deleted"}

    check()
    assert reached["all"] >= 200 and reached["merged"] >= 0.25 * reached["all"], reached


@pytest.mark.parametrize(
    ("output", "lost"),
    [
        ("a()\nb()\nX()\nd()\ne()\n", []),  # the merged result itself
        ("b()\nX()\nd()\ne()\n", [1]),  # a() was under a marker and vanished
        ("a()\nb()\nX()\nd()\n", [5]),  # e() too, at the end
        ("a()\nX()\nd()\ne()\n", [2]),  # b() was context: the snippet kept it
        ("a()\nb()\nd()\ne()\n", []),  # c() was the snippet's to replace; missing X() is not a drop
        ("a(1)\nb()\nX()\nd()\ne()\n", []),  # a kept line edited in place (a call site): not lost
        ("\n".join(["zzz"] * 5) + "\n", [1, 2, 4, 5]),  # everything replaced by unrelated lines
    ],
)
def test_dropped_lines(output: str, lost: list[int]) -> None:
    original = "a()\nb()\nc()\nd()\ne()\n"
    result = merge("a()\nb()\nc()\nd()\ne()\n", "# ... existing code ...\nb()\nX()\nd()\n# ... existing code ...\n")
    assert result.ok and result.ops == ("kept", "context", "replaced", "context", "kept")
    assert dropped_lines(original, output, result) == lost


def test_tail_that_ends_its_block_at_a_shallower_marker_replaces_the_rest_of_the_block() -> None:
    """The snippet rewrites a function's last lines and a top-level marker follows: the original's
    remaining body lines are replaced (not kept under the marker), blank lines pair with blank lines."""
    original = "def f(x):\n    a = x + 1\n    b = a * 2\n    return b\n\n\ndef g():\n    return 0\n"
    snippet = "def f(x):\n    a = x + 1\n    c = a * 3\n    return max(c, 0)\n\n\n# ... existing code ...\n"
    result = merge(original, snippet)
    assert result.ok
    assert (
        result.merged == "def f(x):\n    a = x + 1\n    c = a * 3\n    return max(c, 0)\n\n\ndef g():\n    return 0\n"
    )
    assert result.ops == ("context", "context", "replaced", "replaced", "context", "context", "kept", "kept")
    # a marker as deep as the block keeps the rest of the body instead (c = a * 3 edits b's line in place)
    deep = merge(original, "def f(x):\n    a = x + 1\n    c = a * 3\n    # ... existing code ...\n")
    assert deep.ok and deep.merged == original.replace("    b = a * 2\n", "    c = a * 3\n")


GO3 = """package args

func A(n int) int {
\tif n > 0 {
\t\treturn n
\t}
\treturn 0
}

// B doubles.
func B(n int) int {
\tif n > 1 {
\t\treturn n * 2
\t}
\treturn 0
}

// C triples.
func C(n int) int {
\treturn n * 3
}
"""


def test_deleted_function_shown_as_the_ends_around_it() -> None:
    """`}` `}` then the next function, no marker between: the function in between is deleted,
    not an unchanged snippet read at the place where `}` `}` stands right above C."""
    snippet = (
        "// ... existing code ...\n\treturn 0\n}\n\n// C triples.\nfunc C(n int) int {\n// ... existing code ...\n"
    )
    result = merge(GO3, snippet)
    assert result.ok and result.merged == GO3.replace(GO3[GO3.index("// B doubles") : GO3.index("// C triples")], "")


def test_new_function_after_closing_context_keeps_the_previous_closing_lines() -> None:
    new = "func A2(n int) int {\n\tif n < 0 {\n\t\treturn 0\n\t}\n\treturn n\n}\n\n"
    snippet = f"// ... existing code ...\n\treturn 0\n}}\n\n{new}// B doubles.\nfunc B(n int) int {{\n// ... existing code ...\n"
    result = merge(GO3, snippet)
    assert result.ok and result.merged == GO3.replace("// B doubles.", new + "// B doubles.")


def test_lone_closing_line_after_a_marker_reads_as_a_deletion_up_to_the_anchor() -> None:
    """`)` right after a marker, then the next function: the original's `)` is further up, so the
    function between them is deleted (not a new `)` inserted above B)."""
    original = 'import (\n\t"fmt"\n)\n\nfunc A() {\n\tfmt.Println("a")\n}\n\nfunc B() {\n\tfmt.Println("b")\n}\n'
    snippet = "// ... existing code ...\n)\n\nfunc B() {\n// ... existing code ...\n"
    result = merge(original, snippet)
    assert result.ok and result.merged == original.replace('func A() {\n\tfmt.Println("a")\n}\n\n', "")
