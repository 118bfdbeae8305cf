r"""Build the table by angle addition: few sines, many multiplications.

For positions in arithmetic progression, ``p = a + b`` splits every position
into an *anchor* ``a`` (a multiple of a block of ``B`` steps) and an
*offset* ``b`` (less than ``B`` steps).  The angle-addition formulas

.. math::

    \sin(\omega(a + b)) = \sin\omega a \cos\omega b + \cos\omega a \sin\omega b, \qquad
    \cos(\omega(a + b)) = \cos\omega a \cos\omega b - \sin\omega a \sin\omega b

(the rotation :math:`R(a + b) = R(a) R(b)` of the linearity proof) give the
whole table from the sines and cosines of about ``sqrt(seq_len)`` anchors
and ``sqrt(seq_len)`` offsets.  Anchors and offsets are themselves built the
same way, one level down, from about ``4 seq_len ** (1/4)`` sines and cosines
evaluated directly in float64, since a direct evaluation costs far more than
a multiplication.  Written as one complex
product per entry, ``(sin a + i cos a)(cos b - i sin b) = sin(a+b) + i cos(a+b)``,
whose real and imaginary parts land side by side in memory: the paper's
interleaved layout.  Products are formed in float64 (complex128) and each is
rounded once to the output dtype, so the result is about as accurate as
evaluating every angle directly in float64 (both carry float64 errors of about
``1e-16 * pos``), and several times faster: trigonometric functions cost far
more than multiplications.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import check_count

__all__ = ["METHODS", "arithmetic_progression", "directly_evaluated_rows", "interleaved_table"]

#: How :func:`interleaved_table` evaluates: angle addition where it can, or one
#: sine and cosine per entry.
METHODS = ("auto", "direct")

# Progressions this short are cheaper to evaluate directly than to compose.
_DIRECT = 4

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


def _expi(angles: np.ndarray) -> np.ndarray:
    """``cos(angles) + i sin(angles)``, evaluated directly in float64."""
    return np.cos(angles) + 1j * np.sin(angles)


def _progression_phases(omega: np.ndarray, start: float, step: float, count: int) -> np.ndarray:
    """``exp(i omega (start + step k))`` for ``k = 0 .. count - 1``, shape (count, omega.size), complex128.

    Recursively by angle addition, ``k = coarse + fine`` with ``fine < isqrt(count)``,
    down to progressions of at most ``_DIRECT`` terms, which are evaluated
    directly: about ``4 count ** (1/4)`` direct rows and at most
    ``log2(log2(count))`` float64 products per value.
    """
    if count <= _DIRECT:
        return _expi((start + step * np.arange(count))[:, None] * omega)
    fine_count = math.isqrt(count)
    coarse_count = -(-count // fine_count)
    fine = _progression_phases(omega, 0.0, step, fine_count)
    coarse = _progression_phases(omega, start, step * fine_count, coarse_count)
    return (coarse[:, None, :] * fine[None, :, :]).reshape(-1, omega.size)[:count]


def _phase_rows(count: int) -> int:
    """Rows :func:`_progression_phases` evaluates directly for a progression of `count` terms."""
    if count <= _DIRECT:
        return count
    fine_count = math.isqrt(count)
    return _phase_rows(fine_count) + _phase_rows(-(-count // fine_count))


def directly_evaluated_rows(seq_len: int) -> int:
    """How many rows of sines and cosines :func:`interleaved_table` evaluates directly.

    For an arithmetic progression of `seq_len` positions, the other rows are
    products; for anything else (or fewer than two positions), every row is
    evaluated directly.

    Parameters
    ----------
    seq_len : int
        Number of positions in the progression; non-negative.

    Returns
    -------
    int
        Rows of ``d_model // 2`` sines and cosines computed with ``np.sin``
        and ``np.cos``; the rest of the table costs one complex
        multiplication per (sin, cos) pair.

    Raises
    ------
    TypeError, ValueError
        If `seq_len` is not a non-negative integer.

    Examples
    --------
    >>> directly_evaluated_rows(1000), directly_evaluated_rows(4096)
    (22, 24)
    """
    seq_len = check_count(seq_len, "seq_len")
    if seq_len < 2:
        return seq_len
    block = max(1, math.isqrt(seq_len))
    return _phase_rows(-(-seq_len // block)) + _phase_rows(block)


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
    # sin a + i cos a = i conj(exp(i a)) at the anchors a = start + step * block * j
    at_anchor = 1j * np.conj(_progression_phases(omega, start, step * block, full_blocks + (remainder > 0)))
    rotation = np.conj(_progression_phases(omega, 0.0, step, block))  # cos b - i sin b
    body = pairs[: full_blocks * block].reshape(full_blocks, block, half)
    np.multiply(at_anchor[:full_blocks, None, :], rotation[None, :, :], out=body, casting="same_kind")
    if remainder:
        np.multiply(at_anchor[-1], rotation[:remainder], out=pairs[full_blocks * block :], casting="same_kind")
    return table
