"""The sinusoidal positional encoding table as a torch tensor."""

from __future__ import annotations

import numpy as np
import torch

from ._checks import check_exact_integers
from .encoding import sinusoidal_encoding

__all__ = ["round_to_dtype", "torch_sinusoidal_encoding"]

TORCH_FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

# Significant bits and the exponent of the smallest subnormal of each half format.
_HALF_FORMATS = {torch.float16: (11, -24), torch.bfloat16: (8, -133)}


def _check_torch_dtype(dtype) -> torch.dtype:
    if dtype not in TORCH_FLOAT_DTYPES:
        raise TypeError(
            f"dtype must be one of torch.float16, torch.bfloat16, torch.float32, "
            f"torch.float64, got {dtype!r}"
        )
    return dtype


def _tensor_to_numpy(positions: torch.Tensor):
    positions = positions.detach().cpu()
    if positions.dtype in (torch.float16, torch.bfloat16):  # numpy has no bfloat16
        if positions.numel() and bool(torch.isfinite(positions).all()):
            check_exact_integers(positions.abs().max().item(), str(positions.dtype).removeprefix("torch."))
        positions = positions.to(torch.float32)  # exact
    return positions.numpy()


def round_to_dtype(table: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Cast a float64 tensor to `dtype`, rounding each value once, to nearest.

    torch casts float64 to float16 and bfloat16 through float32, which rounds
    twice and misses the nearest value in about 1 case in 10**4 to 10**5.  Here
    half formats are first snapped, in float64, to the grid of `dtype` (its
    ulp, subnormals included; ties to even), after which the cast is exact.

    Parameters
    ----------
    table : Tensor, dtype float64
        Values to round (any shape), within the range of `dtype`.
    dtype : torch.dtype
        One of float16, bfloat16, float32, float64.

    Returns
    -------
    Tensor, same shape, dtype `dtype`
        Each value the nearest `dtype` number to the input.

    Examples
    --------
    >>> x = torch.tensor([1 + 2.0**-8 + 2.0**-30], dtype=torch.float64)  # just above a midpoint
    >>> round_to_dtype(x, torch.bfloat16).item(), x.to(torch.bfloat16).item()
    (1.0078125, 1.0)
    """
    if dtype in _HALF_FORMATS:
        bits, smallest_exponent = _HALF_FORMATS[dtype]
        _, exponent = torch.frexp(table)
        quantum = torch.exp2(torch.clamp(exponent - bits, min=smallest_exponent).to(torch.float64))
        table = torch.round(table / quantum) * quantum
    return table.to(dtype)


def torch_sinusoidal_encoding(
    positions,
    d_model: int,
    *,
    base: float = 10_000.0,
    layout: str = "interleaved",
    dtype: torch.dtype = torch.float32,
    device=None,
) -> torch.Tensor:
    r"""Sinusoidal positional encoding as a tensor (Vaswani et al., 2017, Sec. 3.5).

    The same values as :func:`sinusoidal_encoding`, which builds them: in
    float64 on the CPU (some accelerators have no float64), rounded once to
    `dtype` (correctly for float16 and bfloat16 too, see
    :func:`~companion.torch_encoding.round_to_dtype`), then moved to `device`.

    Parameters
    ----------
    positions : Tensor or array_like, shape (seq_len,)
        Finite real positions, usually ``torch.arange(seq_len)``; magnitudes
        up to ``2**53``.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    layout : {"interleaved", "concatenated"}, default "interleaved"
        Column layout, as in :func:`sinusoidal_encoding`.
    dtype : torch.dtype, default torch.float32
        One of float16, bfloat16, float32, float64.
    device : torch.device or str, optional
        Where the result lives; default the CPU.

    Returns
    -------
    Tensor, shape (seq_len, d_model), dtype `dtype`
        Row ``k`` encodes ``positions[k]``; values in [-1, 1].

    Raises
    ------
    TypeError
        If `d_model` is not an integer, `base` is not real, `positions` does
        not hold real numbers, or `dtype` is not a supported float dtype.
    ValueError
        If `d_model` is not positive and even, `base` is not finite and > 1,
        `positions` is not 1-D or holds a non-finite value or a magnitude
        above 2**53, or `layout` is unknown.

    Examples
    --------
    >>> pe = torch_sinusoidal_encoding(torch.arange(3), 4)
    >>> pe.shape, pe.dtype
    (torch.Size([3, 4]), torch.float32)
    >>> pe[1]
    tensor([0.8415, 0.5403, 0.0100, 0.9999])
    """
    if isinstance(positions, torch.Tensor):
        positions = _tensor_to_numpy(positions)
    dtype = _check_torch_dtype(dtype)
    if dtype in _HALF_FORMATS:
        table = sinusoidal_encoding(positions, d_model, base=base, layout=layout, dtype=np.float64)
        return round_to_dtype(torch.from_numpy(table), dtype).to(device=device)
    numpy_dtype = np.float32 if dtype == torch.float32 else np.float64
    table = sinusoidal_encoding(positions, d_model, base=base, layout=layout, dtype=numpy_dtype)
    return torch.from_numpy(table).to(device=device)
