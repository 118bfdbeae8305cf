"""How accurate each way of building the table is, against a 40-digit reference.

The chapter "Precision and speed" compares the common float32 recipes,
the float64 table rounded to float32, and the companion's tables in several
precisions.  A float32 recipe rounds the angle ``p * omega`` to float32 before
taking its sine: that rounding moves the phase by up to about ``|p| * 2**-24``
radians, so its error grows in proportion to the position.
"""

from __future__ import annotations

import numpy as np

from .._environment import require

torch = require("torch")

from .._checks import check_positions  # noqa: E402
from ..encoding.angle_addition import interleaved_table  # noqa: E402
from ..encoding.frequencies import angular_frequencies  # noqa: E402
from ..encoding.recipes import annotated_transformer_encoding, d2l_encoding  # noqa: E402
from ..encoding.table import sinusoidal_encoding  # noqa: E402
from ..encoding.torch_table import torch_sinusoidal_encoding  # noqa: E402
from .reference import reference_encoding  # noqa: E402

__all__ = ["PRECISION_METHODS", "direct_float64_table", "errors_by_position", "float32_phase_scale"]


def direct_float64_table(positions, d_model: int, base: float = 10_000.0) -> np.ndarray:
    """One float64 sine and cosine per entry: the textbook evaluation, interleaved.

    Parameters
    ----------
    positions : array_like, shape (seq_len,)
        Finite positions.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.

    Returns
    -------
    ndarray, shape (seq_len, d_model), dtype float64
        The table, without angle addition.

    Raises
    ------
    TypeError, ValueError
        On bad arguments, as :func:`~companion.sinusoidal_encoding`.

    Examples
    --------
    >>> direct_float64_table([1], 2)
    array([[0.84147098, 0.54030231]])
    """
    omega = angular_frequencies(d_model, base)  # checks d_model and base
    return interleaved_table(check_positions(positions), omega, np.float64, method="direct")


def _as_float64(table) -> np.ndarray:
    return table.double().numpy() if isinstance(table, torch.Tensor) else np.asarray(table, dtype=np.float64)


#: The tables compared in the chapter "Precision and speed": name ->
#: function(positions, d_model) giving that method's rows for integer `positions`, as float64.
PRECISION_METHODS = {
    "exp/log recipe, float32 (Annotated Transformer)": lambda p, d: _as_float64(
        annotated_transformer_encoding(torch.as_tensor(p), d)),
    "pow recipe, float32 (d2l)": lambda p, d: _as_float64(d2l_encoding(torch.as_tensor(p), d)),
    "float64 then cast, float32": lambda p, d: _as_float64(direct_float64_table(p, d).astype(np.float32)),
    "companion, float32": lambda p, d: _as_float64(sinusoidal_encoding(p, d, dtype=np.float32)),
    "companion, float64": lambda p, d: sinusoidal_encoding(p, d),
    "companion, float16": lambda p, d: _as_float64(sinusoidal_encoding(p, d, dtype=np.float16)),
    "companion, bfloat16": lambda p, d: _as_float64(torch_sinusoidal_encoding(p, d, dtype=torch.bfloat16)),
}


def float32_phase_scale(positions) -> np.ndarray:
    """``|p| * 2**-24``: the size of one float32 rounding of an angle of ``|p|`` radians.

    A float32 recipe's error at position ``p`` is of this order (the fastest
    pair turns one radian per position).

    Parameters
    ----------
    positions : array_like
        Positions.

    Returns
    -------
    ndarray, same shape, dtype float64
        Radians (equal to the error in the sine or cosine, whose slope is at most 1).

    Examples
    --------
    >>> float32_phase_scale([10_000, 10**6]).round(4)
    array([0.0006, 0.0596])
    """
    return np.abs(np.asarray(positions, dtype=np.float64)) * 2.0**-24


def errors_by_position(exponents=range(0, 21), *, d_model: int = 512, rows: int = 16, methods=None):
    """Largest error of each method over positions ``2**e .. 2**e + rows - 1``, for each ``e``.

    Each block of positions is an arithmetic progression, so the companion's
    tables are built the way ``np.arange`` inputs are (by angle addition).
    Errors are measured against :func:`~companion.analysis.reference.reference_encoding`.

    Parameters
    ----------
    exponents : iterable of int, default range(0, 21)
        Block ``e`` starts at position ``2**e``; 0 <= e <= 50.
    d_model : int, default 512
        Encoding width.
    rows : int, default 16
        Positions per block.
    methods : dict, optional
        Name -> function(positions, d_model) -> float64 rows; default
        ``PRECISION_METHODS``.

    Returns
    -------
    starts : ndarray, shape (n_blocks,), dtype int64
        First position of each block.
    errors : dict of str to ndarray, shape (n_blocks,)
        Max absolute error of each method in each block.

    Raises
    ------
    ValueError
        If an exponent is outside [0, 50] or `rows` is not positive.

    Examples
    --------
    >>> starts, errors = errors_by_position([0, 10], d_model=8, rows=2)
    >>> starts.tolist(), bool(errors["companion, float64"].max() < 1e-12)
    ([1, 1024], True)
    """
    methods = PRECISION_METHODS if methods is None else methods
    exponents = [int(e) for e in exponents]
    if any(not 0 <= e <= 50 for e in exponents) or rows < 1:
        raise ValueError(f"exponents must lie in [0, 50] and rows be positive, got {exponents} and {rows}")
    starts = np.array([2**e for e in exponents], dtype=np.int64)
    errors = {name: np.empty(starts.size) for name in methods}
    for block, start in enumerate(starts):
        positions = np.arange(start, start + rows)
        reference = reference_encoding(positions, d_model)
        for name, build in methods.items():
            errors[name][block] = np.abs(build(positions, d_model) - reference).max()
    return starts, errors
