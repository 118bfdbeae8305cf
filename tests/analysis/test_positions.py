"""The naive position codes, the binary counter and its smooth cousin (companion.analysis.positions)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import angular_frequencies, sinusoidal_encoding
from companion.analysis.linearity import rotation_matrix
from companion.analysis.positions import binary_digits, digit_waves, offset_dot_products, position_codes


def test_the_integer_code_grows_with_the_position_and_the_sinusoidal_one_does_not():
    positions = np.arange(2048)
    integer = position_codes(positions, 512, "integer")
    sinusoidal = position_codes(positions, 512, "sinusoidal")
    np.testing.assert_array_equal(integer[:, 7], positions)
    np.testing.assert_allclose(np.linalg.norm(integer, axis=1), positions * np.sqrt(512), rtol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(sinusoidal, axis=1), 16.0, rtol=1e-14)


def test_the_unit_interval_code_of_one_position_depends_on_the_length():
    short = position_codes([10], 8, "unit interval", seq_len=50)
    long = position_codes([10], 8, "unit interval", seq_len=100)
    np.testing.assert_array_equal(short, np.full((1, 8), 10 / 49))
    np.testing.assert_array_equal(long, np.full((1, 8), 10 / 99))
    # and two different positions can share a code: 10 of 51 and 20 of 101 are both 0.2
    np.testing.assert_array_equal(
        position_codes([10], 8, "unit interval", seq_len=51), position_codes([20], 8, "unit interval", seq_len=101)
    )


def test_the_unit_interval_code_defaults_to_the_shortest_sequence_holding_the_positions():
    codes = position_codes(np.arange(5), 2, "unit interval")
    np.testing.assert_array_equal(codes[:, 0], [0, 0.25, 0.5, 0.75, 1])


@given(st.integers(2, 300), st.integers(0, 299))
def test_the_sinusoidal_code_does_not_depend_on_the_length(seq_len, position):
    position = position % seq_len
    row = position_codes([position], 16, "sinusoidal", seq_len=seq_len)
    np.testing.assert_array_equal(row, sinusoidal_encoding([position], 16))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(scheme="learned"), ValueError, "scheme must be one of"),
        (dict(scheme=3), TypeError, "scheme must be one of"),
        (dict(scheme="unit interval", seq_len=10), ValueError, "above every position"),
        (dict(scheme="unit interval", seq_len=1), ValueError, "at least 2"),
        (dict(scheme="integer", positions=[-1]), ValueError, "non-negative integers"),
        (dict(scheme="integer", positions=[1.5]), ValueError, "non-negative integers"),
        (dict(scheme="integer", d_model=3), ValueError, "even"),
    ],
)
def test_position_codes_reject_bad_arguments(kwargs, error, match):
    arguments = dict(positions=np.arange(12), d_model=4) | kwargs
    with pytest.raises(error, match=match):
        position_codes(**arguments)


def test_binary_digits_count_in_binary():
    digits = binary_digits(np.arange(16), 4)
    np.testing.assert_array_equal(digits @ 2 ** np.arange(4), np.arange(16))
    # digit k flips every 2**k positions
    for k in range(4):
        flips = np.flatnonzero(np.diff(digits[:, k])) + 1
        np.testing.assert_array_equal(flips, np.arange(2**k, 16, 2**k))


def test_binary_digits_reject_positions_that_need_more_digits():
    with pytest.raises(ValueError, match="below 2\\*\\*n_bits = 8"):
        binary_digits([8], 3)
    with pytest.raises(ValueError, match="n_bits must be between 1 and 62"):
        binary_digits([0], 0)


@given(st.integers(0, 2**20 - 1))
def test_each_wave_has_the_sign_of_its_digit(position):
    waves = digit_waves([position], 20)[0]
    digits = binary_digits([position], 20)[0]
    np.testing.assert_array_equal(np.sign(waves), 1 - 2 * digits)


def test_each_wave_is_bounded_and_repeats_with_its_digits_period():
    positions = np.linspace(0, 64, 1001)
    waves = digit_waves(positions, 5)
    assert np.abs(waves).max() <= 1
    for k in range(5):
        np.testing.assert_allclose(digit_waves(positions + 2 ** (k + 1), 5)[:, k], waves[:, k], atol=1e-12)


def test_the_sinusoidal_dot_product_sees_only_the_offset_and_the_others_do_not():
    positions = np.arange(64)
    sinusoidal = offset_dot_products(sinusoidal_encoding(positions, 32), 3)
    assert np.ptp(sinusoidal) < 1e-12
    for table in [position_codes(positions, 32, "integer"), binary_digits(positions, 6)]:
        assert np.ptp(offset_dot_products(table, 3)) >= 1


def test_offset_dot_products_are_the_row_products():
    table = np.random.default_rng(0).normal(size=(10, 4))
    np.testing.assert_allclose(offset_dot_products(table, 2), [table[p] @ table[p + 2] for p in range(8)])
    np.testing.assert_allclose(offset_dot_products(table, 0), np.sum(table**2, axis=1))
    keys = np.random.default_rng(1).normal(size=(10, 4))
    np.testing.assert_allclose(offset_dot_products(table, 2, keys=keys), [table[p] @ keys[p + 2] for p in range(8)])


@pytest.mark.parametrize("shift", [1, 3, 10])
def test_a_head_whose_weights_rotate_each_pair_scores_by_the_offset_alone(shift):
    # W_Q = I and W_K = R(shift)^T: the key of position q is PE(q + shift), so the score of
    # p and q is sum_i cos(omega_i (q + shift - p)), largest at q = p - shift.
    table = sinusoidal_encoding(np.arange(200), 32)
    keys = table @ rotation_matrix(shift, 32).T
    for offset in [0, 2, 7]:
        scores = offset_dot_products(table, offset, keys=keys)
        expected = np.cos(angular_frequencies(32) * (offset + shift)).sum()
        np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-11)
    best = np.argmax(table @ keys.T, axis=1)
    np.testing.assert_array_equal(best[shift:], np.arange(200 - shift))


def test_a_head_with_random_weights_does_not_score_by_the_offset():
    table = sinusoidal_encoding(np.arange(200), 32)
    w_query, w_key = np.random.default_rng(0).normal(size=(2, 32, 32)) / np.sqrt(32)
    assert np.ptp(offset_dot_products(table @ w_query, 3, keys=table @ w_key)) > 1


def test_offset_dot_products_reject_bad_offsets_and_tables():
    with pytest.raises(ValueError, match="offset must be below seq_len = 3"):
        offset_dot_products(np.zeros((3, 2)), 3)
    with pytest.raises(ValueError, match="table must be 2-D"):
        offset_dot_products(np.zeros(3), 1)
    with pytest.raises(TypeError, match="offset must be a non-negative integer"):
        offset_dot_products(np.zeros((3, 2)), 1.5)
    with pytest.raises(ValueError, match="keys must have the shape of table"):
        offset_dot_products(np.zeros((3, 2)), 1, keys=np.zeros((3, 3)))
    with pytest.raises(TypeError, match="keys"):
        offset_dot_products(np.zeros((3, 2)), 1, keys=[["a", "b"]] * 3)
