"""The settings of a run, as one frozen value: `RunOptions`, and the one table of the options (`OPTIONS`).

Built once at the edge (the CLI's flags and the user's config file, a server request, a test) and
passed whole to `api.apply`, the eval and the bench. Owns every default (the default K is written here
and nowhere else: the K policies below are told their cap), the choices each setting takes, and the
checks that need no model (`check`), which run once, as a value is made (so before any input is read).
The table makes the CLI's flags (cli/parts.py), the server's request fields (serve/app.py), what
`--server` sends, the refusal of a name none of an option's choices, the config file's keys
(`config_keys`) and the invariants' switches (`INVARIANT_SWITCHES`). It stands on the run's layer,
beside the proposer registry whose names it checks. Knows nothing of how the settings are used.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from applyedit.errors import InputError, either
from applyedit.models.base import draft_backends, target_backends
from applyedit.speculative import registry

DEFAULT_K = 64  # the draft length: the adaptive policy's cap, the fixed policy's value
ANCHORS = ("merge", "none")  # --anchor: force the original lines an unambiguous merge keeps, or not
# --answer: a confirmed merge answers an update snippet and any other snippet is refused ("merge"), or the
# model decides those ("auto"), or the model always runs ("model")
ANSWERS = ("merge", "auto", "model")
FALLBACKS = ("merge", "none")  # --fallback: answer with the merge when the model's output fails a check
# --edit-format: what the edit is written in; "auto" tells it by its shape (applyedit/formats/), the others force it
EDIT_FORMATS = ("auto", "snippet", "instruction", "diff", "search-replace", "patch", "str-replace")
DTYPES = ("fp32", "float32", "bf16", "bfloat16", "fp16", "float16")
ENGINE_FIELDS = ("model", "device", "dtype", "backend")  # what opens the model (Engine.open), not the run
MAX_REQUEST_TIMEOUT = 86_400.0  # seconds: the longest `timeout` a server request may ask for (a day)
MAX_REQUEST_K = 1024  # the largest `k` (and `draft_k`) a server request may ask for


@dataclass(frozen=True)
class RunOptions:
    """Everything that decides a run, besides the file and the edit (`api.apply` runs it).

    `timeout` (seconds, from the call) is checked before decoding and between verify passes: a run
    past it stops with `RunTimeout` and returns nothing. `temperature` 0 (the default) decodes
    greedily; above 0 the output is sampled (after `top_p`), exactly as from the model alone, and
    `seed` reproduces it (the summary names the seed a run without one drew). `proposer` "draft"
    drafts with `draft_model` (default: the packaged 0.5B) alone, "hybrid" with copy drafts while
    aligned and the draft model inside edits; `draft_backend` "auto", "torch" or "llamacpp" runs it.
    The draft model's draft length is `draft_k` when given, else chosen per step for the best
    expected tokens per second (`policy.draft_k`; with `k_policy` "fixed": `k`).

    `answer` "merge": an update snippet whose merge is confirmed (merge/confirm.py) and changes the file,
    parses and passes the output checks is answered by that merge, and no model is opened
    (`ApplyResult.answer` "merge", its summary's `stop_reason` "merge"); any other update snippet is
    refused (AmbiguousEditError) — measured on real commits, the model was right on none of them and
    wrong with exit 0 on some. "auto": the model decides those, held to the invariants. "model" runs
    the model on every edit. Instructions always run the model.
    `anchor` "merge": when an update snippet merges unambiguously, the original lines it keeps away
    from every hunk are forced output (speculative/anchor.py); the model writes the rest. The output checks
    (checks.py) refuse what would damage the file unless an `allow_*` switch accepts it; `fallback`
    "merge": a refused output is replaced by the merge when that is unambiguous and parses
    (`ApplyResult.answer` and a note say so).
    """

    # The model (a warm engine, as in eval, bench and serve, ignores these).
    model: str | None = None
    device: str | None = None
    dtype: str | None = None
    backend: str | None = None
    # Drafting: the proposer (a name, or a Proposer object from the Python API), its K and K policy.
    proposer: Any = "copy"  # str | proposers.Proposer
    k: int = DEFAULT_K
    k_policy: str = "adaptive"
    draft_model: str | None = None
    draft_backend: str | None = None
    draft_k: int | None = None
    # Decoding.
    max_new_tokens: int | None = None
    timeout: float | None = None
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    anchor: str = "merge"
    answer: str = "merge"  # "merge": an unambiguous snippet merge is the answer and no model runs
    reading: int | None = None  # take this one of the readings a refusal listed (1-based), with no model
    edit_format: str = "auto"  # "auto": told by the edit's shape; a diff or a block is applied with no model
    # The output checks' switches, and the merge as the answer when a check refuses.
    allow_markers: bool = False
    allow_drops: bool = False
    allow_syntax_errors: bool = False
    allow_deletion: bool = False
    allow_unchanged: bool = False
    allow_mismatch: bool = False
    allow_lost_definitions: bool = False
    allow_head_changes: bool = False
    allow_unseen_changes: bool = False
    fallback: str = "merge"

    def __post_init__(self) -> None:
        self.check()  # where it is made: a RunOptions that exists has passed its checks

    def replace(self, **changes: Any) -> RunOptions:
        """A copy with `changes` (field names; an unknown one is a TypeError), checked as it is made;
        this one when there are none."""
        return dataclasses.replace(self, **changes) if changes else self

    @property
    def proposer_name(self) -> str:
        return self.proposer if isinstance(self.proposer, str) else type(self.proposer).__name__

    def check(self) -> None:
        """Every check of the settings that needs no model, run once, as the value is made (so before
        `apply` reads anything): an InputError names the setting."""
        from applyedit.models.device import check_device

        for option in OPTIONS:  # a name none of its choices: the table words the refusal
            if (why := option.refusal(getattr(self, option.name))) is not None:
                raise InputError(why)
        if self.timeout is not None and not (math.isfinite(self.timeout) and self.timeout > 0):
            raise InputError(f"--timeout must be a number of seconds above 0; got {self.timeout:g}")
        if self.max_new_tokens is not None and self.max_new_tokens < 1:
            raise InputError(f"--max-new-tokens must be 1 or more; got {self.max_new_tokens}")
        if self.k < 0:
            raise InputError("--k must be 0 or more")
        if self.draft_k is not None and self.draft_k < 1:
            raise InputError("--draft-k must be 1 or more")
        if self.backend == "llamacpp" and self.dtype not in (None, "auto"):
            raise InputError("--dtype applies to the torch backend; llama.cpp runs the GGUF's own quantisation")
        check_device(self.device)


@dataclass(frozen=True)
class Option:
    """One run option as the CLI and the server take it; its default is `RunOptions`'s field's.

    `group` places it in the CLI (cli/parts.py adds each group to the commands that take it, where
    --help lists it). `choices`: the names it takes, listed in --help; another is refused, in the words
    of `refusal` (the CLI's parser and `RunOptions.check` alike); a function reads a registry as it
    holds them now. `request`: a server request may set it (serve/app.py's request model), and
    `--server` sends it (cli/servecmd.py; the model options are the server's own). `config`: the user's
    config file may set it (`config_keys`). `invariant`: the invariant (invariants.py) whose refusal
    this switch turns into a warning (`INVARIANT_SWITCHES`)."""

    name: str  # the RunOptions field, and the flag (--k-policy for k_policy)
    group: str  # "model", "draft", "k", "budget", "checks", "answer", "fallback" or "sampling" (a run's own)
    help: str
    flags: tuple[str, ...] = ()  # the CLI's names; (): typer's own ("--name", and "--no-name" for a switch)
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] = ()
    envvar: str | None = None
    request: bool = True
    ge: int | None = None  # a request's value: at least this
    gt: float | None = None  # a request's value: above this
    le: float | None = None  # a request's value: at most this
    config: bool = False
    invariant: str = ""

    @property
    def default(self) -> Any:
        return _FIELDS[self.name].default

    @property
    def type(self) -> Any:
        """The value's type (a proposer is a name on the CLI and the wire)."""
        hint = typing.get_type_hints(RunOptions)[self.name]
        return str if hint is Any else hint

    @property
    def value_type(self) -> Any:
        """The class a value set to it has (`str` for `str | None`)."""
        kinds = [t for t in typing.get_args(self.type) if t is not type(None)]
        return kinds[0] if kinds else self.type

    @property
    def flag(self) -> str:
        """Its long flag: `--k-policy` for k_policy."""
        return next((f for f in self.flags if f.startswith("--")), "--" + self.name.replace("_", "-"))

    def allowed(self) -> tuple[str, ...]:
        """The names it takes, as the tables hold them now (); any value: no choices."""
        return self.choices() if callable(self.choices) else self.choices

    def refusal(self, value: Any) -> str | None:
        """Why `value` is none of its choices ("unknown --anchor 'maybe'; choose merge or none"); None
        when it is one, when it is unset or no name (a Proposer object), or when any value goes."""
        allowed = self.allowed()
        if not allowed or not isinstance(value, str) or value in allowed:
            return None
        return f"unknown {self.flag} {value!r}; choose {either(allowed)}"


_FIELDS = {f.name: f for f in dataclasses.fields(RunOptions)}
# The run options the CLI and the server take, in the order a request's options are sent and checked
# (each CLI group lists its rows in this order too).
OPTIONS = (
    Option(
        "model",
        "model",
        "Model dir, .gguf file or HF id (default: the installed Qwen2.5-Coder-1.5B-Instruct).",
        ("--model", "-m"),
        envvar="APPLYEDIT_MODEL",
        request=False,
        config=True,
    ),
    Option("device", "model", "cpu, cuda or auto.", request=False),
    Option(
        "dtype",
        "model",
        "fp32, bf16 or fp16 (default: fp32 on CPU, bf16 on CUDA).",
        ("--dtype",),
        ("auto", *DTYPES),
        request=False,
    ),
    Option(
        "backend",
        "model",
        "torch (the exactness reference), llamacpp (the GGUF on the CPU; the llamacpp extra) or vllm "
        "(a vLLM engine with applyedit's drafter, in a venv with vLLM).",
        ("--backend",),
        lambda: ("auto", *target_backends()),
        envvar="APPLYEDIT_BACKEND",
        request=False,
        config=True,
    ),
    Option(
        "proposer",
        "draft",
        "copy (speculative), copy-original (no drafts from the merged snippet), none (plain greedy), "
        "draft (a small draft model drafts) or hybrid (copy drafts while aligned, the draft model inside edits).",
        ("--proposer",),
        lambda: tuple(registry.PROPOSERS),
    ),
    Option(
        "k",
        "k",
        "Draft length: the cap for adaptive, the value for fixed.",
        ("--k",),
        ge=0,
        le=MAX_REQUEST_K,
        config=True,
    ),
    Option(
        "k_policy",
        "k",
        "adaptive (region-aware, cost-model K) or fixed.",
        ("--k-policy",),
        lambda: tuple(registry.K_POLICIES),
    ),
    Option("max_new_tokens", "budget", "Output token budget (default: from the file and edit sizes).", ge=1),
    Option("allow_markers", "checks", "Accept output that still holds lazy markers."),
    Option(
        "allow_drops",
        "checks",
        "Accept output that lost original lines an update snippet left alone.",
        invariant="deletions",
    ),
    Option(
        "allow_syntax_errors",
        "checks",
        "Accept output that no longer parses (tree-sitter) although the original did.",
        invariant="compiles",
    ),
    Option("allow_deletion", "checks", "Accept an instruction's output that lost most of the file's lines."),
    Option("allow_unchanged", "checks", "Accept output equal to the original although the edit changes something."),
    Option(
        "allow_mismatch",
        "checks",
        "Accept output that lacks lines the snippet adds, differs from its unambiguous merge, or is far longer "
        "than the original plus the snippet.",
        invariant="snippet",
    ),
    Option(
        "allow_lost_definitions",
        "checks",
        "Accept output that lost a definition (function, class, ...) the edit never names.",
        invariant="definitions",
    ),
    Option(
        "allow_head_changes",
        "checks",
        "Accept output that moved a shebang, Go's package clause or code outside an include guard.",
        invariant="heads",
    ),
    Option(
        "allow_unseen_changes",
        "checks",
        "Accept output that changed a line only in characters no reader sees (invisible, separators, "
        "look-alike letters) where the edit never names them.",
        invariant="unseen",
    ),
    Option(
        "anchor",
        "answer",
        "merge: when an update snippet merges unambiguously, force the original lines it keeps away from "
        "its hunks (the model writes only in and around them); none: the model writes everything.",
        ("--anchor",),
        ANCHORS,
    ),
    Option(
        "fallback",
        "fallback",
        "merge: when the model's output fails a check and the snippet merges unambiguously into a file "
        "that parses, answer with the merge (a warning says so); none: refuse (exit 3).",
        ("--fallback",),
        FALLBACKS,
    ),
    Option(
        "answer",
        "answer",
        "merge: an update snippet whose merge is confirmed (one reading, every check holds) is answered by "
        "it with no model; any other is refused (exit 1, saying why); auto: the model decides those; model: the "
        "model writes every answer. Instructions always run the model.",
        ("--answer",),
        ANSWERS,
    ),
    Option(
        "reading",
        "sampling",
        "Take reading N of those a refusal listed (--report-json's `readings`, the server's error body): the "
        "snippet read that way, held to every check, with no model.",
        ("--reading",),
        ge=1,
    ),
    Option(
        "edit_format",
        "sampling",
        "What the edit is: auto (told by its shape), snippet (lazy update snippet), instruction (words), diff "
        "(unified diff), search-replace (SEARCH/REPLACE blocks), patch (apply_patch) or str-replace (str_replace "
        "JSON). The last four are applied exactly, with no model.",
        ("--edit-format",),
        EDIT_FORMATS,
    ),
    Option(
        "timeout",
        "sampling",
        "Stop the run after this many seconds (checked between verify passes); nothing is written.",
        gt=0,
        le=MAX_REQUEST_TIMEOUT,
    ),
    Option(
        "temperature",
        "sampling",
        "0: greedy (the default; identical to plain greedy decoding). Above 0: sample, exactly as "
        "from the model alone.",
    ),
    Option(
        "top_p",
        "sampling",
        "With --temperature: sample only from the most probable tokens holding this much "
        "of the probability (0 < P <= 1).",
        ("--top-p",),
    ),
    Option(
        "seed",
        "sampling",
        "With --temperature: the same seed and inputs give the same output (default: a fresh seed, "
        "named in the summary).",
    ),
    Option(
        "draft_model",
        "draft",
        "With --proposer draft or hybrid: a model with the same tokenizer (model dir, .gguf "
        "or HF id; default: Qwen2.5-Coder-0.5B-Instruct, the draft extra).",
        ("--draft-model",),
        request=False,
    ),
    Option(
        "draft_backend",
        "draft",
        "Runs the draft model: auto (llama.cpp on the CPU when installed, else torch), torch or llamacpp.",
        ("--draft-backend",),
        lambda: ("auto", *draft_backends()),
        request=False,
    ),
    Option(
        "draft_k",
        "draft",
        "The draft model's draft length (default: chosen per step for the best expected tokens per second).",
        ge=1,
        le=MAX_REQUEST_K,
    ),
)


def group(name: str) -> tuple[Option, ...]:
    """The options of one CLI group, in the order --help lists them."""
    return tuple(o for o in OPTIONS if o.group == name)


def config_keys() -> dict[str, type]:
    """The run options the user's config file (applyedit.toml) may set, with the class of each value."""
    return {o.name: o.value_type for o in OPTIONS if o.config}


# invariant (invariants.py's name for it) -> the switch that turns its refusal into a warning
INVARIANT_SWITCHES = {o.invariant: o for o in OPTIONS if o.invariant}
