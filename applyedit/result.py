"""What one run passes along and hands back: the inputs as read (`Inputs`), the job made ready for
decoding (`Job`), the output that passed the checks (`Answer`) and the run's result (`ApplyResult`).

Plain data, shared by api.py (which builds `Inputs` and `Job`) and outcome.py (which builds `Answer`
and `ApplyResult`), so neither imports the other. The report's shape is the report package's. Computes
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from applyedit import textio
    from applyedit.decoded import DecodeResult
    from applyedit.models.engine import Engine
    from applyedit.report import Report
    from applyedit.report.stats import Summary


@dataclass(frozen=True)
class Inputs:
    """The file and the edit as read and normalised, before any model is involved."""

    src: textio.SourceFile
    shown: str  # the path as written in the diff headers
    edit: str  # the edit as the model sees it (unwrapped from a chat fence); an edit format's: as written
    kind: str  # "snippet" | "instruction", or an edit format's name (formats.NAMES): applied with no model
    implied: bool  # a marker-less piece of the file, read as an update snippet
    fragment: bool = False  # an "instruction" that is code (lines of the file, or parsing as code): no markers


@dataclass(frozen=True)
class Job:
    """One file and edit made ready for decoding: the prompt's token ids and the output budget."""

    engine: Engine
    src: textio.SourceFile
    shown: str  # the path as written in the diff headers
    edit: str  # the edit as the model sees it (unwrapped from a chat fence)
    kind: str  # "snippet" | "instruction"
    fence: str
    prompt_ids: list[int]
    budget: int
    implied: bool = False  # the edit had no lazy marker but is a piece of the file: markers implied


@dataclass(frozen=True)
class Answer:
    """The output that passed the checks (or the merge that replaced a refused one)."""

    output: str  # the model's raw output text
    body: str  # the new file's text (normalised)
    model_body: str | None  # the model's file, when one was extracted (the report's regions)
    by: str  # "model" | "merge"
    notes: list[str]


@dataclass(frozen=True, kw_only=True)
class ApplyResult:
    """The new file, its diff and the run's record. `decode` is None when no decode ran (the
    snippet's merge answered: `answer` "merge", the summary's `stop_reason` "merge")."""

    path: str  # as written in the diff headers
    before: str  # the file as read (original line endings, BOM)
    after: str  # the new file, in the original's text style
    diff: str  # "" when nothing changed
    kind: str  # "snippet" | "instruction", or the edit format's name (formats.NAMES)
    output: str  # the model's raw output text (after the pre-filled opening fence); "" when no model ran
    decode: DecodeResult | None  # the model's decode; None: the merge answered without one
    summary: Summary
    report: Report  # per-region statistics and the run's record (report.run_report)
    notes: tuple[str, ...] = ()  # warnings for the user (e.g. a check that could not run)
    source_sha256: str = ""  # of the file's bytes as read at the start: `--in-place` refuses if they changed
    answer: str = "model"  # "model", or "merge": no model ran (answer_by_merge) or the model's output was refused

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def tokens(self) -> list[int]:
        """The output's token ids ([] when no decode ran)."""
        return list(self.decode.tokens) if self.decode is not None else []
