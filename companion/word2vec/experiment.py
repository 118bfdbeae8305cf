"""The black/brown experiment of the notebook after Rothman (2021): word vectors, encodings, their sum.

The notebook takes "black" (position 2) and "brown" (position 10) of "The black
cat sat on the couch and the brown dog slept on the rug." and compares, by
cosine similarity, their word vectors ``y``, their positional encodings
``PE(pos)``, and the encoded embeddings ``y * sqrt(d_model) + PE(pos)`` (the
scaling of Vaswani et al., 2017, Sec. 3.4).  The functions here compute those
figures, and the diagnostics that explain them.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._checks import check_d_model, check_positions
from ..analysis.similarity import cosine_similarity
from ..book.sources import doubled_exponent_encoding
from ..encoding.table import sinusoidal_encoding

__all__ = [
    "ENCODINGS",
    "Similarities",
    "encoded_similarities",
    "encoded_similarity_by_gap",
    "mean_direction_share",
    "pairwise_cosines",
    "word_position_cosines",
]

#: The encodings the experiment can use: the paper's formula, or the notebook's loop (doubled exponent).
ENCODINGS = ("paper", "doubled")


class Similarities(NamedTuple):
    """The notebook's three cosine similarities of two words at two positions.

    Parameters
    ----------
    word : float
        Of the word vectors.
    positional : float
        Of the positional encodings of the two positions.
    encoded : float
        Of the encoded embeddings, word vector (scaled) plus encoding.

    Examples
    --------
    >>> Similarities(word=0.9, positional=0.7, encoded=0.8).encoded
    0.8
    """

    word: float
    positional: float
    encoded: float


def _encoding_table(positions, d_model: int, encoding: str) -> np.ndarray:
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
    if encoding == "paper":
        return sinusoidal_encoding(positions, d_model)
    return doubled_exponent_encoding(positions, d_model)


def _word_pair(vector_a, vector_b) -> tuple[np.ndarray, np.ndarray, int]:
    a, b = np.asarray(vector_a, dtype=np.float64), np.asarray(vector_b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"vector_a and vector_b must be 1-D of equal length, got shapes {a.shape} and {b.shape}")
    return a, b, check_d_model(a.size)


def encoded_similarities(
    vector_a, vector_b, positions=(2, 10), *, encoding: str = "paper", scale: bool = True
) -> Similarities:
    r"""Cosine similarities of two word vectors, their encodings, and their sums.

    Parameters
    ----------
    vector_a, vector_b : array_like, shape (d_model,)
        Word vectors; their length is the encoding width (even).
    positions : pair of float, default (2, 10)
        Positions of the two words (the notebook's: "black" 2, "brown" 10).
    encoding : {"paper", "doubled"}, default "paper"
        The paper's formula, or the notebook's loop with the doubled exponent.
    scale : bool, default True
        Multiply word vectors by :math:`\sqrt{d_{model}}` before adding (Sec. 3.4).

    Returns
    -------
    Similarities
        ``word``: cos(a, b); ``positional``: cos(PE(p1), PE(p2)); ``encoded``:
        cos(s a + PE(p1), s b + PE(p2)), s the scale.

    Raises
    ------
    ValueError
        If the vectors differ in shape or have odd length, two positions are not
        given, or `encoding` is unknown.

    Examples
    --------
    >>> a, b = np.eye(4)[0], np.eye(4)[1]
    >>> [round(value, 4) for value in encoded_similarities(a, b)]
    [0.0, 0.4257, -0.2118]
    """
    a, b, d_model = _word_pair(vector_a, vector_b)
    positions = check_positions(positions)
    if positions.size != 2:
        raise ValueError(f"positions must hold the two words' positions, got {positions.size} values")
    pe = _encoding_table(positions, d_model, encoding)
    s = math.sqrt(d_model) if scale else 1.0
    return Similarities(
        word=cosine_similarity(a, b),
        positional=cosine_similarity(pe[0], pe[1]),
        encoded=cosine_similarity(s * a + pe[0], s * b + pe[1]),
    )


def encoded_similarity_by_gap(
    vector_a, vector_b, gaps, *, first_position: int = 2, encoding: str = "paper", scale: bool = True
) -> np.ndarray:
    """Encoded similarity of two words as the second moves away from the first.

    Parameters
    ----------
    vector_a, vector_b : array_like, shape (d_model,)
        Word vectors.
    gaps : array_like, shape (n,)
        Position gaps; word b sits at ``first_position + gap``.
    first_position : int, default 2
        Position of word a.
    encoding : {"paper", "doubled"}, default "paper"
        Which encoding to add.
    scale : bool, default True
        Multiply word vectors by sqrt(d_model) first.

    Returns
    -------
    ndarray, shape (n,), dtype float64
        ``cos(s a + PE(first), s b + PE(first + gap))`` for each gap.

    Raises
    ------
    ValueError
        On the errors of :func:`encoded_similarities`, or non-finite gaps.

    Examples
    --------
    >>> a = np.ones(8)
    >>> encoded_similarity_by_gap(a, a, [0, 1]).round(3)
    array([1.   , 0.995])
    """
    a, b, d_model = _word_pair(vector_a, vector_b)
    gaps = check_positions(gaps)
    pe = _encoding_table(np.concatenate([[first_position], first_position + gaps]), d_model, encoding)
    s = math.sqrt(d_model) if scale else 1.0
    return cosine_similarity(s * a + pe[0], s * b + pe[1:])


def mean_direction_share(vectors) -> float:
    """Norm of the mean vector over the mean norm: 1 when all vectors are equal.

    Near 0 for vectors spread evenly around the origin; near 1 when they have
    collapsed onto a common direction.

    Parameters
    ----------
    vectors : array_like, shape (n, d)
        Word vectors, one per row.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError
        If `vectors` is not 2-D or every vector is zero.

    Examples
    --------
    >>> round(mean_direction_share([[1.0, 0.0], [1.0, 0.1]]), 4)
    0.9988
    >>> mean_direction_share([[1.0, 0.0], [-1.0, 0.0]])
    0.0
    """
    vectors = np.asarray(vectors, dtype=np.float64)
    if vectors.ndim != 2:
        raise ValueError(f"vectors must be 2-D (n, d), got shape {vectors.shape}")
    mean_norm = np.linalg.norm(vectors, axis=1).mean()
    if mean_norm == 0:
        raise ValueError("vectors are all zero")
    return float(np.linalg.norm(vectors.mean(axis=0)) / mean_norm)


def pairwise_cosines(vectors, *, n_pairs: int = 2000, seed: int = 0) -> np.ndarray:
    """Cosine similarities of randomly drawn pairs of distinct rows.

    Parameters
    ----------
    vectors : array_like, shape (n, d)
        Word vectors, one per row; ``n >= 2``.
    n_pairs : int, default 2000
        How many pairs to draw (with replacement between pairs).
    seed : int, default 0
        Seed of the draw.

    Returns
    -------
    ndarray, shape (n_pairs,), dtype float64
        The pairs' cosines.

    Raises
    ------
    ValueError
        If fewer than two vectors are given.

    Examples
    --------
    >>> pairwise_cosines(np.eye(3), n_pairs=4)
    array([0., 0., 0., 0.])
    """
    vectors = np.asarray(vectors, dtype=np.float64)
    if vectors.ndim != 2 or vectors.shape[0] < 2:
        raise ValueError(f"vectors must be 2-D with at least two rows, got shape {vectors.shape}")
    rng = np.random.default_rng(seed)
    first = rng.integers(0, vectors.shape[0], n_pairs)
    second = (first + rng.integers(1, vectors.shape[0], n_pairs)) % vectors.shape[0]
    return cosine_similarity(vectors[first], vectors[second])


def word_position_cosines(vectors, positions) -> np.ndarray:
    """Cosine of every word vector with the paper's encoding of every position.

    Parameters
    ----------
    vectors : array_like, shape (n, d_model)
        Word vectors, one per row; d_model even.
    positions : array_like, shape (m,)
        Positions to encode.

    Returns
    -------
    ndarray, shape (n, m), dtype float64
        Entry ``(w, k)`` is ``cos(vectors[w], PE(positions[k]))``.

    Raises
    ------
    ValueError
        If `vectors` is not 2-D with an even number of columns, a vector is
        zero, or `positions` is invalid.

    Examples
    --------
    >>> word_position_cosines(np.eye(4)[:2], [0]).round(4)
    array([[0.    ],
           [0.7071]])
    """
    vectors = np.asarray(vectors, dtype=np.float64)
    if vectors.ndim != 2:
        raise ValueError(f"vectors must be 2-D (n, d_model), got shape {vectors.shape}")
    d_model = check_d_model(vectors.shape[1])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("vectors must have non-zero norm: the cosine of a zero vector is undefined")
    # Every encoding has norm sqrt(d_model / 2); one matrix product gives all n x m cosines.
    table = sinusoidal_encoding(positions, d_model) / np.sqrt(d_model / 2)
    return (vectors / norms) @ table.T
