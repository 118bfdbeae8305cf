r"""A rule for the base: which bases suit a context of :math:`N` positions.

The cosine similarity of positions :math:`k` apart ripples about a smooth trend,
:math:`-\mathrm{Ci}(k/b)/\ln b` (:func:`~companion.analysis.distinguishability.similarity_trend`), the same at
every width. The trend has two scales: it falls to 1/2 near :math:`e^{-\gamma}\sqrt{b}` (the *resolution*:
nearer positions look more alike than not; the scale of the fall, not the smallest distance the encoding
tells apart) and to 0 at :math:`x_0 b`, :math:`x_0 = 0.6165` the first zero of :math:`\mathrm{Ci}` (the
*range*: nearer positions look more alike than unrelated vectors, whose similarity averages 0). The trend
does not stop falling there: its slope, :math:`-\cos(k/b)/(k \ln b)`, stays negative up to
:math:`k = (\pi/2)\,b`, where it turns back up towards 0. A context of :math:`N` positions uses the whole
positive part of the fall when it lies between the two scales,

.. math::

    e^{-\gamma}\sqrt{b} \;\lesssim\; N \;\le\; x_0\, b
    \quad\Longleftrightarrow\quad
    \frac{N}{x_0} \;\le\; b \;\lesssim\; (e^{\gamma} N)^2 :

below the window the slowest pairs turn so far within the context that the trend reaches 0 before its end
(two positions :math:`N` apart look, on the trend, no more alike than unrelated vectors); above it the whole
context sits in the top half of the trend, and what separates neighbours, the fast pairs, is shared by fewer
pairs, so the distance between neighbours falls, slowly, as :math:`1/\sqrt{\ln b}`. :func:`base_window`
computes the window exactly (the trend's own crossings, found with mpmath); :func:`base_scales` gives, for
one base and width, the scales to set against a context: the trend's two, where the similarity itself
(ripples included) first reaches 0, the slowest pair's wavelength and the distance between neighbours.

The rule reads the encoding alone. It says nothing of what a model trained on shorter sequences makes of
the positions it never saw (chapter 6), and the ripples, which the trend ignores, bring the similarity's
first zero at a finite width well below :math:`x_0 b`. Asking the similarity itself to stay positive over
the context, as Men et al. (2024, "Base of RoPE bounds context length") do for rotary heads, asks more,
and is not monotone in the base: at width 128 base :math:`10^6` first reaches 0 at 27,115 positions,
:math:`8 \cdot 10^5` at 30,187.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .._checks import check_base, check_count, check_d_model
from ..encoding.frequencies import wavelengths
from .distinguishability import _mpmath, offset_distances, similarity_scales, similarity_trend_crossings

__all__ = ["BaseScales", "BaseWindow", "base_scales", "base_window"]


class BaseWindow(NamedTuple):
    """The bases whose similarity trend spends its fall within a context (:func:`base_window`).

    Parameters
    ----------
    lowest : float
        The smallest base whose trend is still positive at the end of the context, ``context_len / x_0``:
        positions ``context_len`` apart still look more alike than unrelated vectors.
    highest : float
        The largest base whose trend falls to 1/2 within the context, about ``(e**gamma * context_len)**2``.

    Examples
    --------
    >>> BaseWindow(lowest=6643.9, highest=5.3e7).lowest
    6643.9
    """

    lowest: float
    highest: float


class BaseScales(NamedTuple):
    """What a base gives at one width, in positions (:func:`base_scales`).

    Parameters
    ----------
    resolution : float
        Where the trend of the similarity falls to 1/2, near ``e**-gamma * sqrt(base)`` (any width): the scale
        of its fall, not the smallest distance the encoding tells apart.
    first_half : int
        Where the similarity itself, ripples included, first falls to 1/2 at this width.
    range : float
        Where the trend reaches 0, ``0.6165 * base`` (any width): nearer positions look more alike than unrelated
        vectors (the trend keeps falling, below 0, up to ``pi / 2 * base``).
    first_zero : int
        Where the similarity itself, ripples included, first reaches 0 at this width.
    slowest_wavelength : float
        The slowest pair's wavelength, ``2 pi base**((d_model - 2) / d_model)``: it turns once in this many
        positions.
    neighbour_distance : float
        ``||PE(p + 1) - PE(p)||`` at this width.

    Examples
    --------
    >>> BaseScales(56.1, 46, 6165.0, 1707, 54410.0, 1.95).first_zero
    1707
    """

    resolution: float
    first_half: int
    range: float
    first_zero: int
    slowest_wavelength: float
    neighbour_distance: float


def base_window(context_len: int) -> BaseWindow:
    r"""The bases that put a context of `context_len` positions between the trend's resolution and its range.

    The lower end makes the trend's range reach the end of the context, :math:`b = N/x_0`, so that the trend
    is still positive there; the upper end
    makes its resolution reach it: the base at which :math:`-\mathrm{Ci}(N/b)/\ln b = 1/2`, close to
    :math:`(e^{\gamma} N)^2` (:math:`\gamma` Euler's constant). Both hold at every width; see the module's
    notes for what the window leaves out.

    Parameters
    ----------
    context_len : int
        :math:`N`, the number of positions; at least 2.

    Returns
    -------
    BaseWindow
        ``(lowest, highest)``, bases as floats.

    Raises
    ------
    TypeError
        If `context_len` is not an integer.
    ValueError
        If `context_len` is below 2.

    Examples
    --------
    >>> window = base_window(4096)
    >>> round(window.lowest), f"{window.highest:.3g}"
    (6644, '5.32e+07')
    """
    context_len = check_count(context_len, "context_len")
    if context_len < 2:
        raise ValueError(f"context_len must be at least 2, got {context_len}")
    mpmath = _mpmath()
    first_zero = mpmath.findroot(mpmath.ci, 0.6)
    # the trend at N is 1/2 where Ci(N / b) = -ln(b) / 2; solved for ln b, from (e^gamma N)^2
    log_base = mpmath.findroot(lambda u: mpmath.ci(context_len / mpmath.exp(u)) + u / 2,
                               2 * (float(mpmath.euler) + math.log(context_len)))
    return BaseWindow(float(context_len / first_zero), float(mpmath.exp(log_base)))


def base_scales(base: float, d_model: int) -> BaseScales:
    r"""The scales a base sets at width `d_model`, in positions, to set against a context length.

    Parameters
    ----------
    base : float
        Finite and greater than 1 (the rotary ``rope_theta``, or 10,000 for the paper's encoding).
    d_model : int
        The width the similarity is summed over: the encoding's width, or a rotary head's; a positive even
        integer.

    Returns
    -------
    BaseScales
        The trend's resolution and range (unrounded), where the similarity itself first falls to 1/2 and to 0
        at this width, the slowest pair's wavelength, and the distance between neighbours.

    Raises
    ------
    TypeError, ValueError
        On a bad `base` or `d_model`.

    Examples
    --------
    >>> scales = base_scales(10_000.0, 128)
    >>> round(scales.resolution), scales.first_half, round(scales.range), scales.first_zero
    (56, 46, 6165, 1707)
    >>> round(scales.slowest_wavelength)
    54410
    >>> round(scales.neighbour_distance, 2)
    1.95
    """
    base, d_model = check_base(base), check_d_model(d_model)
    resolution, trend_range = similarity_trend_crossings(base)
    first = similarity_scales(d_model, base, max_offset=max(10**6, math.ceil(trend_range)))
    return BaseScales(resolution, first.half, trend_range, first.zero, float(wavelengths(d_model, base)[-1]),
                      float(offset_distances([1], d_model, base)[0]))
