r"""Where the precision of the angles matters: the shift structure at large positions.

A table added to the token embeddings with a fixed rounding error is a slightly
different table, and a model trained on it learns that table.  What a rounding
of the *angle* :math:`p\,\omega_i` breaks is the structure the encoding was
chosen for: the shift :math:`PE(p + k) = R(k)\,PE(p)` (Vaswani et al., 2017,
Sec. 3.5) and, in rotary position embedding (Su et al., 2024, Sec. 3.4), the
dependence of a query-key score on the offset alone.  Rounding an angle of
:math:`|\theta|` radians to a format with ``b`` significant bits moves it by up
to :math:`|\theta| \cdot 2^{-b}`: a phase error that grows with the position.

Here angles are computed the way a framework computes them in a given
precision: the position, the frequency and their product are each rounded to
that format (the product of two such numbers is exact in float64, so rounding
it once is the format's own multiplication).  Any of the three roundings can
be left out (``rounded=``), to see which of them breaks the shift.  Sines,
cosines, rotations and dot products are then evaluated in float64, so that the
rounding of the angle is the only error measured.
"""

from __future__ import annotations

import numpy as np

from .._checks import check_choice, check_d_model, check_offset, check_positions, check_real_array
from ..encoding.frequencies import angular_frequencies
from ..encoding.table import sinusoidal_encoding

__all__ = [
    "ROUNDED_QUANTITIES",
    "SHIFT_TABLES",
    "SIGNIFICAND_BITS",
    "angle_encoding",
    "round_to_precision",
    "rope_scores",
    "rounded_angles",
    "shift_residual",
    "shift_residual_by_position",
    "ulp",
]

#: Significant bits (the implicit leading bit included) of each format an angle can be computed in.
SIGNIFICAND_BITS = {"float64": 53, "float32": 24, "bfloat16": 8}


#: What a framework rounds when it computes an angle p * omega_i in a narrow format.
ROUNDED_QUANTITIES = ("position", "frequency", "product")


def _check_rounded(rounded) -> frozenset:
    if isinstance(rounded, str) or not all(isinstance(name, str) for name in rounded):
        raise TypeError(f"rounded must be a collection of names from {ROUNDED_QUANTITIES}, got {rounded!r}")
    unknown = [name for name in rounded if name not in ROUNDED_QUANTITIES]
    if unknown:
        raise ValueError(f"rounded must name quantities from {ROUNDED_QUANTITIES}, got {unknown}")
    return frozenset(rounded)


def _bits(precision) -> int:
    return SIGNIFICAND_BITS[check_choice(precision, "precision", tuple(SIGNIFICAND_BITS))]


def _finite(values, name: str) -> np.ndarray:
    values = check_real_array(values, name)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must be finite, got {values[~np.isfinite(values)].flat[0]}")
    return values


def round_to_precision(values, precision: str) -> np.ndarray:
    """Round each value to the nearest number of `precision` (ties to even), once.

    Parameters
    ----------
    values : array_like
        Finite real values (any shape) within the normal range of `precision`
        (every angle, position and frequency of this book is).
    precision : {"float64", "float32", "bfloat16"}
        The format, by its significant bits (``SIGNIFICAND_BITS``).

    Returns
    -------
    ndarray, same shape as `values`, dtype float64
        The rounded values, held exactly in float64.

    Raises
    ------
    TypeError
        If `values` does not hold real numbers or `precision` is not a str.
    ValueError
        If a value is not finite or `precision` is unknown.

    Examples
    --------
    >>> round_to_precision([4097, 10_000], "bfloat16").tolist()  # 8 bits: steps of 32, then 64
    [4096.0, 9984.0]
    >>> float(round_to_precision(0.1, "float32")) == float(np.float32(0.1))
    True
    """
    bits = _bits(precision)
    values = _finite(values, "values")
    if bits == SIGNIFICAND_BITS["float64"]:
        return values
    mantissa, exponent = np.frexp(values)  # values = mantissa * 2**exponent, 0.5 <= |mantissa| < 1
    return np.ldexp(np.rint(np.ldexp(mantissa, bits)), exponent - bits)


def ulp(values, precision: str) -> np.ndarray:
    r"""The spacing of `precision`'s numbers at each value: one unit in the last place.

    Rounding to nearest moves a value by at most half of it, which is at most
    :math:`|x| \cdot 2^{-b}` for a format of ``b`` significant bits.

    Parameters
    ----------
    values : array_like
        Nonzero finite real values (any shape), in the normal range of `precision`.
    precision : {"float64", "float32", "bfloat16"}
        The format.

    Returns
    -------
    ndarray, same shape as `values`, dtype float64
        :math:`2^{e - b + 1}` for :math:`2^e \le |x| < 2^{e + 1}`.

    Raises
    ------
    TypeError
        If `values` does not hold real numbers or `precision` is not a str.
    ValueError
        If a value is zero or not finite, or `precision` is unknown.

    Examples
    --------
    >>> ulp([4096, 10**6], "bfloat16")
    array([  32., 4096.])
    >>> float(ulp(4096, "float32")) == float(np.spacing(np.float32(4096)))
    True
    """
    bits = _bits(precision)
    values = _finite(values, "values")
    if np.any(values == 0):
        raise ValueError("values must be nonzero: the spacing at 0 is that of the subnormal numbers")
    _, exponent = np.frexp(values)
    return np.ldexp(1.0, exponent - bits)


def rounded_angles(
    positions, d_model: int, *, base: float = 10_000.0, precision: str = "float32",
    rounded=ROUNDED_QUANTITIES,
) -> np.ndarray:
    r"""The angles :math:`p\,\omega_i` as computed in `precision`.

    By default the positions and the frequencies :math:`\omega_i = \mathrm{base}^{-2i/d_{model}}`
    are rounded to `precision`, and so is their product: what a framework
    computes with ``positions.to(dtype) * inv_freq.to(dtype)``.  This models,
    approximately, the rotary angles of Hugging Face Transformers under bfloat16
    autocast before its pull request 29285 (``precision="bfloat16"``), and after it
    (``"float32"``): there ``inv_freq`` is computed in float32 as
    ``1 / base ** (2i / d)``, which is not always the float32 nearest to
    :math:`\omega_i`, whereas here each frequency is rounded once.

    Parameters
    ----------
    positions : array_like, shape (seq_len,)
        Finite positions, magnitudes up to ``2**53``.
    d_model : int
        Encoding (or head) width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    precision : {"float64", "float32", "bfloat16"}, default "float32"
        The format the angles are computed in.
    rounded : collection of {"position", "frequency", "product"}, default all three
        Which quantities are rounded to `precision`; the others stay in float64.
        ``("frequency",)``, say, is a float32 ``inv_freq`` buffer times exact
        positions, the product formed in float64.

    Returns
    -------
    ndarray, shape (seq_len, d_model // 2), dtype float64
        Radians; with ``"float64"`` (or ``rounded=()``), the companion's own angles.

    Raises
    ------
    TypeError, ValueError
        On bad positions, `d_model` or `base`, as :func:`~companion.sinusoidal_encoding`,
        an unknown `precision`, or a `rounded` that is not a collection of the names above.

    Examples
    --------
    >>> rounded_angles([10**6], 2, precision="float32")  # omega_0 = 1: exact below 2**24
    array([[1000000.]])
    >>> rounded_angles([10**6], 2, precision="bfloat16")  # the position itself is rounded
    array([[999424.]])
    >>> rounded_angles([10**6], 2, precision="bfloat16", rounded=("frequency", "product"))
    array([[999424.]])
    >>> rounded_angles([10**6], 2, precision="bfloat16", rounded=("frequency",))
    array([[1000000.]])
    """
    positions = check_positions(positions)
    rounded = _check_rounded(rounded)
    omega = angular_frequencies(d_model, base)  # checks d_model and base
    _bits(precision)  # checks precision even when nothing is rounded

    def maybe_round(values, quantity):
        if quantity in rounded:
            return round_to_precision(values, precision)
        return values

    angles = np.outer(maybe_round(positions, "position"), maybe_round(omega, "frequency"))
    return maybe_round(angles, "product")


def angle_encoding(positions, d_model: int, *, base: float = 10_000.0, precision: str = "float32",
                   rounded=ROUNDED_QUANTITIES) -> np.ndarray:
    """The table whose angles are computed in `precision`, with float64 sines and cosines.

    Parameters
    ----------
    positions : array_like, shape (seq_len,)
        Finite positions, magnitudes up to ``2**53``.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.
    precision : {"float64", "float32", "bfloat16"}, default "float32"
        The format the angles are computed in (:func:`rounded_angles`).
    rounded : collection of {"position", "frequency", "product"}, default all three
        Which quantities are rounded (:func:`rounded_angles`).

    Returns
    -------
    ndarray, shape (seq_len, d_model), dtype float64
        Interleaved layout: column ``2i`` the sine, ``2i + 1`` the cosine of pair ``i``'s angle.

    Raises
    ------
    TypeError, ValueError
        As :func:`rounded_angles`.

    Examples
    --------
    >>> from companion import sinusoidal_encoding
    >>> bool(np.allclose(angle_encoding(np.arange(50), 8, precision="float64"),
    ...                  sinusoidal_encoding(np.arange(50), 8), rtol=0, atol=1e-13))
    True
    """
    angles = rounded_angles(positions, d_model, base=base, precision=precision, rounded=rounded)
    table = np.empty((angles.shape[0], 2 * angles.shape[1]))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


def shift_residual(
    table, shifted, offset: float, *, base: float = 10_000.0
) -> np.ndarray:
    r"""How far each row of `shifted` is from :math:`R(k)` times the row of `table`.

    For an exact table, ``shifted[j] = PE(p_j + k) = R(k) PE(p_j)`` (the shift theorem),
    and the residual is zero.  :math:`R(k)` is
    :func:`~companion.analysis.linearity.rotation_matrix`, applied pair by pair in float64.

    Parameters
    ----------
    table : array_like, shape (n, d_model)
        Encodings :math:`PE(p_j)` in the interleaved layout (any float dtype).
    shifted : array_like, shape (n, d_model)
        Encodings :math:`PE(p_j + k)`, the same way.
    offset : float
        The shift :math:`k`, in positions.
    base : float, default 10000.0
        The base of the frequencies of :math:`R(k)`.

    Returns
    -------
    ndarray, shape (n,), dtype float64
        :math:`\max_c |(R(k)\,PE(p_j) - PE(p_j + k))_c|` for each row ``j``.

    Raises
    ------
    TypeError
        If the tables do not hold real numbers, or `offset` or `base` is not real.
    ValueError
        If the tables are not 2-D of the same shape with an even number of columns,
        or `offset` or `base` is invalid.

    Examples
    --------
    >>> from companion import sinusoidal_encoding
    >>> pe = sinusoidal_encoding(np.arange(20), 8)
    >>> bool(shift_residual(pe[:-3], pe[3:], 3).max() < 1e-14)
    True
    """
    table, shifted = _check_tables(table, shifted)
    angles = check_offset(offset) * angular_frequencies(table.shape[1], base)
    cosines, sines = np.cos(angles), np.sin(angles)
    sin_p, cos_p = table[:, 0::2], table[:, 1::2]  # pair i of PE(p): (sin, cos)
    # block i of R(k), [[cos, sin], [-sin, cos]], turns pair i by omega_i k
    sin_error = np.abs(cosines * sin_p + sines * cos_p - shifted[:, 0::2])
    cos_error = np.abs(cosines * cos_p - sines * sin_p - shifted[:, 1::2])
    return np.maximum(sin_error.max(axis=1), cos_error.max(axis=1))


def _check_tables(table, shifted):
    """The two tables of :func:`shift_residual` as float64 arrays, checked."""
    table, shifted = check_real_array(table, "table"), check_real_array(shifted, "shifted")
    if table.ndim != 2 or table.shape != shifted.shape:
        raise ValueError(
            f"table and shifted must be 2-D arrays of one shape (n, d_model), got {table.shape} and {shifted.shape}"
        )
    check_d_model(table.shape[1])
    return table, shifted


def _rotate(x: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Rows of `x` (shape (d,)) rotated pair by pair, (x[2i], x[2i+1]) by angles[:, i]: shape (n, d)."""
    cosines, sines = np.cos(angles), np.sin(angles)
    rotated = np.empty((angles.shape[0], x.size))
    rotated[:, 0::2] = x[0::2] * cosines - x[1::2] * sines
    rotated[:, 1::2] = x[0::2] * sines + x[1::2] * cosines
    return rotated


def rope_scores(
    query,
    key,
    query_positions,
    key_positions,
    *,
    base: float = 10_000.0,
    precision: str = "float32",
    rounded=ROUNDED_QUANTITIES,
) -> np.ndarray:
    r"""Attention scores of one query and one key under RoPE, with angles computed in `precision`.

    Score ``j`` is :math:`(B(p_j)\,q) \cdot (B(s_j)\,k)`, with :math:`B(p)` rotating pair
    ``(x[2i], x[2i+1])`` by the angle :math:`p\,\omega_i` (Su et al., 2024, Sec. 3.4; the
    interleaved pairing of :func:`~companion.apply_rotary`).  With exact angles it equals
    :math:`q^\top B(s_j - p_j)\,k` and depends only on the offset :math:`s_j - p_j`.

    Parameters
    ----------
    query, key : array_like, shape (d,)
        One query and one key; ``d`` even.
    query_positions, key_positions : array_like, shape (n,)
        The positions of the query and of the key in each of the ``n`` scores.
    base : float, default 10000.0
        Finite and greater than 1.
    precision : {"float64", "float32", "bfloat16"}, default "float32"
        The format the angles are computed in (:func:`rounded_angles`); the rotation and
        the dot product are evaluated in float64.
    rounded : collection of {"position", "frequency", "product"}, default all three
        Which quantities of the angles are rounded (:func:`rounded_angles`).

    Returns
    -------
    ndarray, shape (n,), dtype float64
        The scores.

    Raises
    ------
    TypeError
        If `query`, `key` or the positions do not hold real numbers, or `rounded` is not
        a collection of names.
    ValueError
        If `query` and `key` are not 1-D of one even length, the two position arrays
        differ in length, or a position, `base`, `precision` or `rounded` is invalid.

    Examples
    --------
    >>> q, k = np.array([1.0, 0.0, 0.5, 0.5]), np.array([0.0, 1.0, 1.0, 0.0])
    >>> scores = rope_scores(q, k, [10, 10**6], [7, 10**6 - 3], precision="float64")
    >>> bool(abs(scores[0] - scores[1]) < 1e-9)  # the same offset, the same score
    True
    """
    query, key, query_positions, key_positions = _check_scores(query, key, query_positions, key_positions)
    options = {"base": base, "precision": precision, "rounded": rounded}
    rotated_query = _rotate(query, rounded_angles(query_positions, query.size, **options))
    rotated_key = _rotate(key, rounded_angles(key_positions, key.size, **options))
    return (rotated_query * rotated_key).sum(axis=1)


def _check_scores(query, key, query_positions, key_positions):
    """The arguments of :func:`rope_scores` as float64 arrays, checked."""
    query, key = check_real_array(query, "query"), check_real_array(key, "key")
    if query.ndim != 1 or query.shape != key.shape:
        raise ValueError(f"query and key must be 1-D of one length, got shapes {query.shape} and {key.shape}")
    check_d_model(query.size)
    query_positions = check_positions(query_positions, "query_positions")
    key_positions = check_positions(key_positions, "key_positions")
    if query_positions.size != key_positions.size:
        raise ValueError(
            f"query_positions and key_positions must have one length, got {query_positions.size} and "
            f"{key_positions.size}"
        )
    return query, key, query_positions, key_positions


#: The tables of the shift figure of the chapter "Precision and speed":
#: name -> function(positions, d_model) giving the rows.
SHIFT_TABLES = {
    "angles in bfloat16": lambda positions, d: angle_encoding(positions, d, precision="bfloat16"),
    "angles in float32": lambda positions, d: angle_encoding(positions, d, precision="float32"),
    "angles in float64": lambda positions, d: angle_encoding(positions, d, precision="float64"),
    "companion's float32 table": lambda positions, d: sinusoidal_encoding(positions, d, dtype=np.float32),
}


def shift_residual_by_position(exponents=range(0, 23), *, d_model: int = 512, offset: int = 1, rows: int = 16,
                               tables=None):
    """Largest shift residual of each table over positions ``2**e .. 2**e + rows - 1``, for each ``e``.

    Parameters
    ----------
    exponents : iterable of int, default range(0, 23)
        Block ``e`` starts at position ``2**e``; 0 <= e <= 52.
    d_model : int, default 512
        Encoding width; a positive even integer.
    offset : int, default 1
        The shift :math:`k`; a positive integer.
    rows : int, default 16
        Positions per block; positive.
    tables : dict, optional
        Name -> function(positions, d_model) -> table rows; default ``SHIFT_TABLES``.

    Returns
    -------
    starts : ndarray, shape (n_blocks,), dtype int64
        First position of each block.
    residuals : dict of str to ndarray, shape (n_blocks,)
        For each table, the largest :func:`shift_residual` in each block.

    Raises
    ------
    ValueError
        If an exponent is outside [0, 52], or `offset` or `rows` is not a positive integer.

    Examples
    --------
    >>> starts, residuals = shift_residual_by_position([4, 20], d_model=16, rows=2)
    >>> starts.tolist(), bool(residuals["angles in float64"].max() < 1e-9)
    ([16, 1048576], True)
    >>> bool(residuals["angles in float32"][1] > 1e-3)
    True
    """
    tables = SHIFT_TABLES if tables is None else tables
    exponents = [int(e) for e in exponents]
    if any(not 0 <= e <= 52 for e in exponents):
        raise ValueError(f"exponents must lie in [0, 52], got {exponents}")
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or offset < 1:
        raise ValueError(f"offset must be a positive integer, got {offset!r}")
    if isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or rows < 1:
        raise ValueError(f"rows must be a positive integer, got {rows!r}")
    starts = np.array([2**e for e in exponents], dtype=np.int64)
    residuals = {name: np.empty(starts.size) for name in tables}
    for block, start in enumerate(starts):
        positions = np.arange(start, start + rows)
        for name, build in tables.items():
            table, shifted = build(positions, d_model), build(positions + offset, d_model)
            residuals[name][block] = shift_residual(table, shifted, offset).max()
    return starts, residuals
