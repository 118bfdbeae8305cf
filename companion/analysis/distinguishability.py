r"""How far apart the encodings of different positions stay.

The distance between two encodings depends only on their offset :math:`k = q - p`:

.. math::

    \lVert PE(p) - PE(q) \rVert^2 = \sum_i 2 - 2\cos(\omega_i k) = 4 \sum_i \sin^2(\omega_i k / 2),

(chapter 4's relative-position identity), so the closest pair among positions
``0 .. max_len - 1`` is found by scanning the offsets.  A table rounded to a
narrower dtype adds its rounding error to these distances.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import check_count, check_dtype
from ..encoding.frequencies import angular_frequencies
from ..encoding.table import sinusoidal_encoding

__all__ = ["SimilarityScales", "offset_distances", "nearest_position_distance", "similarity_scales"]

_CHUNK = 2**16


def offset_distances(offsets, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""Exact distance :math:`\lVert PE(p + k) - PE(p) \rVert` for each offset :math:`k`, for any :math:`p`.

    Evaluated as :math:`2\sqrt{\sum_i \sin^2(\omega_i k/2)}`, which keeps full
    relative accuracy for small distances.

    Parameters
    ----------
    offsets : array_like of int, shape (n,)
        Offsets :math:`k` (positions).
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.

    Returns
    -------
    ndarray, shape (n,), dtype float64
        Distances, between 0 and :math:`\sqrt{2 d_{model}}`.

    Raises
    ------
    TypeError, ValueError
        On bad `d_model` or `base`.

    Examples
    --------
    >>> offset_distances([0, 1], 2).round(4)  # one pair turning 1 radian per position
    array([0.    , 0.9589])
    """
    half_omega = angular_frequencies(d_model, base) / 2  # exact: halving a float only lowers its exponent
    offsets = np.asarray(offsets, dtype=np.float64)
    result = np.empty(offsets.size)
    for start in range(0, offsets.size, _CHUNK):
        sines = np.sin(np.outer(offsets[start : start + _CHUNK], half_omega))
        result[start : start + len(sines)] = 2 * np.sqrt(np.einsum("ij,ij->i", sines, sines))
    return result


def _smallest(values: np.ndarray, count: int) -> np.ndarray:
    """Indices of the `count` smallest values, smallest first (ties by index), without a full sort."""
    if count < values.size:
        chosen = np.argpartition(values, count - 1)[:count]
        # ties at the boundary: keep the lowest indices, as a stable full sort would
        cutoff = values[chosen].max()
        chosen = np.concatenate([np.flatnonzero(values < cutoff), np.flatnonzero(values == cutoff)])[:count]
    else:
        chosen = np.arange(values.size)
    return chosen[np.lexsort((chosen, values[chosen]))]


def nearest_position_distance(max_lens, d_model: int, *, base: float = 10_000.0, dtype=None, candidates: int = 8):
    """Smallest distance between the encodings of two positions below each ``max_len``.

    Parameters
    ----------
    max_lens : sequence of int
        Table lengths, each at least 2.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    dtype : {None, numpy.float64, numpy.float32, numpy.float16}, default None
        None for the exact distances (:func:`offset_distances`); otherwise the
        distances between rows of the table rounded to `dtype`, searched over
        all pairs at the `candidates` offsets whose exact distance is smallest
        (rounding moves a distance by far less than the gaps between them).
    candidates : int, default 8
        How many offsets to search in the rounded table.

    Returns
    -------
    distances : ndarray, shape (len(max_lens),), dtype float64
        The smallest distance for each length.
    offsets : ndarray, shape (len(max_lens),), dtype int64
        An offset at which it occurs.

    Raises
    ------
    ValueError
        If a length is below 2, `candidates` is not positive, or on bad
        `d_model`, `base` or `dtype`.

    Examples
    --------
    >>> distances, offsets = nearest_position_distance([16, 1024], 64)
    >>> distances.round(3), offsets
    (array([1.472, 1.472]), array([1, 1]))
    """
    max_lens = [check_count(length, "max_len") for length in max_lens]
    if not max_lens or min(max_lens) < 2 or check_count(candidates, "candidates") < 1:
        raise ValueError(f"each max_len must be at least 2 and candidates positive, got {max_lens} and {candidates}")
    exact = offset_distances(np.arange(1, max(max_lens)), d_model, base)
    table = None if dtype is None else sinusoidal_encoding(np.arange(max(max_lens)), d_model, base=base,
                                                           dtype=check_dtype(dtype)).astype(np.float64)
    distances, offsets = np.empty(len(max_lens)), np.empty(len(max_lens), dtype=np.int64)
    for index, length in enumerate(max_lens):
        within = exact[: length - 1]
        if table is None:
            best = int(np.argmin(within))
            distances[index], offsets[index] = within[best], best + 1
            continue
        best_distance, best_offset = np.inf, 0
        for offset in _smallest(within, candidates) + 1:
            gaps = table[offset:length] - table[: length - offset]
            distance = float(np.sqrt(np.min(np.einsum("ij,ij->i", gaps, gaps))))
            if distance < best_distance:
                best_distance, best_offset = distance, int(offset)
        distances[index], offsets[index] = best_distance, best_offset
    return distances, offsets


class SimilarityScales(NamedTuple):
    """The two offsets, in positions, that :func:`similarity_scales` returns.

    Parameters
    ----------
    half : int
        First offset at which the cosine similarity falls to 1/2 or below: the resolution.
    zero : int
        First offset at which it falls to 0 or below: the range over which farther means less alike.

    Examples
    --------
    >>> SimilarityScales(half=46, zero=1707).zero
    1707
    """

    half: int
    zero: int


def similarity_scales(d_model: int, base: float = 10_000.0, *, max_offset: int = 10**6) -> SimilarityScales:
    r"""Resolution and range of the encoding, read off the similarity of positions :math:`k` apart.

    The cosine similarity of :math:`PE(p)` and :math:`PE(p + k)` is
    :math:`\frac{2}{d_{model}} \sum_i \cos(\omega_i k)`: 1 at :math:`k = 0`, falling as
    the fast pairs turn away, and, once the slow pairs have turned too, wandering
    around 0.  Two offsets summarise it: where it first falls to 1/2 (nearer
    positions look alike: the resolution) and where it first reaches 0 (up to
    there, farther positions look less alike: the range).

    Parameters
    ----------
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    max_offset : int, default 1000000
        How far to search.

    Returns
    -------
    SimilarityScales
        ``(half, zero)``, in positions.

    Raises
    ------
    TypeError, ValueError
        On bad `d_model` or `base`, or if the similarity does not reach 0 within `max_offset`.

    Examples
    --------
    >>> similarity_scales(128)
    SimilarityScales(half=46, zero=1707)
    """
    omega = angular_frequencies(d_model, base)
    max_offset = check_count(max_offset, "max_offset")
    half = None
    chunk = max(1, _CHUNK // omega.size) * 16
    for start in range(1, max_offset + 1, chunk):
        offsets = np.arange(start, min(start + chunk, max_offset + 1), dtype=np.float64)
        similarity = np.cos(np.outer(offsets, omega)).mean(axis=1)
        if half is None and np.any(similarity <= 0.5):
            half = start + int(np.argmax(similarity <= 0.5))
        if np.any(similarity <= 0):
            return SimilarityScales(half, start + int(np.argmax(similarity <= 0)))
    raise ValueError(f"the similarity does not reach 0 within max_offset={max_offset} offsets (d_model={d_model}, "
                     f"base={base}); raise max_offset")
