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
from applyedit.options import OPTIONS, Option, config_keys, group

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


def choice(option: Option) -> Any:
    """A typer option taking one of a run option's choices (listed in --help); another is refused in
    the table's words (`Option.refusal`: "unknown FLAG 'x'; choose ...", exit 1)."""

    def parse(value: str | None) -> str | None:
        if (why := option.refusal(value)) is not None:
            raise typer.BadParameter(why)
        return value

    metavar = f"<{'|'.join(option.allowed())}>"
    return typer.Option(option.flags[0], parser=parse, metavar=metavar, envvar=option.envvar, help=option.help)


def _info(option: Option) -> Any:
    """The typer option of a run option (options.OPTIONS)."""
    if option.allowed():
        return choice(option)
    return typer.Option(*option.flags, envvar=option.envvar, help=option.help)


# The run options' parameter types (options.OPTIONS), by RunOptions field; and options other commands share.
RUN_OPTS = {o.name: Annotated[o.type, _info(o)] for o in OPTIONS}
_BY_NAME = {o.name: o for o in OPTIONS}
ModelOpt = Annotated[str | None, _info(_BY_NAME["model"])]
DeviceOpt = Annotated[str | None, _info(_BY_NAME["device"])]
DtypeOpt = Annotated[str | None, _info(_BY_NAME["dtype"])]
BackendOpt = Annotated[str | None, _info(_BY_NAME["backend"])]
DraftModelOpt = Annotated[str | None, _info(_BY_NAME["draft_model"])]
DraftBackendOpt = Annotated[str | None, _info(_BY_NAME["draft_backend"])]
JsonOpt = Annotated[Path | None, typer.Option("--json", help="Write the results as JSON here.")]
DebugOpt = Annotated[bool, typer.Option(envvar="APPLYEDIT_DEBUG", help="Show tracebacks.")]

Command = TypeVar("Command", bound=Callable[..., Any])


def _option(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=annotation, default=default)


def _group(name: str) -> tuple[inspect.Parameter, ...]:
    return tuple(_option(o.name, RUN_OPTS[o.name], o.default) for o in group(name))


# Groups of run options commands take, in the order --help lists them: each is declared once
# (options.OPTIONS) and added to a command's signature by `with_options`.
MODEL_OPTIONS = _group("model")
DRAFT_OPTIONS = (*_group("draft"), *_group("k"))
BUDGET_OPTIONS = _group("budget")
CHECK_OPTIONS = _group("checks")
ANSWER_OPTIONS = (*_group("answer"), *_group("fallback"))
SAMPLING_OPTIONS = _group("sampling")


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


# What the user's config file (applyedit.toml) may set: the run options the table marks, and the apply
# command's own verbosity.
CONFIG_KEYS: dict[str, type] = {**config_keys(), "verbose": bool, "quiet": bool}


def defaults(ctx: typer.Context, **values: Any) -> dict[str, Any]:
    """The command's values with the user's config file (applyedit.toml, its keys CONFIG_KEYS) in
    place of built-in defaults: a flag or an environment variable still wins (userconfig.py)."""
    from applyedit import userconfig

    return userconfig.resolve(ctx, values, CONFIG_KEYS)


def print_summary(summary: Any, soft_wrap: bool | None = None) -> None:
    s = summary
    sampled = f"; sampled at temperature {s.temperature:g}, top-p {s.top_p:g}, seed {s.seed}" if s.temperature else ""
    why = f"; {s.backend_reason}" if s.backend_reason else ""  # e.g. "the CPU default"
    if s.stop_reason == "merge":  # outcome.answer_by_merge: no model ran, no decode
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
