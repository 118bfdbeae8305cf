"""Argument checks shared by the companion's public functions.

Each check either returns the argument in a normalised form or raises an
error that names the argument, says what is allowed and shows what it got.
A wrong table is never returned silently.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

LAYOUTS = ("interleaved", "concatenated")

# Positions are turned into float64 angles; beyond 2**53 consecutive integers
# are no longer distinct float64 numbers, so such a table would be wrong.
MAX_EXACT_POSITION = 2**53

# Each narrow floating dtype holds every integer of magnitude below these limits
# (2**24 + 1 is the first integer float32 cannot hold). Positions stored in such a
# dtype that reach the limit may already have been rounded (np.arange(2**24, 2**24 + 3,
# dtype=np.float32) holds 2**24 three times), so they are refused rather than encoded.
EXACT_INTEGER_LIMITS = {"float16": 2**11, "bfloat16": 2**8, "float32": 2**24}


def check_exact_integers(largest: float, dtype_name: str) -> None:
    """Raise if positions of magnitude `largest`, stored as `dtype_name`, may have been rounded."""
    limit = EXACT_INTEGER_LIMITS.get(dtype_name)
    if limit is not None and largest >= limit:
        raise ValueError(
            f"positions has dtype {dtype_name}, which holds every integer only below {limit}, "
            f"but its values reach {largest:g}: positions may already have been rounded. Pass "
            f"integer positions (np.arange(seq_len) or torch.arange(seq_len)) or float64"
        )


def check_d_model(d_model) -> int:
    """Return `d_model` as an int if it is a positive even integer.

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
    return int(d_model)


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
    if not math.isfinite(base) or base <= 1:
        raise ValueError(
            f"base must be a finite real number greater than 1 (the paper uses "
            f"10000), got {base}"
        )
    return float(base)


def check_layout(layout) -> str:
    """Return `layout` if it is one of :data:`LAYOUTS`."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    return layout


def check_positions(positions) -> np.ndarray:
    """Return `positions` as a 1-D float64 array of finite, exact positions."""
    array = np.asarray(positions)
    if array.ndim != 1:
        raise ValueError(
            f"positions must be a 1-D array of positions such as "
            f"np.arange(seq_len), got an array of shape {array.shape}"
        )
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(
            f"positions must hold real numbers (integers or floats), got dtype {array.dtype}"
        )
    as_float = array.astype(np.float64)
    if not np.all(np.isfinite(as_float)):
        bad = array[~np.isfinite(as_float)][0]
        raise ValueError(f"positions must be finite, got {bad}")
    if array.size and np.issubdtype(array.dtype, np.floating):
        check_exact_integers(float(np.max(np.abs(as_float))), str(array.dtype))
    if array.size and (array.max() > MAX_EXACT_POSITION or array.min() < -MAX_EXACT_POSITION):
        raise ValueError(
            f"positions must have magnitude at most 2**53 = {MAX_EXACT_POSITION} so "
            f"that float64 holds them exactly, got values in [{array.min()}, {array.max()}]"
        )
    return as_float


def check_dtype(dtype) -> np.dtype:
    """Return `dtype` as a numpy dtype if it is float16, float32 or float64."""
    allowed = [np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)]
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        resolved = None
    if resolved not in allowed:
        raise TypeError(f"dtype must be one of float16, float32, float64, got {dtype!r}")
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
