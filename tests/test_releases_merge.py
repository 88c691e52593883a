"""The merge-first answer on real edits between package releases (corpus/releases: clean and messy
snippets of edits from consecutive published versions of 33 packages): what the product answers without
a model, as `api.apply` reads a snippet (implied markers, re-indented, then `confirm.confirmed`, held to
the output checks; corpus/releases/score.py's `answer_alone`).

The bar: no answer alone that is not the edit's file, and at least the committed share of clean
snippets answered alone and exact (it may only rise).
"""

from __future__ import annotations

import pytest
from fakes import corpus_module

CLEAN_ALONE_FLOOR = 0.9546  # clean snippets answered alone and exact, measured (2,208 of 2,313: one edit that defines a method twice is refused by invariants.defined_twice); may only rise
MESSY_ALONE_FLOOR = 0.8478  # messy ones likewise (1,961)


@pytest.fixture(scope="module")
def outcomes() -> dict[str, tuple[str, str]]:
    """case name -> (style, "exact" | "wrong" | "declined")."""
    answer_alone = corpus_module("releases/score").answer_alone
    found = {}
    for c in corpus_module("releases/cases").cases():
        answer, _reason = answer_alone(c.before, c.snippet, c.language)
        found[c.name] = (c.style, "declined" if answer is None else "exact" if answer == c.after else "wrong")
    return found


def test_no_answer_alone_is_wrong(outcomes: dict[str, tuple[str, str]]) -> None:
    wrong = sorted(name for name, (_, result) in outcomes.items() if result == "wrong")
    assert wrong == [], "wrong answers without the model"


def test_clean_snippets_answered_alone(outcomes: dict[str, tuple[str, str]]) -> None:
    clean = [result for style, result in outcomes.values() if style == "clean"]
    assert len(clean) >= 1500
    assert sum(r == "exact" for r in clean) >= CLEAN_ALONE_FLOOR * len(clean)


def test_messy_snippets_answered_alone(outcomes: dict[str, tuple[str, str]]) -> None:
    messy = [result for style, result in outcomes.values() if style == "messy"]
    assert len(messy) >= 1500
    assert sum(r == "exact" for r in messy) >= MESSY_ALONE_FLOOR * len(messy)


def test_a_weak_line_after_a_marker_is_the_merges_doubt_not_the_snippets(outcomes: dict[str, tuple[str, str]]) -> None:
    """`MergeResult.pairing`: a snippet whose first line after a marker is a brace (`}`) or a docstring's
    quotes, lines that stand several times above its anchor: the merge cannot tell which one it is and
    reads none; the context reader places the snippet asking nothing, and its reading answers (tanstack
    query-core 5.105.2's mutation, clean and messy; attrs 24.1.0's converters, messy)."""
    for name in (
        "ts_tanstack_query_core_5_105_2_src_mutation_ts_0_clean",
        "ts_tanstack_query_core_5_105_2_src_mutation_ts_0_messy",
        "py_attrs_24_1_0_attr_converters_py_2_messy",
    ):
        assert outcomes[name][1] == "exact", name
