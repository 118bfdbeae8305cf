"""The sinusoidal positional encoding computed with torch, on the positions' device.

Every angle ``position * omega_i`` and its sine and cosine are evaluated in
float64 on the device that holds the positions (or the one asked for), and
each float64 value is rounded once, to nearest, to the requested dtype:
float16 and bfloat16 too, which a plain cast would round twice
(:func:`round_to_dtype`).  Nothing goes through numpy, so the function works
on any device, is differentiable in the positions, and compiles with
``torch.compile(fullgraph=True)``.
"""

from __future__ import annotations

from .._environment import require

torch = require("torch")

from .._checks import (  # noqa: E402
    EXACT_INTEGER_LIMITS,
    MAX_EXACT_POSITION,
    check_base,
    check_d_model,
    check_layout,
    check_positions,
    check_spacing,
    too_large,
)

__all__ = ["TORCH_FLOAT_DTYPES", "round_to_dtype", "torch_angular_frequencies", "torch_sinusoidal_encoding"]

#: The dtypes a table can be built in.
TORCH_FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

# Significant bits and the exponent of the smallest subnormal of each half format.
_HALF_FORMATS = {torch.float16: (11, -24), torch.bfloat16: (8, -133)}

# Tables are filled in chunks of rows so that the float64 temporaries of a chunk (its angles, and
# the sines torch computes before casting them into the table) stay small next to the output:
# 1/32 of the rows at a time (1/64 for half formats, whose correct rounding needs several float64
# temporaries), and at least _MIN_CHUNK entries, so that a small table takes one step.
_CHUNKS = 32
_HALF_CHUNKS = 64
_MIN_CHUNK = 2**16


def check_torch_dtype(dtype, name: str = "dtype"):
    """Return `dtype` if it is one of :data:`TORCH_FLOAT_DTYPES`."""
    if not isinstance(dtype, torch.dtype) or dtype not in TORCH_FLOAT_DTYPES:
        raise TypeError(
            f"{name} must be one of torch.float16, torch.bfloat16, torch.float32, torch.float64, got {dtype!r}"
        )
    return dtype


def round_to_dtype(table, dtype):
    """Cast a float64 tensor to `dtype`, rounding each value once, to nearest.

    torch casts float64 to float16 and bfloat16 through float32, which rounds
    twice and misses the nearest value in about 1 case in 10**4 to 10**5.  Here
    half formats are first snapped, in float64, to the grid of `dtype` (its
    ulp, subnormals included; ties to even), after which the cast is exact.

    Parameters
    ----------
    table : Tensor, dtype float64
        Values to round (any shape, any device), within the range of `dtype`.
    dtype : torch.dtype
        One of float16, bfloat16, float32, float64.

    Returns
    -------
    Tensor, same shape and device, dtype `dtype`
        Each value the nearest `dtype` number to the input.

    Raises
    ------
    TypeError
        If `table` is not a real floating tensor or `dtype` is not one of the four float dtypes.

    Examples
    --------
    >>> x = torch.tensor([1 + 2.0**-8 + 2.0**-30], dtype=torch.float64)  # just above a midpoint
    >>> round_to_dtype(x, torch.bfloat16).item(), x.to(torch.bfloat16).item()
    (1.0078125, 1.0)
    """
    if not isinstance(table, torch.Tensor) or not table.is_floating_point():
        raise TypeError(f"table must be a real floating tensor, got {getattr(table, 'dtype', type(table).__name__)}")
    dtype = check_torch_dtype(dtype)
    if dtype in _HALF_FORMATS:
        bits, smallest_exponent = _HALF_FORMATS[dtype]
        table = table.to(torch.float64)
        _, exponent = torch.frexp(table)
        quantum = torch.exp2(torch.clamp(exponent - bits, min=smallest_exponent).to(torch.float64))
        table = torch.round(table / quantum) * quantum
    return table.to(dtype)


def _rounded_differentiably(table, dtype):
    """:func:`round_to_dtype`, with the gradient of the float64 values (straight through the rounding)."""
    if dtype not in _HALF_FORMATS:
        return table.to(dtype)
    snapped = round_to_dtype(table.detach(), dtype).to(torch.float64)
    return (table + (snapped - table.detach())).to(dtype)


def torch_angular_frequencies(d_model: int, base: float = 10_000.0, *, spacing: str = "paper", device=None):
    r"""Angular frequencies :math:`\omega_i` as a float64 tensor (see :func:`~companion.angular_frequencies`).

    Parameters
    ----------
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    spacing : {"paper", "tensor2tensor"}, default "paper"
        :math:`\mathrm{base}^{-2i/d_{model}}` or :math:`\mathrm{base}^{-i/(d_{model}/2 - 1)}`.
    device : torch.device or str, optional
        Where to compute them; default the CPU.

    Returns
    -------
    Tensor, shape (d_model // 2,), dtype float64
        Radians per position; equal to :func:`~companion.angular_frequencies` within a unit in
        the last place.

    Raises
    ------
    TypeError, ValueError
        On bad arguments, as :func:`~companion.angular_frequencies`.

    Examples
    --------
    >>> torch_angular_frequencies(6, spacing="tensor2tensor")
    tensor([1.0000e+00, 1.0000e-02, 1.0000e-04], dtype=torch.float64)
    """
    d_model, base, spacing = check_d_model(d_model), check_base(base), check_spacing(spacing)
    half = d_model // 2
    index = torch.arange(half, dtype=torch.float64, device=device)
    exponents = 2 * index / d_model if spacing == "paper" else index / max(half - 1, 1)
    return base**-exponents


def _as_positions(positions, device):
    """`positions` as a 1-D float64 tensor on the device that will compute, checked unless compiling."""
    if not isinstance(positions, torch.Tensor):  # lists, ranges, numpy arrays: checked as numpy would
        values = torch.from_numpy(check_positions(positions))
        return values.to(device) if device is not None else values
    if positions.dtype == torch.bool or positions.is_complex():
        raise TypeError(f"positions must hold real numbers (integers or floats), got dtype {positions.dtype}")
    if positions.dim() != 1:
        raise ValueError(
            f"positions must be a 1-D tensor of positions such as torch.arange(seq_len), got shape "
            f"{tuple(positions.shape)}"
        )
    if device is not None:
        positions = positions.to(device)
    if positions.device.type != "meta" and positions.numel() and not torch.compiler.is_compiling():
        # Value checks need the values (a synchronisation on an accelerator); under torch.compile they are skipped.
        largest = positions.detach().abs().max().double()
        if not bool(torch.isfinite(largest)):
            bad = positions[~torch.isfinite(positions)][0].item()
            raise ValueError(f"positions must be finite, got {bad}")
        name = str(positions.dtype).removeprefix("torch.")
        if name in EXACT_INTEGER_LIMITS and largest.item() >= EXACT_INTEGER_LIMITS[name]:
            raise ValueError(
                f"positions has dtype {name}, which holds every integer only up to {EXACT_INTEGER_LIMITS[name]}, "
                f"but its values reach {largest.item():g}: positions may already have been rounded. Pass "
                f"integer positions (torch.arange(seq_len)) or float64"
            )
        if largest.item() > MAX_EXACT_POSITION:
            raise ValueError(
                f"positions must have magnitude at most 2**53 = {MAX_EXACT_POSITION} so that float64 holds them "
                f"exactly, got {largest.item():g}"
            )
    return positions.to(torch.float64)  # exact for the positions checked above; keeps the gradient


def _place(table, half: int, layout: str):
    """Column views (sines, cosines) of `table` in `layout`."""
    if layout == "interleaved":
        return table[:, 0::2], table[:, 1::2]
    return table[:, :half], table[:, half:]


def torch_sinusoidal_encoding(
    positions,
    d_model: int,
    *,
    base: float = 10_000.0,
    layout: str = "interleaved",
    spacing: str = "paper",
    dtype=torch.float32,
    device=None,
):
    r"""Sinusoidal positional encoding as a tensor (Vaswani et al., 2017, Sec. 3.5).

    The same values as :func:`~companion.sinusoidal_encoding`, computed with torch on the
    positions' device (or `device`): every angle and its sine and cosine in float64, each
    float64 value rounded once, to nearest, to `dtype` (float16 and bfloat16 too, see
    :func:`round_to_dtype`).  On a device without float64 (Apple's MPS) the table is
    computed on the CPU and moved.  Rows are filled a chunk at a time, so that the
    memory used on the way stays small next to the table (about 1.07 times the table
    for float32 and float64, at most 1.5 times for float16 and bfloat16).

    Differentiable in `positions` when they require grad (the half formats pass the
    gradient of the float64 values straight through their rounding), and traceable by
    ``torch.compile(fullgraph=True)``; under compilation the checks of the positions'
    *values* (finite, exact, at most ``2**53``) are skipped, their dtype and shape are
    still checked.

    Parameters
    ----------
    positions : Tensor or array_like, shape (seq_len,)
        Real positions, usually ``torch.arange(seq_len)``; magnitudes up to ``2**53``.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    layout : {"interleaved", "concatenated"}, default "interleaved"
        Column layout, as in :func:`~companion.sinusoidal_encoding`.
    spacing : {"paper", "tensor2tensor"}, default "paper"
        Frequency spacing, as in :func:`~companion.angular_frequencies`.
    dtype : torch.dtype, default torch.float32
        One of float16, bfloat16, float32, float64.
    device : torch.device or str, optional
        Where the table lives; default the device of `positions` if it is a tensor, else the CPU.

    Returns
    -------
    Tensor, shape (seq_len, d_model), dtype `dtype`
        Row ``k`` encodes ``positions[k]``; values in [-1, 1].

    Raises
    ------
    TypeError
        If `d_model` is not an integer, `base` is not real, `positions` does not hold real
        numbers, `layout` or `spacing` is not a str, or `dtype` is not a supported float dtype.
    ValueError
        If `d_model` is not positive and even, `base` is not finite and > 1, `positions` is not
        1-D or holds a non-finite value, a magnitude above 2**53 or a value its own dtype cannot
        hold exactly, `layout` or `spacing` is unknown, or the table is too large to allocate.

    Examples
    --------
    >>> pe = torch_sinusoidal_encoding(torch.arange(3), 4)
    >>> pe.shape, pe.dtype
    (torch.Size([3, 4]), torch.float32)
    >>> pe[1]
    tensor([0.8415, 0.5403, 0.0100, 0.9999])
    >>> positions = torch.tensor([2.0], requires_grad=True)
    >>> torch_sinusoidal_encoding(positions, 2, dtype=torch.float64)[0, 0].backward()
    >>> round(positions.grad.item(), 6)  # d sin(p) / dp = cos(2)
    -0.416147
    """
    d_model, base = check_d_model(d_model), check_base(base)
    layout, spacing = check_layout(layout), check_spacing(spacing)
    dtype = check_torch_dtype(dtype)
    target = torch.device(device) if device is not None else (
        positions.device if isinstance(positions, torch.Tensor) else torch.device("cpu"))
    # MPS has no float64: compute on the CPU, then move the finished table
    compute = torch.device("cpu") if target.type == "mps" else target
    positions = _as_positions(positions, compute)
    omega = torch_angular_frequencies(d_model, base, spacing=spacing, device=compute)
    seq_len, half = positions.shape[0], d_model // 2
    if positions.requires_grad or torch.compiler.is_compiling():
        angles = positions[:, None] * omega
        sines, cosines = torch.sin(angles), torch.cos(angles)
        pairs = torch.stack([sines, cosines], dim=-1 if layout == "interleaved" else 1)
        table = _rounded_differentiably(pairs.reshape(seq_len, d_model), dtype)
        return table.to(target)
    try:
        table = torch.empty((seq_len, d_model), dtype=dtype, device=compute)
    except RuntimeError as error:  # torch reports a failed allocation as a RuntimeError
        raise too_large(seq_len, d_model, torch.finfo(dtype).bits // 8) from error
    sines, cosines = _place(table, half, layout)
    chunks = _HALF_CHUNKS if dtype in _HALF_FORMATS else _CHUNKS
    rows = max(1, -(-seq_len // chunks), _MIN_CHUNK // half)
    for start in range(0, seq_len, rows):
        angles = positions[start : start + rows, None] * omega
        if dtype in _HALF_FORMATS:
            sines[start : start + rows] = round_to_dtype(torch.sin(angles), dtype)
            cosines[start : start + rows] = round_to_dtype(torch.cos(angles), dtype)
        else:  # computed in float64, rounded once as each value is written
            torch.sin(angles, out=sines[start : start + rows])
            torch.cos(angles, out=cosines[start : start + rows])
    return table.to(target)
