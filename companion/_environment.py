"""Refuse, with a clear message, dependencies older than the companion supports.

Versions are read from the installed packages' metadata, without importing
them, so an old numpy or torch is reported before it can fail obscurely.
The bounds are those of ``pyproject.toml`` (a test keeps them equal).
"""

from __future__ import annotations

import re
from importlib import metadata

MINIMUM_VERSIONS = {
    "numpy": (1, 25),
    "torch": (2, 1),
    "gensim": (4, 4),
    "matplotlib": (3, 7),
    "mpmath": (1, 3),
    "nltk": (3, 9),
    "sympy": (1, 12),
}


def _release(version: str) -> tuple[int, ...]:
    """Leading numeric release of a version string: '2.13.0+cpu' -> (2, 13, 0)."""
    match = re.match(r"\d+(\.\d+)*", version)
    return tuple(int(part) for part in match.group(0).split(".")) if match else ()


def require(package: str) -> None:
    """Raise ImportError if `package` is missing or older than the companion supports."""
    minimum = MINIMUM_VERSIONS[package]
    wanted = ".".join(map(str, minimum))
    try:
        installed = metadata.version(package)
    except metadata.PackageNotFoundError:
        raise ImportError(
            f"the companion needs {package} >= {wanted}, which is not installed: "
            f"pip install '{package}>={wanted}'"
        ) from None
    if _release(installed) < minimum:
        raise ImportError(
            f"the companion needs {package} >= {wanted}, but this environment has {package} {installed}: "
            f"pip install --upgrade '{package}>={wanted}'"
        )
