"""`applyedit serve`'s OpenAI-compatible side: `POST /v1/chat/completions`.

Owns reading a chat request (the last user message's `<instruction>`, `<code>`, `<update>` and
`<path>` tags, the sampling and length fields OpenAI clients send, and applyedit's own `path` and
`answer`) into a run's inputs, refusing the fields it cannot honour (`n` above 1, tools,
log-probabilities, another response format) with a 400 rather than ignoring them, and answering
with the checked file as a chat completion, whole or as server-sent events; and OpenAI's error
shape, which every route of the server answers with (`error_body`). Knows nothing of how a run is
queued or guarded: serve/app.py registers the route and hands it the runner.
"""

import json  # no `from __future__ import annotations`: FastAPI reads the route's annotations at run time
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from applyedit.errors import InputError
from applyedit.options import MAX_REQUEST_TIMEOUT


def error_body(
    message: str, kind: str, exit_code: int, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """OpenAI's error shape (its clients read `error.message`), plus the CLI's exit code."""
    return {"error": {"message": message, "type": kind, "code": code, "param": param, "exit_code": exit_code}}


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


def add_chat_route(app: Any, names: set[str], run: Callable[..., Awaitable[Any]]) -> None:
    """Register `POST /v1/chat/completions` on `app`: models in `names` only, each request run by `run`."""
    from fastapi import Request
    from fastapi.responses import JSONResponse
    from pydantic import BaseModel, ConfigDict, Field

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
        timeout: float | None = Field(default=None, gt=0, le=MAX_REQUEST_TIMEOUT)
        path: str | None = None  # applyedit's own: names the file's language (extra_body={"path": ...})
        answer: str | None = None  # applyedit's own: "model" runs the model even where the merge would answer

    @app.post("/v1/chat/completions", response_model=None)
    async def chat(request: Request, body: ChatRequest) -> Any:
        if body.model not in names:
            served = ", ".join(sorted(names))
            return JSONResponse(
                error_body(
                    f"unknown model {body.model!r}; this server serves {served}",
                    "invalid_request_error",
                    1,
                    "model_not_found",
                ),
                404,
            )
        refused = unsupported(body.model_extra or {})
        if refused is not None:
            return JSONResponse(
                error_body(refused[1], "invalid_request_error", 1, "unsupported_parameter", refused[0]), 400
            )
        code, edit, tagged = parse_chat(body.messages)
        path = body.path or tagged or "file"  # no extension: plain text, no syntax check
        options: dict[str, Any] = {}
        for name in ("temperature", "top_p", "seed", "answer"):
            if getattr(body, name) is not None:
                options[name] = getattr(body, name)
        if body.max_completion_tokens or body.max_tokens:
            options["max_new_tokens"] = body.max_completion_tokens or body.max_tokens
        result = await run(request, path, code, edit, options, body.timeout)
        return chat_response(body.model, body.stream, result)


def chat_response(model: str, stream: bool, result: Any) -> Any:
    """A chat completion answering with the checked file: whole, or as server-sent events."""
    from fastapi.responses import StreamingResponse

    ident, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
    usage = {
        "prompt_tokens": result.summary.prompt_tokens,
        "completion_tokens": result.summary.tokens,
        "total_tokens": result.summary.prompt_tokens + result.summary.tokens,
    }
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
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream")
