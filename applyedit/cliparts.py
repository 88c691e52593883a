"""What every command of the CLI shares: the exit codes, the two consoles, the options several
commands take (declared once, choices listed in `--help`; whole groups of them added to a command's
signature by `with_options`), the user's defaults, and the one mapping of an error to a message and
an exit code (`fail`, and `guarded` around a command).

Knows nothing of what a command does. Heavy imports stay out: `--help` is instant.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from applyedit.errors import ApplyEditError
from applyedit.options import ANCHORS, ANSWERS, DEFAULT_K, DRAFT_BACKENDS, DTYPES, FALLBACKS
from applyedit.registry import K_POLICIES, PROPOSERS

EXIT_OK, EXIT_USAGE, EXIT_MODEL, EXIT_CHECK, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = {  # the one table; --help and the README quote it
    EXIT_OK: "success (an empty diff when nothing changed)",
    EXIT_USAGE: "bad usage or input (nothing was run or written)",
    EXIT_MODEL: "model or decoding failure (missing model, truncated output, --timeout)",
    EXIT_CHECK: "a failed output check (lazy markers left, dropped code, syntax errors, eval below its floor)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); nothing was written, unless the message names files written in full",
}
EXIT_HELP = "Exit codes:\n\n" + "\n\n".join(f"  {code}  {text}" for code, text in EXIT_CODES.items())

console = Console(stderr=True, highlight=False, soft_wrap=True)
if not console.is_terminal:
    console.width = 160  # logs and pipes: wide enough that tables keep their columns
stdout = Console(highlight=False, soft_wrap=True)  # tables of commands whose stdout carries no diff
if not stdout.is_terminal:
    stdout.width = 160


def choice(flag: str, values: Sequence[str], default: str | None = None, **option: Any) -> Any:
    """A typer option taking one of `values` (listed in --help); another is refused as
    "unknown FLAG 'x'; choose ..." (exit 1)."""

    def parse(value: str | None) -> str | None:
        if value is not None and value not in values:
            raise typer.BadParameter(f"unknown {flag} {value!r}; choose {', '.join(values)}")
        return value

    return typer.Option(flag, parser=parse, metavar=f"<{'|'.join(values)}>", **option)


# Options shared by several commands, declared once.
ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        envvar="APPLYEDIT_MODEL",
        help="Model dir, .gguf file or HF id (default: the installed Qwen2.5-Coder-1.5B-Instruct).",
    ),
]
DeviceOpt = Annotated[str | None, typer.Option(help="cpu, cuda or auto.")]
DtypeOpt = Annotated[
    str | None, choice("--dtype", ("auto", *DTYPES), help="fp32, bf16 or fp16 (default: fp32 on CPU, bf16 on CUDA).")
]
BackendOpt = Annotated[
    str | None,
    choice(
        "--backend",
        ("auto", "torch", "llamacpp", "vllm"),
        envvar="APPLYEDIT_BACKEND",
        help="torch (the exactness reference), llamacpp (the GGUF on the CPU; the llamacpp extra) or vllm "
        "(a vLLM engine with applyedit's drafter, in a venv with vLLM).",
    ),
]
ProposerOpt = Annotated[
    str,
    choice(
        "--proposer",
        tuple(PROPOSERS),
        help="copy (speculative), copy-original (no drafts from the merged snippet), none (plain greedy), "
        "draft (a small draft model drafts) or hybrid (copy drafts while aligned, the draft model inside edits).",
    ),
]
DraftModelOpt = Annotated[
    str | None,
    typer.Option(
        "--draft-model",
        help="With --proposer draft or hybrid: a model with the same tokenizer (model dir, .gguf "
        "or HF id; default: Qwen2.5-Coder-0.5B-Instruct, the draft extra).",
    ),
]
DraftKOpt = Annotated[
    int | None,
    typer.Option(
        help="The draft model's draft length (default: chosen per step for the best expected tokens per second)."
    ),
]
DraftBackendOpt = Annotated[
    str | None,
    choice(
        "--draft-backend",
        DRAFT_BACKENDS,
        help="Runs the draft model: auto (llama.cpp on the CPU when installed, else torch), torch or llamacpp.",
    ),
]
KOpt = Annotated[int, typer.Option("--k", help="Draft length: the cap for adaptive, the value for fixed.")]
KPolicyOpt = Annotated[
    str, choice("--k-policy", tuple(K_POLICIES), help="adaptive (region-aware, cost-model K) or fixed.")
]
JsonOpt = Annotated[Path | None, typer.Option("--json", help="Write the results as JSON here.")]
DebugOpt = Annotated[bool, typer.Option(envvar="APPLYEDIT_DEBUG", help="Show tracebacks.")]
AnchorOpt = Annotated[
    str,
    choice(
        "--anchor",
        ANCHORS,
        help="merge: when an update snippet merges unambiguously, force the original lines it keeps away from "
        "its hunks (the model writes only in and around them); none: the model writes everything.",
    ),
]
AnswerOpt = Annotated[
    str,
    choice(
        "--answer",
        ANSWERS,
        help="merge: an update snippet whose merge is confirmed (one reading, every check holds) is answered by "
        "it with no model; any other is refused (exit 1, saying why); auto: the model decides those; model: the "
        "model writes every answer. Instructions always run the model.",
    ),
]
FallbackOpt = Annotated[
    str,
    choice(
        "--fallback",
        FALLBACKS,
        help="merge: when the model's output fails a check and the snippet merges unambiguously into a file "
        "that parses, answer with the merge (a warning says so); none: refuse (exit 3).",
    ),
]


Command = TypeVar("Command", bound=Callable[..., Any])


def _option(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=annotation, default=default)


# Groups of options several commands take, in the order --help lists them: each is declared here once
# and added to a command's signature by `with_options`.
MODEL_OPTIONS = (
    _option("model", ModelOpt, None),
    _option("device", DeviceOpt, None),
    _option("dtype", DtypeOpt, None),
    _option("backend", BackendOpt, None),
)
DRAFT_OPTIONS = (
    _option("proposer", ProposerOpt, "copy"),
    _option("draft_model", DraftModelOpt, None),
    _option("draft_backend", DraftBackendOpt, None),
    _option("draft_k", DraftKOpt, None),
    _option("k", KOpt, DEFAULT_K),
    _option("k_policy", KPolicyOpt, "adaptive"),
)
ANSWER_OPTIONS = (
    _option("anchor", AnchorOpt, "merge"),
    _option("answer", AnswerOpt, "merge"),
    _option("fallback", FallbackOpt, "merge"),
)


def with_options(**after: Sequence[inspect.Parameter]) -> Callable[[Command], Command]:
    """Add option groups to a command's signature, each after the parameter it is keyed by
    (`@with_options(filename=MODEL_OPTIONS)`): typer reads the signature, so `--help` lists them
    there, and the command receives them in its `**options` (named like `RunOptions`'s fields)."""

    def declare(command: Command) -> Command:
        params = []
        for param in inspect.signature(command, eval_str=True).parameters.values():
            if param.kind is not param.VAR_KEYWORD:
                params += [param, *after.get(param.name, ())]
        setattr(command, "__signature__", inspect.Signature(params))  # noqa: B010 (a Callable has no such attribute)
        return command

    return declare


def defaults(ctx: typer.Context, **values: Any) -> dict[str, Any]:
    """The command's values with the user's config file (applyedit.toml) in place of built-in
    defaults: a flag or an environment variable still wins (userconfig.py)."""
    from applyedit import userconfig

    return userconfig.resolve(ctx, values)


def print_summary(summary: Any, soft_wrap: bool | None = None) -> None:
    s = summary
    sampled = f"; sampled at temperature {s.temperature:g}, top-p {s.top_p:g}, seed {s.seed}" if s.temperature else ""
    why = f"; {s.backend_reason}" if getattr(s, "backend_reason", "") else ""  # e.g. "the CPU default"
    if s.stop_reason == "merge":  # outcome.answer_by_merge: no model ran
        console.print(
            f"[bold]applyedit[/]: the snippet's merge answered in {s.wall_s:.2f} s; no model ran", soft_wrap=soft_wrap
        )
        return
    console.print(
        f"[bold]applyedit[/]: {s.tokens} tokens in {s.passes} target passes "
        f"({s.tokens_per_pass:.1f} tokens/pass, acceptance {s.acceptance:.0%}), "
        f"{s.wall_s:.1f} s wall ({s.prefill_s:.1f} s prefill of {s.prompt_tokens} tokens), "
        f"{s.tokens_per_s:.1f} tokens/s; {s.model} on {s.device} via {s.backend} ({s.dtype}{why}), "
        f"proposer {s.proposer}" + sampled,
        soft_wrap=soft_wrap,
    )


def fail(error: BaseException, debug: bool, written: list[Path] | None = None) -> typer.Exit:
    """The one mapping of an error to a line on stderr and an exit code (EXIT_CODES)."""
    if debug:
        console.print_exception()
    if isinstance(error, KeyboardInterrupt):
        done = " and ".join(map(str, written or []))
        console.print(
            f"applyedit: interrupted after {done} {'were' if len(written or []) > 1 else 'was'} written in "
            "full (the write had begun; it was completed, not cut)"
            if done
            else "applyedit: interrupted; nothing was written",
            markup=False,
        )
        return typer.Exit(EXIT_INTERRUPTED)
    if isinstance(error, ApplyEditError):
        console.print(f"applyedit: error: {error}", markup=False)
        return typer.Exit(error.exit_code)
    console.print(f"applyedit: internal error: {type(error).__name__}: {error} (run with --debug)", markup=False)
    return typer.Exit(EXIT_MODEL)


def guarded(command: Command) -> Command:
    """Run a command with every error mapped by `fail` (its `debug` argument shows tracebacks);
    `typer.Exit` (a chosen exit code) passes through."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except typer.Exit:
            raise
        except (ApplyEditError, KeyboardInterrupt, Exception) as e:
            raise fail(e, bool(kwargs.get("debug", False))) from None

    return run  # type: ignore[return-value]
