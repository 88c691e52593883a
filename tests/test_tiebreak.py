"""The tie-break scorer (speculative/tiebreak.py): its log-likelihoods equal those of a plain forward pass
over the whole context and candidate, on the fp32 tiny models, and it computes the shared prefix once."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from fakes import VOCAB, prompt_for, tiny_model

from applyedit.models.torchmodel import TorchModel
from applyedit.speculative import tiebreak
from applyedit.speculative.tiebreak import Scored, pick, score


class Counting(TorchModel):
    """The torch backend, counting the tokens each forward pass computes (the prefill's included)."""

    fed: list[int]

    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor:
        self.fed.append(len(ids))
        return super().forward(ids, num_logits)


def _candidates(seed: int) -> list[list[int]]:
    g = torch.Generator().manual_seed(7 + seed)
    shared = torch.randint(2, VOCAB, (30,), generator=g).tolist()
    tail = torch.randint(2, VOCAB, (40,), generator=g).tolist()
    spans = [torch.randint(2, VOCAB, (n,), generator=g).tolist() for n in (3, 0, 7)]  # an edit, a deletion, more
    return [shared + s + tail for s in spans]


def _reference(seed: int, context: list[int], cand: list[int], start: int, count: int) -> float:
    """log p(cand[start:start+count] | context + cand[:start]) from one plain forward pass."""
    ids = torch.tensor([context + cand])
    with torch.no_grad():
        logits = tiny_model(seed)(ids).logits[0].float().log_softmax(-1)
    at = len(context) + start
    return sum(float(logits[at + i - 1, cand[start + i]]) for i in range(count))


@pytest.mark.parametrize("seed", range(6))
def test_scores_equal_a_plain_forward_and_the_prefix_is_computed_once(seed: int) -> None:
    model = Counting(model=tiny_model(seed), eos_ids=frozenset())
    model.fed = []
    context, cands = prompt_for(seed), _candidates(seed)
    got = score(model, context, cands, window=5)
    assert [s.start for s in got] == [30, 30, 30]
    assert [s.tokens for s in got] == [3 + 5, 0 + 5, 7 + 5]  # the divergent span and 5 tokens after it
    for s, cand in zip(got, cands, strict=True):
        assert s.logprob == pytest.approx(_reference(seed, context, cand, s.start, s.tokens), abs=1e-3)
    # the prompt less its last token prefilled, the last one and the shared prefix less its last token in
    # one block, then each span with that token
    assert model.fed == [len(context) - 1, 30, 1 + 8, 1 + 5, 1 + 12]
    assert model.cached_len == len(context) + 30 - 1


def _greedy_after(seed: int, ids: list[int], count: int) -> list[int]:
    """Plain greedy decoding of `count` tokens after `ids`, one full forward pass a token."""
    out = list(ids)
    model = tiny_model(seed)
    for _ in range(count):
        with torch.no_grad():
            out.append(int(model(torch.tensor([out])).logits[0, -1].argmax()))
    return out[len(ids) :]


@pytest.mark.parametrize("seed", range(4))
def test_accepted_counts_the_tokens_greedy_decoding_would_write(seed: int) -> None:
    """A candidate that continues the shared prefix as plain greedy decoding does is accepted whole
    (`greedy`); a random one is accepted as far as it agrees with greedy decoding, as a draft is."""
    context = prompt_for(seed)
    cands = _candidates(seed)
    shared = cands[0][:30]
    written = _greedy_after(seed, context + shared, 12)
    cands = [shared + written, shared + [t + 1 if t + 1 < VOCAB else 2 for t in written[:1]] + written[1:]]
    got = score(TorchModel(model=tiny_model(seed), eos_ids=frozenset()), context, cands, window=4)
    assert got[0].greedy and got[0].accepted == got[0].tokens and got[0].span == 1 and got[0].tokens == 5
    assert not got[1].greedy and got[1].accepted == 0
    assert pick(got, margin=0.0, greedy=True) in (0, None)
    got_reversed = [got[1], got[0]]
    assert pick(got_reversed, margin=0.0, greedy=True) in (got[0].index, None)


def test_pick_needs_the_margin() -> None:
    scored = [Scored(0, -10.0, 5, 0), Scored(1, -4.0, 5, 0), Scored(2, -7.5, 5, 0)]
    assert pick(scored, margin=3.0) == 1
    assert pick(scored, margin=3.6) is None
    assert pick(scored[:1], margin=0.0) is None
    with pytest.raises(ValueError):
        score(Counting(model=tiny_model(0), eos_ids=frozenset()), [1, 2], [[3]])


def test_greedy_pick_needs_a_token_of_its_own() -> None:
    """Under the greedy rule the best reading is taken only where greedy decoding writes its scored span and
    that span holds a token of the reading's own: a deletion at the file's end (no required token) is
    "written" by any model, so it is never taken on the model's word (a wrong pick on the release corpus)."""
    deletion = Scored(0, -1.0, 1, 0, accepted=0, span=0, required=0)
    insertion = Scored(1, -20.0, 30, 0, accepted=5, span=29, required=29)
    assert deletion.greedy and pick([deletion, insertion], margin=6.0) == 0
    assert pick([deletion, insertion], margin=6.0, greedy=True) is None
    written = Scored(1, -2.0, 30, 0, accepted=30, span=29, required=29)
    assert pick([Scored(0, -9.0, 1, 0, accepted=0, span=0, required=0), written], margin=6.0, greedy=True) == 1
    assert pick([Scored(0, -7.0, 1, 0, accepted=0, span=0, required=0), written], margin=6.0, greedy=True) is None


def test_a_deletion_the_reader_weighs_as_close_may_be_picked() -> None:
    """No token of its own (a deletion at the file's end) is taken only for a reading listed in `bare`:
    one the reader weighs within its margin of the cheapest (api.choose_reading passes those)."""
    deletion = Scored(0, -1.0, 1, 0, accepted=1, span=0, required=0)
    kept = Scored(1, -20.0, 30, 0, accepted=0, span=29, required=29)
    assert pick([deletion, kept], margin=6.0, greedy=True) is None
    assert pick([deletion, kept], margin=6.0, greedy=True, bare=range(2)) == 0
    assert pick([deletion, kept], margin=6.0, greedy=True, bare=range(1, 2)) is None  # only its index counts
    unwritten = Scored(0, -1.0, 1, 0, accepted=0, span=0, required=0)  # greedy decoding writes something else
    assert pick([unwritten, kept], margin=6.0, greedy=True, bare=range(2)) is None


def test_a_deletion_at_the_files_end_is_taken_only_where_the_reader_weighs_it_close(
    tokenizer,
    tmp_path,
    monkeypatch,  # noqa: ANN001
) -> None:
    """Hand-written ts-003 (mobx, from npm): the snippet shows the file's last lines rewritten, no marker
    below; the readers read it three ways within the cost margin, the expected one ending the file
    where the others keep lines. A model that writes the expected file (a scripted one) has it taken, though its text
    there is only the closing fence. Weighed far from the cheapest (as hand-written py-006's deletion
    of 316 lines once was, picked wrongly by 10.5 nats), the same preference takes nothing."""
    from fakes import corpus_module, scripted_engine

    from applyedit import api, textio
    from applyedit.errors import AmbiguousEditError
    from applyedit.merge import confirm, reindent

    score = corpus_module("assistant/score")
    case, record = next((c, r) for c, r in score.joined(score.load()) if c["name"] == "ts-003")
    before, after = record["before"], record["after"]
    snippet = reindent.to_file_style(before, case["snippet"])
    result = confirm.confirmed(before, snippet, "typescript", with_readings=True)
    assert not result.ok and result.near == len(result.readings) == 3 and after in result.readings
    truth = result.readings.index(after)
    assert not api.said(result.readings, truth)  # the expected reading's own text there is blank
    path = tmp_path / "observable.ts"
    path.write_text(before, encoding="utf-8")
    written = api.windowed(result.readings[truth], *api.window(before, result.readings))  # as the tie-break reads it
    written += textio.fence_for(before, case["snippet"])  # it ends the file there
    done = api.apply(path, case["snippet"], engine=scripted_engine(tokenizer, written, 40.0))
    assert done.after == after and any("the model prefers it by" in n for n in done.notes)
    # the same readings, the deletion weighed far from the cheapest (`near` 0)
    far = dataclasses.replace(result, near=0)
    monkeypatch.setattr(confirm, "confirmed", lambda *a, **k: far)
    path.write_text(before, encoding="utf-8")
    with pytest.raises(AmbiguousEditError, match="prefers neither"):
        api.apply(path, case["snippet"], engine=scripted_engine(tokenizer, written, 40.0))
    assert path.read_text(encoding="utf-8") == before


def _disagreeing_case() -> object:
    """A release-corpus case (jinja2 3.1.5, from PyPI) whose two readers give two valid files, their costs
    within the margin (4 and 5: no reading is certain): a call split over lines, the snippet's trailing
    `),` `(` read by the merge as new lines with the old line below them."""
    from fakes import corpus_module

    cases = corpus_module("releases/cases")
    records = [r for r in cases.records() if r["package"] == "jinja2" and r["path"] == "src/jinja2/sandbox.py"]
    return next(c for r in records for c in cases.cases_for(r) if c.name == "py_jinja2_3_1_5_jinja2_sandbox_py_1_clean")


def test_the_model_chooses_between_two_valid_readings(tokenizer, tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """With a margin set, where the two readers disagree and both files meet every invariant, a default run
    scores both with the model (a scripted one here: it writes what it is given) and answers with the one
    it prefers, saying so; a preference under the margin leaves the refusal, which says how close it was.
    Without a margin (the product's setting) the model is not asked and the refusal stands."""
    from fakes import scripted_engine

    from applyedit import api
    from applyedit.errors import AmbiguousEditError
    from applyedit.merge import confirm, reindent

    case = _disagreeing_case()
    snippet = reindent.to_file_style(case.before, case.snippet)
    result = confirm.confirmed(case.before, snippet, case.language, with_readings=True)
    assert not result.ok and result.reason.startswith("two readings") and len(result.readings) == 2
    assert case.after in result.readings
    path = tmp_path / "sandbox.py"
    monkeypatch.setattr(tiebreak, "MARGIN", 4.0)  # the product leaves it off (tiebreak.MARGIN's comment)
    monkeypatch.setattr(api, "LEAD_LINES", 10)  # the readings differ lower than that in the file
    # the scripted model writes a reading as the tie-break reads it: its window, from a few lines above the
    # first difference
    cut = api.window(case.before, result.readings)
    for reading in result.readings:
        led = api.windowed(reading, *cut)
        assert len(led) < len(reading)  # the readings' shared start is not fed to the model
        path.write_text(case.before, encoding="utf-8")
        done = api.apply(path, case.snippet, engine=scripted_engine(tokenizer, led + "```\n", 40.0))
        assert done.after == reading
        assert any("the model prefers it by" in n for n in done.notes), done.notes
    # a preference under the margin decides nothing: the refusal stands and says how close it was
    monkeypatch.setattr(tiebreak, "MARGIN", 1e9)
    path.write_text(case.before, encoding="utf-8")
    with pytest.raises(AmbiguousEditError, match="prefers neither by 1e"):
        api.apply(path, case.snippet, engine=scripted_engine(tokenizer, case.after + "```\n", 40.0))
    assert path.read_text(encoding="utf-8") == case.before


def test_the_tiebreak_reads_a_window_around_where_the_readings_differ(monkeypatch) -> None:  # noqa: ANN001
    """`window`: the tie-break leaves out the lines every reading shares above its first difference but for
    the last `LEAD_LINES`, and those below its last but for the first `TAIL_LINES`, and only lines the
    original shares with every reading there. Counterexamples: readings that differ near the file's start
    or end keep it; a line the readings share but the original does not (another segment's edit) stays in
    the window."""
    from applyedit import api

    monkeypatch.setattr(api, "LEAD_LINES", 5)
    monkeypatch.setattr(api, "TAIL_LINES", 3)

    def file(line: str = "x = 1\n") -> str:
        return "".join(f"v{k} = {k}\n" for k in range(40)) + line + "".join(f"w{k} = {k}\n" for k in range(30))

    readings = [file("x = 2\n"), file("x = 3\n")]
    assert api.window(file(), readings) == (35, 27)
    assert api.windowed(readings[0], 35, 27) == "".join(
        [*(f"v{k} = {k}\n" for k in range(35, 40)), "x = 2\n", *(f"w{k} = {k}\n" for k in range(3))]
    )
    early = [readings[0].replace("v2 = 2\n", "v2 = 0\n"), readings[1]]  # they differ near the top too
    assert api.window(file(), early) == (0, 27)
    late = [r + "end\n" for r in readings[:1]] + [readings[1]]  # and at the end
    assert api.window(file(), late) == (35, 0)
    edited = [r.replace("v20 = 20\n", "v20 = 0\n").replace("w20 = 20\n", "w20 = 0\n") for r in readings]
    assert api.window(file(), edited) == (20, 9)  # the original shares only the lines around the other edits


def test_the_tiebreak_prompt_holds_the_window_of_the_file(tokenizer, tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """`tiebreak_inputs`: the product's prompt with the file cut to the `window` (and the whole prompt where
    the window is the whole file), the readings cut to the same lines, each fenced."""
    from fakes import scripted_engine

    from applyedit import api

    monkeypatch.setattr(api, "LEAD_LINES", 5)
    monkeypatch.setattr(api, "TAIL_LINES", 3)
    before = "".join(f"v{k} = {k}\n" for k in range(40)) + "x = 1\n" + "".join(f"w{k} = {k}\n" for k in range(30))
    readings = [before.replace("x = 1\n", f"x = {n}\n") for n in (2, 3)]
    path = tmp_path / "long.py"
    path.write_text(before, encoding="utf-8")
    engine = scripted_engine(tokenizer, "", 1.0)
    job = api.prepare(path, "# ... existing code ...\nx = 2\n# ... existing code ...\n", engine)
    prompt, ids, texts, cut = api.tiebreak_inputs(job, readings)
    assert cut == (35, 27)
    assert (ids, texts) == api.fenced(engine.encode, [api.windowed(r, *cut) for r in readings], job.fence)
    text, whole = engine.tokenizer.decode(prompt), engine.tokenizer.decode(job.prompt_ids)
    assert text == whole.replace(before, api.windowed(before, *cut), 1) and text != whole
    short = [readings[0].replace("v1 = 1\n", "v1 = 0\n"), readings[1] + "end\n"]  # differ at both ends: no cut
    assert api.tiebreak_inputs(job, short)[0] == list(job.prompt_ids)


def test_without_a_margin_the_model_is_not_asked(tokenizer, tmp_path, monkeypatch) -> None:  # noqa: ANN001
    from fakes import scripted_engine

    from applyedit import api
    from applyedit.errors import AmbiguousEditError

    monkeypatch.setattr(tiebreak, "MARGIN", None)
    case = _disagreeing_case()
    path = tmp_path / "sandbox.py"
    path.write_text(case.before, encoding="utf-8")
    engine = scripted_engine(tokenizer, case.after + "```\n", 40.0)
    with pytest.raises(AmbiguousEditError, match="two readings of the snippet give two files"):
        api.apply(path, case.snippet, engine=engine)
    assert engine.model.num_forwards == 0


def test_fenced_counts_the_tokens_of_each_text(tokenizer) -> None:  # noqa: ANN001
    """Each reading tokenized with the closing fence after it, and how many of its tokens are its text's
    (the fence may merge with the text's last newline: those tokens are the fence's)."""
    from applyedit.api import fenced

    _, tok = tokenizer
    texts = ["x = 1\n", "x = 1\ny = 2\n", ""]
    ids, counts = fenced(lambda t: tok.encode(t, add_special_tokens=False), texts, "```")
    for text, got, n in zip(texts, ids, counts, strict=True):
        alone = tok.encode(text, add_special_tokens=False)
        assert got == tok.encode(text + "```", add_special_tokens=False)
        assert got[:n] == alone[:n] and n <= len(alone) and n < len(got)


def test_a_span_longer_than_a_block_is_scored_in_blocks() -> None:
    """A divergent span longer than tiebreak.BLOCK goes in blocks (a backend's batch is bounded) and
    scores as one plain forward pass does."""
    seed = 1
    g = torch.Generator().manual_seed(11)
    shared = torch.randint(2, VOCAB, (10,), generator=g).tolist()
    long = torch.randint(2, VOCAB, (tiebreak.BLOCK + 40,), generator=g).tolist()
    cands = [shared + long, shared + long[:3]]
    context = prompt_for(seed)
    model = Counting(model=tiny_model(seed), eos_ids=frozenset())
    model.fed = []
    got = score(model, context, cands, window=4)
    assert max(model.fed[2:]) <= tiebreak.BLOCK
    for s, cand in zip(got, cands, strict=True):
        assert s.logprob == pytest.approx(_reference(seed, context, cand, s.start, s.tokens), abs=1e-2)


def test_twins_are_never_the_models_to_choose(tokenizer, tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """One edit at two places that read the same (two identical functions): nothing in the file tells
    them apart, so the model is not asked, whatever the margin; the refusal names both places."""
    from fakes import scripted_engine

    from applyedit import api
    from applyedit.errors import AmbiguousEditError

    monkeypatch.setattr(tiebreak, "MARGIN", 1.0)  # the product leaves it off (tiebreak.MARGIN's comment)
    path = tmp_path / "twice.py"
    twice = "def f():\n    return 1\n\n\ndef f():\n    return 1\n"
    path.write_text(twice)
    engine = scripted_engine(tokenizer, twice.replace("return 1", "return 2", 1) + "```\n", 40.0)
    with pytest.raises(AmbiguousEditError, match="could stand at original lines 1 and 5"):
        api.apply(path, "# ... existing code ...\ndef f():\n    return 2\n# ... existing code ...\n", engine=engine)
    assert engine.model.num_forwards == 0 and path.read_text() == twice


def test_new_lines_at_the_files_edge_placed_by_no_line_are_never_the_models_to_choose(
    tokenizer,  # noqa: ANN001
    tmp_path,  # noqa: ANN001
    monkeypatch,  # noqa: ANN001
) -> None:
    """A new import and a marker below it, no line of the original shown: above the file's first line or
    in its place, nothing in the snippet tells (the edit may have put it under the other imports), so
    the model is not asked, whatever the margin; the refusal names the place. With a line of the
    original shown under it, the readings are placed, and the model may choose."""
    from fakes import scripted_engine

    from applyedit import api
    from applyedit.errors import AmbiguousEditError
    from applyedit.merge import confirm, readings

    monkeypatch.setattr(tiebreak, "MARGIN", 1.0)
    path = tmp_path / "mod.ts"
    original = "import { a } from './a';\nimport { b } from './b';\n\nexport const c = a + b;\n"
    path.write_text(original)
    snippet = "import { t } from './t';\n// ... existing code ...\n"
    merged = confirm.confirmed(original, snippet, "typescript", with_readings=True)
    assert len(merged.readings) == 2 and merged.unplaced
    assert not readings.unplaced(original, "import { a } from './a';\n" + snippet, merged.places)
    engine = scripted_engine(tokenizer, "import { t } from './t';\n" + original + "```\n", 40.0)
    with pytest.raises(AmbiguousEditError, match="original line 1"):
        api.apply(path, snippet, engine=engine)
    assert engine.model.num_forwards == 0 and path.read_text() == original


def test_places_are_where_the_candidates_differ_and_agree_again() -> None:
    """Lines inserted at one place or at another, 30 tokens below: two places, each candidate's part of
    each (an empty one where it keeps the text), found by the fewest divergent tokens in all."""
    head, x, mid, tail = list(range(100, 120)), [7, 8, 9, 10], list(range(200, 230)), list(range(300, 320))
    a, b = head + x + mid + tail, head + mid + x + tail
    assert tiebreak.places([a, b], 20, window=5) == [((20, 24), (20, 20)), ((54, 54), (50, 54))]
    assert tiebreak.places([a, a + [1]], 74, window=5) == [((74, 74), (74, 75))]  # one runs on: to its end


def _moved(seed: int, break_later: bool) -> tuple[list[int], list[list[int]]]:
    """Greedy decoding's own 60 tokens, and the same with a token inserted at 20 and 2 tokens of it
    changed at 45 (two places at least: a tiny model's greedy text repeats itself, and the places found in
    it may be more); with `break_later`, the greedy text itself changed at the second place."""
    context = prompt_for(seed)
    written = _greedy_after(seed, context, 60)
    other = [*written[:20], 3, *written[20:45], *(t + 1 if t + 1 < VOCAB else 2 for t in written[45:47]), *written[47:]]
    if break_later:
        written = [*written[:45], *(t + 2 if t + 2 < VOCAB else 2 for t in written[45:47]), *written[47:]]
    return context, [written, other]


@pytest.mark.parametrize("seed", range(4))
def test_the_first_place_is_scored_and_the_best_is_checked_at_the_later_ones(seed: int) -> None:
    """Two places: each candidate is scored over the first place and the window after it (as a plain
    forward pass scores it); the best-scored is fed once more through the later place, only it, and is
    `greedy` only where greedy decoding writes it there too."""
    context, cands = _moved(seed, break_later=False)
    model = Counting(model=tiny_model(seed), eos_ids=frozenset())
    model.fed = []
    got = score(model, context, cands, window=4)
    assert [s.tokens for s in got] == [4, 5]  # the first place: nothing / the inserted token, and 4 after it
    for s, cand in zip(got, cands, strict=True):
        assert s.logprob == pytest.approx(_reference(seed, context, cand, s.start, s.tokens), abs=1e-3)
    assert got[0].logprob > got[1].logprob  # greedy decoding's own text scores best
    assert got[0].later is True and got[1].later is None and got[0].greedy
    last = tiebreak.places(cands, 20, window=4)[-1][0]  # the best-scored's part of the last place
    assert model.fed == [len(context) - 1, 20, 1 + 4, 1 + 5, 1 + min(60, last[1] + 4) - 20]
    assert pick(got, margin=0.0, greedy=True) == 0
    context, cands = _moved(seed, break_later=True)
    got = score(TorchModel(model=tiny_model(seed), eos_ids=frozenset()), context, cands, window=4)
    assert got[0].logprob > got[1].logprob and got[0].later is False and not got[0].greedy
    assert pick(got, margin=0.0, greedy=True) is None


@pytest.mark.parametrize("seed", range(4))
def test_candidates_that_share_the_best_first_place_are_scored_on_at_their_next(seed: int) -> None:
    """A segment read at one of three places (tokens 15, 30 or 45 of greedy decoding's own text): at the
    first place two candidates keep the text, and keeping it scores best, so those two are scored on at
    their next place, after the text they share; each score is the sum of its places', each as a plain
    forward pass scores it."""
    context = prompt_for(seed)
    written = _greedy_after(seed, context, 70)
    inserted = [0, 1]
    assert all(written[at] not in inserted for at in (15, 30, 45))
    cands = [[*written[:at], *inserted, *written[at:]] for at in (15, 30, 45)]
    got = score(TorchModel(model=tiny_model(seed), eos_ids=frozenset()), context, cands, window=4)

    def ref(n: int, start: int, count: int) -> float:
        return _reference(seed, context, cands[n], start, count)

    assert got[0].logprob == pytest.approx(ref(0, 15, 2 + 4), abs=1e-3)  # its first place: the two tokens and 4
    assert got[1].logprob == pytest.approx(ref(1, 15, 4) + ref(1, 30, 2 + 4), abs=1e-3)
    assert got[2].logprob == pytest.approx(ref(2, 15, 4) + ref(2, 30, 4), abs=1e-3)
    assert [s.tokens for s in got] == [6, 4 + 6, 4 + 4]


@pytest.mark.parametrize("seed", range(3))
def test_with_a_margin_no_pick_from_the_places_reads_the_whole_stretch(seed: int) -> None:
    """Two places and a margin the first place cannot clear: every candidate is scored again over the
    whole stretch where they differ, as one plain forward pass scores it (the later places' evidence)."""
    context, cands = _moved(seed, break_later=False)
    model = TorchModel(model=tiny_model(seed), eos_ids=frozenset())
    alone = score(model, context, cands, window=4)
    assert not any(s.whole for s in alone) and pick(alone, margin=1e6, greedy=True) is None
    got = score(model, context, cands, window=4, margin=1e6)
    suffix = next(n for n in range(60) if cands[0][-1 - n] != cands[1][-1 - n])
    assert all(s.whole for s in got)
    for s, cand in zip(got, cands, strict=True):
        assert s.tokens == len(cand) - suffix + 4 - 20
        assert s.logprob == pytest.approx(_reference(seed, context, cand, 20, s.tokens), abs=1e-3)
    assert score(model, context, cands, window=4, margin=0.0) == alone  # a pick from the places: kept


@pytest.mark.parametrize("seed", range(2))
def test_the_whole_stretch_is_read_only_within_the_budget(seed: int) -> None:
    """`budget`: the whole stretch where the candidates differ is read only where it holds that many tokens
    or fewer, all candidates together; over it, the scores are the places' alone, and the best one is fed
    only to its last place (counterexample: at the budget, the whole stretch is read)."""
    context, cands = _moved(seed, break_later=False)
    suffix = tiebreak._common_suffix(cands, min(len(c) for c in cands) - 20)
    cost = sum(tiebreak._stretch_end(c, suffix, 4) - 20 for c in cands)
    model = TorchModel(model=tiny_model(seed), eos_ids=frozenset())
    alone = score(model, context, cands, window=4)
    over = score(model, context, cands, window=4, margin=1e6, budget=cost - 1)
    assert [(s.logprob, s.tokens, s.whole) for s in over] == [(s.logprob, s.tokens, s.whole) for s in alone]
    assert all(s.whole for s in score(model, context, cands, window=4, margin=1e6, budget=cost))


@pytest.mark.parametrize("seed", range(3))
def test_the_best_ones_whole_stretch_is_read_on_its_way_to_the_later_places(seed: int) -> None:
    """Where a margin may call for the whole stretch, the check of the best-scored at its later places
    feeds it with its logits kept from the first place on: reading its whole stretch then feeds only the
    other candidates again, and the scores are those of every candidate fed afresh."""
    context, cands = _moved(seed, break_later=False)
    model = Counting(model=tiny_model(seed), eos_ids=frozenset())
    model.fed = []
    got = score(model, context, cands, window=4, margin=1e6)
    suffix = tiebreak._common_suffix(cands, min(len(c) for c in cands) - 20)
    ends = [tiebreak._stretch_end(c, suffix, 4) for c in cands]
    last = tiebreak.places(cands, 20, window=4)[-1][0]  # the best-scored's part of the last place
    assert all(s.whole for s in got) and max(got, key=lambda s: s.logprob).index == 0
    # the prompt, the shared prefix, the first place of each, the best's text on through its later
    # places and its whole stretch, then the other's whole stretch: nothing fed twice
    checked = max(ends[0], min(60, last[1] + 4))
    assert model.fed == [len(context) - 1, 20, 1 + 4, 1 + 5, 1 + checked - 20, 1 + ends[1] - 20]
    model.reset()
    model.prefill(context[:-1])
    model.forward([context[-1], *cands[0][:19]], 1)
    fresh = tiebreak._whole(model, [cands[0][19]], cands, 20, suffix, 4, None, got[0].verified, {})
    assert [(s.accepted, s.tokens) for s in fresh] == [(s.accepted, s.tokens) for s in got]
    assert [s.logprob for s in got] == pytest.approx([s.logprob for s in fresh], abs=1e-4)


def test_a_reading_whose_own_text_there_is_blank_says_nothing() -> None:
    """api.said: a reading that ends the file where the others go on has no text of its own (the
    tie-break must not take it: any model "writes" it); one that goes on, or differs inside, has."""
    from applyedit import api

    readings = ["x = 1\ny = 2\n", "x = 1\n", "x = 1\nz = 3\n"]
    assert api.said(readings, 0) and api.said(readings, 2)
    assert not api.said(readings, 1)
    assert api.said(["a\nb\nc\n", "a\nc\n"], 1)  # a deletion inside: the text after it is its own


class Branching(TorchModel):
    """The torch backend reading continuations side by side as models/base.Branches promises (here one after
    another, each fed with the lead and dropped again), recording where each forward pass starts and ends."""

    spans_fed: list[tuple[int, int]]

    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor:
        self.spans_fed.append((self.cached_len, self.cached_len + len(ids)))
        return super().forward(ids, num_logits)

    def forward_branches(self, lead, spans):  # noqa: ANN001, ANN201 (the Branches seam)
        base = self.cached_len
        for k, span in enumerate(spans):
            if span:
                rows = super().forward([*lead, *span], len(lead) + len(span))
                yield k, 0, rows[len(lead) - 1 : len(lead) - 1 + len(span)]
            self.crop_to(base)


@pytest.mark.parametrize(("seed", "block"), [(0, 8), (1, 8), (2, 13), (3, 256)])
def test_a_backend_reading_side_by_side_scores_as_one_by_one(
    seed: int, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the backend reads the candidates side by side (llama.cpp), the shared output goes in blocks
    ending at block boundaries and the rest of it (the lead) with the candidates: the scores, greedy
    counts and picks are those of the one-by-one path, at one place, several, and over the whole stretch."""
    from applyedit.models.base import Branches

    monkeypatch.setattr(tiebreak, "BLOCK", block)
    moved = _moved(seed, break_later=False)
    for context, cands, margin in [(prompt_for(seed), _candidates(seed), None), (*moved, None), (*moved, 1e6)]:
        side = Branching(model=tiny_model(seed), eos_ids=frozenset())
        side.spans_fed = []
        assert isinstance(side, Branches)
        got = score(side, context, cands, window=4, margin=margin)
        plain = score(TorchModel(model=tiny_model(seed), eos_ids=frozenset()), context, cands, window=4, margin=margin)
        assert [dataclasses.replace(s, logprob=0.0, verified=0) for s in got] == [
            dataclasses.replace(s, logprob=0.0, verified=0) for s in plain
        ]
        assert [s.logprob for s in got] == pytest.approx([s.logprob for s in plain], abs=1e-3)
        assert any(s.whole for s in got) == (margin is not None)
        # after the prompt's prefill, the shared output in blocks ending at block boundaries: up to the
        # last boundary where the candidates differ at one place, all but the last shared token where
        # they are read again after (the best at its later places); the cache left there
        prompt, start = len(context) - 1, got[0].start
        one = len(tiebreak.places(cands, start, 4)) == 1
        assert one == (cands is not moved[1])
        cut = max(0, (prompt + start) // block * block - prompt) if one else start
        assert side.spans_fed[0] == (0, prompt)
        blocks = [span for span in side.spans_fed[1:] if span[1] <= prompt + cut]
        assert [a for a, _ in blocks] == [prompt, *(b for _, b in blocks)][: len(blocks)]
        assert all(b % block == 0 for _, b in blocks[:-1]) and (blocks[-1][1] if blocks else prompt) == prompt + cut
        assert side.cached_len == prompt + cut


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_spans_that_are_the_same_tokens_are_read_once(seed: int) -> None:
    """Readings that agree at a place feed the same span after the same lead: it is read once and each of
    them gets that reading (five readings of one insertion at five places read two spans a place, not
    five); the reads equal those of each span read alone."""
    context, cands = prompt_for(seed), _candidates(seed)
    lead, spans = context[-1:], [cands[k][28:36] for k in (0, 1, 0, 0)]  # past the 30 tokens they share
    model = TorchModel(model=tiny_model(seed), eos_ids=frozenset())
    model.prefill(context[:-1])
    before = model.num_forwards
    got = tiebreak.read_branches(model, lead, spans)
    fed = model.num_forwards - before
    alone = [tiebreak.read_branches(model, lead, [span]) for span in spans]
    assert [(r.logprobs, r.greedy) for r in got] == [(r[0].logprobs, r[0].greedy) for r in alone]
    assert len({tuple(span) for span in spans}) == 2 and fed == 2  # one forward pass a distinct span, not 4
    assert got[0] is not got[2]  # each reading its own record
