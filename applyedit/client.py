"""The CLI's side of `applyedit serve`: send one file and edit to a running server, get the result back.

Owns the request (`POST /v1/apply` over the standard library's urllib: no third-party client), the
mapping of the server's error JSON back to the one error hierarchy (same exit codes as a local run)
and of its answer to an `ApplyResult`-shaped object. The CLI still reads, checks and writes the file
itself: this module reads it (the same reader and checks as a local run) and returns the result, and
writes nothing. An unreachable or broken server is one `ServerError` (exit 2), never a local fallback.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath
from typing import Any

from applyedit import textio
from applyedit.diff import diff_path, unified_diff
from applyedit.errors import (
    ApplyEditError,
    DecodeError,
    InputError,
    ModelError,
    OutputCheckError,
    RunTimeout,
    UsageError,
)
from applyedit.stats import Summary

ENV = "APPLYEDIT_SERVER"  # the server's URL when --server is not given
TOKEN_ENV = "APPLYEDIT_TOKEN"


class ServerError(ApplyEditError):
    """The server could not be reached or answered something that is not applyedit's (exit 2)."""

    exit_code = 2


_BY_TYPE: dict[str, type[ApplyEditError]] = {
    cls.__name__: cls for cls in (InputError, UsageError, ModelError, DecodeError, RunTimeout, OutputCheckError)
}


@dataclass(frozen=True)
class Tokens:
    tokens: list[int]


@dataclass(frozen=True)
class RemoteResult:
    """What the CLI uses of an `api.ApplyResult`, from a server's answer."""

    path: str
    before: str
    after: str
    diff: str
    kind: str
    summary: Summary
    report: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    source_sha256: str = ""
    decode: Tokens = Tokens([])
    answer: str = "model"  # "model", or "merge" when the server answered with the snippet's merge

    @property
    def changed(self) -> bool:
        return self.before != self.after


def request_path(shown: str, file: Path) -> str:
    """The `path` sent: the diff's path when it is relative and clean, else the file's name (the server
    refuses absolute paths and `..`); only the language and the server's diff depend on it."""
    p = PurePosixPath(shown)
    return shown if not p.is_absolute() and ".." not in p.parts else file.name


def apply(
    url: str,
    file: str | Path,
    edit: str,
    *,
    token: str | None = None,
    encoding: str = "utf-8",
    language: str | None = None,
    cwd: Path | None = None,
    timeout: float | None = None,
    options: dict[str, Any] | None = None,
    source: bytes | None = None,
) -> RemoteResult:
    """Apply `edit` to `file` on the server at `url`; the diff is made here, from the file as read
    (`source`: the file's bytes when they come from stdin; `file` then only names it)."""
    path = Path(file)
    src = (
        textio.read_source(path, language, encoding)
        if source is None
        else textio.source_from(path, source, language, encoding)
    )  # the local run's reader and checks
    shown = diff_path(path, cwd)
    before = src.raw.decode(encoding)
    opts = {k: v for k, v in (options or {}).items() if v is not None}
    if language:
        opts["language"] = language
    if timeout is not None:
        opts["timeout"] = timeout
    body = {"path": request_path(shown, path), "content": before, "edit": edit, "options": opts}
    answer = post(url, "/v1/apply", body, token, None if timeout is None else timeout + 30)
    try:
        after = answer["after"]
        summary = Summary(**{f.name: answer["summary"][f.name] for f in fields(Summary) if f.name in answer["summary"]})
        return RemoteResult(
            shown,
            before,
            after,
            unified_diff(before, after, shown),
            answer["kind"],
            summary,
            answer.get("report", {}),
            tuple(answer.get("notes", ())),
            hashlib.sha256(src.raw).hexdigest(),
            Tokens(list(answer.get("tokens", []))),
            str(answer.get("answer", "model")),
        )
    except (KeyError, TypeError) as e:
        raise ServerError(f"{url}: the answer is not an applyedit server's ({e!r} missing)") from None


def post(url: str, route: str, body: dict[str, Any], token: str | None, timeout: float | None) -> dict[str, Any]:
    """POST JSON; the answer's JSON, or the server's error raised as the matching ApplyEditError."""
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"--server {url!r}: give an http:// URL such as http://127.0.0.1:8321")
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url.rstrip("/") + route, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:  # noqa: S310 (a URL the user gave)
            return _json(url, response.read())
    except urllib.error.HTTPError as e:
        data = _json(url, e.read())
        error = data.get("error") if isinstance(data, dict) else None
        if not isinstance(error, dict) or "message" not in error:
            raise ServerError(f"{url}: HTTP {e.code} without an applyedit error") from None
        cls = _BY_TYPE.get(str(error.get("type")))
        if cls is None:
            code = error.get("exit_code")
            cls = OutputCheckError if code == 3 else InputError if code == 1 else ServerError
        raise cls(f"server: {error['message']}") from None
    except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
        reason = getattr(e, "reason", e)
        raise ServerError(
            f"cannot reach the applyedit server at {url} ({reason}); nothing was run or written "
            f"(start one with `applyedit serve`, or drop --server / {ENV} to run locally)"
        ) from None


def _json(url: str, raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except ValueError:
        raise ServerError(f"{url}: the answer is not JSON (is this an applyedit server?)") from None
    if not isinstance(data, dict):
        raise ServerError(f"{url}: the answer is not a JSON object")
    return data


def server_url(flag: str | None) -> str | None:
    return flag or os.environ.get(ENV) or None
