r"""What adding a positional encoding does to the cosine similarity of two word vectors.

A Transformer's first layer sees ``x = s y + PE(p)``: a word vector ``y``, multiplied by
``s = sqrt(d_model)`` (Vaswani et al., 2017, Sec. 3.4) or left as it is (``s = 1``), plus the
encoding of its position (Sec. 3.5). Expanding the dot product of two such sums,

.. math::

    x_p \cdot x_q = s^2\, y \cdot y' + s\,(y \cdot PE(q) + y' \cdot PE(p)) + PE(p) \cdot PE(q),

and dropping the two *cross terms* (a word vector against an encoding) leaves a blend of the
word similarity and the positional similarity whose weights are set by the norms. Every
encoding has norm ``sqrt(d_model / 2)``, so for word vectors of equal norm ``r`` the blend is
``lam * cos(y, y') + (1 - lam) * cos(PE(p), PE(q))`` with ``lam = s**2 r**2 / (s**2 r**2 + d_model / 2)``.
Each cross term, kept, adds ``w * cos(y, PE(q))`` with ``w = s r sqrt(d_model / 2) / (s**2 r**2 + d_model / 2)``.
"""

from __future__ import annotations

import numpy as np

from .._checks import check_d_model

__all__ = ["blend_weight", "blended_similarity", "cross_term_weight"]


def _squared_scale(scale, d_model: int) -> float:
    """s^2: d_model with the paper's sqrt(d_model) scaling (Sec. 3.4), 1 without it."""
    if not isinstance(scale, (bool, np.bool_)):
        raise TypeError(f"scale must be True or False, got {scale!r} of type {type(scale).__name__}")
    return float(d_model) if scale else 1.0


def _float_or_array(values: np.ndarray):
    return float(values) if values.ndim == 0 else values


def _check_norms(values, name: str) -> np.ndarray:
    norms = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(norms)) or np.any(norms < 0):
        raise ValueError(f"{name} must hold finite, non-negative norms, got {values!r}")
    return norms


def blend_weight(word_norm, d_model: int, *, scale: bool = True):
    r"""Weight of the word similarity in the similarity of two encoded words of equal norm.

    .. math::

        \lambda = \frac{s^2 r^2}{s^2 r^2 + d_{model}/2},

    with :math:`r` the norm of both word vectors, :math:`d_{model}/2` the squared norm of every
    encoding, and :math:`s = \sqrt{d_{model}}` (``scale=True``, Vaswani et al., 2017, Sec. 3.4) or
    :math:`s = 1`. With the scaling, :math:`\lambda = 2r^2 / (2r^2 + 1)` whatever the width;
    without it, :math:`\lambda = 2r^2 / (2r^2 + d_{model})` vanishes as the width grows.

    Parameters
    ----------
    word_norm : float or array_like
        Norm :math:`r` of the word vectors (before scaling); non-negative.
    d_model : int
        Width of the word vectors and the encoding; positive and even.
    scale : bool, default True
        Whether the word vectors are multiplied by :math:`\sqrt{d_{model}}` before the encoding is
        added.

    Returns
    -------
    float or ndarray
        :math:`\lambda` in :math:`[0, 1)`, of the shape of `word_norm` (a float for a scalar).

    Raises
    ------
    ValueError
        If a norm is negative or not finite, or `d_model` is not a positive even integer.
    TypeError
        If `d_model` is not an integer or `scale` is not a bool.

    Examples
    --------
    >>> round(blend_weight(1.0, 512), 4), round(blend_weight(1.0, 64), 4)
    (0.6667, 0.6667)
    >>> round(blend_weight(1.0, 512, scale=False), 5)
    0.00389
    """
    r = _check_norms(word_norm, "word_norm")
    d_model = check_d_model(d_model)
    return _float_or_array(_blend_weight(r, d_model, _squared_scale(scale, d_model)))


def _blend_weight(r, d_model, s2):
    """The word's weight lambda: its share of the squared norm of the sum."""
    word = s2 * r**2  # squared norm of the scaled word vector
    position = d_model / 2  # squared norm of every encoding
    return word / (word + position)


def blended_similarity(word_similarity, positional_similarity, norm_a, norm_b, d_model: int, *,
                       scale: bool = True):
    r"""The similarity of two encoded words with the cross terms dropped.

    For :math:`x = s a + PE(p)` and :math:`x' = s b + PE(q)`,

    .. math::

        \cos(x, x') \approx \frac{s^2 \lVert a \rVert \lVert b \rVert \cos(a, b)
        + \tfrac{d_{model}}{2} \cos(PE(p), PE(q))}
        {\sqrt{s^2 \lVert a \rVert^2 + d_{model}/2}\,\sqrt{s^2 \lVert b \rVert^2 + d_{model}/2}},

    exact when both word vectors are orthogonal to both encodings. For equal norms it is
    :math:`\lambda \cos(a, b) + (1 - \lambda) \cos(PE(p), PE(q))`, :math:`\lambda` from
    :func:`blend_weight`. The arguments broadcast against each other.

    Parameters
    ----------
    word_similarity : float or array_like
        :math:`\cos(a, b)`, in [-1, 1].
    positional_similarity : float or array_like
        :math:`\cos(PE(p), PE(q))`, in [-1, 1].
    norm_a, norm_b : float or array_like
        Norms of the word vectors before scaling; non-negative.
    d_model : int
        Width; positive and even. Each encoding has squared norm ``d_model / 2``.
    scale : bool, default True
        Whether the word vectors are multiplied by :math:`\sqrt{d_{model}}` first.

    Returns
    -------
    float or ndarray
        The blend, in [-1, 1], of the broadcast shape of the arguments (a float if all are scalars).

    Raises
    ------
    ValueError
        If a similarity lies outside [-1, 1] or is not finite, a norm is negative or not finite,
        or `d_model` is not a positive even integer.
    TypeError
        If `d_model` is not an integer or `scale` is not a bool.

    Examples
    --------
    The same word at positions 2 and 10 (paper's encoding, positional similarity 0.7225):

    >>> round(blended_similarity(1.0, 0.7225, 1.0, 1.0, 512), 4)
    0.9075
    >>> round(blended_similarity(1.0, 0.7225, 1.0, 1.0, 512, scale=False), 4)
    0.7236
    """
    similarities = []
    for name, values in [("word_similarity", word_similarity), ("positional_similarity", positional_similarity)]:
        array = np.asarray(values, dtype=np.float64)
        if not np.all(np.isfinite(array)) or np.any(np.abs(array) > 1):
            raise ValueError(f"{name} must hold cosine similarities in [-1, 1], got {values!r}")
        similarities.append(array)
    a, b = _check_norms(norm_a, "norm_a"), _check_norms(norm_b, "norm_b")
    d_model = check_d_model(d_model)
    return _float_or_array(_blend(*similarities, a, b, d_model, _squared_scale(scale, d_model)))


def _blend(word_similarity, positional_similarity, norm_a, norm_b,
           d_model, s2):
    """cos(s a + PE(p), s b + PE(q)) without the cross terms."""
    word_a, word_b = s2 * norm_a**2, s2 * norm_b**2  # scaled words, squared
    position = d_model / 2  # squared norm of every encoding
    dot = (np.sqrt(word_a * word_b) * word_similarity
           + position * positional_similarity)
    return dot / np.sqrt((word_a + position) * (word_b + position))


def cross_term_weight(word_norm, d_model: int, *, scale: bool = True):
    r"""Weight of one cross term in the similarity of two encoded words of equal norm.

    Divided by the norms of the sums, the cross term :math:`s\, y \cdot PE(q)` of the expanded dot
    product enters the cosine of :math:`x = s y + PE(p)` and :math:`x' = s y' + PE(q)` as
    :math:`w \cos(y, PE(q))`, with

    .. math::

        w = \frac{s r \sqrt{d_{model}/2}}{s^2 r^2 + d_{model}/2},

    :math:`r` the norm of both word vectors and :math:`s = \sqrt{d_{model}}` (``scale=True``,
    Vaswani et al., 2017, Sec. 3.4) or :math:`s = 1`. With the scaling,
    :math:`w = \sqrt{2}\, r / (2r^2 + 1)` whatever the width: :math:`\sqrt{2}/3` at :math:`r = 1`,
    largest at :math:`r = 1/\sqrt{2}` (where it is :math:`1/2`), and smaller for longer word vectors.
    The identity is exact when each word vector is orthogonal to its own position's encoding (so that
    the norms of the sums are :math:`\sqrt{s^2 r^2 + d_{model}/2}`).

    Parameters
    ----------
    word_norm : float or array_like
        Norm :math:`r` of the word vectors (before scaling); non-negative.
    d_model : int
        Width of the word vectors and the encoding; positive and even.
    scale : bool, default True
        Whether the word vectors are multiplied by :math:`\sqrt{d_{model}}` before the encoding is
        added.

    Returns
    -------
    float or ndarray
        :math:`w` in :math:`[0, 1/2]`, of the shape of `word_norm` (a float for a scalar).

    Raises
    ------
    ValueError
        If a norm is negative or not finite, or `d_model` is not a positive even integer.
    TypeError
        If `d_model` is not an integer or `scale` is not a bool.

    Examples
    --------
    >>> round(cross_term_weight(1.0, 512), 4), round(2 ** 0.5 / 3, 4)
    (0.4714, 0.4714)
    >>> round(cross_term_weight(2.0, 512), 4)
    0.3143
    """
    r = _check_norms(word_norm, "word_norm")
    d_model = check_d_model(d_model)
    s2 = _squared_scale(scale, d_model)
    half = d_model / 2
    weight = np.sqrt(s2 * half) * r / (s2 * r**2 + half)
    return _float_or_array(weight)
