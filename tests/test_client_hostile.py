"""The CLI with `--server` against hostile servers: nothing it writes fails a local check.

A real HTTP server on 127.0.0.1 (the standard library's) answers the real CLI, run in a subprocess.
An honest answer is the product's own: `api.apply` answering an update snippet with its merge (no
model runs), shaped as `applyedit serve` shapes it; each test then tampers with it (an emptied file,
lazy markers, a file that no longer parses, other line endings, wrong types, terminal escapes) or
with how it is sent (a trickle, an endless body). Every wait is bounded by the subprocess timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from applyedit import api
from applyedit.serve.app import _answer

SOURCE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
SNIPPET = "# ... existing code ...\n\n\ndef sub(a, b):\n    return b - a\n"
MERGED = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return b - a\n"

Handler = Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]


def honest(request: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """What `applyedit serve` answers to `request` (here: the snippet's merge, no model)."""
    (tmp / "f.py").write_text(request["content"])
    return _answer(api.apply(tmp / "f.py", request["edit"], cwd=tmp, answer="merge"))


def send(handler: BaseHTTPRequestHandler, data: Any, status: int = 200) -> None:
    payload = json.dumps(data).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


class Hostile:
    """A real HTTP server on a free loopback port; every POST's JSON goes to `respond`."""

    def __init__(self, respond: Handler) -> None:
        class H(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                try:
                    respond(self, body)
                except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: as it should
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(SOURCE)
    (tmp_path / "edit.txt").write_text(SNIPPET)
    (tmp_path / "srv").mkdir()
    return tmp_path


@pytest.fixture
def serving(project: Path) -> Iterator[Callable[[Handler], str]]:
    servers: list[Hostile] = []

    def start(respond: Handler) -> str:
        servers.append(Hostile(respond))
        return servers[-1].url

    yield start
    for s in servers:
        s.close()


def cli(project: Path, url: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "applyedit", "app.py", "--edit", "edit.txt", "--server", url, "--in-place", *args],
        cwd=project,
        capture_output=True,
        timeout=timeout,
        env={**os.environ, "APPLYEDIT_CONFIG": ""},
    )


def tampered(project: Path, change: Callable[[dict[str, Any]], None]) -> Handler:
    def respond(handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        answer = honest(request, project / "srv")
        change(answer)
        send(handler, answer)

    return respond


def test_an_honest_answer_is_written(project: Path, serving: Callable[[Handler], str]) -> None:
    """The control case: the honest server's file passes the local checks and is written."""
    r = cli(project, serving(tampered(project, lambda a: None)))
    assert r.returncode == 0, r.stderr.decode()
    assert (project / "app.py").read_text() == MERGED


@pytest.mark.parametrize(
    ("after", "message"),
    [
        ("", "empty file"),
        (SOURCE.replace("    return a - b\n", "    # ... existing code ...\n"), "lazy marker"),
        (MERGED.replace("def sub(a, b):", "def sub(a, b:"), "no longer parses"),
        (SOURCE, "equals the original"),
        (MERGED.replace("def add(a, b):\n    return a + b\n\n\n", ""), "dropped"),
    ],
    ids=["empty", "markers", "syntax", "unchanged", "dropped"],
)
def test_a_bad_file_from_the_server_is_refused_locally(
    project: Path, serving: Callable[[Handler], str], after: str, message: str
) -> None:
    """The server says all is well (its summary too: answered by the merge); the local checks refuse."""

    def change(answer: dict[str, Any]) -> None:
        answer["after"] = after

    r = cli(project, serving(tampered(project, change)))
    err = r.stderr.decode()
    assert r.returncode == 3, err
    assert message in err and "the server's output fails a local check" in err
    assert (project / "app.py").read_text() == SOURCE  # nothing written
    rej = project / "app.py.rej"
    assert (rej.read_text() == after) if after else not rej.exists()  # kept for a look, like a local refusal


def test_the_original_text_style_is_restored(project: Path, serving: Callable[[Handler], str]) -> None:
    """A server answering CRLF and a BOM for an LF file: the file keeps its own style."""

    def change(answer: dict[str, Any]) -> None:
        answer["after"] = "\ufeff" + answer["after"].replace("\n", "\r\n")

    r = cli(project, serving(tampered(project, change)))
    assert r.returncode == 0, r.stderr.decode()
    assert (project / "app.py").read_bytes() == MERGED.encode()


@pytest.mark.parametrize(
    "change",
    [
        lambda a: a.update(after=42),
        lambda a: a.update(after="x = '\ud800'\n"),
        lambda a: a["summary"].update(tokens="many"),
        lambda a: a.update(summary=[]),
        lambda a: a.update(report={"regions": 5}),
        lambda a: a.update(answer="trust me"),
        lambda a: a.update(tokens=["a"]),
    ],
    ids=["after-not-text", "after-surrogate", "summary-type", "summary-list", "report", "answer-kind", "tokens"],
)
def test_a_malformed_answer_is_one_clean_error(
    project: Path, serving: Callable[[Handler], str], change: Callable[[dict[str, Any]], None]
) -> None:
    r = cli(project, serving(tampered(project, change)))
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err
    assert (project / "app.py").read_text() == SOURCE


def test_server_text_is_printed_with_its_escapes_escaped(project: Path, serving: Callable[[Handler], str]) -> None:
    """Notes and error messages reach the terminal as text, never as control sequences."""

    def change(answer: dict[str, Any]) -> None:
        answer["notes"] = ["\x1b[2J\x1b]0;owned\x07note"]

    r = cli(project, serving(tampered(project, change)))
    assert r.returncode == 0, r.stderr.decode()
    assert b"\x1b" not in r.stderr and b"\x07" not in r.stderr and b"note" in r.stderr

    def refuse(handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        error = {"message": "\x1b[31mred\x1b[0m refusal", "type": "OutputCheckError", "exit_code": 3}
        send(handler, {"error": error}, 422)

    r = cli(project, serving(refuse))
    assert r.returncode == 3 and b"\x1b" not in r.stderr and b"red" in r.stderr


@pytest.mark.parametrize("where", ["headers", "body"])
def test_a_trickling_server_is_cut_at_the_deadline(
    project: Path, serving: Callable[[Handler], str], where: str
) -> None:
    """--timeout 1: the whole exchange ends within it plus the client's grace, however the server
    dribbles its answer (a byte every 0.2 s would take days here)."""

    def trickle(handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
        if where == "body":
            handler.wfile.write(b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (1 << 20))
        for _ in range(600):  # bounded: 2 minutes at most
            handler.wfile.write(b"X" if where == "headers" else b" ")
            handler.wfile.flush()
            time.sleep(0.2)

    t0 = time.monotonic()
    r = cli(project, serving(trickle), "--timeout", "1", timeout=90)
    took = time.monotonic() - t0
    err = r.stderr.decode()
    assert r.returncode == 2 and "no complete answer within 11 s" in err, err
    assert took < 40  # 11 s plus the CLI's start; before the fix the trickle held it for the whole answer
    assert (project / "app.py").read_text() == SOURCE


def test_an_endless_answer_is_refused_past_the_cap(project: Path, serving: Callable[[Handler], str]) -> None:
    """A chunked body that never ends: the client stops at MAX_ANSWER_BYTES, not at the end of memory."""
    from applyedit.serve.client import MAX_ANSWER_BYTES

    sent = [0]

    def endless(handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        chunk = b" " * (1 << 20)
        for _ in range(4 * (MAX_ANSWER_BYTES >> 20)):  # bounded: 4 times the cap
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sent[0] += len(chunk)

    r = cli(project, serving(endless), timeout=120)
    err = r.stderr.decode()
    assert r.returncode == 2 and "exceeds" in err, err
    assert sent[0] < 2 * MAX_ANSWER_BYTES  # it stopped reading well before the server stopped sending
    assert (project / "app.py").read_text() == SOURCE


def test_a_token_outside_latin1_is_a_usage_error(project: Path, serving: Callable[[Handler], str]) -> None:
    r = cli(project, serving(tampered(project, lambda a: None)), "--token", "ключ")
    err = r.stderr.decode()
    assert r.returncode == 1 and "token" in err and "internal error" not in err, err
    assert (project / "app.py").read_text() == SOURCE


def test_a_reading_the_server_took_is_checked_as_that_reading(
    tmp_path: Path, serving: Callable[[Handler], str]
) -> None:
    """A snippet with two valid readings (a release-corpus case): the server answers with the one asked
    for (`--reading N`; its tie-break takes one the same way), and the client holds it to every check as
    that reading, as a local run does: written, exit 0, and no note that a check could not run."""
    from fakes import corpus_module

    from applyedit.merge import confirm, reindent
    from applyedit.options import RunOptions

    cases = corpus_module("releases/cases")
    records = [r for r in cases.records() if r["package"] == "jinja2" and r["path"] == "src/jinja2/sandbox.py"]
    case = next(c for r in records for c in cases.cases_for(r) if c.name == "py_jinja2_3_1_5_jinja2_sandbox_py_1_clean")
    readings = confirm.confirmed(
        case.before, reindent.to_file_style(case.before, case.snippet), "python", with_readings=True
    ).readings
    assert len(readings) == 2

    def respond(handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        (tmp_path / "srv" / "f.py").write_text(request["content"])
        opts = RunOptions(reading=request["options"]["reading"])
        send(handler, _answer(api.apply(tmp_path / "srv" / "f.py", request["edit"], cwd=tmp_path, options=opts)))

    (tmp_path / "edit.txt").write_text(case.snippet)
    url = serving(respond)
    for n, reading in enumerate(readings, 1):
        (tmp_path / "app.py").write_text(case.before)
        r = cli(tmp_path, url, "--reading", str(n))
        assert r.returncode == 0, r.stderr.decode()
        assert (tmp_path / "app.py").read_text() == reading
        assert "could not run" not in r.stderr.decode()
