"""Adversarial update snippets, written by hand, shape by shape, in every language: the shapes that
made the merge-first answer delete or misplace code while it said "unambiguous" (a decorator that
stands once elsewhere, the end of one function before the next one's header, a tab-indented file
with a space-indented snippet, an import above a file's head, a first line that stands in two
functions, a snippet that ends after a new line with no marker, ...), and plain shapes beside them
that must keep working.

Each case holds the original, the snippet, and either the expected file (`after`) or None: "must
decline" (two readings fit the snippet equally, or no reading keeps the file's head). `wrong`, where
given, is a wrong answer a merger or a model has produced for it: the invariants must refuse it.
Every file here is written before any merger or model ran on it.

    python corpus/adversarial/cases.py --write DIR    # the cases with an expected file, as fixtures
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Case:
    name: str
    language: str
    shape: str
    before: str
    snippet: str
    after: str | None  # None: must decline
    wrong: str | None = None  # a wrong answer the invariants must refuse

    @property
    def ext(self) -> str:
        return EXT[self.language]


EXT = {"python": ".py", "javascript": ".js", "typescript": ".ts", "go": ".go", "rust": ".rs", "java": ".java",
       "c": ".c", "cpp": ".h"}


@dataclass(frozen=True)
class Lang:
    """How a language writes the few things the shapes need."""

    name: str
    comment: str
    indent: str
    func: Callable[[str, list[str], str], list[str]]  # name, body lines (unindented), indent -> lines
    ret: Callable[[str], str]  # a return statement of an expression
    call: Callable[[str], str]  # a statement calling a function with `it`
    gap: int  # blank lines between top-level functions
    prefix: list[str]  # lines before the functions (package clause, class opener)
    suffix: list[str]  # lines after them (class closer)
    member: str  # indentation of a function inside prefix/suffix


def _braces(header: Callable[[str], str]) -> Callable[[str, list[str], str], list[str]]:
    def func(name: str, body: list[str], ind: str) -> list[str]:
        return [header(name), *[ind + x for x in body], "}"]
    return func


def _py(name: str, body: list[str], ind: str) -> list[str]:
    return [f"def {name}(items):", *[ind + x for x in body]]


LANGS = {
    "python": Lang("python", "#", "    ", _py, lambda e: f"return {e}", lambda f: f"{f}(it)", 2, [], [], ""),
    "javascript": Lang("javascript", "//", "  ", _braces(lambda n: f"function {n}(items) {{"), lambda e: f"return {e};",
                       lambda f: f"{f}(it);", 1, [], [], ""),
    "typescript": Lang("typescript", "//", "  ", _braces(lambda n: f"export function {n}(items: number[]): number {{"),
                       lambda e: f"return {e};", lambda f: f"{f}(it);", 1, [], [], ""),
    "go": Lang("go", "//", "\t", _braces(lambda n: f"func {n}(items []int) int {{"), lambda e: f"return {e}",
               lambda f: f"{f}(it)", 1, ["package main", ""], [], ""),
    "rust": Lang("rust", "//", "    ", _braces(lambda n: f"fn {n}(items: &[i32]) -> i32 {{"), lambda e: f"return {e};",
                 lambda f: f"{f}(it);", 1, [], [], ""),
    "java": Lang("java", "//", "    ", _braces(lambda n: f"static int {n}(int[] items) {{"), lambda e: f"return {e};",
                 lambda f: f"{f}(it);", 1, ["public class Main {"], ["}"], "    "),
    "c": Lang("c", "//", "    ", _braces(lambda n: f"int {n}(const int *items, int n) {{"), lambda e: f"return {e};",
              lambda f: f"{f}(it);", 1, ["#include <stdio.h>", ""], [], ""),
}


def _file(lang: Lang, funcs: list[list[str]]) -> str:
    """Top-level functions (or members of the prefix's class), separated as the language does."""
    out = list(lang.prefix)
    for n, f in enumerate(funcs):
        if n:
            out += [""] * lang.gap
        out += [lang.member + x if x else x for x in f]
    out += lang.suffix
    return "\n".join(out) + "\n"


def _m(lang: Lang, text: str = "... existing code ...", indent: str = "") -> str:
    return f"{indent}{lang.comment} {text}"


def _loop(lang: Lang, name: str) -> list[str]:
    """A loop over items calling `name`, in the language."""
    i = lang.indent
    if lang.name == "python":
        return ["for it in items:", f"{i}{lang.call(name)}"]
    if lang.name in ("javascript", "typescript"):
        return ["for (const it of items) {", f"{i}{lang.call(name)}", "}"]
    if lang.name == "go":
        return ["for _, it := range items {", f"{i}{lang.call(name)}", "}"]
    if lang.name == "rust":
        return ["for it in items {", f"{i}{lang.call(name)}", "}"]
    if lang.name == "java":
        return ["for (int it : items) {", f"{i}{lang.call(name)}", "}"]
    return ["for (int k = 0; k < n; k++) {", f"{i}int it = items[k];", f"{i}{lang.call(name)}", "}"]


def _ind(lang: Lang, lines: list[str], depth: int = 1) -> list[str]:
    return [lang.member + lang.indent * depth + x if x else x for x in lines]


def _join(*parts: list[str] | str) -> str:
    out: list[str] = []
    for p in parts:
        out += [p] if isinstance(p, str) else p
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- shapes


def end_before_header(lang: Lang) -> Iterator[Case]:
    """The end of the previous function, then the next one's header: the same end stands twice."""
    a = lang.func("alpha", [lang.ret("1")], lang.indent)
    b = lang.func("beta", [lang.ret("1")], lang.indent)  # ends like alpha
    c = lang.func("gamma", _loop(lang, "handle"), lang.indent)
    before = _file(lang, [a, b, c])
    loop = _loop(lang, "handle")
    at = next(i for i, x in enumerate(loop) if "handle" in x) + 1
    c_new = lang.func("gamma", [*loop[:at], lang.indent + lang.call("log"), *loop[at:]], lang.indent)
    after = _file(lang, [a, b, c_new])
    end = [lang.member + x for x in b[-2:]] if lang.name == "python" else [lang.member + b[-1]]
    head = lang.member + c[0]
    call = _ind(lang, [loop[at - 1]], 1)[0]
    snippet = _join(_m(lang), end, [""] * lang.gap, head, _m(lang), call,
                    call.replace(lang.call("handle"), lang.call("log")), _m(lang))
    yield Case(f"{lang.name}_end_before_header", lang.name, "end-before-header", before, snippet, after)
    # the same with two functions after it: the snippet names the middle one's successor
    yield Case(f"{lang.name}_end_before_header_tail", lang.name, "end-before-header",
               before, _join(_m(lang), end, [""] * lang.gap, head, _m(lang)), None,
               wrong=_file(lang, [a, c]))


def first_line_twice(lang: Lang) -> Iterator[Case]:
    """The first line after a marker stands in two functions: no context tells which."""
    body = [lang.ret("total")] if lang.name == "python" else [lang.ret("total")]
    setup = "total = 0" if lang.name == "python" else {
        "javascript": "let total = 0;", "typescript": "let total = 0;", "go": "total := 0", "rust": "let mut total = 0;",
        "java": "int total = 0;", "c": "int total = 0;"}[lang.name]
    f = lang.func("first", [setup, *body], lang.indent)
    g = lang.func("second", [setup, *body], lang.indent)
    before = _file(lang, [f, g])
    extra = {"python": "total += 1", "go": "total++", "rust": "total += 1;"}.get(lang.name, "total += 1;")
    snippet = _join(_m(lang), _ind(lang, [setup, extra]), _m(lang))
    wrong = _file(lang, [lang.func("first", [setup, extra, *body], lang.indent), g])
    yield Case(f"{lang.name}_first_line_twice", lang.name, "first-line-twice", before, snippet, None, wrong=wrong)
    # the header above it decides: exact
    after = _file(lang, [f, lang.func("second", [setup, extra, *body], lang.indent)])
    snippet2 = _join(_m(lang), lang.member + g[0], _ind(lang, [setup, extra]), _m(lang))
    yield Case(f"{lang.name}_first_line_twice_header", lang.name, "first-line-twice", before, snippet2, after)


def return_twice(lang: Lang) -> Iterator[Case]:
    """A segment of only a `return` line that stands in three functions, then a new line."""
    fs = [lang.func(n, [lang.ret("result")], lang.indent) for n in ("one", "two", "three")]
    before = _file(lang, fs)
    log = lang.call("log").replace("it", "result")
    snippet = _join(_m(lang), _ind(lang, [log, lang.ret("result")]), _m(lang))
    wrong = _file(lang, [lang.func("one", [log, lang.ret("result")], lang.indent), *fs[1:]])
    yield Case(f"{lang.name}_return_twice", lang.name, "repeated-anchor", before, snippet, None, wrong=wrong)


def open_end_small(lang: Lang) -> Iterator[Case]:
    """The snippet ends with a new line and no marker; the original's last statement is replaced."""
    f = lang.func("find", [lang.ret("-1")], lang.indent)
    g = lang.func("last", ["result = 0" if lang.name == "python" else ("result := 0" if lang.name == "go" else
                  "let result = 0;" if lang.name in ("javascript", "typescript", "rust") else "int result = 0;"),
                  lang.ret("-1")], lang.indent)
    if lang.suffix:  # a class closer follows: the file does not end with the function
        return
    before = _file(lang, [f, g])
    new_g = g[:-2] + [lang.indent + lang.ret("result")] + g[-1:] if lang.name != "python" else g[:-1] + [
        lang.indent + lang.ret("result")]
    after = _file(lang, [f, new_g])
    shown = [lang.member + x for x in (g[:2] if lang.name != "python" else g[:2])]
    if lang.name == "python":
        snippet = _join(_m(lang), shown, lang.indent + lang.ret("result"))
    else:
        snippet = _join(_m(lang), shown, lang.indent + lang.ret("result"), "}")
    # (its wrong answer, `return result` above the old `return -1`, is the other reading of an open
    # end: the confirmed merge takes this one, the invariants allow both)
    yield Case(f"{lang.name}_open_end_small", lang.name, "no-trailing-marker", before, snippet, after)


def open_end_long(lang: Lang) -> Iterator[Case]:
    """A new function after the last shown one, no marker below, more code after: the new definition goes
    after the shown sibling before it, and the code the snippet does not show is kept (nobody deletes code
    by leaving it out; docs/reading.md)."""
    fs = [lang.func(n, [lang.ret(str(k))], lang.indent) for k, n in enumerate(("uno", "dos", "tres"))]
    before = _file(lang, fs)
    new = lang.func("nuevo", [lang.ret("9")], lang.indent)
    shown = [lang.member + x for x in fs[0]]
    snippet = _join(_m(lang), shown, [""] * lang.gap, [lang.member + x for x in new])
    after = _file(lang, [fs[0], new, *fs[1:]])
    # The wrong answer that deletes the code past the snippet's end ([uno, nuevo]) no invariant refuses yet:
    # the deletions invariant reads an open end as the line readers do (docs/reading.md, not yet done).
    yield Case(f"{lang.name}_open_end_long", lang.name, "no-trailing-marker", before, snippet, after)


def deletion_clean(lang: Lang) -> Iterator[Case]:
    """A clean deletion: two lines of context above, two below, the function between them gone."""
    fs = [lang.func(n, [f"value{k} = {k}" if lang.name in ("python",) else
                        (f"value{k} := {k}" if lang.name == "go" else
                         f"let value{k} = {k};" if lang.name in ("javascript", "typescript", "rust") else
                         f"int value{k} = {k};"), lang.ret(f"value{k}")], lang.indent)
          for k, n in enumerate(("keep_a", "drop_b", "keep_c"))]
    before = _file(lang, fs)
    after = _file(lang, [fs[0], fs[2]])
    above = [lang.member + x for x in fs[0][-2:]]
    below = [lang.member + x for x in fs[2][:2]]
    snippet = _join(_m(lang), above, [""] * lang.gap, below, _m(lang, indent=lang.member + lang.indent))
    yield Case(f"{lang.name}_deletion_clean", lang.name, "deletion", before, snippet, after)


def rename_clean(lang: Lang) -> Iterator[Case]:
    """A function renamed in place, with context: exact, and no definition counts as lost."""
    fs = [lang.func(n, [lang.ret(str(k))], lang.indent) for k, n in enumerate(("old_name", "other"))]
    before = _file(lang, fs)
    renamed = [fs[0][0].replace("old_name", "new_name"), *fs[0][1:]]
    after = _file(lang, [renamed, fs[1]])
    snippet = _join([lang.member + x for x in renamed], _m(lang))
    yield Case(f"{lang.name}_rename_clean", lang.name, "rename", before, snippet, after)


def insert_clean(lang: Lang) -> Iterator[Case]:
    """A new statement with two lines of context each side: plain, must stay exact."""
    body = [("x = 1" if lang.name == "python" else "x := 1" if lang.name == "go" else
             "let x = 1;" if lang.name in ("javascript", "typescript", "rust") else "int x = 1;"),
            lang.call("prepare").replace("it", "x"), lang.call("finish").replace("it", "x"), lang.ret("x")]
    f = lang.func("work", body, lang.indent)
    g = lang.func("rest", [lang.ret("0")], lang.indent)
    before = _file(lang, [f, g])
    new_body = body[:2] + [lang.call("audit").replace("it", "x")] + body[2:]
    after = _file(lang, [lang.func("work", new_body, lang.indent), g])
    snippet = _join(_m(lang), _ind(lang, body[:2] + [new_body[2]] + body[2:4]), _m(lang))
    yield Case(f"{lang.name}_insert_clean", lang.name, "plain", before, snippet, after)


def marker_zero_after_body(lang: Lang) -> Iterator[Case]:
    """A column-0 marker right after an indented segment: the rest of the function stays."""
    body = [lang.call(f"step{k}").replace("(it)", "()") for k in range(5)] + [lang.ret("0")]
    f = lang.func("steps", body, lang.indent)
    g = lang.func("after", [lang.ret("1")], lang.indent)
    before = _file(lang, [f, g])
    new_body = body[:2] + [lang.call("extra").replace("(it)", "()")] + body[2:]
    after = _file(lang, [lang.func("steps", new_body, lang.indent), g])
    snippet = _join(_m(lang), _ind(lang, new_body[:4]), _m(lang))
    yield Case(f"{lang.name}_marker_zero_after_body", lang.name, "marker-indent-zero", before, snippet, after,
               wrong=_file(lang, [lang.func("steps", new_body[:4], lang.indent), g]))


def decorator_once(lang: Lang) -> Iterator[Case]:
    """A decorator (annotation, attribute) that stands once, above another function, added to this one."""
    deco = {"python": "@staticmethod", "typescript": "@memo()", "java": "@Override", "rust": "#[inline]",
            "javascript": None, "go": None, "c": None}[lang.name]
    if deco is None:
        return
    if lang.name == "python":
        cls = ["class Box:", "    @staticmethod", "    def make():", "        return Box()", "",
               "    def helper(x):", "        return x * 2"]
        before = "\n".join(cls) + "\n"
        after = "\n".join([*cls[:5], "    @staticmethod", *cls[5:]]) + "\n"
        snippet = _join(_m(lang), "    @staticmethod", "    def helper(x):", "        return x * 2")
        wrong = "\n".join(["class Box:", "    @staticmethod", "    def helper(x):", "        return x * 2"]) + "\n"
        yield Case("python_decorator_once", "python", "decorator", before, snippet, after, wrong=wrong)
        for other in ("@property", "@pytest.fixture", "@functools.cache"):
            b2 = before.replace("@staticmethod", other)
            yield Case(f"python_decorator_once_{other.strip('@').replace('.', '_')}", "python", "decorator", b2,
                       snippet.replace("@staticmethod", other), after.replace("@staticmethod", other),
                       wrong=wrong.replace("@staticmethod", other))
        return
    f = lang.func("make", [lang.ret("1")], lang.indent)
    g = lang.func("helper", [lang.ret("2")], lang.indent)
    before = _file(lang, [[deco, *f], g])
    after = _file(lang, [[deco, *f], [deco, *g]])
    snippet = _join(_m(lang), [lang.member + x for x in [deco, *g]])
    if lang.suffix:
        snippet = _join(snippet.rstrip("\n"), _m(lang))
    wrong = _file(lang, [[deco, *g]])
    yield Case(f"{lang.name}_decorator_once", lang.name, "decorator", before, snippet, after, wrong=wrong)


def tabs_file_spaces_snippet(lang: Lang) -> Iterator[Case]:
    """A tab-indented file, a snippet indented with spaces: placed in the file's tabs."""
    if lang.name not in ("python", "go", "c", "javascript"):
        return
    t = "\t"
    if lang.name == "python":
        before = "def f(x):\n\tif x:\n\t\ty = 1\n\t\treturn y\n\treturn 0\n"
        snippet = "# ... existing code ...\n    if x:\n        y = 1\n        print(y)\n        return y\n# ... existing code ...\n"
        after = "def f(x):\n\tif x:\n\t\ty = 1\n\t\tprint(y)\n\t\treturn y\n\treturn 0\n"
        wrong = "def f(x):\n\tif x:\n        y = 1\n        print(y)\n        return y\n\treturn 0\n"
    else:
        head = lang.func("f", ["if (x) {", f"{t}y = 1;", f"{t}return y;", "}", lang.ret("0")], t)
        head[0] = head[0].replace("(items", "(x").replace("items)", "x)")
        before = _file(lang, [head])
        new = [*head[:3], f"{t}{t}log(y);", *head[3:]]
        after = _file(lang, [new])
        snippet = _join(_m(lang), "    if (x) {", "        y = 1;", "        log(y);", "        return y;", _m(lang))
        wrong = None
    yield Case(f"{lang.name}_tabs_file_spaces_snippet", lang.name, "indentation", before, snippet, after, wrong=wrong)


def two_space_file(lang: Lang) -> Iterator[Case]:
    """A 2-space file, a snippet written with 4 spaces: placed in the file's 2 spaces."""
    if lang.name not in ("python", "javascript", "typescript"):
        return
    if lang.name == "python":
        before = "def f(x):\n  if x:\n    y = 1\n    return y\n  return 0\n"
        snippet = "# ... existing code ...\n    if x:\n        y = 1\n        print(y)\n        return y\n# ... existing code ...\n"
        after = "def f(x):\n  if x:\n    y = 1\n    print(y)\n    return y\n  return 0\n"
        wrong = None  # 8 spaces under a 2-space `if` still compiles: a style, not an invariant
    else:
        before = "function f(x) {\n  if (x) {\n    const y = 1;\n    return y;\n  }\n  return 0;\n}\n"
        snippet = "// ... existing code ...\n    if (x) {\n        const y = 1;\n        log(y);\n        return y;\n// ... existing code ...\n"
        after = "function f(x) {\n  if (x) {\n    const y = 1;\n    log(y);\n    return y;\n  }\n  return 0;\n}\n"
        wrong = None
    yield Case(f"{lang.name}_two_space_file", lang.name, "indentation", before, snippet, after, wrong=wrong)


def file_heads(lang: Lang) -> Iterator[Case]:
    """An import snippet with no marker above: it may not go above the file's head."""
    if lang.name == "python":
        for name, before in (
            ("shebang", "#!/usr/bin/env python3\nimport os\n\nprint(os.name)\n"),
            ("future", '"""Doc."""\nfrom __future__ import annotations\n\nimport os\n'),
            ("shebang_future", '#!/usr/bin/env python3\n"""Doc."""\nfrom __future__ import annotations\n\nimport os\n'),
        ):
            yield Case(f"python_head_{name}", "python", "file-head", before, "import json\n# ... existing code ...\n",
                       None, wrong="import json\n" + before)
    elif lang.name == "go":
        before = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi")\n}\n'
        yield Case("go_head_package", "go", "file-head", before, 'import "os"\n// ... existing code ...\n', None,
                   wrong='import "os"\n' + before)
    elif lang.name == "c":
        before = "#ifndef UTIL_H\n#define UTIL_H\n\nint add(int a, int b);\n\n#endif\n"
        after = "#ifndef UTIL_H\n#define UTIL_H\n\nint add(int a, int b);\nint sub(int a, int b);\n\n#endif\n"
        yield Case("c_head_guard_append", "cpp", "file-head", before, "// ... existing code ...\nint sub(int a, int b);\n",
                   None, wrong=before + "int sub(int a, int b);\n")
        yield Case("c_head_guard_context", "cpp", "file-head", before,
                   "// ... existing code ...\nint add(int a, int b);\nint sub(int a, int b);\n\n#endif\n", after)
    elif lang.name in ("javascript", "typescript"):
        before = "#!/usr/bin/env node\nconst fs = require('fs');\n\nfs.readFileSync('x');\n"
        yield Case(f"{lang.name}_head_shebang", lang.name, "file-head", before,
                   "const path = require('path');\n// ... existing code ...\n", None,
                   wrong="const path = require('path');\n" + before)


def noop_tail(lang: Lang) -> Iterator[Case]:
    """The snippet ends with unchanged lines and no marker, the original goes on: does the file end there?"""
    fs = [lang.func(n, [lang.ret(str(k))], lang.indent) for k, n in enumerate(("keep", "maybe_gone"))]
    if lang.suffix:
        return
    before = _file(lang, fs)
    first = lang.func("first", [lang.ret("7")], lang.indent)
    before = _file(lang, [first, *fs])
    snippet = _join(lang.func("first", [lang.ret("8")], lang.indent), _m(lang),
                    [lang.member + x for x in fs[0]])
    yield Case(f"{lang.name}_noop_tail", lang.name, "no-trailing-marker", before, snippet, None,
               wrong=_file(lang, [lang.func("first", [lang.ret("8")], lang.indent), fs[0]]))


def swapped_functions(lang: Lang) -> Iterator[Case]:
    """A plain edit whose wrong answer swaps two functions: order is an invariant."""
    fs = [lang.func(n, [lang.ret(str(k))], lang.indent) for k, n in enumerate(("p", "q", "r"))]
    before = _file(lang, fs)
    new_p = lang.func("p", [lang.ret("10")], lang.indent)
    after = _file(lang, [new_p, *fs[1:]])
    snippet = _join([lang.member + x for x in new_p], _m(lang))
    wrong = _file(lang, [new_p, fs[2], fs[1]])
    yield Case(f"{lang.name}_swapped_functions", lang.name, "order", before, snippet, after, wrong=wrong)


def dropped_blank(lang: Lang) -> Iterator[Case]:
    """A plain edit whose wrong answer drops one blank line far from the change."""
    fs = [lang.func(n, [lang.ret(str(k))], lang.indent) for k, n in enumerate(("s", "t", "u", "v"))]
    before = _file(lang, fs)
    new_s = lang.func("s", [lang.ret("10")], lang.indent)
    after = _file(lang, [new_s, *fs[1:]])
    snippet = _join([lang.member + x for x in new_s], _m(lang))
    lines = after.split("\n")
    last_blank = max(i for i, x in enumerate(lines[:-1]) if not x.strip())
    wrong = "\n".join(lines[:last_blank] + lines[last_blank + 1 :])
    yield Case(f"{lang.name}_dropped_blank", lang.name, "deletion", before, snippet, after, wrong=wrong)


def far_import_dropped(lang: Lang) -> Iterator[Case]:
    """A wrong answer that deletes an import far from every hunk."""
    if lang.name != "python":
        return
    before = "import os\nimport sys\n\n\ndef a():\n    return os.name\n\n\ndef b():\n    return sys.argv\n"
    snippet = "# ... existing code ...\ndef b():\n    return sys.argv[1:]\n"
    after = before.replace("return sys.argv\n", "return sys.argv[1:]\n")
    yield Case("python_far_import_dropped", "python", "deletion", before, snippet, after,
               wrong=after.replace("import os\n", ""))


def changed_first_line_ignored(lang: Lang) -> Iterator[Case]:
    """A wrong answer that keeps the original where the snippet's first line changed it."""
    fs = [lang.func(n, [lang.ret(str(k))], lang.indent) for k, n in enumerate(("head", "body"))]
    before = _file(lang, fs)
    new_head = [fs[0][0].replace("head", "heading"), *fs[0][1:]]
    after = _file(lang, [new_head, fs[1]])
    snippet = _join([lang.member + x for x in new_head], _m(lang))
    yield Case(f"{lang.name}_changed_first_line_ignored", lang.name, "snippet-all-there", before, snippet, after,
               wrong=before)


def repeated_block(lang: Lang) -> Iterator[Case]:
    """Two functions with the same three-line body: the changed middle line's context, above and
    below, stands in both."""
    body = [lang.call("setup"), lang.call("step"), lang.ret("0")]
    fs = [lang.func(n, body, lang.indent) for n in ("left", "right")]
    before = _file(lang, fs)
    edited = [body[0], lang.call("stride"), body[2]]
    snippet = _join(_m(lang), _ind(lang, edited), _m(lang))
    wrong = _file(lang, [lang.func("left", edited, lang.indent), fs[1]])
    yield Case(f"{lang.name}_repeated_block", lang.name, "repeated-anchor", before, snippet, None, wrong=wrong)


def open_start_few_above(lang: Lang) -> Iterator[Case]:
    """The snippet starts, with no marker, at the file's second line of code, a function shown whole: the
    line above is kept (a snippet that starts at a line of the file other than its first keeps what is
    above). Where the function's end is not shown (Python), which lines it replaces stays a question."""
    if lang.prefix or lang.suffix:  # a package clause or class header above: deleting it breaks the file
        return
    top = {"python": "import os", "javascript": "const os = require('os');", "typescript": "import * as os from 'os';",
           "rust": "use std::env;"}[lang.name]
    fs = [lang.func(n, [lang.ret(str(k))], lang.indent) for k, n in enumerate(("first", "second"))]
    before = _join(top, "", [x for f in [fs[0], [""] * lang.gap, fs[1]] for x in f])
    new_first = lang.func("first", [lang.ret("10")], lang.indent)
    snippet = _join(new_first, _m(lang))
    after = _join(top, "", [x for f in [new_first, [""] * lang.gap, fs[1]] for x in f])
    yield Case(f"{lang.name}_open_start_few_above", lang.name, "no-leading-marker", before, snippet, after)


def no_context(lang: Lang) -> Iterator[Case]:
    """A marker, then a function of the file's first function's name, changed, and no marker below: the
    definition of that name is replaced (a definition shown whole replaces its namesake), not appended."""
    fs = [lang.func(n, [lang.ret(str(k))], lang.indent) for k, n in enumerate(("alpha", "omega"))]
    before = _file(lang, fs)
    new = lang.func("alpha", [lang.ret("5")], lang.indent)
    snippet = _join(_m(lang), [lang.member + x for x in new])
    wrong = _file(lang, [*fs, new])  # appended: the file defines alpha twice
    after = _file(lang, [new, fs[1]])
    yield Case(f"{lang.name}_no_context", lang.name, "no-context", before, snippet, after, wrong=wrong)


def leading_blank_kept(lang: Lang) -> Iterator[Case]:
    """The file starts with a blank line; the snippet starts with no marker and a changed first line:
    the blank line stays (a snippet cannot show it)."""
    if lang.prefix or lang.suffix:
        return
    fs = [lang.func(n, [lang.ret(str(k))], lang.indent) for k, n in enumerate(("opening", "closing"))]
    before = "\n" + _file(lang, fs)
    renamed = [fs[0][0].replace("opening", "opener"), *fs[0][1:]]
    after = "\n" + _file(lang, [renamed, fs[1]])
    snippet = _join(renamed, _m(lang))
    yield Case(f"{lang.name}_leading_blank_kept", lang.name, "file-head", before, snippet, after)


SHAPES = (end_before_header, first_line_twice, return_twice, open_end_small, open_end_long, deletion_clean,
          rename_clean, insert_clean, marker_zero_after_body, decorator_once, tabs_file_spaces_snippet,
          two_space_file, file_heads, noop_tail, swapped_functions, dropped_blank, far_import_dropped,
          changed_first_line_ignored, repeated_block, open_start_few_above, no_context, leading_blank_kept)

# The issue's reproducers, verbatim.
REPRODUCERS = (
    Case("repro_decorator", "python", "decorator",
         "class A:\n    @staticmethod\n    def make():\n        return A()\n\n    def helper(x):\n        return x * 2\n",
         "# ... existing code ...\n    @staticmethod\n    def helper(x):\n        return x * 2\n",
         "class A:\n    @staticmethod\n    def make():\n        return A()\n\n    @staticmethod\n    def helper(x):\n"
         "        return x * 2\n",
         wrong="class A:\n    @staticmethod\n    def helper(x):\n        return x * 2\n"),
    Case("repro_end_before_header", "javascript", "end-before-header",
         "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\nfunction c(items) {\n"
         "  for (const it of items) {\n    handle(it);\n  }\n}\n",
         "// ... existing code ...\n}\n\nfunction c(items) {\n// ... existing code ...\n    handle(it);\n    log(it);\n"
         "// ... existing code ...\n",
         "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\nfunction c(items) {\n"
         "  for (const it of items) {\n    handle(it);\n    log(it);\n  }\n}\n",
         wrong="function a() {\n  return 1;\n}\n\nfunction c(items) {\n  for (const it of items) {\n    handle(it);\n"
         "    log(it);\n  }\n}\n"),
    Case("repro_tabs", "python", "indentation",
         "def f(x):\n\tif x:\n\t\ty = 1\n\t\treturn y\n\treturn 0\n",
         "# ... existing code ...\n    if x:\n        y = 1\n        print(y)\n        return y\n# ... existing code ...\n",
         "def f(x):\n\tif x:\n\t\ty = 1\n\t\tprint(y)\n\t\treturn y\n\treturn 0\n",
         wrong="def f(x):\n\tif x:\n        y = 1\n        print(y)\n        return y\n\treturn 0\n"),
    Case("repro_future", "python", "file-head",
         '#!/usr/bin/env python3\n"""Doc."""\nfrom __future__ import annotations\n\nimport os\n',
         "import json\n# ... existing code ...\n", None,
         wrong='import json\n#!/usr/bin/env python3\n"""Doc."""\nfrom __future__ import annotations\n\nimport os\n'),
)


def cases() -> list[Case]:
    found = list(REPRODUCERS)
    for lang in LANGS.values():
        for shape in SHAPES:
            found += list(shape(lang))
    return found


def write(root: Path) -> int:
    """The cases with an expected file, in the fixture format `applyedit eval` reads."""
    n = 0
    for c in cases():
        if c.after is None:
            continue
        d = root / c.name
        d.mkdir(parents=True, exist_ok=True)
        (d / f"before{c.ext}").write_text(c.before, encoding="utf-8")
        (d / f"after{c.ext}").write_text(c.after, encoding="utf-8")
        (d / "edit.txt").write_text(c.snippet, encoding="utf-8")
        (d / "case.toml").write_text(
            f'why = "Adversarial ({c.shape})."\nkind = "snippet"\nlanguage = "{c.language}"\nstyle = "adversarial"\n'
            f'shape = "{c.shape}"\nbench = false\nknown_failure = false\ntags = []\n', encoding="utf-8")
        n += 1
    return n


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", type=Path, required=True)
    args = parser.parse_args()
    print(f"{write(args.write)} cases written to {args.write}", file=sys.stderr)
