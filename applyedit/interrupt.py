"""A run's stop rule where long pure work can reach it: the deadline of `--timeout` (or a request's)
and the server's "the client went away", checked by the merge's readings and the checks between
their steps.

`api.apply` sets the rule for the run (`stopping`); code that may take long on a large file (placing a
segment at each of its candidate places, parsing a candidate file) calls `check()`, which raises the
rule's error (`RunTimeout`, or the caller's own, such as the server's `Cancelled`) and costs a clock
read otherwise. The rule lives in a context variable, so a thread or task sees only its own run's.
Knows nothing of what is checked or why it takes long; the decode loop has its own per-pass watch
(speculative/runwatch.py).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from applyedit.errors import RunTimeout

_RULE: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar("applyedit_stop_rule", default=None)


def check() -> None:
    """Raise the running rule's error when its run must stop; nothing when there is no rule."""
    rule = _RULE.get()
    if rule is not None:
        rule()


@contextmanager
def stopping(
    deadline: float | None, timeout: float | None = None, also: Callable[[], None] | None = None
) -> Iterator[None]:
    """Within the block, `check()` raises `RunTimeout` past `deadline` (time.monotonic()) and calls
    `also` (which raises to stop, e.g. when a client went away)."""

    def rule() -> None:
        if also is not None:
            also()
        if deadline is not None and time.monotonic() > deadline:
            said = f"--timeout {timeout:g} s" if timeout is not None else "its timeout"
            raise RunTimeout(f"stopped by {said} while reading the edit or checking the answer; nothing was written")

    token = _RULE.set(rule if deadline is not None or also is not None else None)
    try:
        yield
    finally:
        _RULE.reset(token)
