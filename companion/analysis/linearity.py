r"""Shifting a position is a rotation: :math:`PE(p + k) = R(k)\,PE(p)`.

For pair ``i`` with angular frequency :math:`\omega_i`, the angle-addition
formulas give

.. math::

    \begin{pmatrix} \sin\omega_i(p+k) \\ \cos\omega_i(p+k) \end{pmatrix}
    = \begin{pmatrix} \cos\omega_i k & \sin\omega_i k \\ -\sin\omega_i k & \cos\omega_i k \end{pmatrix}
      \begin{pmatrix} \sin\omega_i p \\ \cos\omega_i p \end{pmatrix},

so :math:`R(k)` is block-diagonal with one 2 x 2 rotation per pair, and does
not depend on :math:`p` (the chapter *Shifting a position is a rotation*
proves it, after Denk, 2019).  In the concatenated layout the same map is
:math:`P R(k) P^\top` for the layout permutation :math:`P`.

Sines alone (or cosines alone) admit no such matrix, but they do obey a
linear recurrence on *two* earlier positions,
:math:`\sin\omega(p+k) = 2\cos(\omega k)\sin\omega p - \sin\omega(p-k)`
(:func:`one_function_shift_matrix`).
"""

from __future__ import annotations

import numpy as np

from .._checks import check_d_model, check_layout, check_offset, check_positions
from ..encoding.frequencies import angular_frequencies
from ..encoding.layouts import layout_permutation

__all__ = ["rotation_matrix", "one_function_shift_matrix", "relative_dot_product", "fit_linear_map"]


def rotation_matrix(
    offset: float,
    d_model: int,
    base: float = 10_000.0,
    *,
    layout: str = "interleaved",
) -> np.ndarray:
    r"""The shift matrix: :math:`PE(p + k) = R(k) PE(p)` at every position.

    Source: the linearity remark of Vaswani et al. (2017), Sec. 3.5; the block-diagonal
    matrix is Denk's (2019); proved in the chapter *Shifting a position is a rotation*.

    Parameters
    ----------
    offset : float
        The shift :math:`k`, in positions; finite, any sign, need not be an integer.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    layout : {"interleaved", "concatenated"}, default "interleaved"
        Layout of the encodings it acts on.

    Returns
    -------
    ndarray, shape (d_model, d_model), dtype float64
        Orthogonal, determinant 1; block ``i`` (interleaved) is
        ``[[cos w_i k, sin w_i k], [-sin w_i k, cos w_i k]]``.

    Raises
    ------
    TypeError
        If `offset` or `base` is not a real number, or `d_model` not an integer.
    ValueError
        If `offset` is not finite, `d_model` is not positive and even, `base`
        is not finite and > 1, or `layout` is unknown.

    Examples
    --------
    >>> rotation_matrix(np.pi / 2, 2).round(12)
    array([[ 0.,  1.],
           [-1.,  0.]])
    >>> from companion import sinusoidal_encoding
    >>> pe = sinusoidal_encoding([3, 10], 8)
    >>> bool(np.allclose(rotation_matrix(7, 8) @ pe[0], pe[1]))
    True
    """
    offset = check_offset(offset)
    d_model = check_d_model(d_model)
    layout = check_layout(layout)
    angles = offset * angular_frequencies(d_model, base)
    cosines, sines = np.cos(angles), np.sin(angles)
    # Pair i: rows and columns 2i (sine) and 2i + 1 (cosine), a 2 x 2 block.
    matrix = np.zeros((d_model, d_model))
    even, odd = np.arange(0, d_model, 2), np.arange(1, d_model, 2)
    matrix[even, even] = cosines
    matrix[even, odd] = sines
    matrix[odd, even] = -sines
    matrix[odd, odd] = cosines
    if layout == "concatenated":
        order = layout_permutation(d_model, "interleaved", "concatenated")
        matrix = matrix[np.ix_(order, order)]
    return matrix


def one_function_shift_matrix(offset: float, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""The matrix :math:`M(k)` with :math:`S(p + k) = M(k) \begin{pmatrix} S(p) \\ S(p - k) \end{pmatrix}`.

    Here :math:`S(p) = (\sin\omega_0 p, \ldots, \sin\omega_{m-1} p)` holds the sine
    columns alone (:math:`m = d_{model}/2`).  No matrix maps :math:`S(p)` alone to
    :math:`S(p + k)`, but the identity
    :math:`\sin\omega(p+k) + \sin\omega(p-k) = 2\cos(\omega k)\sin\omega p`
    gives a linear map on two earlier positions:
    :math:`M(k) = [\,2\operatorname{diag}_i \cos\omega_i k \;\; -I\,]`.  The cosine
    columns alone obey the same recurrence with the same matrix (so does any
    sinusoid of frequency :math:`\omega_i`: it is the Chebyshev recurrence).

    Source: the angle-addition formulas, applied to the question the blog post *OG
    positional encoding* (2023) leaves open after Kazemnejad (2019): whether one
    function alone admits a linear shift.

    Parameters
    ----------
    offset : float
        The shift :math:`k`, in positions; finite, any sign, need not be an integer.
    d_model : int
        Width of the full encoding; a positive even integer.  The one-function table
        has ``d_model // 2`` columns.
    base : float, default 10000.0
        Finite and greater than 1.

    Returns
    -------
    ndarray, shape (d_model // 2, d_model), dtype float64
        Acts on the concatenation ``[S(p), S(p - k)]`` (length ``d_model``) and returns
        ``S(p + k)`` (length ``d_model // 2``).

    Raises
    ------
    TypeError
        If `offset` or `base` is not a real number, or `d_model` not an integer.
    ValueError
        If `offset` is not finite, `d_model` is not positive and even, or `base` is
        not finite and > 1.

    Examples
    --------
    >>> from companion import sinusoidal_encoding
    >>> sines = sinusoidal_encoding([3, 10, 17], 8)[:, 0::2]  # positions p - k, p, p + k for k = 7
    >>> one_function_shift_matrix(7, 8).shape
    (4, 8)
    >>> bool(np.allclose(one_function_shift_matrix(7, 8) @ np.concatenate([sines[1], sines[0]]), sines[2]))
    True
    """
    offset = check_offset(offset)
    d_model = check_d_model(d_model)
    half = d_model // 2
    return np.hstack([2 * np.diag(np.cos(offset * angular_frequencies(d_model, base))), -np.eye(half)])


def relative_dot_product(offsets, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""The dot product :math:`PE(p) \cdot PE(p + k) = \sum_i \cos(\omega_i k)`, for each offset :math:`k`.

    It is the same for every position :math:`p` (the identity of the notes *Positional Encoding*), even
    in :math:`k`, and equals :math:`d_{model}/2` at :math:`k = 0`.

    Parameters
    ----------
    offsets : array_like, shape (n,)
        Finite offsets :math:`k`, in positions.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.

    Returns
    -------
    ndarray, shape (n,), dtype float64
        The dot products (dimensionless, in ``[-d_model/2, d_model/2]``).

    Raises
    ------
    TypeError, ValueError
        If `offsets` are not finite real numbers in a 1-D array, or on the
        errors of :func:`~companion.angular_frequencies`.

    Examples
    --------
    >>> relative_dot_product([0, 1, -1], 4).round(4)
    array([2.    , 1.5403, 1.5403])
    """
    offsets = check_positions(offsets)
    return np.cos(offsets[:, None] * angular_frequencies(d_model, base)).sum(axis=1)


def fit_linear_map(inputs, outputs) -> tuple[np.ndarray, float]:
    """Least-squares matrix ``M`` with ``outputs[j] ~ M @ inputs[j]`` for every row ``j``.

    Parameters
    ----------
    inputs : array_like, shape (n, d_in)
        One input vector per row, e.g. encodings ``PE(p)``.
    outputs : array_like, shape (n, d_out)
        The matching outputs, e.g. ``PE(p + k)``.

    Returns
    -------
    matrix : ndarray, shape (d_out, d_in), dtype float64
        The best linear map in the least-squares sense.
    relative_residual : float
        ``||inputs @ M.T - outputs|| / ||outputs||`` (Frobenius norms); 0 when a
        linear map fits exactly.

    Raises
    ------
    ValueError
        If the arrays are not 2-D with the same number of rows, or `outputs` is zero.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> matrix, residual = fit_linear_map(x, x @ np.array([[2.0, 0.0], [0.0, 3.0]]).T)
    >>> bool(np.allclose(matrix, [[2.0, 0.0], [0.0, 3.0]])), residual < 1e-12
    (True, True)
    """
    inputs, outputs = np.asarray(inputs, dtype=np.float64), np.asarray(outputs, dtype=np.float64)
    if inputs.ndim != 2 or outputs.ndim != 2 or inputs.shape[0] != outputs.shape[0]:
        raise ValueError(
            f"inputs and outputs must be 2-D with one row per example, got shapes {inputs.shape} and {outputs.shape}"
        )
    scale = np.linalg.norm(outputs)
    if scale == 0:
        raise ValueError("outputs are all zero: there is nothing to fit")
    solution, *_ = np.linalg.lstsq(inputs, outputs, rcond=None)
    return solution.T, float(np.linalg.norm(inputs @ solution - outputs) / scale)
