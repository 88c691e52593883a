"""The one error hierarchy of applyedit.

Every error a user can cause or meet is an `ApplyEditError` subclass carrying a message written for
that user and an exit code (the CLI's `EXIT_CODES` table says what each code means). The CLI maps
them to one stderr line; library code raises them and never prints. Third-party exceptions are
wrapped where they happen, kept as `__cause__`. `either` words a list of choices for a message, and
`quoted` a line of the user's input that a message quotes, kept short (a refusal quoting a 1 MiB
line is one short line, not the line).

A refusal of the model's output carries what was refused: the model's raw text and its decode (for
the eval) and the rejected file (kept in FILE.rej by the CLI); None on every other error.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from applyedit.decoded import DecodeResult


def either(names: Iterable[str]) -> str:
    """'torch, llamacpp or vllm': names to choose from, for a message."""
    *rest, last = names
    return f"{', '.join(rest)} or {last}" if rest else last


QUOTE_CHARS = 60  # the characters of a quoted line a message shows before the ellipsis


def quoted(line: str, number: int | None = None) -> str:
    """`line`, stripped, as repr shows it when it has at most `QUOTE_CHARS` characters; else its first
    `QUOTE_CHARS` (as repr shows them), an ellipsis, and in parentheses `number` (where the caller knows
    it) and its length: `'x = "aaaa…aaaa'… (line 12, 1,048,583 characters)`."""
    text = line.strip()
    if len(text) <= QUOTE_CHARS:
        return repr(text)
    where = f"line {number}, " if number is not None else ""
    return f"{text[:QUOTE_CHARS]!r}… ({where}{len(text):,} characters)"


class ApplyEditError(Exception):
    """Root of all expected failures; `exit_code` is the CLI's exit status for it (1 unless a subclass says)."""

    exit_code = 1
    output: str | None = None  # the model's raw output text, when its refusal raised this (outcome.checked)
    decode: DecodeResult | None = None  # the decode that wrote that output
    rejected: str | None = None  # the refused file in the original's text style (None: nothing to keep)
    # A snippet refused for its readings: how many it has (`--reading N` takes one), and where they differ
    # (each {"line": first original line, "end": last, "readings": each reading's first line there}).
    readings: int = 0
    places: tuple[dict[str, object], ...] = ()


class UsageError(ApplyEditError):
    """Bad flags or bad input files (exit 1)."""


class InputError(UsageError):
    """The file or the edit cannot be used as given (exit 1)."""


class AmbiguousEditError(InputError):
    """The update snippet fits two readings equally (two places for its code), or, with `--answer merge`,
    has no confirmed reading: nothing is written (exit 1)."""


class PromptTooLongError(UsageError):
    """Prompt plus output budget does not fit the model's context (exit 1)."""


class ModelError(ApplyEditError):
    """The model could not be found, assembled, verified or loaded (exit 2)."""

    exit_code = 2


class ModelNotPrepared(ModelError):
    """A model the run needs is not prepared, and this run may not prepare it (a server's request: the
    server never writes model files for one); `applyedit model prepare` does (exit 2, HTTP 503)."""


class DecodeError(ApplyEditError):
    """Decoding failed or its output is unusable: truncated, no code block (exit 2)."""

    exit_code = 2


class RunTimeout(DecodeError):
    """`--timeout` passed before the output was complete (exit 2)."""


class OutputCheckError(ApplyEditError):
    """The model's output failed a check (markers left, dropped code, syntax) (exit 3)."""

    exit_code = 3
