"""decision.decide: one place says what a run does with its edit, from the snippet's readings and the
run's options (Merge, Choose, Model, Refuse), and `unanswered` when a certain reading fails a check."""

from __future__ import annotations

from applyedit import decision
from applyedit.merge import MergeResult
from applyedit.options import RunOptions

CERTAIN = MergeResult(ok=True, merged="x = 2\n")
TWO = MergeResult(ok=False, reason="segment 1 could stand at original lines 3 and 8", merged=None,
                  ambiguous=True, readings=("a = 1\n", "b = 1\n"))  # fmt: skip
DISAGREE = MergeResult(ok=False, reason="two readings of the snippet give two files", readings=("a\n", "b\n"))
NONE = MergeResult(ok=False, reason="no snippet line matches the original")


def test_each_course() -> None:
    merge, auto, model = RunOptions(), RunOptions(answer="auto"), RunOptions(answer="model")
    assert decision.decide(None, merge) == decision.Model(None)  # an instruction
    assert decision.decide(CERTAIN, merge) == decision.Merge(CERTAIN)
    assert decision.decide(CERTAIN, model) == decision.Model(CERTAIN)
    assert decision.decide(TWO, merge, tiebreak=True) == decision.Choose(TWO)
    refused = decision.decide(TWO, auto)
    assert isinstance(refused, decision.Refuse) and "ambiguous: segment 1 could stand" in refused.why
    assert "--reading N" in refused.why
    assert isinstance(decision.decide(DISAGREE, merge), decision.Refuse)
    assert decision.decide(DISAGREE, auto) == decision.Model(DISAGREE)
    assert decision.decide(DISAGREE, auto, tiebreak=True) == decision.Choose(DISAGREE)
    fragment = decision.decide(None, merge, fragment=True)
    assert isinstance(fragment, decision.Refuse) and "no lazy markers" in fragment.why
    assert decision.decide(None, auto, fragment=True) == decision.Model(None)
    uncertain = decision.decide(NONE, merge)
    assert isinstance(uncertain, decision.Refuse) and "no snippet line matches" in uncertain.why


def test_a_certain_reading_that_fails_a_check() -> None:
    refused = decision.unanswered(CERTAIN, RunOptions())
    assert isinstance(refused, decision.Refuse) and "no reading certain enough" in refused.why
    failed = decision.unanswered(CERTAIN, RunOptions(), "its one reading fails a check (a lazy marker at line 3)")
    assert isinstance(failed, decision.Refuse) and "fails a check (a lazy marker" in failed.why
    assert "changes nothing" not in failed.why
    assert decision.unanswered(CERTAIN, RunOptions(answer="auto")) == decision.Model(CERTAIN)
