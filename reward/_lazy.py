"""Lazy package exports: a package `__init__` declares which module holds each public name, and a name's module is
imported on first use (TRL's `_import_structure`), so importing the package loads no heavy dependency."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, structure: dict[str, list[str]], namespace: dict[str, Any],
                 public: list[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's `__getattr__` and `__dir__`: `structure` maps a submodule (relative to `package`) to the names
    it exports; a name is imported once and then kept in the package's `namespace`."""
    module_of = {name: module for module, names in structure.items() for name in names}

    def getattr_(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(public))

    return getattr_, dir_
