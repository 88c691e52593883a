"""Where applyedit keeps its caches, and the user's own defaults from `applyedit.toml`.

Owns two things every command shares:

- the cache root: `$APPLYEDIT_HOME` when set, else the platform's user cache folder from
  platformdirs (on Linux `$XDG_CACHE_HOME/applyedit`, by default `~/.cache/applyedit`, where earlier
  versions kept it, so existing caches keep working);
- the optional config file `applyedit.toml` in the platform's user config folder (on Linux
  `$XDG_CONFIG_HOME/applyedit/applyedit.toml`, by default `~/.config/applyedit/applyedit.toml`;
  `$APPLYEDIT_CONFIG` names another file) holding the defaults a user would otherwise type every
  time. Which keys it may hold, and the type of each, its caller says (the CLI's `parts.CONFIG_KEYS`,
  made from the option table: `model`, `backend`, `k` (the draft length cap), and `verbose` / `quiet`).

Precedence, highest first: a flag on the command line, an environment variable (`APPLYEDIT_MODEL`,
`APPLYEDIT_BACKEND`), the config file, the built-in default. `resolve` applies it to the values of a
click context. Knows nothing of models: it hands back strings, numbers and booleans.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from applyedit.errors import UsageError

__all__ = ["cache_home", "config_path", "load", "resolve"]

APP = "applyedit"


def cache_home() -> Path:
    """The cache root: `$APPLYEDIT_HOME`, else the user cache folder (`$XDG_CACHE_HOME/applyedit`)."""
    if os.environ.get("APPLYEDIT_HOME"):
        return Path(os.environ["APPLYEDIT_HOME"])
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP, appauthor=False))


def config_path() -> Path:
    """`$APPLYEDIT_CONFIG`, else `applyedit.toml` in the user config folder (it may not exist)."""
    if os.environ.get("APPLYEDIT_CONFIG"):
        return Path(os.environ["APPLYEDIT_CONFIG"])
    import platformdirs

    return Path(platformdirs.user_config_dir(APP, appauthor=False)) / "applyedit.toml"


def load(keys: Mapping[str, type], path: Path | None = None) -> dict[str, Any]:
    """The config file's settings ({} when the default file does not exist); a key not in `keys`, a
    value not of its type there, or a file named by `path` or `$APPLYEDIT_CONFIG` that is missing or no
    file, is a usage error."""
    named = path is not None or bool(os.environ.get("APPLYEDIT_CONFIG"))
    path = path or config_path()
    if str(path) == os.devnull:  # `APPLYEDIT_CONFIG=/dev/null`: no file, on purpose
        return {}
    if not path.is_file():
        if named or os.path.lexists(path):  # a file the user named, or something else in its place
            what = "is a directory" if path.is_dir() else "is not a regular file" if path.exists() else "does not exist"
            raise UsageError(f"config file {path} {what}" + (" ($APPLYEDIT_CONFIG)" if named else ""))
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise UsageError(f"config file {path}: {e}") from e
    except RecursionError:
        raise UsageError(f"config file {path}: nested too deeply to read") from None
    for key, value in data.items():
        if key not in keys:
            raise UsageError(f"config file {path}: unknown setting {key!r}; known: {', '.join(keys)}")
        if not isinstance(value, keys[key]) or (keys[key] is int and isinstance(value, bool)):
            raise UsageError(f"config file {path}: {key} must be of type {keys[key].__name__}, not {value!r}")
    return data


def resolve(
    ctx: Any, values: dict[str, Any], keys: Mapping[str, type], config: dict[str, Any] | None = None
) -> dict[str, Any]:
    """`values` (parameter name -> value) with the config file's setting (of `keys`) taking the place
    of each value that came from the built-in default (not from a flag or an environment variable)."""
    config = load(keys) if config is None else config
    out = dict(values)
    for name in values:
        source = ctx.get_parameter_source(name)  # compared by name: typer may bring its own click
        if name in config and getattr(source, "name", "DEFAULT") in ("DEFAULT", "DEFAULT_MAP"):
            out[name] = config[name]
    return out
