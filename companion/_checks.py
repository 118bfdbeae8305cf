"""Argument checks shared by the companion's public functions (numpy only; torch is never imported).

Each check either returns the argument in a normalised form or raises an
error that names the argument, says what is allowed and shows what it got.
A wrong table is never returned silently.
"""

from __future__ import annotations

import math
import numbers
from typing import Literal

import numpy as np

LAYOUTS = ("interleaved", "concatenated")

#: The column layouts and frequency spacings, as types (for annotations).
Layout = Literal["interleaved", "concatenated"]
Spacing = Literal["paper", "tensor2tensor"]

#: How the angular frequencies are spaced: the paper's base ** (-2i / d_model), or
#: tensor2tensor's base ** (-i / (d_model / 2 - 1)), which fairseq, Marian's and Hugging
#: Face's M2M100 and NLLB code also use.
SPACINGS = ("paper", "tensor2tensor")

# Positions are turned into float64 angles; beyond 2**53 consecutive integers
# are no longer distinct float64 numbers, so such a table would be wrong.
MAX_EXACT_POSITION = 2**53

# Each narrow floating dtype holds every integer of magnitude up to these limits
# (2**24 + 1 is the first integer float32 cannot hold). Positions stored in such a
# dtype that reach the limit may already have been rounded (np.arange(2**24, 2**24 + 3,
# dtype=np.float32) holds 2**24 three times), so they are refused rather than encoded.
EXACT_INTEGER_LIMITS = {"float16": 2**11, "bfloat16": 2**8, "float32": 2**24}

# Tables larger than this many entries are refused before any allocation is tried:
# 2**40 float16 values are 2 TiB.
MAX_TABLE_ENTRIES = 2**40


def is_torch_tensor(value) -> bool:
    """Whether `value` is a torch tensor, without importing torch."""
    return type(value).__module__.split(".")[0] == "torch" and hasattr(value, "device")


def check_exact_integers(largest: float, dtype_name: str) -> None:
    """Raise if positions of magnitude `largest`, stored as `dtype_name`, may have been rounded."""
    limit = EXACT_INTEGER_LIMITS.get(dtype_name)
    if limit is not None and largest >= limit:
        raise ValueError(
            f"positions has dtype {dtype_name}, which holds every integer only up to {limit}, "
            f"but its values reach {largest:g}: positions may already have been rounded. Pass "
            f"integer positions (np.arange(seq_len) or torch.arange(seq_len)) or float64"
        )


def check_d_model(d_model) -> int:
    """Return `d_model` as an int if it is a positive even integer of a size a table can have.

    Odd widths are rejected rather than padded: every frequency owns a
    (sin, cos) pair, so an odd width has no formula in the paper.
    """
    if isinstance(d_model, bool) or not isinstance(d_model, numbers.Integral):
        raise TypeError(
            f"d_model must be a positive even integer, got {d_model!r} "
            f"of type {type(d_model).__name__}"
        )
    if d_model <= 0 or d_model % 2:
        raise ValueError(
            f"d_model must be a positive even integer (each frequency fills a "
            f"sin column and a cos column), got {d_model}"
        )
    if d_model > MAX_TABLE_ENTRIES:
        raise ValueError(f"d_model={d_model} is too large to allocate: a single row would need {d_model} values")
    return int(d_model)


def too_large(rows: int, d_model: int, itemsize: int) -> ValueError:
    """The error for a (rows, d_model) table that cannot be allocated, naming both sizes."""
    return ValueError(
        f"a table of {rows} positions x d_model={d_model} ({rows * d_model * itemsize / 2**30:.3g} GiB) is too "
        f"large to allocate"
    )


def check_count(value, name: str) -> int:
    """Return `value` as an int if it is a non-negative integer (a length)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be a non-negative integer, got {value!r} "
            f"of type {type(value).__name__}"
        )
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value}")
    return int(value)


def check_base(base) -> float:
    """Return `base` as a float if it is a finite real number greater than 1."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise TypeError(
            f"base must be a finite real number greater than 1, got {base!r} "
            f"of type {type(base).__name__}"
        )
    try:
        value = float(base)
    except OverflowError:  # an int beyond float's range, such as 10**400
        value = math.inf
    if not 1 < value < math.inf:  # comparisons only (NaN fails both): traceable by torch.compile
        shown = f"{base}" if value == value and abs(value) != math.inf else f"{base!r:.40}"
        raise ValueError(
            f"base must be a finite real number greater than 1 (the paper uses "
            f"10000), got {shown}"
        )
    return value


def check_probability(value, name: str) -> float:
    """Return `value` as a float if it is a probability in [0, 1) (numpy scalars accepted)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not 0 <= float(value) < 1:
        raise ValueError(f"{name} must be a probability in [0, 1), got {value!r}")
    return float(value)


def check_choice(value, name: str, allowed: tuple[str, ...]) -> str:
    """Return `value` if it is one of the strings `allowed`."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {allowed} (a str), got {value!r} of type {type(value).__name__}")
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def check_layout(layout) -> str:
    """Return `layout` if it is one of :data:`LAYOUTS`."""
    return check_choice(layout, "layout", LAYOUTS)


def check_spacing(spacing) -> str:
    """Return `spacing` if it is one of :data:`SPACINGS`."""
    return check_choice(spacing, "spacing", SPACINGS)


def _positions_array(positions, name: str) -> np.ndarray:
    """`positions` as a numpy array, refusing what would lose information on the way."""
    if isinstance(positions, np.ma.MaskedArray):
        raise TypeError(
            f"{name} is a masked array; its mask would be ignored. Pass the positions you mean, "
            f"for example {name}.compressed() or {name}.filled(value)"
        )
    if is_torch_tensor(positions):
        if positions.device.type == "meta":
            raise ValueError(f"{name} is on the meta device and has no values to encode")
        positions = positions.detach().cpu()
        if str(positions.dtype) in ("torch.bfloat16", "torch.float16"):  # numpy has no bfloat16
            if positions.numel() and bool(positions.isfinite().all()):
                check_exact_integers(positions.abs().max().item(), str(positions.dtype).removeprefix("torch."))
            positions = positions.float()  # exact
        return positions.numpy()
    array = np.asarray(positions)
    if array.dtype == object and array.size and all(isinstance(value, numbers.Integral) for value in array.flat):
        # Python ints beyond int64: far beyond what float64 holds exactly
        raise ValueError(
            f"{name} must have magnitude at most 2**53 = {MAX_EXACT_POSITION} so that float64 holds them "
            f"exactly, got integers as large as {max(abs(int(value)) for value in array.flat)}"
        )
    return array


def check_positions(positions, name: str = "positions") -> np.ndarray:
    """Return `positions` as a 1-D float64 array of finite, exact positions."""
    array = _positions_array(positions, name)
    if array.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D array of positions such as "
            f"np.arange(seq_len), got an array of shape {array.shape}"
        )
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(
            f"{name} must hold real numbers (integers or floats), got dtype {array.dtype}"
        )
    as_float = array.astype(np.float64)
    if not np.all(np.isfinite(as_float)):
        bad = array[~np.isfinite(as_float)][0]
        raise ValueError(f"{name} must be finite, got {bad}")
    if array.size and np.issubdtype(array.dtype, np.floating):
        check_exact_integers(float(np.max(np.abs(as_float))), str(array.dtype))
    if array.size and (array.max() > MAX_EXACT_POSITION or array.min() < -MAX_EXACT_POSITION):
        raise ValueError(
            f"{name} must have magnitude at most 2**53 = {MAX_EXACT_POSITION} so "
            f"that float64 holds them exactly, got values in [{array.min()}, {array.max()}]"
        )
    return as_float


_FLOAT_DTYPES = ("float16", "float32", "float64")


def check_dtype(dtype) -> np.dtype:
    """Return `dtype` as a numpy dtype if it is float16, float32 or float64 (None means float64).

    Anything numpy cannot read as a dtype, and anything else it can, is refused
    with a TypeError: a table is never returned in a dtype other than the one asked for.
    """
    if dtype is None:
        return np.dtype(np.float64)
    if isinstance(dtype, bool) or is_torch_tensor(dtype) or type(dtype).__module__.split(".")[0] == "torch":
        resolved = None
    else:
        try:
            resolved = np.dtype(dtype)
        except TypeError:
            resolved = None
    if resolved is None or resolved.name not in _FLOAT_DTYPES:
        hint = " (bfloat16 tables are built by torch_sinusoidal_encoding)" if "bfloat16" in str(dtype) else ""
        raise TypeError(f"dtype must be one of float16, float32, float64 (numpy dtypes), got {dtype!r}{hint}")
    return resolved


def check_last_dim(shape, d_model: int, name: str = "x") -> None:
    """Raise if the last dimension of `shape` is not `d_model`."""
    if len(shape) == 0 or shape[-1] != d_model:
        raise ValueError(
            f"{name} must have last dimension d_model={d_model}, got shape {tuple(shape)}"
        )


def check_offset(offset) -> float:
    """Return `offset` as a float if it is a finite real number (a shift in positions)."""
    if isinstance(offset, bool) or not isinstance(offset, numbers.Real):
        raise TypeError(f"offset must be a finite real number, got {offset!r} of type {type(offset).__name__}")
    if not math.isfinite(offset):
        raise ValueError(f"offset must be finite, got {offset}")
    return float(offset)


def check_real_array(values, name: str) -> np.ndarray:
    """Return `values` as a float64 array if it holds real numbers (no complex, str, or masked data)."""
    if isinstance(values, np.ma.MaskedArray):
        raise TypeError(f"{name} is a masked array; its mask would be ignored. Pass {name}.filled(value) or "
                        f"{name}.compressed()")
    array = np.asarray(values.detach().cpu() if is_torch_tensor(values) else values)
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    return array.astype(np.float64)
