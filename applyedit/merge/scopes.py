"""Where a snippet's definitions stand among the file's scopes: which kinds of definition are a scope of
their own (`CONTAINERS`), which two definitions are of one kind (`compatible`), and the container a run of
members shown without it belongs to (`container_shown`). Read by the structural reader
(merge/structure.py) before it pairs anything; pure text in and out, knows nothing of readings' order
or of the line reader.
"""

from __future__ import annotations

from applyedit import outline, syntax
from applyedit.markers import is_marker
from applyedit.syntax import Definition

__all__ = ["CONTAINERS", "compatible", "container_shown"]

CONTAINERS = frozenset(  # the kinds of definition whose members are a scope of their own
    {"class", "struct", "impl", "trait", "interface", "enum", "record", "union", "module", "namespace"}
)


def compatible(a: Definition, b: Definition) -> bool:
    """One kind of definition: the same kind, a function and a method alike (a method is a function in a class)."""
    return a.kind == b.kind or {a.kind, b.kind} <= {"function", "method"}


def container_shown(
    original_lines: list[str], original_definitions: list[Definition], snippet: str, language: str, path: str | None
) -> str:
    """A member shown without its container, beside code at the file's level, is read inside the one
    container of the file that defines it: indented lines right after a marker at the file's level (or
    at the snippet's start) that are definitions of one container's names are read as if the snippet
    showed the container's header above them and its closer below (unless the snippet shows it), a marker
    at their depth on each side (its other members kept). Unchanged where the run holds lines besides
    members and markers (or does not parse inside the container), or could stand in several."""
    rows = outline.lines(snippet)
    markers = [x.strip() for x in rows if is_marker(x)]
    if not markers or not any(x.strip() and outline.indent(x) == 0 and not is_marker(x) for x in rows):
        return snippet
    for start, end in reversed(_indented_runs(rows)):
        definitions = outline.fragment_definitions("".join(f"{x}\n" for x in rows[start:end]), language, path)
        shown = [d for d in definitions or [] if d.parent is None]
        parents = {
            id(found.parent): found.parent
            for definition in shown
            for found in original_definitions
            if found.name == definition.name and compatible(found, definition)
        }
        container = next(iter(parents.values())) if len(parents) == 1 else None
        if not shown or container is None or container.body is None or container.kind not in CONTAINERS:
            continue
        opened = original_lines[container.start_line - 1 : container.body[0] - 1]
        closed = original_lines[container.body[1] : container.end_line]
        covered = {row for d in shown for row in range(d.start_line, d.end_line + 1)}
        inside = "".join(f"{x}\n" for x in [*opened, *rows[start:end], *closed])
        if any(
            x.strip() and not is_marker(x) and row not in covered for row, x in enumerate(rows[start:end], 1)
        ) or syntax.parse_errors(inside, language, path):
            continue  # lines besides its members (a comment's tail, a statement): not members alone
        depth = next(x[: outline.indent(x)] for x in rows[start:end] if x.strip())
        if closed and [x.strip() for x in rows[end : end + len(closed)]] == [x.strip() for x in closed]:
            rows[start:end] = [*opened, depth + markers[0], *rows[start:end]]  # its end shown: only its start left out
        else:
            rows[start:end] = [*opened, depth + markers[0], *rows[start:end], depth + markers[0], *closed]
    return "".join(f"{x}\n" for x in rows)


def _indented_runs(rows: list[str]) -> list[tuple[int, int]]:
    """The runs [start, end) of indented lines (blank lines inside them) that follow a marker at the file's
    level or start the snippet: code inside a scope the snippet does not open."""
    runs: list[tuple[int, int]] = []
    row = 0
    while row < len(rows):
        opened = row == 0 or (is_marker(rows[row - 1]) and outline.indent(rows[row - 1]) == 0)
        end = row
        while end < len(rows) and (not rows[end].strip() or outline.indent(rows[end]) > 0):
            end += 1
        while end > row and not rows[end - 1].strip():
            end -= 1
        if opened and end > row:
            runs.append((row, end))
        row = max(end, row + 1)
    return runs
