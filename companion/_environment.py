"""Refuse, with a clear message, dependencies that are missing or older than the companion supports.

The companion needs only numpy; the rest comes with the extras of ``pyproject.toml``
(``[torch]``, ``[word2vec]``, ``[book]``), and each module that needs one of them calls
:func:`require` before importing it.  The version checked is that of the module Python will
actually import (its ``__version__``), which is not always the one the installed metadata
names: a stray copy earlier on ``sys.path`` shadows it.  The bounds are those of
``pyproject.toml`` (a test keeps them equal).
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType

MINIMUM_VERSIONS = {
    "numpy": (1, 25),
    "torch": (2, 1),
    "gensim": (4, 4),
    "nltk": (3, 9),
    "matplotlib": (3, 10),
    "mpmath": (1, 3),
    "sympy": (1, 12),
    "scipy": (1, 11),
}

#: The extra of the companion that installs each optional package.
EXTRAS = {"torch": "torch", "gensim": "word2vec", "nltk": "word2vec", "matplotlib": "book", "mpmath": "book",
          "sympy": "book", "scipy": "book"}

DISTRIBUTION = "positional-encoding-companion"


def _release(version: str) -> tuple[int, ...]:
    """Leading numeric release of a version string: '2.13.0+cpu' -> (2, 13, 0)."""
    match = re.match(r"\d+(\.\d+)*", version)
    return tuple(int(part) for part in match.group(0).split(".")) if match else ()


def _install_hint(package: str, wanted: str, upgrade: bool) -> str:
    extra = EXTRAS.get(package)
    command = f"pip install {'--upgrade ' if upgrade else ''}'{package}>={wanted}'"
    if extra and not upgrade:
        return f"pip install '{DISTRIBUTION}[{extra}]' (or {command})"
    return command


def require(package: str) -> ModuleType:
    """Import `package`, or raise ImportError if it is missing or older than the companion supports.

    Returns the imported module.
    """
    minimum = MINIMUM_VERSIONS[package]
    wanted = ".".join(map(str, minimum))
    try:
        module = importlib.import_module(package)
    except ImportError as error:
        raise ImportError(
            f"the companion needs {package} >= {wanted}, which is not installed ({error}): "
            f"{_install_hint(package, wanted, upgrade=False)}"
        ) from None
    installed = str(getattr(module, "__version__", ""))
    if _release(installed) < minimum:
        raise ImportError(
            f"the companion needs {package} >= {wanted}, but Python imports {package} {installed or '(no version)'} "
            f"from {getattr(module, '__file__', None) or 'an unknown location'}: "
            f"{_install_hint(package, wanted, upgrade=True)}"
        )
    return module
