"""Adding a proposer, a K policy or a backend (for the target or for a draft model) is its own code plus
one line in a table: this file alone registers a toy of each (registry.PROPOSERS, registry.K_POLICIES,
models/base.BACKENDS), runs `api.apply` on them by name through the real decode loop, and finds the
output of plain greedy decoding, token for token."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import torch

from applyedit import api
from applyedit.errors import InputError
from applyedit.models import base, modelstore
from applyedit.models.costmodel import prior
from applyedit.models.device import pick_dtype
from applyedit.models.engine import pick_backend
from applyedit.models.prefill import ExactPrefill
from applyedit.models.tokens import context_length
from applyedit.options import RunOptions
from applyedit.speculative import registry
from applyedit.speculative.policy import COPY, Alignment, Drafter
from applyedit.speculative.proposers import Draft

BEFORE, EDIT = "A = 1\nB = 2\n", "Set B to 3."
WRITES = "A = 1\nB = 3\n```\n"  # the toy model's output after the opening fence: the new file, then the fence


class ToyBackend(ExactPrefill):
    """A model that writes WRITES after any prompt, then its end token, with a cache of real positions."""

    def __init__(self, script: list[int], eos: int, vocab: int) -> None:
        self.script, self.eos_ids, self.vocab = [*script, eos], frozenset({eos}), vocab
        self._ids: list[int] = []
        self._base: int | None = None  # the prefill's length: the output starts one position later
        self.passes = 0

    # the class side the engine reads (base.Loader)
    @classmethod
    def target(cls, engine: Any) -> ToyBackend:
        eos = engine.tokenizer.convert_tokens_to_ids("<|im_end|>")
        return cls(engine.encode(WRITES), eos, len(engine.tokenizer))

    @staticmethod
    def check(device: str) -> None:
        if device != "cpu":
            raise InputError("--backend toy runs on the CPU")

    @staticmethod
    def thread_count() -> int:
        return 1

    @staticmethod
    def dtype_label(dtype: Any) -> str:
        return "toy"

    @staticmethod
    def weights_file(source: Any, path: Path) -> Path | None:
        return None

    # the instance side the loop and the prompt cache read (base.Backend)
    @property
    def vocab_size(self) -> int:
        return self.vocab

    def reset(self) -> None:
        self._ids = []

    def prefill(self, ids: list[int]) -> int:
        self._base = None
        computed = super().prefill(ids)
        self._base = len(ids)
        return computed

    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor:
        self._ids.extend(ids)
        self.passes += 1
        logits = torch.zeros(num_logits, self.vocab)
        if self._base is None:  # the prefill's own pass: nothing is read from it
            return logits
        first = len(self._ids) - num_logits
        for row in range(num_logits):
            logits[row, self.script[min(first + row - self._base, len(self.script) - 1)]] = 1.0
        return logits

    def crop_to(self, length: int) -> None:
        del self._ids[length:]

    def snapshot(self) -> tuple[Any, int]:
        return tuple(self._ids), 8 * len(self._ids)

    def restore(self, snapshot: Any, ids: Sequence[int]) -> None:
        self._ids = list(ids)


class ToyDraft(ToyBackend):
    """A draft model for the toy target: it guesses the next token from the last one, by the first place
    that token takes in the script (right on most tokens, wrong after a repeated one)."""

    @classmethod
    def draft(cls, source: Any, engine: Any, progress: Any = None) -> ToyDraft:
        made = cls.target(engine)
        return cls(made.script[:-1], next(iter(made.eos_ids)), made.vocab)

    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor:
        self._ids.extend(ids)
        self.passes += 1
        logits = torch.zeros(num_logits, self.vocab)
        for row in range(num_logits):
            last = self._ids[len(self._ids) - num_logits + row]
            logits[row, self.script[self.script.index(last) + 1 if last in self.script[:-1] else 0]] = 1.0
        return logits


class ToyProposer:
    """Drafts the original file's tokens at the output's position, every fourth one made wrong."""

    def __init__(self, source: Sequence[int]) -> None:
        self.source = list(source)
        self.drafted = self.kept = 0

    def propose(self, output: Sequence[int], k: int) -> Draft:
        n = len(output)
        return Draft(tuple(t + (i % 4 == 3) for i, t in enumerate(self.source[n : n + k], start=n)))

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        self.drafted += num_drafted
        self.kept += num_accepted


class ToyK:
    """K cycles through 1, 2, 3."""

    def __init__(self) -> None:
        self.alignment = Alignment()
        self.steps = 0

    @property
    def cap(self) -> int:
        return 3

    def next_k(self, offered: int, support: int, drafter: Drafter = COPY) -> int:
        self.steps += 1
        return min(offered, 1 + (self.steps - 1) % 3)

    def observe(self, num_drafted: int, num_accepted: int, drafter: Drafter = COPY) -> None:
        pass


@pytest.fixture
def toys(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The three toys, each registered by one line; `made` holds the proposer and policy a run built."""
    made: dict[str, Any] = {}

    def proposer(plan: registry.DraftPlan) -> ToyProposer:
        made["proposer"] = ToyProposer(plan.job.engine.encode(plan.job.src.text + plan.job.fence + "\n"))
        return made["proposer"]

    def policy(engine: api.Engine, opts: RunOptions) -> ToyK:
        made["policy"] = ToyK()
        return made["policy"]

    monkeypatch.setitem(base.BACKENDS, "toy", base.BackendEntry(ToyBackend, draft=False))
    monkeypatch.setitem(registry.PROPOSERS, "toy", registry.ProposerEntry(proposer))
    monkeypatch.setitem(registry.K_POLICIES, "toy", policy)
    return made


def toy_engine(tokenizer: tuple[Path, Any]) -> api.Engine:
    path, tok = tokenizer
    return api.Engine(
        modelstore.resolve(None),
        path,
        tok,
        "cpu",
        pick_dtype("fp32", "cpu"),
        context_length(path),
        cost=prior(),
        backend="toy",
    )


def test_toys_registered_by_name_run_the_real_loop_and_equal_plain_greedy(
    toys: dict[str, Any], tokenizer: tuple[Path, Any], tmp_path: Path
) -> None:
    """`apply` picks the toy backend, proposer and K policy by name; the loop keeps some drafts and
    rejects others, and its output equals plain greedy decoding (proposer none) on the same model."""
    src = tmp_path / "f.py"
    src.write_text(BEFORE)
    options = RunOptions(backend="toy", proposer="toy", k_policy="toy")  # checked: the names are known
    engine = toy_engine(tokenizer)
    spec = api.apply(src, EDIT, options=options, engine=engine, cwd=tmp_path)
    assert isinstance(engine.model, ToyBackend) and engine.threads == 1 and engine.dtype_name == "toy"
    greedy = api.apply(src, EDIT, proposer="none", engine=toy_engine(tokenizer), cwd=tmp_path)
    assert spec.decode.tokens == greedy.decode.tokens
    assert spec.after == greedy.after == "A = 1\nB = 3\n"
    drafted = toys["proposer"]
    assert 0 < drafted.kept < drafted.drafted  # drafts were kept and drafts were rejected
    assert [s.k for s in spec.decode.steps][:3] == [1, 2, 3]  # the toy policy chose K
    assert len(spec.decode.steps) < len(greedy.decode.steps)  # kept drafts saved passes
    assert spec.summary.backend == "toy" and spec.summary.proposer == "toy"
    assert pick_backend("toy", "cpu") == ("toy", "--backend toy")  # the engine's choice reads the table too
    with pytest.raises(InputError, match="--backend toy runs on the CPU"):
        pick_backend("toy", "cuda")


def test_a_draft_backend_registered_by_one_line_drafts_for_the_real_loop(
    toys: dict[str, Any], tokenizer: tuple[Path, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backend registered for drafts only runs `--proposer draft` by its name: the engine loads it
    through its class (`Loader.draft`), its drafts are verified by the toy target, and the output equals
    plain greedy decoding. It is no target backend, and the toy target is no draft backend."""
    monkeypatch.setitem(base.BACKENDS, "toydraft", base.BackendEntry(ToyDraft, target=False))
    src = tmp_path / "f.py"
    src.write_text(BEFORE)
    engine = toy_engine(tokenizer)
    options = RunOptions(backend="toy", proposer="draft", draft_backend="toydraft", draft_k=3)
    drafted = api.apply(src, EDIT, options=options, engine=engine, cwd=tmp_path)
    greedy = api.apply(src, EDIT, proposer="none", engine=toy_engine(tokenizer), cwd=tmp_path)
    assert drafted.decode.tokens == greedy.decode.tokens and drafted.after == "A = 1\nB = 3\n"
    assert [type(m) for m in engine._drafts.values()] == [ToyDraft]
    steps = drafted.decode.steps
    assert {s.drafter for s in steps if s.draft} == {"draft-model"} and sum(s.num_accepted for s in steps) > 0
    assert len(steps) < len(greedy.decode.steps)  # kept drafts saved passes
    for changes, message in (
        ({"backend": "toydraft"}, "unknown --backend 'toydraft'"),
        ({"draft_backend": "toy"}, "unknown --draft-backend 'toy'"),
    ):
        with pytest.raises(InputError, match=message):
            RunOptions(**changes)


def test_unregistered_names_are_refused_before_anything_runs() -> None:
    """Without their table lines the same names are unknown."""
    for changes, message in (
        ({"proposer": "toy"}, "unknown --proposer 'toy'"),
        ({"k_policy": "toy"}, "unknown --k-policy 'toy'; choose adaptive or fixed"),
        ({"backend": "toy"}, "unknown --backend 'toy'; choose auto, torch, llamacpp or vllm"),
        ({"draft_backend": "toydraft"}, "unknown --draft-backend 'toydraft'"),
    ):
        with pytest.raises(InputError, match=message):
            RunOptions(**changes)
