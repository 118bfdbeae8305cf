r"""Why positions are encoded with sinusoids: the codes a reader thinks of first, and the binary counter.

Three ways to turn a position :math:`p` into a vector added to a token's embedding
(:func:`position_codes`):

- ``"integer"``: :math:`p` itself in every coordinate. Unbounded: it grows with the
  position until it drowns the embedding (the blog post *OG positional encoding*, 2023).
- ``"unit interval"``: :math:`p / (\text{seq\_len} - 1)` in every coordinate. Bounded, but
  the same position gets a different code in sequences of different lengths (same post).
- ``"sinusoidal"``: the encoding of Vaswani et al. (2017), Sec. 3.5. Bounded, and a
  function of the position alone.

And the analogy that leads from counting to sinusoids (Kazemnejad, 2019): digit :math:`k`
of a binary counter flips every :math:`2^k` positions (:func:`binary_digits`); a sinusoid
of the same period, :math:`\sin(\pi (p + 1/2) / 2^k)`, has the digit's sign at every
integer position but is smooth and bounded (:func:`digit_waves`).  Whether a dot product,
or an attention head's score, sees only the offset between two positions is read from
:func:`offset_dot_products`.
"""

from __future__ import annotations

import numpy as np

from .._checks import check_count, check_d_model, check_positions, check_real_array
from ..encoding.table import sinusoidal_encoding

__all__ = ["POSITION_CODES", "binary_digits", "digit_waves", "offset_dot_products", "position_codes"]

#: The schemes :func:`position_codes` knows.
POSITION_CODES = ("integer", "unit interval", "sinusoidal")


def position_codes(
    positions, d_model: int, scheme: str, *, seq_len: int | None = None
) -> np.ndarray:
    r"""The vector each scheme adds to the token embedding at each position.

    - ``"integer"``: every coordinate is the position :math:`p`;
    - ``"unit interval"``: every coordinate is :math:`p / (\text{seq\_len} - 1)`, so the
      first token gets 0 and the last 1;
    - ``"sinusoidal"``: :math:`PE(p)` of Vaswani et al. (2017), Sec. 3.5 (interleaved
      layout, base 10000), which does not depend on `seq_len`.

    The first two are the naive codes the blog post *OG positional encoding* (2023)
    rejects.

    Parameters
    ----------
    positions : array_like of int, shape (n,)
        Non-negative integer positions.
    d_model : int
        Width of the code (the embedding width); a positive even integer.
    scheme : {"integer", "unit interval", "sinusoidal"}
        Which code.
    seq_len : int, optional
        Length of the sequence the positions belong to, used by ``"unit interval"`` only;
        default ``max(positions) + 1``. Must exceed every position and be at least 2.

    Returns
    -------
    ndarray, shape (n, d_model), dtype float64
        Row ``r`` is the code of ``positions[r]``.

    Raises
    ------
    TypeError
        If `scheme` is not a str, `seq_len` or `d_model` is not an integer, or
        `positions` is not real.
    ValueError
        If `scheme` is unknown, a position is negative or not an integer, `d_model` is
        not positive and even, or `seq_len` is below 2 or not above every position.

    Examples
    --------
    >>> position_codes([0, 5, 10], 4, "integer")[:, 0]
    array([ 0.,  5., 10.])
    >>> position_codes([10], 4, "unit interval", seq_len=51)[0]
    array([0.2, 0.2, 0.2, 0.2])
    >>> position_codes([0], 4, "sinusoidal")[0]
    array([0., 1., 0., 1.])
    """
    positions, d_model, seq_len = _checked(positions, d_model, scheme, seq_len)
    if scheme == "integer":
        return np.repeat(positions[:, None], d_model, axis=1)
    if scheme == "unit interval":
        return np.repeat(positions[:, None] / (seq_len - 1), d_model, axis=1)
    return sinusoidal_encoding(positions, d_model)  # takes no seq_len


def _checked(positions, d_model, scheme, seq_len):
    """The arguments of :func:`position_codes`, checked; `seq_len` defaulted, and checked for "unit interval"."""
    if not isinstance(scheme, str):
        raise TypeError(f"scheme must be one of {POSITION_CODES} (a str), got {scheme!r}")
    if scheme not in POSITION_CODES:
        raise ValueError(f"scheme must be one of {POSITION_CODES}, got {scheme!r}")
    positions = _integer_positions(positions)
    d_model = check_d_model(d_model)
    if scheme != "unit interval":
        return positions, d_model, seq_len
    last = int(positions.max()) if positions.size else 0
    seq_len = last + 1 if seq_len is None else check_count(seq_len, "seq_len")
    if seq_len < 2 or seq_len <= last:
        raise ValueError(
            f"seq_len must be at least 2 and above every position (the largest is {last}), got {seq_len}"
        )
    return positions, d_model, seq_len


def binary_digits(positions, n_bits: int) -> np.ndarray:
    r"""The binary digits of each position, least significant first.

    Digit :math:`k` of :math:`p` is :math:`\lfloor p / 2^k \rfloor \bmod 2`: it flips every
    :math:`2^k` positions and repeats every :math:`2^{k+1}`.  The analogy between these
    digits and the encoding's frequencies is Kazemnejad's (2019).

    Parameters
    ----------
    positions : array_like of int, shape (n,)
        Non-negative integer positions, each below ``2 ** n_bits``.
    n_bits : int
        Number of digits; positive.

    Returns
    -------
    ndarray, shape (n, n_bits), dtype int64
        ``digits[r, k]`` is digit ``k`` (0 or 1) of ``positions[r]``.

    Raises
    ------
    TypeError
        If `n_bits` is not an integer or `positions` is not real.
    ValueError
        If `n_bits` is not positive (or above 62), or a position is negative, not an
        integer, or needs more than `n_bits` digits.

    Examples
    --------
    >>> binary_digits([5, 6], 4)
    array([[1, 0, 1, 0],
           [0, 1, 1, 0]])
    """
    n_bits = check_count(n_bits, "n_bits")
    if not 1 <= n_bits <= 62:
        raise ValueError(f"n_bits must be between 1 and 62, got {n_bits}")
    positions = _integer_positions(positions).astype(np.int64)
    if positions.size and positions.max() >= 2**n_bits:
        raise ValueError(f"positions must be below 2**n_bits = {2**n_bits}, got {positions.max()}")
    return (positions[:, None] >> np.arange(n_bits)) & 1


def digit_waves(positions, n_bits: int) -> np.ndarray:
    r"""The smooth cousin of each binary digit: :math:`\sin(\pi (p + 1/2) / 2^k)`.

    Wave :math:`k` has the period :math:`2^{k+1}` of digit :math:`k`, and at every
    non-negative integer position its sign is the digit's, written as :math:`\pm 1`:
    :math:`\operatorname{sign} = 1 - 2 \cdot \text{digit}_k(p)` (positive while the digit
    is 0).  Unlike the digit it is bounded *and* smooth, and it is defined between
    integers too, so it can be drawn as a curve.

    Parameters
    ----------
    positions : array_like, shape (n,)
        Finite real positions.
    n_bits : int
        Number of waves; positive.

    Returns
    -------
    ndarray, shape (n, n_bits), dtype float64
        ``waves[r, k]`` is wave ``k`` at ``positions[r]``, in [-1, 1].

    Raises
    ------
    TypeError
        If `n_bits` is not an integer or `positions` is not real.
    ValueError
        If `n_bits` is not positive (or above 62), or a position is not finite.

    Examples
    --------
    >>> np.sign(digit_waves([0, 1, 2, 3], 2))
    array([[ 1.,  1.],
           [-1.,  1.],
           [ 1., -1.],
           [-1., -1.]])
    """
    n_bits = check_count(n_bits, "n_bits")
    if not 1 <= n_bits <= 62:
        raise ValueError(f"n_bits must be between 1 and 62, got {n_bits}")
    positions = check_positions(positions)
    return np.sin(np.pi * (positions[:, None] + 0.5) / 2.0 ** np.arange(n_bits))


def offset_dot_products(table, offset: int, *, keys=None) -> np.ndarray:
    r"""The dot products :math:`x_p \cdot y_{p+k}` of the rows `offset` apart of `table` and `keys`.

    With ``keys=None`` the rows are compared with the rows of the same table,
    :math:`x_p \cdot x_{p+k}`.  A code lets a dot product see offsets only if these are
    the same for every :math:`p`: then :math:`x_p \cdot x_q` depends on :math:`q - p` alone,
    as attention's scores would need to compare tokens by how far apart they are.

    With `table` the queries :math:`PE\,W_Q` and `keys` the keys :math:`PE\,W_K` of a
    table of encodings, entry :math:`p` is the score :math:`PE(p)^\top W_Q W_K^\top PE(p+k)`
    of one attention head (Vaswani et al., 2017, Sec. 3.2.1, before the division by
    :math:`\sqrt{d_k}`).

    Parameters
    ----------
    table : array_like, shape (seq_len, d)
        One row per position, positions ``0 .. seq_len - 1``.
    offset : int
        The offset :math:`k`; non-negative and below ``seq_len``.
    keys : array_like, shape (seq_len, d), optional
        The rows to compare with, one per position; default `table` itself.

    Returns
    -------
    ndarray, shape (seq_len - offset,), dtype float64
        Entry ``p`` is ``table[p] @ keys[p + offset]``.

    Raises
    ------
    TypeError
        If `offset` is not an integer, or `table` or `keys` is not real.
    ValueError
        If `table` is not 2-D, `keys` has another shape than `table`, or `offset` is
        negative or not below ``seq_len``.

    Examples
    --------
    >>> offset_dot_products(np.arange(4.0)[:, None], 1)  # p (p + 1): not a function of the offset
    array([0., 2., 6.])
    >>> offset_dot_products(np.arange(4.0)[:, None], 1, keys=np.ones((4, 1)))  # p: nor is this
    array([0., 1., 2.])
    """
    table = check_real_array(table, "table")
    if table.ndim != 2:
        raise ValueError(f"table must be 2-D (seq_len, d), got shape {table.shape}")
    keys = table if keys is None else check_real_array(keys, "keys")
    if keys.shape != table.shape:
        raise ValueError(f"keys must have the shape of table, {table.shape}, got {keys.shape}")
    offset = check_count(offset, "offset")
    if offset >= table.shape[0]:
        raise ValueError(f"offset must be below seq_len = {table.shape[0]}, got {offset}")
    return np.einsum("ij,ij->i", table[: table.shape[0] - offset], keys[offset:])


def _integer_positions(positions) -> np.ndarray:
    """`positions` as float64, refused unless every one is a non-negative integer."""
    positions = check_positions(positions)
    if positions.size and (positions.min() < 0 or np.any(positions != np.round(positions))):
        bad = positions[(positions < 0) | (positions != np.round(positions))][0]
        raise ValueError(f"positions must be non-negative integers, got {bad:g}")
    return positions

