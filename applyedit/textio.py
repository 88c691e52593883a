"""Text in, text out: reading files and edits, normalising them for the model, restoring the result.

Owns the text contracts: the model and the proposer see LF-only text without a BOM; the written
result gets the original's BOM and final-newline state back, each unchanged line its own line ending
and each new line the majority's. Reading is guarded: FILE must be a regular file, an edit may also
be a stream (stdin, a FIFO, a process substitution), and both are capped at `MAX_INPUT_BYTES`, so a
device or an endless stream is refused instead of read until memory runs out. Also owns fences (one
longer than any backtick run in the inputs), taking an edit out of a chat reply, extracting the file
body from the model's output, and a file's language (languages.py's table). Knows nothing of tokens or
the model.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from applyedit.errors import DecodeError, InputError
from applyedit.languages import BY_EXTENSION
from applyedit.linediff import Matcher
from applyedit.markers import is_marker

BOM = "\ufeff"
MAX_INPUT_BYTES = 8 * 1024 * 1024  # far past any model context; stops /dev/zero and endless streams


@dataclass(frozen=True, slots=True)
class TextStyle:
    """How a file's bytes differ from the LF-only text the model sees."""

    newline: str = "\n"  # "\n" or "\r\n": the majority style, given to new lines on write
    bom: bool = False
    final_newline: bool = True  # False when a non-empty file does not end with a newline
    # When both styles were present: each original line's own ending, kept on unchanged lines.
    endings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: Path
    raw: bytes  # exactly what was on disk
    text: str  # normalised: LF only, no BOM
    style: TextStyle
    language: str


def lines_of(text: str) -> list[str]:
    """The lines of LF text, without the empty one after a final newline ("a\nb\n" -> ["a", "b"])."""
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def language_for(path: Path, override: str | None = None) -> str:
    if override:
        return override.lower()
    return BY_EXTENSION.get(path.suffix.lower(), path.suffix.lstrip(".").lower() or "text")


def decode_text(raw: bytes, what: str, encoding: str = "utf-8") -> str:
    if b"\x00" in raw and encoding.lower().replace("-", "") == "utf8":
        raise InputError(f"{what} looks binary (it contains NUL bytes); applyedit edits text files")
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as e:
        raise InputError(
            f"{what} is not valid {encoding} (byte 0x{raw[e.start]:02x} at offset {e.start}); "
            "pass --encoding if it uses another encoding"
        ) from e
    except LookupError as e:
        raise InputError(f"unknown encoding {encoding!r}") from e


def normalise(text: str) -> tuple[str, TextStyle]:
    """LF-only, BOM-free text plus the style needed to restore the original form."""
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    newline = "\r\n" if crlf > lf else "\n"
    mixed = crlf > 0 and lf > 0
    endings = tuple(re.findall(r"\r?\n", text)) if mixed else ()
    text = text.replace("\r\n", "\n")
    final = text == "" or text.endswith("\n")
    return text, TextStyle(newline=newline, bom=bom, final_newline=final, endings=endings)


def restore(text: str, style: TextStyle, original: str = "") -> str:
    """Give LF-only model output the original's final-newline state, line endings and BOM.

    For a file with mixed line endings, `original` (its LF-only text) lets each line the output kept
    unchanged keep its own ending; new and changed lines get the majority's."""
    if not style.final_newline and text.endswith("\n"):
        text = text[:-1]
    if style.endings:
        text = _mixed_endings(text, original, style)
    elif style.newline == "\r\n":
        text = text.replace("\n", "\r\n")
    return (BOM + text) if style.bom else text


def _mixed_endings(text: str, original: str, style: TextStyle) -> str:
    old, new = original.split("\n"), text.split("\n")
    ends = [style.newline] * (len(new) - 1)  # the ending after each line of `new` but the last
    matcher = Matcher(old, new)
    for i, j, size in matcher.get_matching_blocks():
        for n in range(size):
            if j + n < len(ends) and i + n < len(style.endings):
                ends[j + n] = style.endings[i + n]
    return "".join(line + end for line, end in zip(new, ends, strict=False)) + new[-1]


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_capped(stream: BinaryIO, what: str) -> bytes:
    """Read a stream to its end, refusing one longer than `MAX_INPUT_BYTES` (read no further)."""
    try:
        raw = stream.read(MAX_INPUT_BYTES + 1)
    except OSError as e:
        raise InputError(f"cannot read {what}: {e.strerror}") from e
    if len(raw) > MAX_INPUT_BYTES:
        raise InputError(
            f"{what} is over {MAX_INPUT_BYTES // 2**20} MiB; applyedit reads no more (no model context holds that much)"
        )
    return raw


def check_input(path: Path, what: str, streams: bool = False) -> None:
    """Refuse, without opening it, what `read_input` would refuse by its type or size."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{what}: no such file") from None
    except OSError as e:
        raise InputError(f"cannot read {what}: {e.strerror}") from e
    stream = stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)
    if not stat.S_ISREG(st.st_mode) and not (streams and stream):
        kind = _kind(st.st_mode)
        raise InputError(
            f"{what} is {kind}, not a file"
            if kind == "a directory"
            else f"{what} is {kind}; applyedit edits regular files (give the source as '-' to pipe it)"
        )
    if stat.S_ISREG(st.st_mode) and st.st_size > MAX_INPUT_BYTES:
        raise InputError(
            f"{what} is {st.st_size / 2**20:.1f} MiB; applyedit reads files up to "
            f"{MAX_INPUT_BYTES // 2**20} MiB (no model context holds that much)"
        )


def read_input(path: Path, what: str, streams: bool = False) -> bytes:
    """The bytes of `path`: a regular file, or with `streams` also a FIFO, a process substitution or a
    character device (an edit may come from `<(...)`). Directories, sockets and, for FILE, anything
    but a regular file are refused before a byte is read, and reading stops at `MAX_INPUT_BYTES`."""
    check_input(path, what, streams)
    try:
        with open(path, "rb") as f:
            return read_capped(f, what)
    except OSError as e:
        raise InputError(f"cannot read {what}: {e.strerror}") from e


def source_from(path: Path, raw: bytes, language: str | None = None, encoding: str = "utf-8") -> SourceFile:
    """A source file from bytes already read (`path` names it: language, messages)."""
    text, style = normalise(decode_text(raw, str(path), encoding))
    return SourceFile(path, raw, text, style, language_for(path, language))


def read_source(path: Path, language: str | None = None, encoding: str = "utf-8") -> SourceFile:
    return source_from(path, read_input(path, str(path)), language, encoding)


_FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n`]*$")


def extract_edit(text: str, language: str = "") -> str:
    """The edit as the model should see it: LF-only, and an update snippet taken out of its chat fence.

    A snippet pasted from a chat reply ("Here is the update:\n```python\n# ... existing code ...\n
    ...\n```\nThis adds...") becomes the block's body. Only a block holding a lazy-marker line is
    unwrapped: in an instruction with a code block ("Write this module: ```...```") the prose is
    the instruction and must stay. Several blocks, or none, leave the text as it is.
    """

    text, _ = normalise(text)
    lines = text.split("\n")
    blocks: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if m:
            fence = m.group(1)
            for j in range(i + 1, len(lines)):
                if lines[j].strip() == fence:
                    blocks.append((i, j))
                    i = j
                    break
        i += 1
    if len(blocks) == 1:
        start, end = blocks[0]
        body = lines[start + 1 : end]
        outside = [line for n, line in enumerate(lines) if not start <= n <= end and line.strip()]
        if language == "markdown" and outside:
            pass  # a Markdown edit with prose around a block is Markdown, not a chat reply
        elif not outside or any(is_marker(line) for line in body):
            text = "\n".join(body)
    text = text.strip("\n")
    if not text.strip():
        raise InputError("the edit is empty")
    return text + "\n"


def fence_for(*texts: str) -> str:
    """A backtick fence longer than the longest backtick run in any of `texts` (at least 3)."""
    longest = max((len(run) for t in texts for run in re.findall(r"`+", t)), default=0)
    return "`" * max(3, longest + 1)


def extract_body(output: str, fence: str, ended: bool = False, original: str = "") -> str:
    """The file body from the model's output, which continues a prompt ending in the opening fence.

    The body ends at the first line that is exactly `fence`. When the model ended its turn (`ended`)
    right after a shorter fence of the same character (``` where ```` was opened, as models do), that
    last line closes the block too, provided the body before it already holds as many lines starting
    with that run as the `original` (else it may be the file's own fence line, or the start of one,
    and the file was cut short). No
    closing fence means the output was cut short (budget or end-of-turn before the file ended): an
    error, never a partial file.
    """
    if output.startswith(fence) and output[len(fence) :].strip() == "":
        return ""  # the empty file: the model closed the block at once
    lines = output.split("\n")
    for n, line in enumerate(lines):
        if line.rstrip() == fence:
            return "".join(line + "\n" for line in lines[:n])
    last = len(lines) - 1
    while last > 0 and not lines[last].strip():
        last -= 1
    closing = lines[last].strip()
    if ended and 3 <= len(closing) < len(fence) and set(closing) == {fence[0]}:
        # A line of the file that starts with this run (```, ```py, ````) may be what was cut.
        own = sum(line.strip().startswith(closing) for line in original.split("\n"))
        if sum(line.strip().startswith(closing) for line in lines[:last]) >= own:
            return "".join(line + "\n" for line in lines[:last])
    raise DecodeError("the model's output ended before the closing fence: the file was cut short")
