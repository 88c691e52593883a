"""Token bytes and token lines (applyedit/report/spans.py) on the default model's real byte-level BPE tokenizer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from applyedit.report.spans import token_bytes, token_lines, tokens_before_line

TEXTS = [
    "def add(a, b):\n    return a + b\n",
    "naïve = 'café'  # Grüße, 日本語, Ωμέγα\n",
    'emoji = "😀👍🏽🚀"  # 🧑‍💻\n\n\n',
    'fn main() {\n\tprintln!("{}", x);\n}\n```\n',
    "\n\n  x = 1\n    \n",
]


@pytest.fixture(scope="module")
def tok(tokenizer: tuple[Path, Any]) -> Any:
    return tokenizer[1]


def encode(tok: Any, text: str) -> list[int]:
    return list(tok(text, add_special_tokens=False)["input_ids"])


@pytest.mark.parametrize("text", TEXTS)
def test_token_bytes_join_to_the_decoded_text(tok: Any, text: str) -> None:
    """The bytes of the tokens, joined, are exactly the decoded text's UTF-8 bytes."""
    ids = encode(tok, text)
    assert b"".join(token_bytes(tok, ids)) == tok.decode(ids).encode() == text.encode()


def test_token_bytes_can_split_a_character(tok: Any) -> None:
    """Some emoji span several tokens; each token holds only part of the character's bytes."""
    ids = encode(tok, "🧑‍💻🫠")
    pieces = token_bytes(tok, ids)
    assert b"".join(pieces).decode() == "🧑‍💻🫠"
    assert any(_invalid(p) for p in pieces)


def _invalid(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return True
    return False


def test_special_tokens_give_their_text(tok: Any) -> None:
    """Added tokens such as <|im_end|> contribute their own text."""
    end = tok.convert_tokens_to_ids("<|im_end|>")
    ids = [*encode(tok, "x\n"), end]
    assert token_bytes(tok, ids)[-1] == b"<|im_end|>"
    assert b"".join(token_bytes(tok, ids)) == tok.decode(ids).encode()


@pytest.mark.parametrize("text", TEXTS)
def test_token_lines_match_the_first_non_newline_byte(tok: Any, text: str) -> None:
    """Each token is on the line of its first non-newline byte, else of its first byte; lines never go back."""
    ids = encode(tok, text)
    lines = token_lines(tok, ids)
    offset = 0
    for data, line in zip(token_bytes(tok, ids), lines, strict=True):
        lead = len(data) - len(data.lstrip(b"\n"))
        first = offset + (lead if lead < len(data) else 0)
        assert line == text.encode()[:first].count(b"\n")
        offset += len(data)
    assert lines == sorted(lines)


def test_token_lines_by_hand(tok: Any) -> None:
    """A hand-checked case: newline-only tokens stay on the line they end, indentation goes to its line."""
    text = "a = 1\n\n    b\n```\n"
    ids = encode(tok, text)
    assert [(p.decode(), line) for p, line in zip(token_bytes(tok, ids), token_lines(tok, ids), strict=True)] == [
        ("a", 0),
        (" =", 0),
        (" ", 0),
        ("1", 0),
        ("\n\n", 0),
        ("   ", 2),
        (" b", 2),
        ("\n", 2),
        ("``", 3),
        ("`\n", 3),
    ]


def test_tokens_before_line_counts_body_tokens(tok: Any) -> None:
    """With the body's line count it gives the number of body tokens (the fence line comes after)."""
    body = "x = 1\ny = 2\n"
    ids = encode(tok, body + "```\n")
    lines = token_lines(tok, ids)
    n = tokens_before_line(lines, body.count("\n"))
    assert tok.decode(ids[:n]) == body
    assert tokens_before_line(lines, 0) == 0
    assert tokens_before_line(lines, 99) == len(ids)
