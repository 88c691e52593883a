"""The `definitions` invariant (invariants.py runs it): a definition the edit never names does not
disappear (`lost_definitions`, renames traced), nor is one written twice beside its namesake
(`defined_twice`), nor a config file's key twice in one mapping (`keys_twice`); and, for the snippet
reader (merge/confirm.py), a definition with another name is never an edit of one the snippet never
shows (`renames_unshown`), and a line shown inside a definition stands inside it (`misplaced`). Reads definitions and
keys through syntax.py (imported when a check runs); knows nothing of the merge or of the other
invariants.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from applyedit.linediff import LONG_LINE, alike, key
from applyedit.markers import is_marker

if TYPE_CHECKING:
    from applyedit.syntax import Definition

__all__ = ["defined_twice", "keys_twice", "lost_definitions", "misplaced", "renames_unshown"]

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


def _names(text: str) -> set[str]:
    return set(_IDENTIFIER.findall(text))


def lost_definitions(
    original: str,
    output: str,
    edit: str,
    language: str,
    path: str | None = None,
    whole_ok: bool = False,
    snippet: bool = False,
) -> list[str]:
    """Definitions of the original that the output lacks and the edit never names (by kind and name,
    nested ones by their enclosing names), beyond those a new definition the edit names took the place
    of (a rename: same kind, same enclosing definitions, a name the original does not define there).
    A renamed definition keeps its identity, so what it encloses is found under the new name (a renamed
    class keeps its methods, a renamed Rust type its impl blocks). An instruction names what its words
    say; an update snippet (`snippet`) names only the definitions whose header line it shows, not every
    name it uses (`def session(user):` shows session, not the fixture `user`). With `whole_ok`, one
    whose every line is gone is no loss (an update snippet that deletes it shows the code around it:
    `deletions` holds that to its anchors); one that lost some lines and kept others (its decorator now
    above another method) still is."""
    from applyedit import syntax

    if syntax.parse_errors(output, language, path):
        return []  # a tree with errors names its definitions unreliably: the syntax check speaks there
    before = syntax.definitions(original, language, path)
    after = syntax.definitions(output, language, path)
    if before is None or after is None:
        return []
    shown = _headers_shown(edit, original, before) | _headers_shown(edit, output, after) if snippet else None
    lost = _Tracing(shown, _names(edit), original, output).lost(before, after)
    if whole_ok:
        lost = [d for d in lost if _partly_kept(original, output, d.start_line - 1, d.end_line)]
    return [_own(d) for d in lost]


def _own(d: Definition) -> str:
    return f"{d.kind} {d.name}"


def _qualified(d: Definition | None) -> tuple[str, ...]:
    """A definition's kind and name, after those of each definition that encloses it."""
    return () if d is None else (*_qualified(d.parent), _own(d))


class _Tracing:
    """Each original definition traced into the output (`lost`): by its own qualified name, else through
    a rename the edit names. `shown`: the names whose header lines an update snippet shows (None: an
    instruction, which names what its `words` say)."""

    def __init__(self, shown: set[str] | None, words: set[str], original: str, output: str) -> None:
        self.shown, self.words = shown, words
        self.renames: dict[str, str] = {}  # a renamed definition's name -> its new name (one word each)
        self.original_keys = [key(x) for x in original.split("\n")]
        self.output_keys = {key(x) for x in output.split("\n")}

    def said(self, name: str) -> bool:
        return name in self.shown if self.shown is not None else name in self.words

    def renamed(self, old: str, new: str) -> bool:
        """A rename the edit names (`new` said), or one that follows the renames found (`impl Display
        for Point` -> `impl Display for Vector`, where `Point` became `Vector`)."""
        if self.said(new):
            if _IDENTIFIER.fullmatch(old) and _IDENTIFIER.fullmatch(new):
                self.renames[old] = new
            return True
        renames = self.renames
        return bool(renames) and _IDENTIFIER.sub(lambda m: renames.get(m.group(), m.group()), old) == new

    def kept(self, d: Definition) -> float:
        """The share of its lines that say something which the output still has."""
        lines = [k for k in self.original_keys[d.start_line - 1 : d.end_line] if re.search(r"\w", k)]
        return sum(k in self.output_keys for k in lines) / max(1, len(lines))

    def lost(self, before: list[Definition], after: list[Definition]) -> list[Definition]:
        """Each original definition's qualified name in the output, level by level (enclosing ones first,
        so a renamed class's methods are looked for under its new name): the same name first, then a
        rename into a new definition the edit names, of the same kind, in the same place. The ones
        found nowhere whose names the edit never says are lost."""
        after_quals = [_qualified(d) for d in after]
        left = Counter(after_quals)
        before_quals = {_qualified(d) for d in before}
        placed: dict[Definition, tuple[str, ...]] = {}
        lost: list[Definition] = []
        for level in sorted({len(_qualified(d)) for d in before}):
            here = [d for d in before if len(_qualified(d)) == level]
            wanted = {d: (*(placed[d.parent] if d.parent is not None else ()), _own(d)) for d in here}
            missing = []
            for d in here:
                if left[wanted[d]] > 0:
                    left[wanted[d]] -= 1
                    placed[d] = wanted[d]
                else:
                    missing.append(d)
            # one-word names first (a renamed type, then its impl blocks), then those the output keeps most of
            for d in sorted(missing, key=lambda d: (not _IDENTIFIER.fullmatch(d.name), -self.kept(d))):
                q = wanted[d]
                twin = next((g for g in after_quals if left[g] > 0 and self.renamed_into(d, q, g, before_quals)), None)
                if twin is not None:
                    left[twin] -= 1
                    placed[d] = twin
                    continue
                placed[d] = q
                if not self.said(d.name):
                    lost.append(d)
        return lost

    def renamed_into(self, d: Definition, q: tuple[str, ...], g: tuple[str, ...], before: set[tuple[str, ...]]) -> bool:
        """Whether output definition `g` is `d` (wanted as `q`) renamed: a name the original does not define
        there (else a second one), in the same place, of the same kind, a rename the edit names."""
        kind, _, name = g[-1].partition(" ")
        return g not in before and g[:-1] == q[:-1] and kind == d.kind and self.renamed(d.name, name)


def keys_twice(original: str, output: str, language: str, path: str | None = None) -> list[str]:
    """The keys a config answer (JSON, TOML, YAML) holds twice in one mapping where the original does not:
    a key written again beside its namesake instead of in its place (a parser keeps one of the two, or
    refuses the file)."""
    from applyedit import syntax

    before = set(syntax.keys_twice(original, language, path))
    return [name for name in syntax.keys_twice(output, language, path) if name not in before]


def defined_twice(original: str, output: str, edit: str, language: str, path: str | None = None) -> list[str]:
    """The definition headers the answer holds twice in one scope where the original and the edit hold
    each at most once: a definition written again beside its namesake instead of in its place."""
    from applyedit import outline, syntax

    def headers(text: str) -> Counter[tuple[str, ...]] | None:
        defs = syntax.definitions(text, language, path)
        if defs is None or syntax.parse_errors(text, language, path):
            return None
        rows = outline.lines(text)

        def chain(d: Definition | None) -> tuple[str, ...]:  # each header from the line that names it
            return () if d is None else (*chain(d.parent), outline.named_header(rows, d))

        return Counter(chain(d) for parent in {d.parent for d in defs} for d in outline.members(rows, defs, parent))

    after, before = headers(output), headers(original)
    if after is None or before is None:
        return []
    shown = Counter(" ".join(x.split()) for x in edit.split("\n"))
    return [h[-1] for h, n in after.items() if n > 1 and before[h] <= 1 and shown[h[-1]] <= 1]


def _headers_shown(edit: str, text: str, defs: list[Definition]) -> set[str]:
    """The names of those `defs` (of `text`) whose header line (the first line of the definition that
    holds its name, past decorators and attributes) the edit shows: as it is, or edited (a line of the
    edit naming it, alike the header: `const handler = () => {` made `handler = () => {`, no longer a
    definition, is shown and changed, not lost)."""
    rows = text.split("\n")
    lines = {key(x) for x in edit.split("\n") if x.strip()}
    found = set()
    for d in defs:
        words = _names(d.name)
        for row in rows[d.start_line - 1 : d.end_line]:
            if words and words <= _names(row) and not row.lstrip().startswith(("@", "#[")):
                header = key(row)
                if header in lines or _edited_header(header, lines, d.name):
                    found.add(d.name)
                break
    return found


def _edited_header(header: str, lines: set[str], name: str) -> bool:
    """Whether one of `lines` is definition header `header` edited: the name in both after words alone
    (keywords: `const`, `export`, `pub`), the text from the name on alike (`def session(user):` is no
    edit of `def user():`, the name there inside another's parameters)."""
    from applyedit import syntax

    if not _IDENTIFIER.fullmatch(name):
        return False
    word = syntax.named(name)
    a = word.search(header)
    if a is None or not re.fullmatch(r"[\w\s]*", header[: a.start()]):
        return False
    for line in lines:
        if len(line) > LONG_LINE:
            continue  # past that length a line is alike another only when equal (linediff.py)
        b = word.search(line)
        if (
            b is not None
            and re.fullmatch(r"[\w\s]*", line[: b.start()])
            and alike(header[a.start() :], line[b.start() :])
        ):
            return True
    return False


def _partly_kept(original: str, output: str, start: int, end: int) -> bool:
    """Some line of original [start, end) that says something is still in the output: it holds more
    copies of it than the original outside that span."""
    ol = [key(x) for x in original.split("\n")]
    have = Counter(key(x) for x in output.split("\n"))
    outside = Counter(ol[:start] + ol[end:])
    return any(have[k] > outside[k] for k in set(ol[start:end]) if re.search(r"[A-Za-z0-9_@]", k))


def renames_unshown(original: str, output: str, snippet: str, language: str, path: str | None = None) -> bool:
    """Whether `output` holds a definition the file does not where the file's definition of another name,
    which the snippet never shows, is gone: a definition with another name is never an edit of this one."""
    from applyedit import outline, syntax

    before = syntax.definitions(original, language, path)
    after = syntax.definitions(output, language, path)
    shown = outline.fragment_definitions(snippet, language, path)
    if not before or not after or shown is None:
        return False

    def chain(d: Definition | None) -> tuple[str, ...]:
        return () if d is None else (*chain(d.parent), d.name)

    named = {d.name for d in shown}
    old, new = {chain(d) for d in before}, {chain(d) for d in after}
    gone = [d for d in before if chain(d) not in new and d.name not in named]
    gained = [d for d in after if chain(d) not in old]
    # the new one holds the gone one's body: a rename the snippet shows by that body
    original_rows, output_rows = outline.lines(original), outline.lines(output)
    renamed = {outline.body(original_rows, d) for d in gone} & {outline.body(output_rows, d) for d in gained}
    return bool(gone) and bool(gained) and not renamed


def misplaced(original: str, snippet: str, output: str, language: str, path: str | None = None) -> list[str]:
    """The file's definitions the snippet shows from their header to their closer (a class, an interface,
    a function written with its `}` or `end`, its header line the file's), whose lines stand outside them
    in `output`: a line written inside a definition is that definition's, in the answer too. Each is
    looked for by its name and the names around it that the snippet shows; one found nowhere, or in
    several places, says nothing, and so do comment lines (a doc comment may be read as its or not)."""
    from applyedit import outline, syntax

    shown = outline.fragment_definitions(snippet, language, path)
    before, found = syntax.definitions(original, language, path), syntax.definitions(output, language, path)
    if not shown or not before or not found:
        return []

    def chain(d: Definition | None) -> tuple[str, ...]:
        return () if d is None else (*chain(d.parent), d.name)

    rows, output_rows, original_rows = outline.lines(snippet), outline.lines(output), outline.lines(original)
    headers = {outline.named_header(original_rows, d) for d in before}
    out = []
    for definition in shown:
        named = chain(definition)
        places = [d for d in found if chain(d)[-len(named) :] == named and d.kind == definition.kind]
        closed = definition.body is not None and definition.body[1] < definition.end_line
        if not closed or len(places) != 1 or outline.named_header(rows, definition) not in headers:
            continue
        inside = {x.strip() for x in output_rows[places[0].start_line - 1 : places[0].end_line]}
        body = rows[definition.body[0] - 1 : definition.body[1]] if definition.body else []
        if any(x.strip() not in inside for x in body if x.strip() and not is_marker(x) and not _comment(x)):
            out.append(f"{definition.kind} {definition.name}")
    return out


def _comment(line: str) -> bool:
    return line.strip().startswith(("//", "/*", "*", "#", "--"))
