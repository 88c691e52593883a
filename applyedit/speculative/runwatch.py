"""The decode loop's callbacks for one run: where the output stops (`FenceStop`: the closing fence
line), the output line reached for progress displays (`follow_lines`), and the `--timeout` deadline
(`watch`, raising `RunTimeout` between verify passes). Knows text and ids; nothing of the model.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence

from applyedit import interrupt
from applyedit.decoded import Step
from applyedit.errors import RunTimeout


class FenceStop:
    """Stops decoding once the output holds the closing fence line (`fence` alone, then a newline)."""

    def __init__(self, decode: Callable[[Sequence[int]], str], fence: str) -> None:
        self.decode = decode  # token ids -> text
        self.pattern = re.compile(r"(?:^|\n)" + re.escape(fence) + r"[ \t]*\n")

    def __call__(self, output: Sequence[int]) -> int | None:
        if not self.pattern.search(self.decode(output)):
            return None
        # Cut right after the token that completed the closing line (searching from the end).
        cut = len(output)
        while cut > 0 and self.pattern.search(self.decode(output[: cut - 1])):
            cut -= 1
        return cut


def follow_lines(
    decode: Callable[[Sequence[int]], str],
    lines: int,
    on_step: Callable[[Step, int], None] | None,
    on_phase: Callable[[str, int, int], None],
) -> Callable[[Step, int], None]:
    """The per-pass callback that also reports ("decoding", output line reached, `lines` expected)."""
    newlines = 0

    def step(s: Step, tokens: int) -> None:
        nonlocal newlines
        newlines += decode(s.emitted).count("\n")
        on_phase("decoding", newlines + 1, lines)
        if on_step is not None:
            on_step(s, tokens)

    return step


# --- anchoring, the merge as the answer, and outputs that only look like success (issue 17) ----------


def watch(
    deadline: float | None,
    timeout: float | None,
    on_step: Callable[[Step, int], None] | None,
    cold: bool = False,
) -> Callable[[Step, int], None] | None:
    """The loop's per-pass callback, raising `RunTimeout` once the deadline has passed (at once where
    it passed before decoding began). `cold`: this run loaded the model's weights (a warm engine, a
    server's, loads nothing: its message never blames loading)."""
    if deadline is None:
        return on_step
    if time.monotonic() > deadline:
        raise RunTimeout(
            f"stopped by --timeout {timeout:g} s before decoding began{_spent(timeout, cold)}; nothing was written"
        )

    def step(s: Step, tokens: int) -> None:
        if on_step is not None:
            on_step(s, tokens)
        if time.monotonic() > deadline:
            raise RunTimeout(
                f"stopped by --timeout {timeout:g} s after {tokens:,} output tokens in "
                f"{s.index + 1} passes; nothing was written"
            )

    return step


def _spent(timeout: float | None, cold: bool) -> str:
    """Where the time went when the deadline passed before decoding began, where that is known: to the
    steps since the run's last stop check (interrupt.py; the merge, the checks and the tie-break check
    between their steps, so those are preparing the prompt and loading the weights) when they took most
    of the timeout and this run loaded the weights (`cold`); else nothing is said (the checked steps ended
    just before the deadline, or a warm engine loaded nothing)."""
    idle = interrupt.unchecked()
    return (
        " (loading the model took most of it)" if cold and idle is not None and timeout and idle > timeout / 2 else ""
    )
