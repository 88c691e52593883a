"""A GGUF's tokenizer written as tokenizer files, without transformers.

Owns `write`: from a GGUF's metadata (read with the `gguf` package: the vocabulary, the merges, the
token types, the special tokens' ids, the chat template), the tokenizer.json and tokenizer_config.json
that transformers builds for the same file (transformers/integrations/gguf: `byte_level_tokenizer`, the
control tokens added as special and the user-defined ones as added, the pre-tokenizer's split for the
file's `tokenizer.ggml.pre`), which models/vocab.py reads and transformers loads too. It builds the
byte-level BPE tokenizers with the Qwen2 split (`tokenizer.ggml.model` "gpt2", `tokenizer.ggml.pre`
"qwen2"): the default model's and its draft model's; for another GGUF `write` answers False and the
model store asks transformers. Knows nothing of models or decoding; tests/test_vocab.py holds its
tokenizer.json to transformers' of the same GGUF, and its ids to transformers' on real prompts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# The Qwen2 pre-tokenizer's split (transformers' qwen2 PRETOKENIZE_REGEX), then the byte-level map.
QWEN2_SPLIT = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""  # noqa: E501
CONTROL, USER_DEFINED = 3, 4  # llama.cpp's token types: a control token (special), a user-defined one (added)
SPECIALS = {
    "bos_token": "bos_token_id",
    "eos_token": "eos_token_id",
    "unk_token": "unknown_token_id",
    "pad_token": "padding_token_id",
}  # tokenizer_config.json's name -> the GGUF's key


def _fields(gguf: Path) -> dict[str, Any]:
    """The GGUF's metadata the tokenizer needs, as Python values (absent keys left out)."""
    from gguf import GGUFReader

    names = [
        "general.architecture",
        "tokenizer.ggml.model",
        "tokenizer.ggml.pre",
        "tokenizer.ggml.tokens",
        "tokenizer.ggml.token_type",
        "tokenizer.ggml.merges",
        "tokenizer.ggml.add_bos_token",
        "tokenizer.chat_template",
        *(f"tokenizer.ggml.{key}" for key in SPECIALS.values()),
    ]
    fields = GGUFReader(gguf).fields
    return {name: fields[name].contents() for name in names if name in fields}


def supported(meta: dict[str, Any]) -> bool:
    """Whether `write` builds this GGUF's tokenizer (else transformers does)."""
    return (
        meta.get("tokenizer.ggml.model") == "gpt2"
        and meta.get("tokenizer.ggml.pre") == "qwen2"
        and "tokenizer.ggml.merges" in meta
    )


def _byte_alphabet() -> dict[int, str]:
    """GPT-2's byte -> character map (the characters a byte-level vocabulary is spelled in)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


def tokenizer_json(meta: dict[str, Any]) -> str:
    """The tokenizer.json of a supported GGUF's metadata, as transformers builds it."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, pre_tokenizers, processors
    from tokenizers.models import BPE

    spelling = _byte_alphabet()
    alphabet = set(spelling.values())
    tokens: list[str] = list(meta["tokenizer.ggml.tokens"])
    vocab = {
        token if set(token) <= alphabet else "".join(spelling[b] for b in token.encode("utf-8")): index
        for index, token in enumerate(tokens)
    }
    merges = [tuple(m.split(" ")) for m in meta["tokenizer.ggml.merges"]]
    tokenizer = Tokenizer(
        BPE(
            vocab=vocab,
            merges=merges,
            dropout=None,
            unk_token=None,
            continuing_subword_prefix="",
            end_of_word_suffix="",
            fuse_unk=False,
            byte_fallback=False,
        )
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.post_processor = processors.TemplateProcessing(single="$A:0", pair="$A:0 $B:1", special_tokens=[])
    tokenizer.decoder = decoders.ByteLevel()
    types = list(meta.get("tokenizer.ggml.token_type") or ())
    control = [t for t, kind in zip(tokens, types, strict=False) if kind == CONTROL and set(t) <= alphabet]
    tokenizer.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in control])
    user = [t for t, kind in zip(tokens, types, strict=False) if kind == USER_DEFINED and t in vocab]
    tokenizer.add_tokens([AddedToken(t, normalized=False, special=False) for t in user])
    return str(tokenizer.to_str())


def tokenizer_config(meta: dict[str, Any]) -> dict[str, Any]:
    """tokenizer_config.json: the special tokens by name, the BOS switch, the chat template."""
    tokens = meta["tokenizer.ggml.tokens"]
    config: dict[str, Any] = {"tokenizer_class": "Qwen2Tokenizer", "backend": "tokenizers"}
    for name, key in SPECIALS.items():
        at = meta.get(f"tokenizer.ggml.{key}")
        config[name] = tokens[int(at)] if at is not None else None
    if "tokenizer.ggml.add_bos_token" in meta:
        config["add_bos_token"] = bool(meta["tokenizer.ggml.add_bos_token"])
    if isinstance(meta.get("tokenizer.chat_template"), str):
        config["chat_template"] = meta["tokenizer.chat_template"]
    return config


def write(gguf: Path, dest: Path) -> bool:
    """Write the tokenizer files of `gguf` into the folder `dest`; False (nothing written) for a GGUF
    whose tokenizer this module does not build."""
    meta = _fields(gguf)
    if not supported(meta):
        return False
    (dest / "tokenizer.json").write_text(tokenizer_json(meta), encoding="utf-8")
    config = json.dumps(tokenizer_config(meta), indent=1, ensure_ascii=False)
    (dest / "tokenizer_config.json").write_text(config + "\n", encoding="utf-8")
    return True
