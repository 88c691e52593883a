"""Copy proposer kernels on small integer tables (vLLM style: one comment per scenario)."""

from __future__ import annotations

import pytest

from applyedit.speculative.proposers import COPY, CopyProposer, Draft, NullProposer, Source, build_index, common_prefix, nearest


def test_build_index_maps_ngrams_to_continuations() -> None:
    """Each n-gram maps to the positions right after its occurrences."""
    index = build_index([5, 6, 5, 6, 7], sizes=(2, 1))
    assert index[(5, 6)] == [2, 4]
    assert index[(6, 5)] == [3]
    assert index[(6,)] == [2, 4]
    assert (7, 5) not in index


@pytest.mark.parametrize(
    "positions, anchor, expected",
    [
        ([2, 10, 20], 5, 10),  # the first match at or after the old pointer
        ([2, 10, 20], 10, 10),  # exactly at the pointer
        ([2, 10, 20], 25, 20),  # none after: the nearest before (not 2)
        ([], 3, None),  # nothing to resync to
    ],
)
def test_nearest(positions: list[int], anchor: int, expected: int | None) -> None:
    """Resync prefers the match nearest after the old pointer, then the nearest before."""
    assert nearest(positions, anchor) == expected


SRC = (10, 11, 12, 13, 14, 15, 16, 17, 18, 19)


@pytest.mark.parametrize(
    "output, k, draft",
    [
        ([], 4, [10, 11, 12, 13]),  # empty output: copy from the start of the original
        ([10, 11], 3, [12, 13, 14]),  # the pointer follows the output
        ([10, 11, 12, 13, 14, 15, 16, 17, 18], 5, [19]),  # never past the end of the source
        ([10, 11, 99, 13], 3, [14, 15, 16]),  # edited token: resync on the suffix (13) -> continue
        ([10, 11, 99, 98], 3, []),  # no suffix of the output occurs: no draft
        ([10, 11, 12], 0, []),  # k = 0 asks for nothing
    ],
)
def test_copy_proposer_single_source(output: list[int], k: int, draft: list[int]) -> None:
    """Drafts continue the source after the part of it the output has reproduced."""
    proposer = CopyProposer([Source("original", SRC)])
    assert proposer.propose(output, k).ids == tuple(draft)


def test_resync_prefers_longest_suffix() -> None:
    """(1,2,3) occurs once followed by 9; (3,) alone occurs earlier followed by 4: pick 9 (not 4)."""
    src = (3, 4, 0, 1, 2, 3, 9, 8)
    proposer = CopyProposer([Source("original", src)])
    assert proposer.propose([7, 1, 2, 3], 2).ids == tuple([9, 8])


def test_resync_prefers_match_after_old_pointer() -> None:
    """Two occurrences of the suffix: the one after the pointer wins over the earlier one."""
    src = (5, 1, 2, 6, 7, 8, 1, 2, 9)
    proposer = CopyProposer([Source("original", src)])
    assert proposer.propose([5, 1, 2, 6, 7, 8], 1).ids == tuple([1])  # pointer at index 6
    assert proposer.propose([5, 1, 2, 6, 7, 8, 4, 1, 2], 1).ids == tuple([9])  # not 6


def test_edit_source_is_used_when_the_original_has_no_match() -> None:
    """New code in the edit is drafted once the output starts reproducing it."""
    proposer = CopyProposer([Source("original", SRC), Source("edit", (50, 51, 52, 53))])
    assert proposer.propose([10, 11, 50, 51], 2).ids == tuple([52, 53])


def test_blocked_tokens_are_never_drafted() -> None:
    """Lazy-marker tokens in the edit stop a draft and are never resync targets."""
    edit = Source("edit", (50, 51, 60, 61, 52), blocked=(False, False, True, True, False))
    proposer = CopyProposer([Source("original", SRC), edit])
    assert proposer.propose([50], 4).ids == tuple([51])  # stops before the marker (not [51, 60, 61, 52])
    proposer = CopyProposer([Source("original", SRC), edit])
    assert proposer.propose([99, 51], 3).ids == tuple([])  # continuation position 2 is blocked


def test_null_proposer_never_drafts() -> None:
    """--proposer none: plain greedy through the same loop."""
    assert NullProposer().propose([1, 2, 3], 8).ids == tuple([])


def test_common_prefix() -> None:
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2  # stops at the first difference
    assert common_prefix([1, 2], [1, 2, 3]) == 2  # the shorter one, whole
    assert common_prefix([], [1]) == 0
    assert common_prefix([5, 1], [1, 5]) == 0  # not 1: order matters


def test_the_copy_draft_carries_its_support() -> None:
    """A copy draft says how many output tokens agree with its source right before it: the pointer's
    run while it follows, the matched suffix after a resync; the K policy reads it from the draft."""
    proposer = CopyProposer([Source("original", SRC)])
    assert proposer.propose([10, 11, 12], 2) == Draft((13, 14), support=3, drafter=COPY)
    assert proposer.propose([10, 11, 12, 13, 99, 15], 2) == Draft((16, 17), support=1)  # resynced on (15,)


def test_a_draft_has_one_distribution_per_token() -> None:
    import torch

    assert Draft((1, 2), probs=torch.full((2, 4), 0.25)).probs is not None
    with pytest.raises(AssertionError):
        Draft((1, 2), probs=torch.full((3, 4), 0.25))
