"""Token ↔ byte ↔ line positions of the output text, from a byte-level BPE tokenizer (GPT-2, Qwen2).

Owns the exact bytes of each emitted token and the output line each token belongs to. Pure: it reads
the tokenizer's vocabulary and nothing else. Knows nothing of tree-sitter, regions or the model.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from functools import cache
from typing import Any

__all__ = ["token_bytes", "token_lines", "tokens_before_line"]


@cache
def _unicode_to_byte() -> dict[str, int]:
    """The inverse of GPT-2's `bytes_to_unicode`: each printable stand-in character → its byte."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = [], 0
    for b in range(256):
        if b in printable:
            chars.append(chr(b))
        else:  # unprintable bytes are shifted past 255, in byte order
            chars.append(chr(256 + extra))
            extra += 1
    return {c: b for b, c in enumerate(chars)}


def token_bytes(tokenizer: Any, ids: Sequence[int]) -> list[bytes]:
    """The UTF-8 bytes of each token; b"".join(...) == tokenizer.decode(ids).encode() for normal text.

    A token may hold part of a multi-byte character (emoji are often split), so only the joined bytes
    need to be valid UTF-8. Added/special tokens (`<|im_end|>`) contribute their text.
    """
    table = _unicode_to_byte()
    added = {int(i) for i in getattr(tokenizer, "added_tokens_decoder", {})}
    pieces = tokenizer.convert_ids_to_tokens(list(ids))
    out: list[bytes] = []
    for token_id, piece in zip(ids, pieces, strict=True):
        if int(token_id) in added or any(c not in table for c in piece):
            out.append(piece.encode("utf-8"))
        else:
            out.append(bytes(table[c] for c in piece))
    return out


def token_lines(tokenizer: Any, ids: Sequence[int]) -> list[int]:
    """The 0-based output line of each token: the line of its first non-newline byte, if it has one.

    A token made only of newlines ("\\n", "\\n\\n") belongs to the line its first byte ends. So "}\\n" is on
    the line of "}", and "\\n    " (a newline, then indentation) on the line it indents. Non-decreasing.
    """
    lines: list[int] = []
    newlines = 0  # b"\n" seen before the current token
    for data in token_bytes(tokenizer, ids):
        lead = len(data) - len(data.lstrip(b"\n"))  # leading newlines
        lines.append(newlines + (lead if lead < len(data) else 0))
        newlines += data.count(b"\n")
    return lines


def tokens_before_line(lines: Sequence[int], line: int) -> int:
    """How many leading tokens lie on lines before 0-based `line` (`lines` from `token_lines`).

    With `line` = the body's line count this is the number of body tokens: the closing fence and
    anything after it come later.
    """
    return bisect_left(lines, line)
