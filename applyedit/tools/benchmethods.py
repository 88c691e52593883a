"""The methods `applyedit bench` compares, from its options: `--baseline` and `--k-policy` specs
(`lookup:10,32`, `fixed:4,8`, ...) read into `Method`s, each named once.

Owns the spec syntax and the names methods get (benchrecord.py's `method_named` reads them back).
Knows nothing of running them: bench.py does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from applyedit.errors import InputError
from applyedit.speculative.registry import K_POLICIES
from applyedit.tools.benchrecord import Method

BASELINES = (
    "greedy",
    "lookup",
    "torch-lookup",
    "llamacpp-lookup",
    "none",
    "nomerge",
    "anchor",
    "torch",
    "llamacpp",
    "llamacpp-greedy",
    "draft",
    "hybrid",
)
DEFAULT_LOOKUP = 10  # transformers' prompt_lookup_num_tokens default in its docs


def _values(spec: str, default: Sequence[int]) -> tuple[str, list[int]]:
    """ "fixed:4,8,16" -> ("fixed", [4, 8, 16]); "fixed" -> ("fixed", default)."""
    head, _, tail = spec.partition(":")
    try:
        values = [int(v) for v in tail.split(",") if v.strip()] if tail else list(default)
    except ValueError:
        raise InputError(f"bad method {spec!r}: the values after ':' must be whole numbers") from None
    if any(v < 0 for v in values):
        raise InputError(f"bad method {spec!r}: K and lookup lengths are 0 or more")
    return head.strip(), values


def parse_methods(
    baselines: Sequence[str],
    k_policies: Sequence[str],
    ks: Sequence[int],
    break_it: Path | None = None,
    draft_model: str | None = None,
    draft_backend: str | None = None,
) -> list[Method]:
    """The methods to run, baselines first.

    baselines: "greedy" (model.generate), "lookup[:K,...]" (its prompt lookup, default K=10),
    "torch-lookup[:K,...]" (the same on a torch engine, from a llama.cpp bench), "llamacpp-lookup[:K,...]"
    (llama-cpp-python's prompt lookup decoding, num_pred_tokens K, on the bench's GGUF), "none"
    (applyedit's loop with no drafts), "nomerge" (adaptive K drafting from the original and the
    snippet only, not from the merged snippet: what the predicted output adds), "torch" and "llamacpp"
    (applyedit's loop, adaptive K, on that backend's engine: both backends in one run; the torch one in
    its default dtype), "llamacpp-greedy" (llama.cpp's own greedy loop, from a torch bench), "draft"
    (adaptive, the draft model `draft_model` alone), "hybrid" (copy drafts while aligned, the draft
    model inside edits), "anchor" (adaptive, the merge's kept lines forced: `--anchor merge`; its output
    is not held to agree); "draft:K,..." and "hybrid:K,..." fix the draft model's draft length at K
    (without: chosen per step for the best expected tokens per second).
    k_policies: "adaptive[:K,...]" (K is the cap) and
    "fixed[:K,...]"; without a list they take `ks`. `break_it` adds adaptive K drafting only from
    that unrelated file: what a useless drafter costs.
    """
    methods = [m for spec in baselines for m in _baseline(spec, draft_model, draft_backend)]
    for spec in k_policies:
        name, values = _values(spec, ks)
        if name not in K_POLICIES:
            raise InputError(f"unknown --k-policy {spec!r}; use adaptive[:K,...] or fixed[:K,...]")
        sign = "≤" if name == "adaptive" else "="
        methods += [Method(f"{name} K{sign}{v}", "loop", k_policy=name, k=v) for v in values]
    if break_it is not None:
        if not break_it.is_file():
            raise InputError(f"--break-it {break_it}: no such file")
        methods.append(Method(f"break-it: drafts from {break_it.name}", "loop", drafts_from=str(break_it)))
    names = [m.name for m in methods]
    if not methods or len(set(names)) != len(names):
        raise InputError("bench needs at least one method, each named once")
    return methods


def _baseline(spec: str, draft_model: str | None, draft_backend: str | None) -> list[Method]:
    """The methods of one `--baseline` (see `parse_methods`)."""
    name, values = _values(spec, [DEFAULT_LOOKUP])
    if name == "greedy":
        return [Method("greedy", "generate")]
    if name == "lookup":
        return [Method(f"lookup K={v}", "generate", lookup=v) for v in values]
    if name == "torch-lookup":  # transformers' prompt lookup on a torch engine, from a llama.cpp bench
        return [Method(f"transformers lookup K={v}", "generate", lookup=v, backend="torch") for v in values]
    if name == "llamacpp-lookup":  # llama-cpp-python's prompt lookup decoding (baselines.py)
        return [Method(f"llama-cpp-python lookup K={v}", "pylookup", lookup=v) for v in values]
    if name == "none":
        return [Method("loop, no drafts", "loop", proposer="none", k_policy="fixed", k=0)]
    if name == "anchor":
        return [Method("adaptive, anchored", "loop", anchor="merge")]
    if name == "nomerge":
        return [Method("adaptive, no merged prediction", "loop", proposer="copy-original")]
    if name in ("torch", "llamacpp"):
        return [Method(f"adaptive on {name}", "loop", backend=name)]
    if name == "llamacpp-greedy":
        return [Method("llama.cpp greedy", "generate", backend="llamacpp")]
    if name in ("draft", "hybrid"):
        label = "draft model only" if name == "draft" else "hybrid"
        fixed = [int(v) for v in values] if ":" in spec else [None]
        return [
            Method(
                label + (f", draft K={v}" if v else ""),
                "loop",
                proposer=name,
                draft_model=draft_model,
                draft_backend=draft_backend,
                draft_k=v,
            )
            for v in fixed
        ]
    raise InputError(f"unknown baseline {spec!r}; choose from {', '.join(BASELINES)}")
