"""`applyedit model prepare --from-hub REPO FILE` (applyedit/hub.py) against a local HTTP server on
127.0.0.1 standing in for the model hub (HF_ENDPOINT points at it): the file arrives through
huggingface_hub, a right SHA-256 is accepted, a wrong one deletes the download and exits 2, and a
file with the default model's hash becomes the default model's GGUF. No network beyond loopback."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("huggingface_hub")

REPO, FILE = "someone/tiny-GGUF", "tiny-q4_k_m.gguf"
BODY = b"GGUF" + bytes(range(256)) * 64  # a small file; its bytes matter, not its format
COMMIT = "0123456789abcdef0123456789abcdef01234567"


class Hub(BaseHTTPRequestHandler):
    """Answers HEAD and GET for /<repo>/resolve/<revision>/<file> as the hub does (the headers
    huggingface_hub reads: X-Repo-Commit, ETag, Content-Length)."""

    served: list[str] = []

    def _headers(self) -> bool:
        if self.path.split("?")[0] != f"/{REPO}/resolve/main/{FILE}":
            self.send_response(404)
            self.send_header("X-Error-Code", "EntryNotFound")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return False
        self.send_response(200)
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("ETag", f'"{hashlib.sha256(BODY).hexdigest()}"')
        self.send_header("Content-Length", str(len(BODY)))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        return True

    def do_HEAD(self) -> None:  # noqa: N802
        self._headers()

    def do_GET(self) -> None:  # noqa: N802
        if self._headers():
            self.served.append(self.path)
            self.wfile.write(BODY)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hub() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Hub.served = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def prepare(hub: str, home: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(HF_ENDPOINT=hub, APPLYEDIT_HOME=str(home), HF_HOME=str(home / "hf"), NO_PROXY="127.0.0.1")
    return subprocess.run(
        [sys.executable, "-m", "applyedit", "model", "prepare", "--from-hub", REPO, FILE, *args],
        capture_output=True,
        env=env,
        timeout=120,
    )


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()] if folder.exists() else []


def test_fetch_with_the_right_hash(hub: str, tmp_path: Path) -> None:
    r = prepare(hub, tmp_path / "home", "--sha256", hashlib.sha256(BODY).hexdigest())
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert r.stdout == b"" and Hub.served and "verified" in err and "--model" in err
    fetched = [p for p in files_under(tmp_path / "home" / "hub") if p.read_bytes() == BODY]
    assert fetched, err  # the file is in applyedit's cache


def test_a_wrong_hash_is_refused_and_deleted(hub: str, tmp_path: Path) -> None:
    r = prepare(hub, tmp_path / "home", "--sha256", hashlib.sha256(b"another file").hexdigest())
    err = r.stderr.decode()
    assert r.returncode == 2 and Hub.served, err
    assert "differs from the expected" in err and "deleted" in err
    assert not [p for p in files_under(tmp_path / "home") if p.read_bytes() == BODY]  # nothing kept


def test_bad_hash_argument_and_missing_file(hub: str, tmp_path: Path) -> None:
    r = prepare(hub, tmp_path / "home", "--sha256", "abc")
    assert r.returncode == 1 and b"not a SHA-256" in r.stderr and not Hub.served
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"}
    env.update(HF_ENDPOINT=hub, APPLYEDIT_HOME=str(tmp_path / "home"))
    missing = subprocess.run(
        [sys.executable, "-m", "applyedit", "model", "prepare", "--from-hub", REPO, "nope.gguf"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert missing.returncode == 2 and b"could not fetch nope.gguf" in missing.stderr


def test_a_known_file_is_checked_without_sha256_and_the_default_becomes_the_model(
    hub: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In-process: a (repo, file) in hub.KNOWN is checked against its hash with no --sha256; one
    with the default model's hash is installed as the default model's GGUF."""
    from huggingface_hub import constants

    from applyedit.models import hub as hub_module
    from applyedit.models import modelstore

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_ENDPOINT", hub)
    monkeypatch.setenv("APPLYEDIT_HOME", str(tmp_path / "home"))
    monkeypatch.setitem(hub_module.KNOWN, (REPO, FILE), hashlib.sha256(b"the official bytes").hexdigest())
    with pytest.raises(Exception, match="differs from the expected"):
        hub_module.fetch(REPO, FILE)
    digest = hashlib.sha256(BODY).hexdigest()
    monkeypatch.setitem(hub_module.KNOWN, (REPO, FILE), digest)
    monkeypatch.setattr(modelstore, "DEFAULT_GGUF_SHA256", digest)
    path, checked = hub_module.fetch(REPO, FILE)
    assert checked == digest and path.read_bytes() == BODY
    assert modelstore.default_gguf_path().read_bytes() == BODY  # the default model now uses it


class Hostile(Hub):
    """A mirror whose HEAD is honest (BODY, 16,388 bytes) and whose GET is not: `mode` "endless" sends a
    body that never ends (bounded here at 200 MiB), "stalled" sends a few bytes per request and then
    nothing for a minute."""

    mode = "endless"

    def do_GET(self) -> None:  # noqa: N802
        if self.path.split("?")[0] != f"/{REPO}/resolve/main/{FILE}":
            return super().do_GET()
        self.served.append(self.path)
        self.send_response(200)
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("ETag", f'"{hashlib.sha256(BODY).hexdigest()}"')
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            if self.mode == "endless":
                for _ in range(200):
                    self.wfile.write(bytes(1 << 20))
            else:
                self.wfile.write(BODY[:10])
                self.wfile.flush()
                time.sleep(60)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.mark.parametrize("mode, message", [("endless", "more than the file's 16,388 bytes"), ("stalled", "stalled")])
def test_a_hostile_mirror_is_stopped(tmp_path: Path, mode: str, message: str) -> None:
    Hostile.mode, Hostile.served = mode, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
        env.update(
            HF_ENDPOINT=f"http://127.0.0.1:{server.server_address[1]}",
            APPLYEDIT_HOME=str(tmp_path / "home"),
            HF_HOME=str(tmp_path / "hf"),
            NO_PROXY="127.0.0.1",
            HF_HUB_DOWNLOAD_TIMEOUT="1",
        )
        t0 = time.monotonic()
        r = subprocess.run(
            [sys.executable, "-m", "applyedit", "model", "prepare", "--from-hub", REPO, FILE],
            capture_output=True,
            env=env,
            timeout=120,
        )
        err = r.stderr.decode()
        assert r.returncode == 2 and message in err and Hostile.served, err
        assert time.monotonic() - t0 < 60  # 3 read timeouts of 1 s, not the mirror's patience
        assert sum(p.stat().st_size for p in files_under(tmp_path)) < 4 << 20  # not 200 MiB: stopped and deleted
    finally:
        server.shutdown()
        server.server_close()
