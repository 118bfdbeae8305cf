"""What the source documents print, and their code as written, errors included.

The book teaches from five source documents (see ``book/sources.md``): the blog
posts *OG positional encoding* (2023) and *Understanding positional encoding*
(2022), the notes and the notebook both titled *Positional Encoding*, and the
positional-encoding notebook that follows Rothman's *Transformers for Natural
Language Processing* (2021).  Their printed tables and figures are quoted here,
with the document they come from, so that check cells and tests can compare
them with what the companion computes.  :func:`doubled_exponent_encoding`
reproduces the loop of Rothman's notebook, whose exponent is doubled; it exists
to be compared with, not to be used.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import check_base, check_d_model, check_positions

__all__ = [
    "OG_POST_TABLE",
    "PE_NOTEBOOK_TABLE",
    "ROTHMAN_NOTEBOOK_DIV_TERM_SINES",
    "ROTHMAN_NOTEBOOK_ROW_EDGES",
    "ROTHMAN_NOTEBOOK_SIMILARITIES",
    "doubled_exponent_encoding",
]

#: The blog post *OG positional encoding* (2023): the 4 x 4 table its torch loop prints
#: (seq_len 4, d_model 4, base 10000, float32, 4 decimals).
OG_POST_TABLE = np.array(
    [
        [0.0000, 1.0000, 0.0000, 1.0000],
        [0.8415, 0.5403, 0.0100, 0.9999],
        [0.9093, -0.4161, 0.0200, 0.9998],
        [0.1411, -0.9900, 0.0300, 0.9996],
    ]
)

#: The notebook *Positional Encoding*: its final 10 x 6 table ``PE``
#: (max_seq_len 10, d_model 6, base 10000, float32, 4 decimals).
PE_NOTEBOOK_TABLE = np.array(
    [
        [0.0000, 1.0000, 0.0000, 1.0000, 0.0000, 1.0000],
        [0.8415, 0.5403, 0.0464, 0.9989, 0.0022, 1.0000],
        [0.9093, -0.4161, 0.0927, 0.9957, 0.0043, 1.0000],
        [0.1411, -0.9900, 0.1388, 0.9903, 0.0065, 1.0000],
        [-0.7568, -0.6536, 0.1846, 0.9828, 0.0086, 1.0000],
        [-0.9589, 0.2837, 0.2300, 0.9732, 0.0108, 0.9999],
        [-0.2794, 0.9602, 0.2749, 0.9615, 0.0129, 0.9999],
        [0.6570, 0.7539, 0.3192, 0.9477, 0.0151, 0.9999],
        [0.9894, -0.1455, 0.3629, 0.9318, 0.0172, 0.9999],
        [0.4121, -0.9111, 0.4057, 0.9140, 0.0194, 0.9998],
    ]
)

#: The positional-encoding notebook after Rothman (2021), cells In [8] and In [9]: the
#: first and last three of the 512 values its loop prints for positions 2 and 10
#: (5 significant digits).
ROTHMAN_NOTEBOOK_ROW_EDGES = {
    2: (np.array([9.0930e-01, -4.1615e-01, 9.5814e-01]), np.array([1.0000e00, 2.1492e-08, 1.0000e00])),
    10: (np.array([-5.4402e-01, -8.3907e-01, 1.1878e-01]), np.array([1.0000e00, 1.0746e-07, 1.0000e00])),
}

#: The same notebook, cell In [13]: the table it builds with PyTorch and a ``div_term``
#: (its name for the angular frequencies), max_len 20, d_model 512, float32.  The cell
#: prints the sine columns ``pe[:, 0::2]``; these are the first and last three of them for
#: positions 1 and 2 (pairs 0, 1, 2 and 253, 254, 255; 5 significant digits).
ROTHMAN_NOTEBOOK_DIV_TERM_SINES = {
    1: (np.array([8.4147e-01, 8.2186e-01, 8.0196e-01]), np.array([1.1140e-04, 1.0746e-04, 1.0366e-04])),
    2: (np.array([9.0930e-01, 9.3641e-01, 9.5814e-01]), np.array([2.2279e-04, 2.1492e-04, 2.0733e-04])),
}

#: The same notebook, cell In [23]: cosine similarities of "black" (position 2) and
#: "brown" (position 10) at d_model 512.  Its prose quotes other runs:
#: 0.9998901 for the words and 0.9627094 for the encoded embeddings.
ROTHMAN_NOTEBOOK_SIMILARITIES = {
    "word": 0.99987805,
    "positional": 0.8600013,
    "encoded": 0.9608184,
}


def doubled_exponent_encoding(positions, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""The loop of Rothman's notebook: the paper's formula with the exponent doubled.

    The notebook after Rothman (2021) writes ``for i in range(0, 512, 2): sin(pos / 10000 ** ((2 * i) / d_model))``.
    There ``i`` already steps through the even *columns* 0, 2, 4, ..., so
    ``2 * i`` counts each pair twice: pair ``k`` gets the angle
    ``pos / base ** (4k / d_model)`` instead of the paper's
    ``pos / base ** (2k / d_model)`` (Vaswani et al., 2017, Sec. 3.5).  That is
    the paper's table with ``base ** 2`` in place of ``base``.

    Parameters
    ----------
    positions : array_like, shape (seq_len,)
        Finite real positions.
    d_model : int
        Encoding width; a positive even integer.
    base : float, default 10000.0
        Finite and greater than 1.

    Returns
    -------
    ndarray, shape (seq_len, d_model), dtype float64
        Sines in even columns, cosines in odd columns, as in the source.

    Raises
    ------
    TypeError, ValueError
        On bad arguments, as :func:`~companion.sinusoidal_encoding`.

    Examples
    --------
    >>> doubled_exponent_encoding([2], 512)[0, [0, 1, 2, 510]].round(5)
    array([ 0.9093 , -0.41615,  0.95814,  0.     ])
    """
    positions = check_positions(positions)
    d_model = check_d_model(d_model)
    base = check_base(base)
    table = np.zeros((positions.size, d_model))
    for row, pos in enumerate(positions):
        for i in range(0, d_model, 2):  # i is the column index ...
            angle = pos / base ** ((2 * i) / d_model)  # ... so 2 * i doubles the exponent
            table[row, i] = math.sin(angle)
            table[row, i + 1] = math.cos(angle)
    return table
