"""Where caches and the user's defaults live (applyedit/userconfig.py): platformdirs' folders under
XDG, APPLYEDIT_HOME above them, and the precedence flag > environment variable > applyedit.toml >
built-in default, seen through the real CLI (api.apply is replaced by a recorder)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from applyedit import api, userconfig
from applyedit.cli.parts import CONFIG_KEYS
from applyedit.models import modelstore
from applyedit.errors import InputError
from clihelp import Run, run  # noqa: F401  (fixture)


def test_cache_home_follows_xdg_and_applyedit_home_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("APPLYEDIT_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert modelstore.home() == tmp_path / "me" / ".cache" / "applyedit"  # where earlier versions kept it
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert modelstore.home() == tmp_path / "xdg" / "applyedit"
    assert modelstore.default_gguf_path().is_relative_to(tmp_path / "xdg" / "applyedit")
    monkeypatch.setenv("APPLYEDIT_HOME", str(tmp_path / "mine"))
    assert modelstore.home() == tmp_path / "mine"


def test_config_file_lives_in_the_xdg_config_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("APPLYEDIT_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert userconfig.config_path() == tmp_path / "cfg" / "applyedit" / "applyedit.toml"
    assert userconfig.load(CONFIG_KEYS) == {}  # no file: no settings
    userconfig.config_path().parent.mkdir(parents=True)
    userconfig.config_path().write_text('backend = "llamacpp"\nk = 8\nverbose = true\n')
    assert userconfig.load(CONFIG_KEYS) == {"backend": "llamacpp", "k": 8, "verbose": True}


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """api.apply records the values the CLI chose and stops the run."""
    seen: list[dict[str, Any]] = []

    def record(file: Any, edit: str, **options: Any) -> Any:
        seen.append(options)
        raise InputError("recorded")

    monkeypatch.setattr(api, "apply", record)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.py").write_text("x = 1\n")
    for name in ("APPLYEDIT_BACKEND", "APPLYEDIT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("APPLYEDIT_CONFIG", raising=False)
    return seen


def chosen(calls: list[dict[str, Any]]) -> tuple[Any, Any, Any]:
    last = calls[-1]["options"]  # the RunOptions the CLI built
    return last.backend, last.model, last.k


def test_precedence_flag_env_config_default(
    calls: list[dict[str, Any]], run: Callable[..., Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ("f.py", "--edit-text", "Set x to 2.")
    run(*args)
    assert chosen(calls) == (None, None, 64)  # built-in defaults
    config = tmp_path / "cfg" / "applyedit" / "applyedit.toml"
    config.parent.mkdir(parents=True)
    config.write_text('backend = "llamacpp"\nmodel = "config.gguf"\nk = 8\n')
    run(*args)
    assert chosen(calls) == ("llamacpp", "config.gguf", 8)  # the config file
    monkeypatch.setenv("APPLYEDIT_BACKEND", "torch")
    monkeypatch.setenv("APPLYEDIT_MODEL", "env.gguf")
    run(*args)
    assert chosen(calls) == ("torch", "env.gguf", 8)  # environment variables over the file
    run(*args, "--backend", "llamacpp", "--model", "flag.gguf", "--k", "16")
    assert chosen(calls) == ("llamacpp", "flag.gguf", 16)  # flags over everything
    run(*args, "--k", "64")
    assert chosen(calls)[2] == 64  # a flag equal to the built-in default still wins over the file


def test_bad_config_is_one_clear_line(calls: list[dict[str, Any]], run: Callable[..., Run], tmp_path: Path) -> None:
    config = tmp_path / "cfg" / "applyedit" / "applyedit.toml"
    config.parent.mkdir(parents=True)
    config.write_text('beckend = "llamacpp"\n')
    r = run("f.py", "--edit-text", "Set x to 2.")
    assert r.code == 1 and not calls
    r.one_line("unknown setting 'beckend'")
    config.write_text("k = 'eight'\n")
    run("f.py", "--edit-text", "Set x to 2.").one_line("k must be of type int")
    config.write_text("k = [\n")
    assert run("f.py", "--edit-text", "Set x to 2.").code == 1
