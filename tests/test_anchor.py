"""Anchored decoding (speculative/anchor.py + the loop's constraint) on tiny in-process Qwen2 models: speculative
output equals plain greedy under the same constraint, for every proposer, with exact pass counts; and
which merged lines `stretches` anchors.

The tiny models' tokens are read as text through a synthetic byte mapping (every 4th id a newline,
the others letters), so the real `Anchor` follows their output line by line and re-joins stretches.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence

import pytest

from applyedit import merge
from applyedit.speculative.anchor import Anchor, Stretch, stretches
from applyedit.models.torchmodel import TorchModel
from applyedit.speculative.loop import run
from applyedit.speculative.policy import AdaptiveK, FixedK
from applyedit.speculative.proposers import CopyProposer, NullProposer, Source
from fakes import VOCAB, Contrarian, Oracle, prompt_for, tiny_model

pytestmark = pytest.mark.usefixtures("one_thread")
SEEDS = range(50)
BUDGET = 90


def char(token: int) -> str:
    return "\n" if token % 4 == 0 else string.ascii_lowercase[token % 26]


def token_bytes(token: int) -> bytes:
    return char(token).encode()


_ENCODE = {c: next(t for t in range(VOCAB) if char(t) == c) for c in {*string.ascii_lowercase, "\n"}}


def encode(text: str) -> list[int]:
    return [_ENCODE[c] for c in text]


def text(tokens: Sequence[int]) -> str:
    return "".join(char(t) for t in tokens)


def anchored(seed: int, found: Sequence[Stretch], proposer=None, policy=None, budget: int = BUDGET):
    model = TorchModel(model=tiny_model(seed), eos_ids=frozenset())
    return run(
        model,
        prompt_for(seed),
        proposer or NullProposer(),
        policy or FixedK(0),
        budget,
        constraint=Anchor(token_bytes, encode, found),
    )


def rejoining(seed: int) -> list[Stretch]:
    """A forced first stretch, then one the output re-joins: its first line is the first line the model
    itself writes after the first stretch (found by a constrained run with the first stretch only)."""
    first = Stretch(0, 0, ("abc", "de", "fgh"))
    plain = anchored(seed, [first])
    lines = text(plain.tokens).split("\n")[3:-1]  # the model's own complete lines after the stretch
    line = next((x for x in lines if x), "zz")  # "zz": a seed whose model writes no such line
    return [first, Stretch(10, 10, (line, "qq", "rst"))]


_CACHE: dict[int, tuple[list[Stretch], tuple[int, ...]]] = {}


def constrained_reference(seed: int) -> tuple[list[Stretch], tuple[int, ...]]:
    """Plain greedy decoding under the anchor (no drafts, one model token per pass)."""
    if seed not in _CACHE:
        found = rejoining(seed)
        _CACHE[seed] = found, tuple(anchored(seed, found).tokens)
    return _CACHE[seed]


def noisy(ref: Sequence[int]) -> Source:
    return Source("merged", tuple((t + 3) % VOCAB if i % 7 == 3 else t for i, t in enumerate(ref)))


PROPOSERS = {
    "perfect": lambda ref: Oracle(ref),
    "always-wrong": lambda ref: Contrarian(ref),
    "copy": lambda ref: CopyProposer([noisy(ref), Source("original", tuple(encode("abc\nde\nfgh\nqq\n")))]),
}
POLICIES = {"fixed4": lambda: FixedK(4), "adaptive": lambda: AdaptiveK(k_max=8, k_probe=4, support_min=2)}


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", PROPOSERS)
@pytest.mark.parametrize("seed", SEEDS)
def test_speculative_equals_plain_greedy_under_the_anchor(seed: int, name: str, policy: str) -> None:
    found, ref = constrained_reference(seed)
    result = anchored(seed, found, PROPOSERS[name](ref), POLICIES[policy]())
    assert tuple(result.tokens) == ref
    assert result.stop_reason == "budget"


def test_the_anchor_is_exercised() -> None:
    """The reference runs really force: the first stretch from the start, the second after a re-join
    on most seeds (a seed whose model never writes a complete line after the first stretch cannot)."""
    rejoined = 0
    for seed in SEEDS:
        found, ref = constrained_reference(seed)
        out = text(ref)
        assert out.startswith("abc\nde\nfgh\n")
        second = "\n".join(found[1].lines) + "\n"
        rejoined += found[1].lines[0] != "zz" and ("\n" + second) in out
    assert rejoined >= 40


@pytest.mark.parametrize("seed", range(10))
def test_plain_greedy_pass_count_under_the_anchor(seed: int) -> None:
    """Forced tokens ride in the next pass: plain greedy needs one pass per token the model decides."""
    found, ref = constrained_reference(seed)
    result = anchored(seed, found)
    forced = sum(s.forced for s in result.steps)
    assert forced >= len(encode("abc\nde\nfgh\n"))
    assert len(result.steps) == len(ref) - forced
    assert all(len(s.emitted) == s.forced + 1 for s in result.steps)


@pytest.mark.parametrize("k", [1, 3, 7])
@pytest.mark.parametrize("seed", range(5))
def test_perfect_draft_after_a_forced_start(seed: int, k: int) -> None:
    """One forced stretch at the start, then a perfect draft: ceil((N - forced) / (k + 1)) passes,
    the first of them also feeding the forced tokens."""
    found = [Stretch(0, 0, ("abc", "de", "fgh"))]
    ref = tuple(anchored(seed, found).tokens)
    result = anchored(seed, found, Oracle(ref), FixedK(k))
    forced = len(encode("abc\nde\nfgh\n"))
    assert tuple(result.tokens) == ref
    assert len(result.steps) == math.ceil((BUDGET - forced) / (k + 1))
    assert result.steps[0].forced == forced and all(s.forced == 0 for s in result.steps[1:])


@pytest.mark.parametrize("seed", range(5))
def test_always_wrong_draft_is_one_model_token_a_pass(seed: int) -> None:
    found, ref = constrained_reference(seed)
    result = anchored(seed, found, Contrarian(ref), FixedK(5))
    assert tuple(result.tokens) == ref
    assert len(result.steps) == len(ref) - sum(s.forced for s in result.steps)


@pytest.mark.parametrize("seed", range(3))
def test_a_long_forced_run_goes_in_a_pass_of_its_own(seed: int) -> None:
    """A forced stretch longer than one backend batch is fed in an extra forward call; still exact."""
    long = Stretch(0, 0, tuple("ab" * 20 for _ in range(10)))  # 410 tokens
    ref = tuple(anchored(seed, [long], budget=440).tokens)
    assert text(ref).startswith("\n".join(long.lines))
    result = anchored(seed, [long], Oracle(ref), FixedK(4), budget=440)
    assert tuple(result.tokens) == ref
    assert len(result.steps) == math.ceil((440 - 410) / 5)


@pytest.mark.parametrize("seed", range(3))
def test_a_forced_run_past_the_budget_is_cut_there(seed: int) -> None:
    long = Stretch(0, 0, ("abcdefgh",) * 5)
    result = anchored(seed, [long], Oracle([]), FixedK(4), budget=20)
    assert text(result.tokens) == ("abcdefgh\n" * 5)[:20] and result.stop_reason == "budget"


# --- which lines are anchored --------------------------------------------------------------------------

ORIGINAL = "".join(f"line_{i} = {i}\n" for i in range(30))


def test_stretches_leave_the_hunks_and_their_margins_to_the_model() -> None:
    snippet = "# ... existing code ...\nline_9 = 9\nline_10 = 100\nline_11 = 11\n# ... existing code ...\n"
    result = merge.merge(ORIGINAL, snippet)
    assert result.ok
    found = stretches(ORIGINAL, result, "```")
    assert [(s.start, len(s.lines), s.fence) for s in found] == [(0, 8, False), (12, 19, True)]
    assert found[0].lines[-1] == "line_7 = 7" and found[1].lines[0] == "line_12 = 12"
    assert found[1].lines[-1] == "```"


def test_a_stretch_starts_at_a_line_the_model_can_be_seen_to_rejoin() -> None:
    """Blank lines, bare braces and lines the hunk's zone also holds are left to the model."""
    original = "a = 1\nb = 2\nc = 3\nd = 4\nx = 0\n\n}\nx = 0\nmore = 1\nother = 2\nlast = 3\n"
    snippet = "# ... existing code ...\nc = 3\nd = 40\nx = 0\n# ... existing code ...\n"
    result = merge.merge(original, snippet)
    assert result.ok
    found = stretches(original, result, "```")
    assert found[-1].lines[0] == "more = 1"


def test_a_stretch_never_ends_right_before_a_blank_line() -> None:
    """The line end before a blank line is the model's to write ("x = 3\n\n" may be one token)."""
    original = "".join(f"v{i} = {i}\n" + ("\n" if i % 3 == 2 else "") for i in range(20))
    snippet = "# ... existing code ...\nv12 = 12\nv13 = 130\n# ... existing code ...\n"
    result = merge.merge(original, snippet)
    assert result.ok and result.hunks[0].orig_start == 17
    found = stretches(original, result, "```")
    # The model decides from line 15 (blank) on: the stretch would end with v11, before that blank line.
    assert found[0].lines == tuple(original.split("\n")[:14]) and found[0].lines[-1] == "v10 = 10"


def test_no_anchor_for_an_ambiguous_or_whole_file_merge() -> None:
    assert stretches(ORIGINAL, merge.MergeResult(False, "ambiguous"), "```") == []
    same = merge.merge(ORIGINAL, "# ... existing code ...\nline_3 = 3\n# ... existing code ...\n")
    assert stretches(ORIGINAL, same, "```") == []  # no hunk: nothing for the model to decide
