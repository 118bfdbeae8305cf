"""Where the sines and cosines go: the two column layouts of the table.

``"interleaved"`` is the paper's layout (Vaswani et al., 2017, Sec. 3.5):
column ``2i`` holds ``sin(omega_i pos)`` and column ``2i + 1`` holds
``cos(omega_i pos)``.  ``"concatenated"`` stores all sines, then all cosines,
``[sin_0 ... sin_{d/2-1} | cos_0 ... cos_{d/2-1}]``, as tensor2tensor, fairseq
and Marian do.  The two hold the same numbers in a different column order.
"""

from __future__ import annotations

import numpy as np

from .._checks import LAYOUTS, check_d_model, check_layout

__all__ = ["LAYOUTS", "layout_permutation", "place_pairs"]


def _column_of_pair(d_model: int, layout: str) -> np.ndarray:
    """For interleaved column j = 2i + kind (kind 0 = sin, 1 = cos), its column in `layout`."""
    j = np.arange(d_model)
    kind, i = j % 2, j // 2
    if layout == "interleaved":
        return j
    return kind * (d_model // 2) + i


def layout_permutation(d_model: int, source: str, target: str) -> np.ndarray:
    """Column permutation that turns a table in one layout into the other.

    Parameters
    ----------
    d_model : int
        Encoding width; a positive even integer.
    source, target : {"interleaved", "concatenated"}
        Layout of the table you have, and the layout you want.

    Returns
    -------
    ndarray, shape (d_model,), dtype int64
        ``perm`` such that ``table_in_target == table_in_source[:, perm]``.

    Raises
    ------
    ValueError
        If `d_model` is not positive and even, or a layout is unknown.

    Examples
    --------
    >>> layout_permutation(6, "concatenated", "interleaved")
    array([0, 3, 1, 4, 2, 5])
    >>> layout_permutation(6, "interleaved", "concatenated")
    array([0, 2, 4, 1, 3, 5])
    """
    d_model = check_d_model(d_model)
    source, target = check_layout(source), check_layout(target)
    perm = np.empty(d_model, dtype=np.int64)
    perm[_column_of_pair(d_model, target)] = _column_of_pair(d_model, source)
    return perm


def place_pairs(table, sines, cosines, layout: str):
    """Write sines and cosines into the columns `layout` assigns them.

    Works for numpy arrays and torch tensors alike (both index the same way).

    Parameters
    ----------
    table : ndarray or Tensor, shape (seq_len, d_model)
        Output, written in place; its dtype receives the values (a cast).
    sines, cosines : ndarray or Tensor, shape (seq_len, d_model // 2)
        ``sin(angles)`` and ``cos(angles)``.
    layout : {"interleaved", "concatenated"}
        Column layout; see the module docstring.

    Returns
    -------
    ndarray or Tensor
        `table`, filled.

    Raises
    ------
    ValueError
        If `layout` is unknown.

    Examples
    --------
    >>> sines, cosines = np.array([[0.1, 0.2]]), np.array([[0.9, 0.8]])
    >>> place_pairs(np.empty((1, 4)), sines, cosines, "interleaved")
    array([[0.1, 0.9, 0.2, 0.8]])
    >>> place_pairs(np.empty((1, 4)), sines, cosines, "concatenated")
    array([[0.1, 0.2, 0.9, 0.8]])
    """
    half = table.shape[-1] // 2
    if check_layout(layout) == "interleaved":
        table[:, 0::2] = sines
        table[:, 1::2] = cosines
    else:
        table[:, :half] = sines
        table[:, half:] = cosines
    return table
