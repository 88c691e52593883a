"""The shapes assistants write, in nine languages, answered with no model: a method added at a class's
end, a definition replaced whole, a header changed, a definition deleted by showing its neighbours, an
import added with its first use far below, several edits in one snippet, a snippet starting at a
definition's header, markers worded many ways, the whole file returned.

Every file is put together from its parts (`Lang`), and so is every expected file: the new method after
the last one, the new body in place of the old, before any reader ran. The product path is the API's
(`api.apply`), with every way to a model closed: each answer is the structure's or the line reader's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from applyedit import api, defcheck, syntax
from applyedit.markers import is_marker
from applyedit.merge import confirm, structure


@dataclass(frozen=True)
class Lang:
    """One language's file, in parts: `prelude` (imports), a class of three members and a function."""

    name: str
    ext: str
    prelude: str  # its first line an import
    class_open: str
    init: str
    add: str
    reset: str
    class_close: str  # "" where no line closes the class
    between: str  # the blank lines between top-level definitions
    main: str
    comment: str  # the line comment
    indent: str  # a member's indentation
    exp: str  # a new method
    add_body: str  # `add` with a new body
    add_header: str  # `add` with a new header
    import_line: str  # a new import, above the first

    def file(self, init: str | None = None, add: str | None = None, reset: str | None = None) -> str:
        members = [m for m in (self.init if init is None else init, self.add if add is None else add) if m]
        members.append(self.reset if reset is None else reset)
        close = f"{self.class_close}\n" if self.class_close else ""
        body = "\n\n".join(members)
        return f"{self.prelude}{self.between}{self.class_open}\n{body}\n{close}{self.between}{self.main}\n"

    def marker(self, words: str = "... existing code ...", indent: str = "") -> str:
        return f"{indent}{self.comment} {words}"


PY = Lang(
    "python",
    "py",
    "import math\n",
    "class Calculator:",
    "    def __init__(self):\n        self.result = 0",
    "    def add(self, n):\n        self.result += n\n        return self",
    "    def reset(self):\n        self.result = 0\n        return self",
    "",
    "\n\n",
    "def main():\n    print(Calculator().add(2).result)",
    "#",
    "    ",
    "    def exp(self, n):\n        self.result = math.pow(self.result, n)\n        return self",
    "    def add(self, n):\n        self.result += float(n)\n        return self",
    '    def add(self, n: float) -> "Calculator":\n        self.result += n\n        return self',
    "import sys",
)
TS = Lang(
    "typescript",
    "ts",
    'import { log } from "./log";\n',
    "export class Calculator {",
    "  private result: number;\n\n  constructor() {\n    this.result = 0;\n  }",
    "  add(n: number): Calculator {\n    this.result += n;\n    return this;\n  }",
    "  reset(): Calculator {\n    this.result = 0;\n    return this;\n  }",
    "}",
    "\n",
    "export function main(): void {\n  log(new Calculator().add(2));\n}",
    "//",
    "  ",
    "  exp(n: number): Calculator {\n    this.result = Math.pow(this.result, n);\n    return this;\n  }",
    "  add(n: number): Calculator {\n    this.result += Number(n);\n    return this;\n  }",
    "  add(n: number, times = 1): Calculator {\n    this.result += n;\n    return this;\n  }",
    'import { trace } from "./trace";',
)
JS = Lang(
    "javascript",
    "js",
    'import { log } from "./log.js";\n',
    "export class Calculator {",
    "  constructor() {\n    this.result = 0;\n  }",
    "  add(n) {\n    this.result += n;\n    return this;\n  }",
    "  reset() {\n    this.result = 0;\n    return this;\n  }",
    "}",
    "\n",
    "export function main() {\n  log(new Calculator().add(2));\n}",
    "//",
    "  ",
    "  exp(n) {\n    this.result = Math.pow(this.result, n);\n    return this;\n  }",
    "  add(n) {\n    this.result += Number(n);\n    return this;\n  }",
    "  add(n, times = 1) {\n    this.result += n;\n    return this;\n  }",
    'import { trace } from "./trace.js";',
)
JAVA = Lang(
    "java",
    "java",
    "import java.util.List;\n",
    "public class Calculator {",
    "    private double result;\n\n    public Calculator() {\n        this.result = 0;\n    }",
    "    public Calculator add(double n) {\n        this.result += n;\n        return this;\n    }",
    "    public Calculator reset() {\n        this.result = 0;\n        return this;\n    }",
    "}",
    "\n",
    "class Main {\n    public static void main(String[] args) {\n        System.out.println(List.of(1));\n    }\n}",
    "//",
    "    ",
    "    public Calculator exp(double n) {\n        this.result = Math.pow(this.result, n);\n"
    "        return this;\n    }",
    "    public Calculator add(double n) {\n        this.result += Math.abs(n);\n        return this;\n    }",
    "    public Calculator add(double n, int times) {\n        this.result += n;\n        return this;\n    }",
    "import java.util.Map;",
)
CSHARP = Lang(
    "csharp",
    "cs",
    "using System;\n",
    "public class Calculator\n{",
    "    private double result;\n\n    public Calculator()\n    {\n        this.result = 0;\n    }",
    "    public Calculator Add(double n)\n    {\n        this.result += n;\n        return this;\n    }",
    "    public Calculator Reset()\n    {\n        this.result = 0;\n        return this;\n    }",
    "}",
    "\n",
    "public static class Program\n{\n    public static void Main()\n    {\n        Console.WriteLine(1);\n    }\n}",
    "//",
    "    ",
    "    public Calculator Exp(double n)\n    {\n        this.result = Math.Pow(this.result, n);\n"
    "        return this;\n    }",
    "    public Calculator Add(double n)\n    {\n        this.result += Math.Abs(n);\n        return this;\n    }",
    "    public Calculator Add(double n, int times)\n    {\n        this.result += n;\n        return this;\n    }",
    "using System.Linq;",
)
CPP = Lang(
    "cpp",
    "cpp",
    "#include <cmath>\n",
    "class Calculator {\npublic:",
    "    Calculator() {\n        result = 0;\n    }",
    "    Calculator& add(double n) {\n        result += n;\n        return *this;\n    }",
    "    Calculator& reset() {\n        result = 0;\n        return *this;\n    }",
    "    double result;\n};",
    "\n",
    "int main() {\n    Calculator c;\n    return static_cast<int>(c.add(2).result);\n}",
    "//",
    "    ",
    "    Calculator& exp(double n) {\n        result = std::pow(result, n);\n        return *this;\n    }",
    "    Calculator& add(double n) {\n        result += std::fabs(n);\n        return *this;\n    }",
    "    Calculator& add(double n, int times) {\n        result += n;\n        return *this;\n    }",
    "#include <vector>",
)
RUST = Lang(
    "rust",
    "rs",
    "use std::fmt;\n",
    "impl Calculator {",
    "    pub fn new() -> Self {\n        Calculator { result: 0.0 }\n    }",
    "    pub fn add(&mut self, n: f64) -> &mut Self {\n        self.result += n;\n        self\n    }",
    "    pub fn reset(&mut self) -> &mut Self {\n        self.result = 0.0;\n        self\n    }",
    "}",
    "\n",
    'fn main() {\n    let mut c = Calculator::new();\n    println!("{}", c.add(2.0).result);\n}',
    "//",
    "    ",
    "    pub fn exp(&mut self, n: f64) -> &mut Self {\n        self.result = self.result.powf(n);\n        self\n    }",
    "    pub fn add(&mut self, n: f64) -> &mut Self {\n        self.result += n.abs();\n        self\n    }",
    "    pub fn add(&mut self, n: f64, times: u32) -> &mut Self {\n        self.result += n;\n        self\n    }",
    "use std::io;",
)
GO = Lang(
    "go",
    "go",
    'package calc\n\nimport "math"\n',
    "type Calculator struct {\n\tresult float64\n}\n\n"
    "func (c *Calculator) Init() *Calculator {\n\tc.result = 0\n\treturn c\n}",
    "",
    "func (c *Calculator) Add(n float64) *Calculator {\n\tc.result += n\n\treturn c\n}",
    "func (c *Calculator) Reset() *Calculator {\n\tc.result = 0\n\treturn c\n}",
    "",
    "\n",
    "func Main() float64 {\n\treturn math.Abs(new(Calculator).Add(2).result)\n}",
    "//",
    "",
    "func (c *Calculator) Exp(n float64) *Calculator {\n\tc.result = math.Pow(c.result, n)\n\treturn c\n}",
    "func (c *Calculator) Add(n float64) *Calculator {\n\tc.result += math.Abs(n)\n\treturn c\n}",
    "func (c *Calculator) Add(n float64, times int) *Calculator {\n\tc.result += n\n\treturn c\n}",
    "",
)
RUBY = Lang(
    "ruby",
    "rb",
    'require "json"\n',
    "class Calculator",
    "  def initialize\n    @result = 0\n  end",
    "  def add(n)\n    @result += n\n    self\n  end",
    "  def reset\n    @result = 0\n    self\n  end",
    "end",
    "\n",
    "def main\n  puts Calculator.new.add(2).to_json\nend",
    "#",
    "  ",
    "  def exp(n)\n    @result = @result**n\n    self\n  end",
    "  def add(n)\n    @result += n.to_f\n    self\n  end",
    "  def add(n, times = 1)\n    @result += n\n    self\n  end",
    'require "set"',
)
LANGS = [PY, TS, JS, JAVA, CSHARP, CPP, RUST, GO, RUBY]
IDS = [lang.name for lang in LANGS]


def _go_class(lang: Lang) -> bool:
    return lang.name == "go"  # Go's methods stand at the top level, not inside the type


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every way to the weights closed: an answer here is the readers' alone."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a model was opened")

    monkeypatch.setattr(api.Engine, "open", classmethod(refuse))


def applied(tmp_path: Path, lang: Lang, original: str, edit: str) -> str:
    path = tmp_path / f"calc.{lang.ext}"
    path.write_text(original, encoding="utf-8")
    return api.apply(path, edit, cwd=tmp_path).after


def _with_exp(lang: Lang) -> str:
    """The file with `exp` after `reset`, the class's last method."""
    if _go_class(lang):
        return lang.file().replace(lang.main, f"{lang.exp}\n\n{lang.main}")
    return lang.file(reset=f"{lang.reset}\n\n{lang.exp}")


def _class_edit(lang: Lang, members: str, marker_words: str = "... existing code ...") -> str:
    """A snippet that opens the class, shows `members` after a marker, and closes it."""
    inner = lang.marker(marker_words, lang.indent)
    close = f"\n{lang.class_close}" if lang.class_close else ""
    return f"{lang.class_open}\n{inner}\n\n{members}{close}\n"


def _exp_edit(lang: Lang, marker_words: str = "... existing code ...") -> str:
    """The snippet that adds `exp` at the class's end: the class opened, a marker, `exp`, the class closed;
    in Go, whose methods stand at the file's top level, `exp` shown after `reset` between markers."""
    if _go_class(lang):
        return f"{lang.marker(marker_words)}\n{lang.reset}\n\n{lang.exp}\n\n{lang.marker(marker_words)}\n"
    return _class_edit(lang, lang.exp, marker_words)


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_method_added_at_the_class_end_keeps_every_other(tmp_path: Path, lang: Lang) -> None:
    assert applied(tmp_path, lang, lang.file(), _exp_edit(lang)) == _with_exp(lang)


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_new_method_whose_last_lines_match_another_does_not_replace_it(tmp_path: Path, lang: Lang) -> None:
    """The class of two members, the new one's last lines the same as `add`'s (`return self`)."""
    original = lang.file(init="", reset=lang.reset)
    expected = lang.file(init="", reset=f"{lang.reset}\n\n{lang.exp}")
    if _go_class(lang):
        expected = original.replace(lang.main, f"{lang.exp}\n\n{lang.main}")
    assert applied(tmp_path, lang, original, _exp_edit(lang)) == expected


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_definition_shown_whole_between_markers_replaces_its_namesake(tmp_path: Path, lang: Lang) -> None:
    edit = f"{lang.marker()}\n{lang.add_body}\n{lang.marker()}\n"
    assert applied(tmp_path, lang, lang.file(), edit) == lang.file(add=lang.add_body)


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_changed_header_replaces_the_definition_not_adds_one(tmp_path: Path, lang: Lang) -> None:
    edit = f"{lang.marker()}\n{lang.add_header}\n{lang.marker()}\n"
    assert applied(tmp_path, lang, lang.file(), edit) == lang.file(add=lang.add_header)


def _header_over_marker(lang: Lang, definition: str) -> str:
    """`definition` shown by its header and closer alone, its body a marker at the body's indentation."""
    rows = definition.split("\n")
    depth = [len(x) - len(x.lstrip()) for x in rows]
    body = [n for n, d in enumerate(depth) if d > depth[0] and rows[n].strip()]
    inner = lang.marker(indent=rows[body[0]][: depth[body[0]]])
    return "\n".join([*rows[: body[0]], inner, *rows[body[-1] + 1 :]])


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_changed_header_over_a_body_left_to_a_marker_keeps_the_body(tmp_path: Path, lang: Lang) -> None:
    """The class opened, a marker, `add`'s new header over its body written as one marker, the class closed:
    the header is replaced, the body kept (in Python such a header parses with no body: the marker is it)."""
    shown = _header_over_marker(lang, lang.add_header)
    edit = f"{lang.marker()}\n{shown}\n{lang.marker()}\n"
    if not _go_class(lang):
        edit = _class_edit(lang, f"{shown}\n{lang.marker(indent=lang.indent)}")
    assert applied(tmp_path, lang, lang.file(), edit) == lang.file(add=lang.add_header)


@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_new_definition_whose_body_is_a_marker_is_not_written(lang: Lang) -> None:
    """Counterexample: a header the file has no definition of, over a marker: the marker stands for a body
    the file does not have, so no reading writes the marker as that body."""
    shown = _header_over_marker(lang, lang.exp)
    edit = f"{lang.marker()}\n{lang.reset}\n\n{shown}\n\n{lang.marker()}\n"
    if not _go_class(lang):
        edit = _class_edit(lang, shown)  # at the class's end, where a new method goes
    result = confirm.confirmed(lang.file(), edit, lang.name)
    assert not result.ok or not any(is_marker(x) for x in (result.merged or "").split("\n"))


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_definition_given_whole_without_markers_replaces_its_namesake(tmp_path: Path, lang: Lang) -> None:
    assert applied(tmp_path, lang, lang.file(), f"{lang.add_body}\n") == lang.file(add=lang.add_body)


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_snippet_starting_at_a_header_keeps_what_is_above(tmp_path: Path, lang: Lang) -> None:
    edit = f"{lang.add_body}\n\n{lang.marker(indent=lang.indent)}\n"
    assert applied(tmp_path, lang, lang.file(), edit) == lang.file(add=lang.add_body)


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_two_definitions_changed_in_one_snippet(tmp_path: Path, lang: Lang) -> None:
    reset = lang.reset.replace("0", "1", 1)
    edit = f"{lang.marker()}\n{lang.add_body}\n\n{lang.reset.replace('0', '1', 1)}\n{lang.marker()}\n"
    assert applied(tmp_path, lang, lang.file(), edit) == lang.file(add=lang.add_body, reset=reset)


WORDINGS = [
    "...",
    "…",
    "[...]",
    "... existing methods ...",
    "... rest of the class ...",
    "... other methods unchanged ...",
    "… helpers …",
    "... snip ...",
    "... existing constructor ...",
    "(existing code unchanged)",
    "Existing code remains unchanged",
]


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("words", WORDINGS)
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_markers_worded_many_ways(tmp_path: Path, lang: Lang, words: str) -> None:
    assert applied(tmp_path, lang, lang.file(), _exp_edit(lang, words)) == _with_exp(lang)


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_the_whole_file_returned_is_the_new_file(tmp_path: Path, lang: Lang) -> None:
    new = lang.file(add=lang.add_body)
    assert applied(tmp_path, lang, lang.file(), new) == new


GO_IMPORTS = 'package calc\n\nimport (\n\t"fmt"\n\t"math"\n)\n'  # Go's import written as a block


def _import_edit(lang: Lang) -> tuple[str, str]:
    """The snippet that adds an import above the file's first and edits `add`, and the file's lines it
    shows in place of its first import line (Go: the import block in place of `import "math"`)."""
    if _go_class(lang):
        return f"{GO_IMPORTS}{lang.marker()}\n{lang.add_body}\n{lang.marker()}\n", GO_IMPORTS
    first = lang.prelude.split("\n")[0]
    top = f"{lang.import_line}\n{first}\n"
    return f"{top}{lang.marker()}\n{lang.add_body}\n{lang.marker()}\n", top


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_an_import_added_with_its_first_use_far_below(tmp_path: Path, lang: Lang) -> None:
    edit, top = _import_edit(lang)
    shown = 'package calc\n\nimport "math"\n' if _go_class(lang) else f"{lang.prelude.split(chr(10))[0]}\n"
    expected = lang.file(add=lang.add_body).replace(shown, top, 1)
    assert applied(tmp_path, lang, lang.file(), edit) == expected


# What stands above a file's first import: nobody deletes it by leaving it out of a snippet.
HEADS = {
    "python": '"""A calculator."""\n\n',
    "typescript": "// Copyright 2024 The Calculator Authors\n\n",
    "javascript": '"use strict";\n\n',
    "java": "package calc;\n\n",
    "csharp": "// Copyright 2024 The Calculator Authors\n\n",
    "cpp": "#pragma once\n\n",
    "rust": "//! A calculator.\n\n",
    "go": "// Package calc computes.\n",
    "ruby": "# frozen_string_literal: true\n\n",
}


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_an_import_added_above_the_first_keeps_the_files_head(tmp_path: Path, lang: Lang) -> None:
    """The snippet starts with the new import, then the file's first import: what stands above that (a
    package clause, a module docstring, a licence header, a pragma) is kept, not replaced."""
    edit, top = _import_edit(lang)  # Go's shows the package clause, below its doc comment
    original = HEADS[lang.name] + lang.file()
    shown = 'package calc\n\nimport "math"\n' if _go_class(lang) else f"{lang.prelude.split(chr(10))[0]}\n"
    expected = HEADS[lang.name] + lang.file(add=lang.add_body).replace(shown, top, 1)
    assert applied(tmp_path, lang, original, edit) == expected


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", [PY, TS, RUST, CSHARP], ids=lambda x: x.name)
def test_a_files_head_shown_edited_above_its_first_import_is_replaced(tmp_path: Path, lang: Lang) -> None:
    """The counterexample: the new first lines are the head's lines edited (a year changed, a word added),
    one for one: they take its place."""
    head = HEADS[lang.name]
    edited = head.replace("2024", "2025").replace("A calculator", "A small calculator")
    first = lang.prelude.split("\n")[0]
    edit = f"{edited}{first}\n{lang.marker()}\n{lang.add_body}\n{lang.marker()}\n"
    expected = edited + lang.file(add=lang.add_body)
    assert applied(tmp_path, lang, head + lang.file(), edit) == expected


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_definition_deleted_by_showing_its_neighbours(tmp_path: Path, lang: Lang) -> None:
    """`add` left out between `init` and `reset`, shown whole and adjacent, no marker between."""
    edit = f"{lang.class_open}\n{lang.init}\n\n{lang.reset}\n{lang.class_close}\n".replace("\n\n\n", "\n")
    expected = lang.file(add="")
    assert applied(tmp_path, lang, lang.file(), edit) == expected


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_new_method_after_the_first_member_and_above_a_marker_goes_right_after_it(tmp_path: Path, lang: Lang) -> None:
    """A marker out of habit above the class's first member (it stands for nothing there), the first member,
    the new one, a marker for the rest: the new one goes right after the first (before, `add` was replaced
    by `exp` with exit 0 in seven languages: the line reader read the new method as an edit of `add`)."""
    if _go_class(lang):  # Go: the type and its first method at the top level, after the imports
        edit = f"{lang.marker()}\n{lang.class_open}\n\n{lang.exp}\n\n{lang.marker()}\n"
        expected = lang.file().replace(lang.class_open, f"{lang.class_open}\n\n{lang.exp}\n")
    else:
        edit = f"{lang.marker()}\n{lang.init}\n\n{lang.exp}\n\n{lang.marker(indent=lang.indent)}\n"
        expected = lang.file(init=f"{lang.init}\n\n{lang.exp}")
    assert applied(tmp_path, lang, lang.file(), edit) == expected


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_class_shown_between_markers_at_the_files_level_gets_its_new_method_at_its_end(
    tmp_path: Path, lang: Lang
) -> None:
    """Markers at column 0 above and below the class, the class opened, a marker for its members, the new
    method, the class closed: the method goes after the last member (before, refused in six languages: the
    line reader's one reading cut `reset`'s end off, and no check let it through)."""
    edit = f"{lang.marker()}\n\n{_exp_edit(lang)}\n{lang.marker()}\n"
    assert applied(tmp_path, lang, lang.file(), edit) == _with_exp(lang)


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_an_import_and_a_method_added_in_one_snippet(tmp_path: Path, lang: Lang) -> None:
    """A new import above the first, a marker (where the file has only a blank line), the class with its new
    method at its end: both land (before: refused in seven languages, and in Rust `exp` written over
    `reset` with exit 0)."""
    edit, top = _import_edit(lang)
    edit = edit[: edit.index(lang.marker())] + f"{lang.marker()}\n{_exp_edit(lang)}"
    shown = 'package calc\n\nimport "math"\n' if _go_class(lang) else f"{lang.prelude.split(chr(10))[0]}\n"
    assert applied(tmp_path, lang, lang.file(), edit) == _with_exp(lang).replace(shown, top, 1)


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("between", ["blank", "marker"])
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_changed_header_and_an_edited_last_line_of_the_next_function_in_one_snippet(
    tmp_path: Path, lang: Lang, between: str
) -> None:
    """`add`'s header changed between markers inside the class, then one blank line or a marker at the file's
    level, then `main` whole with its last number changed: both land, and the file's own spacing between the
    class and `main` stands (before, in Python, `main` was not read as whole and the two blank lines above
    it became the snippet's one; with the marker, refused in Python, JavaScript and C#: a marker right after
    the class was read as maybe standing for the class's rest, which the class's own marker or closer
    already says)."""
    digit = max(n for n, x in enumerate(lang.main) if x.isdigit())  # its last number, one more
    main = f"{lang.main[:digit]}{int(lang.main[digit]) + 1}{lang.main[digit + 1 :]}"
    inner = lang.marker(indent=lang.indent)
    if _go_class(lang):
        shown = f"{lang.add_header}\n{lang.marker()}"
    else:
        close = f"\n{lang.class_close}" if lang.class_close else ""
        shown = f"{lang.class_open}\n{inner}\n{lang.add_header}\n{inner}{close}"
    edit = f"{lang.marker()}\n{shown}\n{'' if between == 'blank' else lang.marker()}\n{main}\n"
    assert applied(tmp_path, lang, lang.file(), edit) == lang.file(add=lang.add_header).replace(lang.main, main)


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang.class_close], ids=lambda lang: lang.name)
def test_members_shown_up_to_their_containers_closer_keep_one_closer(tmp_path: Path, lang: Lang) -> None:
    """A marker, then `reset` and the new `exp` indented as members, then the class's closer: the class's
    start is left out, its end shown, so `exp` goes at its end with the closer written once."""
    edit = f"{lang.marker()}\n{lang.reset}\n\n{lang.exp}\n{lang.class_close}\n"
    assert applied(tmp_path, lang, lang.file(), edit) == _with_exp(lang)


def test_a_marker_that_stands_for_nothing_between_two_members_is_not_read_by_the_structure() -> None:
    """The counterexample: a marker right after a shown member whose end the snippet does not say (a Python
    body, no marker as its last line), where the file has nothing, may stand for that member's rest, so the
    structure does not read the snippet; at a scope's very start, right after a line of the file that is no
    definition, or after a definition whose end is said (here `__init__`'s last line in the file is not
    the one shown), it is a habit."""
    members = f"{PY.init}\n\n    # ... existing code ...\n\n{PY.add_body}\n"
    longer = PY.file(init=f"{PY.init}\n        self.history = []")
    assert structure.read(longer, f"class Calculator:\n{members}", "python", None, lambda o, s: None) is None
    habit = f"class Calculator:\n    # ... existing code ...\n\n{PY.init}\n\n{PY.add_body}\n    # ...\n"
    assert structure.read(PY.file(), habit, "python", None, lambda o, s: None) == PY.file(add=PY.add_body)


TS_TYPES = (
    "export interface User {\n  id: number;\n  name: string;\n}\n\n"
    "export interface Team {\n  id: number;\n  members: User[];\n}\n\n"
    "export function owner(team: Team): User {\n  return team.members[0];\n}\n"
)


def test_two_readers_that_read_a_snippet_two_ways_leave_a_question() -> None:
    """A property added at an interface's end, a marker below the interface: the line reader reads the new
    property as `name: string;` edited (the two lines alike), the structure as added; each file meets every
    check, so neither is certain, and both are offered."""
    edit = "export interface User {\n  // ...\n  email: string;\n}\n// ...\n"
    result = confirm.confirmed(TS_TYPES, edit, "typescript", with_readings=True)
    expected = TS_TYPES.replace("  name: string;\n}", "  name: string;\n  email: string;\n}", 1)
    assert not result.ok and len(result.readings) == 2 and expected in result.readings


APPENDED = [
    (
        "typescript",
        TS_TYPES,
        "export interface User {\n  // ... existing fields ...\n  email: string;\n}\n",
        ("  name: string;\n}", "  name: string;\n  email: string;\n}"),
        ("  return team.members[0];\n", "  return team.members[0];\n  email: string;\n"),
    ),
    (
        "typescript",
        "export function setup(): void {\n  init();\n  load();\n}\n\nexport function teardown(): void {\n"
        "  flush();\n  close();\n}\n",
        "export function setup(): void {\n  // ... existing code ...\n  ready();\n}\n",
        ("  load();\n", "  load();\n  ready();\n"),
        ("  close();\n", "  close();\n  ready();\n"),
    ),
    (
        "go",
        "package main\n\nfunc setup() {\n\tinit()\n\tload()\n}\n\nfunc teardown() {\n\tflush()\n\tclose()\n}\n",
        "func setup() {\n\t// ... existing code ...\n\tready()\n}\n",
        ("\tload()\n", "\tload()\n\tready()\n"),
        ("\tclose()\n", "\tclose()\n\tready()\n"),
    ),
]


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize(("language", "original", "edit", "inside", "outside"), APPENDED, ids=["interface", "ts", "go"])
def test_a_line_shown_inside_a_definition_stands_inside_it_in_the_answer(
    tmp_path: Path, language: str, original: str, edit: str, inside: tuple[str, str], outside: tuple[str, str]
) -> None:
    """A line added at the end of a definition the snippet shows to its closer (a property of an interface,
    a call at a function's end): the line reader took the snippet's closer for the file's last and wrote
    the line into the definition below, exit 0 (a TypeScript label, a Go call: both parse). A line written
    inside a definition is that definition's in the answer too (`defcheck.misplaced`, an invariant): the
    interface's answer is the structure's, as are the functions' (`structure._added`), never the file below."""
    right, wrong = original.replace(*inside, 1), original.replace(*outside, 1)
    assert defcheck.misplaced(original, edit, wrong, language) and not defcheck.misplaced(
        original, edit, right, language
    )
    lang = next(x for x in LANGS if x.name == language)
    assert applied(tmp_path, lang, original, edit) == right


BODIES = [  # (language, a function whose last line is no return, its header, its closer, the body's indent)
    (
        "typescript",
        "export function setup(): void {\n  init();\n  load();\n}\n",
        "export function setup(): void {",
        "}",
        "  ",
    ),
    ("javascript", "function setup() {\n  init();\n  load();\n}\n", "function setup() {", "}", "  "),
    ("go", "package main\n\nfunc setup() {\n\tinit()\n\tload()\n}\n", "func setup() {", "}", "\t"),
    ("rust", "fn setup() {\n    init();\n    load();\n}\n", "fn setup() {", "}", "    "),
    ("c", "void setup(void) {\n    init();\n    load();\n}\n", "void setup(void) {", "}", "    "),
    ("ruby", "def setup\n  init\n  load\nend\n", "def setup", "end", "  "),
]


def _tail_edit(language: str, header: str, closer: str, depth: str, new: str) -> str:
    comment = "#" if language == "ruby" else "//"
    return (
        f"{comment} ... existing code ...\n{header}\n{depth}{comment} ... existing code ...\n{depth}{new}\n{closer}\n"
    )


@pytest.mark.parametrize(("language", "original", "header", "closer", "depth"), BODIES, ids=[b[0] for b in BODIES])
def test_a_line_after_a_marker_at_a_bodys_end_sharing_no_word_with_it_is_added_there(
    language: str, original: str, header: str, closer: str, depth: str
) -> None:
    """A function shown by its header, a marker, one new line and its closer: the new line shares no word
    with the body, so it is no edit of a line there: it goes at the body's end (`structure._added`)."""
    new = "ready()" if language in {"go", "ruby"} else "ready();"
    load = next(x for x in original.split("\n") if "load" in x)
    expected = original.replace(f"{load}\n", f"{load}\n{depth}{new}\n", 1)
    edit = _tail_edit(language, header, closer, depth, new)
    assert structure.read(original, edit, language, None, lambda original, snippet: None) == expected


def test_a_line_after_a_marker_at_a_bodys_end_is_not_added_past_a_return_nor_in_place_of_its_namesake() -> None:
    """Counterexamples: past a body's last `return` code never runs, so new lines there edit it (the line
    reader reads them); and a new line sharing a word with the body's (`load(2);`) may be added or an edit
    of it: the structure adds neither, and says the snippet reads two ways there (`structure.TwoWays`)."""
    language, original, header, closer, depth = BODIES[0]
    returning = original.replace("  load();\n", "  return load();\n")
    edit = _tail_edit(language, header, closer, depth, "ready();")
    assert structure.read(returning, edit, language, None, _no_lines) is None
    with pytest.raises(structure.TwoWays):
        structure.read(original, _tail_edit(language, header, closer, depth, "load(2);"), language, None, _no_lines)


def _no_lines(original: str, snippet: str) -> None:
    return None  # no line reader: the structure's own reading


def test_a_line_after_a_marker_at_a_bodys_end_sharing_a_word_with_it_is_a_question() -> None:
    """`self.ready();` after a marker at the end of `start`, whose last line is `self.load();`: the two share
    `self`, and by their letters they are alike; added, or `load` edited into `ready`? The snippet does not
    say (`structure.TwoWays`): no line reader's guess is certain, and both files are offered (the model
    chooses; without it, refused naming both). Before, `self.load();` was replaced, exit 0."""
    original = (
        "impl App {\n    fn start(&mut self) {\n        self.init();\n        self.load();\n    }\n\n"
        "    fn stop(&mut self) {\n        self.flush();\n    }\n}\n"
    )
    edit = "impl App {\n    fn start(&mut self) {\n        // ...\n        self.ready();\n    }\n    // ...\n}\n"
    result = confirm.confirmed(original, edit, "rust", with_readings=True)
    assert not result.ok and "could be added there or edit its last lines" in result.reason
    added = original.replace("self.load();\n", "self.load();\n        self.ready();\n")
    assert sorted(result.readings) == sorted([added, original.replace("self.load();", "self.ready();")])


def test_a_definition_shown_without_its_closer_does_not_say_where_its_lines_stand() -> None:
    """Counterexample: the function shown without its closer, a marker below: where it ends the snippet does
    not say, so a line after the marker is held to nothing."""
    language, original, edit, _, outside = APPENDED[1]
    open_ended = edit.replace("  ready();\n}\n", "  ready();\n// ... existing code ...\n")
    assert defcheck.misplaced(original, open_ended, original.replace(*outside, 1), language) == []


# Counterexamples: where the structure does not decide, nothing is written as if it did.


@pytest.mark.usefixtures("no_model")
def test_a_new_method_between_two_markers_before_a_shown_one_is_a_question() -> None:
    """Markers on both sides of `exp`, `reset` shown after them: after `__init__` or after `add`? Refused."""
    edit = f"class Calculator:\n    # ...\n\n{PY.exp}\n\n    # ...\n\n{PY.reset}\n"
    assert not confirm.confirmed(PY.file(), edit, "python").ok


@pytest.mark.usefixtures("no_model")
def test_an_overload_shown_by_a_header_no_overload_has_is_not_taken_for_one(tmp_path: Path) -> None:
    """Two `add`s (overloads); a third header matches neither: it is a new overload, the two kept."""
    two = JAVA.file(add=f"{JAVA.add}\n\n{JAVA.add_header}")
    third = "    public Calculator add(int n) {\n        this.result += n;\n        return this;\n    }"
    edit = f"{JAVA.marker()}\n{JAVA.add_header}\n\n{third}\n{JAVA.marker()}\n"
    out = applied(tmp_path, JAVA, two, edit)
    assert out.count("public Calculator add(") == 3 and JAVA.add in out and third in out


ATTACHED_ABOVE_A_LONG_HEADER = [
    (
        "python",
        'class Report:\n    @classmethod\n    def build(\n        cls,\n        rows,\n    ) -> "Report":\n'
        "        return cls(rows)\n\n    def size(self):\n        return 0\n",
        '# ... existing code ...\n    def build(\n        cls,\n        rows,\n        limit=10,\n    ) -> "Report":\n'
        "        return cls(rows[:limit])\n\n# ... existing code ...\n",
        [("        rows,\n    )", "        rows,\n        limit=10,\n    )"), ("cls(rows)", "cls(rows[:limit])")],
    ),
    (
        "rust",
        "impl Report {\n    #[inline]\n    fn render<W>(&self, out: &mut W)\n    where\n        W: Write,\n    {\n"
        "        out.flush();\n    }\n\n    fn size(&self) -> usize {\n        0\n    }\n}\n",
        "// ... existing code ...\n    fn render<W>(&self, out: &mut W, width: usize)\n    where\n        W: Write,\n"
        "    {\n        out.flush();\n    }\n// ... existing code ...\n",
        [("out: &mut W)", "out: &mut W, width: usize)")],
    ),
    (
        "java",
        "public class Report {\n    @Override\n    public String render(\n        int width\n    ) {\n"
        '        return "";\n    }\n\n    public int size() {\n        return 0;\n    }\n}\n',
        "// ... existing code ...\n    public String render(\n        int width,\n        int height\n    ) {\n"
        '        return "";\n    }\n// ... existing code ...\n',
        [("        int width\n", "        int width,\n        int height\n")],
    ),
]


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize(
    ("language", "original", "edit", "changes"), ATTACHED_ABOVE_A_LONG_HEADER, ids=["python", "rust", "java"]
)
def test_a_decorator_left_out_above_a_changed_header_of_several_lines_is_kept(
    tmp_path: Path, language: str, original: str, edit: str, changes: list[tuple[str, str]]
) -> None:
    """`build` shown whole without its `@classmethod` (`#[inline]`, `@Override`), its header of several
    lines given a new parameter: the decorator is the file's, not shown, so kept. Before, the structure
    compared the whole header with the file's to find where the left-out lines end, found no match once
    the header changed, and dropped the decorator (a check then refused the answer)."""
    expected = original
    for old, new in changes:
        expected = expected.replace(old, new)
    lang = next(x for x in LANGS if x.name == language)
    assert applied(tmp_path, lang, original, edit) == expected
    if language != "java":  # the structure's own reading (Java's was the line reader's)
        assert structure.read(original, edit, language, None, lambda original, snippet: None) == expected


def test_a_decorator_shown_in_place_of_the_files_replaces_it() -> None:
    """Counterexample: the snippet shows its own decorator above the changed header: the file's is not
    kept beside it (`@staticmethod` for `@classmethod`)."""
    _, original, edit, _ = ATTACHED_ABOVE_A_LONG_HEADER[0]
    shown = edit.replace("    def build(", "    @staticmethod\n    def build(")
    out = structure.read(original, shown, "python", None, lambda original, snippet: None)
    assert out is not None and "@staticmethod" in out and "@classmethod" not in out


TWO_IMPLS = """struct Compact;
struct Pretty;

impl Formatter for Compact {
    fn begin_value(&mut self, out: &mut Vec<u8>) {
        reserve(out);
        unsafe {
            out.push(b':');
        }
    }
}

impl Formatter for Pretty {
    fn begin_value(&mut self, out: &mut Vec<u8>) {
        indent(out);
        unsafe {
            out.extend(b": ");
        }
    }
}
"""


@pytest.mark.usefixtures("no_model")
def test_a_method_of_one_name_in_two_scopes_is_the_one_whose_lines_it_shows(tmp_path: Path) -> None:
    """`begin_value` shown whole, without its impl: two impl blocks define it; the shown body keeps
    `reserve(out);` and `b':'`, which only `Compact`'s holds: it is `Compact`'s, edited (`Pretty`'s kept)."""
    edited = "    fn begin_value(&mut self, out: &mut Vec<u8>) {\n        reserve(out);\n        out.push(b':');\n    }"
    edit = f"// ... existing code ...\n{edited}\n// ... existing code ...\n"
    expected = TWO_IMPLS.replace(
        "        unsafe {\n            out.push(b':');\n        }\n", "        out.push(b':');\n"
    )
    assert applied(tmp_path, RUST, TWO_IMPLS, edit) == expected


def test_a_method_of_one_name_in_two_scopes_showing_lines_of_both_is_not_placed_by_the_structure() -> None:
    """Counterexample: a body that keeps a line only `Compact`'s holds and one only `Pretty`'s holds says
    neither; the structure reads nothing, and the snippet is no certain reading."""
    both = (
        '    fn begin_value(&mut self, out: &mut Vec<u8>) {\n        reserve(out);\n        out.extend(b": ");\n    }'
    )
    edit = f"// ... existing code ...\n{both}\n// ... existing code ...\n"
    assert structure.read(TWO_IMPLS, edit, "rust", None, lambda original, snippet: None) is None
    assert not confirm.confirmed(TWO_IMPLS, edit, "rust").ok


@pytest.mark.parametrize(
    "line",
    [
        "// ... existing includes ...",
        "# ... same ...",
        "// ... license header ...",
        "# ... imports ...",
        "// … helpers …",
        "// ... getters and setters ...",
        "-- ... existing columns ...",
        "# ... existing steps ...",
        "// Existing code remains unchanged",
        "    /* [...] */",
    ],
)
def test_a_marker_is_an_ellipsis_with_a_few_words_or_an_elision_phrase(line: str) -> None:
    assert is_marker(line)


@pytest.mark.parametrize(
    "line",
    [
        "# Wait for the server... then retry the request once more before giving up",
        "...",
        'x = "... existing code ..."',
        "// Loading the configuration from disk",
        "# TODO: handle the empty case",
    ],
)
def test_a_sentence_code_or_a_plain_comment_is_no_marker(line: str) -> None:
    assert not is_marker(line)


@pytest.mark.usefixtures("no_model")
def test_a_new_function_after_a_marker_at_the_files_end_is_never_read_in_place_of_another() -> None:
    """`save` and a new `append` whose lines match it but for one: the line reader would read `append` as
    `save` edited; a definition with another name is never an edit of this one. Where it goes, at the
    file's end or beside `save`, nothing in the snippet says: refused, never `save` replaced."""
    original = (
        "def load(path):\n    with open(path) as f:\n        return f.read()\n\n\n"
        'def save(path, text):\n    with open(path, "w") as f:\n        f.write(text)\n'
    )
    snippet = (
        '# ... existing code ...\n\n\ndef append(path, text):\n    with open(path, "a") as f:\n        f.write(text)\n'
    )
    result = confirm.confirmed(original, snippet, "python")
    assert not result.ok or ("def save" in (result.merged or "") and "def append" in (result.merged or ""))


@pytest.mark.parametrize(
    "original",
    [
        'def load(path):\n    return open(path).read()\n\n\nif __name__ == "__main__":\n    print(load("a"))\n',
        "function load(path) {\n  return read(path);\n}\n\nmodule.exports = { load };\n",
    ],
    ids=["main-guard", "exports"],
)
def test_a_new_function_after_a_marker_before_a_main_guard_is_a_question(original: str) -> None:
    """Code that runs follows the file's last definition: above or below it, the snippet does not say
    (docs/reading.md: a new definition after a marker at the file's end)."""
    language = "python" if original.startswith("def") else "javascript"
    new = 'def version():\n    return "1.0"\n' if language == "python" else 'function version() {\n  return "1.0";\n}\n'
    marker = "# ... existing code ..." if language == "python" else "// ... existing code ..."
    result = confirm.confirmed(original, f"{marker}\n\n\n{new}", language)
    assert not result.ok


# Config files: a key changed in place, in YAML, JSON and TOML. A key is one per mapping: an answer that
# writes it again beside its namesake is refused (invariants.keys_twice), never written.

PACKAGE_TOML = (
    '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nserde = "1.0"\ntokio = "1.0"\n\n'
    '[dev-dependencies]\nproptest = "1.0"\n'
)
PACKAGE_JSON = (
    '{\n  "name": "app",\n  "version": "1.0.0",\n  "scripts": {\n    "build": "tsc",\n    "test": "jest"\n  },\n'
    '  "dependencies": {\n    "react": "^18.0.0"\n  }\n}\n'
)
SERVICE_YAML = (
    "name: app\nserver:\n  host: localhost\n  port: 80\n  workers: 2\nlogging:\n  level: info\n  file: app.log\n"
    "database:\n  url: sqlite://\n  pool: 5\n"
)
CONFIG_EDITS = [
    (
        "service.yaml",
        SERVICE_YAML,
        "# ... existing code ...\nserver:\n  host: localhost\n  port: 8080\n# ... existing code ...\n",
        SERVICE_YAML.replace("port: 80\n", "port: 8080\n"),
    ),
    (
        "service.yaml",
        SERVICE_YAML,
        "# ... existing code ...\nlogging:\n  level: debug\n# ... existing code ...\n",
        SERVICE_YAML.replace("level: info", "level: debug"),
    ),
    (
        "package.json",
        PACKAGE_JSON,
        '{\n  // ... existing code ...\n  "scripts": {\n    "build": "tsc",\n    "test": "vitest"\n  },\n'
        "  // ... existing code ...\n}\n",
        PACKAGE_JSON.replace('"jest"', '"vitest"'),
    ),
    (
        "Cargo.toml",
        PACKAGE_TOML,
        '[package]\nname = "app"\nversion = "0.2.0"\n# ... existing code ...\n',
        PACKAGE_TOML.replace('version = "0.1.0"', 'version = "0.2.0"'),
    ),
]


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize(
    "name, original, edit, expected", CONFIG_EDITS, ids=["yaml-nested", "yaml-level", "json", "toml"]
)
def test_a_config_key_changed_in_place(tmp_path: Path, name: str, original: str, edit: str, expected: str) -> None:
    path = tmp_path / name
    path.write_text(original, encoding="utf-8")
    assert api.apply(path, edit, cwd=tmp_path).after == expected


@pytest.mark.parametrize(
    "language, original, edit",
    [
        (
            "toml",
            PACKAGE_TOML,
            '# ... existing code ...\n[dependencies]\nserde = "1.0"\n'
            'tokio = { version = "1.35", features = ["full"] }\n# ... existing code ...\n',
        ),
        ("json", PACKAGE_JSON, '{\n  "version": "1.1.0",\n  // ... existing code ...\n}\n'),
    ],
    ids=["toml", "json"],
)
def test_a_key_written_beside_its_namesake_is_refused(language: str, original: str, edit: str) -> None:
    """The line reader reads the new `tokio` line (its value's form changed) and the moved `version` as new
    lines beside the old ones; a mapping holds a key once, so that answer is refused. Counterexample: a
    TOML array of tables (`[[bin]]`) repeats its name by design, and an original that already holds a
    key twice is no answer's doing."""
    result = confirm.confirmed(original, edit, language)
    assert not result.ok
    assert syntax.keys_twice('[[bin]]\nname = "a"\n\n[[bin]]\nname = "b"\n', "toml") == []
    twice = '{\n  "a": 1,\n  "a": 2\n}\n'
    assert syntax.keys_twice(twice, "json") == ["a"]
    assert defcheck.keys_twice(twice, twice.replace("2", "3"), "json") == []


DOCUMENTED = '''def parse(text):
    """Parse the text.

    Example:
        >>> parse("a b")
        # ...
        ['a', 'b']
    """
    words = text.split()
    return words


def other():
    return 1
'''


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            'def parse(text):\n    """Parse the text.\n\n    Example:\n        >>> parse("a b")\n        # ...\n'
            "        ['a', 'b', 'c']\n    \"\"\"\n# ... existing code ...\n",
            DOCUMENTED.replace("['a', 'b']\n", "['a', 'b', 'c']\n"),
        ),
        (
            "# ... existing code ...\n        # ...\n        ['a', 'b']\n    \"\"\"\n    words = text.strip().split()\n"
            "    return words\n# ... existing code ...\n",
            DOCUMENTED.replace("text.split()", "text.strip().split()"),
        ),
    ],
    ids=["example-changed", "body-after"],
)
def test_a_marker_looking_line_of_a_docstring_is_the_docstrings_text(edit: str, expected: str) -> None:
    """`# ...` inside a docstring's example, shown where the file has it, is a line of the docstring: it
    stays, and the lines around it are read as context and edits (the issue's regression: the docstring
    lost that line with exit 0)."""
    result = confirm.confirmed(DOCUMENTED, edit, "python")
    assert result.ok and result.merged == expected


# An edit that stands alike in several functions (an identical guard, `Lock`/`defer Unlock`): each place
# is one reading, refused or the model's to choose between (`applyedit bench FILE --edit EDIT --reader`
# times both: docs/bench/reader/); a line of context that stands once answers it.
SEVERAL = Path(__file__).parent.parent / "docs" / "bench" / "reader"


@pytest.mark.parametrize(
    ("name", "language", "count"), [("guard-three-methods.py", "python", 3), ("lock-five-methods.go", "go", 5)]
)
def test_an_edit_alike_in_several_functions_is_a_question_of_as_many_readings(
    name: str, language: str, count: int
) -> None:
    original = (SEVERAL / name).read_text(encoding="utf-8")
    snippet = (SEVERAL / name).with_suffix(".txt").read_text(encoding="utf-8")
    result = confirm.confirmed(original, snippet, language, with_readings=True)
    assert not result.ok and result.ambiguous and len(result.readings) == count and not result.twins


def _in_put(name: str, original: str) -> str:
    """The expected file: the edit made in `put` (`Put`), the second of the functions, alone."""
    if name.endswith(".py"):
        first, rest = original.split("    def put(", 1)
        return (
            first
            + "    def put("
            + rest.replace('raise ValueError("key is required")', 'raise KeyError("key is required")', 1)
        )
    first, rest = original.split("func (s *Store) Put(", 1)
    return (
        first
        + "func (s *Store) Put("
        + rest.replace("\tdefer s.mu.Unlock()\n", "\tdefer s.mu.Unlock()\n\ts.hits++\n", 1)
    )


@pytest.mark.parametrize(
    ("name", "language", "header"),
    [
        ("guard-three-methods.py", "python", "    def put(self, key, value):"),
        ("lock-five-methods.go", "go", "func (s *Store) Put(key, value string) {"),
    ],
)
def test_the_same_edit_with_its_functions_header_has_one_reading(name: str, language: str, header: str) -> None:
    original = (SEVERAL / name).read_text(encoding="utf-8")
    lines = (SEVERAL / name).with_suffix(".txt").read_text(encoding="utf-8").split("\n")
    body = [" " * 8 + "# ... existing code ..."] if language == "python" else []  # the body goes on
    result = confirm.confirmed(original, "\n".join([lines[0], header, *lines[1:-2], *body, *lines[-2:]]), language)
    assert result.ok and result.merged == _in_put(name, original)


def test_a_method_shown_in_part_up_to_a_marker_at_its_level_keeps_the_rest_of_its_body() -> None:
    """`def put` shown to its edited guard, then a marker back at the method's level: in the file the body
    goes on past the guard, and nobody deletes the rest of a body by leaving it out, so every reading keeps
    it (structure._body_goes_on); the marker is not read as the method's end."""
    original = (SEVERAL / "guard-three-methods.py").read_text(encoding="utf-8")
    snippet = (
        "    # ... existing code ...\n    def put(self, key, value):\n        if key is None:\n"
        '            raise KeyError("key is required")\n    # ... existing code ...\n'
    )
    result = confirm.confirmed(original, snippet, "python", with_readings=True)
    texts = [result.merged] if result.ok and result.merged else list(result.readings)
    assert texts
    assert all("        self.store[key] = value\n" in t and 'raise KeyError("key is required")' in t for t in texts)


def test_a_method_shown_to_its_bodys_last_line_up_to_a_marker_at_its_level_is_whole() -> None:
    """The counterexample: shown from its header to the file's last line of its body, then a marker at its
    level, the method is whole, and what it leaves out between them is deleted (the guard here)."""
    original = (SEVERAL / "guard-three-methods.py").read_text(encoding="utf-8")
    snippet = (
        "    # ... existing code ...\n    def put(self, key, value):\n        self.store[key] = value\n"
        "    # ... existing code ...\n"
    )
    guard = '        if key is None:\n            raise ValueError("key is required")\n'
    expected = original.replace(f"    def put(self, key, value):\n{guard}", "    def put(self, key, value):\n")
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == expected


def test_a_method_shown_to_the_snippets_end_with_its_last_line_edited_is_whole() -> None:
    """`delete` shown from its header to its last line, that line edited, the snippet ending there: the
    method is whole and replaced (before, only a last line the same as the file's said so)."""
    original = (SEVERAL / "guard-three-methods.py").read_text(encoding="utf-8")
    snippet = (
        "    # ... existing code ...\n    def delete(self, key):\n        if key is None:\n"
        '            raise ValueError("key is required")\n        self.store.pop(key)\n'
    )
    expected = original.replace("self.store.pop(key, None)", "self.store.pop(key)")
    assert structure.read(original, snippet, "python", None, lambda o, s: None) == expected


def test_a_method_shown_to_the_snippets_end_with_a_middle_line_edited_is_not_whole() -> None:
    """The counterexample: the last line shown an edit of a line past which the file's body goes on: the
    snippet stopped showing the body there, so the structure does not read the method as whole (and does
    not delete the rest of its body)."""
    original = (SEVERAL / "guard-three-methods.py").read_text(encoding="utf-8")
    snippet = (
        "    # ... existing code ...\n    def delete(self, key):\n        if key is None:\n"
        '            raise KeyError("key is required")\n'
    )
    assert structure.read(original, snippet, "python", None, lambda o, s: None) is None


_STORE = (
    "import json\n\n\nclass Store:\n    def __init__(self):\n        self.cache = {}\n\n"
    "    @locked\n    def load(self, path):\n        with open(path) as f:\n            return json.load(f)\n\n"
    "    def size(self):\n        return len(self.cache)\n"
)
_LOAD_CACHED = (
    "    @locked\n    def load(self, path):\n        if path not in self.cache:\n"
    "            with open(path) as f:\n                self.cache[path] = json.load(f)\n"
    "        return self.cache[path]\n"
)


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("attached", [True, False], ids=["decorated", "bare"])
def test_a_python_method_given_whole_without_markers_replaces_it_whatever_its_last_line(
    tmp_path: Path, attached: bool
) -> None:
    """A method given alone, no marker anywhere, its last line new (nothing alike the file's last line of
    it): nothing in the edit stands for a rest of its body, so it is shown whole and replaces its namesake.
    Before, the structure took it for the top of the body and the edit was refused ("stands in the file
    at no single place"); a decorated one too, its last line loosely alike a line of the old body."""
    original = _STORE if attached else _STORE.replace("    @locked\n", "")
    edit = _LOAD_CACHED if attached else _LOAD_CACHED.replace("    @locked\n", "")
    old = "    def load(self, path):\n        with open(path) as f:\n            return json.load(f)\n"
    expected = original.replace(old, edit.replace("    @locked\n", ""))
    assert applied(tmp_path, PY, original, edit) == expected


@pytest.mark.usefixtures("no_model")
def test_a_python_method_shown_without_markers_up_to_a_line_its_body_goes_on_past_keeps_the_rest(
    tmp_path: Path,
) -> None:
    """The counterexample: the edit stops at a line of the file's body (as it is) past which the body goes
    on; it shows the top of the method, and its rest is kept."""
    edit = "    def load(self, path):\n        log(path)\n        with open(path) as f:\n"
    expected = _STORE.replace("    def load(self, path):\n", "    def load(self, path):\n        log(path)\n")
    assert applied(tmp_path, PY, _STORE, edit) == expected


def test_a_python_method_written_at_the_files_level_is_not_read_into_its_class() -> None:
    """The other counterexample: a method written at column 0, its class's members standing deeper: the
    structure does not read it into the class as it is written (the file would no longer parse)."""
    edit = "\n".join(x[4:] for x in _LOAD_CACHED.splitlines()) + "\n"
    assert structure.read(_STORE, edit, "python", None, lambda original, snippet: None) is None


_NAMESPACED = {
    "csharp": (
        "cs",
        "namespace Shop\n{\n    public class Cart\n    {\n        private int count;\n\n"
        "        public void Add()\n        {\n            count++;\n        }\n    }\n}\n",
        "    public class Cart\n    {\n        // ... existing code ...\n\n"
        "        public int Count()\n        {\n            return count;\n        }\n    }\n",
        "        public int Count()\n        {\n            return count;\n        }\n",
        "            count++;\n        }\n",
    ),
    "typescript": (
        "ts",
        "export namespace Shop {\n  export class Cart {\n    private n = 0;\n\n"
        "    add(): void {\n      this.n++;\n    }\n  }\n}\n",
        "  export class Cart {\n    // ... existing code ...\n\n"
        "    count(): number {\n      return this.n;\n    }\n  }\n",
        "    count(): number {\n      return this.n;\n    }\n",
        "      this.n++;\n    }\n",
    ),
}


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("language", sorted(_NAMESPACED))
def test_a_method_added_at_the_end_of_a_class_in_a_namespace_shown_at_its_depth(tmp_path: Path, language: str) -> None:
    """The class shown as it stands in its namespace, indented, the namespace left out: the new method goes
    after the class's last member. Before, the indented snippet's bodies were not found, and the edit was
    refused ("its reading changes nothing in the file")."""
    ext, original, edit, method, last = _NAMESPACED[language]
    path = tmp_path / f"cart.{ext}"
    path.write_text(original, encoding="utf-8")
    expected = original.replace(last, f"{last}\n{method}")
    assert api.apply(path, edit, cwd=tmp_path).after == expected


def _closer_edit(lang: Lang) -> str:
    return f"{lang.marker(indent=lang.indent)}\n\n{lang.exp}\n{lang.class_close}\n"


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", [TS, JS, CPP, RUST, RUBY], ids=lambda x: x.name)
def test_a_method_added_before_the_classs_closer_with_its_header_left_out(tmp_path: Path, lang: Lang) -> None:
    """A marker at the members' depth, the new method, and the class's closer (`}`, `};`, `end`), the
    class's header left out: the closer says whose end the method stands at, so it goes after the class's
    last member, and what follows the class is kept. Before, refused ("its reading changes nothing")."""
    assert applied(tmp_path, lang, lang.file(), _closer_edit(lang)) == _with_exp(lang)


@pytest.mark.parametrize("lang", [JAVA, CSHARP], ids=lambda x: x.name)
def test_closers_that_could_end_either_of_two_classes_place_nothing(lang: Lang) -> None:
    """The counterexample: the Java and C# files hold two classes (`Calculator`, then `Main`/`Program`)
    whose members stand at one depth and end with `}`: the closer does not say whose end the new method
    stands at, and the structure does not place it."""
    assert structure.read(lang.file(), _closer_edit(lang), lang.name, None, lambda original, snippet: None) is None


def test_closers_the_file_does_not_end_the_class_with_place_nothing() -> None:
    """The other counterexample: a closer that is not the class's own last line (`};` for a `}`) closes no
    scope of the file."""
    original = "class A {\n  a() {\n    return 1;\n  }\n}\n\nmodule.exports = A;\n"
    edit = "  // ... existing code ...\n\n  c() {\n    return 3;\n  }\n};\n"
    assert structure.read(original, edit, "javascript", None, lambda original, snippet: None) is None


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("lang", LANGS, ids=IDS)
def test_a_snippet_starting_at_a_definition_shown_whole_keeps_the_top_of_the_file(tmp_path: Path, lang: Lang) -> None:
    """The class shown whole, `add` edited, a marker below, nothing above: the file's imports above the class
    are kept (nobody deletes the top of a file by leaving it out), and so is what the marker stands for."""
    members = [lang.init, lang.add_body, lang.reset] if not _go_class(lang) else []
    if _go_class(lang):
        edit = f"{lang.add_body}\n\n{lang.marker()}\n"
    else:
        close = f"\n{lang.class_close}" if lang.class_close else ""
        edit = lang.class_open + "\n" + "\n\n".join(members) + close + f"\n\n{lang.marker()}\n"
    assert applied(tmp_path, lang, lang.file(), edit) == lang.file(add=lang.add_body)


@pytest.mark.parametrize("lang", [x for x in LANGS if not _go_class(x)], ids=lambda x: x.name)
def test_a_snippet_ending_at_a_definition_shown_whole_leaves_the_files_end_to_the_line_reader(lang: Lang) -> None:
    """The counterexample, at the other edge: a marker above, the class shown whole and nothing below: the
    structure does not say whether the file ends there (what follows the class); the line reader weighs it."""
    close = f"\n{lang.class_close}" if lang.class_close else ""
    members = "\n\n".join([lang.init, lang.add_body, lang.reset])
    edit = f"{lang.marker()}\n\n{lang.class_open}\n{members}{close}\n"
    assert structure.read(lang.file(), edit, lang.name, None, lambda original, snippet: None) is None


_FETCH = (
    "import logging\n\nlog = logging.getLogger(__name__)\n\n\ndef fetch(url):\n    for attempt in range(3):\n"
    '        if get(url):\n            return True\n    raise IOError(url)\n\n\ndef main():\n    fetch("x")\n'
)


@pytest.mark.usefixtures("no_model")
def test_a_python_function_read_inside_ends_at_the_files_last_line_of_it(tmp_path: Path) -> None:
    """`def fetch`, a marker, a new line and the function's last line as the file has it (a line its body
    holds once): the snippet says where the function ends, as a closer would, so the structure reads it
    inside and what follows (`main`) is kept. Before, the model was asked whether the snippet stops there."""
    edit = 'def fetch(url):\n    # ... existing code ...\n    log.warning("giving up")\n    raise IOError(url)\n'
    expected = _FETCH.replace("    raise IOError(url)\n", '    log.warning("giving up")\n    raise IOError(url)\n')
    assert applied(tmp_path, PY, _FETCH, edit) == expected


def test_a_last_line_the_body_holds_twice_does_not_say_where_the_function_ends() -> None:
    """The counterexample: the function's last line (`log.info("done")`) stands in its body twice at its
    depth; the snippet may stop at the first, so where the new line goes is a question, not an answer."""
    original = (
        'import logging\n\n\ndef fetch(url):\n    result = get(url)\n    log.info("done")\n'
        '    result = retry(url)\n    log.info("done")\n\n\ndef main():\n    fetch("x")\n'
    )
    edit = 'def fetch(url):\n    # ... existing code ...\n    check(result)\n    log.info("done")\n'
    assert not confirm.confirmed(original, edit, "python").ok


def test_a_definition_given_alone_that_two_scopes_define_is_refused_naming_both(tmp_path: Path) -> None:
    """A method given whole, no marker, that two classes define: a real ambiguity, and the refusal names
    the places it could not choose between (each class, with the line). Counterexample: a fragment that
    places nowhere for another reason (a method written at column 0) names no places."""
    from applyedit.errors import AmbiguousEditError

    original = (
        "class Cart:\n    def total(self):\n        return sum(self.prices)\n\n\n"
        "class Wishlist:\n    def total(self):\n        return len(self.items)\n"
    )
    path = tmp_path / "shop.py"
    path.write_text(original, encoding="utf-8")
    with pytest.raises(AmbiguousEditError) as refused:
        api.apply(path, "    def total(self):\n        return round(sum(self.prices), 2)\n", cwd=tmp_path)
    assert "`total` in class Cart (line 2) and in class Wishlist (line 7)" in str(refused.value)
    with pytest.raises(AmbiguousEditError) as other:
        api.apply(path, "def size(self):\n    return len(self.prices) + 1\n", cwd=tmp_path)
    assert "no single place;" in str(other.value)
    assert path.read_text(encoding="utf-8") == original
