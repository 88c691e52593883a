"""The tie-break keeps `--timeout` on the real default model (llama.cpp on the CPU): a 598-line file whose
snippet's context stands at two places, so the model scores the two readings over a long prompt (about
ten minutes on a small CPU). With `--timeout 30` the run stops in the scoring with exit 2, nothing
written; it once ran on for 552 s and then refused (exit 1). And llama.cpp's side-by-side reading
(`forward_branches`) asks the run's stop rule before each of its batches, dropping its sequences when
it stops."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy
import pytest

from applyedit import api, interrupt
from applyedit.models import modelstore

pytestmark = [pytest.mark.model, pytest.mark.timeout(900)]
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _big_ambiguous() -> str:
    """120 functions; two of them (30 and 90) read `y = x + i` then `return x`, where the snippet's
    context `return x` fits both."""
    parts = []
    for i in range(120):
        body = (
            f"    y = x + {i}\n    return x\n"
            if i in (30, 90)
            else f'    """Return x plus {i}."""\n    return x + {i}\n'
        )
        parts.append(f"def f{i}(x):\n{body}\n\n")
    return "".join(parts).rstrip("\n") + "\n"


def _needs_the_gguf() -> None:
    pytest.importorskip("llama_cpp")
    if not modelstore.default_gguf_path().is_file() and not IN_CI:
        pytest.skip("needs the default model's GGUF (applyedit model prepare)")


def test_a_long_tiebreak_stops_at_the_timeout(tmp_path: Path) -> None:
    _needs_the_gguf()
    before = _big_ambiguous()
    assert len(before.splitlines()) == 598
    (tmp_path / "big_amb.py").write_text(before)
    (tmp_path / "amb_edit.txt").write_text(
        "# ... existing code ...\n    z = 0\n    return x\n# ... existing code ...\n"
    )
    started = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "applyedit", "big_amb.py", "--edit", "amb_edit.txt", "--timeout", "30", "--in-place"],
        cwd=tmp_path,
        env={**os.environ, "APPLYEDIT_DEVICE": "cpu"},
        capture_output=True,
        timeout=300,  # far past the deadline: the old scoring ran on here
    )
    took = time.monotonic() - started
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert "stopped by --timeout 30 s while the model scored the edit's readings; nothing was written" in err
    assert (tmp_path / "big_amb.py").read_text() == before
    # The deadline, plus at most one llama.cpp batch in flight and the CLI's start on a busy small CPU:
    # far from the scoring's full length (552 s where this was found).
    assert took < 30 + 60, took


class Gone(Exception):
    """A server's "the client went away"."""


def test_side_by_side_reading_stops_between_its_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 8 tokens (the lead and two spans: several `llama_decode` calls): a stop rule that raises
    once n batches ran stops the reading there, for every n; the cache keeps exactly what it held, and
    the spans read again afterwards give the same logits as before (their sequences were dropped)."""
    _needs_the_gguf()
    from applyedit.models import llamacpp

    engine = api.Engine.open(backend="llamacpp")
    model: llamacpp.LlamaCppModel = engine.model  # type: ignore[assignment]
    monkeypatch.setattr(llamacpp, "N_BATCH", 8)
    prefix = engine.encode("def add(a, b):\n    return a + b\n\n\n")
    spans = [engine.encode("def sub(a, b):\n    return a - b\n"), engine.encode("def mul(a, b):\n    return a * b\n")]
    model.prefill(prefix[:-1])
    start = model.num_forwards
    first = list(model.forward_branches(prefix[-1:], spans))
    batches = model.num_forwards - start
    assert batches >= 3 and model.cached_len == len(prefix) - 1
    for n in range(batches):
        start = model.num_forwards

        def gone(start: int = start, n: int = n) -> None:
            if model.num_forwards - start >= n:
                raise Gone("the client closed the connection")

        with interrupt.stopping(None, None, gone), pytest.raises(Gone):
            for _ in model.forward_branches(prefix[-1:], spans):
                pass
        assert model.num_forwards - start == n
        assert model.cached_len == len(prefix) - 1
    again = list(model.forward_branches(prefix[-1:], spans))
    assert [(k, i) for k, i, _ in again] == [(k, i) for k, i, _ in first]
    assert all(numpy.array_equal(a, b) for (_, _, a), (_, _, b) in zip(again, first, strict=True))  # llama.cpp: numpy
