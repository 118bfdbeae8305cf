r"""Attention without positions treats its input as a set.

One head of scaled dot-product self-attention (Vaswani et al., 2017, Sec. 3.2.1, Eq. 1),

.. math::

    \operatorname{Attention}(X) = \operatorname{softmax}\!\left(\frac{(X W_Q)(X W_K)^\top}{\sqrt{d_k}}\right) X W_V,

is *permutation-equivariant*: for every permutation matrix :math:`P`,
:math:`\operatorname{Attention}(P X) = P \operatorname{Attention}(X)`.  Shuffling the tokens
shuffles the outputs the same way, and each token's output does not depend on where it stands.
"""

from __future__ import annotations

import numpy as np

from .._checks import check_real_array

__all__ = ["self_attention"]


def self_attention(x, w_query, w_key, w_value) -> np.ndarray:
    r"""One head of scaled dot-product self-attention (no mask), in float64.

    Source: Vaswani et al. (2017), Sec. 3.2.1, Eq. (1), with queries, keys and values all
    computed from the same tokens: :math:`\operatorname{softmax}(Q K^\top / \sqrt{d_k})\,V`
    with :math:`Q = X W_Q`, :math:`K = X W_K`, :math:`V = X W_V`.  Each row of the softmax
    sums to 1 over the keys.

    Parameters
    ----------
    x : array_like, shape (seq_len, d_model)
        One vector per token (embeddings, with or without positions added).
    w_query, w_key : array_like, shape (d_model, d_k)
        Query and key projections.
    w_value : array_like, shape (d_model, d_v)
        Value projection.

    Returns
    -------
    ndarray, shape (seq_len, d_v), dtype float64
        Row ``t`` is the output for token ``t``: a weighted mean of the values.

    Raises
    ------
    TypeError
        If an argument holds anything but real numbers.
    ValueError
        If `x` is not 2-D with at least one row, or the projections' shapes do not fit it.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4, 4))
    >>> out = self_attention(x, *w)
    >>> out.shape
    (3, 4)
    >>> order = [2, 0, 1]
    >>> bool(np.allclose(self_attention(x[order], *w), out[order], rtol=0, atol=1e-12))
    True
    """
    x, w_query, w_key, w_value = _checked(x, w_query, w_key, w_value)
    scores = (x @ w_query) @ (x @ w_key).T / np.sqrt(w_key.shape[1])
    # Softmax of each row, shifted by its maximum so that exp cannot overflow.
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ (x @ w_value)


def _checked(x, w_query, w_key, w_value):
    """The arguments of :func:`self_attention` as float64 arrays, refused with a message if they do not fit."""
    x = check_real_array(x, "x")
    w_query, w_key, w_value = (
        check_real_array(w_query, "w_query"),
        check_real_array(w_key, "w_key"),
        check_real_array(w_value, "w_value"),
    )
    if x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(f"x must be 2-D (seq_len, d_model) with at least one token, got shape {x.shape}")
    d_model = x.shape[1]
    for name, w in [("w_query", w_query), ("w_key", w_key), ("w_value", w_value)]:
        if w.ndim != 2 or w.shape[0] != d_model:
            raise ValueError(f"{name} must have shape (d_model={d_model}, d), got {w.shape}")
    if w_query.shape != w_key.shape:
        raise ValueError(f"w_query and w_key must have the same shape, got {w_query.shape} and {w_key.shape}")
    return x, w_query, w_key, w_value
