"""Lazy package exports: a package names its public objects without importing their modules.

`import parley.cli.app` (every `parley` command, `--help` included) must not pay for numpy, scipy,
pydantic or an LLM SDK it does not use, so package `__init__` files re-export through
`lazy_exports` instead of `from .module import name`; the module is imported on first access.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Module `__getattr__` and `__dir__` functions for a package that re-exports names lazily.

    Use as `__getattr__, __dir__ = lazy_exports(__name__, {"parley.x.module": ("Name", ...)})`,
    with the same names imported under `if TYPE_CHECKING:` for type checkers and listed in
    `__all__`. A name may equal the submodule that defines it (`parley.language.parse.parse`): the
    package attribute stays the function when that submodule is imported, as it did when the
    package imported it eagerly.

    Args:
        package: The package's `__name__` (the package being initialised).
        exports: Per defining module (absolute name), the names it provides.

    Returns:
        The package's `__getattr__` (imports the defining module on first access and caches the
        name in the package) and `__dir__`.
    """
    where = {name: module for module, names in exports.items() for name in names}
    namespace = sys.modules[package]

    class LazyPackage(ModuleType):
        def __setattr__(self, name: str, value: Any) -> None:
            # The import system binds submodule `x` as the package's attribute `x` once it is loaded:
            # an exported `x` defined in that submodule keeps the name instead.
            if isinstance(value, ModuleType) and where.get(name) == value.__name__:
                value = getattr(value, name)
            super().__setattr__(name, value)

    namespace.__class__ = LazyPackage

    def get_attribute(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(namespace, name, value)
        return value

    def list_names() -> list[str]:
        return sorted({*vars(namespace), *where})

    return get_attribute, list_names
