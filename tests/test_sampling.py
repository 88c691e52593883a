"""Exact speculative sampling: the output is distributed as sampling from the
target alone, whatever the drafts.

Three layers. (1) `sampling.accept` on hand-built Markov chains over 6 tokens, with copied
(point-mass) drafts and drafts sampled from a second chain q, against the exact joint distribution
of the first three tokens; the same check rejects deliberately broken rules. (2) The real decode loop
on a tiny random Qwen2 (vocab 32): the first three sampled tokens against their exact distribution
(computed from the model's logits) and against transformers' own sampling (a two-sample test).
(3) The settings: seeds reproduce runs, greedy stays the default, bad values are one-line errors.
Every test draws from fixed seeds, so each verdict is reproducible.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

from applyedit import api
from applyedit.speculative import sampling
from applyedit.models.torchmodel import TorchModel
from applyedit.speculative.loop import run
from applyedit.speculative.draftmodel import DraftModelProposer, HybridProposer
from applyedit.errors import InputError
from applyedit.speculative.policy import AdaptiveK, Alignment, FixedK
from applyedit.speculative.proposers import MODEL, CopyProposer, Draft, NullProposer, Source
from applyedit.speculative.sampling import Sampling, accept, warp
from fakes import Contrarian, Oracle  # point masses on (next to) the greedy continuation: often kept (mostly not)

Joint = dict[tuple[int, ...], float]
Rule = Callable[[torch.Tensor, Sequence[int], "torch.Tensor | None", torch.Generator], "tuple[int, int]"]

PASS_P = 1e-3  # a correct rule's samples must fit at least this well (fixed seeds: no flakiness)
FAIL_P = 1e-8  # a broken rule's samples must fit worse than this


pytestmark = pytest.mark.usefixtures("one_thread")


# ---- the two checks: chi-square goodness of fit and two-sample homogeneity ---------------------------


def chi2_sf(stat: float, df: int) -> float:
    """P(X >= stat) for X ~ chi-square(df): the regularised upper incomplete gamma function."""
    if df <= 0:
        return 1.0
    return float(
        torch.special.gammaincc(torch.tensor(df / 2, dtype=torch.float64), torch.tensor(stat / 2, dtype=torch.float64))
    )


def fit_p(counts: Counter[tuple[int, ...]], exact: Joint) -> float:
    """p-value of `counts` under the `exact` distribution (chi-square goodness of fit). Cells expected
    fewer than 5 times are pooled into one; an outcome the distribution gives no mass fails outright."""
    n = sum(counts.values())
    observed, expected, rest_o, rest_e = [], [], 0.0, 0.0
    for cell, prob in exact.items():
        if n * prob >= 5:
            observed.append(counts[cell])
            expected.append(n * prob)
        else:
            rest_o, rest_e = rest_o + counts[cell], rest_e + n * prob
    rest_o += sum(c for cell, c in counts.items() if cell not in exact)
    if rest_e > 0:
        observed.append(rest_o)
        expected.append(rest_e)
    elif rest_o > 0:
        return 0.0
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected))
    return chi2_sf(stat, len(expected) - 1)


def two_sample_p(a: Counter[tuple[int, ...]], b: Counter[tuple[int, ...]]) -> float:
    """p-value that two samples come from one distribution (chi-square on the 2 x cells table; cells
    seen fewer than 10 times in both together are pooled)."""
    na, nb = sum(a.values()), sum(b.values())
    rows, rest = [], [0, 0]
    for cell in set(a) | set(b):
        if a[cell] + b[cell] >= 10:
            rows.append((a[cell], b[cell]))
        else:
            rest[0], rest[1] = rest[0] + a[cell], rest[1] + b[cell]
    if sum(rest):
        rows.append((rest[0], rest[1]))
    stat = 0.0
    for oa, ob in rows:
        ea, eb = (oa + ob) * na / (na + nb), (oa + ob) * nb / (na + nb)
        stat += (oa - ea) ** 2 / ea + (ob - eb) ** 2 / eb
    return chi2_sf(stat, len(rows) - 1)


def marginal(counts: Counter[tuple[int, ...]], length: int) -> Counter[tuple[int, ...]]:
    out: Counter[tuple[int, ...]] = Counter()
    for cell, c in counts.items():
        out[cell[:length]] += c
    return out


def marginal_exact(exact: Joint, length: int) -> Joint:
    out: Joint = {}
    for cell, prob in exact.items():
        out[cell[:length]] = out.get(cell[:length], 0.0) + prob
    return out


def total_variation(counts: Counter[tuple[int, ...]], exact: Joint) -> float:
    n = sum(counts.values())
    cells = set(counts) | set(exact)
    return 0.5 * sum(abs(counts[c] / n - exact.get(c, 0.0)) for c in cells)


# ---- (1) the rule on hand-built distributions --------------------------------------------------------

V = 6
LENGTH = 3  # tokens per sample: the first token and two later ones


def _chain(seed: int, zeros: int) -> list[torch.Tensor]:
    """A 3-step Markov chain over V tokens: step 0 a (V,) distribution, steps 1-2 (V, V) transition
    rows (indexed by the previous token). `zeros` entries per row get no mass, so drafts meet p(x) = 0."""
    g = torch.Generator().manual_seed(seed)
    steps = []
    for shape in ((1, V), (V, V), (V, V)):
        probs = torch.softmax(torch.randn(shape, generator=g) * 1.3, dim=-1, dtype=torch.float64)
        for row in probs:
            row[torch.randperm(V, generator=g)[:zeros]] = 0.0
        steps.append((probs / probs.sum(-1, keepdim=True)).float())
    steps[0] = steps[0][0]
    return steps


TARGET = _chain(1, zeros=1)  # p
DRAFTER = _chain(2, zeros=0)  # q: overlaps p but differs from it everywhere
GUESS = [3, 0, 5, 1, 2, 4]  # the copied draft after each token (some have p = 0 there)
FIRST_GUESS = 2


def row(chain: list[torch.Tensor], prefix: Sequence[int]) -> torch.Tensor:
    """The chain's next-token distribution (V,) after `prefix`."""
    return chain[0] if not prefix else chain[len(prefix)][prefix[-1]]


def exact_chain() -> Joint:
    """The exact joint distribution of the first three tokens under TARGET."""
    return {
        (a, b, c): prob
        for a in range(V)
        for b in range(V)
        for c in range(V)
        if (prob := float(TARGET[0][a] * TARGET[1][a, b] * TARGET[2][b, c])) > 0
    }


Drafter = Callable[[list[int], int, torch.Generator], "tuple[list[int], torch.Tensor | None]"]


def copied(out: list[int], room: int, g: torch.Generator) -> tuple[list[int], torch.Tensor | None]:
    """Point-mass drafts, as the copy proposer gives: a fixed guess per previous token."""
    draft: list[int] = []
    for _ in range(room):
        prefix = [*out, *draft]
        draft.append(GUESS[prefix[-1]] if prefix else FIRST_GUESS)
    return draft, None


def sampled(out: list[int], room: int, g: torch.Generator) -> tuple[list[int], torch.Tensor | None]:
    """Drafts drawn from the q chain, with the rows they were drawn from, as a draft model gives."""
    draft, rows = [], []
    for _ in range(room):
        q = row(DRAFTER, [*out, *draft])
        rows.append(q)
        draft.append(int(torch.multinomial(q, 1, generator=g)))
    return draft, torch.stack(rows) if rows else torch.zeros(0, V)


DRAFTERS: dict[str, Drafter] = {"copied": copied, "sampled": sampled}
CHAIN_SAMPLES = 6_000


def simulate(rule: Rule, drafter: Drafter, n: int = CHAIN_SAMPLES, seed: int = 0) -> Counter[tuple[int, ...]]:
    """The decode loop in miniature over TARGET: draft, verify with `rule`, emit, until LENGTH tokens."""
    g = torch.Generator().manual_seed(seed)
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(n):
        out: list[int] = []
        while len(out) < LENGTH:
            draft, q = drafter(out, LENGTH - len(out) - 1, g)  # the bonus takes the last slot
            p = torch.stack([row(TARGET, [*out, *draft[:i]]) for i in range(len(draft) + 1)])
            num_accepted, token = rule(p, draft, q, g)
            out += [*draft[:num_accepted], token]
        counts[tuple(out)] += 1
    return counts


def rule_with(flaw: str) -> Rule:
    """The rule written out plainly, with one deliberate flaw (to show the checks can fail)."""

    def rule(p: torch.Tensor, draft: Sequence[int], q: torch.Tensor | None, g: torch.Generator) -> tuple[int, int]:
        for i, x in enumerate(draft):
            q_i = torch.nn.functional.one_hot(torch.tensor(x), p.shape[-1]).float() if q is None else q[i]
            keep = min(1.0, float(p[i, x] / q_i[x]))
            if flaw == "keep every copied token" and q is None:
                keep = 1.0
            if flaw == "accept with p(x), ignoring q":
                keep = float(p[i, x])
            if float(torch.rand((), generator=g)) < keep:
                continue
            residual = (p[i] - q_i).clamp(min=0.0)
            if flaw in ("resample from p, x not removed", "resample from p, no residual"):
                residual = p[i]
            return i, int(torch.multinomial(residual, 1, generator=g))
        return len(draft), int(torch.multinomial(p[len(draft)], 1, generator=g))

    return rule


@pytest.mark.parametrize("drafter", DRAFTERS)
def test_rule_matches_the_target_on_a_chain(drafter: str) -> None:
    """Copied and sampled drafts: the first token and the first three tokens jointly follow p exactly."""
    exact = exact_chain()
    counts = simulate(accept, DRAFTERS[drafter])
    first = marginal(counts, 1)
    assert fit_p(first, marginal_exact(exact, 1)) > PASS_P
    assert total_variation(first, marginal_exact(exact, 1)) < 0.025  # sampling noise alone: about 0.01
    assert fit_p(counts, exact) > PASS_P


@pytest.mark.parametrize(
    ("drafter", "flaw"),
    [
        ("copied", "keep every copied token"),
        ("copied", "resample from p, x not removed"),
        ("sampled", "resample from p, no residual"),
        ("sampled", "accept with p(x), ignoring q"),
    ],
)
def test_the_check_rejects_a_broken_rule(drafter: str, flaw: str) -> None:
    """The same check, fed by a rule with one deliberate flaw, fails by a wide margin."""
    counts = simulate(rule_with(flaw), DRAFTERS[drafter], n=2_500)
    assert fit_p(counts, exact_chain()) < FAIL_P


def test_accept_follows_the_rule_on_a_worked_example() -> None:
    """p = [0.5, 0.3, 0.2]: a copied 0 is kept half the time; on rejection the token is 1 or 2 (3:2),
    never 0; with q = [0.25, 0.25, 0.5] a drafted 2 is kept 40 % of the time and replaced by 0 or 1."""
    p = torch.tensor([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])
    g = torch.Generator().manual_seed(0)
    n = 6_000
    copies = Counter(accept(p, [0], None, g) for _ in range(n))
    assert set(copies) <= {(1, 0), (1, 1), (1, 2), (0, 1), (0, 2)}  # a kept draft is followed by the bonus
    assert sum(c for (kept, _), c in copies.items() if kept) / n == pytest.approx(0.5, abs=0.025)
    assert copies[0, 1] / (copies[0, 1] + copies[0, 2]) == pytest.approx(0.6, abs=0.035)
    q = torch.tensor([[0.25, 0.25, 0.5]])
    drafts = Counter(accept(p, [2], q, g) for _ in range(n))
    assert sum(c for (kept, _), c in drafts.items() if kept) / n == pytest.approx(0.4, abs=0.025)
    # residual max(0, p - q) = [0.25, 0.05, 0]: 0 five times as often as 1, 2 never
    assert drafts[0, 2] == 0 and drafts[0, 0] / drafts[0, 1] == pytest.approx(5.0, rel=0.25)


@pytest.mark.parametrize(
    ("top_p", "expected"),
    [
        (1.0, [0.5, 0.3, 0.15, 0.05]),
        (0.8, [0.625, 0.375, 0.0, 0.0]),  # 0.5 + 0.3 reaches 0.8: the nucleus stops there
        (0.81, [0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95, 0.0]),
        (0.1, [1.0, 0.0, 0.0, 0.0]),  # always at least the top token
    ],
)
def test_warp_keeps_the_nucleus(top_p: float, expected: list[float]) -> None:
    """Top-p keeps the most probable tokens until their mass reaches top_p, then renormalises."""
    logits = torch.tensor([0.5, 0.3, 0.15, 0.05]).log()
    assert warp(logits, 1.0, top_p).tolist() == pytest.approx(expected, abs=1e-6)


def test_warp_matches_transformers() -> None:
    """Temperature then top-p, as transformers' own warpers do it (the reference for plain sampling)."""
    from transformers.generation.logits_process import TemperatureLogitsWarper, TopPLogitsWarper

    logits = torch.randn(16, 50, generator=torch.Generator().manual_seed(3)) * 3
    for temperature, top_p in ((1.0, 1.0), (0.7, 0.9), (1.5, 0.5)):
        scores = TemperatureLogitsWarper(temperature)(None, logits.clone())
        scores = TopPLogitsWarper(top_p)(None, scores)
        assert torch.allclose(warp(logits, temperature, top_p), torch.softmax(scores, dim=-1), atol=1e-6)


@pytest.mark.parametrize("temperature", [1e-30, 1e-38, 1e-45, 1e-300, 5e-324])
def test_warp_at_a_tiny_temperature_is_greedys_point_mass(temperature: float) -> None:
    """However small a positive temperature, the warp is a distribution (finite, summing to 1), and one
    this cold is all on the top token: softmax(logits / T) tends to greedy's point mass as T goes to 0."""
    logits = torch.randn(6, 50, generator=torch.Generator().manual_seed(5)) * 30
    for top_p in (1.0, 0.9):
        probs = warp(logits, temperature, top_p)
        assert bool(torch.isfinite(probs).all()), (temperature, top_p)
        assert torch.equal(probs, torch.nn.functional.one_hot(logits.argmax(dim=-1), 50).float())


# ---- (2) the decode loop on a tiny model ---------------------------------------------------------------

VOCAB = 32
PROMPT = [5, 9, 2, 17, 30, 4, 11, 23, 8, 14, 27, 3, 19, 6, 25, 12]
MODEL_SAMPLES = 1_000
SETTINGS = {"t1": Sampling(1.0, 1.0), "t0.7-p0.9": Sampling(0.7, 0.9)}


@lru_cache(maxsize=None)
def peaked_model() -> Qwen2ForCausalLM:
    """A one-layer model over VOCAB tokens with peaked, not one-hot, next-token distributions."""
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=64,
        bos_token_id=None,
        eos_token_id=None,
        pad_token_id=None,
        tie_word_embeddings=False,
    )
    model = Qwen2ForCausalLM(config).eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(20.0)  # peaked but not one-hot: first tokens near 0.4, 0.2, 0.1, ...
    return model


def model_rows(prefixes: list[list[int]], setting: Sampling) -> torch.Tensor:
    """The warped next-token distribution after PROMPT + each prefix, `(len(prefixes), VOCAB)`."""
    ids = torch.tensor([[*PROMPT, *prefix] for prefix in prefixes])
    with torch.inference_mode():
        logits = peaked_model()(input_ids=ids).logits[:, -1]
    return warp(logits, setting.temperature, setting.top_p)


@lru_cache(maxsize=None)
def exact_model(name: str) -> Joint:
    """The exact joint distribution of the model's first three sampled tokens (one batched forward
    per position over every prefix)."""
    setting = SETTINGS[name]
    p1 = model_rows([[]], setting)[0]
    p2 = model_rows([[a] for a in range(VOCAB)], setting)
    p3 = model_rows([[a, b] for a in range(VOCAB) for b in range(VOCAB)], setting).view(VOCAB, VOCAB, VOCAB)
    joint = p1[:, None, None] * p2[:, :, None] * p3
    return {cell: float(joint[cell]) for cell in map(tuple, joint.nonzero().tolist())}


@lru_cache(maxsize=None)
def greedy_reference(length: int = LENGTH) -> tuple[int, ...]:
    ids = torch.tensor([PROMPT])
    out = peaked_model().generate(
        ids, attention_mask=torch.ones_like(ids), do_sample=False, max_new_tokens=length, pad_token_id=0
    )
    return tuple(out[0, len(PROMPT) :].tolist())


class Unigram:
    """A draft model in miniature: samples every draft token from one fixed q and says so in the draft."""

    def __init__(self, seed: int) -> None:
        self.q = torch.softmax(torch.randn(VOCAB, generator=torch.Generator().manual_seed(99)) * 2.0, dim=-1)
        self.g = torch.Generator().manual_seed(10**6 + seed)  # independent of the run's stream (seeded `seed`)

    def propose(self, output: Sequence[int], k: int) -> Draft:
        draft = torch.multinomial(self.q, k, replacement=True, generator=self.g).tolist() if k else []
        return Draft(tuple(draft), drafter=MODEL, probs=self.q.expand(len(draft), VOCAB))

    def observe(self, num_drafted: int, num_accepted: int) -> None:
        pass


@lru_cache(maxsize=None)
def tiny_draft() -> TorchModel:
    """A draft model: the target with noise on its weights (q near p, not equal), behind the seam."""
    import copy

    model = copy.deepcopy(peaked_model())
    g = torch.Generator().manual_seed(4)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=g) * 0.3 * p.abs().mean())
    return TorchModel(model=model, eos_ids=frozenset())


def draft_model(setting: Sampling) -> DraftModelProposer:
    """The real draft-model proposer: samples q warped like p, with its own generator, and says so."""
    return DraftModelProposer(tiny_draft(), tuple(PROMPT), k_max=2, sampling=setting, vocab=VOCAB)


PROPOSERS: dict[str, Callable[[int, Sampling], Any]] = {
    # copies from the greedy continuation (then the prompt): resyncs after every sampled detour
    "copy": lambda seed, s: CopyProposer([Source("original", greedy_reference(8)), Source("edit", tuple(PROMPT))]),
    "oracle": lambda seed, s: Oracle(greedy_reference()),
    "contrarian": lambda seed, s: Contrarian(greedy_reference(), VOCAB),
    "unigram-q": lambda seed, s: Unigram(seed),
    "draft-model": lambda seed, s: draft_model(s),
    # copy drafts (point masses) at the first step, then the draft model's q (the one-token copy source ends)
    "hybrid": lambda seed, s: HybridProposer(
        CopyProposer([Source("original", greedy_reference(1))]), draft_model(s), Alignment()
    ),
}


@lru_cache(maxsize=None)
def speculative(proposer: str, setting: str, n: int = MODEL_SAMPLES) -> tuple[Counter[tuple[int, ...]], int, int]:
    """`n` runs of the decode loop for LENGTH tokens, seeds 0..n-1: (counts, drafted, accepted)."""
    model = TorchModel(model=peaked_model(), eos_ids=frozenset())  # the prompt's prefill is reused run to run
    counts: Counter[tuple[int, ...]] = Counter()
    drafted = accepted = 0
    for seed in range(n):
        setting_ = dataclasses.replace(SETTINGS[setting], seed=seed)
        result = run(model, PROMPT, PROPOSERS[proposer](seed, setting_), FixedK(2), LENGTH, sampling=setting_)
        counts[tuple(result.tokens)] += 1
        drafted += sum(len(s.draft) for s in result.steps)
        accepted += sum(s.num_accepted for s in result.steps)
    return counts, drafted, accepted


@lru_cache(maxsize=None)
def plain(setting: str, n: int = MODEL_SAMPLES) -> Counter[tuple[int, ...]]:
    """Plain ancestral sampling by transformers' generate(do_sample=True), the same warping."""
    s = SETTINGS[setting]
    ids = torch.tensor([PROMPT] * n)
    with torch.random.fork_rng():
        torch.manual_seed(12345)
        out = peaked_model().generate(
            ids,
            attention_mask=torch.ones_like(ids),
            do_sample=True,
            temperature=s.temperature,
            top_p=s.top_p,
            top_k=None,
            max_new_tokens=LENGTH,
            min_new_tokens=LENGTH,
            pad_token_id=0,
        )
    return Counter(tuple(r) for r in out[:, len(PROMPT) :].tolist())


CASES = [
    ("copy", "t1"),
    ("copy", "t0.7-p0.9"),
    ("oracle", "t0.7-p0.9"),
    ("contrarian", "t1"),
    ("unigram-q", "t1"),
    ("draft-model", "t1"),
    ("draft-model", "t0.7-p0.9"),
    ("hybrid", "t1"),
]


@pytest.mark.parametrize(("proposer", "setting"), CASES)
def test_loop_samples_like_the_model(proposer: str, setting: str) -> None:
    """Through the speculative loop, the first token follows the model's exact (warped) distribution,
    and the first three tokens jointly too; drafts were both kept and rejected along the way."""
    counts, drafted, accepted = speculative(proposer, setting)
    exact = exact_model(setting)
    assert fit_p(marginal(counts, 1), marginal_exact(exact, 1)) > PASS_P
    assert fit_p(marginal(counts, 2), marginal_exact(exact, 2)) > PASS_P
    assert fit_p(counts, exact) > PASS_P
    assert 0 < accepted < drafted  # both branches of the rule ran


@pytest.mark.parametrize("setting", SETTINGS)
def test_loop_samples_like_transformers(setting: str) -> None:
    """Two-sample test: the loop (copy drafts) and transformers' plain sampling give the same joint
    frequencies of the first three tokens; the plain samples fit the exact distribution as well."""
    counts, _, _ = speculative("copy", setting)
    reference = plain(setting)
    assert fit_p(reference, exact_model(setting)) > PASS_P
    assert two_sample_p(counts, reference) > PASS_P
    assert two_sample_p(marginal(counts, 2), marginal(reference, 2)) > PASS_P


@pytest.mark.parametrize(
    ("proposer", "flaw"),
    [
        ("oracle", "resample from p, x not removed"),
        ("draft-model", "resample from p, no residual"),
    ],
)
def test_loop_check_rejects_a_broken_rule(monkeypatch: pytest.MonkeyPatch, proposer: str, flaw: str) -> None:
    """The loop-level check fails when the rule keeps the copied token in the resample distribution,
    or draws a draft model's correction from p instead of the residual."""
    monkeypatch.setattr(sampling, "accept", rule_with(flaw))
    counts, _, _ = speculative.__wrapped__(proposer, "t0.7-p0.9", n=MODEL_SAMPLES // 2)
    assert fit_p(counts, exact_model("t0.7-p0.9")) < FAIL_P


# ---- (3) seeds, the greedy default, bad values ---------------------------------------------------------


def test_seed_reproduces_a_run() -> None:
    """Same seed, same inputs: the same output; another seed: another output."""

    def sample(seed: int) -> list[int]:
        model = TorchModel(model=peaked_model(), eos_ids=frozenset())
        proposer = CopyProposer([Source("original", greedy_reference(30)), Source("edit", tuple(PROMPT))])
        return run(
            model,
            PROMPT,
            proposer,
            AdaptiveK(k_max=8, k_probe=4, support_min=2),
            30,
            sampling=Sampling(0.9, 0.95, seed),
        ).tokens

    assert sample(7) == sample(7)
    assert sample(7) != sample(8)


def test_greedy_is_the_default_and_unchanged() -> None:
    """No sampling, or temperature 0 (a seed changes nothing): exactly the greedy continuation."""
    reference = list(greedy_reference(20))
    for setting in (None, Sampling(), Sampling(0.0, 1.0, 5)):
        model = TorchModel(model=peaked_model(), eos_ids=frozenset())
        assert run(model, PROMPT, Oracle(reference), FixedK(4), 20, sampling=setting).tokens == reference
        assert run(model, PROMPT, NullProposer(), FixedK(0), 20, sampling=setting).tokens == reference


@pytest.mark.parametrize("temperature", [1e-38, 1e-300])
def test_a_tiny_temperature_samples_the_greedy_continuation(temperature: float) -> None:
    """Sampling at a positive temperature too small for float32 (it crashed: "probability tensor contains
    either inf, nan or element < 0") runs, with a copy proposer and a draft model alike, and writes
    the greedy continuation: every token's mass is on the model's top choice."""
    reference = list(greedy_reference(20))
    setting = Sampling(temperature, 1.0, 1)
    for proposer in (
        Oracle(reference),
        NullProposer(),
        draft_model(setting),
    ):
        model = TorchModel(model=peaked_model(), eos_ids=frozenset())
        assert run(model, PROMPT, proposer, FixedK(4), 20, sampling=setting).tokens == reference


def test_settings_fix_a_seed_for_sampling_only() -> None:
    """A sampling run without a seed gets one (so the summary can name it); greedy needs none."""
    assert sampling.settings() == Sampling(0.0, 1.0, None)
    assert sampling.settings(0.8, 0.9, 3) == Sampling(0.8, 0.9, 3)
    drawn = sampling.settings(0.8)
    assert drawn.seed is not None and 0 <= drawn.seed < sampling.SEED_LIMIT


@pytest.mark.parametrize(
    ("temperature", "top_p", "seed", "message"),
    [
        (-0.5, 1.0, None, "--temperature must be 0 (greedy) or more"),
        (float("nan"), 1.0, None, "--temperature must be 0"),
        (float("inf"), 1.0, None, "--temperature must be 0"),
        (1.0, 0.0, None, "--top-p must be above 0 and at most 1"),
        (1.0, 1.5, None, "--top-p must be above 0 and at most 1"),
        (1.0, -0.2, None, "--top-p must be above 0"),
        (0.0, 0.9, None, "--top-p needs --temperature above 0"),
        (1.0, 1.0, -1, "--seed must be a whole number from 0"),
    ],
)
def test_bad_values_are_input_errors(
    tmp_path: Path, temperature: float, top_p: float, seed: int | None, message: str
) -> None:
    """Each bad value is an InputError with a one-line message, raised by the API before any model."""
    with pytest.raises(InputError, match="^" + message.replace("(", r"\(").replace(")", r"\)")) as info:
        api.apply(tmp_path / "missing.py", "x", temperature=temperature, top_p=top_p, seed=seed)
    assert "\n" not in str(info.value)


def test_api_samples_and_names_the_seed(tokenizer: tuple[Path, Any], tmp_path: Path) -> None:
    """`api.apply(temperature=..., seed=...)` runs the sampling loop and its summary records the settings."""
    from fakes import scripted_engine

    (tmp_path / "f.py").write_text("x = 1\n")
    engine = scripted_engine(tokenizer, "x = 2\n```\n")
    # The scripted target puts logit 1 on its token and 0 elsewhere: at temperature 0.02 that token
    # has all but e^-50 of the mass, so the sampled output is the script.
    result = api.apply(
        tmp_path / "f.py", "Change x to 2.", engine=engine, temperature=0.02, seed=11, k_policy="fixed", cwd=tmp_path
    )
    assert result.after == "x = 2\n"
    s = result.summary
    assert (s.temperature, s.top_p, s.seed) == (0.02, 1.0, 11)
    greedy = api.apply(tmp_path / "f.py", "Change x to 2.", engine=engine, k_policy="fixed", cwd=tmp_path)
    assert greedy.after == result.after and greedy.summary.seed is None and greedy.summary.temperature == 0.0
