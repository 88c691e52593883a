"""The tokenizer of the llama.cpp path, without transformers: a tokenizer.json run by the `tokenizers`
library (the Rust tokenizer Hugging Face's fast tokenizers wrap) and the chat template rendered by
jinja2 the way transformers renders it.

Owns `Vocab`, the part of Hugging Face's tokenizer interface that applyedit calls: encoding (`__call__`
with `add_special_tokens`, `split_special_tokens` and `return_offsets_mapping`), `decode`,
`convert_ids_to_tokens`, `convert_tokens_to_ids`, `added_tokens_decoder`, `eos_token_id`, `unk_token_id`,
`get_vocab`, `len()` and `apply_chat_template(..., tokenize=False)`. It reads a folder holding
tokenizer.json, tokenizer_config.json and, where it is a file of its own, chat_template.jinja: what
models/ggufvocab.py writes from a GGUF, or what transformers saves. On the same files it gives the ids
Hugging Face's tokenizer gives (tests/test_vocab.py compares them on the fixtures' and the corpus's
prompts). Knows nothing of models or decoding.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from applyedit.errors import ModelError


def _token_text(value: Any) -> str | None:
    """A special token as tokenizer_config.json holds it: a string, or an AddedToken's dict."""
    if isinstance(value, Mapping):
        value = value.get("content")
    return value if isinstance(value, str) else None


@dataclass
class Vocab:
    """A tokenizer.json with its config and chat template (see the module docstring)."""

    text: Any  # tokenizers.Tokenizer: special-token strings in the text become their control tokens
    plain: Any  # the same tokenizer, special-token strings tokenized as the characters they are
    config: dict[str, Any]
    chat_template: str | None
    _template: Any = field(default=None, repr=False)  # the compiled jinja2 template
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def load(cls, path: Path) -> Vocab:
        """The tokenizer saved in the folder `path`."""
        try:
            from tokenizers import Tokenizer
        except ImportError as e:
            raise ModelError("reading the tokenizer needs the `tokenizers` package (pip install -e .)") from e
        try:
            text = Tokenizer.from_file(str(path / "tokenizer.json"))
            plain = Tokenizer.from_file(str(path / "tokenizer.json"))
            config_file = path / "tokenizer_config.json"
            config = json.loads(config_file.read_text(encoding="utf-8")) if config_file.is_file() else {}
            jinja = path / "chat_template.jinja"
            template = jinja.read_text(encoding="utf-8") if jinja.is_file() else config.get("chat_template")
        except Exception as e:  # a missing or unreadable file: the user needs one line
            raise ModelError(f"could not load the tokenizer from {path}: {e}") from e
        plain.encode_special_tokens = True
        return cls(text, plain, config, template if isinstance(template, str) else None)

    # -- encoding
    def __call__(
        self,
        text: str,
        add_special_tokens: bool = True,
        split_special_tokens: bool = False,
        return_offsets_mapping: bool = False,
    ) -> dict[str, Any]:
        """`{"input_ids": [...]}` (and `"offset_mapping"`: each token's character span) of `text`; with
        `split_special_tokens` a special-token string in it is tokenized as the characters it is."""
        backend = self.plain if split_special_tokens else self.text
        enc = backend.encode(text, add_special_tokens=add_special_tokens)
        out: dict[str, Any] = {"input_ids": list(enc.ids)}
        if return_offsets_mapping:
            out["offset_mapping"] = [tuple(span) for span in enc.offsets]
        return out

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        """The text of `ids` (a byte-level BPE's decode: no clean-up of spaces, as transformers does for BPE)."""
        return str(self.text.decode(list(ids), skip_special_tokens=skip_special_tokens))

    # -- the vocabulary
    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str]:
        return [self.text.id_to_token(int(i)) for i in ids]

    def convert_tokens_to_ids(self, token: str) -> int | None:
        found = self.text.token_to_id(token)
        return int(found) if found is not None else self.unk_token_id

    @property
    def added_tokens_decoder(self) -> dict[int, Any]:
        return dict(self.text.get_added_tokens_decoder())

    def get_vocab(self) -> dict[str, int]:
        return dict(self.text.get_vocab(with_added_tokens=True))

    def __len__(self) -> int:
        return int(self.text.get_vocab_size(with_added_tokens=True))

    def _special_id(self, name: str) -> int | None:
        token = _token_text(self.config.get(name))
        found = self.text.token_to_id(token) if token is not None else None
        return int(found) if found is not None else None

    @property
    def eos_token_id(self) -> int | None:
        return self._special_id("eos_token")

    @property
    def unk_token_id(self) -> int | None:
        return self._special_id("unk_token")

    # -- the chat template
    def apply_chat_template(
        self, messages: Sequence[Mapping[str, Any]], tokenize: bool = False, add_generation_prompt: bool = False
    ) -> str:
        """The chat `messages` rendered by the model's template, as text (`tokenize` must be False), with
        what transformers passes it: the messages, no tools, no documents, the generation prompt's
        switch and the special tokens."""
        assert not tokenize, "the chat template renders text here; the caller tokenizes its parts"
        if self.chat_template is None:
            raise ModelError("the model's tokenizer has no chat template")
        with self._lock:
            if self._template is None:
                self._template = _compile(self.chat_template)
        specials = {
            name: text
            for name in ("bos_token", "eos_token", "unk_token", "pad_token")
            if (text := _token_text(self.config.get(name))) is not None
        }
        return str(
            self._template.render(
                messages=[dict(m) for m in messages],
                tools=None,
                documents=None,
                add_generation_prompt=add_generation_prompt,
                **specials,
            )
        )


def _compile(template: str) -> Any:  # noqa: ANN401 (a jinja2 Template)
    """The template in the environment transformers renders chat templates in: sandboxed, blocks
    trimmed, loop controls, `raise_exception`, `strftime_now` and a `tojson` that keeps non-ASCII text."""
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def tojson(
        x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None, sort_keys: bool = False
    ) -> str:
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env.from_string(template)
