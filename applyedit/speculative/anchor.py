"""Anchored output: the stretches of the original that an unambiguous merge keeps, forced into the output.

Owns `stretches` (which merged lines are anchored: original lines away from every hunk of an `ok`
merge, each stretch after the first starting at a line the model can be seen to re-join on) and
`Anchor`, the decode loop's `Constraint` over them: at the start of the output, and whenever the
output (at a line boundary) has just written the first line(s) of the next stretch, the rest of that
stretch (tokenized from the line boundary) is forced; everywhere else the model decides. The last
stretch ends with the closing fence when it reaches the end of the file. Works on lines, bytes and
token ids; knows nothing of the model or the loop.

A stretch never ends right before a blank line (it ends earlier): a forced line end would split a
newline token the model would write whole. Example: hunks at merged lines 40-42 and 90: lines 1-38 are
forced from the start, the model writes
39-43 until it writes line 44 (the first distinctive line after the hunk), then 45-88 are forced,
the model writes 89-91 and re-joins at 92, and 93 to the end plus the fence are forced.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from applyedit import merge, textio

__all__ = ["Anchor", "Stretch", "stretches"]

BEFORE, AFTER = 2, 1  # merged lines the model decides before and after each hunk
MIN_LINES = 3  # a shorter stretch is not worth anchoring: the model writes it
_WORD = re.compile(r"\w{2}")


@dataclass(frozen=True, slots=True)
class Stretch:
    """Merged lines [start, start + len(lines)) kept from the original; `orig_start` is the first one's
    0-based original line. `lines` may end with the closing fence (then `fence` is True)."""

    start: int
    orig_start: int
    lines: tuple[str, ...]
    fence: bool = False


def stretches(original: str, result: merge.MergeResult, fence: str) -> list[Stretch]:
    """The anchored stretches of an `ok` merge, in order; [] when nothing is worth anchoring."""
    if not result.ok or result.whole_file or result.merged is None or not result.hunks:
        return []
    ol, ml = textio.lines_of(original), textio.lines_of(result.merged)
    source, spans = merge.layout(result, len(ol))  # merged line -> its original line, None for a hunk's
    free = {n for a, b in spans for n in range(a - BEFORE, b + AFTER)}  # merged lines the model decides
    if len(source) != len(ml):
        return []  # hunks and merged text disagree: anchor nothing
    runs: list[list[int]] = []
    for n in range(len(ml)):
        if n in free or source[n] is None:
            continue
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    out: list[Stretch] = []
    for run in runs:
        if run[0] != 0:  # the output re-joins it on a line of the model's own: make that line telling
            zone = {ml[n].strip() for n in range(max(0, (out[-1].start + len(out[-1].lines)) if out else 0), run[0])}
            while run and not _telling(ml[run[0]], zone):
                zone.add(ml[run.pop(0)].strip())
        # Never end right before a blank line: the model would have to write "\n" alone where its own
        # tokens join the newlines of a line end and the blank lines after it ("}\n\n" is one token).
        while run and run[-1] + 1 < len(ml) and not ml[run[-1] + 1].strip():
            run.pop()
        if len(run) < MIN_LINES:
            continue
        end = run[-1] + 1 == len(ml)
        lines = tuple(ml[n] for n in run) + ((fence,) if end else ())
        out.append(Stretch(run[0], source[run[0]] or 0, lines, end))
    return out


def _telling(line: str, zone: set[str]) -> bool:
    """A line the model writing the hunk before it would not write by accident."""
    text = line.strip()
    return bool(_WORD.search(text)) and text not in zone and len(text) >= 4


@dataclass(frozen=True, slots=True)
class _State:
    stretch: int  # the next stretch to force or re-join (len(stretches): none left)
    forcing: bool  # True: inside stretch `stretch`'s forced tokens, at `pos` of `run`
    run: tuple[int, ...] = ()
    pos: int = 0
    matched: int = 0  # free: how many first lines of the next stretch the output just wrote
    partial: bytes = b""  # free: the bytes of the current unfinished output line


class Anchor:
    """The decode loop's `Constraint` for a list of stretches (see the module docstring)."""

    def __init__(
        self, token_bytes: Callable[[int], bytes], encode: Callable[[str], list[int]], found: Sequence[Stretch]
    ) -> None:
        self.stretches = list(found)
        self._encode = encode
        self._token_bytes_of = token_bytes
        self._bytes: dict[int, bytes] = {}
        self._runs: dict[tuple[int, int], tuple[int, ...]] = {}
        self._lines = [[line.rstrip().encode() for line in s.lines] for s in self.stretches]  # re-join keys
        first = self.stretches[0] if self.stretches else None
        self._state = self._enter(0, 0) if first is not None and first.start == 0 else _State(0, False)
        self._n = 0  # output tokens the state has followed

    def _run(self, s: int, j: int) -> tuple[int, ...]:
        """The tokens of stretch `s` from its line `j` on, tokenized from the line boundary."""
        if (s, j) not in self._runs:
            self._runs[(s, j)] = tuple(self._encode("".join(line + "\n" for line in self.stretches[s].lines[j:])))
        return self._runs[(s, j)]

    def _enter(self, s: int, j: int) -> _State:
        if j >= len(self.stretches[s].lines):  # the model wrote all of it: wait for the next one
            return _State(s + 1, False)
        return _State(s, True, self._run(s, j), 0, j)

    def _token_bytes(self, token: int) -> bytes:
        if token not in self._bytes:
            self._bytes[token] = self._token_bytes_of(token)
        return self._bytes[token]

    def _step(self, state: _State, token: int) -> _State:
        if state.forcing:
            if state.pos < len(state.run) and state.run[state.pos] == token:
                if state.pos + 1 < len(state.run):
                    return replace(state, pos=state.pos + 1)
                return _State(state.stretch + 1, False)
            return _State(len(self.stretches), False)  # off the forced text (cannot happen in the loop): stop anchoring
        data = state.partial + self._token_bytes(token)
        *done, partial = data.split(b"\n")
        s, matched = state.stretch, state.matched
        for line in (x.rstrip() for x in done):  # trailing blanks do not decide a re-join
            if s >= len(self.stretches):
                break
            want = self._lines[s]
            if matched < len(want) and line == want[matched]:
                matched += 1
            else:
                matched = 1 if line == want[0] else 0
        if s < len(self.stretches) and matched and not partial:
            return self._enter(s, matched)
        return _State(s, False, matched=matched, partial=partial if s < len(self.stretches) else b"")

    def _follow(self, output: Sequence[int]) -> _State:
        assert len(output) >= self._n, "the output only grows"
        for token in output[self._n :]:
            self._state = self._step(self._state, token)
        self._n = len(output)
        return self._state

    def forced(self, output: Sequence[int]) -> Sequence[int]:
        state = self._follow(output)
        return state.run[state.pos :] if state.forcing else ()

    def first_forced(self, output: Sequence[int], more: Sequence[int]) -> int | None:
        state = self._follow(output)
        for i, token in enumerate(more, 1):
            state = self._step(state, token)
            if state.forcing:
                return i
        return None
