"""The CLI test harness shared by the scripted-model CLI tests: run `cli.main` in-process and capture
its exit code, stdout and stderr (`run`), a work folder holding f.py (`work`), and a scripted engine
behind the model seam (`model`: the CLI's engine writes a given text; tests/fakes.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fakes import scripted_engine

from applyedit import api
from applyedit.cli import main as cli

PY = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
PY_NEW = PY.replace("return 1", "return 10")


class Run:
    def __init__(self, code: int, out: bytes, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def one_line(self, needle: str) -> None:
        """The failure shape every case shares: one stderr line holding `needle`, no traceback, no diff."""
        lines = [line for line in self.err.strip().splitlines() if line.startswith("applyedit: error")]
        assert len(lines) == 1 and needle in lines[0], self.err
        assert "Traceback" not in self.err and self.out == b""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.py").write_text(PY)
    return tmp_path


@pytest.fixture
def run(capfdbinary: pytest.CaptureFixture[bytes]) -> Callable[..., Run]:
    def go(*args: str) -> Run:
        capfdbinary.readouterr()
        with pytest.raises(SystemExit) as info:
            cli.main(list(args))
        out, err = capfdbinary.readouterr()
        return Run(int(info.value.code or 0), out, err.decode())

    return go


@pytest.fixture
def model(tokenizer: tuple[Path, Any], monkeypatch: pytest.MonkeyPatch) -> Callable[..., api.Engine]:
    """`model(text)`: the CLI's engine now writes `text` (the raw output after the opening fence)."""

    def script(text: str, forward_hook: Callable[[int], None] | None = None) -> api.Engine:
        engine = scripted_engine(tokenizer, text)
        if forward_hook is not None:
            scripted = engine._model
            forward = scripted.forward

            def hooked(ids: list[int], num_logits: int) -> Any:
                forward_hook(scripted.num_forwards)
                return forward(ids, num_logits)

            scripted.forward = hooked  # type: ignore[method-assign]
        monkeypatch.setattr(api.Engine, "open", classmethod(lambda cls, *a, **k: engine))
        return engine

    return script


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
