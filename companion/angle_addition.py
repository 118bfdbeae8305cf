r"""Build the table by angle addition: few sines, many multiplications.

For positions in arithmetic progression, ``p = a + b`` splits every position
into an *anchor* ``a`` (a multiple of a block of ``B`` steps) and an
*offset* ``b`` (less than ``B`` steps).  The angle-addition formulas

.. math::

    \sin(\omega(a + b)) = \sin\omega a \cos\omega b + \cos\omega a \sin\omega b, \qquad
    \cos(\omega(a + b)) = \cos\omega a \cos\omega b - \sin\omega a \sin\omega b

(the rotation :math:`R(a + b) = R(a) R(b)` of the linearity proof) give the
whole table from the sines and cosines of about ``2 sqrt(seq_len)`` anchors
and offsets, all computed directly in float64.  Written as one complex
product per entry, ``(sin a + i cos a)(cos b - i sin b) = sin(a+b) + i cos(a+b)``,
whose real and imaginary parts land side by side in memory: the paper's
interleaved layout.  Products are formed in float64 (complex128) and each is
rounded once to the output dtype, so the result is as accurate as evaluating
every angle directly in float64, and several times faster: trigonometric
functions cost far more than multiplications.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["METHODS", "arithmetic_progression", "interleaved_table"]

#: How :func:`interleaved_table` evaluates: angle addition where it can, or one
#: sine and cosine per entry.
METHODS = ("auto", "direct")

_COMPLEX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def arithmetic_progression(positions: np.ndarray):
    """Return ``(start, step)`` if ``positions[j] == start + j * step`` exactly, else None.

    Parameters
    ----------
    positions : ndarray, shape (seq_len,), dtype float64
        Finite positions.

    Returns
    -------
    tuple of float, or None
        The progression, or None when `positions` is not one (or has fewer
        than two entries).

    Examples
    --------
    >>> arithmetic_progression(np.arange(5.0) * 3 + 7)
    (7.0, 3.0)
    >>> arithmetic_progression(np.array([0.0, 1.0, 3.0])) is None
    True
    """
    if positions.size < 2:
        return None
    start, step = float(positions[0]), float(positions[1] - positions[0])
    if np.array_equal(positions, start + step * np.arange(positions.size)):
        return start, step
    return None


def _sin_plus_i_cos(angles: np.ndarray) -> np.ndarray:
    return np.sin(angles) + 1j * np.cos(angles)


def interleaved_table(positions: np.ndarray, omega: np.ndarray, dtype, *, method: str = "auto") -> np.ndarray:
    """The encoding of `positions` in the interleaved layout, in float32 or float64.

    Uses angle addition when `positions` is an arithmetic progression, and
    evaluates every angle directly otherwise; both compute in float64 and
    round each value once to `dtype`.

    Parameters
    ----------
    positions : ndarray, shape (seq_len,), dtype float64
        Finite positions (validated by the caller).
    omega : ndarray, shape (d_model // 2,), dtype float64
        Angular frequencies in radians per position.
    dtype : {numpy.float32, numpy.float64}
        Output dtype.
    method : {"auto", "direct"}, default "auto"
        ``"direct"`` evaluates one sine and cosine per entry even for a
        progression (for comparisons and benchmarks).

    Returns
    -------
    ndarray, shape (seq_len, d_model), dtype `dtype`
        Column ``2i`` holds ``sin(omega_i p)``, column ``2i + 1`` ``cos(omega_i p)``.

    Raises
    ------
    ValueError
        If `method` is unknown.

    Examples
    --------
    >>> omega = np.array([1.0, 0.01])
    >>> table = interleaved_table(np.arange(100.0), omega, np.float64)
    >>> angles = np.arange(100.0)[:, None] * omega
    >>> bool(np.allclose(table[:, 0::2], np.sin(angles), rtol=0, atol=1e-14))
    True
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    dtype = np.dtype(dtype)
    seq_len, half = positions.size, omega.size
    table = np.empty((seq_len, 2 * half), dtype=dtype)
    progression = arithmetic_progression(positions) if method == "auto" else None
    if progression is None:
        angles = positions[:, None] * omega
        # float64 sin and cos, each rounded once into the output's columns
        np.sin(angles, out=table[:, 0::2], casting="same_kind")
        np.cos(angles, out=table[:, 1::2], casting="same_kind")
        return table
    start, step = progression
    pairs = table.view(_COMPLEX[dtype])  # (seq_len, half): real part = sin, imaginary part = cos
    block = max(1, math.isqrt(seq_len))
    full_blocks, remainder = divmod(seq_len, block)
    anchors = start + step * block * np.arange(full_blocks + (remainder > 0))
    at_anchor = _sin_plus_i_cos(anchors[:, None] * omega)  # sin a + i cos a
    offset_angles = (step * np.arange(block))[:, None] * omega
    rotation = np.cos(offset_angles) - 1j * np.sin(offset_angles)  # cos b - i sin b
    body = pairs[: full_blocks * block].reshape(full_blocks, block, half)
    np.multiply(at_anchor[:full_blocks, None, :], rotation[None, :, :], out=body, casting="same_kind")
    if remainder:
        np.multiply(at_anchor[-1], rotation[:remainder], out=pairs[full_blocks * block :], casting="same_kind")
    return table
