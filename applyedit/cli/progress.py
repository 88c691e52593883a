"""The live progress line on stderr while a run works: one line, in phases, fitted to the terminal.

Owns the phases a run goes through and the words each one shows: preparing the model (assembling,
converting), loading the weights, reading the prompt (the prefill, with a percentage as the
backend reports its progress: torch per layer and chunk, llama.cpp per 512-token chunk), then
writing the output (the current output line out of the expected total, the share of drafted tokens
accepted so far, decode tokens per second with the prefill left out, and an estimate of the time
left from the lines written so far). `status_line` is the pure text of one moment, always ending
with the elapsed time and never wider than the terminal; `RunProgress` feeds it from the run's
callbacks and redraws it with rich, only when stderr is a terminal (logs and pipes get nothing).
Knows nothing of decoding: it reads the `Step` records the loop yields.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RunProgress", "State", "clock", "status_line"]


def clock(seconds: float) -> str:
    """3.2 -> '0:03', 75 -> '1:15', 3725 -> '1:02:05'."""
    s = max(0, int(seconds + 0.5))
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


@dataclass
class State:
    """What the line shows: the phase and its numbers (the fields a phase does not use stay 0)."""

    phase: str = "starting"  # "starting" | "preparing" | "loading" | "prefill" | "decoding"
    detail: str = ""  # preparing: what is being prepared ("assembling 3/22")
    done: int = 0  # prefill: prompt tokens computed
    total: int = 0  # prefill: prompt tokens to compute
    line: int = 0  # decoding: output lines started so far
    lines: int = 0  # decoding: the expected number of output lines (the original's)
    tokens: int = 0
    drafted: int = 0
    accepted: int = 0
    decode_s: float = 0.0  # since decoding began (after the prefill)
    started: float = field(default_factory=time.monotonic)


def _parts(s: State) -> list[str]:
    """The phase's words, most important first: the first part is always shown."""
    if s.phase == "preparing":
        return [f"preparing the model: {s.detail}"]
    if s.phase == "loading":
        return ["loading the model weights"]
    if s.phase == "prefill":
        if not s.done:  # a backend that reports only the start and the end (a prompt in one chunk)
            return [f"reading the prompt ({s.total:,} tokens)"]
        return [f"reading the prompt {s.done / s.total:.0%}", f"{s.done:,} of {s.total:,} tokens"]
    if s.phase == "decoding":
        expected = max(s.lines, s.line)
        parts = [f"writing line {s.line}/~{expected}"]
        rate = s.line / s.decode_s if s.decode_s > 0 else 0.0
        if rate > 0 and s.line >= 2:
            left = max(0.0, (expected - s.line) / rate)
            parts.append(f"{clock(left)} left")
        if s.drafted:
            parts.append(f"{s.accepted / s.drafted:.0%} drafts accepted")
        if s.decode_s > 0:
            parts.append(f"{s.tokens / s.decode_s:.1f} tok/s")
        return parts
    return ["starting up"]


def status_line(s: State, width: int, now: float | None = None) -> str:
    """The line for this moment: the phase's words, then the elapsed time; parts that do not fit in
    `width` - 1 columns go from the least important; the elapsed time always stays whole."""
    elapsed = f"{clock((now if now is not None else time.monotonic()) - s.started)} elapsed"
    parts = _parts(s)
    room = max(10, width - 1) - len(elapsed) - 2
    while len(parts) > 1 and len(", ".join(parts)) > room:
        parts.pop()
    text = ", ".join(parts)
    if len(text) > room:
        text = text[: max(0, room - 1)] + "…"
    return f"{text}  {elapsed}"


class RunProgress:
    """The progress line of one command, on `console` (stderr) and only when it is a terminal.

    Callbacks, each safe to call whether or not the line is shown: `model` (modelstore's preparing
    progress), `phase` (api.apply's phases: "loading", "prefill" with tokens done and total,
    "decoding" with the output line and the expected lines) and `step` (the loop's per-pass record)."""

    def __init__(self, console: Any, enabled: bool = True, log_preparing: bool = False) -> None:
        self.console = console
        self.enabled = enabled and bool(console.is_terminal)
        self.log_preparing = log_preparing  # `model prepare`: its start and end as lines in logs too
        self.state = State()
        self._live: Any = None

    def __enter__(self) -> RunProgress:
        if self.enabled:
            from rich.live import Live

            self._live = Live(
                self,
                console=self.console,
                transient=True,
                refresh_per_second=4,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None

    def __rich__(self) -> Any:
        from rich.text import Text

        return Text(status_line(self.state, self.console.width), no_wrap=True, overflow="crop")

    def model(self, what: str, done: int, total: int) -> None:
        self.state.phase, self.state.detail = "preparing", f"{what} {done}/{total}"
        if self._live is None and self.log_preparing and (done == 0 or done == total):
            self.console.print(f"preparing the model: {what} {done}/{total}", markup=False)

    def phase(self, name: str, done: int = 0, total: int = 0) -> None:
        s = self.state
        s.phase = name
        if name == "prefill":
            s.done, s.total = done, total
        elif name == "decoding":
            s.line, s.lines = done, total

    def step(self, step: Any, tokens: int) -> None:
        s = self.state
        s.phase = "decoding"
        s.tokens = tokens
        s.drafted += len(step.draft)
        s.accepted += step.num_accepted
        s.decode_s = step.start_s + step.time_s
