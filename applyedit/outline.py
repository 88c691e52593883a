"""A text's outline: its definitions (syntax.definitions) read as the structure of code: the members of
a scope, a definition's header and the lines attached above its name, its body, the definitions of a
fragment whose methods stand without their class, the closers that end a fragment of members, and
where the file defines a fragment's names more than once (`namesakes`, said in a refusal). Shared by the
structural reader (merge/structure.py), the invariants and api.py. Lines in, lines out; knows nothing of
snippets' readings, models or files.
"""

from __future__ import annotations

import dataclasses
import re

from applyedit import syntax
from applyedit.markers import is_marker
from applyedit.syntax import Definition

__all__ = [
    "around",
    "attached",
    "body",
    "closed_by",
    "closers",
    "fragment_definitions",
    "header",
    "indent",
    "lines",
    "lines_of",
    "members",
    "members_at",
    "namesakes",
    "named_header",
]

CLASS_BODIES = frozenset({"javascript", "typescript", "tsx", "java", "csharp", "cpp"})  # methods need a class
WRAPPER = "SnippetMembers"  # the class a fragment of members is read inside
_CLOSER = re.compile(r"\s*(\}[;,)]*|end)\s*$")  # a line that only closes a scope


def lines(text: str) -> list[str]:
    """The text's lines, a final newline ending the last (not starting one more)."""
    return text.removesuffix("\n").split("\n")


def indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def members(rows: list[str], definitions: list[Definition], parent: Definition | None) -> list[Definition]:
    """A scope's members: the definitions it encloses at the outermost indentation of those (a method of an
    object literal inside a statement is none of the file's members)."""
    inside = [d for d in definitions if d.parent is parent]
    depth = min((indent(rows[d.start_line - 1]) for d in inside), default=0)
    return [d for d in inside if indent(rows[d.start_line - 1]) == depth]


def _marker_body(rows: list[str], definition: Definition) -> Definition:
    """A Python definition whose body a fragment shows as markers alone (`def add(self, n: int):` over an
    indented `# ...`) parses as a header with no body: its body is the markers indented below it."""
    head = rows[definition.end_line - 1]
    if definition.body is not None or not head.rstrip().endswith(":"):
        return definition
    end = definition.end_line
    while end < len(rows) and (
        not rows[end].strip() or (indent(rows[end]) > indent(rows[definition.start_line - 1]) and is_marker(rows[end]))
    ):
        end += 1
    while end > definition.end_line and not rows[end - 1].strip():
        end -= 1
    if end == definition.end_line:
        return definition
    return dataclasses.replace(definition, end_line=end, body=(definition.end_line + 1, end))


def _header_rows(rows: list[str], definition: Definition) -> tuple[list[str], int]:
    """The definition's header lines (to its body, or its whole span where the body shares a line), and
    the index of the first that names it (past decorators, attributes, `inline`)."""
    end = max(definition.start_line, definition.body[0] - 1) if definition.body else definition.end_line
    header = rows[definition.start_line - 1 : end]
    name = syntax.named(definition.name)
    return header, next((n for n, x in enumerate(header) if name.search(x)), 0)


def _spaced(found: list[str]) -> str:
    return " ".join(" ".join(found).split())


def header(rows: list[str], definition: Definition) -> str:
    """The definition's header, its attached lines included, as one line of single spaces."""
    end = definition.body[0] - 1 if definition.body is not None else definition.start_line
    return _spaced(rows[definition.start_line - 1 : max(end, definition.start_line)])


def named_header(rows: list[str], definition: Definition) -> str:
    """The definition's header from the line that names it, as one line of single spaces."""
    found, named = _header_rows(rows, definition)
    return _spaced(found[named:])


def attached(rows: list[str], definition: Definition) -> list[str]:
    """The lines above the definition's name (decorators, attributes), stripped."""
    found, named = _header_rows(rows, definition)
    return [x.strip() for x in found[:named]]


def lines_of(rows: list[str], definitions: list[Definition]) -> set[str]:
    """The definitions' lines that say what they are: each one's header from its name, and its body."""
    return {x for d in definitions for x in (named_header(rows, d), *body(rows, d))}


def body(rows: list[str], definition: Definition) -> tuple[str, ...]:
    """The definition's lines indented deeper than its first, each as one line of single spaces."""
    span = rows[definition.start_line - 1 : definition.end_line]
    return tuple(_spaced([x]) for x in span if x.strip() and indent(x) > indent(span[0]))


def fragment_definitions(text: str, language: str, path: str | None) -> list[Definition] | None:
    """The definitions of a fragment of code (an update snippet); methods shown without their class
    (`add(n) {...}` alone, which parses as no method, or a constructor after a field, which parses as
    none) read inside a class the fragment leaves out, in the languages whose methods need one, where all
    its code is indented and the class finds a member more."""
    found = syntax.definitions(text, language, path)
    rows = lines(text)
    if found is not None and language == "python":
        found = [_marker_body(rows, d) for d in found]
    code = [indent(x) for x in rows if x.strip() and not is_marker(x)]
    if found is None or language not in CLASS_BODIES or not code or min(code) == 0:
        return found
    wrapped = syntax.definitions(f"class {WRAPPER} {{\n{text}\n}}\n", language, path) or []
    if members(rows, found, None) and len(wrapped) <= len(found) + 1:  # the class adds one: no member more
        return found
    outer = next((d for d in wrapped if d.parent is None and d.name == WRAPPER), None)
    shifted: dict[int, Definition] = {}
    for definition in wrapped:
        if definition is outer or definition.parent is None:
            continue
        end = min(definition.end_line - 1, len(rows))  # the class's closer may close a member left open
        inner = None if definition.body is None else (definition.body[0] - 1, min(definition.body[1] - 1, end))
        parent = None if definition.parent is outer else shifted.get(id(definition.parent))
        shifted[id(definition)] = dataclasses.replace(
            definition, start_line=definition.start_line - 1, end_line=end, body=inner, parent=parent
        )
    return list(shifted.values()) or found


def members_at(rows: list[str], definitions: list[Definition], scope: Definition, depth: int) -> bool:
    """Whether a container has members, all standing at `depth`."""
    inside = members(rows, definitions, scope)
    return bool(inside) and all(indent(rows[d.start_line - 1]) == depth for d in inside)


def closers(rows: list[str]) -> int:
    """How many of a fragment's lines come before the closers that end it (all of them where none do):
    lines that only close (`}`, `};`, `end`), each shallower than the last, all shallower than its first
    line of code, markers aside: they close the scope its members stand in, and the scopes around it."""
    code = [row for row, x in enumerate(rows) if x.strip() and not is_marker(x)]
    if not code:
        return len(rows)
    depth, below, start = indent(rows[code[0]]), -1, len(rows)
    for row in reversed(code):
        if not _CLOSER.match(rows[row]) or not below < indent(rows[row]) < depth:
            break
        below, start = indent(rows[row]), row
    return start


def closed_by(rows: list[str], scope: Definition, shown: list[str]) -> bool:
    """Whether the closers `shown` (markers aside) are the last lines of `scope` and of the scopes around
    it, in order."""
    code = [x.strip() for x in shown if x.strip() and not is_marker(x)]
    chain = around(scope)[: len(code)]
    return len(chain) == len(code) and all(rows[d.end_line - 1].strip() == x for d, x in zip(chain, code, strict=True))


def around(definition: Definition) -> list[Definition]:
    """The definition and the ones it stands in, innermost first."""
    chain: list[Definition] = []
    at: Definition | None = definition
    while at is not None:
        chain.append(at)
        at = at.parent
    return chain


def namesakes(original: str, edit: str, language: str, path: str | None = None) -> str:
    """Where the file defines, more than once, a name the edit's definitions have: "`total` in class Cart
    (line 18) and in class Wishlist (line 30)"; "" where no name of the edit is defined twice."""
    shown = fragment_definitions(edit, language, path) or []
    found = syntax.definitions(original, language, path) or []
    said = []
    for name in dict.fromkeys(d.name for d in members(lines(edit), shown, None)):
        places = [d for d in found if d.name == name]
        if len(places) > 1:
            scopes = [syntax.label(tuple(reversed(around(d)[1:]))) or "the top level" for d in places]
            where = [f"in {scope} (line {d.start_line})" for scope, d in zip(scopes, places, strict=True)]
            said.append(f"`{name}` {', '.join(where[:-1])} and {where[-1]}")
    return "; ".join(said)
