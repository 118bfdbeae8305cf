r"""Rotary position embedding (RoPE): the shift rotation applied to queries and keys.

Su et al. (2024, "RoFormer", Sec. 3.4) rotate each pair of coordinates of a
query or key at position :math:`p` by the angle :math:`p\,\omega_i`, with the
frequencies of the sinusoidal encoding.  The rotation of a vector at position
:math:`p` is :math:`B(p) = R(-p) = R(p)^\top`, with :math:`R` the shift matrix
of :func:`~companion.linearity.rotation_matrix`, so

.. math::

    (B(p)\,q) \cdot (B(s)\,k) = q^\top B(s - p)\, k,

which depends on the positions only through their offset.

Implementations pair the coordinates in two ways, and a model trained with
one breaks silently under the other:

- ``"interleaved"``: pairs ``(x[2i], x[2i+1])``, as in the RoFormer paper;
- ``"half"``: pairs ``(x[i], x[i + d/2])``, the "rotate half" code of
  GPT-NeoX and of Hugging Face's LLaMA.

They differ by the same column permutation as the two layouts of the table.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_d_model, check_positions
from .frequencies import angular_frequencies

__all__ = ["PAIRINGS", "apply_rotary"]

PAIRINGS = ("interleaved", "half")


def apply_rotary(x, positions, *, base: float = 10_000.0, pairing: str = "interleaved") -> np.ndarray:
    r"""Rotate the pairs of coordinates of `x` by ``positions * omega_i`` (RoPE).

    Parameters
    ----------
    x : array_like, shape (..., seq_len, d)
        Queries or keys; the last axis is the head dimension ``d`` (even).
    positions : array_like, shape (seq_len,)
        Finite position of each row of `x`.
    base : float, default 10000.0
        Finite and greater than 1.
    pairing : {"interleaved", "half"}, default "interleaved"
        Which coordinates form a pair; see the module docstring.

    Returns
    -------
    ndarray, same shape as `x`, dtype float64
        Pair ``(a, b)`` becomes ``(a cos t - b sin t, a sin t + b cos t)``
        with ``t = position * omega_i``; norms are preserved.

    Raises
    ------
    ValueError
        If ``x.shape[-1]`` is not even, ``x.shape[-2]`` differs from the
        number of positions, `positions` is invalid, or `pairing` is unknown.

    Examples
    --------
    >>> apply_rotary(np.array([[1.0, 0.0]]), [np.pi / 2]).round(12)
    array([[0., 1.]])
    """
    x = np.asarray(x, dtype=np.float64)
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {PAIRINGS}, got {pairing!r}")
    positions = check_positions(positions)
    if x.ndim < 2 or x.shape[-2] != positions.size:
        raise ValueError(
            f"x must have shape (..., seq_len, d) with seq_len = len(positions) = {positions.size}, got {x.shape}"
        )
    d = check_d_model(x.shape[-1])
    angles = positions[:, None] * angular_frequencies(d, base)
    cosines, sines = np.cos(angles), np.sin(angles)
    if pairing == "interleaved":
        first, second = np.s_[..., 0::2], np.s_[..., 1::2]
    else:
        first, second = np.s_[..., : d // 2], np.s_[..., d // 2 :]
    rotated = np.empty_like(x)
    rotated[first] = x[first] * cosines - x[second] * sines
    rotated[second] = x[first] * sines + x[second] * cosines
    return rotated
