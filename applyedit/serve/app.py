"""`applyedit serve`: one loaded model behind a local HTTP API, for editors and agents.

Owns the HTTP surface (FastAPI on uvicorn): `POST /v1/apply` (JSON {path, content, edit, options} ->
{after, diff, report, notes}), `POST /v1/chat/completions` (OpenAI-compatible: the apply format, a
user message with `<instruction>`, `<code>` and `<update>` tags answered with the merged file, or a
general chat with OpenAI's `prediction`; `stream` sends server-sent events; the chat side is
serve/chat.py's), `GET /v1/models`, `GET /health`; the guard in front (body size limit, bearer
token), the mapping of errors to HTTP statuses (they carry the CLI's exit code; an output out of its
budget is a 422, a timeout a 504; a bug is a JSON 500 too), and cancelling a run whose client went
away (`Runner`). A request's limits are checked before it queues (options.py's bounds), and its
engine never prepares a model for it. The runs themselves are the worker's (serve/worker.py: one at
a time, in arrival order, from a bounded queue, each `api.apply` on a private temporary copy of the
posted content, or a general chat run), so the checks and refusals are the CLI's. The prompt cache
lives on the model (models/promptcache.py). Reads and writes no user file: the CLI does (serve/client.py).
"""

import asyncio  # no `from __future__ import annotations`: FastAPI reads the routes' annotations at run time
import hmac
import ipaddress
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from applyedit.errors import (
    ApplyEditError,
    DecodeError,
    InputError,
    ModelNotPrepared,
    OutputCheckError,
    PromptTooLongError,
    RunTimeout,
    UsageError,
)
from applyedit.options import OPTIONS
from applyedit.serve.chat import CHAT_FIELDS, add_chat_route, error_body, failure_message, in_request_terms
from applyedit.serve.worker import Busy, Cancelled, Job, Worker

logger = logging.getLogger(__name__)

API_MODEL = "applyedit"  # the model id every client may use (the loaded model's own name works too)


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8321
    token: str | None = None
    queue: int = 8  # requests waiting behind the running one; more get 503
    max_body: int = 8 << 20  # bytes of a request body; more get 413
    timeout: float | None = None  # default per-request limit in seconds (a request's own wins)
    body_timeout: float = 30.0  # seconds a request's body may take to arrive (between two reads); then 408


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_settings(settings: Settings) -> None:
    if not is_loopback(settings.host) and not settings.token:
        raise UsageError(f"--host {settings.host} is reachable from other machines: give --token (bearer auth) too")
    if settings.queue < 0 or settings.max_body < 1:
        raise UsageError("--queue must be 0 or more and --max-body-mb above 0")


def status_for(error: ApplyEditError) -> int:
    """The HTTP status of an error, by its kind (its exit code rides along in the body)."""
    if isinstance(error, (Busy, ModelNotPrepared)):
        return 503
    if isinstance(error, Cancelled):
        return 499
    if isinstance(error, RunTimeout):
        return 504
    if isinstance(error, (OutputCheckError, DecodeError)):  # an output refused, or unusable (its budget ran out)
        return 422
    if isinstance(error, UsageError):
        return 400
    return 500


def clean_path(path: str) -> str:
    """A request's `path`: relative, inside its folder (no `..`), POSIX; it names the diff and the language."""
    if not path or "\x00" in path or "\\" in path or len(path) > 1024:
        raise InputError("path: give a relative POSIX path such as src/app.py")
    p = PurePosixPath(path)
    if p.is_absolute() or re.match(r"^[A-Za-z]:", path):
        raise InputError(f"path {path!r} is absolute: give it relative to the project, e.g. src/app.py")
    if ".." in p.parts:
        raise InputError(f"path {path!r} leaves its folder ('..')")
    if not p.parts or p.parts == (".",) or path.endswith("/"):
        raise InputError(f"path {path!r} names no file")
    return str(p)


def check_text(name: str, value: str) -> None:
    """A request's text must be Unicode that UTF-8 can hold: no lone surrogates (JSON's "\\ud800")."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InputError(f"{name}: not valid Unicode text (a lone surrogate at character {e.start})") from None


# What of an oversized body is read and dropped before the 413 (then the connection closes): a client
# still writing when the connection closes sees a reset, not the answer.
DRAIN = 1 << 30  # bytes past the limit
DRAIN_SECONDS = 30.0  # seconds past the limit


class Guard:
    """ASGI middleware in front of everything: the body size limit (413) and, when a token is set,
    bearer auth on /v1/ (401). The body is read here, so the app gets it whole, and later reads go to
    the connection (so a run can see its client disconnect)."""

    def __init__(self, app: Any, settings: Settings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        limit = self.settings.max_body
        # The whole body is read first (what is past the limit, up to DRAIN more bytes or DRAIN_SECONDS,
        # is discarded): a client still writing when the answer comes would see a reset, not the answer.
        body, more, size, over = bytearray(), True, 0, 0.0
        while more and size <= limit + DRAIN and (size <= limit or time.monotonic() - over < DRAIN_SECONDS):
            try:
                message = await asyncio.wait_for(receive(), self.settings.body_timeout)
            except TimeoutError:
                await _send_json(
                    send,
                    408,
                    error_body(
                        f"the request body did not arrive within {self.settings.body_timeout:g} s "
                        "(is Content-Length larger than the body?)",
                        "invalid_request_error",
                        1,
                        "body_timeout",
                    ),
                )
                return
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            over = time.monotonic() if size <= limit < size + len(chunk) else over
            size += len(chunk)
            if size <= limit:
                body += chunk
            more = message.get("more_body", False)
        token = self.settings.token
        if token and scope["path"].startswith("/v1/"):
            given = headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                await _send_json(
                    send,
                    401,
                    error_body(
                        "missing or wrong bearer token (Authorization: Bearer TOKEN)",
                        "authentication_error",
                        1,
                        "invalid_api_key",
                    ),
                )
                return
        if size > limit:
            await _send_json(
                send,
                413,
                error_body(
                    f"the request body exceeds the server's limit of {limit:,} bytes",
                    "invalid_request_error",
                    1,
                    "body_too_large",
                ),
            )
            return
        delivered = False

        async def replay() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _send_json(send: Callable[..., Any], status: int, data: dict[str, Any]) -> None:
    payload = json.dumps(data).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *([(b"connection", b"close")] if status in (408, 413) else []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def uvicorn_config(app: Any, **settings: Any) -> Any:
    """uvicorn's settings for `app`, with the HTTP protocol whose own errors are JSON too (`json_protocol`)."""
    import uvicorn

    return uvicorn.Config(app, log_level="warning", access_log=False, http=json_protocol(), **settings)


def json_protocol() -> type:
    """uvicorn's h11 protocol, except that a request it cannot parse (a garbage request line, a bad
    Content-Length) is answered with OpenAI's JSON error shape, like every other error, not plain text."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class JsonErrorsH11Protocol(H11Protocol):
        def send_400_response(self, msg: str) -> None:
            payload = json.dumps(
                error_body(f"bad HTTP request: {msg}", "invalid_request_error", 1, "bad_http_request")
            ).encode()
            head = (
                "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
                f"content-length: {len(payload)}\r\nconnection: close\r\n\r\n"
            )
            self.transport.write(head.encode() + payload)
            self.transport.close()

    return JsonErrorsH11Protocol


def create_app(engine: Any, settings: Settings, cache: Any = None) -> Any:
    """The ASGI app around a loaded `api.Engine` (its model gets `cache`, a PromptCache, when given)."""
    from fastapi import FastAPI

    if cache is not None:
        engine.model.prompt_cache = cache
    engine.prepares = False  # a request never prepares, converts or calibrates a model to disk
    # An engine that batches (vLLM) runs many requests at once; applyedit's own loop runs one.
    worker = Worker(engine, settings.queue, engine.model.concurrent_runs if engine.loaded else 1)
    names = {API_MODEL, engine.source.name}
    app = FastAPI(title="applyedit", docs_url=None, redoc_url=None, openapi_url=None)
    _add_error_handlers(app)
    run = Runner(worker, settings)
    _add_info_routes(app, engine, worker, cache, names)
    _add_apply_route(app, run)
    add_chat_route(app, names, run)
    app.state.worker = worker
    app.state.cache = cache
    return Guard(app, settings)


def _add_error_handlers(app: Any) -> None:
    """Every error as OpenAI's error shape: the run's errors by kind, bad requests as 400."""
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException

    @app.exception_handler(ApplyEditError)
    async def on_error(request: Request, error: ApplyEditError) -> JSONResponse:
        code = "context_length_exceeded" if isinstance(error, PromptTooLongError) else None  # OpenAI's code
        # the run's words for its settings (the CLI's flags) become the request's fields
        chat = request.url.path.endswith("/chat/completions")
        message, param = in_request_terms(str(error), "" if chat else "options.", CHAT_FIELDS if chat else None)
        body = error_body(message, type(error).__name__, error.exit_code, code, param)
        if error.readings:  # a refused snippet's readings: the caller may send `reading` to take one
            body["error"].update(readings=error.readings, places=list(error.places))
        return JSONResponse(body, status_for(error))

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        where = [".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body" for e in error.errors()[:5]]
        problems = "; ".join(f"{at}: {e.get('msg')}" for at, e in zip(where, error.errors()[:5], strict=False))
        param = where[0] if where and where[0] != "body" else None  # the first field at fault, as OpenAI names it
        return JSONResponse(error_body(f"bad request: {problems}", "invalid_request_error", 1, param=param), 400)

    @app.exception_handler(HTTPException)
    async def on_http(request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse(error_body(str(error.detail), "invalid_request_error", 1), error.status_code)

    @app.exception_handler(Exception)
    async def on_bug(request: Request, error: Exception) -> JSONResponse:  # a bug: logged, answered as JSON
        logger.error("a request failed unexpectedly", exc_info=error)
        return JSONResponse(error_body(failure_message(error), "server_error", 2), 500)


class Runner:
    """The routes' one way to a run: a job through the worker, cancelled when its client goes away.
    Called (`run(request, path, content, edit, options, timeout, prediction)`): an apply run, its
    result; `start_chat` queues a general chat run and `settle` waits for a job's result."""

    def __init__(self, worker: Worker, settings: Settings) -> None:
        self.worker, self.settings = worker, settings

    async def __call__(
        self,
        request: Any,
        path: str,
        content: str,
        edit: str,
        options: dict[str, Any],
        timeout: float | None,
        prediction: str | None = None,
    ) -> Any:
        for name, value in (("path", path), ("content", content), ("edit", edit), ("prediction", prediction or "")):
            check_text(name, value)
        if "\x00" in edit:
            raise InputError("edit: it contains NUL characters (binary data is no edit)")
        job = self._job(clean_path(path), content, edit, options, timeout, prediction=prediction)
        self.worker.submit(job)
        return await self.settle(request, job)

    def start_chat(self, chat: Any, timeout: float | None) -> Job:
        """Queue a general chat run (serve/generate.py); its events come on the job's `events` queue."""
        for i, (_, text) in enumerate(chat.messages):
            check_text(f"messages[{i}]", text)
        check_text("prediction", chat.prediction or "")
        job = self._job("", "", "", {}, timeout, chat=chat, events=asyncio.Queue())
        self.worker.submit(job)
        return job

    async def settle(self, request: Any, job: Job) -> Any:
        """The job's result (or its error), its run cancelled once its client has gone away."""
        while not job.future.done():
            await asyncio.wait({job.future}, timeout=0.2)
            if not job.future.done() and not job.cancel.is_set() and await request.is_disconnected():
                job.cancel.set()  # the worker stops between verify passes; the answer goes nowhere
        return job.future.result()

    def _job(
        self, path: str, content: str, edit: str, options: dict[str, Any], timeout: float | None, **more: Any
    ) -> Job:
        timeout = timeout if timeout is not None else self.settings.timeout
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else time.monotonic() + timeout
        return Job(path, content, edit, options, deadline, loop, loop.create_future(), timeout=timeout, **more)


def _add_info_routes(app: Any, engine: Any, worker: Worker, cache: Any, names: set[str]) -> None:
    """`GET /health` (the model, the queue, the prompt cache) and `GET /v1/models`."""
    started = time.time()

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "model": engine.source.name,
            "backend": engine.backend,
            "device": engine.device,
            "dtype": engine.dtype_name,
            "served": worker.served,
            "running": worker.running is not None,
            "active": max(len(worker.active), getattr(engine.model, "held", 0) if engine.loaded else 0),
            "waiting": worker.jobs.qsize(),
            "uptime_s": round(time.time() - started, 1),
            "prompt_cache": cache.to_dict() if cache is not None else None,
        }

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {"id": name, "object": "model", "created": int(started), "owned_by": "applyedit"}
                for name in sorted(names)
            ],
        }


def request_options() -> Any:
    """The model of the options a `/v1/apply` request may set: the run options a request may set
    (options.OPTIONS), named like the CLI's flags, and the language, which goes with the file; any
    other is refused."""
    from pydantic import ConfigDict, Field, create_model

    fields: dict[str, Any] = {}
    for o in OPTIONS:  # in the table's order: a request's problems are listed in it
        if o.request and o.name == "reading":  # its range is the snippet's: the run words it as a local run does
            fields[o.name] = (o.type | None, None)
        elif o.request:
            fields[o.name] = (o.type | None, Field(default=None, ge=o.ge, gt=o.gt, le=o.le))
        if o.name == "max_new_tokens":  # the language (no run option: it goes with the file) comes next
            fields["language"] = (str | None, None)
    return create_model("Options", __config__=ConfigDict(extra="forbid"), **fields)


def _add_apply_route(app: Any, run: Callable[..., Awaitable[Any]]) -> None:
    """`POST /v1/apply`: a path, its content, an edit and the CLI's options (any other is refused)."""
    from fastapi import Request
    from pydantic import BaseModel, ConfigDict, Field

    Options = request_options()

    class ApplyRequest(BaseModel):
        model_config = ConfigDict(extra="forbid")
        path: str
        content: str
        edit: str
        options: Options = Field(default_factory=Options)  # type: ignore[valid-type]  # a model made at run time

    @app.post("/v1/apply")
    async def apply_route(request: Request, body: ApplyRequest) -> dict[str, Any]:
        options = body.options.model_dump(exclude_none=True)  # type: ignore[attr-defined]
        timeout = options.pop("timeout", None)
        result = await run(request, body.path, body.content, body.edit, options, timeout)
        return _answer(result)


def _answer(result: Any) -> dict[str, Any]:
    summary = result.summary.to_dict()
    return {
        "path": result.path,
        "after": result.after,
        "diff": result.diff,
        "changed": result.changed,
        "kind": result.kind,
        "answer": result.answer,
        "notes": list(result.notes),
        "summary": summary,
        "report": result.report,
        "tokens": result.tokens,
    }


def serve(
    engine: Any,
    settings: Settings,
    cache: Any = None,
    log: Callable[[str], None] = print,
    ready: Callable[[Any], None] | None = None,
) -> None:
    """Load the model, bind and serve until interrupted (uvicorn). `ready(server)` is called once bound."""
    import socket

    import uvicorn

    check_settings(settings)
    t0 = time.perf_counter()
    _ = engine.model  # load the weights and the cost curve before the first request, not in it
    engine.cost_curve()
    log(
        f"applyedit serve: {engine.source.name} via {engine.backend} on {engine.device} ({engine.dtype_name}) "
        f"loaded in {time.perf_counter() - t0:.1f} s"
    )
    app = create_app(engine, settings, cache)
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as e:
        raise UsageError(f"cannot listen on {settings.host}:{settings.port}: {e.strerror}") from e
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(app, timeout_graceful_shutdown=2))
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    log(
        f"applyedit serve: listening on http://{host}:{port} (OpenAI base URL http://{host}:{port}/v1)"
        + (f"; prompt cache {cache.limit_bytes >> 20} MB" if cache is not None else "; no prompt cache")
    )
    if ready is not None:
        ready(server)
    server.run(sockets=[sock])
