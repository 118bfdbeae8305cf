"""The angular frequencies and wavelengths of the sinusoidal encoding.

Notation (Vaswani et al., 2017, Sec. 3.5): pair ``i`` of the encoding, for
``i = 0, ..., d_model/2 - 1``, turns at the angular frequency ``omega_i``
radians per position, so its sine and cosine repeat every ``2 pi / omega_i``
positions (its wavelength).  Two spacings of the frequencies are in use:

- ``"paper"``: ``omega_i = base ** (-2 i / d_model)``, Vaswani et al. (2017),
  Sec. 3.5; the slowest pair turns at ``base ** (-(d_model - 2) / d_model)``.
- ``"tensor2tensor"``: ``omega_i = base ** (-i / (d_model/2 - 1))``, the
  log-spaced timescales of tensor2tensor's ``get_timing_signal_1d``
  (Vaswani et al., 2018), also used by fairseq's ``SinusoidalPositionalEmbedding``,
  Marian's ``sinusoidalPositionEmbeddings`` and Hugging Face's M2M100 and NLLB;
  the slowest pair turns at exactly ``1 / base``.
"""

from __future__ import annotations

import numpy as np

from .._checks import SPACINGS, check_base, check_d_model, check_spacing

__all__ = ["SPACINGS", "angular_frequencies", "wavelengths"]


def frequency_exponents(d_model: int, spacing: str) -> np.ndarray:
    """Exponent ``x_i`` of each pair, ``omega_i = base ** -x_i``."""
    half = d_model // 2
    if spacing == "paper":  # 2i / d_model
        return np.arange(0, d_model, 2, dtype=np.float64) / d_model
    # tensor2tensor: i / max(num_timescales - 1, 1)
    return np.arange(half, dtype=np.float64) / max(half - 1, 1)


def angular_frequencies(
    d_model: int, base: float = 10_000.0, *, spacing: str = "paper"
) -> np.ndarray:
    r"""Angular frequencies :math:`\omega_i` of the (sin, cos) pairs.

    Source: Vaswani et al. (2017), Sec. 3.5; the paper writes the encoding as
    :math:`\sin(pos / 10000^{2i/d_{model}})`, i.e. :math:`\sin(\omega_i \, pos)` with
    :math:`\omega_i = \mathrm{base}^{-2i/d_{model}}`.  Other code calls this vector
    ``div_term``, ``inv_freq`` or ``inv_timescales``.

    Parameters
    ----------
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1. The paper uses 10000.
    spacing : {"paper", "tensor2tensor"}, default "paper"
        ``"paper"``: :math:`\mathrm{base}^{-2i/d_{model}}`; ``"tensor2tensor"``:
        :math:`\mathrm{base}^{-i/(d_{model}/2 - 1)}` (tensor2tensor, fairseq, Marian, M2M100).

    Returns
    -------
    ndarray, shape (d_model // 2,), dtype float64
        ``omega_i`` in radians per position, a geometric progression from
        ``omega_0 = 1`` down to ``base ** (-(d_model - 2) / d_model)`` (paper) or
        ``1 / base`` (tensor2tensor, for ``d_model >= 4``).

    Raises
    ------
    TypeError
        If `d_model` is not an integer, `base` is not a real number, or `spacing` is not a str.
    ValueError
        If `d_model` is not positive and even (or too large), `base` is not finite and > 1,
        or `spacing` is unknown.

    Examples
    --------
    >>> angular_frequencies(6).round(6)
    array([1.      , 0.046416, 0.002154])
    >>> angular_frequencies(6, spacing="tensor2tensor").tolist()
    [1.0, 0.01, 0.0001]
    >>> angular_frequencies(512).shape
    (256,)
    """
    d_model = check_d_model(d_model)
    base = check_base(base)
    spacing = check_spacing(spacing)
    try:
        exponents = frequency_exponents(d_model, spacing)
    except MemoryError as error:
        raise ValueError(
            f"d_model={d_model} is too large to allocate its "
            f"{d_model // 2} frequencies"
        ) from error
    return base ** -exponents


def wavelengths(d_model: int, base: float = 10_000.0, *, spacing: str = "paper") -> np.ndarray:
    r"""Wavelengths :math:`\lambda_i = 2\pi / \omega_i` of the (sin, cos) pairs.

    Source: Vaswani et al. (2017), Sec. 3.5: "The wavelengths form a geometric
    progression from 2π to 10000 · 2π".  With the paper's spacing the longest is
    :math:`2\pi \cdot \mathrm{base}^{(d_{model} - 2)/d_{model}}`, a little
    short of :math:`2\pi \cdot \mathrm{base}`; with tensor2tensor's it is exactly that.

    Parameters
    ----------
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    spacing : {"paper", "tensor2tensor"}, default "paper"
        As in :func:`angular_frequencies`.

    Returns
    -------
    ndarray, shape (d_model // 2,), dtype float64
        Wavelengths in positions (tokens), increasing with ``i``.

    Raises
    ------
    TypeError
        If `d_model` is not an integer, `base` is not a real number, or `spacing` is not a str.
    ValueError
        If `d_model` is not positive and even, `base` is not finite and > 1, or `spacing` is unknown.

    Examples
    --------
    >>> wavelengths(4).round(2)
    array([  6.28, 628.32])
    """
    return 2 * np.pi / angular_frequencies(d_model, base, spacing=spacing)
