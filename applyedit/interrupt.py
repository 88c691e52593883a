"""A run's stop rule where long pure work can reach it: the deadline of `--timeout` (or a request's)
and the server's "the client went away", checked by the merge's readings, the checks and the model's
tie-break between their steps.

`api.apply` sets the rule for the run (`stopping`); code that may take long on a large file (placing a
segment at each of its candidate places, parsing a candidate file, scoring the readings with the model)
calls `check()`, which raises the rule's error (`RunTimeout`, or the caller's own, such as the server's
`Cancelled`) and costs a clock read otherwise. The error says what the run was doing (`doing`: reading
the edit or checking the answer unless a step says otherwise). The rule lives in a context variable, so
a thread or task sees only its own run's. It also keeps when a check last let the run go on
(`unchecked`): the time since then went to steps that check nothing, such as loading the model. Knows
nothing of what is checked or why it takes long; the decode loop has its own per-pass watch
(speculative/runwatch.py).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from applyedit.errors import RunTimeout

DOING = "reading the edit or checking the answer"  # what a run is doing where no step says otherwise


@dataclass
class _Run:
    deadline: float | None  # time.monotonic() past which the run stops
    timeout: float | None  # the seconds the deadline was set from, as the error names them
    also: Callable[[], None] | None  # raises to stop the run (a server's client gone)
    passed: float  # when a check last let the run go on (its start before the first)
    doing: str = DOING


_RUN: contextvars.ContextVar[_Run | None] = contextvars.ContextVar("applyedit_stop_rule", default=None)


def check() -> None:
    """Raise the running rule's error when its run must stop; nothing when there is no rule."""
    run = _RUN.get()
    if run is None:
        return
    if run.also is not None:
        run.also()
    now = time.monotonic()
    if run.deadline is not None and now > run.deadline:
        said = f"--timeout {run.timeout:g} s" if run.timeout is not None else "its timeout"
        raise RunTimeout(f"stopped by {said} while {run.doing}; nothing was written")
    run.passed = now


def unchecked() -> float | None:
    """Seconds since a check last let the running rule's run go on (since its start before the first
    check); None when there is no rule."""
    run = _RUN.get()
    return None if run is None else time.monotonic() - run.passed


@contextmanager
def doing(what: str) -> Iterator[None]:
    """Within the block, a stop the rule raises says the run stopped while `what` ("the model scored
    the edit's readings"); nothing where there is no rule."""
    run = _RUN.get()
    if run is None:
        yield
        return
    before, run.doing = run.doing, what
    try:
        yield
    finally:
        run.doing = before


@contextmanager
def stopping(
    deadline: float | None, timeout: float | None = None, also: Callable[[], None] | None = None
) -> Iterator[None]:
    """Within the block, `check()` raises `RunTimeout` past `deadline` (time.monotonic()) and calls
    `also` (which raises to stop, e.g. when a client went away)."""
    run = _Run(deadline, timeout, also, time.monotonic()) if deadline is not None or also is not None else None
    token = _RUN.set(run)
    try:
        yield
    finally:
        _RUN.reset(token)
