"""The original file as the context reader sees it (merge/contextread.py): its lines and their keys
(whitespace-collapsed text), where a run of a segment's lines stands as a block (`head_runs`,
`tail_runs`), where new lines below a head read as edits of the lines there (`below_reach`, `aligned`,
`through`), and what a reading of it breaks (`damage`: syntax errors, definitions lost or written twice,
file heads moved). Also which lines say something (`telling`). Pure text; knows nothing of how places are
chosen (merge/places.py) or of the questions a snippet leaves open.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter

from applyedit import imports, interrupt, syntax
from applyedit.defcheck import lost_definitions
from applyedit.invariants import head_changes, python_compile_error
from applyedit.linediff import alike, depth, key, same

__all__ = ["BIG_DELETION", "Original", "definitions_twice", "telling"]


_PLAIN = frozenset("else try finally except pass return break continue end fi done do".split())


def telling(key: str) -> bool:
    """A line that says something: a word that is not a bare keyword (`}`, `else:`, `*/` do not)."""
    words = re.sub(r"\W+", " ", key).split()
    return bool(words) and " ".join(words) not in _PLAIN


_OPTIONS = 6  # heads (tails) tried, longest first
BIG_DELETION = 5  # code lines one reading may delete beyond another's before the two are a question
ALIGNED = 200  # segment lines past the head, at most, that `aligned` aligns


class Original:
    """The original's lines and keys, and what a reading of it breaks (with a language; else nothing)."""

    def __init__(self, lines: list[str], language: str | None = None) -> None:
        self.lines = lines
        self.keys = [key(x) for x in lines]
        self.language = language

    def damage(self, start: int, end: int, lines: tuple[str, ...], shown: tuple[str, ...]) -> int:
        """What the original with [start, end) replaced by `lines` breaks (0 without a language or
        grammar): its syntax errors (a Python compile() that fails where the original's did not, one
        more), the definitions it loses that the segment (`shown`) never names, the file heads it moves
        (invariants.head_changes) and the definitions it makes stand twice (a function appended while
        it is also edited in place)."""
        return self.damage_of("\n".join([*self.lines[:start], *lines, *self.lines[end:]]) + "\n", shown)

    def damage_of(self, text: str, shown: tuple[str, ...], errors: int | None = None) -> int:
        """What `text`, a reading of the whole file, breaks (`damage`); `errors`: its `syntax_errors`,
        where the caller has them already."""
        if self.language is None:
            return 0
        interrupt.check()
        found = self.syntax_errors(text, shown) if errors is None else errors
        found += len(lost_definitions(self.text, text, "\n".join(shown), self.language))
        found += len(head_changes(self.text, text, self.language))
        found += max(0, definitions_twice(text, self.language) - self.twice)
        return found

    def syntax_errors(self, text: str, shown: tuple[str, ...] = ()) -> int:
        """The parse errors of `text`, a reading of the whole file (a Python compile() that fails where the
        original's does not, one more; a name imported from two modules in JavaScript or TypeScript where
        the original has no such name, one more each: imports.import_conflicts; a line of code the original
        has outside a comment, put inside a block comment, one more each: `swallowed`); 0 with no
        grammar. `shown`: the snippet's lines (a line it shows is none of the original's code swallowed)."""
        return self.parse_errors(text) + self.clashes(text) + self.swallowed(text, shown)

    def parse_errors(self, text: str) -> int:
        """`syntax_errors` less the clashes and the code swallowed: the grammar's errors, and a Python
        compile() that fails where the original's does not."""
        if self.language is None:
            return 0
        found = len(syntax.parse_errors(text, self.language) or [])
        if self.language == "python" and python_compile_error(self.text, text):
            found += 1
        return found

    @functools.cached_property
    def clean(self) -> bool:
        """Whether the original parses with no error (the grammar's): a reading's syntax errors are then
        its own (readings.Candidate.broken)."""
        return self.language is not None and syntax.parse_errors(self.text, self.language) == []

    def swallowed(self, text: str, shown: tuple[str, ...]) -> int:
        """The lines of `text` inside a block comment that read as code (syntax.commented_code), more than
        the original has of each, the snippet's own lines aside: code a reading turned into a comment (a
        snippet's `/**` above the next doc comment read as new, the old body left between)."""
        keys = {key(x) for x in shown}
        lines = text.split("\n")
        now = Counter(key(lines[n]) for n in syntax.commented_code(text, self.language or "") or [])
        return sum((Counter({k: n for k, n in now.items() if k not in keys}) - self.commented).values())

    @functools.cached_property
    def commented(self) -> Counter[str]:
        """The original's lines inside block comments that read as code (`swallowed`)."""
        found = syntax.commented_code(self.text, self.language) if self.language else None
        return Counter(self.keys[n] for n in found or [] if n < len(self.keys))

    def clashes(self, text: str) -> int:
        """The names `text`'s imports bind from two modules where the original's do not (JavaScript and
        TypeScript: imports.import_conflicts)."""
        return max(0, imports.import_conflicts(text, self.language) - self.conflicts) if self.language else 0

    @functools.cached_property
    def conflicts(self) -> int:
        """The original's own names imported from two modules (imports.import_conflicts)."""
        return imports.import_conflicts(self.text, self.language) if self.language else 0

    @functools.cached_property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    @functools.cached_property
    def twice(self) -> int:
        """The original's own definitions that stand twice (`definitions_twice`)."""
        return definitions_twice(self.text, self.language) if self.language else 0

    def blocks(self, keys: list[str], lo: int) -> list[int]:
        """Where `keys` stand as a block from `lo` on."""
        n, m = len(keys), len(self.keys)
        if not n:
            return []
        first = keys[0]
        return [p for p in range(lo, m - n + 1) if self.keys[p] == first and self.keys[p : p + n] == keys]

    def result(self, start: int, end: int, lines: tuple[str, ...]) -> tuple[str, ...]:
        """The original's keys with [start, end) replaced by `lines`: two places that give the same
        file are one reading."""
        return (*self.keys[:start], *(key(x) for x in lines), *self.keys[end:])

    def first_code(self, hi: int) -> int:
        """The first line of code above `hi` (blank lines at the file's start are kept: a snippet
        cannot show them), else `hi`."""
        return next((j for j in range(hi) if self.lines[j].strip()), hi)

    def last_code(self, lo: int) -> int:
        """Just past the last line of code from `lo` on (blank lines at the file's end are kept), else `lo`."""
        return next((j + 1 for j in range(len(self.lines) - 1, lo - 1, -1) if self.lines[j].strip()), lo)

    def has_code(self, lo: int, hi: int) -> bool:
        return any(x.strip() for x in self.lines[lo:hi])

    def shows_any(self, keys: list[str], lo: int, hi: int) -> bool:
        """Whether the segment (`keys`) shows any of the original's lines of code [lo, hi) as they are."""
        return any(self.keys[j] and self.keys[j] in keys for j in range(lo, hi))

    def alike_run(self, keys: list[str], i: int, j: int, step: int) -> int:
        """How many lines, from segment line `i` and original line `j` on (`step` 1: down, -1: up), are each
        an edit of the other (alike text, not blank): new lines that rewrite the original's there."""
        n = 0
        while 0 <= i < len(keys) and 0 <= j < len(self.keys) and keys[i] and self.keys[j]:
            if not alike(keys[i], self.keys[j]):
                break
            n, i, j = n + 1, i + step, j + step
        return n

    def block_end(self, header: int) -> int | None:
        """Just past the block that original line `header` opens (its closing line included: the first
        line of code after it at its depth or shallower); None when the line opens no block."""
        level = depth(self.lines[header])
        body = [j for j in range(header + 1, len(self.lines)) if self.lines[j].strip()]
        if not body or depth(self.lines[body[0]]) <= level:
            return None
        return next((j + 1 for j in body if depth(self.lines[j]) <= level), len(self.lines))

    def head_runs(self, keys: list[str], lo: int) -> list[tuple[int, list[int]]]:
        """Leading runs of the segment that stand as blocks in the original: (length, places), longest
        first; a run ends on code, not on a blank line."""
        found: list[tuple[int, list[int]]] = []
        for n in range(len(keys), 0, -1):
            if keys[n - 1] and (places := self.blocks(keys[:n], lo)):
                found.append((n, places))
                if len(found) == _OPTIONS:
                    break
        return self._with_shortest(found, keys, lo, head=True)

    def tail_runs(self, keys: list[str], lo: int) -> list[tuple[int, list[int]]]:
        """Trailing runs likewise: (length, where each place ends), longest first; a run starts on code."""
        size, found = len(keys), []
        for n in range(size, 0, -1):
            if keys[size - n] and (places := self.blocks(keys[size - n :], lo)):
                found.append((n, [p + n for p in places]))
                if len(found) == _OPTIONS:
                    break
        return self._with_shortest(found, keys, lo, head=False)

    def _with_shortest(
        self, found: list[tuple[int, list[int]]], keys: list[str], lo: int, head: bool
    ) -> list[tuple[int, list[int]]]:
        """`found` and, past the longest runs, the shortest one that holds a telling line: new code that
        repeats old code makes long runs, and the context that places it is then the short one."""
        size = len(keys)
        for n in range(1, size + 1):
            if found and n >= found[-1][0]:
                break
            run = keys[:n] if head else keys[size - n :]
            if run[-1 if head else 0] and any(telling(k) for k in run):
                places = self.blocks(run, lo)
                if places:
                    found.append((n, places if head else [p + n for p in places]))
                break
        return found

    def keep(self, lines: tuple[str, ...], h: int, p: int, t: int, q: int) -> tuple[str, ...]:
        """The segment's lines, its head (at original p) and tail (ending at q) in the original's text
        where they equal it up to trailing blanks and tab width."""
        out = list(lines)

        def kept(a: str, b: str) -> bool:  # trailing blanks written otherwise are the snippet's
            return same(a, b) and not (a.rstrip() == b.rstrip() and a != b)

        for i in range(h):
            if kept(lines[i], self.lines[p + i]):
                out[i] = self.lines[p + i]
        for i in range(t):
            j, k = len(lines) - t + i, q - t + i
            if kept(lines[j], self.lines[k]):
                out[j] = self.lines[k]
        return tuple(out)

    def below_reach(self, keys: list[str], new: int, h: int, end: int) -> int:
        """Where the `new` lines after a head ending at original line `end` end, read as edits of the lines
        below it (alike text, one for one, past the blank lines both have there); `end` where none is."""
        gap = 0
        while gap < new and end + gap < len(self.keys) and not keys[h + gap] and not self.keys[end + gap]:
            gap += 1
        below = min(self.alike_run(keys, h + gap, end + gap, 1), new - gap) if new else 0
        return end + gap + below if below else end

    def aligned(self, keys: list[str], i: int, j: int) -> int | None:
        """Where the segment's lines from `i` on end when each stands, in order, for an original line from `j`
        on (the same line, or an edit of it: alike text; a blank line for a blank line or for none), the
        original lines between them deleted, `BIG_DELETION` code lines at most: just past the last original
        line they stand for, in the alignment that deletes the fewest code lines, then edits the fewest;
        None where there is no such alignment. New lines that rewrite the original's there, one for one
        (an edited tail of a list, a changed constant), end where the lines they rewrite end."""
        size, m = len(keys), len(self.keys)
        if size - i > ALIGNED:
            return None

        @functools.cache
        def best(i: int, j: int, budget: int) -> tuple[int, int, int] | None:  # (deleted, edits, end)
            if i == size:
                return (0, 0, j)
            found = []
            if not keys[i] and (got := best(i + 1, j, budget)) is not None:  # a blank line standing for none
                found.append(got)
            if j < m and bool(keys[i]) == bool(self.keys[j]):
                same = keys[i] == self.keys[j]
                if same or alike(keys[i], self.keys[j]):
                    if (got := best(i + 1, j + 1, budget)) is not None:
                        found.append((got[0], got[1] + (not same), got[2]))
            cost = 1 if j < m and self.keys[j] else 0
            if j < m and cost <= budget and (got := best(i, j + 1, budget - cost)) is not None:
                found.append((got[0] + cost, got[1], got[2]))
            return min(found, default=None)

        got = best(i, j, BIG_DELETION)
        return None if got is None or got[2] == j else got[2]

    def through(self, keys: list[str], h: int, end: int, bound: int | None = None) -> int | None:
        """Where a segment with a head and no tail, its head ending at original line `end`, rewrites the block
        its head opens through (or the stretch up to `bound`): its lines after the head matched in order
        against the block's lines below `end`, past the last matched line that says something and the alike
        lines after it (the segment's own context inside the block, kept in place, and the lines it edits
        after it), or through the block's body when the segment's last line is an edit of the body's last;
        None where no such line matches."""
        block = bound is None
        bound = self.block_end(end - 1) if bound is None else bound
        if bound is None:
            return None
        stretch = self.keys[end:bound]
        rest = keys[h:]
        sm = difflib.SequenceMatcher(None, rest, stretch, autojunk=False)
        last = None
        for i, j, n in sm.get_matching_blocks():
            for k in range(n):
                if telling(rest[i + k]):
                    last = (i + k, j + k)
        if last is None:
            return None
        i, j = last
        level = depth(self.lines[end - 1])
        body = (
            [x for x in range(end + j + 1, bound) if self.lines[x].strip() and depth(self.lines[x]) > level]
            if block
            else []
        )
        said = [x for x in range(i + 1, len(rest)) if rest[x]]
        if body and said and self.alike_run(keys, h + said[-1], body[-1], 1):
            return body[-1] + 1  # its last line an edit of the body's last: it rewrites the body through there
        return min(end + j + 1 + min(self.alike_run(keys, h + i + 1, end + j + 1, 1), len(rest) - i - 1), bound)


def definitions_twice(text: str, language: str) -> int:
    """Definitions that stand more than once under one name in one scope (0 without a grammar)."""
    defs = syntax.definitions(text, language) or []

    def qual(d: syntax.Definition | None) -> tuple[str, ...]:
        return () if d is None else (*qual(d.parent), f"{d.kind} {d.name}")

    names = Counter(qual(d) for d in defs)
    return sum(n - 1 for n in names.values())
