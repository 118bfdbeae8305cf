"""Names that are imported on first use (PEP 562), so that importing a package stays light.

The torch-backed parts of the companion live behind these: ``import companion`` needs only
numpy, and torch is imported the first time a name that needs it is used.  Without torch,
``from companion import name`` and ``companion.name`` raise an ImportError that says what to
install, while ``hasattr(companion, name)`` is False and ``getattr(companion, name, None)`` is
None, as for any absent attribute (they see an AttributeError with the same message).
"""

from __future__ import annotations

import dis
import importlib
import importlib.util
import sys
from typing import Any, Callable


# Instructions that name the attribute in the caller's code: ``from package import name``,
# ``package.name``. Anything else (``hasattr``, ``getattr`` with a default) asks whether it exists.
_NAMING_INSTRUCTIONS = ("IMPORT_FROM", "LOAD_ATTR", "LOAD_METHOD")


def _names_it(frame: Any) -> bool:
    """Whether `frame`'s current instruction names the attribute (rather than asking ``hasattr``)."""
    if frame is None:
        return False
    return any(instruction.offset == frame.f_lasti and instruction.opname in _NAMING_INSTRUCTIONS
               for instruction in dis.get_instructions(frame.f_code))


def lazy_names(package: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``names[name]`` (a submodule of `package`) on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : dict of str to str
        Attribute name -> relative module that defines it.

    Returns
    -------
    callable
        The ``__getattr__`` for the package's namespace.

    Raises
    ------
    ImportError
        (from the returned function) If the name's module cannot be imported (a dependency is
        missing or too old) and the caller's code names it (``from package import name``,
        ``package.name``); the message says what to install.
    AttributeError
        (from the returned function) For a name not in `names`, or the same missing dependency
        when the caller only asks (``hasattr``, ``getattr``).
    """

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            module = importlib.import_module(names[name], package)
        except ImportError as error:
            if _names_it(sys._getframe(1)):
                raise
            raise AttributeError(f"{package}.{name} is not available: {error}", name=name) from error
        value = getattr(module, name)
        importlib.import_module(package).__dict__[name] = value  # later lookups skip __getattr__
        return value

    return __getattr__


def available(dependency: str) -> bool:
    """Whether `dependency` can be imported, without importing it (for a conditional ``__all__``).

    Parameters
    ----------
    dependency : str
        A top-level package name, such as ``"torch"``.

    Returns
    -------
    bool
        False if it is not installed, or blocked (``sys.modules[dependency] = None``).

    Examples
    --------
    >>> available("numpy"), available("no_such_package")
    (True, False)
    """
    try:
        return importlib.util.find_spec(dependency) is not None
    except ValueError:  # in sys.modules without a __spec__
        return sys.modules.get(dependency) is not None
