r"""Rotary position embedding (RoPE): the shift rotation applied to queries and keys.

Su et al. (2024, "RoFormer", Sec. 3.4) rotate each pair of coordinates of a
query or key at position :math:`p` by the angle :math:`p\,\omega_i`, with the
frequencies of the sinusoidal encoding.  The rotation of a vector at position
:math:`p` is :math:`B(p) = R(-p) = R(p)^\top`, with :math:`R` the shift matrix
of :func:`~companion.analysis.linearity.rotation_matrix`, so

.. math::

    (B(p)\,q) \cdot (B(s)\,k) = q^\top B(s - p)\, k,

which depends on the positions only through their offset.

Implementations pair the coordinates in two ways, and a model trained with
one breaks silently under the other:

- ``"interleaved"``: pairs ``(x[2i], x[2i+1])``, as in the RoFormer paper;
- ``"half"``: pairs ``(x[i], x[i + d/2])``, the "rotate half" code of
  GPT-NeoX and of Hugging Face's LLaMA.

They differ by the same column permutation as the two layouts of the table.

:func:`~companion.apply_rotary` takes numpy arrays and torch tensors alike; a tensor stays a
tensor, on its device and in its dtype, and gradients flow through it, so the
same function rotates the queries and keys of a PyTorch model.
"""

from __future__ import annotations

import numpy as np

from .._checks import check_choice, check_d_model, check_positions, check_real_array, is_torch_tensor
from .frequencies import angular_frequencies

__all__ = ["PAIRINGS", "apply_rotary"]

PAIRINGS = ("interleaved", "half")


def apply_rotary(x, positions, *, base: float = 10_000.0, pairing: str = "interleaved"):
    r"""Rotate the pairs of coordinates of `x` by ``positions * omega_i`` (RoPE).

    Parameters
    ----------
    x : array_like or Tensor, shape (..., seq_len, d)
        Queries or keys; the last axis is the head dimension ``d`` (even). Real
        numbers only: complex input is refused, not silently cut to its real part.
    positions : array_like or Tensor, shape (seq_len,)
        Finite position of each row of `x`.
    base : float, default 10000.0
        Finite and greater than 1.
    pairing : {"interleaved", "half"}, default "interleaved"
        Which coordinates form a pair; see the module docstring.

    Returns
    -------
    ndarray of float64, or Tensor of the dtype and on the device of `x`; same shape as `x`
        Pair ``(a, b)`` becomes ``(a cos t - b sin t, a sin t + b cos t)``
        with ``t = position * omega_i``, the angles and their cosines and sines computed in
        float64.  For a tensor the cosines and sines are then rounded to the dtype of `x`, and
        the rotation is computed in that dtype; norms are preserved up to its rounding.

    Raises
    ------
    TypeError
        If `x` or `positions` does not hold real numbers (a tensor `x` must be floating
        point), or `pairing` is not a str.
    ValueError
        If ``x.shape[-1]`` is not even, ``x.shape[-2]`` differs from the
        number of positions, `positions` is invalid, or `pairing` is unknown.

    Examples
    --------
    >>> apply_rotary(np.array([[1.0, 0.0]]), [np.pi / 2]).round(12)
    array([[0., 1.]])
    >>> import torch
    >>> rotated = apply_rotary(torch.tensor([[3.0, 4.0]]), torch.tensor([2.0]))
    >>> rotated.dtype, round(rotated.norm().item(), 5)  # a rotation keeps the norm
    (torch.float32, 5.0)
    """
    pairing = check_choice(pairing, "pairing", PAIRINGS)
    if is_torch_tensor(x):
        return _apply_rotary_torch(x, positions, base, pairing)
    x = check_real_array(x, "x")
    positions = check_positions(positions)
    d = _check_rows(x.shape, positions.size)
    angles = positions[:, None] * angular_frequencies(d, base)
    return _rotate(x, np.cos(angles), np.sin(angles), d, pairing, np.empty_like(x))


def _check_rows(shape, seq_len: int) -> int:
    if len(shape) < 2 or shape[-2] != seq_len:
        raise ValueError(
            f"x must have shape (..., seq_len, d) with seq_len = len(positions) = {seq_len}, got {tuple(shape)}"
        )
    return check_d_model(shape[-1])


def _rotate(x, cosines, sines, d: int, pairing: str, rotated):
    if pairing == "interleaved":
        first, second = np.s_[..., 0::2], np.s_[..., 1::2]
    else:
        first, second = np.s_[..., : d // 2], np.s_[..., d // 2 :]
    rotated[first] = x[first] * cosines - x[second] * sines
    rotated[second] = x[first] * sines + x[second] * cosines
    return rotated


def _apply_rotary_torch(x, positions, base: float, pairing: str):
    import torch

    from .torch_table import _as_positions, torch_angular_frequencies

    if not x.is_floating_point():
        raise TypeError(f"x must be a real floating tensor (queries or keys), got dtype {x.dtype}")
    positions = _as_positions(positions, x.device)
    d = _check_rows(x.shape, positions.shape[0])
    angles = positions[:, None] * torch_angular_frequencies(d, base, device=x.device)
    cosines, sines = torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype)
    if pairing == "interleaved":
        first, second = x[..., 0::2], x[..., 1::2]
        return torch.stack([first * cosines - second * sines, first * sines + second * cosines], dim=-1).flatten(-2)
    first, second = x[..., : d // 2], x[..., d // 2 :]
    return torch.cat([first * cosines - second * sines, first * sines + second * cosines], dim=-1)
