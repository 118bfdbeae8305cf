"""The sinusoidal positional encoding table, vectorized with numpy (no torch needed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Union, overload

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .._checks import Layout, Spacing, check_d_model, check_dtype, check_layout, check_positions, too_large
from .angle_addition import interleaved_table
from .frequencies import angular_frequencies
from .layouts import layout_permutation

if TYPE_CHECKING:  # for annotations only: the numpy table never imports torch
    import torch

__all__ = ["sinusoidal_encoding"]

#: What `positions` may be: anything numpy reads as a 1-D array of reals, or a torch tensor.
Positions = Union[ArrayLike, "torch.Tensor"]
_Float16 = Union[type[np.float16], "np.dtype[np.float16]", Literal["float16"]]
_Float32 = Union[type[np.float32], "np.dtype[np.float32]", Literal["float32"]]
_Float64 = Union[type[np.float64], "np.dtype[np.float64]", Literal["float64"], type[float], None]


@overload
def sinusoidal_encoding(positions: Positions, d_model: int, *, base: float = ..., layout: Layout = ...,
                        spacing: Spacing = ..., dtype: _Float64 = ...) -> NDArray[np.float64]: ...
@overload
def sinusoidal_encoding(positions: Positions, d_model: int, *, base: float = ..., layout: Layout = ...,
                        spacing: Spacing = ..., dtype: _Float32) -> NDArray[np.float32]: ...
@overload
def sinusoidal_encoding(positions: Positions, d_model: int, *, base: float = ..., layout: Layout = ...,
                        spacing: Spacing = ..., dtype: _Float16) -> NDArray[np.float16]: ...
@overload
def sinusoidal_encoding(positions: Positions, d_model: int, *, base: float = ..., layout: Layout = ...,
                        spacing: Spacing = ..., dtype: DTypeLike) -> NDArray[np.floating[Any]]: ...


def sinusoidal_encoding(
    positions: Positions,
    d_model: int,
    *,
    base: float = 10_000.0,
    layout: Layout = "interleaved",
    spacing: Spacing = "paper",
    dtype: DTypeLike = np.float64,
) -> NDArray[np.floating[Any]]:
    r"""Sinusoidal positional encoding of `positions` (Vaswani et al., 2017, Sec. 3.5).

    .. math::

        PE_{(pos, 2i)} = \sin(\omega_i \, pos), \quad
        PE_{(pos, 2i+1)} = \cos(\omega_i \, pos), \quad
        \omega_i = \mathrm{base}^{-2i/d_{model}}.

    Every value is computed in float64 and rounded once to `dtype`, so each
    entry of a float32 table is within ``2**-25`` (about 3e-8, half a float32
    ulp of values near 1) of the exact value, plus the float64 error of the
    angle (about ``1e-16 * pos``, far below 3e-8 up to ``pos = 1e7``).  It is
    not always the float32 nearest to the exact value: smaller entries have
    finer ulps, which that float64 error can exceed.  For positions in
    arithmetic progression, such as ``np.arange(seq_len)``, the table is
    assembled by angle addition from directly computed anchors
    (:mod:`companion.encoding.angle_addition`), which is about as accurate and
    several times faster than one sine and cosine per entry.

    Parameters
    ----------
    positions : array_like, shape (seq_len,)
        Finite real positions, usually ``np.arange(seq_len)``; magnitudes up
        to ``2**53`` (beyond that float64 cannot hold them exactly).
    d_model : int
        Encoding width; a positive even integer (odd widths are rejected:
        every frequency fills one sin and one cos column).
    base : float, default 10000.0
        Finite and greater than 1.
    layout : {"interleaved", "concatenated"}, default "interleaved"
        ``"interleaved"``: sin in even columns, cos in odd (the paper).
        ``"concatenated"``: ``[sin | cos]`` (tensor2tensor, fairseq, Marian, M2M100).
    spacing : {"paper", "tensor2tensor"}, default "paper"
        How the frequencies are spaced (:func:`~companion.angular_frequencies`).
        ``spacing="tensor2tensor", layout="concatenated"`` is the table of
        tensor2tensor, fairseq, Marian and M2M100/NLLB.
    dtype : {float16, float32, float64}, default float64
        Dtype of the returned table: a numpy dtype or its class (``np.float32``) or name
        (``"float32"``); None means float64.  Type checkers see the returned array's dtype.

    Returns
    -------
    ndarray, shape (seq_len, d_model), dtype `dtype`
        Row ``k`` encodes ``positions[k]``; values are dimensionless, in [-1, 1].

    Raises
    ------
    TypeError
        If `d_model` is not an integer, `base` is not real, `positions` does
        not hold real numbers or is a masked array, `layout` or `spacing` is
        not a str, or `dtype` is not float16, float32 or float64.
    ValueError
        If `d_model` is not positive and even, `base` is not finite and > 1,
        `positions` is not 1-D, holds a non-finite value or a magnitude
        above 2**53, or is a tensor on the meta device, `layout` or
        `spacing` is unknown, or the table is too large to allocate.

    See Also
    --------
    loop_encoding : the same table, one entry at a time.
    torch_sinusoidal_encoding : the same values as a torch tensor.

    Examples
    --------
    >>> sinusoidal_encoding(np.arange(3), d_model=4).round(4)
    array([[ 0.    ,  1.    ,  0.    ,  1.    ],
           [ 0.8415,  0.5403,  0.01  ,  1.    ],
           [ 0.9093, -0.4161,  0.02  ,  0.9998]])
    >>> sinusoidal_encoding([0, 1], 4, layout="concatenated").round(4)
    array([[0.    , 0.    , 1.    , 1.    ],
           [0.8415, 0.01  , 0.5403, 1.    ]])
    >>> sinusoidal_encoding(np.arange(10), 512, dtype=np.float32).dtype
    dtype('float32')
    """
    positions = check_positions(positions)
    d_model = check_d_model(d_model)
    layout = check_layout(layout)
    dtype = check_dtype(dtype)
    omega = angular_frequencies(d_model, base, spacing=spacing)
    try:
        if dtype == np.float16:  # no complex float16: build in float64, round once
            table = interleaved_table(positions, omega, np.float64).astype(np.float16)
        else:
            table = interleaved_table(positions, omega, dtype)
    except MemoryError as error:
        raise too_large(positions.size, d_model, dtype.itemsize) from error
    if layout == "concatenated":
        table = table[:, layout_permutation(d_model, "interleaved", "concatenated")]
    return table
