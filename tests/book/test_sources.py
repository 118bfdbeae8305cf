"""The source documents' printed figures, reproduced or refuted by computation."""

import numpy as np
import pytest

from companion import cosine_similarity, loop_encoding, sinusoidal_encoding
from companion.book.sources import (
    OG_POST_TABLE,
    PE_NOTEBOOK_TABLE,
    ROTHMAN_NOTEBOOK_DIV_TERM_SINES,
    ROTHMAN_NOTEBOOK_ROW_EDGES,
    ROTHMAN_NOTEBOOK_SIMILARITIES,
    doubled_exponent_encoding,
)


@pytest.mark.parametrize("printed", [OG_POST_TABLE, PE_NOTEBOOK_TABLE], ids=["og-post", "pe-notebook"])
def test_printed_tables_are_the_float32_table_to_four_decimals(printed):
    seq_len, d_model = printed.shape
    table32 = sinusoidal_encoding(np.arange(seq_len), d_model, dtype=np.float32).astype(np.float64)
    np.testing.assert_array_equal(np.round(table32, 4), printed)


def test_the_og_posts_entry_is_float32_rounding_not_float64():
    # cos(0.01) = 0.99995000004...: float64 rounds to 1.0000; float32 holds 0.99994999 and prints 0.9999.
    assert np.round(loop_encoding(4, 4)[1, 3], 4) == 1.0
    assert OG_POST_TABLE[1, 3] == 0.9999


def test_doubled_exponent_is_the_paper_with_base_squared():
    np.testing.assert_allclose(
        doubled_exponent_encoding(np.arange(30), 64, base=50.0),
        sinusoidal_encoding(np.arange(30), 64, base=2500.0),
        rtol=0,
        atol=1e-14,
    )


@pytest.mark.parametrize("position", [2, 10])
def test_rothmans_printed_rows_come_from_the_doubled_exponent(position):
    first, last = ROTHMAN_NOTEBOOK_ROW_EDGES[position]
    doubled = doubled_exponent_encoding([position], 512)[0]
    np.testing.assert_allclose(doubled[:3], first, rtol=5e-5, atol=5e-5)
    np.testing.assert_allclose(doubled[-3:], last, rtol=5e-5)
    # The paper's last frequency is base ** (-510/512), the doubled one base ** (-1020/512);
    # both angles are below 3e-3, where sin(x) = x to a relative 1.5e-6.
    ratio = sinusoidal_encoding([position], 512)[0, -2] / doubled[-2]
    assert ratio == pytest.approx(10_000 ** (510 / 512), rel=2e-6)


@pytest.mark.parametrize("position", [1, 2])
def test_rothmans_div_term_table_is_the_papers(position):
    first, last = ROTHMAN_NOTEBOOK_DIV_TERM_SINES[position]
    sines = sinusoidal_encoding([position], 512, dtype=np.float32)[0, 0::2].astype(np.float64)
    np.testing.assert_allclose(sines[:3], first, rtol=5e-5)
    np.testing.assert_allclose(sines[-3:], last, rtol=5e-5)
    # and not the loop's: its last sines are 10**4 times smaller
    assert not np.allclose(doubled_exponent_encoding([position], 512)[0, -2], last[-1], rtol=0.5)


def test_rothmans_positional_similarity_is_reproduced_and_corrected():
    doubled = doubled_exponent_encoding([2, 10], 512)
    assert round(cosine_similarity(*doubled), 7) == ROTHMAN_NOTEBOOK_SIMILARITIES["positional"]
    assert round(cosine_similarity(*sinusoidal_encoding([2, 10], 512)), 4) == 0.7225
