r"""How far apart the encodings of different positions stay.

The distance between two encodings depends only on their offset :math:`k = q - p`:

.. math::

    \lVert PE(p) - PE(q) \rVert^2 = \sum_i 2 - 2\cos(\omega_i k) = 4 \sum_i \sin^2(\omega_i k / 2),

(the relative-position identity of the chapter *Shifting a position is a rotation*), so
the closest pair among positions ``0 .. max_len - 1`` is found by scanning the offsets.  A table
rounded to a narrower dtype adds its rounding error to these distances, and can
store two positions as one vector (:func:`rounding_breakpoints`).

The cosine similarity of positions :math:`k` apart, :math:`\frac{2}{d_{model}}
\sum_i \cos(\omega_i k)` (``offset_similarity``), ripples about a smooth trend
(:func:`similarity_trend`); :func:`count_pairs_by_turn` sorts the pairs by how far they
turn over a sequence.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._checks import check_base, check_count, check_dtype, check_positions, check_real_array
from ..encoding.frequencies import angular_frequencies
from ..encoding.table import sinusoidal_encoding

__all__ = [
    "PairGroups",
    "SimilarityScales",
    "count_pairs_by_turn",
    "last_offset_above",
    "nearest_position_distance",
    "offset_distances",
    "offset_similarity",
    "rounding_breakpoints",
    "similarity_scales",
    "similarity_scales_of_frequencies",
    "similarity_trend",
    "similarity_trend_crossings",
    "similarity_trend_scales",
]

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


def offset_similarity(offsets, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""Cosine similarity of :math:`PE(p)` and :math:`PE(p + k)` for each offset :math:`k`, at any :math:`p`.

    Pair :math:`i` contributes :math:`\sin a \sin b + \cos a \cos b = \cos(a - b)`, with
    :math:`a - b = \omega_i k`, and every row has squared norm :math:`d_{model}/2`, so the
    similarity is the mean over the pairs, :math:`\frac{2}{d_{model}} \sum_i \cos(\omega_i k)`
    (Vaswani et al., 2017, Sec. 3.5; the relative-position identity of the chapter
    *Shifting a position is a rotation*).  It is even in :math:`k`.

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
        Similarities in [-1, 1] (dimensionless); 1 at :math:`k = 0`.

    Raises
    ------
    TypeError, ValueError
        If `offsets` are not finite real numbers in a 1-D array, or on bad
        `d_model` or `base`.

    Examples
    --------
    >>> offset_similarity([0, 1, -1], 128).round(3)
    array([1.  , 0.97, 0.97])
    """
    omega = angular_frequencies(d_model, base)
    k = check_positions(offsets, "offsets")
    return np.cos(np.outer(k, omega)).mean(axis=1)


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
    """The two offsets, in positions, that :func:`similarity_scales` and :func:`similarity_trend_scales` return.

    Parameters
    ----------
    half : int
        Offset at which the cosine similarity (or its trend) first falls to 1/2 or below: the resolution, the
        scale of the similarity's fall (not the smallest offset the encoding tells apart).
    zero : int
        Offset at which it first falls to 0 or below: the range, within which positions look more alike than
        unrelated vectors do (their similarity averages 0).

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
    positions look more alike than not: the resolution) and where it first
    reaches 0 (nearer positions look more alike than unrelated vectors, whose
    similarity averages 0: the range).  The fall is not
    monotone: the fast pairs make the curve ripple, so it can rise above 1/2
    again after its first crossing (for ``d_model=128``, base 10,000: first at
    46, above 1/2 again at 50, for good at or below it only from 89).  These are
    first crossings; :func:`similarity_trend_scales` gives the crossings of the
    smooth trend, which do not depend on the ripples.

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
    return similarity_scales_of_frequencies(angular_frequencies(d_model, base), max_offset=max_offset)


def similarity_scales_of_frequencies(frequencies, *, max_offset: int = 10**6) -> SimilarityScales:
    r"""Where the similarity :math:`\operatorname{mean}_i \cos(\omega_i k)` of any set of frequencies first falls to 1/2 and to 0.

    :func:`similarity_scales` for frequencies that are not a geometric progression: rescaled ones, such as
    Llama 3.1's (:func:`~companion.encoding.context_extension.scaled_frequencies`), or learned ones.

    Parameters
    ----------
    frequencies : array_like, shape (d_model / 2,)
        The angular frequencies :math:`\omega_i`, in radians per position; finite.
    max_offset : int, default 1000000
        How far to search.

    Returns
    -------
    SimilarityScales
        ``(half, zero)``, in positions.

    Raises
    ------
    TypeError
        If `frequencies` does not hold real numbers or `max_offset` is not an integer.
    ValueError
        If `frequencies` is not a non-empty 1-D array of finite values, or the similarity does not reach 0
        within `max_offset`.

    Examples
    --------
    >>> similarity_scales_of_frequencies(angular_frequencies(128))  # as similarity_scales(128)
    SimilarityScales(half=46, zero=1707)
    >>> similarity_scales_of_frequencies(angular_frequencies(128) / 8)  # every pair 8 times slower
    SimilarityScales(half=365, zero=13649)
    """
    omega = check_real_array(frequencies, "frequencies")
    if omega.ndim != 1 or omega.size == 0 or not np.all(np.isfinite(omega)):
        raise ValueError(f"frequencies must be a non-empty 1-D array of finite values, got shape {omega.shape}")
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
    raise ValueError(f"the similarity does not reach 0 within max_offset={max_offset} offsets ({omega.size} "
                     "frequencies); raise max_offset")


def last_offset_above(level: float, d_model: int, base: float = 10_000.0, *, max_offset: int = 100_000) -> int:
    r"""The last offset :math:`k \le` `max_offset` at which the cosine similarity of positions :math:`k` apart exceeds `level`.

    The similarity :math:`\frac{2}{d_{model}} \sum_i \cos(\omega_i k)` ripples as it falls,
    so it can cross a level many times; from the returned offset plus one on (up to
    `max_offset`) it stays at or below `level`.

    Parameters
    ----------
    level : float
        The level, between -1 and 1.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    max_offset : int, default 100000
        How far to look.

    Returns
    -------
    int
        The last offset above `level`, or 0 if the similarity never exceeds it.

    Raises
    ------
    TypeError, ValueError
        If `level` is not in [-1, 1], or on bad `d_model`, `base` or `max_offset`.

    Examples
    --------
    >>> similarity_scales(128).half, last_offset_above(0.5, 128)  # first at or below 1/2, last above it
    (46, 88)
    """
    if not -1 <= level <= 1:
        raise ValueError(f"level must be between -1 and 1, got {level!r}")
    omega = angular_frequencies(d_model, base)
    max_offset = check_count(max_offset, "max_offset")
    chunk = max(1, _CHUNK // omega.size) * 16
    last = 0
    for start in range(1, max_offset + 1, chunk):
        offsets = np.arange(start, min(start + chunk, max_offset + 1), dtype=np.float64)
        above = np.flatnonzero(offset_similarity(offsets, d_model, base) > level)
        if above.size:
            last = start + int(above[-1])
    return last


def _mpmath():
    """mpmath, for the cosine integral Ci, or an error naming the missing package."""
    from .._environment import require

    return require("mpmath")


def similarity_trend(offsets, base: float = 10_000.0) -> np.ndarray:
    r"""The smooth trend of the similarity of positions :math:`k` apart: :math:`-\mathrm{Ci}(k/b) / \ln b`.

    The cosine similarity :math:`\frac{2}{d_{model}} \sum_i \cos(\omega_i k)` averages
    :math:`\cos(\omega k)` over frequencies spread evenly on a log scale from :math:`1/b`
    to 1.  Replacing the average by an integral over :math:`\ln\omega`,

    .. math::

        \frac{1}{\ln b} \int_{1/b}^{1} \cos(\omega k) \, \frac{d\omega}{\omega}
        = \frac{\mathrm{Ci}(k) - \mathrm{Ci}(k/b)}{\ln b},

    with :math:`\mathrm{Ci}` the cosine integral.  :math:`\mathrm{Ci}(k)` is the fastest pairs'
    share: it oscillates and decays like :math:`\sin(k)/k`, so it matters only over the first
    few dozen offsets.  Dropping it leaves the trend, which for :math:`1 \ll k \ll b` is
    :math:`1 - (\gamma + \ln k)/\ln b` (:math:`\gamma` Euler's constant): the similarity
    loses :math:`1/\ln b` per factor :math:`e` of distance, the same for every width.
    The ripples about it at larger offsets are the error of the integral itself: pairs that
    turn many times within :math:`k` add cosines of nearly random sign, each weighing
    :math:`2/d_{model}`, which do not cancel; they shrink as the width grows.

    Parameters
    ----------
    offsets : array_like, shape (n,)
        Positive offsets :math:`k`, in positions.
    base : float, default 10000.0
        Finite and greater than 1.

    Returns
    -------
    ndarray, shape (n,), dtype float64
        The trend at each offset.  It falls from near 1 to 0 at :math:`k = 0.6165\,b` (the
        first zero of Ci), dips to :math:`-0.47/\ln b` at :math:`k = \pi b / 2`, then
        swings around 0 ever more weakly.

    Raises
    ------
    TypeError, ValueError
        On a bad `base`, or if an offset is not finite and positive.

    Examples
    --------
    >>> similarity_trend([1, 56, 6165], 10_000.0).round(3)  # near 1, 1/2 and 0
    array([0.937, 0.5  , 0.   ])
    """
    mpmath = _mpmath()
    base = check_base(base)
    offsets = np.asarray(offsets, dtype=np.float64)
    if not np.all(np.isfinite(offsets) & (offsets > 0)):
        raise ValueError("offsets must be finite and positive")
    trend = [-float(mpmath.ci(k / base)) / math.log(base) for k in offsets.ravel()]
    return np.array(trend).reshape(offsets.shape)


def similarity_trend_crossings(base: float = 10_000.0) -> tuple[float, float]:
    r"""Where the trend of :func:`similarity_trend` crosses 1/2 and 0, in positions, unrounded.

    The trend :math:`-\mathrm{Ci}(k/b)/\ln b` reaches 1/2 at :math:`k = x_{1/2}\,b`, with
    :math:`\mathrm{Ci}(x_{1/2}) = -\tfrac12 \ln b`, close to :math:`e^{-\gamma}\sqrt{b}` (where
    :math:`\gamma + \ln k = \tfrac12 \ln b`), and 0 at :math:`k = x_0 b`, with :math:`x_0 = 0.6165`
    the first zero of Ci.  Both roots are found with mpmath.

    Parameters
    ----------
    base : float, default 10000.0
        Finite and greater than 1.

    Returns
    -------
    half, zero : float
        The offsets at which the trend is 1/2 and 0, in positions.

    Raises
    ------
    TypeError, ValueError
        On a bad `base`.

    Examples
    --------
    >>> half, zero = similarity_trend_crossings(100.0)
    >>> round(half, 2), round(zero, 2)
    (5.62, 61.65)
    """
    mpmath = _mpmath()
    base = check_base(base)
    log_base = math.log(base)
    first_zero = mpmath.findroot(mpmath.ci, 0.6)
    start = math.exp(-float(mpmath.euler)) / math.sqrt(base)  # gamma + ln x = -ln(b) / 2
    half = mpmath.findroot(lambda x: mpmath.ci(x) + log_base / 2, start)
    return float(half) * base, float(first_zero) * base


def similarity_trend_scales(base: float = 10_000.0) -> SimilarityScales:
    r"""Where the trend of :func:`similarity_trend` crosses 1/2 and 0, rounded to whole positions.

    The trend :math:`-\mathrm{Ci}(k/b)/\ln b` falls to 1/2 near :math:`e^{-\gamma}\sqrt{b}`
    (where :math:`\gamma + \ln k = \tfrac12 \ln b`) and to 0 at :math:`x_0 b`, with
    :math:`x_0 = 0.6165` the first zero of Ci: resolution grows as the square root of the
    base, range in proportion to it.

    Parameters
    ----------
    base : float, default 10000.0
        Finite and greater than 1.

    Returns
    -------
    SimilarityScales
        ``(half, zero)``, in positions (rounded to the nearest integer, at least 1;
        unrounded: :func:`similarity_trend_crossings`).

    Raises
    ------
    TypeError, ValueError
        On a bad `base`.

    Examples
    --------
    >>> similarity_trend_scales(10_000.0)
    SimilarityScales(half=56, zero=6165)
    """
    half, zero = similarity_trend_crossings(base)
    return SimilarityScales(max(1, round(half)), max(1, round(zero)))


class PairGroups(NamedTuple):
    """How many pairs :func:`count_pairs_by_turn` puts in each group.

    Parameters
    ----------
    full_turn : int
        Pairs that complete at least one turn over the sequence.
    between : int
        Pairs that turn less than once but by at least `below` radians.
    below : int
        Pairs that turn by less than `below` radians.

    Examples
    --------
    >>> PairGroups(31, 13, 20).below
    20
    """

    full_turn: int
    between: int
    below: int


def count_pairs_by_turn(seq_len: int, d_model: int, base: float = 10_000.0, *, below: float = 1.0) -> PairGroups:
    r"""Sort the pairs by the angle :math:`\omega_i (\mathrm{seq\_len} - 1)` they turn over a sequence.

    Positions ``0 .. seq_len - 1`` are ``seq_len - 1`` steps apart at most, so pair ``i``
    turns by :math:`\omega_i(\mathrm{seq\_len} - 1)` radians from the first position to the
    last.  A pair that completes a turn tells near positions apart but repeats; one that
    turns less than once gives every position its own angle; one that turns by less than
    `below` radians barely changes over this sequence.

    Parameters
    ----------
    seq_len : int
        Positions in the sequence; at least 2.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    below : float, default 1.0
        The angle, in radians, under which a pair counts as barely turning; in ``(0, 2 pi)``.

    Returns
    -------
    PairGroups
        ``(full_turn, between, below)``, adding up to ``d_model // 2``.

    Raises
    ------
    TypeError, ValueError
        If `seq_len` is below 2, `below` is outside ``(0, 2 pi)``, or on bad `d_model` or `base`.

    Examples
    --------
    >>> count_pairs_by_turn(512, 128)
    PairGroups(full_turn=31, between=13, below=20)
    """
    if check_count(seq_len, "seq_len") < 2:
        raise ValueError(f"seq_len must be at least 2, got {seq_len}")
    if not 0 < below < 2 * math.pi:
        raise ValueError(f"below must be an angle in (0, 2 pi) radians, got {below!r}")
    turned = angular_frequencies(d_model, base) * (seq_len - 1)
    full_turn, small = int(np.sum(turned >= 2 * np.pi)), int(np.sum(turned < below))
    return PairGroups(full_turn, turned.size - full_turn - small, small)


def _grid_values(dtype: str) -> np.ndarray:
    """Every non-negative value up to 1 that `dtype` can store, in increasing order, as float64."""
    if dtype == "float16":
        bits = np.arange(0, 0x3C01, dtype=np.uint16)  # 0x3C00 is 1.0
        return bits.view(np.float16).astype(np.float64)
    bits = np.arange(0, 0x3F81, dtype=np.uint32) << 16  # bfloat16 is the top half of a float32; 0x3F80 is 1.0
    return bits.view(np.float32).astype(np.float64)


def rounding_breakpoints(dtype) -> np.ndarray:
    r"""Angles in :math:`[0, \pi/2]` at which :math:`\sin\theta` or :math:`\cos\theta`, rounded to `dtype`, changes.

    Between two consecutive breakpoints the rounded pair :math:`(\sin\theta, \cos\theta)`
    is one value, so a clock stored in `dtype` cannot tell apart two angles on that
    arc: two positions whose angles differ by less than the arc's length can be stored
    as the same pair.  Rounding is to nearest; a breakpoint is where the exact value
    crosses the midpoint between two neighbouring representable values.  The other
    quadrants are mirror images (the representable values are symmetric about 0).

    Parameters
    ----------
    dtype : {"float16", "bfloat16"} or numpy.float16
        A 16-bit floating-point format (bfloat16 is computed from its bit layout, so
        neither torch nor ml_dtypes is needed).

    Returns
    -------
    ndarray, shape (n,), dtype float64
        Increasing angles in radians, starting at 0 and ending at :math:`\pi/2`;
        ``np.diff`` of it gives the arcs of one stored value.

    Raises
    ------
    ValueError
        If `dtype` is not one of the two 16-bit formats.

    Examples
    --------
    >>> arcs = np.diff(rounding_breakpoints("float16"))
    >>> bool(arcs.max() < 2**-11 / np.sin(np.pi / 4) + 1e-12)  # at most one grid step, seen at 45 degrees
    True
    """
    name = "float16" if dtype is np.float16 or dtype == "float16" else "bfloat16" if dtype == "bfloat16" else None
    if name is None:
        raise ValueError(f"dtype must be 'float16' or 'bfloat16', got {dtype!r}")
    values = _grid_values(name)
    midpoints = (values[:-1] + values[1:]) / 2
    return np.unique(np.concatenate([[0.0, np.pi / 2], np.arcsin(midpoints), np.arccos(midpoints)]))
