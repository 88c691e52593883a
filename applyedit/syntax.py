"""Syntax trees for source text: the one module that calls tree-sitter.

Owns the parsers (one per language, cached), error detection (does the text still parse?),
definition spans (classes, functions, methods, ... with their nesting, 1-based line ranges and the
lines of their bodies between header and closer),
found by walking a table of node types per language, the definitions around each line, the keys a
config file's mapping holds twice (JSON, TOML, YAML), the names a file's top-level imports bind (and
whether one name comes from two modules), and the lines of code a block comment holds; also the one
whole-word pattern per name (`named`). Knows nothing of tokens, the model or diffs.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
from dataclasses import dataclass

import tree_sitter

from applyedit.languages import ALIASES, GRAMMARS

__all__ = [
    "LANGUAGES",
    "Definition",
    "definitions",
    "enclosing_each",
    "import_conflicts",
    "imported_names",
    "imports_only",
    "without_imports",
    "in_string",
    "label",
    "parse_errors",
    "supported",
]

LANGUAGES: frozenset[str] = frozenset(GRAMMARS)  # the names with a grammar (languages.py)


def _table(spec: str) -> dict[str, tuple[str, str]]:
    """`node_type=kind[/keyword] ...` -> {node_type: (kind, keyword)}; the keyword defaults to kind."""
    pairs = (item.split("=") for item in spec.split())
    return {node: (kind.partition("/")[0], kind.partition("/")[2] or kind) for node, kind in pairs}


# Per family: node type -> (kind, keyword shown in labels). The name comes from the node's `name`
# field, else from its C declarator; `_describe` handles the types whose name lies elsewhere.
_JS = _table(
    "class_declaration=class function_declaration=function method_definition=method "
    "generator_function_declaration=function variable_declarator=function "
    "field_definition=method"
)
_TS = _JS | _table(
    "abstract_class_declaration=class interface_declaration=interface "
    "enum_declaration=enum type_alias_declaration=type internal_module=namespace "
    "module=module public_field_definition=method"
)
_C = _table(
    "function_definition=function struct_specifier=struct union_specifier=union "
    "enum_specifier=enum type_definition=struct"
)
_JAVA = _table(
    "class_declaration=class interface_declaration=interface enum_declaration=enum "
    "record_declaration=record annotation_type_declaration=annotation/@interface "
    "method_declaration=method constructor_declaration=constructor"
)
_TABLES: dict[str, dict[str, tuple[str, str]]] = {
    "python": _table("function_definition=function/def class_definition=class"),
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "java": _JAVA,
    "c": _C,
    "cpp": _C | _table("class_specifier=class namespace_definition=namespace"),
    "go": _table("function_declaration=function/func method_declaration=method/func type_spec=type"),
    "rust": _table(
        "function_item=function/fn struct_item=struct enum_item=enum union_item=union "
        "trait_item=trait impl_item=impl mod_item=module/mod "
        "macro_definition=macro/macro_rules!"
    ),
    "csharp": _JAVA
    | _table("struct_declaration=struct namespace_declaration=namespace file_scoped_namespace_declaration=namespace"),
    "ruby": _table("class=class module=module method=function/def singleton_method=function/def"),
    "bash": _table("function_definition=function"),
    "markdown": _table("section=section/#"),
}
_JS_FAMILY = ("javascript", "typescript", "tsx")
_WRAPPERS = {  # a definition's span grows to these parents when it is their only child of its type
    "python": {"decorated_definition"},
    "go": {"type_declaration"},
    "cpp": {"template_declaration"},
    **dict.fromkeys(_JS_FAMILY, {"export_statement", "lexical_declaration", "variable_declaration"}),
}
_PRECEDING = {"rust": {"attribute_item"}, **dict.fromkeys(_JS_FAMILY, {"decorator"})}  # siblings ahead
_NEEDS_BODY = {"class_specifier", "struct_specifier", "union_specifier", "enum_specifier", "mod_item"}
_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}
_CONTAINERS = {"class", "struct", "impl", "trait", "interface", "enum", "record", "union"}
_parsers: dict[str, tree_sitter.Parser | None] = {}
_Path = str | os.PathLike[str] | None  # a file name hint: ".tsx" selects the TSX grammar


@dataclass(frozen=True, slots=True)
class Definition:
    """One definition: what it is, its name, its 1-based inclusive line span, the one enclosing it."""

    kind: str  # "class", "function", "method", "struct", "impl", "interface", "enum", "trait", ...
    name: str
    start_line: int  # includes decorators, attributes, `export` and `template <...>` prefixes
    end_line: int
    parent: Definition | None = None
    keyword: str = ""  # the language's word for it in labels ("def", "fn", "func (T)"); kind if empty
    # the lines between its header and its closer (1-based, inclusive), when its body stands on lines of its
    # own: after `{` (or `:`, or a Ruby header) that ends a line, up to a `}` (`end`) that starts one (or
    # the definition's last line where no closer is written: Python, a brace the text never closes)
    body: tuple[int, int] | None = None


def _canonical(language: str, path: _Path = None) -> str:
    name = ALIASES.get(language.lower(), language.lower())
    if name == "typescript" and path is not None and os.fspath(path).lower().endswith(".tsx"):
        return "tsx"
    return name


def _parser(name: str) -> tree_sitter.Parser | None:
    if name in GRAMMARS and name not in _parsers:
        module, function = GRAMMARS[name]
        try:
            grammar = getattr(importlib.import_module(module), function)()
            _parsers[name] = tree_sitter.Parser(tree_sitter.Language(grammar))
        except (ImportError, ValueError):  # package missing, or a grammar ABI this binding rejects
            _parsers[name] = None
    return _parsers.get(name)


def supported(language: str) -> bool:
    """Whether `language` (a name from the languages table, or an alias) has a usable grammar."""
    return _parser(_canonical(language)) is not None


def _tree(text: str, language: str, path: _Path) -> tuple[tree_sitter.Tree, str] | None:
    """The tree and the grammar used; TypeScript without a path falls back to TSX if only that parses.
    The last texts' trees are kept: the checks and the merge's readings parse one text several times."""
    return _parsed(text, _canonical(language, path), path is None)


@functools.lru_cache(maxsize=4)
def _parsed(text: str, name: str, pathless: bool) -> tuple[tree_sitter.Tree, str] | None:
    parser = _parser(name)
    if parser is None:
        return None
    data = text.encode("utf-8", "replace")
    tree = parser.parse(data)
    tsx = _parser("tsx") if name == "typescript" and pathless and tree.root_node.has_error else None
    if tsx is not None and not (alternative := tsx.parse(data)).root_node.has_error:
        return alternative, "tsx"
    return tree, name


def parse_errors(text: str, language: str, path: _Path = None) -> list[int] | None:
    """1-based lines holding ERROR or MISSING nodes ([] when the text parses); None without a grammar."""
    parsed = _tree(text, language, path)
    if parsed is None:
        return None
    last = max(1, text.count("\n") + (not text.endswith("\n")))  # a MISSING node at EOF: the last line
    lines: set[int] = set()
    stack = [parsed[0].root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            lines.add(min(node.start_point.row + 1, last))
        stack.extend(child for child in node.children if child.has_error or child.is_missing)
    return sorted(lines)


def in_string(text: str, lines: list[int], language: str, path: _Path = None) -> set[int]:
    """Those of the 1-based `lines` whose first non-blank character lies inside a string literal
    (a docstring, a template, a heredoc): text, not a comment. Empty without a grammar."""
    parsed = _tree(text, language, path) if lines else None
    if parsed is None:
        return set()
    rows = text.split("\n")
    found = set()
    for line in lines:
        row = rows[line - 1] if 0 < line <= len(rows) else ""
        column = len(row[: len(row) - len(row.lstrip())].encode("utf-8", "replace"))
        node: tree_sitter.Node | None = parsed[0].root_node.descendant_for_point_range(
            (line - 1, column), (line - 1, column)
        )
        while node is not None and not _STRINGY.search(node.type):
            node = node.parent
        if node is not None and node.start_point < (line - 1, column):
            found.add(line)
    return found


_STRINGY = re.compile(r"string|heredoc|text_block")


def new_errors(before: str, after: str, language: str, path: _Path = None) -> list[int] | None:
    """Lines of `after` with parse errors when `before` parsed cleanly ([] when `after` parses too).

    None when the check cannot say anything: no grammar, or the original did not parse either.
    """
    if parse_errors(before, language, path) != []:
        return None
    return parse_errors(after, language, path)


def _text(node: tree_sitter.Node | None) -> str:
    return " ".join((node.text or b"").decode("utf-8", "replace").split()) if node is not None else ""


def _type(node: tree_sitter.Node | None) -> str:
    return node.type if node is not None else ""


def _declarator_name(node: tree_sitter.Node | None) -> str:
    while node is not None and node.type.endswith("declarator"):  # int *(*f)(void) -> f
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else (node.named_children[0] if node.named_children else None)
    return _text(node)


def _describe(node: tree_sitter.Node, grammar: str) -> tuple[str, str, str] | None:
    """(kind, keyword, name) when `node` is a definition in `grammar`, else None."""
    entry = _TABLES.get(grammar, {}).get(node.type)
    if entry is None or (node.type in _NEEDS_BODY and node.child_by_field_name("body") is None):
        return None
    kind, keyword = entry
    field = node.child_by_field_name
    name = _text(field("name")) or _declarator_name(field("declarator"))
    if node.type in ("variable_declarator", "field_definition", "public_field_definition"):
        if _type(field("value")) not in _FUNCTION_VALUES:  # `const f = () => ...`, not `const n = 1`
            return None
        name = name or _text(field("property"))
    elif node.type == "type_definition":  # typedef struct { ... } Name;
        inner = field("type")
        body = inner.child_by_field_name("body") if inner is not None else None
        if inner is None or body is None or inner.child_by_field_name("name") is not None:
            return None  # not a struct/union/enum body, or a named one: found on its own
        kind = keyword = inner.type.removesuffix("_specifier")
    elif node.type == "type_spec":  # Go
        kind = {"struct_type": "struct", "interface_type": "interface"}.get(_type(field("type")), kind)
    elif node.type == "method_declaration" and grammar == "go":
        receivers = receiver.named_children if (receiver := field("receiver")) is not None else []
        receiver_type = receivers[0].child_by_field_name("type") if receivers else None
        keyword = f"func ({_text(receiver_type).lstrip('*')})"  # func (s *Server) Start: func (Server)
    elif node.type == "impl_item":
        trait, target = _text(field("trait")), _text(field("type"))
        name = f"{trait} for {target}" if trait else target
    elif node.type == "section":  # Markdown: a heading and what follows, up to the next of its level
        heading = node.named_children[0] if node.named_children else None
        if heading is None or not heading.type.endswith("_heading"):  # the preamble before any heading
            return None
        types = " ".join(c.type for c in heading.named_children)  # "atx_h2_marker inline", ...
        level = next((n for n in range(1, 7) if f"_h{n}_" in types), 1)  # setext_h1_underline too
        keyword, name = "#" * level, _text(heading.child_by_field_name("heading_content"))
    return (kind, keyword, name) if name else None


def _span(node: tree_sitter.Node, grammar: str) -> tuple[int, int]:
    outer = node
    while (
        (parent := outer.parent) is not None
        and parent.type in _WRAPPERS.get(grammar, ())
        and sum(child.type == outer.type for child in parent.named_children) == 1
    ):
        outer = parent
    first = outer
    ahead = _PRECEDING.get(grammar, set())
    while (before := first.prev_named_sibling) is not None and before.type in ahead:
        first = before
    end = outer.end_point  # a node ending at column 0 ends on the line before (its newline is included)
    return first.start_point.row + 1, max(first.start_point.row + 1, end.row + (1 if end.column else 0))


def _body(node: tree_sitter.Node, last_line: int) -> tuple[int, int] | None:
    """A definition's body lines (Definition.body): its block is its last child, or its value's or type's
    (`const f = () => {...}`, Go's `type T struct {...}`), delimited by braces, a Python `:`, or Ruby's `end`."""
    block = node.child_by_field_name("body")
    for field in ("value", "type"):
        inner = node.child_by_field_name(field)
        if block is None and inner is not None:
            block = inner.child_by_field_name("body") or (inner.children[-1] if inner.children else None)
    if node.children and node.children[-1].type == "end":  # Ruby: the header's line, then `end`
        first, closer = node.start_point.row + 2, node.children[-1]
        return (
            (first, closer.start_point.row)
            if first <= closer.start_point.row and closer.start_point.column == _indent(closer)
            else None
        )
    if block is None or not block.children:
        return None
    opener, closer = block.children[0], block.children[-1]
    if opener.type == "{":
        first = opener.end_point.row + 2
        if _rest_of_line_blank(opener) and closer.type == "}" and not closer.is_missing:
            return (first, closer.start_point.row) if closer.start_point.column == _indent(closer) else None
        return (first, last_line) if _rest_of_line_blank(opener) and first <= last_line else None
    colon = next((c for c in reversed(node.children) if c.type == ":" and c.end_byte <= block.start_byte), None)
    if colon is not None and colon.end_point.row < block.end_point.row:
        return (colon.end_point.row + 2, last_line) if colon.end_point.row + 2 <= last_line else None
    return None


def _indent(node: tree_sitter.Node) -> int:
    """The column of the first non-blank character of the line `node` starts on."""
    line = _line_of(node)
    return len(line) - len(line.lstrip())


def _line_of(node: tree_sitter.Node) -> str:
    text = node.text or b""  # only the node's own bytes: walk to the root for its line
    root = node
    while root.parent is not None:
        root = root.parent
    whole = root.text or text
    start = whole.rfind(b"\n", 0, node.start_byte) + 1
    end = whole.find(b"\n", node.start_byte)
    return whole[start : end if end >= 0 else len(whole)].decode("utf-8", "replace")


def _rest_of_line_blank(node: tree_sitter.Node) -> bool:
    line = _line_of(node).encode("utf-8", "replace")
    column = node.end_point.column
    rest = line[column:].decode("utf-8", "replace").strip()
    return rest == "" or rest.startswith(("//", "/*", "#"))


def definitions(text: str, language: str, path: _Path = None) -> list[Definition] | None:
    """Every definition, nested ones included, in source order (parents first); None if no grammar."""
    found = _definitions(text, _canonical(language, path), path is None)
    return None if found is None else list(found)


@functools.lru_cache(maxsize=4)
def _definitions(text: str, name: str, pathless: bool) -> tuple[Definition, ...] | None:
    parsed = _parsed(text, name, pathless)
    if parsed is None:
        return None
    tree, grammar = parsed
    found: list[Definition] = []
    stack: list[tuple[tree_sitter.Node, Definition | None]] = [(tree.root_node, None)]
    while stack:
        node, parent = stack.pop()
        described = _describe(node, grammar)
        if described is not None:
            kind, keyword, name = described
            if kind == "function" and parent is not None and parent.kind in _CONTAINERS:
                kind = "method"
            span = _span(node, grammar)
            parent = Definition(kind, name, *span, parent, keyword, _body(node, span[1]))
            found.append(parent)
        stack.extend((child, parent) for child in reversed(node.named_children))
    return tuple(found)


# A config language's mappings (node types) and their entries (node types), each entry named by its first
# named child: a JSON object's pairs, a TOML table's pairs and the document's tables (not `[[x]]`, an array
# of tables whose name repeats by design), a YAML mapping's pairs.
_MAPPINGS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "json": (frozenset({"object"}), frozenset({"pair"})),
    "toml": (frozenset({"document", "table", "table_array_element", "inline_table"}), frozenset({"pair", "table"})),
    "yaml": (frozenset({"block_mapping", "flow_mapping"}), frozenset({"block_mapping_pair", "flow_pair"})),
}


def keys_twice(text: str, language: str, path: _Path = None) -> list[str]:
    """The keys a config file (JSON, TOML, YAML) holds twice in one mapping, each named by its path
    (`server.port`), in source order; [] for any other language or without a grammar."""
    grammar = _canonical(language, path)
    parsed = _tree(text, language, path)
    if grammar not in _MAPPINGS or parsed is None:
        return []
    mappings, entries = _MAPPINGS[grammar]
    found: list[str] = []
    stack: list[tuple[tree_sitter.Node, tuple[str, ...]]] = [(parsed[0].root_node, ())]
    while stack:
        node, above = stack.pop()
        seen: set[str] = set()
        for child in node.children if node.type in mappings else ():
            name = _key_name(child, entries)
            if name is None:
                continue
            if name in seen:
                found.append(".".join((*above, name)))
            seen.add(name)
        for child in reversed(node.named_children):
            name = _key_name(child, entries)
            stack.append((child, (*above, name) if name else above))
    return found


def _key_name(node: tree_sitter.Node, entries: frozenset[str]) -> str | None:
    """A mapping entry's key as written, quotes aside; None for a node that is no entry."""
    if node.type not in entries or not node.named_children:
        return None
    return (node.named_children[0].text or b"").decode("utf-8", "replace").strip().strip("\"'")


def enclosing_each(defs: list[Definition], count: int) -> list[tuple[Definition, ...]]:
    """The definitions around each of lines 1..`count`, outermost first (() at top level), as a list
    (0-based), in one pass over the definitions."""
    inner: list[Definition | None] = [None] * count
    for d in defs:  # source order, parents first: an inner definition's lines overwrite its parent's
        inner[max(d.start_line - 1, 0) : min(d.end_line, count)] = [d] * (
            min(d.end_line, count) - max(d.start_line - 1, 0)
        )
    chains: dict[int, tuple[Definition, ...]] = {}

    def chain(d: Definition | None) -> tuple[Definition, ...]:
        if d is None:
            return ()
        if id(d) not in chains:
            chains[id(d)] = (*chain(d.parent), d)
        return chains[id(d)]

    return [chain(d) for d in inner]


@functools.lru_cache(maxsize=8192)
def named(name: str) -> re.Pattern[str]:
    """A pattern finding `name` as a whole word: no word character right before or after it."""
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")


def label(chain: tuple[Definition, ...]) -> str:
    """`class Rule › def __init__`, `impl Parser › fn parse`, `func main`; "" for top level."""
    return " › ".join(f"{d.keyword or d.kind} {d.name}" for d in chain)


def imported_names(text: str, language: str, path: _Path = None) -> list[tuple[str, str]] | None:
    """The names the file's top-level imports bind with the module each comes from, once per binding (a name
    bound twice is listed twice):
    JavaScript and TypeScript `import` (default, named, namespace, `import x = require(...)`), Rust `use`
    (the last segment or its alias; `self` binds the module's name; globs bind no name), Python `import x`,
    `import x.y as z`, `from m import a, b as c`, `from __future__ import f` (a dotted `import x.y` binds
    `x` for every submodule alike, and is left out). Only statements at the file's top level: a nested
    `mod`, a `try` or an `if` is another scope or a fallback. [] for other languages; None without a grammar."""
    parsed = _tree(text, language, path)
    if parsed is None:
        return None
    tree, grammar = parsed
    found: list[tuple[str, str]] = []
    for node in tree.root_node.named_children:
        if grammar in _JS_FAMILY and node.type == "import_statement":
            source = node.child_by_field_name("source")
            found += [(name, _text(source)) for name in _js_bound(node)]
        elif grammar == "rust" and node.type == "use_declaration":
            if (before := node.prev_named_sibling) is not None and before.type == "attribute_item":
                continue  # `#[cfg(...)]`: one of several alternatives
            argument = node.child_by_field_name("argument")
            found += [(name, _text(argument)) for name in (_rust_bound(argument) if argument is not None else [])]
        elif grammar == "python" and node.type in ("import_statement", "import_from_statement"):
            module = node.child_by_field_name("module_name")
            found += [(name, _text(module)) for name in _python_bound(node)]
        elif grammar == "python" and node.type == "future_import_statement":
            found += [(_text(name), "__future__") for name in node.children_by_field_name("name")]
    return found


_IMPORT_NODES = {"import_statement", "import_from_statement", "future_import_statement", "use_declaration"}


def imports_only(text: str, language: str, path: _Path = None) -> bool:
    """Whether `text` parses with no error as import statements and nothing else (comments aside):
    JavaScript and TypeScript `import`, Rust `use`, Python `import` and `from ... import`, and in Python an
    `if` or `try` whose every statement is an import (a version check choosing where a name comes from)."""
    parsed = _tree(text, language, path)
    if parsed is None or parsed[0].root_node.has_error:
        return False
    nodes = [n for n in parsed[0].root_node.named_children if not n.type.endswith("comment")]
    return bool(nodes) and all(_import_only(n) for n in nodes)


def _import_only(node: tree_sitter.Node) -> bool:
    if node.type in _IMPORT_NODES:
        return True
    if node.type not in ("if_statement", "try_statement"):
        return False
    statements = []
    stack = list(node.named_children)
    while stack:
        child = stack.pop()
        if child.type.endswith("statement"):
            statements.append(child)
        elif child.type in ("block", "else_clause", "elif_clause", "except_clause", "finally_clause"):
            stack.extend(child.named_children)
    return bool(statements) and all(s.type in _IMPORT_NODES for s in statements)


def without_imports(text: str, language: str, path: _Path = None) -> str:
    """`text` with its top-level import statements taken out (the rest: where an imported name is used)."""
    parsed = _tree(text, language, path)
    if parsed is None:
        return text
    data = text.encode("utf-8", "replace")
    cuts = [(n.start_byte, n.end_byte) for n in parsed[0].root_node.named_children if n.type in _IMPORT_NODES]
    for start, end in reversed(cuts):
        data = data[:start] + data[end:]
    return data.decode("utf-8", "replace")


def import_conflicts(text: str, language: str, path: _Path = None) -> int:
    """How many names the file's top-level imports bind from more than one module, in JavaScript and
    TypeScript (an early error there: a module's imports bind each name once; the same name imported
    twice from one module is left out, as in the release corpus's expected files). 0 for other languages:
    Python shadows an import with the next, and Rust paths alias one item (both occur in expected
    files)."""
    parsed = _tree(text, language, path)
    if parsed is None or parsed[1] not in _JS_FAMILY:
        return 0
    sources: dict[str, set[str]] = {}
    for name, source in imported_names(text, language, path) or []:
        sources.setdefault(name, set()).add(source)
    return sum(len(s) - 1 for s in sources.values())


def _js_bound(statement: tree_sitter.Node) -> list[str]:
    names = []
    for clause in statement.named_children:
        if clause.type == "import_require_clause" and clause.named_children:
            names.append(_text(clause.named_children[0]))
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier":  # the default import
                names.append(_text(part))
            elif part.type == "namespace_import":
                names += [_text(c) for c in part.named_children if c.type == "identifier"][-1:]
            elif part.type == "named_imports":
                for spec in part.named_children:
                    ids = [c for c in spec.named_children if c.type in ("identifier", "string")]
                    names += [_text(ids[-1])] if ids else []
    return names


def _rust_bound(node: tree_sitter.Node, prefix: str = "") -> list[str]:
    if node.type == "use_as_clause":
        alias = node.child_by_field_name("alias")
        return [_text(alias)] if alias is not None else []
    if node.type in ("identifier", "crate", "super"):
        return [_text(node)]
    if node.type == "self":
        return [prefix] if prefix else []
    if node.type == "scoped_identifier":
        name = node.child_by_field_name("name")
        return [_text(name)] if name is not None else []
    if node.type == "scoped_use_list":
        path, items = node.child_by_field_name("path"), node.child_by_field_name("list")
        last = _text(path).rpartition("::")[2] if path is not None else ""
        return _rust_bound(items, last) if items is not None else []
    if node.type == "use_list":
        return [n for child in node.named_children for n in _rust_bound(child, prefix)]
    return []  # a glob, or a form this reading does not know


def _python_bound(statement: tree_sitter.Node) -> list[str]:
    names = []
    module = statement.child_by_field_name("module_name")
    for part in statement.named_children:
        if part == module or (module is not None and part.start_byte == module.start_byte):
            continue
        if part.type == "aliased_import":
            alias = part.child_by_field_name("alias")
            names += [_text(alias)] if alias is not None else []
        elif part.type == "dotted_name" and "." not in _text(part):
            names.append(_text(part))
    return names


_COMMENT_LEAD = ("*", "//", "/*", "#", "--", "<!--")


def commented_code(text: str, language: str, path: _Path = None) -> list[int] | None:
    """0-based lines inside a block comment that spans lines, past its first line, that do not read as
    comment text (no leading `*`, `//`, `/*`, `#`): code a `/*` or `/**` put above it turned into a
    comment. [] with no such line; None without a grammar."""
    parsed = _tree(text, language, path)
    if parsed is None:
        return None
    lines = text.split("\n")
    found: list[int] = []
    stack = [parsed[0].root_node]
    while stack:
        node = stack.pop()
        if node.type.endswith("comment"):
            first, last = node.start_point.row, node.end_point.row
            found += [
                n
                for n in range(first + 1, last + 1)
                if n < len(lines) and lines[n].strip() and not lines[n].strip().startswith(_COMMENT_LEAD)
            ]
        else:
            stack.extend(node.children)
    return sorted(found)
