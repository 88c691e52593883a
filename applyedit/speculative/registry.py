"""The drafting a run picks by name: proposers (`--proposer`) and K policies (`--k-policy`).

Owns the two tables, name -> what builds it for one run, and the builders: the copy proposer's
sources (`make_proposer`), the draft model's drafter (`draft_model_proposer`), the K policies (each
told its cap, the run's `k`). `RunOptions.check`, the CLI's choices and `api.plan_drafting` read the
tables, so adding a proposer or a K policy is its own module plus one line here. A caller's prediction
of the output (`DraftPlan.prediction`: the server's requests send one as OpenAI's `prediction`) is one
more copy source. The builders import what they build when called: `--help` reads the names only.
It composes the engine, the options and the job, so it stands on the run's layer (tests/test_layout.py),
above the loop, proposers and policies of speculative/ that it builds. The backends have their own
table (models/base.py). Knows nothing of how a proposer drafts or a policy picks K.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from applyedit.merge import MergeResult
    from applyedit.models.engine import Engine
    from applyedit.models.modelstore import Progress
    from applyedit.result import Job
    from applyedit.speculative.draftmodel import DraftModelProposer
    from applyedit.speculative.policy import KPolicy
    from applyedit.speculative.proposers import Proposer, Source
    from applyedit.speculative.sampling import Sampling

DRAFT_K_MAX = 8  # the longest draft a draft model makes (its length is chosen by policy.draft_k up to this)
# A predicted output of the runs started in this context (None: none): the copy proposers draft from it
# too, after the merged snippet and before the original. Drafts are verified: it never changes an output.


class Choices(Protocol):
    """The run's settings the registry reads (`options.RunOptions` has them): its own contract, so the
    options, which list the registry's names, and the registry import neither the other."""

    @property
    def proposer(self) -> str: ...
    @property
    def k(self) -> int: ...
    @property
    def k_policy(self) -> str: ...
    @property
    def draft_k(self) -> int | None: ...
    @property
    def draft_model(self) -> str | None: ...
    @property
    def draft_backend(self) -> str | None: ...


@dataclass(frozen=True)
class DraftPlan:
    """What a proposer is built from: the run's job (prompt, file, edit), the snippet's merge, the
    options, the K policy already built, the sampling settings, and the progress of a model load."""

    job: Job
    merged: MergeResult | None
    opts: Choices
    policy: KPolicy
    decoding: Sampling
    progress: Progress | None = None
    prediction: str | None = None  # a caller's prediction of the output (the server's `prediction`)


@dataclass(frozen=True)
class ProposerEntry:
    build: Callable[[DraftPlan], Proposer]
    drafts: bool = True  # False: it never drafts, and K is 0 whatever the policy (plain greedy)
    draft_model: bool = False  # it drafts with --draft-model: the summary names that model


def _copy(plan: DraftPlan) -> Proposer:
    job = plan.job
    return make_proposer(
        plan.opts.proposer, job.engine, job.src.text, job.fence, job.edit, job.kind, plan.merged, plan.prediction
    )


def _none(plan: DraftPlan) -> Proposer:
    from applyedit.speculative.proposers import NullProposer

    return NullProposer()


def _draft(plan: DraftPlan) -> Proposer:
    return draft_model_proposer(plan)


def _hybrid(plan: DraftPlan) -> Proposer:
    from applyedit.speculative.draftmodel import HybridProposer
    from applyedit.speculative.proposers import CopyProposer

    copy = _copy(plan)
    assert isinstance(copy, CopyProposer)
    return HybridProposer(copy, draft_model_proposer(plan), plan.policy.alignment)


def _adaptive(engine: Engine, opts: Choices) -> KPolicy:
    from applyedit.speculative.policy import AdaptiveK

    return AdaptiveK(cost=engine.cost_curve(), k_max=opts.k)


def _fixed(engine: Engine, opts: Choices) -> KPolicy:
    from applyedit.speculative.policy import FixedK

    return FixedK(opts.k)


def make_proposer(
    name: str,
    engine: Engine,
    body: str,
    fence: str,
    edit: str,
    kind: str,
    merged: MergeResult | None = None,
    predicted: str | None = None,
) -> Proposer:
    """Copy sources, in order of preference: the predicted output, a caller's prediction (`predicted`),
    the original, the edit ("copy-original": the last two only, to measure what the prediction adds). "hybrid" gets the
    same copy sources as "copy" (its draft model is added by its builder, `_hybrid`); "draft" has none.

    The output is the file body followed by the closing fence, so each source text ends the same
    way. For an update snippet that merges unambiguously, the merged file predicts the whole
    output, edits included; otherwise drafts come from the original and the edit's own lines.
    """
    from applyedit import merge
    from applyedit.speculative.proposers import CopyProposer, NullProposer, Source

    if name in ("none", "draft"):
        return NullProposer()
    sources = []
    if kind == "snippet" and name in ("copy", "hybrid"):  # copy-original: without the predicted output
        merged = merged or merge.merge(body, edit)  # an unconfirmed reading still drafts: drafts are verified
        if merged.merged is not None and merged.merged != body:
            sources.append(Source("merged", tuple(engine.encode(merged.merged + fence + "\n"))))
    if predicted and name in ("copy", "hybrid"):  # a caller's prediction of the file, then the closing fence
        ending = "" if predicted.endswith("\n") else "\n"
        sources.append(Source("prediction", tuple(engine.encode(predicted + ending + fence + "\n"))))
    sources.append(Source("original", tuple(engine.encode(body + fence + "\n"))))
    sources.append(edit_source(engine, edit))
    return CopyProposer(sources)


def edit_source(engine: Engine, edit: str) -> Source:
    """The edit's tokens, with every token on a lazy-marker line blocked from drafting."""
    from applyedit import markers
    from applyedit.speculative.proposers import Source

    enc = engine.tokenizer(edit, add_special_tokens=False, return_offsets_mapping=True, split_special_tokens=True)
    ids, offsets = enc["input_ids"], enc["offset_mapping"]
    marker_spans, pos = [], 0
    for line in edit.split("\n"):
        if markers.is_marker(line):
            marker_spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    blocked = tuple(any(s < e2 and s2 < e for s2, e2 in marker_spans) for s, e in offsets)
    return Source("edit", tuple(ids), blocked)


def draft_model_proposer(plan: DraftPlan) -> DraftModelProposer:
    """The drafter of `--draft-model` on `--draft-backend` (proposers "draft" and "hybrid"; it loads here)."""
    from applyedit.speculative.draftmodel import DraftModelProposer

    engine, opts = plan.job.engine, plan.opts
    small = engine.draft_model(opts.draft_model, opts.draft_backend, plan.progress)
    # Adaptive: the draft length maximises tokens/s on the target's and the draft's cost curves;
    # --draft-k or the fixed policy: always that many.
    chosen = opts.k_policy != "fixed" and opts.draft_k is None
    return DraftModelProposer(
        small,
        tuple(plan.job.prompt_ids),
        k_max=min(opts.k, DRAFT_K_MAX) if chosen else (opts.draft_k or opts.k),
        cost=engine.cost_curve() if chosen else None,
        sampling=plan.decoding,
        vocab=engine.vocab_size,
        token_s=engine.draft_cost(opts.draft_model, opts.draft_backend)(0) if chosen else 0.0,
    )


# --proposer, in the order --help lists them
PROPOSERS: dict[str, ProposerEntry] = {
    "copy": ProposerEntry(_copy),  # copy drafts from the predicted output, the original and the edit
    "copy-original": ProposerEntry(_copy),  # ... from the original and the edit only
    "none": ProposerEntry(_none, drafts=False),  # plain greedy
    "draft": ProposerEntry(_draft, draft_model=True),  # a small draft model drafts
    "hybrid": ProposerEntry(_hybrid, draft_model=True),  # copy drafts while aligned, the draft model inside edits
}
# --k-policy: the K policy of a run, from the engine (its cost curve) and the options
K_POLICIES: dict[str, Callable[[Engine, Choices], KPolicy]] = {
    "adaptive": _adaptive,  # region-aware, K from the cost model (policy.AdaptiveK)
    "fixed": _fixed,  # always --k
}
