"""Where the shipped rubrics and configs live: `rubrics/` and `configs/` beside the package in a checkout or an
editable install, or inside the installed package (`reward/rubrics`, `reward/configs`; setup.py maps them there),
so a non-editable install finds them too."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def shipped(name: str) -> Path:
    """The folder `name` (`rubrics` or `configs`) of this checkout, else of the installed package."""
    source = _PACKAGE.parent / name
    return source if source.is_dir() else _PACKAGE / name


def resolve_config(path: str | Path) -> Path:
    """`path` as given when it exists; else, for a `configs/...` path, the shipped copy.

    >>> resolve_config("configs/serve/local.yaml").is_file()
    True
    """
    given = Path(path)
    if given.exists() or given.is_absolute() or not given.parts or given.parts[0] != "configs":
        return given
    return shipped("configs").joinpath(*given.parts[1:])
