"""What a file's top-level imports bind: the names, with the module each comes from (`imported_names`),
whether one name is bound twice where the language refuses it (`import_conflicts`), whether a text is
imports and nothing else (`imports_only`), and a text with its imports taken out (`without_imports`).
Reads the trees syntax.py parses; knows nothing of the merge or the checks that ask.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING

from applyedit import syntax

if TYPE_CHECKING:
    import tree_sitter

__all__ = ["import_conflicts", "imported_names", "imports_only", "without_imports"]

_Path = str | os.PathLike[str] | None  # a file name hint, as syntax.parse takes it


def imported_names(text: str, language: str, path: _Path = None) -> list[tuple[str, str]] | None:
    """The names the file's top-level imports bind with the module each comes from, once per binding (a name
    bound twice is listed twice):
    JavaScript and TypeScript `import` (default, named, namespace, `import x = require(...)`), Rust `use`
    (the last segment or its alias; `self` binds the module's name; globs bind no name), Python `import x`,
    `import x.y as z`, `from m import a, b as c`, `from __future__ import f` (a dotted `import x.y` binds
    `x` for every submodule alike, and is left out). Only statements at the file's top level: a nested
    `mod`, a `try` or an `if` is another scope or a fallback. [] for other languages; None without a grammar."""
    parsed = syntax.parse(text, language, path)
    if parsed is None:
        return None
    tree, grammar = parsed
    found: list[tuple[str, str]] = []
    for node in tree.root_node.named_children:
        if grammar in syntax.JS_FAMILY and node.type == "import_statement":
            source = node.child_by_field_name("source")
            found += [(name, syntax.node_text(source)) for name in _js_bound(node)]
        elif grammar == "rust" and node.type == "use_declaration":
            if (before := node.prev_named_sibling) is not None and before.type == "attribute_item":
                continue  # `#[cfg(...)]`: one of several alternatives
            argument = node.child_by_field_name("argument")
            found += [
                (name, syntax.node_text(argument)) for name in (_rust_bound(argument) if argument is not None else [])
            ]
        elif grammar == "python" and node.type in ("import_statement", "import_from_statement"):
            module = node.child_by_field_name("module_name")
            found += [(name, syntax.node_text(module)) for name in _python_bound(node)]
        elif grammar == "python" and node.type == "future_import_statement":
            found += [(syntax.node_text(name), "__future__") for name in node.children_by_field_name("name")]
    return found


_IMPORT_NODES = {"import_statement", "import_from_statement", "future_import_statement", "use_declaration"}


def imports_only(text: str, language: str, path: _Path = None) -> bool:
    """Whether `text` parses with no error as import statements and nothing else (comments aside):
    JavaScript and TypeScript `import`, Rust `use`, Python `import` and `from ... import`, and in Python an
    `if` or `try` whose every statement is an import (a version check choosing where a name comes from)."""
    parsed = syntax.parse(text, language, path)
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
    parsed = syntax.parse(text, language, path)
    if parsed is None:
        return text
    data = text.encode("utf-8", "replace")
    cuts = [(n.start_byte, n.end_byte) for n in parsed[0].root_node.named_children if n.type in _IMPORT_NODES]
    for start, end in reversed(cuts):
        data = data[:start] + data[end:]
    return data.decode("utf-8", "replace")


def import_conflicts(text: str, language: str, path: _Path = None) -> int:
    """How many names the file's top-level imports bind twice, where the language makes that an error:
    in JavaScript and TypeScript a name bound from more than one module (an early error: a module's
    imports bind each name once; the same name imported twice from one module is left out, as in the
    release corpus's expected files); in Go a package imported twice under one name (`import "math"`
    beside an `import ( "math" )` block: "math redeclared"; a blank `_` import binds nothing, and two
    paths are told apart only where an alias names them alike). 0 for other languages: Python shadows
    an import with the next, and Rust paths alias one item (both occur in expected files)."""
    parsed = syntax.parse(text, language, path)
    if parsed is None:
        return 0
    if parsed[1] == "go":
        bound = Counter(_go_bound(parsed[0].root_node))
        return sum(n - 1 for n in bound.values())
    if parsed[1] not in syntax.JS_FAMILY:
        return 0
    sources: dict[str, set[str]] = {}
    for name, source in imported_names(text, language, path) or []:
        sources.setdefault(name, set()).add(source)
    return sum(len(s) - 1 for s in sources.values())


def _go_bound(root: tree_sitter.Node) -> list[str]:
    """What each top-level Go import spec binds: its alias where it has one (none for `_`), else its path."""
    specs = [
        spec
        for declaration in root.named_children
        if declaration.type == "import_declaration"
        for child in declaration.named_children
        for spec in (child.named_children if child.type == "import_spec_list" else [child])
        if spec.type == "import_spec"
    ]
    found = []
    for spec in specs:
        alias = spec.child_by_field_name("name")
        if alias is None or alias.type != "blank_identifier":
            found.append(
                syntax.node_text(alias) if alias is not None else syntax.node_text(spec.child_by_field_name("path"))
            )
    return found


def _js_bound(statement: tree_sitter.Node) -> list[str]:
    names = []
    for clause in statement.named_children:
        if clause.type == "import_require_clause" and clause.named_children:
            names.append(syntax.node_text(clause.named_children[0]))
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier":  # the default import
                names.append(syntax.node_text(part))
            elif part.type == "namespace_import":
                names += [syntax.node_text(c) for c in part.named_children if c.type == "identifier"][-1:]
            elif part.type == "named_imports":
                for spec in part.named_children:
                    ids = [c for c in spec.named_children if c.type in ("identifier", "string")]
                    names += [syntax.node_text(ids[-1])] if ids else []
    return names


def _rust_bound(node: tree_sitter.Node, prefix: str = "") -> list[str]:
    if node.type == "use_as_clause":
        alias = node.child_by_field_name("alias")
        return [syntax.node_text(alias)] if alias is not None else []
    if node.type in ("identifier", "crate", "super"):
        return [syntax.node_text(node)]
    if node.type == "self":
        return [prefix] if prefix else []
    if node.type == "scoped_identifier":
        name = node.child_by_field_name("name")
        return [syntax.node_text(name)] if name is not None else []
    if node.type == "scoped_use_list":
        path, items = node.child_by_field_name("path"), node.child_by_field_name("list")
        last = syntax.node_text(path).rpartition("::")[2] if path is not None else ""
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
            names += [syntax.node_text(alias)] if alias is not None else []
        elif part.type == "dotted_name" and "." not in syntax.node_text(part):
            names.append(syntax.node_text(part))
    return names
