"""Generate apply cases (original, update snippet, expected file) from the real source files in
corpus/sources/, deterministically from a seed.

Owns the mutator (tree-sitter finds functions, their statements and the definitions beside them;
an edit changes statements inside a function, inserts statements, adds a function or method
beside another, deletes one, changes a signature and its call sites, or several of these at once),
the two snippet styles drawn from the true change (`clean`: every changed line, two non-blank
context lines around it, one `... existing code ...` marker per elided stretch, indented like the
code it stands for; `messy`: as chat models write them: other marker wordings and comment forms,
markers not indented like the code, one or zero context lines, the whole enclosing function shown,
a marker inside a body, a leading or trailing marker left out) and writing cases in the fixture
format (`applyedit eval DIR` runs them). The expected file is always the mutator's output.
Ignores the model and the merger: it only makes cases.

    python corpus/generate.py OUT_DIR [--seed 17] [--sample]    # --sample: the frozen sample only
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script from a checkout: find applyedit beside corpus/
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from applyedit import syntax  # noqa: E402

ROOT = Path(__file__).resolve().parent
SOURCES = ROOT / "sources"
SEED = 17
EDITS_PER_FILE = 3
EXTENSIONS = {".py": "python", ".js": "javascript", ".ts": "typescript", ".go": "go", ".rs": "rust"}
PREFIX = {"python": "py", "javascript": "js", "typescript": "ts", "go": "go", "rust": "rs"}
KINDS = ("change_stmt", "insert_stmt", "add_def", "delete_def", "change_sig", "multi")
WORDS = ("checked", "cached", "strict", "fallback", "limit", "total", "retry", "default", "scaled", "safe")

# Node types per language: functions whose body statements may change, and the containers whose
# direct children are definitions that can be added beside or deleted.
_FUNCS = {
    "python": {"function_definition"},
    "javascript": {"function_declaration", "function_expression", "method_definition", "arrow_function",
                   "generator_function_declaration"},
    "go": {"function_declaration", "method_declaration", "func_literal"},
    "rust": {"function_item"},
}
_FUNCS["typescript"] = _FUNCS["javascript"]
_CONTAINERS = {
    "python": {"module", "block"}, "javascript": {"program", "class_body"},
    "typescript": {"program", "class_body"}, "go": {"source_file"},
    "rust": {"source_file", "declaration_list"},
}
_COMMENTS = {"comment", "line_comment", "block_comment"}


@dataclass(frozen=True)
class Source:
    language: str
    path: Path  # relative to SOURCES
    text: str

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")[:-1] if self.text.endswith("\n") else self.text.split("\n")


@dataclass(frozen=True)
class Func:
    """A function: its header row, last row, and its body's single-line statements."""

    name: str
    header: int  # 0-based row of the definition's first line (no comments or decorators)
    end: int  # 0-based last row
    statements: tuple[tuple[int, int], ...]  # (row, end row) of each body statement, in order
    method: bool


@dataclass(frozen=True)
class Unit:
    """A definition that is a direct child of a container: span with its leading comments."""

    name: str
    start: int  # 0-based first row, leading comments and decorators included
    header: int
    end: int
    function: bool  # a function or method (not a class, impl, ...)
    method: bool  # inside a class / impl body
    siblings_gap: int  # blank lines after it before the next sibling (>= 1)


@dataclass
class Edit:
    kinds: list[str]
    reps: list[tuple[int, int, list[str]]]  # original rows [start, end) -> new lines
    detail: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Case:
    name: str
    language: str
    source: str
    style: str  # "clean" | "messy"
    kinds: tuple[str, ...]
    messy: tuple[str, ...]
    seed: int
    detail: str
    before: str
    snippet: str
    after: str
    ext: str


# ---------------------------------------------------------------- sources and syntax


def sources(root: Path = SOURCES) -> list[Source]:
    """Every vendored source file, sorted by path."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        language = EXTENSIONS.get(path.suffix)
        if language:
            found.append(Source(language, path.relative_to(root), path.read_text(encoding="utf-8")))
    return found


def _tree(text: str, language: str):  # noqa: ANN202 (tree_sitter.Tree)
    parser = syntax._parser(language)  # the project's pinned grammars
    assert parser is not None, f"no grammar for {language}"
    return parser.parse(text.encode("utf-8"))


def _walk(node) -> Iterator:  # noqa: ANN001
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.named_children))


def _name(node) -> str:  # noqa: ANN001
    for candidate in (node, *node.named_children):
        name = candidate.child_by_field_name("name")
        if name is not None:
            return name.text.decode()
    if node.type == "expression_statement" and node.named_children:  # proto.handle = function ...
        left = node.named_children[0].child_by_field_name("left")
        if left is not None:
            return left.text.decode().rsplit(".", 1)[-1]
    return ""


def _body_statements(body) -> list:  # noqa: ANN001
    kids = [c for c in body.named_children if c.type not in _COMMENTS]
    if len(kids) == 1 and kids[0].type == "statement_list":  # Go
        kids = [c for c in kids[0].named_children if c.type not in _COMMENTS]
    return kids


def functions(src: Source) -> list[Func]:
    """Functions with a braced / indented body of their own lines."""
    tree, found = _tree(src.text, src.language), []
    for node in _walk(tree.root_node):
        if node.type not in _FUNCS[src.language]:
            continue
        body = node.child_by_field_name("body")
        if body is None or body.start_point.row == body.end_point.row:
            continue
        stmts = tuple((s.start_point.row, s.end_point.row) for s in _body_statements(body)
                      if s.start_point.row > node.start_point.row)
        parent_types = {p.type for p in _ancestors(node)}
        method = bool(parent_types & {"class_definition", "class_body", "impl_item", "class_declaration"})
        found.append(Func(_name(node) or _name(node.parent), node.start_point.row, node.end_point.row, stmts, method))
    return found


def _last_row(node) -> int:  # noqa: ANN001
    """A node's last row; a Rust line comment ends at column 0 of the next one (its newline)."""
    return node.end_point.row if node.end_point.column else node.end_point.row - 1


def _ancestors(node) -> Iterator:  # noqa: ANN001
    while (node := node.parent) is not None:
        yield node


def _definition(node, language: str) -> tuple[str, bool] | None:  # noqa: ANN001
    """(name, is a function) when `node` is a definition statement, else None."""
    t = node.type
    if language == "python":
        if t == "decorated_definition":
            inner = node.child_by_field_name("definition")
            return (_name(inner), inner.type == "function_definition") if inner is not None else None
        if t in ("function_definition", "class_definition"):
            return _name(node), t == "function_definition"
        return None
    if language in ("javascript", "typescript"):
        if t == "export_statement":
            inner = node.child_by_field_name("declaration")
            return _definition(inner, language) if inner is not None else None
        if t in ("function_declaration", "generator_function_declaration", "method_definition"):
            return _name(node), True
        if t in ("class_declaration", "abstract_class_declaration", "interface_declaration"):
            return _name(node), False
        if t == "expression_statement" and node.named_children:
            e = node.named_children[0]
            right = e.child_by_field_name("right") if e.type == "assignment_expression" else None
            if right is not None and right.type in ("function_expression", "function", "arrow_function"):
                return _name(node), True
        return None
    if language == "go":
        return (_name(node), True) if t in ("function_declaration", "method_declaration") else None
    if language == "rust":
        if t == "function_item":
            return _name(node), True
        if t in ("impl_item", "struct_item", "enum_item", "trait_item", "mod_item"):
            return _name(node) or t, False
    return None


def units(src: Source) -> list[Unit]:
    """Definitions that are direct children of a module, class or impl body, in order."""
    tree, lines, found = _tree(src.text, src.language), src.lines, []
    for container in _walk(tree.root_node):
        if container.type not in _CONTAINERS[src.language]:
            continue
        if container.type == "block" and (container.parent is None or container.parent.type != "class_definition"):
            continue
        kids = list(container.named_children)
        method = container.type in ("block", "class_body", "declaration_list")
        for n, kid in enumerate(kids):
            d = _definition(kid, src.language)
            if d is None or not d[0]:
                continue
            start = kid.start_point.row
            k = n - 1  # leading comments / attributes directly above (no blank line between)
            while k >= 0 and kids[k].type in _COMMENTS | {"attribute_item", "decorator"} and _last_row(kids[k]) == start - 1:
                start = kids[k].start_point.row
                k -= 1
            if _indent_of(lines[start]) != _indent_of(lines[kid.start_point.row]):
                start = kid.start_point.row  # a comment at another depth: not this definition's
            end = kid.end_point.row if kid.end_point.column else kid.end_point.row - 1
            nxt = kids[n + 1].start_point.row if n + 1 < len(kids) else None
            gap = sum(1 for r in range(end + 1, nxt) if not lines[r].strip()) if nxt is not None else 1
            header = kid.start_point.row
            found.append(Unit(d[0], start, header, end, d[1], method, max(1, gap)))
    return sorted(found, key=lambda u: u.start)


def parses(before: str, after: str, language: str) -> bool:
    return syntax.new_errors(before, after, language) in ([], None)


# ---------------------------------------------------------------- text helpers


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _unit(lines: list[str], language: str) -> str:
    """One indentation step of the file."""
    if language == "go":
        return "\t"
    steps = {len(_indent_of(x)) for x in lines if x.strip() and not x.startswith("\t")
             and not x.lstrip().startswith(("*", "#", "//"))}
    return " " * min((s for s in steps if s in (2, 4)), default=4)


def _camel(base: str, word: str) -> str:
    return base + word[0].upper() + word[1:]


def _snake(base: str, word: str) -> str:
    return f"{base.rstrip('_')}_{word}"


def _new_name(language: str, base: str, word: str, taken: str) -> str:
    name = _snake(base, word) if language in ("python", "rust") else _camel(base, word)
    return name if re.search(rf"\b{re.escape(name)}\b", taken) is None else name + "2"


def _comment(language: str) -> str:
    return "#" if language == "python" else "//"


def _matching_paren(line: str, open_at: int) -> int | None:
    depth = 0
    for i in range(open_at, len(line)):
        if line[i] in "([{":
            depth += 1
        elif line[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i if line[i] == ")" else None
    return None


def _is_comment_line(line: str) -> bool:
    return line.lstrip().startswith(("#", "//", "*", "/*"))


# ---------------------------------------------------------------- mutations


def _statement_lines(src: Source, fn: Func) -> list[int]:
    """Rows of single-line statements that stand alone on their line."""
    lines, rows = src.lines, []
    for a, b in fn.statements:
        if a != b or not lines[a].strip() or _is_comment_line(lines[a]):
            continue
        if lines[a].strip().startswith(('"""', "'''", "r\"", "{", "}")):
            continue
        rows.append(a)
    return rows


_FLIPS = (("==", "!="), ("!=", "=="), ("<=", "<"), (">=", ">"), (" && ", " || "), (" and ", " or "))


def _change_line(line: str, rng: random.Random, language: str) -> str | None:
    ind, code = _indent_of(line), line.strip()
    options: list[Callable[[], str | None]] = []
    nums = [m for m in re.finditer(r"(?<![\w.])\d+(?![\w.])", code)]
    if nums:
        def number() -> str:
            m = rng.choice(nums)
            value = int(m.group())
            return code[: m.start()] + str(value + rng.choice((1, 2, 10)) if value < 10**6 else value - 1) + code[m.end():]
        options.append(number)
    strs = [m for m in re.finditer(r"(\"|')([A-Za-z][^\"'\\]{1,40})\1", code)]
    if strs:
        def string() -> str:
            m = rng.choice(strs)
            q, body = m.group(1), m.group(2)
            return code[: m.start()] + f"{q}{body} ({rng.choice(WORDS)}){q}" + code[m.end():]
        options.append(string)
    flips = [(a, b) for a, b in _FLIPS if a in code and (" and " not in a or language == "python")]
    if flips:
        def flip() -> str:
            a, b = rng.choice(flips)
            return code.replace(a, b, 1)
        options.append(flip)
    calls = [m for m in re.finditer(r"\b([a-z_][A-Za-z0-9_]*)\(", code) if m.group(1) not in
             ("if", "for", "while", "switch", "return", "func", "function", "fn", "match", "catch")]
    if calls:
        def rename_call() -> str:
            m = rng.choice(calls)
            name = m.group(1)
            new = _snake(name, rng.choice(WORDS)) if language in ("python", "rust") else _camel(name, rng.choice(WORDS))
            return code[: m.start(1)] + new + code[m.end(1):]
        options.append(rename_call)
    if not options:
        return None
    new = rng.choice(options)()
    return None if new is None or new == code else ind + new


def _stmt_templates(language: str, fn: str, rng: random.Random, unit: str) -> list[list[str]]:
    w, n = rng.choice(WORDS), rng.randint(2, 99)
    if language == "python":
        return [[f'logger.debug("{fn}: {w} %s", {n})'],
                [f"if {w}_enabled:", f"{unit}{w}_count += {n}"],
                [f"{w}_limit = {n}", f'assert {w}_limit > 0, "{fn}"']]
    if language in ("javascript", "typescript"):
        return [[f'console.debug("{fn}: {w}", {n});'],
                [f"if ({w}Enabled) {{", f"{unit}{w}Count += {n};", "}"],
                [f"const {w}Limit = {n};"]]
    if language == "go":
        return [[f'log.Printf("{fn}: {w} %d", {n})'],
                [f"if {w}Enabled {{", f"{unit}{w}Count += {n}", "}"],
                [f"{w}Limit := {n}", f"_ = {w}Limit"]]
    return [[f'log::debug!("{fn}: {w} {{}}", {n});'],
            [f"if {w}_enabled {{", f"{unit}{w}_count += {n};", "}"],
            [f"let {w}_limit = {n};"]]


def change_stmt(src: Source, rng: random.Random) -> Edit | None:
    fns = [f for f in functions(src) if len(_statement_lines(src, f)) >= 1]
    if not fns:
        return None
    fn = rng.choice(fns)
    rows = _statement_lines(src, fn)
    picks = sorted(rng.sample(rows, min(len(rows), rng.choice((1, 1, 2)))))
    reps = []
    for r in picks:
        new = _change_line(src.lines[r], rng, src.language)
        if new is None:
            return None
        reps.append((r, r + 1, [new]))
    return Edit(["change_stmt"], reps, [f"change {len(reps)} statement(s) in {fn.name}"])


def insert_stmt(src: Source, rng: random.Random) -> Edit | None:
    fns = [f for f in functions(src) if f.statements]
    if not fns:
        return None
    fn = rng.choice(fns)
    lines = src.lines
    rows = [a for a, _ in fn.statements if a > fn.header and lines[a].strip()
            and not lines[a].strip().startswith(('"""', "'''", "}", "{"))]
    if not rows:
        return None
    row = rng.choice(rows)
    ind = _indent_of(lines[row])
    block = rng.choice(_stmt_templates(src.language, fn.name or "call", rng, _unit(lines, src.language)))
    new = [ind + x for x in block] + [lines[row]]
    return Edit(["insert_stmt"], [(row, row + 1, new)], [f"insert {len(block)} line(s) in {fn.name}"])


def _def_template(language: str, name: str, method: bool, rng: random.Random, unit: str) -> list[str]:
    n, u = rng.randint(2, 99), unit
    if language == "python":
        head = f"def {name}(self, value):" if method else f"def {name}(value):"
        return [head, f"{u}if value is None:", f"{u}{u}return {n}", f"{u}return value"]
    if language in ("javascript", "typescript"):
        param = "value?: number" if language == "typescript" else "value"
        ret = ": number" if language == "typescript" else ""
        head = f"{name}({param}){ret} {{" if method else f"function {name}({param}){ret} {{"
        return [head, f"{u}if (value === undefined) {{", f"{u}{u}return {n};", f"{u}}}", f"{u}return value;", "}"]
    if language == "go":
        return [f"func {name}(value int) int {{", f"{u}if value < 0 {{", f"{u}{u}return {n}", f"{u}}}",
                f"{u}return value", "}"]
    head = f"pub fn {name}(&self, value: usize) -> usize {{" if method else f"fn {name}(value: usize) -> usize {{"
    return [head, f"{u}if value == 0 {{", f"{u}{u}return {n};", f"{u}}}", f"{u}value", "}"]


def add_def(src: Source, rng: random.Random) -> Edit | None:
    us = [u for u in units(src) if u.function]
    if not us:
        return None
    u = rng.choice(us)
    lines = src.lines
    ind = _indent_of(lines[u.header])
    name = _new_name(src.language, u.name.strip("_") or "helper", rng.choice(WORDS), src.text)
    body = [ind + x for x in _def_template(src.language, name, u.method, rng, _unit(lines, src.language))]
    if rng.random() < 0.7 or u.start == 0:  # after it
        new = [lines[u.end]] + [""] * u.siblings_gap + body
        return Edit(["add_def"], [(u.end, u.end + 1, new)], [f"add {name} after {u.name}"])
    new = body + [""] * u.siblings_gap + [lines[u.start]]
    return Edit(["add_def"], [(u.start, u.start + 1, new)], [f"add {name} before {u.name}"])


def delete_def(src: Source, rng: random.Random) -> Edit | None:
    lines = src.lines
    last = max(r for r, x in enumerate(lines) if x.strip())
    us = units(src)
    cands = [u for u in us if u.function and u.end < last - 1 and u.start > 0 and u.end - u.start < 80
             and lines[u.start - 1].strip() == ""]
    if not cands or len(us) < 2:
        return None
    u = rng.choice(cands)
    start = u.start
    while start > 0 and not lines[start - 1].strip():
        start -= 1
    if start == 0:
        return None
    return Edit(["delete_def"], [(start, u.end + 1, [])], [f"delete {u.name}"])


def _add_argument(line: str, name: str, arg: str, header: bool) -> str | None:
    m = re.search(rf"(?<![\w$]){re.escape(name)}\s*(?:<[^()]*>)?\(", line)
    if m is None:
        return None
    close = _matching_paren(line, m.end() - 1)
    if close is None:
        return None
    inside = line[m.end(): close].strip()
    if header and inside.endswith(","):
        return None
    sep = ", " if inside else ""
    return line[:close] + sep + arg + line[close:]


def change_sig(src: Source, rng: random.Random) -> Edit | None:
    lines, lang = src.lines, src.language
    cands = []
    for u in units(src):
        if not u.function or len(u.name) < 3:
            continue
        calls = [r for r, x in enumerate(lines) if r != u.header and not _is_comment_line(x)
                 and re.search(rf"(?<![\w$]){re.escape(u.name)}\(", x)
                 and not (u.start <= r <= u.end and r == u.header)]
        if calls:
            cands.append((u, calls))
    if not cands:
        return None
    u, calls = rng.choice(cands)
    w = rng.choice(WORDS)
    param = {"python": f"{w}=None", "javascript": w, "typescript": f"{w}?: boolean",
             "go": f"{w} bool", "rust": f"{w}: bool"}[lang]
    arg = {"python": f"{w}=True", "go": "true", "rust": "true"}.get(lang, "true")
    head = _add_argument(lines[u.header], u.name, param, header=True)
    if lang == "go" and head is not None and re.match(r"\s*func\s*\(", lines[u.header]):
        head = None  # a method: the receiver's parens come first; keep it simple
    if head is None:
        return None
    reps = [(u.header, u.header + 1, [head])]
    for r in calls[:4]:
        new = _add_argument(lines[r], u.name, arg, header=False)
        if new is None or new == lines[r]:
            return None
        reps.append((r, r + 1, [new]))
    reps.sort()
    return Edit(["change_sig"], reps, [f"add parameter {w} to {u.name} and {len(reps) - 1} call(s)"])


def multi(src: Source, rng: random.Random) -> Edit | None:
    kinds = rng.sample(["change_stmt", "insert_stmt", "add_def", "delete_def", "change_sig"], rng.choice((2, 2, 3)))
    edit = Edit([], [], [])
    for kind in kinds:
        for _ in range(6):
            e = MUTATORS[kind](src, rng)
            if e is None:
                continue
            taken = [(a - 2, max(b, a + 1) + 2) for a, b, _ in edit.reps]
            if any(a < hi and lo < max(b, a + 1) for a, b, _ in e.reps for lo, hi in taken):
                continue  # overlaps or touches an earlier part
            edit.kinds.append(kind)
            edit.reps = sorted(edit.reps + e.reps, key=lambda r: (r[0], r[1]))
            edit.detail += e.detail
            break
    return edit if len(edit.kinds) >= 2 else None


MUTATORS: dict[str, Callable[[Source, random.Random], Edit | None]] = {
    "change_stmt": change_stmt, "insert_stmt": insert_stmt, "add_def": add_def, "delete_def": delete_def,
    "change_sig": change_sig, "multi": multi,
}


def apply(lines: list[str], reps: list[tuple[int, int, list[str]]]) -> tuple[list[str], list[tuple[int, int]]]:
    """The new lines and each replacement's range in them."""
    out, where, pos = [], [], 0
    for a, b, new in reps:
        out += lines[pos:a]
        where.append((len(out), len(out) + len(new)))
        out += new
        pos = b
    out += lines[pos:]
    return out, where


# ---------------------------------------------------------------- snippets

CLEAN_WORDING = "... existing code ..."
MESSY_WORDINGS = ("...", "... existing code ...", "... rest of the code ...", "existing code...",
                  "... keep existing code ...", "… existing code …", "... unchanged ...", "rest of the file unchanged",
                  "... other methods ...", "... rest of function ...", "(existing code)", "... existing code")


@dataclass(frozen=True)
class Style:
    context: int = 2
    whole_function: bool = False
    body_marker: bool = False
    wording: str = CLEAN_WORDING
    block_comment: bool = False
    marker_indent: str = "code"  # code | zero | prev | next
    drop_leading: bool = False
    drop_trailing: bool = False

    def tags(self) -> tuple[str, ...]:
        t = []
        if self.context != 2:
            t.append(f"context-{self.context}")
        if self.whole_function:
            t.append("whole-function")
        if self.body_marker:
            t.append("marker-in-body")
        if self.wording != CLEAN_WORDING:
            t.append("wording")
        if self.block_comment:
            t.append("block-comment")
        if self.marker_indent != "code":
            t.append(f"marker-indent-{self.marker_indent}")
        if self.drop_leading:
            t.append("no-leading-marker")
        if self.drop_trailing:
            t.append("no-trailing-marker")
        return tuple(t)


def messy_style(rng: random.Random, language: str) -> Style:
    whole = rng.random() < 0.3
    body = not whole and rng.random() < 0.3
    context = rng.choice((0, 1, 2)) if whole else rng.choice((1, 1, 2))
    wording = rng.choice(MESSY_WORDINGS)
    block = language != "python" and rng.random() < 0.25
    indent = rng.choice(("code", "code", "zero", "zero", "prev", "next"))
    trailing = rng.random() < 0.35
    leading = rng.random() < 0.12
    return Style(context, whole, body, wording, block, indent, leading, trailing)


def _enclosing(fns: list[Func], a: int, b: int) -> Func | None:
    inside = [f for f in fns if f.header <= a and max(a, b - 1) <= f.end]
    return min(inside, key=lambda f: f.end - f.header) if inside else None


def render(language: str, new: list[str], where: list[tuple[int, int]], style: Style,
           fns: list[Func] | None = None) -> list[str]:
    """The snippet for a change whose new lines sit at `where` in `new`."""
    shown: set[int] = set()
    for a, b in where:
        shown.update(range(a, b))
        context = style.context if b > a else max(1, style.context)  # a deletion shows its edges
        for step, start in ((-1, a - 1), (1, b)):
            k, seen = start, 0
            while 0 <= k < len(new) and seen < context:
                shown.add(k)
                seen += bool(new[k].strip())
                k += step
        if (style.whole_function or style.body_marker) and fns is not None:
            f = _enclosing(fns, a, b)
            if f is not None and f.end - f.header <= 80:
                if style.whole_function:
                    shown.update(range(f.header, f.end + 1))
                else:
                    shown.add(f.header)
                    if language != "python":
                        shown.add(f.end)
    rows = sorted(shown)
    out: list[str] = []
    prev = -1

    def marker(lo: int, hi: int, last_shown: int | None, next_shown: int | None) -> str:
        elided = [x for x in new[lo:hi] if x.strip()]
        if style.marker_indent == "zero":
            ind = ""
        elif style.marker_indent == "prev" and last_shown is not None:
            ind = _indent_of(new[last_shown])
        elif style.marker_indent == "next" and next_shown is not None:
            ind = _indent_of(new[next_shown])
        else:
            ind = min((_indent_of(x) for x in elided), key=lambda s: len(s.expandtabs(4)))
        text = style.wording
        if style.block_comment:
            return f"{ind}/* {text} */"
        return f"{ind}{_comment(language)} {text}"

    def gap(lo: int, hi: int, last_shown: int | None, next_shown: int | None) -> None:
        if any(x.strip() for x in new[lo:hi]):
            out.append(marker(lo, hi, last_shown, next_shown))
        else:
            out.extend(new[lo:hi])

    for r in rows:
        if r > prev + 1:
            if prev == -1 and style.drop_leading:
                pass
            else:
                gap(prev + 1, r, prev if prev >= 0 else None, r)
        out.append(new[r])
        prev = r
    if prev + 1 < len(new) and not style.drop_trailing:
        gap(prev + 1, len(new), prev, None)
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return out


# ---------------------------------------------------------------- cases


def _clean_is_unambiguous(old: list[str], new: list[str], where: list[tuple[int, int]]) -> bool:
    """Each change's two non-blank context lines above, or those below, occur as a block (blank
    lines ignored) once in the original: otherwise even a careful reader could not place it."""
    keys = [k for k in (" ".join(x.split()) for x in old) if k]
    text = "\n" + "\n".join(keys) + "\n"

    def unique(rows: list[int]) -> bool:
        block = "\n".join(" ".join(new[r].split()) for r in sorted(rows))
        return bool(rows) and text.count("\n" + block + "\n") == 1

    for a, b in where:
        above = [k for k in range(a - 1, -1, -1) if new[k].strip()][:2]
        below = [k for k in range(b, len(new)) if new[k].strip()][:2]
        if not (unique(above) or unique(below) or (not above and unique(below)) or (not below and unique(above))):
            return False
    return True


def edits_for(src: Source, seed: int, count: int = EDITS_PER_FILE) -> list[tuple[Edit, random.Random]]:
    rng = random.Random(f"{seed}:{src.path.as_posix()}")
    order = list(KINDS)
    rng.shuffle(order)
    found: list[tuple[Edit, random.Random]] = []
    lines = src.lines
    for k in range(count):
        for attempt in range(40):
            kind = order[(k + attempt) % len(order)] if attempt < 12 else rng.choice(KINDS)
            erng = random.Random(f"{seed}:{src.path.as_posix()}:{k}:{attempt}")
            edit = MUTATORS[kind](src, erng)
            if edit is None or not edit.reps:
                continue
            new, where = apply(lines, edit.reps)
            after = "\n".join(new) + "\n"
            if after == src.text or not parses(src.text, after, src.language):
                continue
            if not _clean_is_unambiguous(lines, new, where):
                continue
            if any(e.reps == edit.reps for e, _ in found):
                continue
            found.append((edit, erng))
            break
    return found


def cases_for(src: Source, seed: int = SEED) -> list[Case]:
    out = []
    package = src.path.parts[1].rsplit("-", 1)[0] if len(src.path.parts) > 2 else ""
    stem = re.sub(r"[^a-z0-9]+", "_", f"{package}_{src.path.with_suffix('').name}".lower()).strip("_")
    for n, (edit, erng) in enumerate(edits_for(src, seed)):
        lines = src.lines
        new, where = apply(lines, edit.reps)
        after = "\n".join(new) + "\n"
        fns = functions(Source(src.language, src.path, after))
        clean = render(src.language, new, where, Style(), fns)
        styles = [("clean", Style())]
        for _ in range(8):
            s = messy_style(erng, src.language)
            if render(src.language, new, where, s, fns) != clean:
                styles.append(("messy", s))
                break
        for style_name, style in styles:
            snippet = "\n".join(render(src.language, new, where, style, fns)) + "\n"
            name = f"{PREFIX[src.language]}_{stem}_{n}_{style_name}_snippet"
            out.append(Case(name, src.language, src.path.as_posix(), style_name, tuple(edit.kinds),
                            style.tags(), seed, "; ".join(edit.detail), src.text, snippet, after, src.path.suffix))
    return out


def corpus(seed: int = SEED, root: Path = SOURCES) -> list[Case]:
    """Every case for every source, in a fixed order."""
    return [c for src in sources(root) for c in cases_for(src, seed)]


def sample(cases: list[Case], edits_per_language: int = 6) -> list[Case]:
    """A balanced subset: per language, edits taken with both their clean and messy snippet, small
    files first, one source file each where possible, the edit kinds in turn."""
    picked: list[Case] = []
    for language in PREFIX:
        pairs: dict[str, list[Case]] = {}
        for c in cases:
            if c.language == language:
                pairs.setdefault(c.name.removesuffix(f"_{c.style}_snippet"), []).append(c)
        full = sorted((p for p in pairs.values() if len(p) == 2),
                      key=lambda p: (p[0].before.count("\n") > 260, p[0].name))
        by_kind: dict[str, list[list[Case]]] = {}
        for p in full:
            by_kind.setdefault("multi" if len(p[0].kinds) > 1 else p[0].kinds[0], []).append(p)
        chosen: list[list[Case]] = []
        used: set[str] = set()
        while len(chosen) < edits_per_language and any(by_kind.values()):
            for kind in KINDS:
                queue = by_kind.get(kind, [])
                if not queue or len(chosen) >= edits_per_language:
                    continue
                k = next((i for i, p in enumerate(queue) if p[0].source not in used), 0)
                p = queue.pop(k)
                chosen.append(p)
                used.add(p[0].source)
        picked += [c for p in chosen for c in p]
    return picked


def _toml_list(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(f'"{x}"' for x in items) + "]"


def write(case: Case, root: Path) -> Path:
    d = root / case.name
    d.mkdir(parents=True, exist_ok=True)
    (d / f"before{case.ext}").write_text(case.before, encoding="utf-8", newline="")
    (d / f"after{case.ext}").write_text(case.after, encoding="utf-8", newline="")
    (d / "edit.txt").write_text(case.snippet, encoding="utf-8", newline="")
    why = f"Generated ({case.style} snippet): {case.detail}."
    (d / "case.toml").write_text(
        f'why = "{why}"\nkind = "snippet"\nlanguage = "{case.language}"\nbench = false\nknown_failure = false\n'
        f"tags = []\nstyle = \"{case.style}\"\nmutations = {_toml_list(case.kinds)}\n"
        f"messy = {_toml_list(case.messy)}\nsource = \"{case.source}\"\nseed = {case.seed}\n",
        encoding="utf-8")
    return d


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--sample", action="store_true", help="write only the balanced frozen sample")
    args = p.parse_args(argv)
    cases = corpus(args.seed)
    if args.sample:
        cases = sample(cases)
    if args.out.exists():
        for d in args.out.iterdir():
            if d.is_dir() and (d / "case.toml").is_file():
                shutil.rmtree(d)
    for c in cases:
        write(c, args.out)
    langs = sorted({c.language for c in cases})
    print(f"{len(cases)} cases in {args.out} ({', '.join(langs)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
