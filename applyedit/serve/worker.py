"""The serve worker: runs `api.apply` (or, for a general chat request, serve/generate.py's `run`) for
queued requests one at a time, in arrival order, on its own thread (or, for an engine that batches
requests itself, vLLM's, on many threads at once), from a bounded queue (full: `Busy`, HTTP 503),
with each request's deadline and a cancel flag checked between verify passes and between the
prefill's chunks (`Cancelled` when its client went away).

Every run works on a private temporary copy of the posted content, with the server's warm engine
and the request's settings as one RunOptions; its error messages name the request's path, never
that folder. The cancel flag also stops the merge, the checks and an engine's wait (api.apply's
`stop`). A request's `prediction` is one more copy source of its apply run (api.apply's `prediction`, set
for that run only). A general chat run writes no file; it hands its text to the request's `events`
queue as its passes verify it ("start" with the prompt's tokens, then "text" pieces). Knows nothing of
HTTP: serve/app.py maps its outcomes.
"""

import asyncio
import queue
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from applyedit import files
from applyedit.errors import ApplyEditError, DecodeError, RunTimeout


class Cancelled(DecodeError):
    """The client closed its connection; the run stopped between verify passes (nothing returned)."""


class Busy(ApplyEditError):
    """The queue is full (HTTP 503)."""

    exit_code = 2


@dataclass
class Job:
    path: str
    content: str
    edit: str
    options: dict[str, Any]
    deadline: float | None  # time.monotonic(); from arrival
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    cancel: threading.Event = field(default_factory=threading.Event)
    timeout: float | None = None  # the seconds `deadline` counts from arrival, as its messages name them
    prediction: str | None = None  # the request's predicted output: one more copy source of its apply run
    chat: Any = None  # a generate.Chat: a general chat run instead of an apply run (path, content, edit unused)
    events: asyncio.Queue[tuple[str, Any]] | None = None  # a chat run's ("start", prompt tokens), ("text", piece)

    def post(self, kind: str, value: Any) -> None:
        """Hand an event to the request's coroutine (from the worker's thread)."""
        if self.events is not None:
            self.loop.call_soon_threadsafe(self.events.put_nowait, (kind, value))


class Worker:
    """Runs jobs in arrival order on `threads` threads (one: one at a time); the queue is bounded."""

    def __init__(self, engine: Any, size: int, threads: int = 1) -> None:
        self.engine = engine
        self.jobs: queue.Queue[Job | None] = queue.Queue(maxsize=max(1, size))
        self.size = size
        self.active: list[Job] = []
        self.served = 0
        self.cancelled = 0  # runs stopped because their client went away
        self.lock = threading.Lock()
        self.threads = [
            threading.Thread(target=self._loop, name=f"applyedit-worker-{i}", daemon=True) for i in range(threads)
        ]
        self.thread = self.threads[0]
        for thread in self.threads:
            thread.start()

    @property
    def running(self) -> Job | None:
        """A running job (the one, with a single thread), or None."""
        with self.lock:
            return self.active[0] if self.active else None

    def submit(self, job: Job) -> None:
        with self.lock:  # one waiting slot is kept for the running job's successor when size is 0
            if self.size == 0 and (len(self.active) >= len(self.threads) or not self.jobs.empty()):
                raise Busy("the server is busy (queue of 0): try again when the running request ends")
            try:
                self.jobs.put_nowait(job)
            except queue.Full:
                raise Busy(f"the server is busy ({self.size} requests already waiting): try again later") from None

    def stop(self) -> None:
        for _ in self.threads:
            self.jobs.put(None)

    def _loop(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            with self.lock:
                self.active.append(job)
            try:
                outcome: Any = self._run(job)
            except BaseException as e:  # handed to the request's coroutine, never lost
                outcome = e
                with self.lock:
                    self.cancelled += isinstance(e, Cancelled)
            finally:
                with self.lock:
                    self.active.remove(job)
                    self.served += 1
            job.loop.call_soon_threadsafe(_settle, job.future, outcome)

    def _run(self, job: Job) -> Any:
        from applyedit import api
        from applyedit.options import RunOptions

        if job.cancel.is_set():
            raise Cancelled("the client closed the connection before its run began")
        options = dict(job.options)
        language, timeout = options.pop("language", None), options.pop("timeout", None)
        if job.deadline is not None:  # the deadline counts from arrival; messages name the request's seconds
            timeout = job.timeout
        if job.deadline is not None and job.deadline <= time.monotonic():
            raise RunTimeout("stopped by its timeout while waiting in the queue; nothing was run")

        def step(s: Any, tokens: int) -> None:
            if job.cancel.is_set():
                raise Cancelled(f"the client closed the connection; stopped after {s.index + 1} passes")

        def between_chunks() -> None:  # the prefill stops between two chunks too
            if job.cancel.is_set():
                raise Cancelled("the client closed the connection; stopped during the prefill")
            if job.deadline is not None and time.monotonic() > job.deadline:
                raise RunTimeout("stopped by its timeout during the prefill; nothing was written")

        def gone() -> None:  # the merge, the checks and an engine's wait stop between their steps too
            if job.cancel.is_set():
                raise Cancelled("the client closed the connection; the run stopped")

        # `serve` loads it before the first request; an engine of many runs at once has no prefill hook
        model = self.engine.model if self.engine.loaded and len(self.threads) == 1 else None
        if model is not None:
            model.between_chunks = between_chunks
        try:
            if job.chat is not None:
                from applyedit.serve import generate

                return generate.run(
                    self.engine,
                    job.chat,
                    deadline=job.deadline,
                    timeout=timeout,  # the seconds the request's messages name; the deadline counts from arrival
                    on_step=step,
                    on_text=lambda text: job.post("text", text),
                    on_start=lambda tokens: job.post("start", tokens),
                )
            with tempfile.TemporaryDirectory(prefix="applyedit-serve-") as tmp:
                root = Path(tmp)
                try:
                    target = root / job.path
                    target.parent.mkdir(parents=True, exist_ok=True)
                    files.write_atomic(target, job.content.encode("utf-8"), follow=False)
                    run = RunOptions(**options, timeout=timeout)  # the request's settings, the server's model
                    return api.apply(
                        target,
                        job.edit,
                        options=run,
                        engine=self.engine,
                        cwd=root,
                        language=language,
                        on_step=step,
                        stop=gone,
                        prediction=job.prediction,
                        deadline=job.deadline,  # from the request's arrival, not from the end of its wait
                    )
                except ApplyEditError as e:  # its message names the request's path, not the server's folder
                    e.args = tuple(_unrooted(a, root) for a in e.args)
                    raise
        finally:
            if model is not None:
                model.between_chunks = None


def _unrooted(arg: Any, root: Path) -> Any:
    """A message with the run's temporary folder taken out of the paths it names."""
    if not isinstance(arg, str):
        return arg
    for folder in {str(root), str(root.resolve())}:
        arg = arg.replace(folder + "/", "").replace(folder, ".")
    return arg


def _settle(future: asyncio.Future[Any], outcome: Any) -> None:
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
