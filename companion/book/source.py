"""The companion's own code, shown in a chapter where its idea is computed.

A chapter that calls :func:`~companion.analysis.distinguishability.similarity_trend` should let the reader
see how it works without leaving the page. :func:`show_source` reads the function's source with
``inspect`` at run time, so what the chapter shows is the code it runs and cannot drift from it.
The listing is Markdown (a fenced ``python`` block under a line naming the object and its file), which
the book, Colab, JupyterLab and GitHub's notebook viewer all render; the docstring is cut to its
first line, since the chapter around it is the explanation.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = ["SourceListing", "show_source"]


@dataclass(frozen=True)
class SourceListing:
    """Source code of companion objects, as a notebook displays it.

    Parameters
    ----------
    parts : tuple of (str, str)
        ``(heading, code)`` per object: a Markdown line naming the object and its file,
        and its source with the docstring cut to its first line.

    Examples
    --------
    >>> from companion.encoding.frequencies import wavelengths
    >>> listing = show_source(wavelengths)
    >>> listing.parts[0][1].splitlines()[0]
    'def wavelengths(d_model: int, base: float = 10_000.0, *, spacing: str = "paper") -> np.ndarray:'
    """

    parts: tuple[tuple[str, str], ...]

    def _repr_markdown_(self) -> str:
        return "\n\n".join(f"{heading}\n\n```python\n{code}\n```" for heading, code in self.parts)

    def __str__(self) -> str:
        return "\n\n".join(f"# {heading}\n{code}" for heading, code in self.parts)

    def __repr__(self) -> str:
        return str(self)


def show_source(*objects) -> SourceListing:
    """Source of companion functions or classes, for a chapter to display.

    Parameters
    ----------
    *objects : function or class
        One or more objects defined in the ``companion`` package.

    Returns
    -------
    SourceListing
        Displays as Markdown in a notebook: for each object, its name and file
        (``companion/<path>.py``) and its source in a ``python`` block, the docstring shortened to its first line.

    Raises
    ------
    TypeError
        If no object is given, or an object is not a function or class of the companion.

    Examples
    --------
    >>> from companion.encoding.frequencies import angular_frequencies
    >>> print(show_source(angular_frequencies).parts[0][0])
    `angular_frequencies` in `companion/encoding/frequencies.py`
    """
    if not objects:
        raise TypeError("show_source() needs at least one function or class of the companion")
    return SourceListing(tuple(_listing(obj) for obj in objects))


def _listing(obj) -> tuple[str, str]:
    obj = inspect.unwrap(obj)
    module = inspect.getmodule(obj)
    if not (inspect.isfunction(obj) or inspect.isclass(obj)) or module is None or not (
        module.__name__ == "companion" or module.__name__.startswith("companion.")
    ):
        raise TypeError(f"show_source() takes functions and classes of the companion, got {obj!r}")
    lines, _ = inspect.getsourcelines(obj)
    code = _shorten_docstring(textwrap.dedent("".join(lines)))
    path = PurePosixPath(*module.__name__.split(".")).with_suffix(".py")
    if PurePosixPath(inspect.getfile(module)).name == "__init__.py":
        path = path.with_suffix("") / "__init__.py"
    # No line numbers: they would change the chapter's output at every edit elsewhere in the file.
    heading = f"`{obj.__qualname__}` in `{path}`"
    return heading, code.rstrip("\n")


def _shorten_docstring(code: str) -> str:
    """``code`` with the docstring of every function and class in it cut to its first line."""
    lines = code.splitlines(keepends=True)
    docstrings = [
        node.body[0]
        for node in ast.walk(ast.parse(code))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    ]
    # From the bottom up, so that earlier line numbers stay valid.
    for doc in sorted(docstrings, key=lambda node: node.lineno, reverse=True):
        summary = doc.value.value.strip().splitlines()[0].strip().replace('"""', "'''")
        indent = lines[doc.lineno - 1][: doc.col_offset]
        raw = lines[doc.lineno - 1][doc.col_offset :].startswith(("r", "R"))
        quoted = summary if raw else summary.replace("\\", "\\\\")
        lines[doc.lineno - 1 : doc.end_lineno] = [f'{indent}{"r" if raw else ""}"""{quoted}"""\n']
    return "".join(lines)
