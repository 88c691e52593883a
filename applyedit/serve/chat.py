"""`applyedit serve`'s OpenAI-compatible side: `POST /v1/chat/completions`.

Owns reading a chat request and telling its two kinds apart (`apply_format`): the apply format (the
last user message's `<instruction>`, `<code>`, `<update>` and `<path>` tags, as `read_tags` finds
them, read into a run's inputs by `parse_chat`, answered with the checked file, whole or as
server-sent events after the run) and any other request, a general chat on the loaded model
(serve/generate.py runs it; its text streams as its verify passes keep it). Owns the sampling and
length fields OpenAI clients send, `stop`, OpenAI's `prediction` (Predicted Outputs: the copy
proposer's source; in the apply format one more) and `stream_options.include_usage` (with `stream`
only), applyedit's own `path`, `answer` and `reading` (the apply format's); refusing the fields it
cannot honour (`n` above 1, tools, log-probabilities, another response format; `stop` in the apply
format, `reading` in a general chat) with a 400 naming them rather than ignoring them; the usage with
the prediction's accepted and rejected tokens (`usage_of`); and OpenAI's error shape, which every
route of the server answers with (`error_body`), a run's message in the request's words
(`in_request_terms`: its fields where the run names the CLI's flags). Knows nothing of how a run is
queued or guarded: serve/app.py registers the route and hands it the runner.
"""

import asyncio
import json  # no `from __future__ import annotations`: FastAPI reads the route's annotations at run time
import logging
import re
import time
import uuid
from typing import Any

from applyedit.errors import InputError
from applyedit.options import MAX_REQUEST_TIMEOUT

logger = logging.getLogger(__name__)


def failure_message(error: BaseException) -> str:
    """What a client is told of a bug (a 500, or a stream's last event): its kind; the log has the rest."""
    return f"the server failed on this request ({type(error).__name__}); its log has the details"


def error_body(
    message: str, kind: str, exit_code: int, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """OpenAI's error shape (its clients read `error.message`), plus the CLI's exit code."""
    return {"error": {"message": message, "type": kind, "code": code, "param": param, "exit_code": exit_code}}


# A run's messages name its settings by the CLI's flags; a request names them by its own fields.
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)(?![\w-])")
# the chat route's name of a run option where it has its own (its `path` names the file's language)
CHAT_FIELDS = {"max_new_tokens": "max_tokens", "language": "path"}


def in_request_terms(message: str, prefix: str = "", renamed: dict[str, str] | None = None) -> tuple[str, str | None]:
    """A run's message in a request's words: each flag of a run option a request may set (`--top-p`)
    becomes that field as the route spells it (`prefix` + the option's name, `renamed` where the route
    has a name of its own: `options.top_p` on /v1/apply, `top_p` or `max_tokens` on the chat route).
    Returns the message and its `param`: the field it opens with ("--reading 7: ..." is about `reading`),
    else None. Other flags (the model's, the server's own) stay as they are."""
    from applyedit.options import OPTIONS

    flags = {o.flag: o.name for o in OPTIONS if o.request} | {"--language": "language"}  # /v1/apply's options
    fields = {flag: (renamed or {}).get(name, prefix + name) for flag, name in flags.items()}
    param: str | None = None
    opening = _FLAG.match(message)
    if opening is not None and opening.group() in fields:
        param = fields[opening.group()]
    return _FLAG.sub(lambda m: fields.get(m.group(), m.group()), message), param


def unsupported(fields: dict[str, Any]) -> tuple[str, str] | None:
    """(the field, why) of the first OpenAI field in a request that this route cannot honour, which
    is refused rather than ignored; None when there is none. The answer is one checked file: no
    alternatives, tool calls, log-probabilities or other formats."""
    if fields.get("n") not in (None, 1):
        return "n", "this server answers with one checked file: n must be 1"
    for name in ("tools", "functions"):
        if fields.get(name):
            return name, f"this server makes no tool calls ({name}): its answer is the file"
    for name in ("tool_choice", "function_call"):
        if fields.get(name) not in (None, "none", "auto"):
            return name, f"this server makes no tool calls ({name}): its answer is the file"
    if fields.get("logprobs") not in (None, False) or fields.get("top_logprobs") not in (None, 0):
        name = "logprobs" if fields.get("logprobs") not in (None, False) else "top_logprobs"
        return name, "this server returns no log-probabilities"
    fmt = fields.get("response_format")
    if fmt is not None and not (isinstance(fmt, dict) and fmt.get("type") == "text"):
        return "response_format", "this server answers in text only: the file"
    return None


_OPEN = re.compile(r"<(instruction|code|update|path)>")
_NEEDED = frozenset({"code", "update"})
_MAX_TRIES = 200  # readings of the tags tried before a message is refused as too ambiguous


def read_tags(text: str) -> dict[str, str]:
    """The `<instruction>`, `<code>`, `<update>` and `<path>` blocks of a message, whatever they hold.

    A block opens where its tag starts a line (blanks before it aside) or follows another block's
    closing tag, so a tag named in prose ("the file is in the <code> block") opens nothing and the
    prose never reaches the file. Each block ends at the latest `</name>` after which the rest of the
    message still holds every block needed (`<code>` and `<update>`), so a file holding
    `<code>x</code>`, nested tags or any HTML comes back whole; text outside the blocks is ignored.
    Each block loses one newline after its opening tag. A message whose tags all stand inside lines
    is read with a tag opening anywhere, and refused (InputError) when its first block could also
    open at a later tag of the same name (prose naming a tag, or a file holding one: no telling). {}
    when `<code>` or `<update>` is missing.
    """
    tries = [0]
    found = _blocks(text, 0, frozenset(), tries, {}, True)
    if found is None and (first := _OPEN.search(text)) is not None:
        found = _blocks(text, first.start(), frozenset(), tries, {}, False)
        later = [m for m in _OPEN.finditer(text, first.end()) if m.group(1) == first.group(1)] if found else []
        if any(_blocks(text, m.start(), frozenset(), tries, {}, False) is not None for m in later):
            raise InputError(
                f"the message's first <{first.group(1)}> tag stands inside a line and the blocks read two ways "
                "from it (prose naming a tag?): start each tag (<code>, <update>, ...) on a line of its own"
            )
    return {name: body.removeprefix("\n") for name, body in (found or {}).items()}


_AFTER_BLOCK = re.compile(r"</(?:instruction|code|update|path)>[ \t]*$")


def _opens(text: str, start: int) -> bool:
    """Whether a tag at `start` begins a line (blanks aside) or follows a block's closing tag."""
    before = text[text.rfind("\n", 0, start) + 1 : start]
    return not before.strip(" \t") or _AFTER_BLOCK.search(before) is not None


def _blocks(
    text: str,
    pos: int,
    seen: frozenset[str],
    tries: list[int],
    memo: dict[tuple[int, frozenset[str]], Any],
    strict: bool,
) -> dict[str, str] | None:
    """The blocks from `pos` on, given those `seen` before; None when no reading finds every needed one.
    `strict`: only tags that start a line or follow a closing tag open a block (`_opens`)."""
    if (pos, seen) in memo:
        return memo[(pos, seen)]
    tries[0] += 1
    if tries[0] > _MAX_TRIES:
        raise InputError("the message's <code>/<update> tags cannot be told apart: too many readings")
    m = next(
        (m for m in _OPEN.finditer(text, pos) if m.group(1) not in seen and (not strict or _opens(text, m.start()))),
        None,
    )
    if m is None:  # the rest is prose
        result: dict[str, str] | None = {} if _NEEDED <= seen else None
    else:
        name, result = m.group(1), None
        close = f"</{name}>"
        end = text.rfind(close)
        while result is None and end >= m.end():
            after = end + len(close)
            rest = _blocks(text, after, seen | {name}, tries, memo, strict)
            if rest is not None:
                result = {name: text[m.end() : end], **rest}
            end = text.rfind(close, m.end(), end)
    memo[(pos, seen)] = result
    return result


def parse_chat(messages: list[dict[str, Any]]) -> tuple[str, str, str | None]:
    """(code, edit, path) from the last user message: `<code>` is the file, `<update>` the edit (an
    update snippet or the new code); `<instruction>` (optional) goes before the update, which the
    edit reader then takes as a snippet when it has lazy markers, else as an instruction with code."""
    user = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if not user:
        raise InputError("messages: no user message")
    content = user[-1].get("content")
    if isinstance(content, list):  # content parts
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        if not all(isinstance(t, str) for t in texts):
            raise InputError("messages: a text part's `text` is not a string")
        content = "".join(t for t in texts if isinstance(t, str))
    if not isinstance(content, str):
        raise InputError("messages: the user message has no text content")
    found = read_tags(content)
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


def apply_format(messages: list[dict[str, Any]]) -> bool:
    """Whether a request is in the apply format: its last user message's text holds a `<code>` and an
    `<update>` block as `read_tags` finds them (which refuses a message whose tags read two ways).
    Anything else is a general chat request (serve/generate.py)."""
    user = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    content = user[-1].get("content") if user else None
    if isinstance(content, list):
        content = "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    if not isinstance(content, str):
        return False
    found = read_tags(content)
    return "code" in found and "update" in found


def add_chat_route(app: Any, names: set[str], run: Any) -> None:
    """Register `POST /v1/chat/completions` on `app`: models in `names` only, each request run by `run`
    (serve/app.py's Runner: called for an apply run, `start_chat` and `settle` for a general one)."""
    from fastapi import Request
    from pydantic import BaseModel, ConfigDict, Field

    from applyedit.serve import generate

    class ChatRequest(BaseModel):
        model_config = ConfigDict(extra="allow")  # OpenAI clients send more than applyedit uses
        model: str
        messages: list[dict[str, Any]]
        stream: bool = False
        stream_options: dict[str, Any] | None = None  # {"include_usage": true}: a last chunk with the usage
        temperature: float | None = None
        top_p: float | None = None
        seed: int | None = None
        max_tokens: int | None = Field(default=None, ge=1)
        max_completion_tokens: int | None = Field(default=None, ge=1)
        stop: str | list[str] | None = None
        prediction: Any = None  # OpenAI's Predicted Outputs: {"type": "content", "content": text or parts}
        timeout: float | None = Field(default=None, gt=0, le=MAX_REQUEST_TIMEOUT)
        path: str | None = None  # applyedit's own: names the file's language (extra_body={"path": ...})
        answer: str | None = None  # applyedit's own: "model" runs the model even where the merge would answer
        reading: int | None = None  # applyedit's own, apply format only: reading N of those a refusal listed

    @app.post("/v1/chat/completions", response_model=None)
    async def chat(request: Request, body: ChatRequest) -> Any:
        if body.model not in names:
            served = ", ".join(sorted(names))
            return bad_request(
                f"unknown model {body.model!r}; this server serves {served}", "model_not_found", None, 404
            )
        refused = unsupported(body.model_extra or {})
        if refused is not None:
            return bad_request(refused[1], "unsupported_parameter", refused[0])
        try:
            prediction = generate.read_prediction(body.prediction)
            stop = generate.read_stop(body.stop)
        except InputError as e:
            param = "prediction" if str(e).startswith("prediction") else "stop"
            return bad_request(str(e), "invalid_value", param)
        usage_too, why = read_stream_options(body.stream, body.stream_options)
        if why is not None:
            return bad_request(why, "invalid_value", "stream_options")
        applying = apply_format(body.messages)
        if (misplaced := misplaced_field(applying, stop, body.reading)) is not None:
            return bad_request(misplaced[1], "unsupported_parameter", misplaced[0])
        if not applying:
            chat = generate.Chat.read(
                body.messages,
                prediction=prediction,
                max_tokens=body.max_completion_tokens or body.max_tokens,
                temperature=body.temperature,
                top_p=body.top_p,
                seed=body.seed,
                stop=stop,
            )
            job = run.start_chat(chat, body.timeout)
            if not body.stream:
                return completion(body.model, await run.settle(request, job), prediction is not None)
            await started(request, job, run)  # an error before the first token is the answer's status
            return streamed(request, job, body.model, prediction is not None, usage_too)
        code, edit, tagged = parse_chat(body.messages)
        path = body.path or tagged or "file"  # no extension: plain text, no syntax check
        result = await run(request, path, code, edit, apply_options(body), body.timeout, prediction)
        return chat_response(body.model, body.stream, result, prediction is not None, usage_too)


def bad_request(message: str, code: str, param: str | None = None, status: int = 400) -> Any:
    """A request refused before any run, in OpenAI's error shape (`invalid_request_error`)."""
    from fastapi.responses import JSONResponse

    return JSONResponse(error_body(message, "invalid_request_error", 1, code, param), status)


def apply_options(body: Any) -> dict[str, Any]:
    """An apply-format request's run options: the sampling fields, `answer`, `reading`, the token budget."""
    options = {n: getattr(body, n) for n in ("temperature", "top_p", "seed", "answer", "reading")}
    options = {n: v for n, v in options.items() if v is not None}
    if body.max_completion_tokens or body.max_tokens:
        options["max_new_tokens"] = body.max_completion_tokens or body.max_tokens
    return options


def read_stream_options(stream: bool, options: dict[str, Any] | None) -> tuple[bool, str | None]:
    """(whether a streamed answer ends with the usage, why `stream_options` is refused or None): as
    OpenAI's, it goes with `stream: true` only, and `include_usage` is a boolean ("false" is no false)."""
    if options is None:
        return False, None
    if not stream:
        return False, "stream_options: only allowed with stream: true"
    include = options.get("include_usage", False)
    if not isinstance(include, bool):
        return False, f"stream_options.include_usage: give true or false; got {include!r}"
    return include, None


def misplaced_field(applying: bool, stop: tuple[str, ...], reading: int | None) -> tuple[str, str] | None:
    """(the field, why) of a field its kind of request cannot honour, refused rather than ignored: `stop`
    in the apply format (its answer is the whole checked file, never cut), `reading` in a general chat
    (it takes one reading of an update snippet); None when there is none."""
    if applying and stop:
        return "stop", "stop: the apply format answers with the whole checked file, which a stop string cannot cut"
    if not applying and reading is not None:
        return "reading", "reading: it takes a reading of an update snippet, in the apply format (<code>, <update>)"
    return None


def usage_of(prompt: int, completion: int, predicted: bool, accepted: int, rejected: int) -> dict[str, Any]:
    """OpenAI's `usage`; with a prediction, `completion_tokens_details` counts its drafted tokens the model
    kept (accepted) and did not keep (rejected)."""
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if predicted:
        usage["completion_tokens_details"] = {
            "accepted_prediction_tokens": accepted,
            "rejected_prediction_tokens": rejected,
        }
    return usage


def completion(model: str, done: Any, predicted: bool) -> dict[str, Any]:
    """A general chat run's answer, whole (`done`: a generate.Generated)."""
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": done.text},
                "finish_reason": done.finish_reason,
                "logprobs": None,
            }
        ],
        "usage": usage_of(done.prompt_tokens, done.completion_tokens, predicted, done.accepted, done.rejected),
        "applyedit": {
            "passes": done.passes,
            "prediction_tokens": done.prediction_tokens,
            "prefill_s": round(done.prefill_s, 4),
            "decode_s": round(done.decode_s, 4),
        },
    }


async def started(request: Any, job: Any, run: Any) -> None:
    """Wait for a general chat run to start decoding (its prompt fits), or raise its error (which the
    error handlers answer with its status): a stream's head is sent only for a run that began."""
    while True:
        try:
            kind, _ = await asyncio.wait_for(job.events.get(), 0.2)
        except TimeoutError:
            if job.future.done() and job.events.empty():
                await run.settle(request, job)  # raises the run's error
                return  # (a run always says "start" first; finished without it, its answer still streams)
            if not job.cancel.is_set() and await request.is_disconnected():
                job.cancel.set()
            continue
        if kind == "start":
            return


def streamed(request: Any, job: Any, model: str, predicted: bool, usage_too: bool) -> Any:
    """A general chat run as server-sent events: each verify pass's certain text as it comes, then the
    finish reason, the usage (when asked for: `stream_options.include_usage`) and `[DONE]`; an error
    after the head is an `error` event. A client that leaves stops the run at its next pass."""
    from fastapi.responses import StreamingResponse

    from applyedit.errors import ApplyEditError

    ident, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())

    def event(data: dict[str, Any]) -> str:
        return f"data: {json.dumps(data)}\n\n"

    def chunk(delta: dict[str, Any], finish: str | None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return event(_chunk_head(ident, created, model) | {"choices": [choice]})

    async def events() -> Any:
        try:
            yield chunk({"role": "assistant", "content": ""}, None)
            while True:
                try:
                    kind, value = await asyncio.wait_for(job.events.get(), 0.2)
                except TimeoutError:
                    if job.future.done() and job.events.empty():
                        break
                    if await request.is_disconnected():
                        job.cancel.set()
                        return
                    continue
                if kind == "text":
                    yield chunk({"content": value}, None)
            try:
                done = job.future.result()
            except ApplyEditError as e:
                message, param = in_request_terms(str(e), renamed=CHAT_FIELDS)
                yield event(error_body(message, type(e).__name__, e.exit_code, param=param))
                return
            except Exception as e:  # a bug after the head: logged, and the stream still ends in OpenAI's shape
                logger.error("a streamed chat run failed unexpectedly", exc_info=e)
                yield event(error_body(failure_message(e), "server_error", 2))
                return
            yield chunk({}, done.finish_reason)
            if usage_too:
                usage = usage_of(done.prompt_tokens, done.completion_tokens, predicted, done.accepted, done.rejected)
                yield event(_chunk_head(ident, created, model) | {"choices": [], "usage": usage})
            yield "data: [DONE]\n\n"
        finally:
            if not job.future.done():
                job.cancel.set()  # the client left (the response was cancelled): the run stops at its next pass
                job.future.add_done_callback(lambda f: f.cancelled() or f.exception())

    return StreamingResponse(events(), media_type="text/event-stream")


def _chunk_head(ident: str, created: int, model: str) -> dict[str, Any]:
    return {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model}


def drafted(result: Any) -> tuple[int, int]:
    """(in the output, not in it) of an apply run's copy-drafted tokens: every copy source's (the
    prediction is one), counted as a general chat's are (generate.prediction_counts)."""
    from applyedit.serve.generate import prediction_counts

    return prediction_counts(result.decode.steps if result.decode is not None else ())


def chat_response(model: str, stream: bool, result: Any, predicted: bool = False, usage_too: bool = False) -> Any:
    """A chat completion answering with the checked file: whole, or as server-sent events."""
    from fastapi.responses import StreamingResponse

    ident, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
    usage = usage_of(result.summary.prompt_tokens, result.summary.tokens, predicted, *drafted(result))
    extra = {
        "applyedit": {
            "diff": result.diff,
            "notes": list(result.notes),
            "prompt_cache": result.report.get("prompt_cache"),
        }
    }
    if not stream:
        return {
            "id": ident,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": result.after},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": usage,
            **extra,
        }

    def chunk(delta: dict[str, Any], finish: str | None) -> str:
        data = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }
        return f"data: {json.dumps(data)}\n\n"

    def events() -> Any:  # the checked file, a line per event; the run is over before the first
        yield chunk({"role": "assistant", "content": ""}, None)
        for line in result.after.splitlines(keepends=True):
            yield chunk({"content": line}, None)
        yield chunk({}, "stop")
        if usage_too:
            yield f"data: {json.dumps(_chunk_head(ident, created, model) | {'choices': [], 'usage': usage})}\n\n"
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream")
