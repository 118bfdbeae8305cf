"""The loop version: the paper's formula written out cell by cell.

This is the code a reader writes first, with Python loops and :mod:`math`.
It is slow on purpose; the chapter *The vectorized version* replaces it with
array code, and the tests hold the two to the same values.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import check_base, check_count, check_d_model

__all__ = ["loop_encoding"]


def loop_encoding(
    seq_len: int, d_model: int, base: float = 10_000.0
) -> np.ndarray:
    r"""Sinusoidal positional encoding, computed one entry at a time.

    Implements, for ``pos = 0, ..., seq_len - 1`` and ``i = 0, ..., d_model/2 - 1``
    (Vaswani et al., 2017, Sec. 3.5):

    .. math::

        PE_{(pos, 2i)} = \sin(pos / \mathrm{base}^{2i/d_{model}}), \qquad
        PE_{(pos, 2i+1)} = \cos(pos / \mathrm{base}^{2i/d_{model}}).

    ``i`` counts (sin, cos) *pairs*, so it advances once for every two columns.

    Parameters
    ----------
    seq_len : int
        Number of positions (rows); non-negative.
    d_model : int
        Encoding width (columns); a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.

    Returns
    -------
    ndarray, shape (seq_len, d_model), dtype float64
        Row ``pos`` is the encoding of position ``pos``; sines in even
        columns, cosines in odd columns (the paper's interleaved layout).

    Raises
    ------
    TypeError
        If `seq_len` or `d_model` is not an integer, or `base` is not real.
    ValueError
        If `seq_len` is negative, `d_model` is not positive and even, or
        `base` is not finite and > 1.

    Examples
    --------
    >>> loop_encoding(2, 4).round(4)
    array([[0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.01  , 1.    ]])
    """
    seq_len = check_count(seq_len, "seq_len")
    d_model = check_d_model(d_model)
    base = check_base(base)
    table = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for i in range(d_model // 2):
            angle = pos / base ** (2 * i / d_model)
            table[pos, 2 * i] = math.sin(angle)
            table[pos, 2 * i + 1] = math.cos(angle)
    return table
