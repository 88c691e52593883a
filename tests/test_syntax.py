"""Syntax trees (applyedit/syntax.py): parse errors, definition spans, labels, top-level boundaries."""

from __future__ import annotations

from pathlib import Path

import pytest

from applyedit import imports, syntax
from applyedit.syntax import Definition, definitions, enclosing_each, label, parse_errors
from applyedit.textio import language_for, normalise

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

PYTHON = """import os


@dataclass(frozen=True)
class Rule:
    name: str

    def __init__(self, name):
        self.name = name

    @property
    async def size(self):
        def inner():
            return 1
        return inner()


def main():
    pass
"""

JAVASCRIPT = """import x from "y";

export class Router {
  constructor() {
    this.routes = [];
  }

  add(path) {
    return this;
  }
}

function listen(port) {
  return port;
}

const handler = async (req) => {
  return req;
};

let count = 0;
"""

TYPESCRIPT = """export interface Shape {
  area(): number;
}

export type Id = string | number;

enum Color {
  Red,
  Green,
}

export class Circle implements Shape {
  constructor(private r: number) {}

  @memo
  area(): number {
    return Math.PI * this.r ** 2;
  }
}

export const make = (r: number): Circle => new Circle(r);
"""

TSX = """export function App(props: { name: string }) {
  return <div className="app">{props.name}</div>;
}
"""

GO = """package server

import "time"

type Server struct {
\ttimeout time.Duration
}

type Handler interface {
\tServe() error
}

func (s *Server) Start() error {
\treturn nil
}

func New() *Server {
\treturn &Server{}
}
"""

RUST = """use std::fmt;

#[derive(Debug)]
pub struct Parser {
    pos: usize,
}

impl Parser {
    pub fn parse(&mut self) -> bool {
        true
    }
}

impl fmt::Display for Parser {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "p")
    }
}

trait Walk {
    fn walk(&self);
    fn run(&self) {}
}

mod inner {
    pub fn helper() {}
}
mod other;
"""

JAVA = """package x;

public class Rule {
    private int n;

    @Override
    public String toString() {
        return "";
    }

    public Rule(int n) {
        this.n = n;
    }

    interface Inner { void m(); }
    enum Kind { A, B }
}
"""

C = """#include <stdio.h>

struct point {
    int x;
};

typedef struct {
    int w;
} extent;

static int *find(int *xs, int n)
{
    return xs;
}

int main(void) {
    return 0;
}
"""

CPP = """namespace ns {
template <typename T>
class Box : public Base {
 public:
  int get() const { return v; }
  Box& operator=(const Box&) = default;
  ~Box() {}
  void decl();
};
}
int* ns::Box::make(int a) { return 0; }
struct P { int x; };
class Forward;
enum class Color { Red };
namespace { void hidden() {} }
"""

CASES = {  # language -> (text, path hint, [(label of the definition's chain, kind, start, end)])
    "python": (
        PYTHON,
        None,
        [
            ("class Rule", "class", 4, 15),
            ("class Rule › def __init__", "method", 8, 9),
            ("class Rule › def size", "method", 11, 15),
            ("class Rule › def size › def inner", "function", 13, 14),
            ("def main", "function", 18, 19),
        ],
    ),
    "javascript": (
        JAVASCRIPT,
        None,
        [
            ("class Router", "class", 3, 11),
            ("class Router › method constructor", "method", 4, 6),
            ("class Router › method add", "method", 8, 10),
            ("function listen", "function", 13, 15),
            ("function handler", "function", 17, 19),
        ],
    ),
    "typescript": (
        TYPESCRIPT,
        None,
        [
            ("interface Shape", "interface", 1, 3),
            ("type Id", "type", 5, 5),
            ("enum Color", "enum", 7, 10),
            ("class Circle", "class", 12, 19),
            ("class Circle › method constructor", "method", 13, 13),
            ("class Circle › method area", "method", 15, 18),
            ("function make", "function", 21, 21),
        ],
    ),
    "tsx": (TSX, "src/App.tsx", [("function App", "function", 1, 3)]),
    "go": (
        GO,
        None,
        [
            ("type Server", "struct", 5, 7),
            ("type Handler", "interface", 9, 11),
            ("func (Server) Start", "method", 13, 15),
            ("func New", "function", 17, 19),
        ],
    ),
    "rust": (
        RUST,
        None,
        [
            ("struct Parser", "struct", 3, 6),
            ("impl Parser", "impl", 8, 12),
            ("impl Parser › fn parse", "method", 9, 11),
            ("impl fmt::Display for Parser", "impl", 14, 18),
            ("impl fmt::Display for Parser › fn fmt", "method", 15, 17),
            ("trait Walk", "trait", 20, 23),
            ("trait Walk › fn run", "method", 22, 22),
            ("mod inner", "module", 25, 27),
            ("mod inner › fn helper", "function", 26, 26),
        ],
    ),
    "java": (
        JAVA,
        None,
        [
            ("class Rule", "class", 3, 17),
            ("class Rule › method toString", "method", 6, 9),
            ("class Rule › constructor Rule", "constructor", 11, 13),
            ("class Rule › interface Inner", "interface", 15, 15),
            ("class Rule › interface Inner › method m", "method", 15, 15),
            ("class Rule › enum Kind", "enum", 16, 16),
        ],
    ),
    "c": (
        C,
        None,
        [
            ("struct point", "struct", 3, 5),
            ("struct extent", "struct", 7, 9),
            ("function find", "function", 11, 14),
            ("function main", "function", 16, 18),
        ],
    ),
    "cpp": (
        CPP,
        None,
        [
            ("namespace ns", "namespace", 1, 10),
            ("namespace ns › class Box", "class", 2, 9),
            ("namespace ns › class Box › function get", "method", 5, 5),
            ("namespace ns › class Box › function operator=", "method", 6, 6),
            ("namespace ns › class Box › function ~Box", "method", 7, 7),
            ("function ns::Box::make", "function", 11, 11),
            ("struct P", "struct", 12, 12),
            ("enum Color", "enum", 14, 14),
            ("function hidden", "function", 15, 15),
        ],
    ),
}

BROKEN = {  # language -> (text that does not parse, the line the error is reported on)
    "python": ("x = 1\n\ndef f(:\n    pass\n", 3),
    "javascript": ("const a = 1;\nfunction (\n", 2),
    "typescript": ("let a: number = 1;\nconst b: = 2;\n", 2),
    "tsx": ("const a = <div>;\n", 1),
    "go": ("package main\n\nfunc main() {\n\tx := 1\n", 4),
    "rust": ("fn main() {\n    let x = 1\n}\n", 2),
    "java": ("class A {\n  void m() {\n    int x = 1\n  }\n}\n", 3),
    "c": ("int main(void) {\n    return 0\n}\n", 2),
    "cpp": ("#include <vector>\nint main() { std::vector<int> v = {1, 2; }\n", 2),
}


def _chain(d: Definition) -> tuple[Definition, ...]:
    chain: list[Definition] = []
    node: Definition | None = d
    while node is not None:
        chain.append(node)
        node = node.parent
    return tuple(reversed(chain))


def _summary(defs: list[Definition]) -> list[tuple[str, str, int, int]]:
    return [(label(_chain(d)), d.kind, d.start_line, d.end_line) for d in defs]


@pytest.mark.parametrize("language", sorted(CASES))
def test_definitions_have_names_kinds_spans_and_nesting(language: str) -> None:
    """Each language's snippet parses cleanly and yields its definitions, nested, in source order."""
    text, path, expected = CASES[language]
    assert parse_errors(text, language, path) == []
    assert _summary(definitions(text, language, path) or []) == expected


@pytest.mark.parametrize("language", sorted(BROKEN))
def test_parse_errors_report_the_broken_line(language: str) -> None:
    """Broken code yields the line of its ERROR or MISSING node, for every main language."""
    text, line = BROKEN[language]
    assert parse_errors(text, language) == [line]


def test_a_missing_brace_at_the_end_is_reported_on_the_last_line() -> None:
    """A MISSING node after the final newline is clamped to the file's last line, not one past it."""
    assert parse_errors("package main\n\nfunc main() {\n", "go") == [3]


def test_tsx_is_chosen_by_path_or_when_only_it_parses() -> None:
    """A .tsx path picks the TSX grammar; pathless TypeScript falls back to TSX; .ts stays strict."""
    assert parse_errors(TSX, "typescript", "App.tsx") == []
    assert parse_errors(TSX, "typescript") == []
    assert parse_errors(TSX, "typescript", Path("App.ts"))
    assert parse_errors(TSX, "tsx") == []


def enclosing(defs: list[Definition], line: int) -> tuple[Definition, ...]:
    """The chain around one 1-based line, read off `enclosing_each`."""
    return enclosing_each(defs, line)[line - 1]


def test_enclosing_and_label_give_the_chain_around_a_line() -> None:
    """enclosing_each() gives each line's chain outermost first; label() joins it; top level is ()/""."""
    defs = definitions(PYTHON, "python")
    assert defs is not None
    assert label(enclosing(defs, 14)) == "class Rule › def size › def inner"
    assert label(enclosing(defs, 4)) == "class Rule"  # the decorator line belongs to the class
    assert [d.name for d in enclosing(defs, 9)] == ["Rule", "__init__"]
    assert enclosing(defs, 2) == () and enclosing(defs, 17) == () and label(()) == ""


def test_unicode_identifiers_keep_line_numbers_right() -> None:
    """Multi-byte characters (tree-sitter counts bytes) do not shift lines of definitions or errors."""
    text = (
        "# 日本語のコメント — ünïcödé 🎉\n"
        "def grüße(名前):\n"
        '    return f"こんにちは {名前}"\n'
        "\n\n"
        "class Ωmega:\n"
        '    def método(self, ç="ñ" * 3):  # ✓\n'
        '        return "ñ"\n'
    )
    assert parse_errors(text, "python") == []
    assert _summary(definitions(text, "python") or []) == [
        ("def grüße", "function", 2, 3),
        ("class Ωmega", "class", 6, 8),
        ("class Ωmega › def método", "method", 7, 8),
    ]
    assert parse_errors(text + "x = '😀'\ndef ñ(:\n    pass\n", "python") == [10]


_INDENTED_CLASS = {
    "csharp": "public class Cart\n{\n    public int Count()\n    {\n        return count;\n    }\n}\n",
    "java": "public class Cart {\n    public int count() {\n        return count;\n    }\n}\n",
    "typescript": "export class Cart {\n  count(): number {\n    return this.n;\n  }\n}\n",
    "cpp": "class Cart {\n  int count() {\n    return n;\n  }\n};\n",
}


@pytest.mark.parametrize("language", sorted(_INDENTED_CLASS))
def test_an_indented_fragments_bodies_are_found_as_at_column_zero(language: str) -> None:
    """A snippet of a class nested in the file (in a namespace), written at its depth: tree-sitter's root
    starts at its first token, past the first line's indentation; the bodies are found all the same (a
    closer is matched to its line's indentation). Before, every body of an indented snippet was lost."""
    text = _INDENTED_CLASS[language]
    indented = "".join(f"    {x}" if x.strip() else x for x in text.splitlines(keepends=True))
    at_zero = [(d.name, d.body) for d in definitions(text, language) or []]
    assert all(body is not None for _, body in at_zero)
    assert [(d.name, d.body) for d in definitions(indented, language) or []] == at_zero


def test_an_indented_fragments_closer_off_its_headers_indentation_gives_no_body() -> None:
    """The counterexample: a closer that does not stand at its line's own indentation (code before it on
    its line) closes no body the structure can read, indented or not."""
    text = "    public class Cart\n    {\n        public int Count()\n        {\n            return count; }\n    }\n"
    found = {d.name: d.body for d in definitions(text, "csharp") or []}
    assert found["Cart"] is not None and found["Count"] is None


def test_unsupported_language_returns_none() -> None:
    """Languages without a grammar answer None everywhere and are not supported."""
    for language in ("cobol", "text", ""):
        assert not syntax.supported(language)
        assert parse_errors("x", language) is None
        assert definitions("x", language) is None


def test_every_listed_language_and_alias_is_supported() -> None:
    """Every name in LANGUAGES has a loadable grammar, and the usual aliases map onto them."""
    for language in (*syntax.LANGUAGES, "C++", "TS", "golang", "py", "sh", "c#"):
        assert syntax.supported(language), language
    main = {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp"}
    assert main <= syntax.LANGUAGES


def test_other_languages_find_their_definitions() -> None:
    """Ruby, Bash, C# and Markdown (sections by heading) yield definitions too; JSON reports errors."""
    ruby = "class Greeter\n  def hi\n    puts 1\n  end\nend\n"
    assert _summary(definitions(ruby, "ruby") or []) == [
        ("class Greeter", "class", 1, 5),
        ("class Greeter › def hi", "method", 2, 4),
    ]
    bash = "deploy() {\n  echo hi\n}\n"
    assert _summary(definitions(bash, "bash") or []) == [("function deploy", "function", 1, 3)]
    csharp = "namespace App {\n  class Program {\n    static void Main() {}\n  }\n}\n"
    chain = enclosing(definitions(csharp, "csharp") or [], 3)
    assert label(chain) == "namespace App › class Program › method Main"
    markdown = "# Title\n\nintro\n\n## Usage\n\ntext\n\n## Other\n\nmore\n"
    assert _summary(definitions(markdown, "markdown") or []) == [
        ("# Title", "section", 1, 11),
        ("# Title › ## Usage", "section", 5, 8),
        ("# Title › ## Other", "section", 9, 11),
    ]
    setext = "Title\n=====\n\ntext\n"
    assert _summary(definitions(setext, "markdown") or []) == [("# Title", "section", 1, 4)]
    assert parse_errors('{"a": 1,\n "b": }\n', "json") == [2]
    assert parse_errors("", "python") == []


def test_imported_names_and_names_imported_from_two_modules() -> None:
    """The names top-level imports bind, with their module; a name bound from two modules is a clash in
    JavaScript and TypeScript only (Python shadows, Rust paths alias one item)."""
    ts = (
        'import a, { b as c, d } from "x";\nimport type { E,\n  F } from "y";\nimport * as G from "z";\n'
        'import "side";\nimport H = require("h");\n'
    )
    assert [n for n, _ in imports.imported_names(ts, "typescript") or []] == ["a", "c", "d", "E", "F", "G", "H"]
    assert imports.import_conflicts(ts, "typescript") == 0
    assert imports.import_conflicts(ts + 'import { d } from "x";\n', "typescript") == 0  # same module again
    assert imports.import_conflicts(ts + 'import { d, E } from "w";\n', "typescript") == 2
    rust = "use std::io::{self, Read as R, Write};\nuse a::b::C;\nuse d::*;\nmod t {\n    use a::b::C;\n}\n"
    assert [n for n, _ in imports.imported_names(rust, "rust") or []] == ["io", "R", "Write", "C"]
    python = "import os, a.b as c, d.e\nfrom x import (f, g as h)\nfrom y import *\n"
    python += "try:\n    import k\nexcept ImportError:\n    pass\n"
    assert [n for n, _ in imports.imported_names(python, "python") or []] == ["os", "c", "f", "h"]
    assert imports.import_conflicts(python + "from z import f\n", "python") == 0


def test_a_go_package_imported_twice_under_one_name_is_a_clash() -> None:
    """Go refuses a package imported twice under one name ("math redeclared"), a block and a line alike;
    the counterexamples: one package under two names, and blank imports."""
    go = 'package p\n\nimport (\n\t"fmt"\n\t"math"\n)\n'
    assert imports.import_conflicts(go, "go") == 0
    assert imports.import_conflicts(go + 'import "math"\n', "go") == 1
    assert imports.import_conflicts(go + 'import m "fmt"\nimport m "math"\n', "go") == 1  # one alias, two paths
    assert imports.import_conflicts(go + 'import m "math"\n', "go") == 0  # the same package under two names
    assert imports.import_conflicts(go + 'import _ "embed"\nimport _ "embed"\n', "go") == 0  # binds nothing


FIXTURE_FILES = sorted(
    path for path in [*FIXTURES.glob("*/before.*"), *FIXTURES.glob("*/after.*")] if syntax.supported(language_for(path))
)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixtures_parse_cleanly(path: Path) -> None:
    """Every fixture's before and after file is valid code in its language."""
    text, _ = normalise(path.read_bytes().decode("utf-8"))
    assert parse_errors(text, language_for(path), path) == []
