"""`applyedit serve` (a warm local HTTP service, serve/app.py) and the CLI as its client
(`--server URL`, serve/client.py): the command, the prompt cache's folder on disk, and the stand-in for
`api.apply` that sends a run to the server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from applyedit.cli.parts import MODEL_OPTIONS, DebugOpt, console, guarded, with_options
from applyedit.errors import UsageError
from applyedit.options import OPTIONS, RunOptions

ServerOpt = Annotated[
    str | None,
    typer.Option(
        "--server",
        envvar="APPLYEDIT_SERVER",
        help="Send the run to a running `applyedit serve` at this URL "
        "(e.g. http://127.0.0.1:8321); the file is still read, checked and written here.",
    ),
]
TokenOpt = Annotated[str | None, typer.Option(envvar="APPLYEDIT_TOKEN", help="The server's bearer token.")]
# What `--server` sends of the run options (options.OPTIONS: those a request may set); the timeout
# goes as client.apply's own, as it also bounds the wait for the answer. The rest (the model's) are the server's.
REMOTE_OPTIONS = tuple(o.name for o in OPTIONS if o.request and o.name != "timeout")
SERVERS_OWN = tuple(o.name for o in OPTIONS if not o.request)


def remote_apply(server: str | None, token: str | None, quiet: bool) -> Any:
    """`api.apply`'s stand-in that runs on the server at `server` (or $APPLYEDIT_SERVER); None without one.
    The model options are the server's: a note names those given here and ignored."""
    from applyedit.serve import client

    url = client.server_url(server)
    if url is None:
        return None

    def run(
        file: Path,
        edit: str,
        *,
        options: RunOptions,
        encoding: str,
        language: str | None,
        source: bytes | None,
        **_: Any,
    ) -> Any:
        ignored = [f"--{n.replace('_', '-')}" for n in SERVERS_OWN if getattr(options, n)]
        if ignored:
            console.print(
                f"applyedit: note: {', '.join(ignored)} ignored: the server at {url} runs its own model", markup=False
            )
        result = client.apply(
            url,
            file,
            edit,
            token=token,
            encoding=encoding,
            language=language,
            timeout=options.timeout,
            options={n: getattr(options, n) for n in REMOTE_OPTIONS},
            source=source,
            checks=options,
        )
        cache = result.report.get("prompt_cache") or {}
        if (
            isinstance(cache, dict)
            and all(isinstance(cache.get(n), int) for n in ("reused", "prompt_tokens", "prefilled"))
            and cache["reused"]
            and not quiet
        ):
            console.print(
                f"applyedit: prompt cache: {cache['reused']:,} of {cache['prompt_tokens']:,} prompt tokens "
                f"reused, {cache['prefilled']:,} prefilled",
                markup=False,
            )
        return result

    return run


def _disk_store(engine: Any, folder: Path, limit_mb: int) -> Any:
    """The prompt cache's folder for this model file, backend, dtype and kernels (promptcache.DiskStore)."""
    from applyedit.models import modelstore, promptcache

    weights = engine.weights_file
    if weights is None or not weights.is_file():
        raise UsageError(f"--cache-dir: cannot key the cache by the model file ({weights} is missing)")
    key = promptcache.folder_key(weights, engine.backend, engine.dtype_name, engine.kernels, folder)
    encode, decode = promptcache.codec(engine.backend, engine.device)
    console.print(f"applyedit serve: prompt cache on disk in {folder / key}", markup=False)
    try:
        secret = promptcache.secret_key(modelstore.home() / "prompt-cache.key")
        return promptcache.DiskStore(folder / key, limit_mb << 20, encode, decode, secret=secret)
    except OSError as e:  # the folder itself cannot be made: a file in its place, no permission
        raise UsageError(f"--cache-dir {folder}: cannot keep the prompt cache there ({e.strerror or e})") from e


@guarded
@with_options(timeout=MODEL_OPTIONS)
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on; anything but loopback needs --token.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free one, printed).")] = 8321,
    token: Annotated[
        str | None, typer.Option(envvar="APPLYEDIT_TOKEN", help="Require `Authorization: Bearer TOKEN` on /v1/.")
    ] = None,
    cache_mb: Annotated[int, typer.Option(help="Prompt cache budget in MiB (0: no cache).")] = 1024,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            help="Also keep the prompt cache here, so a restart finds it (a folder per model, backend, dtype, kernels)."
        ),
    ] = None,
    cache_dir_mb: Annotated[int, typer.Option(help="With --cache-dir: its budget in MiB.")] = 4096,
    queue: Annotated[int, typer.Option(help="Requests that may wait behind the running one; more get 503.")] = 8,
    max_body_mb: Annotated[float, typer.Option(help="Largest request body in MiB; larger get 413.")] = 8.0,
    timeout: Annotated[
        float | None,
        typer.Option(help="Default per-request limit in seconds, from arrival (a request's own timeout wins)."),
    ] = None,
    engine_name: Annotated[
        str,
        typer.Option(
            "--engine",
            help="applyedit (its own decode loop, one request at a time) or vllm (a vLLM engine with applyedit's "
            "drafter; concurrent requests decode together; in a venv with vLLM).",
        ),
    ] = "applyedit",
    debug: DebugOpt = False,
    **options: Any,
) -> None:
    """Serve the model warm on a local HTTP API: /v1/apply, OpenAI-style /v1/chat/completions, /v1/models, /health.

    Examples:

      applyedit serve

      applyedit serve --backend llamacpp --cache-mb 2048

      applyedit serve --engine vllm

      APPLYEDIT_SERVER=http://127.0.0.1:8321 applyedit app.py --edit edit.txt
    """
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise UsageError("applyedit serve needs FastAPI and uvicorn: pip install -e '.[serve]'") from None
    from applyedit.models.engine import Engine
    from applyedit.models.promptcache import PromptCache
    from applyedit.serve import app as server

    try:  # Ctrl-C is how a server stops: no message, exit 0
        settings = server.Settings(
            host=host, port=port, token=token, queue=queue, max_body=int(max_body_mb * (1 << 20)), timeout=timeout
        )
        server.check_settings(settings)
        if cache_mb < 0:
            raise UsageError("--cache-mb must be 0 or more")
        if engine_name not in ("applyedit", "vllm"):
            raise UsageError(f"unknown --engine {engine_name!r}; choose applyedit or vllm")
        if engine_name == "vllm" and options["backend"] not in (None, "auto", "vllm"):
            raise UsageError("--engine vllm runs the model on vLLM: drop --backend")
        backend = "vllm" if engine_name == "vllm" else options["backend"]
        chosen = RunOptions(**{**options, "backend": backend})  # the model options, checked as they are made
        engine = Engine.open(chosen.model, chosen.device, chosen.dtype, backend=chosen.backend)
        # vLLM keeps its own prefix cache; applyedit's prompt cache is for its own decode loop
        cache = PromptCache(cache_mb << 20) if cache_mb and engine.backend != "vllm" else None
        if cache is not None and cache_dir is not None:
            cache.disk = _disk_store(engine, cache_dir, cache_dir_mb)
        server.serve(engine, settings, cache, log=lambda msg: console.print(msg, markup=False))
    except KeyboardInterrupt:
        return
