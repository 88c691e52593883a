"""The backend a run gets and what setup writes for it (issue 19): llama.cpp is the CPU default when
the llamacpp extra is installed, torch (the exactness reference) runs when asked, on CUDA, for a
--dtype, for a model that is no GGUF file and without the extra; `applyedit model` and the summary
say which ran and why; `applyedit model prepare` writes the torch copies only for torch.
No weights are loaded: the model store's builders are replaced by recorders."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fakes import scripted_engine

from applyedit import api
from applyedit.cli import main as cli, parts as cliparts
from applyedit.models import engine as engines
from applyedit.models import llamacpp, modelstore
from applyedit.report import brief_lines
from applyedit.report.stats import Summary

DEFAULT = modelstore.ModelSource("m", Path("/nonexistent/m"), "default", Path("/nonexistent/m.gguf"))
FOLDER = modelstore.ModelSource("m", Path("/nonexistent/m"), "dir")


@pytest.mark.parametrize(
    "backend, device, dtype, source, extra, expected",
    [
        (None, "cpu", None, DEFAULT, True, ("llamacpp", "the CPU default")),
        ("auto", "cpu", None, DEFAULT, True, ("llamacpp", "the CPU default")),
        ("torch", "cpu", None, DEFAULT, True, ("torch", "--backend torch")),
        ("llamacpp", "cpu", None, DEFAULT, True, ("llamacpp", "--backend llamacpp")),
        (None, "cuda", None, DEFAULT, True, ("torch", "CUDA")),
        (None, "cpu", None, DEFAULT, False, ("torch", "the llamacpp extra is not installed")),
        (None, "cpu", "bf16", DEFAULT, True, ("torch", "--dtype bf16")),
        (None, "cpu", None, FOLDER, True, ("torch", "the model is not a GGUF file")),
    ],
)
def test_the_backend_and_why(
    monkeypatch: pytest.MonkeyPatch,
    backend: str | None,
    device: str,
    dtype: str | None,
    source: modelstore.ModelSource,
    extra: bool,
    expected: tuple[str, str],
) -> None:
    monkeypatch.setattr(llamacpp, "available", lambda: extra)
    assert engines.pick_backend(backend, device, dtype=dtype, source=source) == expected


def test_the_summary_and_the_report_say_why_the_backend_ran(
    tokenizer: tuple[Path, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "f.py"
    src.write_text("A = 1\n")
    engine = scripted_engine(tokenizer, "A = 2\n```\n")
    engine.backend_reason = "--backend torch"
    result = api.apply(src, "Set A to 2.", engine=engine, cwd=tmp_path)
    assert result.summary.backend_reason == "--backend torch"
    assert result.report["run"]["backend_reason"] == "--backend torch"
    assert brief_lines(result.report, result.summary)[0].endswith(
        " accepted; torch: --backend torch"
    )  # the default report
    cliparts.print_summary(result.summary)  # -v
    assert "via torch (float32; --backend torch)" in capsys.readouterr().err
    cliparts.print_summary(
        Summary("m", "cpu", "gguf", "copy", 10, 4, 2, 3, 2, 0.5, 1.0, 0.7, "eos", backend="llamacpp")
    )
    assert "via llamacpp (gguf), proposer copy" in capsys.readouterr().err  # no reason known: as before


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """`model prepare` on a CPU with the llamacpp extra, its builders recording what they would write."""
    calls: list[str] = []
    monkeypatch.setenv("APPLYEDIT_HOME", str(tmp_path))
    monkeypatch.setenv("APPLYEDIT_CONFIG", os.devnull)  # no config file
    monkeypatch.delenv("APPLYEDIT_BACKEND", raising=False)
    monkeypatch.delenv("APPLYEDIT_MODEL", raising=False)
    monkeypatch.setattr(llamacpp, "available", lambda: True)
    monkeypatch.setattr("applyedit.models.device.pick_device", lambda device: "cpu")
    monkeypatch.setattr(modelstore, "prepare_tokenizer", lambda source, progress=None: calls.append("gguf") or tmp_path)
    monkeypatch.setattr(modelstore, "prepare", lambda source, progress=None: calls.append("torch copy") or tmp_path)

    class Opened:
        device, dtype, backend = "cpu", None, "torch"

        @property
        def model(self) -> None:
            calls.append("fast-load copy")

    def open_engine(cls: Any, model: str | None = None, *a: Any, backend: str | None = None, **k: Any) -> Opened:
        calls.append(f"open {backend}")
        return Opened()

    monkeypatch.setattr(api.Engine, "open", classmethod(open_engine))
    monkeypatch.setattr(
        "applyedit.models.torchmodel.TorchModel.fast_load_file", lambda path, device, dtype: tmp_path / "absent"
    )
    return calls


def main(*args: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(list(args))
    assert exit_.value.code == 0


def test_prepare_writes_only_the_gguf_for_the_cpu_default(
    recorded: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    main("model", "prepare")
    assert recorded == ["gguf"]
    assert "model ready for llama.cpp: the CPU default" in capsys.readouterr().err


def test_prepare_for_torch_writes_its_copies(recorded: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    main("model", "prepare", "--backend", "torch")
    assert recorded == ["torch copy", "open torch", "fast-load copy"]
    assert "model ready for torch: --backend torch" in capsys.readouterr().err


def test_prepare_follows_the_environment(recorded: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APPLYEDIT_BACKEND", "torch")
    main("model", "prepare")
    assert recorded == ["torch copy", "open torch", "fast-load copy"]


def test_model_shows_the_backend_and_why(recorded: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    main("model")
    assert "llama.cpp: the CPU default" in capsys.readouterr().out
    main("model", "--backend", "torch")
    assert "torch: --backend torch" in capsys.readouterr().out
