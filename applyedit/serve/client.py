"""The CLI's side of `applyedit serve`: send one file and edit to a running server, get the result back.

Owns the request (`POST /v1/apply` over the standard library's http.client: no third-party client),
the limits on the answer (its size, `MAX_ANSWER_BYTES`, and with `--timeout` an end-to-end deadline),
the mapping of the server's error JSON back to the one error hierarchy (same exit codes as a local
run) and of its answer to an `ApplyResult`-shaped object. Nothing the server says is trusted: the
file it returns is held to every check a local run makes (`checks.check_all`, on the merge computed
here), its text style is the original's again, and its notes and messages are printed with control
characters escaped. The CLI still reads, checks and writes the file itself: this module reads it (the
same reader and checks as a local run) and returns the result, and writes nothing. An unreachable or
broken server is one `ServerError` (exit 2), never a local fallback.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import socket
import threading
import urllib.parse
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath
from typing import Any

from applyedit import textio
from applyedit.diff import diff_path, unified_diff
from applyedit.errors import (
    AmbiguousEditError,
    ApplyEditError,
    DecodeError,
    InputError,
    ModelError,
    OutputCheckError,
    RunTimeout,
    UsageError,
)
from applyedit.options import RunOptions
from applyedit.report.stats import Summary

ENV = "APPLYEDIT_SERVER"  # the server's URL when --server is not given
TOKEN_ENV = "APPLYEDIT_TOKEN"
MAX_ANSWER_BYTES = 64 << 20  # an answer holds the file (8 MiB at most, JSON-escaped) and its report
GRACE_S = 10.0  # with --timeout: how long past it the whole exchange may take (the server stops at it)


class ServerError(ApplyEditError):
    """The server could not be reached or answered something that is not applyedit's (exit 2)."""

    exit_code = 2


_BY_TYPE: dict[str, type[ApplyEditError]] = {
    cls.__name__: cls
    for cls in (InputError, AmbiguousEditError, UsageError, ModelError, DecodeError, RunTimeout, OutputCheckError)
}
MAX_PLACES = 100  # places of a refused snippet taken from a server's error (a local refusal lists fewer)


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
    tokens: list[int] = field(default_factory=list)  # the output's token ids, as the server gave them
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
    checks: RunOptions | None = None,
) -> RemoteResult:
    """Apply `edit` to `file` on the server at `url`; the diff is made here, from the file as read
    (`source`: the file's bytes when they come from stdin; `file` then only names it). The server's
    file must pass every output check a local run with `checks` (default: RunOptions()) would make;
    a refusal is the local one's `OutputCheckError` (exit 3), carrying the file as `rejected`."""
    from applyedit import api

    path = Path(file)
    opts = {k: v for k, v in (options or {}).items() if v is not None}
    # read as the server reads it: `edit_format` (--edit-format) decides the edit's kind, and so the checks
    edit_format = opts.get("edit_format") or (checks.edit_format if checks is not None else "auto")
    got = api.read_inputs(
        path, edit, language=language, encoding=encoding, cwd=cwd, source=source, edit_format=edit_format
    )
    src = got.src  # the local run's reader and checks
    shown = diff_path(path, cwd)
    before = src.raw.decode(encoding)
    opts["edit_format"] = edit_format
    if language:
        opts["language"] = language
    if timeout is not None:
        opts["timeout"] = timeout
    body = {"path": request_path(shown, path), "content": before, "edit": edit, "options": opts}
    raw_after, by, summary, report, notes, tokens = _answer_parts(url, post(url, "/v1/apply", body, token, timeout))
    after, local_notes = checked_answer(got, raw_after, by, checks or RunOptions(), encoding)
    try:  # the report is shown as the server made it: it must at least be one
        from applyedit.report import brief_lines, render_table

        brief_lines(report, summary, after)
        render_table(report, None)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise ServerError(f"{url}: the answer's report is malformed ({e!r}); nothing was written") from None
    return RemoteResult(
        path=shown,
        before=before,
        after=after,
        diff=unified_diff(before, after, shown),
        kind=got.kind,
        summary=summary,
        report=report,
        notes=tuple(dict.fromkeys([*local_notes, *(str(n) for n in notes)])),
        source_sha256=hashlib.sha256(src.raw).hexdigest(),
        tokens=tokens,
        answer=by,
    )


def _answer_parts(url: str, answer: dict[str, Any]) -> tuple[str, str, Summary, dict[str, Any], list[Any], list[int]]:
    """The server's answer taken apart: the file, who answered ("model" or "merge"), the summary, the
    report, the notes and the tokens; a `ServerError` where any is missing or malformed."""
    try:
        raw_after, by = answer["after"], answer.get("answer", "model")
        if not isinstance(raw_after, str) or by not in ("model", "merge"):
            raise TypeError("after")
        summary = _summary(answer["summary"])
        report, notes = printable(answer.get("report", {})), printable(answer.get("notes", []))
        tokens = answer.get("tokens", [])
        if not isinstance(report, dict) or not isinstance(notes, list) or not isinstance(tokens, list):
            raise TypeError("report")
        if not all(isinstance(t, int) and not isinstance(t, bool) for t in tokens):
            raise TypeError("tokens")
    except (KeyError, TypeError) as e:
        raise ServerError(f"{url}: the answer is not an applyedit server's ({e!r} missing or malformed)") from None
    return raw_after, by, summary, report, notes, tokens


def checked_answer(got: Any, after: str, by: str, opts: RunOptions, encoding: str) -> tuple[str, list[str]]:
    """The server's file held to a local run's checks and invariants: every output check
    (`checks.check_all`, on the merge computed here, or on the snippet's reading the server answered
    with: its tie-break or `--reading N` took it) or, with `--fallback merge`, the snippet's merge
    exactly; then the original's text style (BOM, line endings, final newline) again. Returns the file
    to write and the checks' notes; a refusal raises as a local run's would."""
    from applyedit import checks, merge
    from applyedit.merge import confirm

    src = got.src
    if "\x00" in after and "\x00" not in src.text:
        raise ServerError("the server's file holds NUL characters; nothing was written")
    try:
        after.encode(encoding)
    except UnicodeEncodeError as e:
        raise ServerError(
            f"the server's file cannot be written as {encoding} ({e.reason}); nothing was written"
        ) from None
    body = textio.normalise(after)[0]
    if body and not body.endswith("\n"):
        body += "\n"  # the model's form (extract_body); restore() gives the original's final newline back
    # the merge as a local run reads it: confirmed (merge/confirm.py) or only a reference for the checks;
    # where the server answered with one of the snippet's readings (its tie-break or `--reading N` took
    # it), that reading, as a local run checks the one it took (merge.taken)
    merged = None
    if got.kind == "snippet":
        merged = confirm.confirmed(src.text, got.edit, src.language, str(src.path), with_readings=by == "merge")
    fallen = checks.merge_answer(src, merged) if opts.fallback == "merge" and by == "merge" else None
    if merged is not None and not merged.ok and body in merged.readings:
        merged = merge.taken(src.text, merged, body)
    restored = textio.restore(body, src.style, src.text)
    if fallen is not None and body == fallen:
        return restored, []  # a refused output answered by the merge, as a local run answers
    try:
        notes = checks.check_all(src, body, got.edit, got.kind, merged, opts)
    except OutputCheckError as e:
        e.args = (f"the server's output fails a local check: {e}",)
        e.rejected = restored  # kept in FILE.rej like a local refusal
        raise
    return restored, notes


def _summary(data: Any) -> Summary:
    """The server's summary, each field of the type Summary declares (else TypeError)."""
    if not isinstance(data, dict):
        raise TypeError("summary")
    kinds = {"int": (int,), "float": (int, float), "str": (str,), "int | None": (int, type(None))}
    values = {}
    for f in fields(Summary):
        if f.name not in data:
            continue
        value = data[f.name]
        if isinstance(value, bool) or not isinstance(value, kinds.get(str(f.type), (object,))):
            raise TypeError(f"summary.{f.name}")
        values[f.name] = printable(value)
    return Summary(**values)


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(value: Any) -> Any:
    """`value` with every string's control characters (terminal escapes, bidi overrides) written as
    escapes, in nested lists and dicts too: what a server says is printed, never obeyed."""
    if isinstance(value, str):
        return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), value)
    if isinstance(value, list):
        return [printable(v) for v in value]
    if isinstance(value, dict):
        return {printable(k) if isinstance(k, str) else k: printable(v) for k, v in value.items()}
    return value


def check_token(token: str) -> None:
    """A bearer token travels in a header: printable characters of latin-1 only."""
    if any(not (" " < c <= "~" or "\xa0" <= c <= "\xff") for c in token):
        raise UsageError(f"--token / {TOKEN_ENV}: a token is printable ASCII or latin-1 without spaces")


def post(url: str, route: str, body: dict[str, Any], token: str | None, timeout: float | None) -> dict[str, Any]:
    """POST JSON; the answer's JSON, or the server's error raised as the matching ApplyEditError.
    With `timeout` (the run's --timeout), the whole exchange ends within it plus `GRACE_S`; an answer
    larger than `MAX_ANSWER_BYTES` is refused unread."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--server {url!r}: give an http:// URL such as http://127.0.0.1:8321")
    headers = {"Content-Type": "application/json"}
    if token:
        check_token(token)
        headers["Authorization"] = f"Bearer {token}"
    limit = None if timeout is None else timeout + GRACE_S
    try:
        port = parts.port
    except ValueError:
        raise UsageError(f"--server {url!r}: the port is not a number") from None
    conn_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = conn_class(parts.hostname, port, timeout=limit)
    cut = threading.Event()

    def stop() -> None:  # the deadline: whatever read or write is under way fails now
        cut.set()
        if conn.sock is not None:
            try:
                conn.sock.settimeout(1e-3)  # the next read fails even while bytes still trickle in
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    timer = threading.Timer(limit, stop) if limit is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        conn.request("POST", parts.path.rstrip("/") + route, json.dumps(body).encode(), headers)
        response = conn.getresponse()
        raw = _read_capped(response, url, cut)
        status = response.status
    except (OSError, http.client.HTTPException) as e:
        if cut.is_set():
            raise ServerError(
                f"{url}: no complete answer within {limit:.0f} s (--timeout {timeout:g} plus {GRACE_S:.0f} s); "
                "nothing was written"
            ) from None
        reason = (e.strerror if isinstance(e, OSError) else None) or e
        raise ServerError(
            f"cannot reach the applyedit server at {url} ({reason}); nothing was run or written "
            f"(start one with `applyedit serve`, or drop --server / {ENV} to run locally)"
        ) from None
    finally:
        if timer is not None:
            timer.cancel()
        conn.close()
    if 200 <= status < 300:
        return _json(url, raw)
    raise server_error(url, status, raw)


def server_error(url: str, status: int, raw: bytes) -> ApplyEditError:
    """A server's error answer as the ApplyEditError a local run raises: its type (else by exit code), its
    message in the CLI's words, a refused snippet's readings and places."""
    data = _json(url, raw) if raw.lstrip().startswith(b"{") else {}
    error = data.get("error")
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        return ServerError(f"{url}: HTTP {status} without an applyedit error")
    cls = _BY_TYPE.get(str(error.get("type")))
    if cls is None:
        code = error.get("exit_code")
        cls = OutputCheckError if code == 3 else InputError if code == 1 else ServerError
    raised = cls(f"server: {in_cli_terms(printable(error['message']))}")
    raised.readings, raised.places = readings_of(error)
    return raised


def in_cli_terms(message: str) -> str:
    """A server's message in the CLI's words: the request's fields (`options.top_p`) as the flags that set
    them (`--top-p`), as a local run's message names them."""
    from applyedit.options import OPTIONS

    flags = {f"options.{o.name}": o.flag for o in OPTIONS if o.request} | {"options.language": "--language"}
    return re.sub(r"(?<![\w.])options\.[a-z_]+(?![\w])", lambda m: flags.get(m.group(), m.group()), message)


def readings_of(error: dict[str, Any]) -> tuple[int, tuple[dict[str, object], ...]]:
    """A refused snippet's readings and places from a server's error body, as a local refusal carries them
    (how many, and each place's first and last original line and each reading's first line there);
    (0, ()) when the body has none or they are malformed (they are shown and written, never obeyed)."""
    count, places = error.get("readings"), error.get("places")
    if not isinstance(count, int) or isinstance(count, bool) or count < 2 or not isinstance(places, list):
        return 0, ()
    read: list[dict[str, object]] = []
    for place in places[:MAX_PLACES]:
        if not isinstance(place, dict):
            return 0, ()
        line, end, firsts = place.get("line"), place.get("end"), place.get("readings")
        numbers_ok = all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in (line, end))
        if not numbers_ok or not isinstance(firsts, list) or not all(isinstance(f, str) for f in firsts):
            return 0, ()
        read.append({"line": line, "end": end, "readings": printable(firsts)})
    return count, tuple(read)


def _read_capped(response: http.client.HTTPResponse, url: str, cut: threading.Event) -> bytes:
    """The answer's body, refused past `MAX_ANSWER_BYTES` (declared or sent), read as it arrives."""
    declared = response.getheader("Content-Length")
    if declared is not None and declared.strip().isdigit() and int(declared) > MAX_ANSWER_BYTES:
        raise ServerError(
            f"{url}: the answer ({int(declared):,} bytes) exceeds {MAX_ANSWER_BYTES:,}; nothing was written"
        )
    data = bytearray()
    while chunk := response.read1(1 << 16):
        data += chunk
        if cut.is_set():  # a socket shut for reading may still take what keeps arriving
            raise TimeoutError
        if len(data) > MAX_ANSWER_BYTES:
            raise ServerError(f"{url}: the answer exceeds {MAX_ANSWER_BYTES:,} bytes; nothing was written")
    if cut.is_set():
        raise TimeoutError
    return bytes(data)


def _json(url: str, raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ServerError(f"{url}: the answer is not JSON (is this an applyedit server?)") from None
    if not isinstance(data, dict):
        raise ServerError(f"{url}: the answer is not a JSON object")
    return data


def server_url(flag: str | None) -> str | None:
    return flag or os.environ.get(ENV) or None
