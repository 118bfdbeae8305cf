"""Names that are imported on first use (PEP 562), so that importing a package stays light.

The torch-backed parts of the companion live behind these: ``import companion`` needs only
numpy, and torch is imported the first time a name that needs it is used.
"""

from __future__ import annotations

import importlib


def lazy_names(package: str, names: dict[str, str]):
    """A module ``__getattr__`` that imports ``names[name]`` (a submodule of `package`) on first use."""

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(names[name], package), name)
        globals_of_package = importlib.import_module(package).__dict__
        globals_of_package[name] = value  # later lookups skip __getattr__
        return value

    return __getattr__
