"""A SEARCH/REPLACE block whose REPLACE holds lazy markers, read as an update snippet against the place
its SEARCH found (`block_reader`, which formats/ladder.py calls), and `--reading N`'s pick among a
snippet's readings (`take_reading`, which a block and a whole run both use). Reads by merge/confirm.py
as any snippet is read; knows nothing of models, files or output.
"""

from __future__ import annotations

import dataclasses
import difflib
import os.path

from applyedit import interrupt, merge
from applyedit.errors import AmbiguousEditError, InputError
from applyedit.formats.ladder import Reader
from applyedit.formats.parts import Change
from applyedit.merge import confirm, reindent
from applyedit.options import RunOptions
from applyedit.result import Inputs

__all__ = ["block_reader", "take_reading"]


def take_reading(got: Inputs, merged: merge.MergeResult | None, n: int) -> merge.MergeResult:
    """Reading `n` (1-based) of the snippet, as a refusal listed them (`--reading N`): that file as the
    merge's answer, held to the same checks afterwards. InputError where the snippet has no such reading."""
    found = () if merged is None else (merged.merged,) if merged.ok and merged.merged else merged.readings
    if merged is None or not 1 <= n <= len(found):
        raise InputError(
            f"--reading {n}: the edit has {len(found)} reading{'s' if len(found) != 1 else ''} to choose from"
            + ("" if merged is None or merged.ok else f" ({merged.reason})")
        )
    if merged.ok:
        return merged
    note = f"reading {n} of {len(found)} taken, as --reading asked ({merged.reason})"
    return merge.as_reading(got.src.text, found[n - 1], (note,))


def block_reader(got: Inputs, opts: RunOptions) -> Reader:
    """The snippet reader of a SEARCH/REPLACE block whose REPLACE holds lazy markers (formats/ladder.py
    calls it with the place its SEARCH found): the REPLACE read as an update snippet against that place
    alone, by merge/confirm.py as any snippet is, the place's common indentation set aside while it
    reads. A certain reading is the place's new lines; else the block is refused with its readings and
    the places where they differ (file lines), as a snippet is, or `--reading N` takes one (of one
    such block: with two it is refused, naming them)."""
    src, taken = got.src, list[str]()

    def read(region: list[str], snippet: list[str], change: Change, start: int) -> list[str]:
        interrupt.check()
        cut = os.path.commonprefix([_lead(x) for x in [*region, *snippet] if x.strip()])
        original = "".join(x[len(cut) :] + "\n" if x.strip() else "\n" for x in region)
        edit = reindent.to_file_style(original, "".join(x[len(cut) :] + "\n" if x.strip() else "\n" for x in snippet))
        merged = confirm.confirmed(original, edit, src.language, str(src.path), with_readings=True)
        where = f"lines {start + 1}-{start + len(region)} of {got.shown}" if region else f"{got.shown}"
        if not merged.ok and opts.reading is not None:
            taken.append(change.label)
            if len(taken) > 1:
                raise InputError(
                    f"--reading {opts.reading}: {taken[0]} and {taken[1]} of the SEARCH/REPLACE edit each have "
                    "readings to choose from, and --reading takes one of a single block's; nothing was written"
                )
            alone = dataclasses.replace(got, src=dataclasses.replace(src, text=original))
            merged = take_reading(alone, merged, opts.reading)
        if not merged.ok or merged.merged is None:
            raise _block_refusal(merged, change.label, where, start)
        body = [cut + x if x.strip() else "" for x in merged.merged.split("\n")]
        body = body[:-1] if body and body[-1] == "" else body
        return _blank_lines_kept(region, body)

    return read


def _lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _blank_lines_kept(region: list[str], body: list[str]) -> list[str]:
    """`body` with the stretches it keeps of `region` as the region has them (blank lines with their spaces)."""
    was, now = ([x if x.strip() else "" for x in lines] for lines in (region, body))
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, was, now, autojunk=False).get_opcodes():
        out += region[i1:i2] if tag == "equal" else body[j1:j2]
    return out


def _block_refusal(merged: merge.MergeResult, label: str, where: str, start: int) -> AmbiguousEditError:
    """The refusal of a block whose REPLACE, read as an update snippet against its place, has no certain
    reading: the reader's reason, and its readings and places as a snippet's refusal carries them, the
    places in the file's lines."""
    count = len(merged.readings)
    why = merged.reason or "no reading is certain"
    error = AmbiguousEditError(
        f"{label} of the SEARCH/REPLACE edit: its REPLACE part, an update snippet read against {where}, has no "
        f"certain reading: {why} (line 1 there is line {start + 1} of the file); nothing was written (show more "
        "context in the REPLACE part, or write out the code its lazy marker stands for"
        + ("; --reading N takes one of the readings)" if count > 1 else ")")
    )
    error.readings = count
    error.places = tuple(
        {"line": start + p.start + 1, "end": start + max(p.start + 1, p.end), "readings": list(p.firsts)}
        for p in merged.places
    )
    return error
