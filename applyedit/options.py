"""The settings of a run, as one frozen value: `RunOptions`.

Built once at the edge (the CLI's flags and the user's config file, a server request, a test) and
passed whole to `api.apply`, the eval and the bench. Owns every default (the default K is written here
and nowhere else), the choices each setting takes, and the checks that need no model (`check`), which
run before any input is read. Knows nothing of how the settings are used.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass
from typing import Any

from applyedit import registry
from applyedit.errors import InputError
from applyedit.models.base import BACKENDS

DEFAULT_K = 64  # the draft length: the adaptive policy's cap, the fixed policy's value
ANCHORS = ("merge", "none")  # --anchor: force the original lines an unambiguous merge keeps, or not
# --answer: a confirmed merge answers an update snippet and any other snippet is refused ("merge"), or the
# model decides those ("auto"), or the model always runs ("model")
ANSWERS = ("merge", "auto", "model")
FALLBACKS = ("merge", "none")  # --fallback: answer with the merge when the model's output fails a check
DRAFT_BACKENDS = ("auto", "torch", "llamacpp")
DTYPES = ("fp32", "float32", "bf16", "bfloat16", "fp16", "float16")
ENGINE_FIELDS = ("model", "device", "dtype", "backend")  # what opens the model (Engine.open), not the run


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

    `answer` "merge": an update snippet whose merge is confirmed (confirm.py) and changes the file,
    parses and passes the output checks is answered by that merge, and no model is opened
    (`ApplyResult.answer` "merge", its summary's `stop_reason` "merge"); any other update snippet is
    refused (AmbiguousEditError) — measured on real commits, the model was right on none of them and
    wrong with exit 0 on some. "auto": the model decides those, held to the invariants. "model" runs
    the model on every edit. Instructions always run the model.
    `anchor` "merge": when an update snippet merges unambiguously, the original lines it keeps away
    from every hunk are forced output (anchor.py); the model writes the rest. The output checks
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
    # The output checks' switches, and the merge as the answer when a check refuses.
    allow_markers: bool = False
    allow_drops: bool = False
    allow_syntax_errors: bool = False
    allow_deletion: bool = False
    allow_unchanged: bool = False
    allow_mismatch: bool = False
    allow_lost_definitions: bool = False
    allow_head_changes: bool = False
    fallback: str = "merge"

    def replace(self, **changes: Any) -> RunOptions:
        """A copy with `changes` (field names; an unknown one is a TypeError)."""
        return dataclasses.replace(self, **changes)

    @property
    def proposer_name(self) -> str:
        return self.proposer if isinstance(self.proposer, str) else type(self.proposer).__name__

    def check(self) -> None:
        """Every check of the settings that needs no model: `apply` runs it before reading anything."""
        from applyedit.models.backend import check_device

        if self.timeout is not None and not (math.isfinite(self.timeout) and self.timeout > 0):
            raise InputError(f"--timeout must be a number of seconds above 0; got {self.timeout:g}")
        if self.max_new_tokens is not None and self.max_new_tokens < 1:
            raise InputError(f"--max-new-tokens must be 1 or more; got {self.max_new_tokens}")
        if isinstance(self.proposer, str) and self.proposer not in registry.PROPOSERS:
            raise InputError(f"unknown --proposer {self.proposer!r}; choose one of {', '.join(registry.PROPOSERS)}")
        if self.k_policy not in registry.K_POLICIES:
            raise InputError(f"unknown --k-policy {self.k_policy!r}; choose {either(registry.K_POLICIES)}")
        if self.k < 0:
            raise InputError("--k must be 0 or more")
        if self.draft_k is not None and self.draft_k < 1:
            raise InputError("--draft-k must be 1 or more")
        if self.backend not in (None, "auto", *BACKENDS):
            raise InputError(f"unknown --backend {self.backend!r}; choose {either(BACKENDS)}")
        if self.draft_backend not in (None, *DRAFT_BACKENDS):
            raise InputError(f"unknown --draft-backend {self.draft_backend!r}; choose {', '.join(DRAFT_BACKENDS)}")
        if self.dtype not in (None, "auto", *DTYPES):
            raise InputError(f"unknown --dtype {self.dtype!r}; use fp32, bf16 or fp16")
        if self.backend == "llamacpp" and self.dtype not in (None, "auto"):
            raise InputError("--dtype applies to the torch backend; llama.cpp runs the GGUF's own quantisation")
        check_device(self.device)
        if self.anchor not in ANCHORS or self.fallback not in FALLBACKS:
            raise InputError(f"unknown --anchor {self.anchor!r} or --fallback {self.fallback!r}; choose merge or none")
        if self.answer not in ANSWERS:
            raise InputError(f"unknown --answer {self.answer!r}; choose merge or model")


def either(names: typing.Iterable[str]) -> str:
    """'torch, llamacpp or vllm': the names for a message."""
    *rest, last = names
    return f"{', '.join(rest)} or {last}" if rest else last
