"""`applyedit serve`: one loaded model behind a local HTTP API, for editors and agents.

Owns the HTTP surface (FastAPI on uvicorn): `POST /v1/apply` (JSON {path, content, edit, options} ->
{after, diff, report, notes}), `POST /v1/chat/completions` (OpenAI-compatible: a user message with
`<instruction>`, `<code>` and `<update>` tags, answered with the merged file; `stream` sends it as
server-sent events), `GET /v1/models`, `GET /health`; the guard in front (body size limit, bearer
token), the mapping of errors to HTTP statuses (they carry the CLI's exit code), and cancelling a
run whose client went away. The runs themselves are the worker's (worker.py: one at a time, in
arrival order, from a bounded queue, each `api.apply` on a private temporary copy of the posted
content), so the checks and refusals are the CLI's. The prompt cache lives on the model
(promptcache.py). Reads and writes no user file: the CLI does (client.py).
"""

import asyncio  # no `from __future__ import annotations`: FastAPI reads the routes' annotations at run time
import hmac
import ipaddress
import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from applyedit.errors import ApplyEditError, InputError, OutputCheckError, RunTimeout, UsageError
from applyedit.worker import Busy, Cancelled, Job, Worker

logger = logging.getLogger(__name__)

API_MODEL = "applyedit"  # the model id every client may use (the loaded model's own name works too)
# Options a request may set (the CLI's flags of the same names); anything else is refused.
OPTIONS = ("proposer", "k", "k_policy", "max_new_tokens", "language", "allow_markers", "allow_drops",
           "allow_syntax_errors", "allow_deletion", "allow_unchanged", "allow_mismatch", "anchor", "fallback",
           "answer", "timeout", "temperature", "top_p", "seed", "draft_k")


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8321
    token: str | None = None
    queue: int = 8  # requests waiting behind the running one; more get 503
    max_body: int = 8 << 20  # bytes of a request body; more get 413
    timeout: float | None = None  # default per-request limit in seconds (a request's own wins)


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
    if isinstance(error, Busy):
        return 503
    if isinstance(error, Cancelled):
        return 499
    if isinstance(error, RunTimeout):
        return 504
    if isinstance(error, OutputCheckError):
        return 422
    if isinstance(error, UsageError):
        return 400
    return 500


def error_body(message: str, kind: str, exit_code: int, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error shape (its clients read `error.message`), plus the CLI's exit code."""
    return {"error": {"message": message, "type": kind, "code": code, "param": None, "exit_code": exit_code}}


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


DRAIN = 64 << 20  # bytes of an oversized body read and dropped before the 413 (then the connection closes)


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
        # The whole body is read first (what is past the limit, up to DRAIN more bytes, is discarded
        # unread): a client still writing when the answer comes would see a reset, not the answer.
        body, more, size = bytearray(), True, 0
        while more and size <= limit + DRAIN:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size <= limit:
                body += chunk
            more = message.get("more_body", False)
        token = self.settings.token
        if token and scope["path"].startswith("/v1/"):
            given = headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                await _send_json(send, 401, error_body("missing or wrong bearer token (Authorization: Bearer TOKEN)",
                                                       "authentication_error", 1, "invalid_api_key"))
                return
        if size > limit:
            await _send_json(send, 413, error_body(f"the request body exceeds the server's limit of {limit:,} bytes",
                                                   "invalid_request_error", 1, "body_too_large"))
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
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})


_TAG = {name: re.compile(rf"<{name}>\n?(.*?)</{name}>", re.S) for name in ("instruction", "code", "update", "path")}


def parse_chat(messages: list[dict[str, Any]]) -> tuple[str, str, str | None]:
    """(code, edit, path) from the last user message: `<code>` is the file, `<update>` the edit (an
    update snippet or the new code); `<instruction>` (optional) goes before the update, which the
    edit reader then takes as a snippet when it has lazy markers, else as an instruction with code."""
    user = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if not user:
        raise InputError("messages: no user message")
    content = user[-1].get("content")
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    if not isinstance(content, str):
        raise InputError("messages: the user message has no text content")
    found = {name: m.group(1) for name, pattern in _TAG.items() if (m := pattern.search(content))}
    if "code" not in found or "update" not in found:
        raise InputError("the user message needs <code>…</code> (the file) and <update>…</update> (the edit)")
    update = found["update"].strip("\n")
    if not update.strip():
        raise InputError("<update> is empty")
    instruction = found.get("instruction", "").strip()
    code = found["code"]
    if code and not code.endswith("\n"):
        code += "\n"
    if instruction:
        from applyedit.textio import fence_for

        fence = fence_for(update)
        edit = f"{instruction}\n\n{fence}\n{update}\n{fence}\n"
    else:
        edit = update + "\n"
    return code, edit, (found.get("path") or "").strip() or None


def create_app(engine: Any, settings: Settings, cache: Any = None) -> Any:
    """The ASGI app around a loaded `api.Engine` (its model gets `cache`, a PromptCache, when given)."""
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from pydantic import BaseModel, ConfigDict, Field
    from starlette.exceptions import HTTPException

    if cache is not None:
        engine.model.prompt_cache = cache
    worker = Worker(engine, settings.queue)
    names = {API_MODEL, engine.source.name}
    started = time.time()

    class Options(BaseModel):
        model_config = ConfigDict(extra="forbid")
        proposer: str | None = None
        k: int | None = None
        k_policy: str | None = None
        max_new_tokens: int | None = Field(default=None, ge=1)
        language: str | None = None
        allow_markers: bool | None = None
        allow_drops: bool | None = None
        allow_syntax_errors: bool | None = None
        allow_deletion: bool | None = None
        allow_unchanged: bool | None = None
        allow_mismatch: bool | None = None
        anchor: str | None = None
        fallback: str | None = None
        answer: str | None = None
        timeout: float | None = Field(default=None, gt=0)
        temperature: float | None = None
        top_p: float | None = None
        seed: int | None = None
        draft_k: int | None = None

    class ApplyRequest(BaseModel):
        model_config = ConfigDict(extra="forbid")
        path: str
        content: str
        edit: str
        options: Options = Field(default_factory=Options)

    class ChatRequest(BaseModel):
        model_config = ConfigDict(extra="allow")  # OpenAI clients send more than applyedit uses
        model: str
        messages: list[dict[str, Any]]
        stream: bool = False
        temperature: float | None = None
        top_p: float | None = None
        seed: int | None = None
        max_tokens: int | None = Field(default=None, ge=1)
        max_completion_tokens: int | None = Field(default=None, ge=1)
        timeout: float | None = Field(default=None, gt=0)
        path: str | None = None  # applyedit's own: names the file's language (extra_body={"path": ...})
        answer: str | None = None  # applyedit's own: "model" runs the model even where the merge would answer

    app = FastAPI(title="applyedit", docs_url=None, redoc_url=None, openapi_url=None)

    @app.exception_handler(ApplyEditError)
    async def on_error(request: Request, error: ApplyEditError) -> JSONResponse:
        return JSONResponse(error_body(str(error), type(error).__name__, error.exit_code), status_for(error))

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: {e.get('msg')}"
                             for e in error.errors()[:5])
        return JSONResponse(error_body(f"bad request: {problems}", "invalid_request_error", 1), 400)

    @app.exception_handler(HTTPException)
    async def on_http(request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse(error_body(str(error.detail), "invalid_request_error", 1), error.status_code)

    async def run(request: Request, path: str, content: str, edit: str, options: dict[str, Any],
                  timeout: float | None) -> Any:
        path = clean_path(path)
        timeout = timeout if timeout is not None else settings.timeout
        loop = asyncio.get_running_loop()
        job = Job(path, content, edit, options, None if timeout is None else time.monotonic() + timeout,
                  loop, loop.create_future())
        worker.submit(job)
        while not job.future.done():
            await asyncio.wait({job.future}, timeout=0.2)
            if not job.future.done() and not job.cancel.is_set() and await request.is_disconnected():
                job.cancel.set()  # the worker stops between verify passes; the answer goes nowhere
        return job.future.result()

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "model": engine.source.name, "backend": engine.backend, "device": engine.device,
                "dtype": engine.dtype_name, "served": worker.served, "running": worker.running is not None,
                "waiting": worker.jobs.qsize(), "uptime_s": round(time.time() - started, 1),
                "prompt_cache": cache.to_dict() if cache is not None else None}

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": name, "object": "model", "created": int(started),
                                            "owned_by": "applyedit"} for name in sorted(names)]}

    @app.post("/v1/apply")
    async def apply_route(request: Request, body: ApplyRequest) -> dict[str, Any]:
        options = body.options.model_dump(exclude_none=True)
        timeout = options.pop("timeout", None)
        result = await run(request, body.path, body.content, body.edit, options, timeout)
        return _answer(result)

    @app.post("/v1/chat/completions", response_model=None)
    async def chat(request: Request, body: ChatRequest) -> Any:
        if body.model not in names:
            served = ", ".join(sorted(names))
            return JSONResponse(error_body(f"unknown model {body.model!r}; this server serves {served}",
                                           "invalid_request_error", 1, "model_not_found"), 404)
        code, edit, tagged = parse_chat(body.messages)
        path = body.path or tagged or "file"  # no extension: plain text, no syntax check
        options: dict[str, Any] = {}
        for name in ("temperature", "top_p", "seed", "answer"):
            if getattr(body, name) is not None:
                options[name] = getattr(body, name)
        if body.max_completion_tokens or body.max_tokens:
            options["max_new_tokens"] = body.max_completion_tokens or body.max_tokens
        result = await run(request, path, code, edit, options, body.timeout)
        return _chat_response(body.model, body.stream, result)

    app.state.worker = worker
    app.state.cache = cache
    return Guard(app, settings)


def _answer(result: Any) -> dict[str, Any]:
    summary = result.summary.to_dict()
    return {"path": result.path, "after": result.after, "diff": result.diff, "changed": result.changed,
            "kind": result.kind, "answer": result.answer, "notes": list(result.notes), "summary": summary,
            "report": result.report, "tokens": result.decode.tokens}


def _chat_response(model: str, stream: bool, result: Any) -> Any:
    """A chat completion answering with the checked file: whole, or as server-sent events."""
    from fastapi.responses import StreamingResponse

    ident, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
    usage = {"prompt_tokens": result.summary.prompt_tokens, "completion_tokens": result.summary.tokens,
             "total_tokens": result.summary.prompt_tokens + result.summary.tokens}
    extra = {"applyedit": {"diff": result.diff, "notes": list(result.notes),
                           "prompt_cache": result.report.get("prompt_cache")}}
    if not stream:
        return {"id": ident, "object": "chat.completion", "created": created, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": result.after},
                             "finish_reason": "stop", "logprobs": None}], "usage": usage, **extra}

    def chunk(delta: dict[str, Any], finish: str | None) -> str:
        data = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}
        return f"data: {json.dumps(data)}\n\n"

    def events() -> Any:  # the checked file, a line per event; the run is over before the first
        yield chunk({"role": "assistant", "content": ""}, None)
        for line in result.after.splitlines(keepends=True):
            yield chunk({"content": line}, None)
        yield chunk({}, "stop")
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream")


def serve(engine: Any, settings: Settings, cache: Any = None, log: Callable[[str], None] = print,
          ready: Callable[[Any], None] | None = None) -> None:
    """Load the model, bind and serve until interrupted (uvicorn). `ready(server)` is called once bound."""
    import socket

    import uvicorn

    check_settings(settings)
    t0 = time.perf_counter()
    _ = engine.model  # load the weights and the cost curve before the first request, not in it
    engine.cost_curve()
    log(f"applyedit serve: {engine.source.name} via {engine.backend} on {engine.device} ({engine.dtype_name}) "
        f"loaded in {time.perf_counter() - t0:.1f} s")
    app = create_app(engine, settings, cache)
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as e:
        raise UsageError(f"cannot listen on {settings.host}:{settings.port}: {e.strerror}") from e
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    log(f"applyedit serve: listening on http://{host}:{port} (OpenAI base URL http://{host}:{port}/v1)"
        + (f"; prompt cache {cache.limit_bytes >> 20} MB" if cache is not None else "; no prompt cache"))
    if ready is not None:
        ready(server)
    server.run(sockets=[sock])
