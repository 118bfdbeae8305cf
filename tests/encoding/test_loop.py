import math

import numpy as np

from companion import loop_encoding, sinusoidal_encoding


def test_entries_follow_the_papers_formula():
    table = loop_encoding(5, 6, base=100.0)
    for pos in range(5):
        for i in range(3):
            angle = pos / 100.0 ** (2 * i / 6)
            assert table[pos, 2 * i] == math.sin(angle)
            assert table[pos, 2 * i + 1] == math.cos(angle)


def test_frequency_index_advances_once_per_pair():
    # Columns 2i and 2i + 1 share one angle, so sin^2 + cos^2 = 1 pair by pair.
    table = loop_encoding(50, 16)
    np.testing.assert_allclose(table[:, 0::2] ** 2 + table[:, 1::2] ** 2, 1.0, atol=1e-15)


def test_loop_equals_vectorized():
    np.testing.assert_allclose(
        loop_encoding(200, 64, base=500.0),
        sinusoidal_encoding(np.arange(200), 64, base=500.0),
        rtol=0,
        atol=1e-13,
    )


def test_empty_sequence():
    assert loop_encoding(0, 8).shape == (0, 8)
