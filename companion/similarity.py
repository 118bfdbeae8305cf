"""Cosine similarity, the measure the sources use to compare vectors."""

from __future__ import annotations

import numpy as np

__all__ = ["cosine_similarity"]


def cosine_similarity(a, b):
    r"""Cosine of the angle between vectors, :math:`a \cdot b / (\|a\| \|b\|)`.

    Computed in float64 along the last axis; leading axes broadcast.

    Parameters
    ----------
    a, b : array_like, shape (..., n)
        Real vectors of the same length ``n >= 1`` and non-zero norm.

    Returns
    -------
    float or ndarray, shape (...)
        A Python float for two 1-D vectors, otherwise an array of the
        broadcast leading shape; values in [-1, 1] (dimensionless).

    Raises
    ------
    ValueError
        If the last dimensions differ, a vector is empty, or a vector has
        zero norm (the angle is then undefined).

    Examples
    --------
    >>> cosine_similarity([1, 0], [1, 1])
    0.7071067811865475
    >>> cosine_similarity([[1, 0], [0, 2]], [0, 1])
    array([0., 1.])
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim == 0 or b.ndim == 0 or a.shape[-1] != b.shape[-1] or a.shape[-1] == 0:
        raise ValueError(
            f"a and b must be vectors of the same non-zero length, got shapes {a.shape} and {b.shape}"
        )
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    if np.any(norms == 0):
        raise ValueError("a and b must have non-zero norm: the cosine of a zero vector is undefined")
    cosine = np.clip(np.sum(a * b, axis=-1) / norms, -1.0, 1.0)
    return float(cosine) if cosine.ndim == 0 else cosine
