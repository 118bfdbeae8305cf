r"""Attention by hand (numpy): the four terms of a score, and a head built from the shift rotation.

Notation of Vaswani et al. (2017, Sec. 3.2): row vectors, a query :math:`q_p = x_p W^Q` and a key
:math:`k_s = x_s W^K` with :math:`W^Q, W^K` of shape ``(d_model, d_k)``, and the score
:math:`q_p k_s^\top / \sqrt{d_k}`. With the encoding added to the token vectors (Sec. 3.5), the
unscaled score of query position :math:`p` and key position :math:`s` expands into four terms:

.. math::

    (x_p + PE_p)\, W^Q (W^K)^\top (x_s + PE_s)^\top
    = \underbrace{x_p M x_s^\top}_{\text{content-content}}
    + \underbrace{x_p M\, PE_s^\top}_{\text{content-position}}
    + \underbrace{PE_p M x_s^\top}_{\text{position-content}}
    + \underbrace{PE_p M\, PE_s^\top}_{\text{position-position}},
    \qquad M = W^Q (W^K)^\top .

With :math:`M = \beta R(k)`, the shift rotation of :func:`~companion.analysis.linearity.rotation_matrix`,
the position-position term is :math:`\beta\, PE_{p - k} \cdot PE_s = \beta \sum_i \cos \omega_i (s - p + k)`,
largest at :math:`s = p - k`: a head that looks :math:`k` positions back, at every :math:`p`
(:func:`offset_head`).
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np

from .._checks import check_count, check_d_model, check_offset, check_real_array
from ..analysis.linearity import rotation_matrix

__all__ = ["LogitTerms", "MixMargin", "attention_weights", "best_mix_margin", "diagonal_spread", "logit_terms",
           "most_attended_offset", "offset_head", "weight_from_offset", "weight_on_offset"]


class LogitTerms(NamedTuple):
    r"""The four terms of the attention scores, each of shape (seq_len, seq_len); rows are queries.

    Parameters
    ----------
    content_content, content_position, position_content, position_position : ndarray, shape (seq_len, seq_len)
        :math:`x_p M x_s^\top`, :math:`x_p M\,PE_s^\top`, :math:`PE_p M x_s^\top` and
        :math:`PE_p M\,PE_s^\top` for query :math:`p` (row) and key :math:`s` (column), with
        :math:`M = W^Q (W^K)^\top`.

    Examples
    --------
    >>> terms = LogitTerms(*np.ones((4, 2, 2)))
    >>> terms.total
    array([[4., 4.],
           [4., 4.]])
    """

    content_content: np.ndarray
    content_position: np.ndarray
    position_content: np.ndarray
    position_position: np.ndarray

    @property
    def total(self) -> np.ndarray:
        """The scores: the sum of the four terms."""
        return self.content_content + self.content_position + self.position_content + self.position_position


def _square_maps(values, name: str) -> np.ndarray:
    """`values` as a real float64 array of square maps, shape (..., seq_len, seq_len)."""
    values = check_real_array(values, name)
    if values.ndim < 2 or values.shape[-1] != values.shape[-2]:
        raise ValueError(f"{name} must have shape (..., seq_len, seq_len), got {values.shape}")
    return values


def _checked_terms_inputs(x, pe, w_q, w_k) -> tuple[np.ndarray, ...]:
    """The arguments of :func:`logit_terms` as float64 arrays, their shapes checked."""
    x, pe = check_real_array(x, "x"), check_real_array(pe, "pe")
    w_q, w_k = check_real_array(w_q, "w_q"), check_real_array(w_k, "w_k")
    if x.ndim != 2 or x.shape != pe.shape:
        raise ValueError(f"x and pe must both have shape (seq_len, d_model), got {x.shape} and {pe.shape}")
    if w_q.ndim != 2 or w_q.shape != w_k.shape or w_q.shape[0] != x.shape[1]:
        raise ValueError(
            f"w_q and w_k must both have shape (d_model={x.shape[1]}, d_k), got {w_q.shape} and {w_k.shape}")
    return x, pe, w_q, w_k


def logit_terms(x, pe, w_q, w_k) -> LogitTerms:
    r"""The attention scores of ``x + pe`` split into their four terms.

    Row vectors, as in Vaswani et al. (2017, Sec. 3.2.1): the query of position :math:`p` is
    :math:`(x_p + PE_p) W^Q`, its key :math:`(x_p + PE_p) W^K`.

    Parameters
    ----------
    x : array_like, shape (seq_len, d_model)
        Token vectors (the content), one row per position.
    pe : array_like, shape (seq_len, d_model)
        The positional encoding added to them.
    w_q, w_k : array_like, shape (d_model, d_k)
        Query and key projections :math:`W^Q` and :math:`W^K`.

    Returns
    -------
    LogitTerms
        ``content_content[p, s] = x_p M x_s^T`` and so on, with ``M = w_q @ w_k.T``; their
        ``total`` equals ``(x + pe) @ M @ (x + pe).T`` (float64, unscaled: no :math:`1/\sqrt{d_k}`).

    Raises
    ------
    ValueError
        If the shapes do not match.
    TypeError
        If an argument does not hold real numbers.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x, pe = rng.normal(size=(2, 5, 4))
    >>> w_q, w_k = rng.normal(size=(2, 4, 3))
    >>> terms = logit_terms(x, pe, w_q, w_k)
    >>> bool(np.allclose(terms.total, ((x + pe) @ w_q) @ ((x + pe) @ w_k).T))
    True
    """
    x, pe, w_q, w_k = _checked_terms_inputs(x, pe, w_q, w_k)
    m = w_q @ w_k.T  # the bilinear form W^Q (W^K)^T, (d_model, d_model)
    return LogitTerms(content_content=x @ m @ x.T, content_position=x @ m @ pe.T,
                      position_content=pe @ m @ x.T, position_position=pe @ m @ pe.T)


def attention_weights(logits, *, causal: bool = False) -> np.ndarray:
    """Softmax of each row of `logits`, optionally with a causal mask.

    Parameters
    ----------
    logits : array_like, shape (..., seq_len, seq_len)
        Row ``p`` holds query ``p``'s logits for every key.
    causal : bool, default False
        Let query ``p`` see only keys ``0 .. p`` (a decoder's mask).

    Returns
    -------
    ndarray, same shape, float64
        Each row is a probability distribution over the keys (zero after ``p`` when `causal`).

    Raises
    ------
    ValueError
        If the last two axes are not square.
    TypeError
        If `logits` does not hold real numbers.

    Examples
    --------
    >>> attention_weights(np.zeros((3, 3)), causal=True).round(3)
    array([[1.   , 0.   , 0.   ],
           [0.5  , 0.5  , 0.   ],
           [0.333, 0.333, 0.333]])
    """
    logits = _square_maps(logits, "logits")
    if causal:
        seq_len = logits.shape[-1]
        logits = np.where(np.tri(seq_len, dtype=bool), logits, -np.inf)
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def offset_head(offset: int, d_model: int, *, sharpness: float = 1.0,
                base: float = 10_000.0) -> tuple[np.ndarray, np.ndarray]:
    r"""Query and key projections of a head that attends `offset` positions back, built from :math:`R(k)`.

    With row vectors, :math:`PE_p R(k) = (R(k)^\top PE_p^\top)^\top = PE_{p - k}`
    (:math:`R(k)^\top = R(-k)`, chapter on linearity), so ``w_q = sharpness * R(k)`` turns the
    encoding of position :math:`p` into that of :math:`p - k`; ``w_k`` is the identity. On the
    encodings alone the score of query :math:`p` and key :math:`s` is then
    ``sharpness * PE(p - k) . PE(s)``, largest at :math:`s = p - k` and a function of
    :math:`s - p` alone. The bilinear form ``w_q @ w_k.T`` is ``sharpness * R(k)``.

    Parameters
    ----------
    offset : int
        How far back the head looks, :math:`k` (negative: ahead).
    d_model : int
        Encoding width; positive and even.
    sharpness : float, default 1.0
        Multiplies the scores (an inverse softmax temperature); larger puts more weight on
        :math:`p - k`.
    base : float, default 10000.0
        The encoding's base.

    Returns
    -------
    w_q, w_k : ndarray, shape (d_model, d_model), float64
        :math:`W^Q` and :math:`W^K`, acting on row vectors.

    Raises
    ------
    TypeError
        If `offset` or `sharpness` is not a finite real number, or `d_model` is not an integer.
    ValueError
        If `offset` is not finite, or `d_model` is not positive and even.

    Examples
    --------
    >>> from companion import sinusoidal_encoding
    >>> pe = sinusoidal_encoding(np.arange(12), 16)
    >>> w_q, w_k = offset_head(3, 16, sharpness=4.0)
    >>> weights = attention_weights((pe @ w_q) @ (pe @ w_k).T)
    >>> weights[3:].argmax(axis=1).tolist()  # every query from position 3 on looks 3 back
    [0, 1, 2, 3, 4, 5, 6, 7, 8]
    """
    offset, d_model = check_offset(offset), check_d_model(d_model)
    sharpness = _check_sharpness(sharpness)
    return sharpness * rotation_matrix(offset, d_model, base), np.eye(d_model)


def _check_sharpness(sharpness) -> float:
    if isinstance(sharpness, bool) or not isinstance(sharpness, numbers.Real) or not math.isfinite(sharpness):
        raise TypeError(f"sharpness must be a finite real number, got {sharpness!r}")
    return float(sharpness)


def diagonal_spread(matrix) -> float:
    """The largest range of values along any diagonal of a square matrix.

    Zero exactly when ``matrix[p, q]`` depends on ``p`` and ``q`` only through ``q - p`` (a
    Toeplitz matrix): the test of whether a logit term is relative.

    Parameters
    ----------
    matrix : array_like, shape (n, n)
        For example a term of :func:`logit_terms`.

    Returns
    -------
    float
        ``max over offsets of (max - min)`` along that diagonal; 0 for ``n <= 1``.

    Raises
    ------
    ValueError
        If `matrix` is not square.
    TypeError
        If it does not hold real numbers.

    Examples
    --------
    >>> diagonal_spread(np.array([[0.0, 1.0], [-1.0, 0.0]]))
    0.0
    >>> diagonal_spread(np.array([[0.0, 1.0], [-1.0, 5.0]]))
    5.0
    """
    matrix = check_real_array(matrix, "matrix")
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"matrix must be square, got shape {matrix.shape}")
    n = matrix.shape[0]
    return float(max((np.ptp(np.diagonal(matrix, offset)) for offset in range(1 - n, n)), default=0.0))


def weight_on_offset(weights, offset: int) -> np.ndarray:
    """The weight each query position ``p`` puts on key position ``p - offset``.

    Parameters
    ----------
    weights : array_like, shape (..., seq_len, seq_len)
        Attention weights, rows are queries (e.g. one map per head).
    offset : int
        How far back; non-negative.

    Returns
    -------
    ndarray, shape (..., seq_len), float64
        ``weights[..., p, p - offset]``, NaN for ``p < offset``.

    Raises
    ------
    ValueError
        If the last two axes are not square or `offset` is negative.
    TypeError
        If `offset` is not an integer or `weights` does not hold real numbers.

    Examples
    --------
    >>> weight_on_offset(attention_weights(np.zeros((3, 3)), causal=True), 1).round(4)
    array([   nan, 0.5   , 0.3333])
    """
    weights = _square_maps(weights, "weights")
    offset = check_count(offset, "offset")
    seq_len = weights.shape[-1]
    result = np.full(weights.shape[:-1], np.nan)
    rows = np.arange(offset, seq_len)
    result[..., rows] = weights[..., rows, rows - offset]
    return result


def weight_from_offset(weights, min_offset: int) -> np.ndarray:
    """The weight each query position ``p`` puts on all keys ``min_offset`` or more positions back.

    Parameters
    ----------
    weights : array_like, shape (..., seq_len, seq_len)
        Attention weights, rows are queries (e.g. one map per head).
    min_offset : int
        The smallest offset counted; non-negative.

    Returns
    -------
    ndarray, shape (..., seq_len), float64
        ``weights[..., p, : p - min_offset + 1].sum(-1)``, NaN for ``p < min_offset``.

    Raises
    ------
    ValueError
        If the last two axes are not square or `min_offset` is negative.
    TypeError
        If `min_offset` is not an integer or `weights` does not hold real numbers.

    Examples
    --------
    A uniform causal head puts ``(p - 1) / (p + 1)`` of its weight two or more positions back:

    >>> weight_from_offset(attention_weights(np.zeros((4, 4)), causal=True), 2).round(4)
    array([   nan,    nan, 0.3333, 0.5   ])
    """
    weights = _square_maps(weights, "weights")
    min_offset = check_count(min_offset, "min_offset")
    seq_len = weights.shape[-1]
    offsets = np.subtract.outer(np.arange(seq_len), np.arange(seq_len))  # p - s
    result = np.where(offsets >= min_offset, weights, 0.0).sum(axis=-1)
    result[..., : min(min_offset, seq_len)] = np.nan
    return result


def most_attended_offset(weights) -> np.ndarray:
    """How far back each query position puts its largest weight: ``p - argmax_s weights[..., p, s]``.

    Parameters
    ----------
    weights : array_like, shape (..., seq_len, seq_len)
        Attention weights, rows are queries (e.g. one map per head).

    Returns
    -------
    ndarray, shape (..., seq_len), int64
        The offset of each query's most attended key (negative if it lies ahead); ties go to the
        earliest key.

    Raises
    ------
    ValueError
        If the last two axes are not square.
    TypeError
        If `weights` does not hold real numbers.

    Examples
    --------
    >>> most_attended_offset(np.array([[1.0, 0.0, 0.0], [0.9, 0.1, 0.0], [0.2, 0.7, 0.1]])).tolist()
    [0, 1, 1]
    """
    weights = _square_maps(weights, "weights")
    return np.arange(weights.shape[-1]) - weights.argmax(axis=-1)


class MixMargin(NamedTuple):
    """The best mix of several heads' weights for singling out one offset (:func:`best_mix_margin`).

    Parameters
    ----------
    margin : float
        The mix's weight on the offset minus the largest weight, in size, on any other, for a mix whose
        weights add up to at most 1 in size: 1 if all of it can sit on the offset, 0 if no mix puts more on
        the offset than on some other.
    mix : ndarray, shape (heads,)
        The coefficient of each head (all 0 when the margin is 0).
    weights : ndarray, shape (num_offsets,)
        The mixed weights, ``mix @ profiles``.

    Examples
    --------
    >>> MixMargin(0.5, np.ones(2), np.array([0.75, 0.25])).margin
    0.5
    """

    margin: float
    mix: np.ndarray
    weights: np.ndarray


def best_mix_margin(profiles, offset: int) -> MixMargin:
    r"""How well any linear mix of heads' attention weights can single out one offset.

    Row :math:`h` of `profiles` holds what head :math:`h` puts on the keys :math:`0, 1, 2, \dots` positions
    back, for one query. A later layer sees the heads' outputs only through linear maps, so it can read
    any mix :math:`w = \sum_h c_h\,\mathrm{profiles}_h`; the mix copies the value :math:`k` back with
    weight :math:`w_k`. This returns the mix with the largest margin :math:`w_k - \max_{j \ne k} |w_j|`
    among those with :math:`\sum_j |w_j| \le 1`: a linear program (scipy's HiGHS), whose value is exact up
    to the solver's tolerance (about :math:`10^{-9}`). The margin is never negative (the mix of nothing
    scores 0).

    Parameters
    ----------
    profiles : array_like, shape (heads, num_offsets)
        Each head's weights on the keys 0, 1, ... positions back; real, not all zero.
    offset : int
        The offset to single out, below ``num_offsets``.

    Returns
    -------
    MixMargin
        The margin, the mix and its weights.

    Raises
    ------
    ValueError
        If `profiles` is not 2-D, holds no non-zero weight, or `offset` is out of range.
    TypeError
        If `offset` is not an integer or `profiles` does not hold real numbers.
    ImportError
        If scipy is missing (the companion's ``[book]`` extra installs it).

    Examples
    --------
    A head on offset 1 alone gives margin 1. One head that favours the nearest key cannot single out
    offset 2; two such heads can, by their difference, if they differ enough:

    >>> best_mix_margin([[0.0, 1.0, 0.0]], 1).margin
    1.0
    >>> best_mix_margin([[0.5, 0.3, 0.2]], 2).margin
    0.0
    >>> best = best_mix_margin([[0.5, 0.3, 0.2], [0.6, 0.3, 0.1]], 2)
    >>> round(best.margin, 4), best.weights.round(4).tolist()
    (0.4375, [-0.1875, 0.1875, 0.625])
    """
    from .._environment import require

    require("scipy")  # a clear message if it is missing or too old
    from scipy import optimize
    profiles = check_real_array(profiles, "profiles")
    if profiles.ndim != 2 or not np.any(profiles):
        raise ValueError(f"profiles must be a 2-D array (heads, offsets) with a non-zero weight, got shape "
                         f"{profiles.shape}")
    heads, n = profiles.shape
    offset = check_count(offset, "offset")
    if offset >= n:
        raise ValueError(f"offset must be below the number of offsets, {n}, got {offset}")
    a = profiles.T  # (offsets, heads): w = a @ c
    others = np.delete(np.arange(n), offset)
    # variables: the mix c (free), t_j >= |w_j|, s >= |w_j| for j != offset; maximise w_offset - s
    objective = np.concatenate([-a[offset], np.zeros(n), [1.0]])
    zeros_t, zeros_s = np.zeros((n, n)), np.zeros((n, 1))
    rows = [np.hstack([a, -np.eye(n), zeros_s]), np.hstack([-a, -np.eye(n), zeros_s]),
            np.hstack([np.zeros((1, heads)), np.ones((1, n)), [[0.0]]]),
            np.hstack([a[others], zeros_t[others], -np.ones((n - 1, 1))]),
            np.hstack([-a[others], zeros_t[others], -np.ones((n - 1, 1))])]
    bounds = [(None, None)] * heads + [(0, None)] * (n + 1)
    result = optimize.linprog(objective, A_ub=np.vstack(rows), b_ub=np.concatenate([np.zeros(2 * n), [1.0],
                                                                                      np.zeros(2 * (n - 1))]),
                              bounds=bounds, method="highs")
    if not result.success:  # bounded and feasible (c = 0), so this means a solver failure
        raise RuntimeError(f"the linear program failed: {result.message}")
    mix = result.x[:heads]
    return MixMargin(max(0.0, float(-result.fun)) + 0.0, mix + 0.0, a @ mix + 0.0)
