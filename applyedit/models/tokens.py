"""The tokenizer as a run uses it, whichever tokenizer it is: ids of user text, of the chat prompt,
the ids that end decoding, the context length; and loading Hugging Face's (transformers).

Owns `text_ids` and `chat_ids` (a special-token string in user text stays text; the chat template's
control tokens stay control tokens), `stop_ids` and `context_length` (a prepared folder's
config.json). They call the tokenizer interface Hugging Face's tokenizers and models/vocab.py's `Vocab`
share; `load_tokenizer` loads Hugging Face's (the torch and vLLM backends'), importing transformers
only then. Knows nothing of models or decoding.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from applyedit.errors import ModelError


def load_tokenizer(path: Path) -> Any:
    """Hugging Face's tokenizer of the folder `path` (transformers)."""
    try:
        from transformers import AutoTokenizer
    except ImportError as e:
        raise ModelError("this backend reads the tokenizer with transformers: pip install -e '.[torch]'") from e

    try:
        return AutoTokenizer.from_pretrained(path)
    except Exception as e:
        raise ModelError(f"could not load the tokenizer from {path}: {e}") from e


def context_length(path: Path) -> int:
    """The context a prepared folder's config.json gives (32,768 where it names none)."""
    config = json.loads((path / "config.json").read_text())
    return int(config.get("max_position_embeddings") or 32768)


def text_ids(tokenizer: Any, text: str) -> list[int]:
    """Token ids of `text` as text: a special-token string in it (`<|im_end|>`) is tokenized as the
    characters it is, never as the control token (which would end or forge a chat turn)."""
    return list(tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"])


def chat_ids(tokenizer: Any, system: str, user: str, assistant_prefix: str) -> list[int]:
    """Token ids of the chat prompt with the assistant's reply already started by `assistant_prefix`.

    The chat template's own control tokens stay control tokens; the messages and the reply's start
    (the file, the edit, the prompts around them) are tokenized as text (`text_ids`). The template is
    rendered with stand-ins for the two messages, then each part is tokenized in its own way."""
    marks = ("\x00applyedit-system\x00", "\x00applyedit-user\x00")
    messages = [{"role": "system", "content": marks[0]}, {"role": "user", "content": marks[1]}]
    frame = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    parts = re.split(f"({re.escape(marks[0])}|{re.escape(marks[1])})", frame)
    if tuple(p for p in parts if p in marks) != marks:
        raise ModelError("the model's chat template does not place the system and user messages once each")
    ids: list[int] = []
    for part in parts:
        if part in marks:
            ids += text_ids(tokenizer, system if part == marks[0] else user)
        elif part:
            ids += tokenizer(part, add_special_tokens=False)["input_ids"]
    return ids + text_ids(tokenizer, assistant_prefix)


def stop_ids(tokenizer: Any, model_eos: int | list[int] | None) -> frozenset[int]:
    """End-of-turn and end-of-text ids: any of them ends decoding."""
    ids: set[int] = set()
    for value in (model_eos, tokenizer.eos_token_id):
        if isinstance(value, int):
            ids.add(value)
        elif value:
            ids.update(value)
    for token in ("<|im_end|>", "<|endoftext|>"):
        tid = tokenizer.convert_tokens_to_ids(token)
        if isinstance(tid, int) and tid != tokenizer.unk_token_id and tid is not None:
            ids.add(tid)
    return frozenset(ids)
