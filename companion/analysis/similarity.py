"""Cosine similarity, the measure the sources use to compare vectors."""

from __future__ import annotations

import numpy as np

from .._checks import check_real_array

__all__ = ["cosine_similarity"]


def cosine_similarity(a, b):
    r"""Cosine of the angle between vectors, :math:`a \cdot b / (\|a\| \|b\|)`.

    Computed in float64 along the last axis; leading axes broadcast.  Each
    vector is first divided by its largest absolute entry, so the result is
    the same at every scale: vectors of size 1e200 or 1e-200 neither
    overflow nor underflow.

    Parameters
    ----------
    a, b : array_like, shape (..., n)
        Real vectors of the same length ``n >= 1``, finite and not all zero.
        numpy arrays, lists and torch tensors (any device) are accepted.

    Returns
    -------
    float or ndarray, shape (...)
        A Python float for two 1-D vectors, otherwise an array of the
        broadcast leading shape; values in [-1, 1] (dimensionless).

    Raises
    ------
    TypeError
        If `a` or `b` holds anything but real numbers (complex numbers,
        strings), or is a masked array.
    ValueError
        If the last dimensions differ, a vector is empty, a value is not
        finite, or a vector is exactly zero (the angle is then undefined).

    Examples
    --------
    >>> cosine_similarity([1, 0], [1, 1])
    0.7071067811865475
    >>> cosine_similarity([[1, 0], [0, 2]], [0, 1])
    array([0., 1.])
    >>> cosine_similarity([1e200, 1e200], [1e-200, 1e-200])
    1.0
    """
    a, b = check_real_array(a, "a"), check_real_array(b, "b")
    if a.ndim == 0 or b.ndim == 0 or a.shape[-1] != b.shape[-1] or a.shape[-1] == 0:
        raise ValueError(
            f"a and b must be vectors of the same non-zero length, got shapes {a.shape} and {b.shape}"
        )
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("a and b must be finite")
    largest_a, largest_b = np.abs(a).max(axis=-1, keepdims=True), np.abs(b).max(axis=-1, keepdims=True)
    if np.any(largest_a == 0) or np.any(largest_b == 0):
        raise ValueError("a and b must have non-zero norm: the cosine of a zero vector is undefined")
    a, b = a / largest_a, b / largest_b  # entries in [-1, 1], the largest exactly +-1
    # one square root of the product of the squared norms: parallel vectors give exactly 1
    norms = np.sqrt(np.sum(a * a, axis=-1) * np.sum(b * b, axis=-1))
    cosine = np.clip(np.sum(a * b, axis=-1) / norms, -1.0, 1.0)
    return float(cosine) if cosine.ndim == 0 else cosine
