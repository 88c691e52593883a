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
        RunOptions(**changes)


def test_one_table_makes_the_cli_options_the_server_fields_and_the_remote_list() -> None:
    """Every run option is one row of options.OPTIONS: the apply command takes exactly the table's
    options as flags, with RunOptions' defaults; a server request may set exactly the rows marked
    `request` (and the language, which goes with the file); `--server` sends exactly those (its
    timeout on its own) and names the rest as the server's."""
    import inspect

    from applyedit.serve import app as server
    from applyedit.cli.main import apply_command
    from applyedit.cli.parts import RUN_OPTS
    from applyedit.options import OPTIONS
    from applyedit.cli.servecmd import REMOTE_OPTIONS, SERVERS_OWN

    fields = {f.name: f.default for f in dataclasses.fields(RunOptions)}
    table = [o.name for o in OPTIONS]
    assert sorted(table) == sorted(fields)  # one row per setting, none twice
    params = inspect.signature(apply_command).parameters
    taken = {n: p.default for n, p in params.items() if n in fields}
    assert taken == fields  # the CLI takes every run option, each with its one default
    assert all(params[n].annotation is RUN_OPTS[n] for n in fields)  # each flag made from its row
    requested = [o.name for o in OPTIONS if o.request]
    model = server.request_options()
    assert [n for n in model.model_fields if n != "language"] == requested and "language" in model.model_fields
    assert all(f.default is None for f in model.model_fields.values())  # unset: the server's defaults
    assert list(REMOTE_OPTIONS) == [n for n in requested if n != "timeout"]
    assert (
        set(SERVERS_OWN)
        == set(fields) - set(requested)
        == {
            "model",
            "device",
            "dtype",
            "backend",
            "draft_model",
            "draft_backend",
        }
    )


def test_the_request_model_keeps_the_bounds_of_the_table() -> None:
    """A request's max_new_tokens below 1 or timeout of 0 is refused; an unknown option too."""
    import pydantic

    from applyedit.serve import app as server

    model = server.request_options()
    model(max_new_tokens=1, timeout=0.5, k=3, proposer="none")
    for bad in ({"max_new_tokens": 0}, {"timeout": 0}, {"kk": 3}, {"model": "x"}):
        with pytest.raises(pydantic.ValidationError):
            model(**bad)


def test_the_options_of_a_run_are_checked_once_where_they_are_made(
    tokenizer: tuple[Path, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--k` walks from the CLI to the loop through one RunOptions: the flags and the config file's
    defaults are made into it once, and its checks run then, never again on the way (counted here, on a
    run answered by the merge through the CLI and on a model run through the API)."""
    from applyedit.cli.main import main

    made: list[RunOptions] = []
    check = RunOptions.check
    monkeypatch.setattr(RunOptions, "check", lambda self: (made.append(self), check(self))[1])
    src = tmp_path / "f.py"
    src.write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    edit = tmp_path / "edit.txt"
    edit.write_text("# ... existing code ...\n\n\ndef b():\n    return 3\n")
    config = tmp_path / "applyedit.toml"
    config.write_text("k = 16\n")
    monkeypatch.setenv("APPLYEDIT_CONFIG", str(config))
    with pytest.raises(SystemExit) as done:
        main([str(src), "--edit", str(edit), "--quiet"])
    assert done.value.code == 0
    assert [o.k for o in made] == [16]  # once, with the config file's K
    made.clear()
    out = "def a():\n    return 2\n\n\ndef b():\n    return 2\n```\n"
    api.apply(src, "Make a() return 2.", options=RunOptions(k=8), engine=scripted_engine(tokenizer, out), cwd=tmp_path)
    assert [o.k for o in made] == [8]


def test_the_option_table_words_the_choices_names_the_config_keys_and_the_invariant_switches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One table (options.OPTIONS): a name none of an option's choices is refused in the same words by the
    CLI's parser and by RunOptions; the config file's keys are the rows marked `config` and the apply
    command's verbosity; each invariant invariants.py can report has the switch its row names."""
    import ast
    import inspect

    from applyedit import invariants
    from applyedit.cli.main import main
    from applyedit.cli.parts import CONFIG_KEYS
    from applyedit.options import INVARIANT_SWITCHES

    with pytest.raises(InputError) as made:
        RunOptions(answer="maybe")
    assert str(made.value) == "unknown --answer 'maybe'; choose merge, auto or model"
    (tmp_path / "f.py").write_text("A = 1\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as parsed:
        main(["f.py", "--edit-text", "x", "--answer", "maybe"])
    assert parsed.value.code == 1 and str(made.value) in capsys.readouterr().err
    assert CONFIG_KEYS == {"model": str, "backend": str, "k": int, "verbose": bool, "quiet": bool}
    tree = ast.parse(inspect.getsource(invariants))
    reported = {
        c.value
        for call in ast.walk(tree)
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "Violation"
        for c in ast.walk(call.args[0])
        if isinstance(c, ast.Constant) and isinstance(c.value, str)
    }
    assert reported == set(INVARIANT_SWITCHES) and len(reported) == 6
    assert {s.flag for s in INVARIANT_SWITCHES.values()} == {
        "--allow-mismatch", "--allow-drops", "--allow-lost-definitions", "--allow-syntax-errors",
        "--allow-head-changes", "--allow-unseen-changes",
    }
