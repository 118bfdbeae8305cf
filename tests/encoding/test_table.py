import numpy as np
import pytest

from companion import layout_permutation, sinusoidal_encoding
from companion.analysis.reference import half_ulp, reference_encoding


def test_first_rows_by_hand():
    table = sinusoidal_encoding([0, 1, 2], 4)
    np.testing.assert_array_equal(table[0], [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(
        table[1:], [[np.sin(1), np.cos(1), np.sin(0.01), np.cos(0.01)],
                    [np.sin(2), np.cos(2), np.sin(0.02), np.cos(0.02)]], rtol=1e-15
    )


def test_layouts_hold_the_same_columns():
    positions = np.arange(7)
    inter = sinusoidal_encoding(positions, 10)
    concat = sinusoidal_encoding(positions, 10, layout="concatenated")
    np.testing.assert_array_equal(concat[:, :5], inter[:, 0::2])
    np.testing.assert_array_equal(concat[:, 5:], inter[:, 1::2])
    np.testing.assert_array_equal(concat[:, layout_permutation(10, "concatenated", "interleaved")], inter)


def test_layout_permutations_are_inverse():
    forward = layout_permutation(12, "interleaved", "concatenated")
    backward = layout_permutation(12, "concatenated", "interleaved")
    np.testing.assert_array_equal(forward[backward], np.arange(12))
    np.testing.assert_array_equal(layout_permutation(12, "interleaved", "interleaved"), np.arange(12))


def test_non_integer_and_negative_positions():
    table = sinusoidal_encoding([-3.5, 0.25], 4)
    np.testing.assert_allclose(table[0, :2], [np.sin(-3.5), np.cos(-3.5)], rtol=1e-15)
    np.testing.assert_allclose(table[1, 2:], [np.sin(0.0025), np.cos(0.0025)], rtol=1e-15)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_returns_the_requested_dtype(dtype):
    assert sinusoidal_encoding(np.arange(3), 8, dtype=dtype).dtype == dtype


def test_accepts_integer_dtypes_and_lists():
    np.testing.assert_array_equal(
        sinusoidal_encoding(np.arange(5, dtype=np.int32), 8), sinusoidal_encoding(list(range(5)), 8)
    )


def test_empty_positions_give_an_empty_table():
    assert sinusoidal_encoding(np.array([], dtype=int), 6).shape == (0, 6)


# Positions up to 10**6, spread so each frequency is seen at many phases.
LARGE_POSITIONS = np.concatenate([np.arange(20), [999, 10**4 - 1, 10**5 + 3, 654_321, 10**6, 2**20 - 1]])


def test_float64_table_matches_high_precision_reference():
    reference = reference_encoding(LARGE_POSITIONS, 512)
    table = sinusoidal_encoding(LARGE_POSITIONS, 512)
    # The float64 angle p * omega carries a relative error of about 2e-16.
    assert np.abs(table - reference).max() < 3e-16 * LARGE_POSITIONS.max()


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_low_precision_tables_are_correctly_rounded_up_to_1e9(dtype):
    reference = reference_encoding(LARGE_POSITIONS, 512)
    table = sinusoidal_encoding(LARGE_POSITIONS, 512, dtype=dtype).astype(np.float64)
    assert np.all(np.abs(table - reference) <= half_ulp(reference, dtype) + 1e-9)
    # and the float32 table rounds the float64 table once, to nearest
    np.testing.assert_array_equal(table, sinusoidal_encoding(LARGE_POSITIONS, 512).astype(dtype))
