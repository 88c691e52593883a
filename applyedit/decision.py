"""What a run does with its edit, decided in one place. `decide` reads the snippet's readings
(merge/confirm.py's `MergeResult`: certain, or not with its candidate files and the places where they
differ) and the run's options, and returns one of:

- `Merge(result)`: a reading is the answer with no model: certain, picked by `--reading N`, or chosen
  by the model's tie-break; held to every output check (outcome.answer_by_merge), and where it fails
  one, `unanswered` decides again;
- `Choose(result)`: 2 to 5 valid readings and the model's tie-break is on: the model scores them
  (api.choose_reading), and `decide` reads its choice; never between twins (one edit at two places
  that read the same: nothing tells them apart, the model's preference would be a coin's), nor where
  they differ only in how a segment of new lines sits at the file's edge (no marker shown past it);
- `Model(anchor)`: the model writes the answer (an instruction, `--answer auto` on a snippet with no
  certain reading, `--answer model`), drafting from the merge's file and anchored by it where it is
  certain (`anchor`: the merge result, or None);
- `Refuse(result, why)`: nothing is written; `why` is the message, and the result carries the readings
  (how many, and their places) for the caller (api.refusal).

Owns the refusal messages of a snippet; knows nothing of models, files or checks.
"""

from __future__ import annotations

from dataclasses import dataclass

from applyedit.merge import MergeResult
from applyedit.options import RunOptions

__all__ = ["Choose", "Decision", "Merge", "Model", "Refuse", "decide", "unanswered"]


@dataclass(frozen=True)
class Merge:
    result: MergeResult  # ok: its `merged` is the answer


@dataclass(frozen=True)
class Choose:
    result: MergeResult  # not ok, with 2 to 5 `readings`


@dataclass(frozen=True)
class Model:
    anchor: MergeResult | None  # the snippet's reading, for drafting and the anchor; None for an instruction


@dataclass(frozen=True)
class Refuse:
    result: MergeResult | None
    why: str


Decision = Merge | Choose | Model | Refuse

AMBIGUOUS = (
    "the update snippet is ambiguous: {why}; nothing was written (add a line of context that tells the places "
    "apart, or a lazy marker where code is kept; --reading N takes one of the readings; --answer model lets the "
    "model choose)"
)
FRAGMENT = (
    "the edit is a piece of code with no lazy markers, and it stands in the file at no single place{where}; nothing "
    "was written (show a line of the file around it and lazy markers where code is kept, or write the edit as an "
    "instruction; --answer auto lets the model read it)"
)
UNCERTAIN = (
    "the update snippet has no reading certain enough to write: {why}; nothing was written (show more context "
    "around each change, with lazy markers where code is kept; --answer auto lets the model decide, held to the "
    "same checks)"
)


def decide(
    merged: MergeResult | None, opts: RunOptions, fragment: bool = False, tiebreak: bool = False, where: str = ""
) -> Decision:
    """The run's course for an edit: `merged` is its snippet's reading (None: an instruction),
    `fragment` whether it is marker-less code that places nowhere single (`where`: the file's places its
    definitions could be, said in its refusal), `tiebreak` whether the model may choose between readings
    (speculative/tiebreak.MARGIN is set)."""
    if opts.answer == "model":
        return Model(merged)
    if opts.answer == "merge" and fragment and (merged is None or not merged.ok):
        return Refuse(merged, FRAGMENT.format(where=where))
    if merged is None:
        return Model(None)
    if merged.ok:
        return Merge(merged)
    if tiebreak and 2 <= len(merged.readings) <= 5 and not merged.twins and not merged.unplaced:
        return Choose(merged)
    if merged.ambiguous:
        return Refuse(merged, AMBIGUOUS.format(why=merged.reason))
    return unanswered(merged, opts)


def unanswered(merged: MergeResult, opts: RunOptions, why: str = "") -> Refuse | Model:
    """A snippet with no reading that answers alone (none certain, or the certain one fails an output
    check or changes nothing: `why`, outcome.answer_by_merge's): refused with `--answer merge`, else the
    model's."""
    if opts.answer == "merge":
        why = (merged.reason if not merged.ok else "") or why or "its reading changes nothing in the file"
        return Refuse(merged, UNCERTAIN.format(why=why))
    return Model(merged)
