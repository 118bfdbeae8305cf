"""The sinusoidal positional encoding computed with torch, on the positions' device.

Every value is computed in float64 on the device that holds the positions (or the one
asked for), and rounded once, to nearest, to the requested dtype: float16 and bfloat16 too,
which a plain cast would round twice (:func:`~companion.round_to_dtype`).  Nothing goes through numpy,
so the function works on any device, is differentiable in the positions, and compiles with
``torch.compile(fullgraph=True, dynamic=True)``.

A run of consecutive integer positions (``torch.arange(seq_len)``, the layer's cache, an
offset) is built by angle addition, as the numpy builder is
(:mod:`companion.encoding.angle_addition`): position ``p`` is split into an anchor
``a = 64 * floor(p / 64)`` and a step ``b = p - a``, and

.. math::

    \\sin\\omega(a + b) + i\\cos\\omega(a + b) = (\\sin\\omega a + i\\cos\\omega a)(\\cos\\omega b - i\\sin\\omega b),

one complex128 product per (sin, cos) pair, from sines and cosines of the anchors and of the 64
steps evaluated directly in float64.  The split depends on ``p`` alone, not on where the run
starts, so a row is the same whether it comes from a cache, an offset or a position id
(:func:`anchored_rows` computes it for any integer positions).
"""

from __future__ import annotations

from .._environment import require

require("torch")

import torch  # noqa: E402

from .._checks import (  # noqa: E402
    EXACT_INTEGER_LIMITS,
    MAX_EXACT_POSITION,
    Layout,
    Spacing,
    check_base,
    check_d_model,
    check_layout,
    check_positions,
    check_spacing,
    too_large,
)

__all__ = [
    "ANCHOR_SPACING",
    "TORCH_FLOAT_DTYPES",
    "consecutive_table",
    "round_to_dtype",
    "torch_angular_frequencies",
    "torch_sinusoidal_encoding",
]

#: The dtypes a table can be built in.
TORCH_FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

#: Anchors of the angle addition sit at the multiples of this many positions.
ANCHOR_SPACING = 64

# Bits of each half format's significand, and of float32's (round to odd needs two more bits in the
# intermediate format than in the target: float32 has 24, float16 11, bfloat16 8).
_HALF_FORMATS = (torch.float16, torch.bfloat16)

# Tables are filled in chunks of rows so that the float64 temporaries of a chunk stay small next to the
# output: 1/32 of the rows at a time (1/64 for half formats, whose rounding needs several float64
# temporaries), and at least _MIN_CHUNK entries, so that a small table takes one step.
_CHUNKS = 32
_HALF_CHUNKS = 64
_MIN_CHUNK = 2**16

# Runs shorter than this are cheaper to evaluate position by position (two rows of sines each) than
# through the 64 steps of an anchor block.
_SHORT_RUN = ANCHOR_SPACING // 2


def check_torch_dtype(dtype: object, name: str = "dtype") -> torch.dtype:
    """Return `dtype` if it is one of :data:`TORCH_FLOAT_DTYPES`."""
    if not isinstance(dtype, torch.dtype) or dtype not in TORCH_FLOAT_DTYPES:
        raise TypeError(
            f"{name} must be one of torch.float16, torch.bfloat16, torch.float32, torch.float64, got {dtype!r}"
        )
    return dtype


def check_device(device: object, name: str = "device") -> torch.device | None:
    """`device` as a ``torch.device`` (None stays None) if torch knows it and it is usable here.

    A misspelt name ("gpu", "cdua") or a device this machine or build lacks (CUDA on a CPU-only
    build, an index past the devices present) is reported as such, naming `name`, rather than
    as whatever the first allocation there raises (torch's ``AssertionError``, or an allocation
    failure that reads like a table too large).  A tensor of no elements is allocated to find out.
    """
    if device is None:
        return None
    try:
        resolved = torch.device(device)  # type: ignore[arg-type]  # whatever was given: checked here
    except (RuntimeError, TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a torch.device or a device name such as 'cpu', 'cuda', 'cuda:0', 'mps' "
                         f"or 'meta', got {device!r} ({error})") from None
    if resolved.type != "meta":
        try:
            torch.empty(0, device=resolved)
        except (RuntimeError, AssertionError) as error:  # no such device here: torch raises either
            raise ValueError(f"{name}={device!r} is not available on this machine: {error}") from None
    return resolved


def _round_to_odd_float32(table: torch.Tensor) -> torch.Tensor:
    """float64 -> float32 rounded to odd: the float32 next to `table` toward zero, with its last bit set if inexact.

    Rounding to odd first and to nearest second rounds once to nearest, as long as the first format has at
    least two more significant bits than the second (Boldo and Melquiond, 2008, "Emulation of FMA and
    correctly rounded sums: proved algorithms using rounding to odd", IEEE Trans. Computers 57(4)).
    Written with a cast, comparisons and integer bit operations, which Inductor compiles on the CPU
    (``torch.frexp`` trips its vectorizer in half precision).
    """
    nearest = table.to(torch.float32)
    back = nearest.to(torch.float64)
    bits = nearest.view(torch.int32)
    # one step toward zero in the magnitude bits where rounding to nearest went away from zero
    toward_zero = bits - (back.abs() > table.abs()).to(torch.int32)
    inexact = back != table
    return torch.where(inexact, toward_zero | 1, toward_zero).view(torch.float32)


def round_to_dtype(table: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Cast a float64 tensor to `dtype`, rounding each value once, to nearest.

    torch casts float64 to float16 and bfloat16 through float32, which rounds
    twice and misses the nearest value in about 1 case in 10**4 to 10**5.  Here
    half formats are first rounded to float32 *to odd* (toward zero, then the
    last bit set if anything was lost), after which the cast to the half format
    rounds once to nearest (ties to even), subnormals included (Boldo and
    Melquiond, 2008).  Only casts, comparisons and integer bit operations are
    used, so the function compiles under Inductor on the CPU.

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
        return _round_to_odd_float32(table.to(torch.float64)).to(dtype)
    return table.to(dtype)


def _rounded_differentiably(table: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """:func:`round_to_dtype`, with the gradient of the float64 values (straight through the rounding)."""
    if dtype not in _HALF_FORMATS:
        return table.to(dtype)
    if not table.requires_grad:
        return round_to_dtype(table, dtype)
    snapped = round_to_dtype(table.detach(), dtype).to(torch.float64)
    return (table + (snapped - table.detach())).to(dtype)


def frequencies(d_model: int, base: float, spacing: str, device: torch.device | str | None = None) -> torch.Tensor:
    """:func:`torch_angular_frequencies` for arguments already checked (traceable: no value checks)."""
    half = d_model // 2
    index = torch.arange(half, dtype=torch.float64, device=device)
    exponents = 2 * index / d_model if spacing == "paper" else index / max(half - 1, 1)
    return base**-exponents


def torch_angular_frequencies(
    d_model: int, base: float = 10_000.0, *, spacing: Spacing = "paper", device: torch.device | str | None = None
) -> torch.Tensor:
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
    return frequencies(check_d_model(d_model), check_base(base), check_spacing(spacing), device)


def _expi_conjugate(angles: torch.Tensor) -> torch.Tensor:
    """``cos(angles) - i sin(angles)``, complex128, evaluated directly in float64."""
    return torch.complex(torch.cos(angles), -torch.sin(angles))


def _sine_first(angles: torch.Tensor) -> torch.Tensor:
    """``sin(angles) + i cos(angles)``, complex128: its real and imaginary parts are a row's (sin, cos) pairs."""
    return torch.complex(torch.sin(angles), torch.cos(angles))


def anchored_rows(positions: torch.Tensor, omega: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The sines and cosines of integer `positions` by angle addition from their anchors, in float64.

    Each position ``p`` is split into ``a = 64 * floor(p / 64)`` and ``b = p - a``; the sines and
    cosines of ``a * omega`` and ``b * omega`` are evaluated directly and combined as
    ``sin a cos b + cos a sin b`` and ``cos a cos b - sin a sin b``: the same products and sums,
    rounded the same way, as the complex product of :func:`~companion.encoding.torch_table.consecutive_table`, so the rows are
    the same.  Real arithmetic, elementwise in the positions: it traces with dynamic shapes, under
    ``vmap`` and inside ``torch.cond``, and Inductor generates code for it (it does not for
    complex numbers).

    Parameters
    ----------
    positions : Tensor, any shape ``(...)``, integer or integer-valued float64
        Positions with magnitude at most 2**53 (not checked).  Any shape, kept as it is (no
        reshape): under ``torch.compile`` the rows then have the very size expressions of the ids.
    omega : Tensor, shape (d_model // 2,), dtype float64
        Angular frequencies, on the device of `positions`.

    Returns
    -------
    sines, cosines : Tensor, shape ``(..., d_model // 2)``, dtype float64
        ``sin(omega p)`` and ``cos(omega p)``.

    Examples
    --------
    >>> omega = torch_angular_frequencies(4)
    >>> sines, cosines = anchored_rows(torch.tensor([0, 65]), omega)
    >>> torch.allclose(sines, torch.sin(torch.tensor([[0.0], [65.0]], dtype=torch.float64) * omega))
    True
    """
    positions = positions.to(torch.float64)
    anchors = torch.floor(positions / ANCHOR_SPACING) * ANCHOR_SPACING
    at_anchor, step = anchors[..., None] * omega, (positions - anchors)[..., None] * omega
    sin_a, cos_a, sin_b, cos_b = torch.sin(at_anchor), torch.cos(at_anchor), torch.sin(step), torch.cos(step)
    return sin_a * cos_b + cos_a * sin_b, cos_a * cos_b - sin_a * sin_b


def direct_rows(positions: torch.Tensor, omega: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``sin(p omega)`` and ``cos(p omega)`` for each position, evaluated directly in float64 (differentiable)."""
    angles = positions.to(torch.float64)[:, None] * omega
    return torch.sin(angles), torch.cos(angles)


def pairs_to_table(sines: torch.Tensor, cosines: torch.Tensor, layout: str, dtype: torch.dtype) -> torch.Tensor:
    """Float64 sines and cosines, shape (n, half), as one table of `dtype` in `layout` (traceable, differentiable)."""
    values = torch.stack([sines, cosines], dim=-1 if layout == "interleaved" else -2)
    return _rounded_differentiably(values.flatten(-2), dtype)


def _place_pairs(table: torch.Tensor, pairs: torch.Tensor, layout: str) -> None:
    """Write complex (sin, cos) pairs into the float `table`'s columns for `layout`, rounding each value once."""
    dtype = table.dtype
    if layout == "interleaved" and dtype in (torch.float32, torch.float64):
        # complex64/128 is (real, imaginary) side by side: the interleaved columns, written in one pass
        torch.view_as_complex(table.view(*table.shape[:-1], -1, 2)).copy_(pairs)
        return
    _place_columns(table, pairs.real, pairs.imag, layout)


def _place_columns(table: torch.Tensor, sines: torch.Tensor, cosines: torch.Tensor, layout: str) -> None:
    """Write float64 sines and cosines into the float `table`'s columns for `layout`, rounding each value once."""
    if table.dtype in _HALF_FORMATS:
        sines, cosines = round_to_dtype(sines, table.dtype), round_to_dtype(cosines, table.dtype)
    half = table.shape[-1] // 2
    if layout == "interleaved":
        table[..., 0::2], table[..., 1::2] = sines, cosines
    else:
        table[..., :half], table[..., half:] = sines, cosines


def _allocate(rows: int, d_model: int, dtype: torch.dtype, device: torch.device | str | None) -> torch.Tensor:
    try:
        return torch.empty((rows, d_model), dtype=dtype, device=device)
    except RuntimeError as error:  # torch reports a failed allocation as a RuntimeError
        raise too_large(rows, d_model, torch.finfo(dtype).bits // 8) from error


def consecutive_table(
    start: int, seq_len: int, omega: torch.Tensor, *, layout: str = "interleaved", dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """The encoding of the integer positions ``start .. start + seq_len - 1``, by angle addition.

    Blocks of 64 positions share an anchor; the sines and cosines of the anchors and of the 64
    steps are evaluated directly in float64, the rest of the table costs one complex128
    product per (sin, cos) pair, rounded once to `dtype` as it is written (a few float64 ulps
    from the directly evaluated value, as accurate as it for every dtype).  Rows equal those of
    :func:`anchored_rows`.  Filled a chunk of rows at a time, so that the float64 temporaries
    stay small next to the table.  Arguments are not checked (the callers check them).

    Parameters
    ----------
    start : int
        First position; ``|start|`` and ``|start + seq_len - 1|`` at most 2**53.
    seq_len : int
        Number of positions (non-negative).
    omega : Tensor, shape (d_model // 2,), dtype float64
        Angular frequencies; the table is built on their device.
    layout : {"interleaved", "concatenated"}, default "interleaved"
        Column layout.
    dtype : torch.dtype, default torch.float32
        One of ``TORCH_FLOAT_DTYPES``.

    Returns
    -------
    Tensor, shape (seq_len, d_model), dtype `dtype`

    Raises
    ------
    ValueError
        If the table is too large to allocate.

    Examples
    --------
    >>> table = consecutive_table(1000, 3, torch_angular_frequencies(8))
    >>> torch.equal(table, torch_sinusoidal_encoding(torch.arange(1000, 1003), 8))
    True
    """
    half = omega.shape[0]
    table = _allocate(seq_len, 2 * half, dtype, omega.device)
    if seq_len < _SHORT_RUN:
        # int64, then float64: a float64 arange counts its length in float64, which has no 2**53 + 1 (one row
        # short for positions ending at 2**53)
        positions = torch.arange(start, start + seq_len, device=omega.device).to(torch.float64)
        _place_columns(table, *anchored_rows(positions, omega), layout)
        return table
    first_anchor = start - start % ANCHOR_SPACING
    steps = _expi_conjugate(torch.arange(ANCHOR_SPACING, dtype=torch.float64, device=omega.device)[:, None] * omega)
    chunks = _HALF_CHUNKS if dtype in _HALF_FORMATS else _CHUNKS
    rows = max(1, -(-seq_len // chunks), _MIN_CHUNK // half)
    blocks_per_chunk = -(-rows // ANCHOR_SPACING) + 1
    row = 0
    while row < seq_len:
        # the anchor block holding position start + row, and as many whole blocks after it as fit a chunk
        anchor = first_anchor + ((start + row - first_anchor) // ANCHOR_SPACING) * ANCHOR_SPACING
        skip = start + row - anchor
        count = min(seq_len - row, blocks_per_chunk * ANCHOR_SPACING - skip)
        blocks = -(-(skip + count) // ANCHOR_SPACING)
        anchors = anchor + ANCHOR_SPACING * torch.arange(blocks, dtype=torch.float64, device=omega.device)
        grid = (_sine_first(anchors[:, None] * omega)[:, None, :] * steps[None, :, :]).reshape(-1, half)
        _place_pairs(table[row : row + count], grid[skip : skip + count], layout)
        row += count
    return table


def _consecutive_start(positions: torch.Tensor) -> int | None:
    """The first position if `positions` are consecutive integers (``start + arange(n)``), else None."""
    if positions.numel() < _SHORT_RUN or positions.is_complex() or positions.dtype == torch.bool:
        return None
    first = positions[0].item()
    if first != int(first) or abs(first) > MAX_EXACT_POSITION - positions.numel():
        return None
    start = int(first)
    expected = torch.arange(start, start + positions.numel(), device=positions.device, dtype=torch.int64)
    if not torch.equal(positions.to(torch.int64) if positions.is_floating_point() else positions, expected):
        return None
    if positions.is_floating_point() and not torch.equal(positions, expected.to(positions.dtype)):
        return None  # a fraction truncated away by the cast
    return start


def _as_positions(positions: object, device: torch.device | None) -> torch.Tensor:
    """`positions` as a 1-D tensor on the device that will compute, checked unless tracing."""
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
    if positions.device.type != "meta" and positions.numel() and not tracing(positions):
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
    return positions


def tracing(*tensors: torch.Tensor) -> bool:
    """Whether values cannot be read here: under ``torch.compile``/``torch.export``/``torch.jit.trace``, or inside
    ``vmap``/``grad`` (a value read under ``torch.jit.trace`` would be frozen into the trace as a constant)."""
    if torch.compiler.is_compiling() or torch.jit.is_tracing():
        return True
    return any(torch._C._functorch.is_functorch_wrapped_tensor(tensor) for tensor in tensors)


def reads_values(tensor: torch.Tensor) -> bool:
    """Whether the values of `tensor` may be read: in host memory (on the CPU, so reading waits for no device;
    tensors on an accelerator are never read), in eager mode (not under torch.compile/export or torch.jit.trace,
    which would freeze the value, nor inside vmap/grad)."""
    return not tracing(tensor) and tensor.is_cpu  # tracing() first: dynamo cannot trace the other


def torch_sinusoidal_encoding(
    positions: torch.Tensor | object,
    d_model: int,
    *,
    base: float = 10_000.0,
    layout: Layout = "interleaved",
    spacing: Spacing = "paper",
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    r"""Sinusoidal positional encoding as a tensor (Vaswani et al., 2017, Sec. 3.5).

    The same values as :func:`~companion.sinusoidal_encoding`, computed with torch on the
    positions' device (or `device`), in float64, each value rounded once, to nearest, to
    `dtype` (float16 and bfloat16 too, see :func:`~companion.round_to_dtype`).  Consecutive integer
    positions (``torch.arange(seq_len)`` and its shifts) are assembled by angle addition
    (:func:`~companion.encoding.torch_table.consecutive_table`, a few float64 ulps from a direct evaluation and several
    times faster); other positions get one float64 sine and cosine per entry.  On a device
    without float64 (Apple's MPS) the table is computed on the CPU and moved.  Rows are
    filled a chunk at a time, so that the memory used on the way stays small next to the
    table (about 1.1 times the table for float32 and float64, at most 2 times for float16
    and bfloat16).

    Differentiable in `positions` when they require grad (the half formats pass the
    gradient of the float64 values straight through their rounding); traceable by
    ``torch.compile(fullgraph=True, dynamic=True)``, ``torch.export`` and ``torch.func.vmap``,
    where the checks of the positions' *values* (finite, exact, at most ``2**53``) are
    skipped (their dtype and shape are still checked) and every entry is evaluated directly.

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
        hold exactly, `layout` or `spacing` is unknown, `device` is unknown or absent here, or
        the table is too large to allocate.

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
    target = check_device(device) if device is not None else (
        positions.device if isinstance(positions, torch.Tensor) else torch.device("cpu"))
    # MPS has no float64: compute on the CPU, then move the finished table
    compute = torch.device("cpu") if target.type == "mps" else target
    positions = _as_positions(positions, compute)
    omega = frequencies(d_model, base, spacing, compute)
    if positions.requires_grad or tracing(positions):
        return pairs_to_table(*direct_rows(positions, omega), layout, dtype).to(target)
    start = _consecutive_start(positions) if positions.device.type != "meta" else None
    if start is not None:
        return consecutive_table(start, positions.shape[0], omega, layout=layout, dtype=dtype).to(target)
    table = _allocate(positions.shape[0], d_model, dtype, compute)
    chunks = _HALF_CHUNKS if dtype in _HALF_FORMATS else _CHUNKS
    rows = max(1, -(-positions.shape[0] // chunks), _MIN_CHUNK // (d_model // 2))
    for first in range(0, positions.shape[0], rows):
        _place_columns(table[first : first + rows], *direct_rows(positions[first : first + rows], omega), layout)
    return table.to(target)
