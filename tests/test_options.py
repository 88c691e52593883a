"""One options value (options.RunOptions): the settings of a run as one frozen value, passed whole to
`apply`, with the keyword API still working and meaning the same. A scripted target behind the real
model seam (tests/fakes.py) writes the output."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from fakes import scripted_engine

from applyedit import RunOptions, api
from applyedit.errors import InputError, OutputCheckError


def test_options_and_keywords_are_the_same_run(tokenizer: tuple[Path, Any], tmp_path: Path) -> None:
    """`apply(file, edit, options=RunOptions(...))` and the same settings as keywords give the same
    result; keywords replace the fields of `options`; the options are frozen."""
    src = tmp_path / "f.py"
    src.write_text("A = 1\nB = 2\n")
    out = "A = 1\nB = 3\n```\n"
    whole = api.apply(
        src,
        "Set B to 3.",
        options=RunOptions(k=4, k_policy="fixed"),
        engine=scripted_engine(tokenizer, out),
        cwd=tmp_path,
    )
    keywords = api.apply(
        src, "Set B to 3.", k=4, k_policy="fixed", engine=scripted_engine(tokenizer, out), cwd=tmp_path
    )
    assert whole.after == keywords.after == "A = 1\nB = 3\n"
    assert whole.decode.tokens == keywords.decode.tokens
    assert [s.k for s in whole.decode.steps] == [s.k for s in keywords.decode.steps]
    assert max(s.k for s in whole.decode.steps) == 4
    mixed = api.apply(
        src,
        "Set B to 3.",
        options=RunOptions(k=4, k_policy="fixed"),
        k=2,
        engine=scripted_engine(tokenizer, out),
        cwd=tmp_path,
    )
    assert max(s.k for s in mixed.decode.steps) == 2  # the keyword wins over the options' field
    with pytest.raises(dataclasses.FrozenInstanceError):
        RunOptions().k = 8  # type: ignore[misc]


def test_an_unknown_setting_is_a_type_error(tokenizer: tuple[Path, Any], tmp_path: Path) -> None:
    src = tmp_path / "f.py"
    src.write_text("A = 1\n")
    with pytest.raises(TypeError):
        api.apply(src, "Set A to 2.", engine=scripted_engine(tokenizer, "A = 2\n```\n"), cwd=tmp_path, kk=3)


def test_the_switches_of_the_checks_travel_in_the_options(tokenizer: tuple[Path, Any], tmp_path: Path) -> None:
    """An unchanged output for an instruction is refused; `allow_unchanged` in the options accepts it."""
    src = tmp_path / "f.py"
    src.write_text("A = 1\n")
    with pytest.raises(OutputCheckError, match="--allow-unchanged"):
        api.apply(
            src, "Set A to 2.", options=RunOptions(), engine=scripted_engine(tokenizer, "A = 1\n```\n"), cwd=tmp_path
        )
    kept = api.apply(
        src,
        "Set A to 2.",
        options=RunOptions(allow_unchanged=True),
        engine=scripted_engine(tokenizer, "A = 1\n```\n"),
        cwd=tmp_path,
    )
    assert not kept.changed and "--allow-unchanged" in kept.notes[0]


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"k": -1}, "--k must be 0 or more"),
        ({"proposer": "magic"}, "unknown --proposer 'magic'"),
        ({"timeout": 0.0}, "--timeout must be a number of seconds above 0"),
        ({"anchor": "maybe"}, "unknown --anchor 'maybe'"),
        ({"backend": "llamacpp", "dtype": "bf16"}, "--dtype applies to the torch backend"),
    ],
)
def test_check_refuses_bad_settings_before_anything_runs(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        RunOptions(**changes).check()
