"""A high-precision reference for the table, computed with mpmath.

Used to measure how accurate the float64, float32 and half-precision tables
are.  Every angle is evaluated with ``digits`` significant decimal digits and
each value is then rounded once to float64, so the reference is within half
a float64 ulp (about 1e-16) of the exact encoding of the given positions.
"""

from __future__ import annotations

from .._environment import require

require("mpmath")

import mpmath
import numpy as np

from .._checks import check_base, check_count, check_d_model, check_layout, check_positions
from ..encoding.layouts import place_pairs

__all__ = ["half_ulp", "reference_encoding"]


def reference_encoding(
    positions,
    d_model: int,
    *,
    base: float = 10_000.0,
    layout: str = "interleaved",
    digits: int = 40,
) -> np.ndarray:
    r"""The encoding of `positions`, correct to float64 rounding (mpmath).

    Evaluates :math:`\sin(pos \cdot \mathrm{base}^{-2i/d_{model}})` and the
    cosine (Vaswani et al., 2017, Sec. 3.5) with the exact ``base`` and
    positions given, in `digits`-digit arithmetic.  Slow (tens of
    microseconds per entry): meant for a few hundred rows, not a whole table.

    Parameters
    ----------
    positions : array_like, shape (seq_len,)
        Finite real positions, magnitudes up to ``2**53``.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    layout : {"interleaved", "concatenated"}, default "interleaved"
        Column layout, as in :func:`~companion.sinusoidal_encoding`.
    digits : int, default 40
        Decimal digits of working precision; 40 leaves more than 20 digits
        after the decimal point for angles up to ``2**53``.

    Returns
    -------
    ndarray, shape (seq_len, d_model), dtype float64
        Each entry the float64 nearest to the exact value.

    Raises
    ------
    TypeError, ValueError
        On bad arguments, as :func:`~companion.sinusoidal_encoding`; `digits` must be
        an integer of at least 20.

    Examples
    --------
    >>> reference_encoding([1e6], 4)[0, :2].round(6)
    array([-0.349994,  0.936752])
    """
    positions = check_positions(positions)
    d_model = check_d_model(d_model)
    base = check_base(base)
    layout = check_layout(layout)
    digits = check_count(digits, "digits")
    if digits < 20:
        raise ValueError(f"digits must be at least 20 for a float64 reference, got {digits}")
    half = d_model // 2
    sines = np.empty((positions.size, half))
    cosines = np.empty((positions.size, half))
    with mpmath.workdps(digits):
        omegas = [mpmath.mpf(base) ** (-mpmath.mpf(2 * i) / d_model) for i in range(half)]
        for row, position in enumerate(positions):
            for i, omega in enumerate(omegas):
                angle = mpmath.mpf(position) * omega
                sines[row, i] = float(mpmath.sin(angle))
                cosines[row, i] = float(mpmath.cos(angle))
    return place_pairs(np.empty((positions.size, d_model)), sines, cosines, layout)


def half_ulp(values, dtype) -> np.ndarray:
    """Half the spacing of `dtype` at each of `values`: the error of correct rounding.

    Parameters
    ----------
    values : array_like
        Real values (any shape).
    dtype : {numpy.float16, numpy.float32, numpy.float64}
        The floating-point format.

    Returns
    -------
    ndarray, same shape as `values`, dtype float64
        ``np.spacing(|values|) / 2`` in `dtype`.  A value rounded to nearest
        in `dtype` is at most this far from the exact value.

    Examples
    --------
    >>> half_ulp([0.75, 1e-3], np.float32)
    array([2.98023224e-08, 5.82076609e-11])
    """
    return np.spacing(np.abs(np.asarray(values, dtype=np.float64)).astype(dtype)).astype(np.float64) / 2
