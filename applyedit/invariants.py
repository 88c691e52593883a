"""The invariants every answer meets before it is written: the merge's and the model's alike.

Each invariant is a named check with its own refusal message and `--allow-*` switch (the option
table, options.py, names the switch of each):

- `snippet` (--allow-mismatch): every segment of an update snippet stands in the answer as given,
  and the answer's other lines are the original's, in order; decorators, annotations, attributes or
  comments that open a segment after a marker replace the original's of their kinds right above the
  line below them, which the answer does not keep (`attached_kept`); no import line stands twice a few
  rows apart where the original and the snippet hold it once (a moved import kept twice).
- `deletions` (--allow-drops): an update snippet's answer is the original with the snippet's segments
  placed, in order, between unchanged stretches of the original (`decompose`). An original line the
  answer lacks lies inside a stretch a segment replaced: between two of the segment's context lines,
  or edited in place at its edge (no more lines gone there than the segment brings), or past the
  snippet's first or last line where no marker stands for the rest (the snippet reaches the file's
  start or end). A segment of context only deletes between two blocks of its lines when it shows two
  lines of code on each side of the cut, or when no later segment changes anything (it orients none).
  Kept lines keep their order; the snippet is all there, in order.
- `definitions` (--allow-lost-definitions): a definition the edit never names does not disappear, nor
  is one written twice beside its namesake, nor a config key twice in one mapping, and a member an update
  snippet writes inside a definition of the file it shows to its closer stands inside it
  (defcheck.py's).
- `compiles` (--allow-syntax-errors): Python goes through `compile()` when the original did (TabError,
  IndentationError, `from __future__` placement); other languages: tree-sitter (checks.check_syntax).
- `heads` (--allow-head-changes): a shebang stays the first line, Go's `package` clause the first
  statement, and a C/C++ include guard still encloses the code.
- `unseen` (--allow-unseen-changes): no line comes back changed only where no reader sees it
  (`unseen_changes`: an invisible, separator or look-alike character written for another, such as
  U+2029 for U+2028 in a string), unless the edit names such characters.

This module reads text only: the snippet's segments (markers.py's markers), definitions and keys
(syntax.py), line likeness (linediff.py), and nothing of the merge (merge/), whose answer it checks
from the outside. It checks the run's stop rule (interrupt.py) between its checks, each of which may
parse or diff a whole file.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from applyedit import interrupt
from applyedit.defcheck import defined_twice, keys_twice, lost_definitions, misplaced
from applyedit.linediff import Matcher, depth, key, same
from applyedit.markers import attached, is_marker

if TYPE_CHECKING:
    pass

__all__ = [
    "ASKS_TO_DELETE",
    "Segment",
    "Violation",
    "attached_kept",
    "decompose",
    "depth",
    "key",
    "same",
    "segments",
    "violations",
]

# An instruction that asks for lines to go: the deletion guard stands aside.
ASKS_TO_DELETE = re.compile(
    r"\b(delet|remov|drop|strip|eras|cut|trim|purg|eliminat|get rid|shorten|truncat|prun|"
    r"discard|empty|keep only|only keep|clear out)",
    re.I,
)

_MISSING = "the answer does not hold the snippet's segment"
_CHANGED = "the answer changes, adds or moves lines the snippet does not show"
_SEARCH_BUDGET = 20_000  # placements tried before the decomposition gives up (then: no valid reading)
NOT_COMPILING = "the answer does not compile as Python"  # how a "compiles" violation begins


@dataclass(frozen=True)
class Violation:
    name: str  # "snippet", "deletions", "definitions", "compiles", "heads" or "unseen" (readings.SYNTAX: "syntax")
    message: str


@dataclass(frozen=True)
class Segment:
    """Snippet lines between two lazy markers (blank lines at both ends trimmed)."""

    lines: tuple[str, ...]
    marker_depth: int | None  # the indentation of the lazy marker above it; None: no marker above
    marker_after: bool

    @property
    def marker_before(self) -> bool:
        return self.marker_depth is not None


def _trim(lines: Sequence[str]) -> tuple[int, int]:
    lo, hi = 0, len(lines)
    while lo < hi and not lines[lo].strip():
        lo += 1
    while hi > lo and not lines[hi - 1].strip():
        hi -= 1
    return lo, hi


def segments(snippet: str) -> list[Segment]:
    """The snippet's segments, split on its lazy-marker lines."""
    found: list[Segment] = []
    cur: list[str] = []
    marker: int | None = None
    for line in [*snippet.split("\n"), None]:
        if line is not None and not is_marker(line):
            cur.append(line)
            continue
        lo, hi = _trim(cur)
        if hi > lo:
            found.append(Segment(tuple(cur[lo:hi]), marker, line is not None))
        cur, marker = [], None if line is None else depth(line)
    return found


@dataclass(frozen=True)
class Reading:
    """Where each segment stands: per segment, the original stretch [start, end) it replaced."""

    stretches: tuple[tuple[int, int], ...]


def decompose(original: str, output: str, snippet: str) -> Reading | str:
    """Read `output` as the original with the snippet's segments placed: the stretches they replaced,
    or why no reading meets the `deletions` invariant (a message)."""
    segs = segments(snippet)
    if not segs:
        return Reading(())
    ol, xl = original.split("\n"), output.split("\n")
    if ol and ol[-1] == "":
        ol = ol[:-1]
    if xl and xl[-1] == "":
        xl = xl[:-1]
    search = _Search(ol, xl, segs)
    found = search.run()
    if found is not None:
        return found
    return search.why()


class _Search:
    """A depth-first search for a placement of every segment in the output and every stretch between
    them in the original that meets the `deletions` invariant."""

    def __init__(self, ol: list[str], xl: list[str], segs: list[Segment]) -> None:
        self.ol, self.xl, self.segs = ol, xl, segs
        self.okeys = [key(x) for x in ol]
        self.xkeys = [key(x) for x in xl]
        self.budget = _SEARCH_BUDGET
        have = set(self.okeys)
        self.brings = [any(key(x) not in have for x in seg.lines if x.strip()) for seg in segs]
        self.worst = ""  # the most telling failure seen, for the message
        self.depth = -1
        # where each segment stands in the output: its keys as a contiguous block
        self.places: list[list[int]] = []
        for seg in segs:
            keys = [key(x) for x in seg.lines]
            n = len(keys)
            self.places.append([c for c in range(len(xl) - n + 1) if self.xkeys[c : c + n] == keys])

    def _fail(self, depth: int, why: str) -> None:
        if depth >= self.depth:
            self.depth, self.worst = depth, why

    def why(self) -> str:
        if any(not p for p in self.places):
            n = next(i for i, p in enumerate(self.places) if not p)
            first = self.segs[n].lines[0].strip()
            return f"{_MISSING} {n + 1} (from {first!r}) as given"
        return self.worst or "no reading places the snippet's segments between unchanged stretches of the original"

    def run(self) -> Reading | None:
        return self._place(0, 0, 0, [])

    def _place(self, n: int, x_from: int, o_from: int, stretches: list[tuple[int, int]]) -> Reading | None:
        """Place segment n at or after output line `x_from`; the original is consumed up to `o_from`
        (the end of the last unchanged stretch, or of the stretch segment n-1 replaced)."""
        if self.budget <= 0:
            return None
        if n == len(self.segs):
            # the output's rest is the original's rest
            gap = self.xl[x_from:]
            at = self._gap_at(gap, o_from, final=True)
            if not at:
                self._fail(n, f"{_CHANGED}: the answer's end is not the original's end")
            for start in at:
                # the last segment's stretch ends where the rest starts
                prev = stretches[-1]
                fixed = [*stretches[:-1], (prev[0], start)]
                if self._justified(n - 1, fixed[-1]):
                    return Reading(tuple(fixed))
            return None
        seg = self.segs[n]
        placed = False
        for c in self.places[n]:
            if c < x_from:
                continue
            self.budget -= 1
            if self.budget <= 0:
                return None
            gap = self.xl[x_from:c]
            for start in self._gap_at(gap, o_from, final=False, first=n == 0):
                placed = True
                # the gap stands at original [start, start + len); the previous segment's stretch ends at start
                if n > 0:
                    prev = stretches[-1]
                    if not self._justified(n - 1, (prev[0], start)):
                        continue
                    done = [*stretches[:-1], (prev[0], start)]
                else:
                    done = []
                gap_end = start + self._gap_len(gap, start)
                # this segment's stretch starts at gap_end; its end is fixed by the next gap
                found = self._place(n + 1, c + len(seg.lines), gap_end, [*done, (gap_end, gap_end)])
                if found is not None:
                    return found
        if not placed:
            self._fail(
                n, f"{_CHANGED}: no place for segment {n + 1} (from {seg.lines[0].strip()!r}) keeps the code around it"
            )
        return None

    def _gap_len(self, gap: list[str], start: int) -> int:
        """How many original lines from `start` the gap's lines are (blank lines at its ends are soft)."""
        lo, hi = _trim(gap)
        if hi == lo:
            return 0
        o = start
        while o < len(self.ol) and not self.ol[o].strip():
            o += 1
        end = o + (hi - lo)
        return end - start

    def _gap_at(self, gap: list[str], o_from: int, final: bool, first: bool = False) -> list[int]:
        """Where an unchanged stretch of the output (`gap`) may stand in the original, from `o_from`
        on: the starts to try, best first. Blank lines at the gap's ends may differ."""
        lo, hi = _trim(gap)
        body = gap[lo:hi]
        m = len(self.ol)
        if not body:
            if final:
                return [m]  # nothing kept after the last segment: its stretch reaches the end
            if first:
                return [0]
            return list(range(o_from, m + 1))
        starts = []
        for p in range(o_from, m - len(body) + 1):
            if all(same(body[i], self.ol[p + i]) for i in range(len(body))):
                # include blank lines right above it in the stretch kept
                q = p
                while q > o_from and not self.ol[q - 1].strip():
                    q -= 1
                starts.append(q)
        if first:
            starts = [s for s in starts if not any(x.strip() for x in self.ol[:s])]
        if final:
            ends = [s for s in starts if not any(x.strip() for x in self.ol[s + self._gap_len(gap, s) :])]
            return ends
        return starts

    def _justified(self, n: int, stretch: tuple[int, int]) -> bool:
        """Segment n replaced original [start, end): is every original line it lost justified?"""
        seg, (start, end) = self.segs[n], stretch
        if end < start:
            return False
        old = self.ol[start:end]
        new = list(seg.lines)
        pairs = _context_pairs([key(x) for x in new], [key(x) for x in old])
        paired_old = {j for _, j in pairs if old[j].strip()}
        paired_new = {i for i, _ in pairs}
        lost = [j for j in range(len(old)) if old[j].strip() and j not in paired_old]
        if not lost:
            return True
        ctx = [(i, j) for i, j in pairs if old[j].strip()]
        reaches_start = n == 0 and not seg.marker_before
        reaches_end = n == len(self.segs) - 1 and not seg.marker_after
        if not ctx:
            brought = sum(1 for i, x in enumerate(new) if x.strip() and i not in paired_new)
            if reaches_start or reaches_end or len(lost) <= brought:
                return True
            self._fail(n + 1, self._lost_message(n, start, lost))
            return False
        (i0, j0), (i1, j1) = ctx[0], ctx[-1]
        if not any(x.strip() and i not in paired_new for i, x in enumerate(new)):
            # context only: it deletes what lies between two blocks of its lines (a cut), if it shows them
            cut = _cut([key(x) for x in new], [key(x) for x in old])
            between = cut is not None  # then every line it lost lies between its two blocks
            inner = [j for j in lost if j0 < j < j1]
            if cut is None and inner:
                cut = (sum(1 for _, j in ctx if j < inner[0]), sum(1 for _, j in ctx if j > inner[-1]))
            if cut is not None and not self._shown(n, *cut):
                self._fail(n + 1, self._lost_message(n, start, lost))
                return False
            if between:
                return True
        above = [j for j in lost if j < j0]
        below = [j for j in lost if j > j1]
        new_above = sum(1 for i in range(i0) if new[i].strip() and i not in paired_new)
        new_below = sum(1 for i in range(i1 + 1, len(new)) if new[i].strip() and i not in paired_new)
        ok_above = not above or reaches_start or len(above) <= new_above
        ok_below = not below or reaches_end or len(below) <= new_below
        if ok_above and ok_below:
            return True
        self._fail(n + 1, self._lost_message(n, start, above if not ok_above else below))
        return False

    def _shown(self, n: int, above: int, below: int) -> bool:
        """A segment of context only deletes what lies between its lines (the end of one function, the
        start of the one after the next) when no later segment changes anything (it orients none: the
        snippet's only change, or one after the last), or when it shows two lines of code on each side
        of the cut (`above`, `below`): one line (`}`) may be mere orientation for the change after it."""
        return not any(self.brings[n + 1 :]) or (above >= 2 and below >= 2)

    def _lost_message(self, n: int, start: int, lost: list[int]) -> str:
        first = self.ol[start + lost[0]].strip()
        return (
            f"the answer deletes {len(lost)} original line{'s' if len(lost) > 1 else ''} (from line "
            f"{start + lost[0] + 1}, {first!r}) outside every stretch the snippet's segment {n + 1} replaced"
        )


def attached_kept(original: str, snippet: str, reading: Reading) -> str | None:
    """Where the answer keeps, right above a segment, original lines that belong to the line below
    them (decorators, annotations, attributes, comments: markers.attached) of the kinds that the
    segment opens with after its marker, showing none of them: the segment shows that line's own
    (`@classmethod` above `def build`, where the original has `@staticmethod`), which replace them. A
    segment that shows fewer lines than it would replace may mean either, and passes. None: none kept."""
    ol = original.split("\n")
    for seg, (start, _) in zip(segments(snippet), reading.stretches, strict=True):
        n = next((i for i, x in enumerate(seg.lines) if attached(x) is None), len(seg.lines))
        if not seg.marker_before or not n or n == len(seg.lines) or start >= len(ol):
            continue
        if not re.search(r"\w", seg.lines[n]):
            continue  # they stand above a blank line or a `}`: no line of code they belong to
        if key(ol[start]) != key(seg.lines[n]):
            continue  # the segment's first line below them is not the original's there: not kept above it
        kinds = {attached(x) for x in seg.lines[:n]}
        above = start
        while above > 0 and attached(ol[above - 1]) in kinds and depth(ol[above - 1]) - depth(ol[start]) in (0, 1):
            above -= 1
        run = {key(x) for x in ol[above:start]}
        telling = [key(x) for x in seg.lines[:n] if re.search(r"\w", x)]  # `*/` alone is context
        if above < start <= above + n and telling and not run & set(telling):
            return (
                f"the answer keeps {ol[above].strip()!r} above {ol[start].strip()!r}, where the snippet shows "
                f"{seg.lines[0].strip()!r} in its place"
            )
    return None


def _cut(new: list[str], old: list[str]) -> tuple[int, int] | None:
    """A segment of context only (`new`, keys) read as two blocks of the stretch it replaced (`old`):
    its first lines the stretch's first, its last lines the stretch's last, code on both sides, and the
    lines of code above and below the cut (the most even cut); None when it stands so nowhere."""
    found = []
    for t in range(1, len(new)):
        top, bottom = new[:t], new[t:]
        if len(old) > len(new) and old[:t] == top and old[len(old) - len(bottom) :] == bottom:
            above, below = sum(1 for k in top if k), sum(1 for k in bottom if k)
            if above and below:
                found.append((min(above, below), above, below))
    return max(found)[1:] if found else None


def _context_pairs(new: list[str], old: list[str]) -> list[tuple[int, int]]:
    """Segment lines paired with the original lines of the stretch it replaced: its leading lines with
    the stretch's first ones and its trailing lines with the last ones, as far as they are equal
    (where `patch` puts a hunk's context), then a line diff of what is left between."""
    return [(i + t, j + t) for i, j, size in Matcher(new, old).get_matching_blocks() for t in range(size)]


_IMPORT = re.compile(
    r"^\s*(import\s|from\s+\S+\s+import\s|#\s*include\s|use\s|(const|let|var)\s+.*=\s*require\(|using\s)"
)
_NEAR_ROWS = 3  # rows apart that make two copies of an import one block


def imports_twice(original: str, output: str, snippet: str) -> list[str]:
    """Import lines (`import`, `from x import`, `#include`, `use`, `require`) that stand twice in the
    output within a few rows of each other while the original and the snippet each hold them at most
    once: the snippet moved the line within its block and the answer kept the old copy too."""
    keys = [key(x) for x in output.split("\n")]
    before = [key(x) for x in original.split("\n")]
    shown = [key(x) for x in snippet.split("\n") if not is_marker(x)]
    found = []
    for k in dict.fromkeys(k for k in keys if k and _IMPORT.match(k)):
        rows = [n for n, x in enumerate(keys) if x == k]
        near = any(b - a <= _NEAR_ROWS for a, b in zip(rows, rows[1:], strict=False))
        if near and before.count(k) <= 1 and shown.count(k) <= 1:
            found.append(k)
    return found


def python_compile_error(original: str, output: str) -> str | None:
    """Why the output does not compile as Python when the original did (None: it does, or the
    original did not either)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(original, "<original>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return None
        try:
            compile(output, "<answer>", "exec", dont_inherit=True)
        except SyntaxError as exc:
            return f"{type(exc).__name__} at line {exc.lineno}: {exc.msg}"
        except ValueError as exc:
            return str(exc)
    return None


_GUARD = re.compile(r"\s*#\s*(ifndef|if\s+!\s*defined)\s*\(?\s*(\w+)")


def _code_lines(lines: list[str]) -> list[str]:
    """Non-blank lines outside the obvious comments (`//`, `/* */` blocks, `#` for none)."""
    out, in_block = [], False
    for line in lines:
        s = line.strip()
        if in_block:
            in_block = "*/" not in s
            continue
        if not s or s.startswith("//"):
            continue
        if s.startswith("/*"):
            in_block = "*/" not in s
            continue
        out.append(s)
    return out


def head_changes(original: str, output: str, language: str) -> list[str]:
    """What the output changed of the file's head: the shebang, Go's package clause, an include guard."""
    ol, xl = original.split("\n"), output.split("\n")
    found = []
    if ol and ol[0].startswith("#!") and (not xl or xl[0] != ol[0]):
        found.append(f"the shebang {ol[0]!r} is no longer the first line")
    if language == "go":
        oc, xc = _code_lines(ol), _code_lines(xl)
        if oc and oc[0].startswith("package ") and (not xc or xc[0] != oc[0]):
            found.append(f"{oc[0]!r} is no longer the file's first statement")
    if language in ("c", "cpp"):
        oc, xc = _code_lines(ol), _code_lines(xl)
        guard = _GUARD.match(oc[0]) if oc else None
        if guard and len(oc) > 2 and oc[1].replace(" ", "").startswith(f"#define{guard.group(2)}"):
            if oc[-1].startswith("#endif") and (len(xc) < 3 or xc[:2] != oc[:2] or not xc[-1].startswith("#endif")):
                found.append(f"code stands outside the include guard {guard.group(2)}")
    return found


def violations(
    original: str, output: str, edit: str, kind: str, language: str, path: str | None = None
) -> list[Violation]:
    """Every invariant the answer breaks (LF-only texts; `kind` "snippet" or "instruction")."""
    found: list[Violation] = []
    marked = kind == "snippet" and any(is_marker(x) for x in edit.split("\n"))
    if marked:
        reading = decompose(original, output, edit)
        if isinstance(reading, str):
            missing = reading.startswith((_MISSING, _CHANGED))
            found.append(Violation("snippet" if missing else "deletions", reading))
        elif kept := attached_kept(original, edit, reading):
            found.append(Violation("snippet", kept))
        for line in imports_twice(original, output, edit):
            found.append(
                Violation(
                    "snippet",
                    f"the answer holds {line.strip()!r} twice, a few lines apart, where the original and the snippet "
                    "hold it once: a moved line read as a new one",
                )
            )
    interrupt.check()  # each check below parses or diffs the whole answer: seconds on a large file
    if marked or (kind == "instruction" and not ASKS_TO_DELETE.search(edit)):
        lost = lost_definitions(original, output, edit, language, path, whole_ok=marked, snippet=marked)
        if lost:
            found.append(
                Violation(
                    "definitions",
                    f"the answer deletes {', '.join(lost[:3])}{' and more' if len(lost) > 3 else ''}, which the edit "
                    "never shows",
                )
            )
    interrupt.check()
    for name in keys_twice(original, output, language, path)[:1]:
        found.append(
            Violation(
                "definitions", f"the answer holds key {name!r} twice in one mapping, where the original holds it once"
            )
        )
    for definition in misplaced(original, edit, output, language, path)[:1] if marked else []:
        found.append(
            Violation("definitions", f"the answer writes a line the edit shows inside {definition} outside it")
        )
    for header in defined_twice(original, output, edit, language, path)[:1]:
        found.append(
            Violation(
                "definitions", f"the answer defines {header!r} twice, where the original and the edit hold it once"
            )
        )
    interrupt.check()
    if language == "python":
        error = python_compile_error(original, output)
        if error:
            found.append(Violation("compiles", f"{NOT_COMPILING} ({error}) while the original did"))
    interrupt.check()
    for change in head_changes(original, output, language):
        found.append(Violation("heads", change))
    found += [Violation("unseen", change) for change in unseen_changes(original, output, edit)]
    return found


# Look-alike letters (Cyrillic and Greek) as the Latin ones they read as, and hyphens as "-".
_LOOKALIKE = str.maketrans(
    "АВЕКМНОРСТХаеорсухіјѕԁԛԝΑΒΕΖΗΙΚΜΝΟΡΤΥΧονı\u2010\u2011\u2212",
    "ABEKMHOPCTXaeopcyxijsdqwABEZHIKMNOPTYXovi---",
)
# An edit that speaks of such characters: their notations, or words for them.
_NAMES_UNSEEN = re.compile(
    r"\\u[0-9a-f]{4}|\\x[0-9a-f]{2}|u\+[0-9a-f]{4}|&#|&nbsp|unicode|invisible|zero[- ]width|non[- ]?breaking|"
    r"no[- ]break|nbsp|white ?space|separator|homoglyph|confusable|look[- ]?alike|normali[sz]|ascii|\bbom\b|"
    r"byte order mark|control char|encod",
    re.I,
)


def _as_seen(line: str) -> str:
    """A line as a reader sees it: compatibility forms folded (NFKC), invisible format and control
    characters gone (a tab stays), every other space or separator one space, look-alike letters Latin."""
    import unicodedata

    out = []
    for ch in unicodedata.normalize("NFKC", line):
        kind = unicodedata.category(ch)
        if kind == "Cf" or (kind == "Cc" and ch != "\t"):
            continue
        out.append(" " if kind in ("Zs", "Zl", "Zp") else ch)
    return "".join(out).translate(_LOOKALIKE)


def unseen_changes(original: str, output: str, edit: str) -> list[str]:
    """Output lines that are new only where no reader sees it: each reads (`_as_seen`) as an original
    line that the output no longer has. None is refused when the edit shows that very line, holds one
    of the characters that differ, or speaks of such characters (`_NAMES_UNSEEN`, a character's
    Unicode name). Only lines holding a character beyond printable ASCII and the tab can differ so;
    visible edits, indentation and trailing blanks are other checks' business."""
    import unicodedata

    plain = re.compile(r"[\t\x20-\x7e]*")
    ol, xl = original.split("\n"), output.split("\n")
    if all(plain.fullmatch(x) for x in ol) and all(plain.fullmatch(x) for x in xl):
        return []
    kept, had = set(ol), set(xl)
    gone: dict[str, str] = {}
    for line in ol:
        if line not in had and not plain.fullmatch(line):
            gone.setdefault(_as_seen(line), line)
    if not gone or _NAMES_UNSEEN.search(edit):
        return []
    shown = {x.strip() for x in edit.split("\n") if x.strip()}
    found = []
    for n, line in enumerate(xl, 1):
        if line in kept or plain.fullmatch(line) or (was := gone.get(_as_seen(line))) is None:
            continue
        odd = {c for c in line + was if not plain.fullmatch(c)}
        differ = sorted({c for c in set(line) ^ set(was) if c in odd} or odd)  # or the same ones, moved
        names = [unicodedata.name(c, "") for c in differ]
        if line.strip() in shown or any(c in edit for c in differ):
            continue
        if any(name and name.lower() in edit.lower() for name in names):
            continue
        said = ", ".join(f"U+{ord(c):04X} {name}".rstrip() for c, name in zip(differ, names, strict=True))
        found.append(
            f"the answer's line {n} differs from the original's only in characters no reader sees ({said}), "
            "which the edit never names"
        )
    return found
