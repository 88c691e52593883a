"""Syntax trees for source text: the one module that calls tree-sitter.

Owns the parsers (one per language, cached), error detection (does the text still parse?),
definition spans (classes, functions, methods, ... with their nesting, 1-based line ranges and the
lines of their bodies between header and closer),
found by walking a table of node types per language, the definitions around each line, the keys a
config file's mapping holds twice (JSON, TOML, YAML), and the lines of code a block comment holds; also
the one whole-word pattern per name (`named`). What a file's imports bind is imports.py's, reading the
trees `parse` gives. Knows nothing of tokens, the model or diffs.
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
    "CLASS_LIKE",
    "JS_FAMILY",
    "LANGUAGES",
    "Definition",
    "definitions",
    "enclosing_each",
    "in_string",
    "label",
    "node_text",
    "parse",
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
JS_FAMILY = ("javascript", "typescript", "tsx")
_WRAPPERS = {  # a definition's span grows to these parents when it is their only child of its type
    "python": {"decorated_definition"},
    "go": {"type_declaration"},
    "cpp": {"template_declaration"},
    **dict.fromkeys(JS_FAMILY, {"export_statement", "lexical_declaration", "variable_declaration"}),
}
_PRECEDING = {"rust": {"attribute_item"}, **dict.fromkeys(JS_FAMILY, {"decorator"})}  # siblings ahead
_NEEDS_BODY = {"class_specifier", "struct_specifier", "union_specifier", "enum_specifier", "mod_item"}
_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}
CLASS_LIKE = frozenset(  # the definitions whose functions are methods
    {"class", "struct", "impl", "trait", "interface", "enum", "record", "union"}
)
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


def parse(text: str, language: str, path: _Path = None) -> tuple[tree_sitter.Tree, str] | None:
    """The tree and the grammar used (None without a grammar); TypeScript without a path falls back to
    TSX if only that parses. The last texts' trees are kept: the checks and the merge's readings parse one
    text several times."""
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
    parsed = parse(text, language, path)
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
    parsed = parse(text, language, path) if lines else None
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


def node_text(node: tree_sitter.Node | None) -> str:
    return " ".join((node.text or b"").decode("utf-8", "replace").split()) if node is not None else ""


def _type(node: tree_sitter.Node | None) -> str:
    return node.type if node is not None else ""


def _declarator_name(node: tree_sitter.Node | None) -> str:
    while node is not None and node.type.endswith("declarator"):  # int *(*f)(void) -> f
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else (node.named_children[0] if node.named_children else None)
    return node_text(node)


def _describe(node: tree_sitter.Node, grammar: str) -> tuple[str, str, str] | None:
    """(kind, keyword, name) when `node` is a definition in `grammar`, else None."""
    entry = _TABLES.get(grammar, {}).get(node.type)
    if entry is None or (node.type in _NEEDS_BODY and node.child_by_field_name("body") is None):
        return None
    kind, keyword = entry
    field = node.child_by_field_name
    name = node_text(field("name")) or _declarator_name(field("declarator"))
    if node.type in ("variable_declarator", "field_definition", "public_field_definition"):
        if _type(field("value")) not in _FUNCTION_VALUES:  # `const f = () => ...`, not `const n = 1`
            return None
        name = name or node_text(field("property"))
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
        keyword = f"func ({node_text(receiver_type).lstrip('*')})"  # func (s *Server) Start: func (Server)
    elif node.type == "impl_item":
        trait, target = node_text(field("trait")), node_text(field("type"))
        name = f"{trait} for {target}" if trait else target
    elif node.type == "section":  # Markdown: a heading and what follows, up to the next of its level
        heading = node.named_children[0] if node.named_children else None
        if heading is None or not heading.type.endswith("_heading"):  # the preamble before any heading
            return None
        types = " ".join(c.type for c in heading.named_children)  # "atx_h2_marker inline", ...
        level = next((n for n in range(1, 7) if f"_h{n}_" in types), 1)  # setext_h1_underline too
        keyword, name = "#" * level, node_text(heading.child_by_field_name("heading_content"))
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
    root = node  # a node holds only its own bytes: walk to the root for its line
    while root.parent is not None:
        root = root.parent
    # the root's bytes start at its first token: its line's indentation (an indented snippet's) put back
    column = root.start_point.column
    whole, at = b" " * column + (root.text or b""), node.start_byte - root.start_byte + column
    start = whole.rfind(b"\n", 0, at) + 1
    end = whole.find(b"\n", at)
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
            if kind == "function" and parent is not None and parent.kind in CLASS_LIKE:
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
    parsed = parse(text, language, path)
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


_COMMENT_LEAD = ("*", "//", "/*", "#", "--", "<!--")


def commented_code(text: str, language: str, path: _Path = None) -> list[int] | None:
    """0-based lines inside a block comment that spans lines, past its first line, that do not read as
    comment text (no leading `*`, `//`, `/*`, `#`): code a `/*` or `/**` put above it turned into a
    comment. [] with no such line; None without a grammar."""
    parsed = parse(text, language, path)
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
