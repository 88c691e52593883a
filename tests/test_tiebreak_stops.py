"""The tie-break keeps the run's stop rule (interrupt.py): a deadline that passed, or passes while the
readings are scored, and a client gone stop the scoring at the next forward pass or prefill chunk, with
the error a run stopped by `--timeout` gives (exit 2). Time here is the tiny torch model's forward
passes (one per prefill chunk): a clock that reads the count, so every assertion counts passes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from fakes import prompt_for, tiny_model
from test_tiebreak import _candidates, _disagreeing_case, _moved

from applyedit import interrupt
from applyedit.errors import RunTimeout
from applyedit.models.prefill import PREFILL_CHUNK
from applyedit.models.torchmodel import TorchModel
from applyedit.speculative import runwatch, tiebreak
from applyedit.speculative.tiebreak import score


class PassClock:
    """A stand-in for the `time` module interrupt.py reads: `monotonic()` is the forward passes `model`
    has computed so far (prefill chunks included), in seconds."""

    def __init__(self, model: TorchModel) -> None:
        self.model = model

    def monotonic(self) -> float:
        return float(self.model.num_forwards)


def _cases(seed: int) -> list[tuple[str, list[int], list[list[int]], float | None]]:
    """(name, context, candidates, margin): one place; two places (the best checked at its later one);
    two places read over the whole stretch; a context longer than a prefill chunk."""
    moved = _moved(seed, break_later=False)
    long = prompt_for(seed, PREFILL_CHUNK + 40)
    return [
        ("one place", prompt_for(seed), _candidates(seed), None),
        ("later places", *moved, None),
        ("whole stretch", *moved, 1e6),
        ("long prompt", long, _candidates(seed), None),
    ]


def _model(seed: int) -> TorchModel:
    return TorchModel(model=tiny_model(seed), eos_ids=frozenset())


@pytest.mark.parametrize("seed", range(2))
def test_a_deadline_stops_the_scoring_at_the_next_forward_pass(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """For every forward pass the scoring makes (prefill chunks included), a deadline that passes right
    after it stops the scoring there: no further pass, RunTimeout saying the model was scoring the
    readings; a deadline after the last pass changes nothing."""
    for name, context, cands, margin in _cases(seed):
        free = _model(seed)
        expected = score(free, context, cands, window=4, margin=margin)
        passes = free.num_forwards
        assert passes >= (4 if name != "one place" else 3), name  # prefill, shared prefix, a span each
        for k in range(passes):
            model = _model(seed)
            monkeypatch.setattr(interrupt, "time", PassClock(model))
            with interrupt.stopping(k - 0.5, 30.0), pytest.raises(RunTimeout) as stopped:
                score(model, context, cands, window=4, margin=margin)
            assert model.num_forwards == k, (name, k)
            assert str(stopped.value) == (
                "stopped by --timeout 30 s while the model scored the edit's readings; nothing was written"
            )
            assert stopped.value.exit_code == 2
            assert model.between_chunks is None  # the prefill hook put back
        model = _model(seed)
        monkeypatch.setattr(interrupt, "time", PassClock(model))
        with interrupt.stopping(passes + 0.5, 30.0):
            assert score(model, context, cands, window=4, margin=margin) == expected
        assert model.num_forwards == passes


class Gone(Exception):
    """A server's "the client went away" (its own error, raised by the run's stop callable)."""


def _recorder(model: TorchModel, calls: list[int]) -> Callable[[], None]:
    """A prefill hook that records the passes computed when it is called."""
    return lambda: calls.append(model.num_forwards)


@pytest.mark.parametrize("seed", range(2))
def test_a_client_gone_stops_the_scoring_at_the_next_forward_pass(seed: int) -> None:
    """The run's stop callable (a server's disconnect check) is asked before every pass: once it raises,
    the scoring stops with its error, no pass after; a hook the backend had between prefill chunks still
    runs, and is put back after."""
    _, context, cands, margin = _cases(seed)[3]  # a prefill of two chunks
    for k in (1, 2, 3):
        model = _model(seed)
        hooked: list[int] = []
        prior = _recorder(model, hooked)
        model.between_chunks = prior

        def gone(model: TorchModel = model, k: int = k) -> None:
            if model.num_forwards >= k:
                raise Gone("the client closed the connection")

        with interrupt.stopping(None, None, gone), pytest.raises(Gone):
            score(model, context, cands, window=4, margin=margin)
        assert model.num_forwards == k
        assert hooked == [1]  # between the prefill's two chunks
        assert model.between_chunks is prior


def test_no_rule_scores_as_before() -> None:
    """Outside a run with a stop rule (the Python API without a timeout) nothing is checked."""
    context, cands = prompt_for(0), _candidates(0)
    model = _model(0)
    assert score(model, context, cands, window=4) == score(_model(0), context, cands, window=4)
    assert model.between_chunks is None


def _tied(tokenizer: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, Any]:
    """A file and snippet with two valid readings the model's tie-break scores (tests/test_tiebreak.py's
    release case, the tie-break's margin set), an engine whose scripted model writes the right one, and
    the file's path: (case, engine, path)."""
    from fakes import scripted_engine

    from applyedit import api
    from applyedit.merge import confirm, reindent

    case: Any = _disagreeing_case()
    snippet = reindent.to_file_style(case.before, case.snippet)
    readings = confirm.confirmed(case.before, snippet, case.language, with_readings=True).readings
    monkeypatch.setattr(tiebreak, "MARGIN", 4.0)
    monkeypatch.setattr(api, "LEAD_LINES", 10)
    led = api.windowed(case.after, *api.window(case.before, readings))  # the model writes the right reading
    engine = scripted_engine(tokenizer, led + "```\n", 40.0)
    path = tmp_path / "sandbox.py"
    path.write_text(case.before, encoding="utf-8")
    return case, engine, path


def test_apply_stops_in_the_tiebreak_with_the_timeout_error(
    tokenizer: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through api.apply: a run whose deadline passes once the tie-break has prefilled its prompt stops
    there with RunTimeout (the CLI's exit 2), no further pass, the file untouched; without a timeout the
    same run answers."""
    from applyedit import api

    case, engine, path = _tied(tokenizer, tmp_path, monkeypatch)
    model: Any = engine.model

    class LateAfterPrefill:
        """Real time until the model's first pass (the tie-break's prefill), then far past any deadline."""

        @staticmethod
        def monotonic() -> float:
            return time.monotonic() + (1e6 if model.num_forwards else 0.0)

    monkeypatch.setattr(interrupt, "time", LateAfterPrefill)
    with pytest.raises(RunTimeout, match="while the model scored the edit's readings") as stopped:
        api.apply(path, case.snippet, engine=engine, timeout=30)
    assert stopped.value.exit_code == 2 and model.num_forwards == 1
    assert path.read_text(encoding="utf-8") == case.before
    monkeypatch.setattr(interrupt, "time", time)
    done = api.apply(path, case.snippet, engine=engine)
    assert any("the model prefers it by" in n for n in done.notes), done.notes


def test_apply_stops_in_the_tiebreak_when_its_client_goes(
    tokenizer: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through api.apply with a stop callable (the server's "client gone"): once it raises after the
    tie-break's prefill, the run stops with its error at the next pass; choose_reading does not take it
    for a model that could not run."""
    from applyedit import api

    case, engine, path = _tied(tokenizer, tmp_path, monkeypatch)
    model: Any = engine.model

    def gone() -> None:
        if model.num_forwards:
            raise Gone("the client closed the connection")

    with pytest.raises(Gone):
        api.apply(path, case.snippet, engine=engine, stop=gone)
    assert model.num_forwards == 1
    assert path.read_text(encoding="utf-8") == case.before


def test_a_deadline_passed_while_the_tiebreak_loads_the_model_says_so(
    tokenizer: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold run loads the weights for the tie-break: where the deadline passed meanwhile, it stops before
    any pass, saying it was loading the model."""
    from applyedit import api

    case, engine, path = _tied(tokenizer, tmp_path, monkeypatch)
    scripted: Any = engine.model
    loads: list[int] = []

    class Cold(api.Engine):
        @property
        def model(self) -> Any:
            if self._model is None:
                loads.append(1)
                self._model = scripted
            return self._model

    engine._model = None
    engine.__class__ = Cold

    class LateAfterLoading:
        @staticmethod
        def monotonic() -> float:
            return time.monotonic() + (1e6 if loads else 0.0)

    monkeypatch.setattr(interrupt, "time", LateAfterLoading)
    with pytest.raises(RunTimeout) as stopped:
        api.apply(path, case.snippet, engine=engine, timeout=30)
    assert str(stopped.value) == (
        "stopped by --timeout 30 s while loading the model to score 2 readings of the edit; nothing was written"
    )
    assert loads == [1] and scripted.num_forwards == 0


def test_a_deadline_passed_before_decoding_blames_loading_only_where_it_took_the_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """runwatch.watch's message where the deadline passed before decoding began: it names loading the model
    only where the steps since the run's last stop check (loading among them) took most of the timeout;
    where checked work (the merge, the tie-break) ran up to the deadline, it says nothing of loading."""
    now = [0.0]

    class Clock:
        @staticmethod
        def monotonic() -> float:
            return now[0]

    monkeypatch.setattr(interrupt, "time", Clock)
    monkeypatch.setattr(runwatch, "time", Clock)
    with interrupt.stopping(30.0, 30.0):
        now[0] = 29.5
        interrupt.check()  # the tie-break's last pass began within the deadline
        now[0] = 31.0
        with pytest.raises(RunTimeout) as checked_late:
            runwatch.watch(30.0, 30.0, None, cold=True)
    assert str(checked_late.value) == "stopped by --timeout 30 s before decoding began; nothing was written"
    now[0] = 0.0
    with interrupt.stopping(30.0, 30.0):
        now[0] = 2.0
        interrupt.check()  # the merge, then the weights loading for 29 s
        now[0] = 31.0
        with pytest.raises(RunTimeout, match=r"began \(loading the model took most of it\); nothing"):
            runwatch.watch(30.0, 30.0, None, cold=True)
        # a warm engine (a server's) loaded nothing: the same time is not loading's (issue 60)
        with pytest.raises(RunTimeout) as warm:
            runwatch.watch(30.0, 30.0, None, cold=False)
    assert str(warm.value) == "stopped by --timeout 30 s before decoding began; nothing was written"
