"""The drafting a run picks by name: proposers (`--proposer`) and K policies (`--k-policy`).

Owns the two tables, name -> what builds it for one run. `RunOptions.check`, the CLI's choices and
`api.plan_drafting` read them, so adding a proposer or a K policy is its own module plus one line
here. The builders import what they build when called: `--help` reads the names only. The backends
have their own table (models/base.py). Knows nothing of how a proposer drafts or a policy picks K.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from applyedit.api import Job
    from applyedit.merge import MergeResult
    from applyedit.models.engine import Engine
    from applyedit.models.modelstore import Progress
    from applyedit.options import RunOptions
    from applyedit.spec.policy import KPolicy
    from applyedit.spec.proposers import Proposer
    from applyedit.spec.sampling import Sampling


@dataclass(frozen=True)
class DraftPlan:
    """What a proposer is built from: the run's job (prompt, file, edit), the snippet's merge, the
    options, the K policy already built, the sampling settings, and the progress of a model load."""

    job: Job
    merged: MergeResult | None
    opts: RunOptions
    policy: KPolicy
    decoding: Sampling
    progress: Progress | None = None


@dataclass(frozen=True)
class ProposerEntry:
    build: Callable[[DraftPlan], Proposer]
    drafts: bool = True  # False: it never drafts, and K is 0 whatever the policy (plain greedy)
    draft_model: bool = False  # it drafts with --draft-model: the summary names that model


def _copy(plan: DraftPlan) -> Proposer:
    from applyedit.api import make_proposer

    job = plan.job
    return make_proposer(plan.opts.proposer, job.engine, job.src.text, job.fence, job.edit, job.kind, plan.merged)


def _none(plan: DraftPlan) -> Proposer:
    from applyedit.spec.proposers import NullProposer

    return NullProposer()


def _draft(plan: DraftPlan) -> Proposer:
    from applyedit.api import draft_model_proposer

    return draft_model_proposer(plan)


def _hybrid(plan: DraftPlan) -> Proposer:
    from applyedit.api import draft_model_proposer
    from applyedit.spec.draftmodel import HybridProposer
    from applyedit.spec.proposers import CopyProposer

    copy = _copy(plan)
    assert isinstance(copy, CopyProposer)
    return HybridProposer(copy, draft_model_proposer(plan), plan.policy.alignment)


def _adaptive(engine: Engine, opts: RunOptions) -> KPolicy:
    from applyedit.spec.policy import AdaptiveK

    return AdaptiveK(cost=engine.cost_curve(), k_max=opts.k)


def _fixed(engine: Engine, opts: RunOptions) -> KPolicy:
    from applyedit.spec.policy import FixedK

    return FixedK(opts.k)


# --proposer, in the order --help lists them
PROPOSERS: dict[str, ProposerEntry] = {
    "copy": ProposerEntry(_copy),  # copy drafts from the predicted output, the original and the edit
    "copy-original": ProposerEntry(_copy),  # ... from the original and the edit only
    "none": ProposerEntry(_none, drafts=False),  # plain greedy
    "draft": ProposerEntry(_draft, draft_model=True),  # a small draft model drafts
    "hybrid": ProposerEntry(_hybrid, draft_model=True),  # copy drafts while aligned, the draft model inside edits
}
# --k-policy: the K policy of a run, from the engine (its cost curve) and the options
K_POLICIES: dict[str, Callable[[Engine, RunOptions], KPolicy]] = {
    "adaptive": _adaptive,  # region-aware, K from the cost model (policy.AdaptiveK)
    "fixed": _fixed,  # always --k
}
