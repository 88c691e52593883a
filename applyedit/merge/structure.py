"""The structural reader: an update snippet read against the file's syntax tree, as an engineer reads it.

A definition the snippet shows (a class, a function, a method, an impl block, a struct, ...) is the
definition of the same name and kind in the same scope of the file; one with a name the scope does not
define is new. The definitions a scope shows pin the snippet to the file; between two of them, and at
the scope's edges, what the snippet shows is read on that stretch alone, with every definition in it
one opaque line, so a line of a new method is never read as a line of another: by the lines that
stand once there (`stretch.pins`), else by the line reader (merge/confirm.py's, handed in as `LineReader`).
Each principle is one function, listed with its example and its counterexample in docs/reading.md:

- `_pair`: a definition shown is the one of its name and kind in the same scope (one only; several of
  one name, overloads, by their header line);
- `_whole`: a definition shown without markers from its header to its end replaces the file's, header
  included (not where a Python body shown up to a marker goes on in the file: `_body_goes_on`); one
  that holds markers is read inside (`_read_definition`);
- `_gap`: a new definition goes after the shown sibling before it, or before the one after it, on the
  side of the marker it is written on; the file's members between two shown siblings with no marker
  between them are gone (a deletion shown by its neighbours); a marker stands for some code;
- `stretch.open_edge`: in a scope, the snippet keeps what it does not show past its first (last) line there
  when that line is a line of the file: nobody deletes code by leaving it out (at the file's own end,
  past a definition shown whole, the line reader weighs whether the file ends there);
- `_by_body`: of one name in several scopes, the one whose lines the snippet shows (that a definition
  with another name is no edit of this one is defcheck.renames_unshown's, on the line reader's reading);
- `_root`: closers ending the snippet close the scope its members stand in; `_end_shown`: where a body ends.

`read` answers only where every step is certain; else None (the line reader reads the whole file), or
`Unplaced` where it knows the snippet stands at no single place (`TwoWays`: at one, read two ways). Pure
text in and out; knows nothing of models, checks or files. `syntax.py` parses; outline.py says what a
scope's members, headers and bodies are.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

from applyedit import outline, syntax
from applyedit.linediff import alike, key
from applyedit.markers import is_marker
from applyedit.merge import stretch
from applyedit.syntax import Definition

__all__ = ["LineReader", "TwoWays", "Unplaced", "read"]

LineReader = Callable[[str, str], "str | None"]  # (original stretch, snippet stretch) -> its certain reading
_ACCESS = re.compile(r"\s*(public|private|protected|internal)\s*:")  # C++'s access labels: no code's depth
CONTAINERS = syntax.CLASS_LIKE | {"module", "namespace"}  # the definitions whose members are a scope of their own
_WHOLE = Definition("function", "", 1, 1)  # a span read from its first line: an opaque line's definition


@dataclass
class _Texts:
    """Both texts, their lines, their definitions, and the line reader: what every step reads."""

    original: list[str]
    snippet: list[str]
    original_definitions: list[Definition]
    snippet_definitions: list[Definition]
    marked: list[bool]  # per snippet line: a lazy marker
    lines: LineReader
    expand: dict[str, list[str]]  # token -> the lines it stands for
    add_unsaid: bool = False  # new lines at a body's end whose reading is not said: added (`TwoWays`'s other file)


class Unplaced(Exception):
    """The structure reads the snippet and finds no single place for it: no line reader may guess one."""


class TwoWays(Unplaced):
    """The structure reads lines of the snippet two ways at one place, and the snippet says neither."""


def read(
    original: str, snippet: str, language: str, path: str | None, lines: LineReader, add_unsaid: bool = False
) -> str | None:
    """The snippet's one reading by the file's structure, or None where the structure does not decide
    it (no definition shown, no grammar, a step not certain). `Unplaced` where it reads the snippet and
    knows it stands at no single place (a new definition after a marker at the file's end, with code
    the marker may stand for on both sides of where it could go)."""
    original_definitions = syntax.definitions(original, language, path)
    if not original_definitions:
        return None
    original_lines, snippet_lines = outline.lines(original), outline.lines(snippet)
    closers = outline.closers(snippet_lines)
    members = "".join(f"{x}\n" if row < closers else "\n" for row, x in enumerate(snippet_lines))
    snippet_definitions = outline.fragment_definitions(members, language, path)
    if not snippet_definitions:
        return None
    marked = [is_marker(x) for x in snippet_lines]
    texts = _Texts(
        original_lines, snippet_lines, original_definitions, snippet_definitions, marked, lines, {}, add_unsaid
    )
    root = _root(texts, closers)
    if root is None:
        return None
    scope, original_range = root
    out = _read_scope(texts, scope, None, original_range, (1, closers))
    if out is None:
        return None
    if scope is not None:  # the snippet is the inside of one container: the rest of the file around it
        out = [*texts.original[: original_range[0] - 1], *out, *texts.original[original_range[1] :]]
    text = "".join(f"{x}\n" for x in out)
    return text if stretch.shows_all(texts.snippet, texts.marked, texts.original, out) else None


def _root(texts: _Texts, closers: int) -> tuple[Definition | None, tuple[int, int]] | None:
    """The file's scope the snippet's top level stands in: the file, or the one container whose members
    its top-level definitions are (a snippet of methods without their class's header). Where closers end
    the snippet, the one they close: members new to the file then stand in the one container whose
    members stand at their depth and whose end, and its parents', the closers are."""
    parents: list[Definition | None] = []
    found = texts.original_definitions
    top = outline.members(texts.snippet, texts.snippet_definitions, None)
    if not top:
        return None
    for shown in top:
        for namesake in found:
            if namesake.name == shown.name and _compatible(namesake, shown) and namesake.parent not in parents:
                parents.append(namesake.parent)
    rows = zip(texts.snippet[:closers], texts.marked, strict=False)
    code = [x for x, marker in rows if x.strip() and not marker]
    outermost = min((outline.indent(x) for x in code if not _ACCESS.match(x)), default=0)
    if outermost < outline.indent(texts.snippet[top[0].start_line - 1]):
        return None  # code outside the definitions shown, at a depth none of them stands at
    if closers < len(texts.snippet):  # the scope they close, of those whose members stand at that depth
        at_depth = (d for d in found if outline.members_at(texts.original, found, d, outermost))
        closed = texts.snippet[closers:]
        parents = [d for d in parents or at_depth if d is not None and outline.closed_by(texts.original, d, closed)]
    if not parents and outermost == 0:
        parents = [None]  # nothing shown that the file defines, written at its top level: the file's
    if len(parents) > 1:
        parents = _by_body(texts, top, parents)
    if len(parents) != 1:
        return None
    scope = parents[0]
    if scope is None:
        return None, (1, len(texts.original))
    if not outline.members_at(texts.original, found, scope, outermost):
        return None  # written at another depth than the scope's members stand at: not the scope's as it is
    return (scope, scope.body) if scope.body is not None and scope.kind in CONTAINERS else None


def _by_body(texts: _Texts, top: list[Definition], parents: list[Definition | None]) -> list[Definition | None]:
    """Of several scopes whose namesakes of the shown definitions could be the ones shown (a method of one
    name in two impl blocks), the one whose namesakes hold lines of the shown ones (headers and bodies) that
    no other's do: the definitions it edits, the rest of their lines kept."""
    names, found = {d.name for d in top}, texts.original_definitions
    shown = {x for x in outline.lines_of(texts.snippet, top) if not is_marker(x)}
    held = [
        shown & outline.lines_of(texts.original, [d for d in found if d.parent == s and d.name in names])
        for s in parents
    ]
    return [scope for n, scope in enumerate(parents) if held[n] - set().union(*held[:n], *held[n + 1 :])]


def _compatible(a: Definition, b: Definition) -> bool:
    """One kind of definition: the same kind, a function and a method alike (a method is a function in a class)."""
    return a.kind == b.kind or {a.kind, b.kind} <= {"function", "method"}


def _same_header(found: str, shown: str) -> bool:
    """One header, where one shows attached lines (`inline`, a decorator) the other leaves out."""
    return found == shown or found.endswith(" " + shown) or shown.endswith(" " + found)


def _pair(
    texts: _Texts, originals: list[Definition], shown: list[Definition]
) -> list[tuple[Definition, Definition]] | None:
    """A definition shown is the one of its name and kind in its scope; of several of one name (overloads),
    the one whose header line it shows. None where one shown could be several, or they stand out of order."""
    pairs = []
    for definition in shown:
        found = [o for o in originals if o.name == definition.name and _compatible(o, definition)]
        if len(found) > 1:
            header = outline.header(texts.snippet, definition)
            found = [o for o in found if _same_header(outline.header(texts.original, o), header)]
            if len(found) != 1:
                return None
        if found:
            pairs.append((found[0], definition))
        elif any(o.name == definition.name and _compatible(o, definition) for o in texts.original_definitions):
            return None  # the file defines it, but in another scope than the one it is shown in
    starts = [o.start_line for o, _ in pairs]
    return pairs if starts == sorted(set(starts)) else None


def _read_scope(
    texts: _Texts,
    original_scope: Definition | None,
    snippet_scope: Definition | None,
    original_range: tuple[int, int],
    snippet_range: tuple[int, int],
) -> list[str] | None:
    """The lines of one scope's body: its shown members paired with the file's, each read
    (`_read_definition`), the stretches between them read as gaps (`_gap`)."""
    originals = outline.members(texts.original, texts.original_definitions, original_scope)
    shown = outline.members(texts.snippet, texts.snippet_definitions, snippet_scope)
    pairs = _pair(texts, originals, shown)
    if pairs is None:
        return None
    out: list[str] = []
    original_at, snippet_at = original_range[0], snippet_range[0]
    # At the file's own start, the snippet keeps what lies above the first definition it shows: nobody
    # deletes the top of a file by leaving it out. At its end, it keeps what lies below where the last is
    # read inside (the snippet speaks of its insides), or where it has no marker at all (whole definitions,
    # read as themselves); past one shown whole among markers, the file may end there: the line reader weighs it
    inside_last = bool(pairs) and (not _whole(texts, *pairs[-1]) or not any(texts.marked))
    for number, (found, definition) in enumerate([*pairs, (None, None)]):
        original_end = found.start_line if found is not None else original_range[1] + 1
        snippet_end = definition.start_line if definition is not None else snippet_range[1] + 1
        edge_inside = bool(pairs) and (number == 0 or inside_last)
        gap = _gap(
            texts,
            _collapsed(texts, texts.original, originals, original_at, original_end),
            _collapsed(texts, texts.snippet, shown, snippet_at, snippet_end),
            first=number == 0,
            last=found is None,
            at_file=original_scope is None,
            edge_inside=edge_inside,
            closed_above=number > 0 and _end_shown(texts, *pairs[number - 1]),
        )
        if gap is None:
            return None
        out += gap
        if found is None or definition is None:
            break
        body = _read_definition(texts, found, definition)
        if body is None:
            return None
        out += body
        original_at, snippet_at = found.end_line + 1, definition.end_line + 1
    return out


def _collapsed(texts: _Texts, lines: list[str], members: list[Definition], start: int, end: int) -> list[str]:
    """Lines [start, end) (1-based), each member definition in them one opaque line (its indentation kept)."""
    out: list[str] = []
    row = start
    while row < end:
        member = next((d for d in members if d.start_line == row and d.end_line < end), None)
        if member is None:
            out.append(lines[row - 1])
            row += 1
            continue
        token = stretch.token(f"{id(lines)}:{row}:{member.name}")
        texts.expand[token] = lines[row - 1 : member.end_line]
        out.append(lines[row - 1][: outline.indent(lines[row - 1])] + token)
        row = member.end_line + 1
    return out


def _read_definition(texts: _Texts, found: Definition, shown: Definition) -> list[str] | None:
    """A definition shown, read against the file's of its name: shown whole, it replaces it; with markers,
    its header and closer are the snippet's and its body is read inside (a container's as a scope)."""
    kept = _attached_kept(texts, found, shown)
    snippet_lines = texts.snippet[shown.start_line - 1 : shown.end_line]
    if kept is None:
        return None
    if _whole(texts, found, shown):
        return [*kept, *snippet_lines]
    if found.body is None or shown.body is None:
        return None
    header = texts.snippet[shown.start_line - 1 : shown.body[0] - 1]
    closer = texts.snippet[shown.body[1] : shown.end_line] or texts.original[found.body[1] : found.end_line]
    if found.kind in CONTAINERS:
        body = _read_scope(texts, found, shown, found.body, shown.body)
    else:
        original_body = texts.original[found.body[0] - 1 : found.body[1]]
        snippet_body = texts.snippet[shown.body[0] - 1 : shown.body[1]]
        if not _end_shown(texts, found, shown):
            return None  # the snippet stops inside it: whether it keeps the rest is the line reader's to weigh
        body = _gap(texts, original_body, snippet_body, first=True, last=True, scope=False)
    return None if body is None else [*kept, *header, *body, *closer]


def _attached_kept(texts: _Texts, found: Definition, shown: Definition) -> list[str] | None:
    """The file's lines attached above a definition (`inline`, `#[derive(...)]`, a decorator) that the
    snippet leaves out above its own (it shows the file's last ones, or none): not shown, so kept, whatever
    its header now says. None where it shows fewer than the file has, and other ones: whether they
    replace the file's or are added is not said (the line reader weighs it)."""
    file_attached, snippet_attached = outline.attached(texts.original, found), outline.attached(texts.snippet, shown)
    left_out = len(file_attached) - len(snippet_attached)
    if left_out <= 0 or snippet_attached != file_attached[left_out:]:
        return None if left_out > 0 and snippet_attached else []
    return texts.original[found.start_line - 1 : found.start_line - 1 + left_out]


def _whole(texts: _Texts, found: Definition, shown: Definition) -> bool:
    """Whether the snippet shows the definition from its header to its end with no marker: a closer
    written (`}`, `end`), or, where none is (Python), the next line of the snippet back at its level (a
    marker there stands for the scope's other members, not the body's rest, unless the body goes on in
    the file past the last line shown: `_body_goes_on`), or, the snippet ending there, its last line the
    file's definition's last, as it is or edited (alike, the body going on past no other line it is)."""
    if any(texts.marked[shown.start_line - 1 : shown.end_line]):
        return False
    if shown.body is None or found.body is None:
        return shown.body is None and found.body is None
    if found.body[1] < found.end_line:  # the file's has a closer: the snippet's must have one too
        return shown.body[1] < shown.end_line
    after = [x for x in texts.snippet[shown.end_line :] if x.strip()]
    if after and outline.indent(after[0]) > outline.indent(texts.snippet[shown.start_line - 1]):
        return False
    if after and not is_marker(after[0]):  # code back at the header's level ends it
        return True
    if after and _body_goes_on(texts, found, shown):  # nobody deletes the rest of a body by leaving it out
        return False
    if after:  # a marker back at the header's level ends it: it stands for the scope's other members
        return True
    if _body_goes_on(texts, found, shown, edited=any(texts.marked)):
        return False
    if not any(texts.marked):  # no marker anywhere: nothing stands for a rest of its body left out
        return True
    last_shown = [x for x in texts.snippet[shown.start_line - 1 : shown.end_line] if x.strip()][-1]
    last_found = [x for x in texts.original[found.start_line - 1 : found.end_line] if x.strip()][-1]
    return alike(last_shown, last_found)  # the same, or edited


def _body_goes_on(texts: _Texts, found: Definition, shown: Definition, edited: bool = True) -> bool:
    """Whether the shown definition's last line is a line of the file's definition's body, as it is or
    (`edited`) edited, alike, past which that body goes on with code: the snippet stopped showing the body
    there, and the marker after it stands for the rest of it too."""
    shown_code = [x for x in texts.snippet[shown.start_line : shown.end_line] if x.strip()]
    body = [x for x in texts.original[found.start_line : found.end_line] if x.strip()]
    if not shown_code or not body:
        return False
    last = shown_code[-1]
    at = [n for n, x in enumerate(body) if key(x) == key(last)]
    at = at or [n for n, x in enumerate(body) if edited and alike(x, last)]
    return bool(at) and max(at) < len(body) - 1


def _end_shown(texts: _Texts, found: Definition, shown: Definition) -> bool:
    """Whether the snippet says where a definition it reads inside ends: a closer written (`}`, `end`), a
    marker its last line (the rest of its body kept), or, where no closer is (Python), its last line the
    file's definition's last, as it is, a line its body holds once."""
    if shown.body is None or shown.body[1] < shown.end_line:
        return shown.body is not None  # a closer written
    code = [x for x in texts.snippet[shown.body[0] - 1 : shown.body[1]] if x.strip()]
    body = [key(x) for x in texts.original[found.start_line : found.end_line] if x.strip()]
    return bool(code) and (is_marker(code[-1]) or (body[-1:] == [key(code[-1])] and body.count(body[-1]) == 1))


def _gap(
    texts: _Texts,
    original: list[str],
    shown: list[str],
    first: bool,
    last: bool,
    scope: bool = True,
    at_file: bool = False,
    edge_inside: bool = False,
    closed_above: bool = False,
) -> list[str] | None:
    """A stretch between two shown definitions (or a scope's edge and one), each side's definitions one
    line. A line the stretch of the file holds is context: the line reader reads the stretch. Else the
    snippet's lines are markers and new code only: a marker stands for the file's stretch, new code goes
    on the side of the marker it is written on (with markers on both sides, nothing says where: None).
    A marker alone where the file has no code stands for nothing: a habit at a scope's start or where
    nothing shown right above it can go on (`closed_above`: a line of the file that is no definition, or
    a definition whose end the snippet says); right after a shown definition whose end it does not say,
    it may mean that definition's rest (None). Blank lines alone where the file has only blanks: its own."""
    if shown == original:
        return _expanded(texts, original)
    have = {x.strip() for x in original if x.strip()}
    kinds = ["M" if is_marker(x) else "C" if x.strip() in have else "N" for x in shown if x.strip()]
    if _inside_unshown(texts, original, shown):
        return None
    if "C" in kinds and scope:
        pinned = stretch.pins(original, shown)
        if pinned is not None:
            return _between_pins(texts, original, shown, pinned, first, last, at_file, closed_above)
    pattern = "".join(k for n, k in enumerate(kinds) if n == 0 or kinds[n - 1] != k)
    if "C" in kinds or _edits_body(texts, original, shown, "N" in kinds and not scope, pattern):
        return _expanded(texts, _lines_gap(texts, original, shown, first, last, at_file))  # the line reader's
    if "M" in pattern and not any(x.strip() for x in original):
        if pattern == "M" and (first or closed_above):
            return _expanded(texts, original)  # a habit: no definition shown right above it may go on there
        return None  # a marker that stands for no code here: the rest of the definition above it?
    if pattern == "M":
        return _expanded(texts, original)
    if not any(x.strip() for x in original):  # nothing of the file's here: the snippet's lines go in
        return _expanded(texts, original if pattern == "" else stretch.without_markers(shown))  # blanks: the file's
    if pattern == "" and at_file and (first or last) and not edge_inside:
        return None  # whether the file starts (ends) at the snippet's edge: the line reader weighs it
    if pattern == "":
        return _expanded(texts, original if first or last else shown)  # edges keep; between neighbours: gone
    if pattern == "N" and not (first or last):
        return _expanded(texts, shown)  # replaced: its neighbours shown on both sides
    if _renamed(texts, original, shown):
        return None  # a new definition whose body one the snippet leaves out has: a rename, or a copy?
    if pattern == "N" and first != last and all(stretch.is_token(x) for x in shown if x.strip()):
        return _expanded(texts, stretch.joined(shown, original) if last else stretch.joined(original, shown))
    if pattern == "MN" and at_file and last:
        raise Unplaced("new code after a marker at the snippet's end, with no line of the file after it")
    if pattern == "MN":
        marker = next(n for n, x in enumerate(shown) if is_marker(x))
        return _expanded(texts, stretch.joined(original, stretch.without_markers(shown[marker + 1 :])))
    if pattern == "NM" and not first:  # at a scope's start, new code above a marker may rename its first member
        marker = max(n for n, x in enumerate(shown) if is_marker(x))
        return _expanded(texts, stretch.joined(stretch.without_markers(shown[:marker]), original))
    return None


def _edits_body(texts: _Texts, original: list[str], shown: list[str], new_in_body: bool, pattern: str) -> bool:
    """Whether a body's new lines are the line reader's to read: not where they are added after a marker
    at its end (`stretch.added`); where that is not said, the snippet reads two ways (`TwoWays`; with
    `add_unsaid`, the reading that adds them)."""
    body = new_in_body and any(x.strip() for x in original)
    added = stretch.added(original, shown) if body and pattern == "MN" else not body
    if added is None and not texts.add_unsaid:
        raise TwoWays("new lines after a marker at a body's end could be added there or edit its last lines")
    return added is False


def _between_pins(
    texts: _Texts,
    original: list[str],
    shown: list[str],
    pins: list[tuple[int, int]],
    first: bool,
    last: bool,
    at_file: bool,
    closed_above: bool,
) -> list[str] | None:
    """A stretch read between its pinned lines: each stretch between two pins a gap of its own. At the
    file's own start (end), a line of the file's head shown with nothing above it may say the file starts
    there: the line reader weighs that (`stretch.file_edge`)."""
    out: list[str] = []
    shown_at, original_at = 0, 0
    for number, (shown_row, original_row) in enumerate([*pins, (len(shown), len(original))]):
        edge = (first and number == 0) or (last and number == len(pins))
        if at_file and edge and stretch.file_edge(original[original_at:original_row], shown[shown_at:shown_row]):
            return None
        part = _gap(
            texts,
            original[original_at:original_row],
            shown[shown_at:shown_row],
            first=first and number == 0,
            last=last and number == len(pins),
            closed_above=closed_above or number > 0,  # a pinned line above: a line of the file
        )
        if part is None:
            return None
        out += part
        if number < len(pins):
            out += _expanded(texts, [original[original_row]]) or []
        shown_at, original_at = shown_row + 1, original_row + 1
    return out


def _inside_unshown(texts: _Texts, original: list[str], shown: list[str]) -> bool:
    """Whether the snippet shows, outside any definition of its own, a line only the inside of a definition
    of the file holds here: a definition shown without its header, which the structure cannot place."""
    inner = {y.strip() for x in original if stretch.is_token(x) for y in texts.expand.get(x.strip(), [])}
    return any(x.strip() in inner for x in shown if x.strip() and not stretch.is_token(x) and not is_marker(x))


def _renamed(texts: _Texts, original: list[str], shown: list[str]) -> bool:
    """Whether a new definition shown has the body of a definition of the file's in the same stretch (the
    lines after its header, the same but for spaces): it may be that one renamed."""

    def body(token: str) -> tuple[str, ...]:
        rows = texts.expand.get(token.strip(), [])
        return outline.body(rows, dataclasses.replace(_WHOLE, end_line=len(rows))) if rows else ()

    bodies = {body(x) for x in original if stretch.is_token(x)}
    return any(body(x) and body(x) in bodies for x in shown if stretch.is_token(x))


def _lines_gap(
    texts: _Texts, original: list[str], shown: list[str], first: bool, last: bool, at_file: bool = False
) -> list[str] | None:
    """The line reader on one stretch, closed at both ends by lines both texts share; at an open edge whose
    first (last) line the snippet shows is the file's, an implied marker keeps what lies beyond it (in a
    scope; at the file's own start or end the line reader weighs the whole file's open edge)."""
    start, end = stretch.token(f"start:{id(original)}"), stretch.token(f"end:{id(original)}")
    code = [x for x in shown if x.strip()]
    have = {x.strip() for x in original if x.strip()}
    head = [stretch.implied_marker(code[0])] if first and stretch.open_edge(code[0], have, original, 0) else []
    tail = [stretch.implied_marker(code[-1])] if last and stretch.open_edge(code[-1], have, original, -1) else []
    if at_file and (head or tail):
        return None
    reading = texts.lines("\n".join([start, *original, end]), "\n".join([start, *head, *shown, *tail, end]))
    if reading is None:
        return None
    out = reading.split("\n")
    return out[1:-1] if out[0] == start and out[-1] == end else None


def _expanded(texts: _Texts, lines: list[str] | None) -> list[str] | None:
    """Each opaque line back as the definition it stands for."""
    if lines is None:
        return None
    out: list[str] = []
    for line in lines:
        out += texts.expand.get(line.strip(), [line]) if stretch.is_token(line) else [line]
    return out
