"""The progress line (applyedit/cli/progress.py) and what feeds it: phases in plain words, fitted to the
terminal with the elapsed time whole, prefill progress from the backend's chunks, and api.apply's
phase reports (output line of the expected total)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from applyedit import api
from applyedit.decoded import Step
from applyedit.cli.progress import RunProgress, State, clock, status_line
from fakes import scripted_engine


def decoding(**changes: Any) -> State:
    s = State(phase="decoding", line=34, lines=120, tokens=602, drafted=700, accepted=644, decode_s=20.0, started=0.0)
    for key, value in changes.items():
        setattr(s, key, value)
    return s


def test_clock() -> None:
    assert [clock(x) for x in (0, 3.2, 75, 3725)] == ["0:00", "0:03", "1:15", "1:02:05"]


def test_decoding_line_says_where_it_is_in_plain_words() -> None:
    """Line of the expected total, the time left, acceptance so far and decode tok/s; no jargon."""
    line = status_line(decoding(), 160, now=65.0)
    assert line == "writing line 34/~120, 0:51 left, 92% drafts accepted, 30.1 tok/s  1:05 elapsed"
    # 86 lines to go at 34 lines per 20 s; 644 of 700 drafted tokens accepted; 602 tokens in 20 s
    assert line.endswith("1:05 elapsed")
    assert "K " not in line and "in-edit" not in line


@pytest.mark.parametrize("width", [30, 40, 60, 80, 100, 160])
@pytest.mark.parametrize(
    "state",
    [
        decoding(),
        decoding(line=130),  # past the expected total: the total follows the line
        State(phase="prefill", done=1024, total=2650, started=0.0),
        State(phase="loading", started=0.0),
        State(phase="preparing", detail="assembling 3/22", started=0.0),
    ],
)
def test_every_phase_fits_and_keeps_the_elapsed_time_whole(state: State, width: int) -> None:
    line = status_line(state, width, now=3725.0)
    assert len(line) <= width - 1, line
    assert line.endswith("1:02:05 elapsed")


def test_narrow_terminals_drop_the_least_important_parts_first() -> None:
    assert "tok/s" in status_line(decoding(), 80, now=65.0)  # everything fits in 80 columns
    narrow = status_line(decoding(), 50, now=65.0)
    assert narrow == "writing line 34/~120, 0:51 left  1:05 elapsed"


def test_prefill_and_loading_words() -> None:
    line = status_line(State(phase="prefill", done=1024, total=2650, started=0.0), 80, now=9.0)
    assert line == "reading the prompt 39%, 1,024 of 2,650 tokens  0:09 elapsed"
    start = State(phase="prefill", done=0, total=365, started=0.0)  # a backend that reports start and end only
    assert status_line(start, 80, now=9.0) == "reading the prompt (365 tokens)  0:09 elapsed"
    assert status_line(State(phase="loading", started=0.0), 80, now=47.0) == "loading the model weights  0:47 elapsed"


def test_no_line_on_a_non_terminal() -> None:
    class Pipe:
        is_terminal = False

    with RunProgress(Pipe()) as p:  # a console that is not a terminal: nothing is drawn
        p.phase("prefill", 1, 2)
        assert p._live is None


def test_steps_feed_acceptance_and_decode_rate() -> None:
    class Pipe:
        is_terminal = False

    p = RunProgress(Pipe())
    p.step(Step(0, 4, (1, 2, 3, 4), 3, (1, 2, 3, 9), 0.0, 0.5), 4)
    p.step(Step(1, 4, (5, 6), 2, (5, 6, 7), 0.5, 0.5), 7)
    p.phase("decoding", 3, 10)
    s = p.state
    assert (s.drafted, s.accepted, s.tokens, s.decode_s, s.line, s.lines) == (6, 5, 7, 1.0, 3, 10)


def test_torch_prefill_reports_each_chunk(
    tmp_path: Path, tokenizer: tuple[Path, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prompt reports its start, each decoder layer of each chunk (here 2 layers, chunks of 64) and its end."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from applyedit.models import torchmodel
    from applyedit.models.torchmodel import TorchModel

    monkeypatch.setenv("APPLYEDIT_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(torchmodel, "PREFILL_CHUNK", 64)
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=256,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=512,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=0,
    )
    Qwen2ForCausalLM(config).save_pretrained(tmp_path / "model")
    model = TorchModel.load(tmp_path / "model", "cpu", torch.float32, tokenizer[1])
    seen: list[tuple[int, int]] = []
    model.on_prefill = lambda done, total: seen.append((done, total))
    model.prefill([(i * 7) % 250 + 3 for i in range(150)])
    assert [done for done, _ in seen] == [0, 32, 64, 96, 128, 139, 150] and {t for _, t in seen} == {150}
    seen.clear()
    model.forward([5, 6, 7], num_logits=3)  # a verify pass is no prefill
    assert seen == []


def test_apply_reports_the_output_line_of_the_original_line_count(tokenizer: tuple[Path, Any], tmp_path: Path) -> None:
    original = "".join(f"x{i} = {i}\n" for i in range(12))
    engine = scripted_engine(tokenizer, original.replace("x5 = 5", "x5 = 50") + "```\n")
    (tmp_path / "f.py").write_text(original)
    phases: list[tuple[str, int, int]] = []
    api.apply(tmp_path / "f.py", "Set x5 to 50.", engine=engine, cwd=tmp_path, on_phase=lambda *a: phases.append(a))
    lines = [(done, total) for name, done, total in phases if name == "decoding"]
    assert lines and all(total == 12 for _, total in lines)
    assert [d for d, _ in lines] == sorted(d for d, _ in lines)  # never goes back
    assert lines[-1][0] == 14  # 12 lines and the closing fence's newline: line 14 begun
