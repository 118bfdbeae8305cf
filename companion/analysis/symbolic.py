"""The encoding and its shift matrix as sympy expressions, for exact checks.

The linearity chapter uses these to verify :math:`PE(p + k) = R(k) PE(p)` with symbols in
place of numbers: the difference simplifies to exactly zero.
"""

from __future__ import annotations

from .._environment import require

require("sympy")

import sympy

__all__ = ["paper_frequency", "symbolic_encoding", "symbolic_rotation"]


def paper_frequency(i, d_model, base=sympy.Integer(10_000)):
    r"""The paper's angular frequency :math:`\omega_i = \mathrm{base}^{-2i/d_{model}}`, symbolically.

    Parameters
    ----------
    i, d_model, base : sympy expression or number
        Pair index, width and base; symbols are allowed.

    Returns
    -------
    sympy.Expr
        ``base ** (-2 * i / d_model)``.

    Raises
    ------
    sympy.SympifyError
        If an argument cannot be turned into a sympy expression.

    Examples
    --------
    >>> i, d = sympy.symbols("i d_model", positive=True)
    >>> paper_frequency(i, d)
    10000**(-2*i/d_model)
    """
    return sympy.sympify(base) ** (-2 * sympy.sympify(i) / sympy.sympify(d_model))


def symbolic_encoding(position, frequencies) -> sympy.Matrix:
    r"""The column vector :math:`(\sin\omega_0 p, \cos\omega_0 p, \sin\omega_1 p, \ldots)^\top`.

    Parameters
    ----------
    position : sympy expression or number
        The position :math:`p` (a symbol, or ``p + k``).
    frequencies : sequence of sympy expressions
        :math:`\omega_0, \omega_1, \ldots`, one per pair.

    Returns
    -------
    sympy.Matrix, shape (2 * len(frequencies), 1)
        The encoding in the paper's interleaved layout.

    Raises
    ------
    ValueError
        If `frequencies` is empty.

    Examples
    --------
    >>> p, w = sympy.symbols("p omega")
    >>> symbolic_encoding(p, [w]).T
    Matrix([[sin(omega*p), cos(omega*p)]])
    """
    if len(frequencies) == 0:
        raise ValueError("frequencies must hold at least one angular frequency")
    entries = []
    for omega in frequencies:
        entries += [sympy.sin(omega * position), sympy.cos(omega * position)]
    return sympy.Matrix(entries)


def symbolic_rotation(offset, frequencies) -> sympy.Matrix:
    r"""The block-diagonal :math:`R(k)`, one block :math:`\begin{pmatrix}\cos\omega k & \sin\omega k\\ -\sin\omega k & \cos\omega k\end{pmatrix}` per pair.

    Parameters
    ----------
    offset : sympy expression or number
        The shift :math:`k`.
    frequencies : sequence of sympy expressions
        :math:`\omega_0, \omega_1, \ldots`, one per pair.

    Returns
    -------
    sympy.Matrix, shape (2m, 2m), m = len(frequencies)
        Acts on :func:`symbolic_encoding` vectors.

    Raises
    ------
    ValueError
        If `frequencies` is empty.

    Examples
    --------
    >>> k, w = sympy.symbols("k omega")
    >>> symbolic_rotation(k, [w])
    Matrix([
    [ cos(k*omega), sin(k*omega)],
    [-sin(k*omega), cos(k*omega)]])
    """
    if len(frequencies) == 0:
        raise ValueError("frequencies must hold at least one angular frequency")
    blocks = [
        sympy.Matrix([[sympy.cos(omega * offset), sympy.sin(omega * offset)],
                      [-sympy.sin(omega * offset), sympy.cos(omega * offset)]])
        for omega in frequencies
    ]
    return sympy.diag(*blocks)
