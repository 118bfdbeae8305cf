import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import layout_permutation, sinusoidal_encoding
from companion.analysis.linearity import (
    fit_linear_map,
    one_function_shift_matrix,
    relative_dot_product,
    rotation_matrix,
)

d_models = st.integers(1, 64).map(lambda half: 2 * half)
bases = st.floats(1.5, 1e6)
positions = st.floats(-1e4, 1e4)
offsets = st.floats(-1e3, 1e3)


@given(d_models, bases, positions, offsets)
def test_shift_is_the_rotation(d_model, base, p, k):
    pe = sinusoidal_encoding([p, p + k], d_model, base=base)
    # float64 angles near 1e4 radians carry errors of about 2e-12
    np.testing.assert_allclose(rotation_matrix(k, d_model, base) @ pe[0], pe[1], rtol=0, atol=1e-10)


@given(d_models, bases, positions, offsets)
def test_concatenated_layout_uses_the_permuted_matrix(d_model, base, p, k):
    pe = sinusoidal_encoding([p, p + k], d_model, base=base, layout="concatenated")
    np.testing.assert_allclose(rotation_matrix(k, d_model, base, layout="concatenated") @ pe[0], pe[1], atol=1e-10)


@given(d_models, bases, offsets)
def test_rotation_is_orthogonal_with_determinant_one(d_model, base, k):
    r = rotation_matrix(k, d_model, base)
    np.testing.assert_allclose(r @ r.T, np.eye(d_model), atol=1e-13)
    assert np.linalg.det(r) == pytest.approx(1.0, abs=1e-10)


@given(d_models, bases, offsets, offsets)
def test_rotations_compose_and_invert(d_model, base, a, b):
    np.testing.assert_allclose(
        rotation_matrix(a, d_model, base) @ rotation_matrix(b, d_model, base),
        rotation_matrix(a + b, d_model, base), atol=1e-11,
    )
    np.testing.assert_allclose(rotation_matrix(-a, d_model, base), rotation_matrix(a, d_model, base).T, atol=0)


def test_matrix_is_block_diagonal_and_independent_of_position():
    r = rotation_matrix(5, 8)
    mask = np.kron(np.eye(4), np.ones((2, 2))).astype(bool)
    assert np.all(r[~mask] == 0)
    np.testing.assert_array_equal(r[:2, :2], [[np.cos(5), np.sin(5)], [-np.sin(5), np.cos(5)]])
    perm = layout_permutation(8, "interleaved", "concatenated")
    np.testing.assert_array_equal(rotation_matrix(5, 8, layout="concatenated"), r[np.ix_(perm, perm)])


@pytest.mark.parametrize("k", [1, 7, 100])
def test_least_squares_recovers_the_rotation(k):
    p = np.arange(2000)
    matrix, residual = fit_linear_map(sinusoidal_encoding(p, 16), sinusoidal_encoding(p + k, 16))
    np.testing.assert_allclose(matrix, rotation_matrix(k, 16), atol=1e-9)
    assert residual < 1e-12


@pytest.mark.parametrize("columns", [slice(0, None, 2), slice(1, None, 2)], ids=["sine-only", "cosine-only"])
def test_one_function_alone_admits_no_shift_matrix(columns):
    p = np.arange(5000)
    _, residual = fit_linear_map(sinusoidal_encoding(p, 16)[:, columns], sinusoidal_encoding(p + 7, 16)[:, columns])
    assert residual > 0.1


@given(d_models, bases, positions, offsets)
def test_one_function_shifts_linearly_from_two_earlier_positions(d_model, base, p, k):
    table = sinusoidal_encoding([p - k, p, p + k], d_model, base=base)
    matrix = one_function_shift_matrix(k, d_model, base)
    for columns in (slice(0, None, 2), slice(1, None, 2)):  # sines alone, cosines alone
        one_function = table[:, columns]
        # float64 angles near 1e4 radians carry errors of about 2e-12, doubled by the factor 2 cos
        np.testing.assert_allclose(matrix @ np.concatenate([one_function[1], one_function[0]]), one_function[2],
                                   rtol=0, atol=1e-10)


@given(d_models, bases, offsets)
def test_the_two_position_recurrence_is_the_sum_of_a_rotation_and_its_inverse(d_model, base, k):
    # R(k) PE(p) + R(-k) PE(p) = PE(p + k) + PE(p - k), and R(k) + R(-k) = 2 diag(cos w_i k) on both rows of a pair
    both = rotation_matrix(k, d_model, base) + rotation_matrix(-k, d_model, base)
    matrix = one_function_shift_matrix(k, d_model, base)
    half = d_model // 2
    np.testing.assert_allclose(both, np.diag(np.diag(both)), atol=0)
    np.testing.assert_allclose(matrix[:, :half], np.diag(np.diag(both)[0::2]), atol=1e-15)
    np.testing.assert_array_equal(matrix[:, half:], -np.eye(half))


def test_one_function_shift_matrix_at_a_quarter_turn():
    # k = pi/2 turns pair 0 (omega_0 = 1) by a quarter: sin(p + pi/2) = 2 cos(pi/2) sin(p) - sin(p - pi/2) = cos(p)
    matrix = one_function_shift_matrix(np.pi / 2, 2)
    np.testing.assert_allclose(matrix, [[0.0, -1.0]], atol=1e-15)


@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=10), d_models, bases, st.floats(-1e3, 1e3))
def test_relative_dot_product_is_the_dot_product_at_any_position(ks, d_model, base, p):
    ks = np.array(ks)
    table = sinusoidal_encoding(np.concatenate([[p], p + ks]), d_model, base=base)
    np.testing.assert_allclose(table[1:] @ table[0], relative_dot_product(ks, d_model, base), atol=1e-9)
    np.testing.assert_allclose(relative_dot_product(-ks, d_model, base), relative_dot_product(ks, d_model, base))


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: rotation_matrix(np.nan, 8), ValueError, "offset must be finite"),
        (lambda: rotation_matrix(np.inf, 8), ValueError, "offset must be finite"),
        (lambda: rotation_matrix("3", 8), TypeError, "offset must be a finite real number"),
        (lambda: rotation_matrix(1, 7), ValueError, "d_model must be a positive even integer"),
        (lambda: rotation_matrix(1, 8, layout="split"), ValueError, "layout must be one of"),
        (lambda: relative_dot_product([np.inf], 8), ValueError, "finite"),
        (lambda: one_function_shift_matrix(np.nan, 8), ValueError, "offset must be finite"),
        (lambda: one_function_shift_matrix(1, 6.0), TypeError, "d_model"),
        (lambda: one_function_shift_matrix(1, 8, base=1.0), ValueError, "base"),
        (lambda: fit_linear_map(np.ones((3, 2)), np.ones((4, 2))), ValueError, "one row per example"),
        (lambda: fit_linear_map(np.ones((3, 2)), np.zeros((3, 2))), ValueError, "all zero"),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
