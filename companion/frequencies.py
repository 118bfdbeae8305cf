"""The angular frequencies and wavelengths of the sinusoidal encoding.

Notation (Vaswani et al., 2017, Sec. 3.5): pair ``i`` of the encoding, for
``i = 0, ..., d_model/2 - 1``, turns at the angular frequency
``omega_i = base ** (-2 i / d_model)`` radians per position, so its sine and
cosine repeat every ``2 pi / omega_i`` positions (its wavelength).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_base, check_d_model

__all__ = ["angular_frequencies", "wavelengths"]


def angular_frequencies(d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""Angular frequencies :math:`\omega_i = \mathrm{base}^{-2i/d_{model}}`.

    Source: Vaswani et al. (2017), Sec. 3.5; the paper writes the encoding as
    :math:`\sin(pos / 10000^{2i/d_{model}})`, i.e. :math:`\sin(\omega_i \, pos)`.
    Other code calls this vector ``div_term`` or ``inv_freq``.

    Parameters
    ----------
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1. The paper uses 10000.

    Returns
    -------
    ndarray, shape (d_model // 2,), dtype float64
        ``omega_i`` in radians per position, from ``omega_0 = 1`` down to
        ``base ** (-(d_model - 2) / d_model)``, a geometric progression.

    Raises
    ------
    TypeError
        If `d_model` is not an integer or `base` is not a real number.
    ValueError
        If `d_model` is not positive and even, or `base` is not finite and > 1.

    Examples
    --------
    >>> angular_frequencies(6).round(6)
    array([1.      , 0.046416, 0.002154])
    >>> angular_frequencies(512).shape
    (256,)
    """
    d_model = check_d_model(d_model)
    base = check_base(base)
    exponents = np.arange(0, d_model, 2, dtype=np.float64) / d_model
    return base ** -exponents


def wavelengths(d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""Wavelengths :math:`\lambda_i = 2\pi / \omega_i` of the (sin, cos) pairs.

    Source: Vaswani et al. (2017), Sec. 3.5: "The wavelengths form a geometric
    progression from 2π to 10000 · 2π".  Strictly, the longest is
    :math:`2\pi \cdot \mathrm{base}^{(d_{model} - 2)/d_{model}}`, a little
    short of :math:`2\pi \cdot \mathrm{base}`.

    Parameters
    ----------
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.

    Returns
    -------
    ndarray, shape (d_model // 2,), dtype float64
        Wavelengths in positions (tokens), increasing with ``i``.

    Raises
    ------
    TypeError
        If `d_model` is not an integer or `base` is not a real number.
    ValueError
        If `d_model` is not positive and even, or `base` is not finite and > 1.

    Examples
    --------
    >>> wavelengths(4).round(2)
    array([  6.28, 628.32])
    """
    return 2 * np.pi / angular_frequencies(d_model, base)
