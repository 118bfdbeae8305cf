r"""Where the base went next: the frequencies of rotary embeddings stretched to longer contexts.

Rotary position embedding (RoPE; Su et al., 2024) turns pair ``i`` of each query and key by
the paper's angle :math:`\omega_i p` with :math:`\omega_i = \mathrm{base}^{-2i/d}`, so the
base plays the part it plays in the sinusoidal table. To run a model trained on sequences of
``original_max_len`` tokens on sequences ``scale`` times longer, three recipes change the
frequencies (``d`` is the rotated width, the head dimension in a model):

- ``"interpolation"``: position interpolation (Chen et al., 2023) divides every position, so
  every frequency, by ``scale``: :math:`\omega_i' = \omega_i / s`.
- ``"ntk-aware"``: NTK-aware scaling (bloc97, 2023) raises the base to
  :math:`b' = b\,s^{d/(d-2)}`, which leaves the fastest pair alone and slows the slowest
  by exactly ``scale`` (Peng et al., 2023, Definition 1).
- ``"yarn"``: the "NTK-by-parts" frequencies of YaRN (Peng et al., 2023, Sec. 3.2 and 3.4):
  a pair that turns more than ``beta`` times within ``original_max_len`` positions keeps its
  frequency, a pair that turns less than ``alpha`` times is divided by ``scale``, and the
  pairs between are blended linearly in the number of turns. (YaRN also tempers the
  attention logits; that part does not change the frequencies.)

Llama 3 instead trains with a larger base from the start: 500,000 (Grattafiori et al., 2024,
Sec. 3.2).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._checks import check_base, check_choice, check_count, check_d_model
from .frequencies import angular_frequencies

__all__ = ["EXTENSION_METHODS", "ntk_aware_base", "scaled_frequencies"]

#: The recipes :func:`scaled_frequencies` knows.
EXTENSION_METHODS = ("interpolation", "ntk-aware", "yarn")


def _check_scale(scale) -> float:
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not math.isfinite(scale) or scale < 1:
        raise ValueError(f"scale must be a finite real number of at least 1 (the context's growth), got {scale!r}")
    return float(scale)


def ntk_aware_base(base: float, scale: float, d_model: int) -> float:
    r"""The base of NTK-aware scaling: :math:`b\,s^{d/(d-2)}`.

    With this base the slowest pair, :math:`b^{-(d-2)/d}`, turns exactly ``scale`` times more
    slowly, while pair 0 still turns 1 radian per position (bloc97, 2023; Peng et al., 2023,
    Definition 1).

    Parameters
    ----------
    base : float
        The base the model was trained with; finite and greater than 1.
    scale : float
        How many times longer the new context is; finite and at least 1.
    d_model : int
        Rotated width (the head dimension for RoPE); a positive even integer, at least 4.

    Returns
    -------
    float
        The new base.

    Raises
    ------
    TypeError
        If `d_model` is not an integer or `base` is not a real number.
    ValueError
        If `base` is not finite and > 1, `scale` is not finite and >= 1, or `d_model` is
        not an even integer of at least 4 (with one pair nothing can be stretched).

    Examples
    --------
    >>> round(ntk_aware_base(10_000.0, 8, 128))
    82685
    """
    base, scale, d_model = check_base(base), _check_scale(scale), check_d_model(d_model)
    if d_model < 4:
        raise ValueError(f"d_model must be at least 4 for NTK-aware scaling, got {d_model}")
    return base * scale ** (d_model / (d_model - 2))


def scaled_frequencies(
    d_model: int,
    scale: float,
    *,
    method: str,
    base: float = 10_000.0,
    original_max_len: int | None = None,
    alpha: float = 1.0,
    beta: float = 32.0,
) -> np.ndarray:
    r"""Angular frequencies of a context stretched ``scale`` times by one of :data:`EXTENSION_METHODS`.

    Parameters
    ----------
    d_model : int
        Rotated width; a positive even integer (at least 4 for ``"ntk-aware"``).
    scale : float
        How many times longer the new context is; finite and at least 1.
    method : {"interpolation", "ntk-aware", "yarn"}
        Position interpolation (Chen et al., 2023), NTK-aware scaling (bloc97, 2023) or
        YaRN's NTK-by-parts frequencies (Peng et al., 2023, Sec. 3.2).
    base : float, default 10000.0
        The base the model was trained with.
    original_max_len : int, optional
        The training context, in positions; required for ``"yarn"`` (it decides how many
        turns each pair makes within it).
    alpha, beta : float, default 1.0 and 32.0
        YaRN's thresholds in turns within `original_max_len` (the paper's values for LLaMA):
        below `alpha` turns a pair is interpolated, above `beta` turns it is kept.

    Returns
    -------
    ndarray, shape (d_model // 2,), dtype float64
        :math:`\omega_i'` in radians per position; never faster than the original
        :math:`\omega_i`, and never slower than :math:`\omega_i / s`.

    Raises
    ------
    TypeError
        If `d_model` or `original_max_len` is not an integer, or `base` or `method` has the wrong type.
    ValueError
        If `method` is unknown, `scale` is below 1, `original_max_len` is missing or not
        positive for ``"yarn"``, or not ``0 < alpha < beta``.

    Examples
    --------
    >>> scaled_frequencies(8, 4, method="interpolation", base=100.0).round(6).tolist()
    [0.25, 0.079057, 0.025, 0.007906]
    >>> ratio = scaled_frequencies(128, 8, method="ntk-aware") / angular_frequencies(128)
    >>> float(ratio[0]), round(float(ratio[-1]), 12)
    (1.0, 0.125)
    """
    method = check_choice(method, "method", EXTENSION_METHODS)
    scale = _check_scale(scale)
    omega = angular_frequencies(d_model, base)
    if method == "interpolation":
        return omega / scale
    if method == "ntk-aware":
        return angular_frequencies(d_model, ntk_aware_base(base, scale, d_model))
    if original_max_len is None or check_count(original_max_len, "original_max_len") < 1:
        raise ValueError(f"original_max_len must be a positive integer for method 'yarn', got {original_max_len!r}")
    if not 0 < alpha < beta:
        raise ValueError(f"alpha and beta must satisfy 0 < alpha < beta, got alpha={alpha!r}, beta={beta!r}")
    turns = original_max_len * omega / (2 * np.pi)  # r = L / lambda in the paper
    kept = np.clip((turns - alpha) / (beta - alpha), 0.0, 1.0)  # the ramp gamma(r)
    return (1 - kept) * omega / scale + kept * omega
