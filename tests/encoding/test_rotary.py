import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import layout_permutation
from companion.analysis.linearity import rotation_matrix
from companion.encoding.rotary import apply_rotary


@pytest.fixture
def queries_and_keys():
    rng = np.random.default_rng(0)
    return rng.normal(size=(2, 32))


@given(st.integers(0, 5000), st.integers(0, 5000), st.integers(-2000, 2000))
def test_dot_product_depends_only_on_the_offset(p, s, shift):
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(2, 1, 32))
    first = apply_rotary(q, [p])[0] @ apply_rotary(k, [s])[0]
    moved = apply_rotary(q, [p + shift])[0] @ apply_rotary(k, [s + shift])[0]
    assert first == pytest.approx(moved, abs=1e-9)


def test_rotation_is_the_shift_matrix_of_minus_the_position(queries_and_keys):
    x = queries_and_keys
    positions = [3.0, 250.0]
    rotated = apply_rotary(x, positions)
    for row, position in enumerate(positions):
        np.testing.assert_allclose(rotated[row], rotation_matrix(-position, 32) @ x[row], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(rotated, axis=1), np.linalg.norm(x, axis=1))


def test_the_two_pairings_differ_by_the_layout_permutation(queries_and_keys):
    x = queries_and_keys
    to_half = layout_permutation(32, "interleaved", "concatenated")
    interleaved = apply_rotary(x, [5, 9])
    half = apply_rotary(x[:, to_half], [5, 9], pairing="half")
    np.testing.assert_allclose(half, interleaved[:, to_half], atol=1e-12)
    assert not np.allclose(apply_rotary(x, [5, 9], pairing="half"), interleaved)


def test_batched_inputs(queries_and_keys):
    x = np.stack([queries_and_keys, 2 * queries_and_keys])  # (batch, seq_len, d)
    rotated = apply_rotary(x, [1, 2])
    np.testing.assert_allclose(rotated[1], 2 * rotated[0])


@pytest.mark.parametrize(
    "x, positions, kwargs, message",
    [
        (np.ones((2, 5)), [0, 1], {}, "d_model must be a positive even integer"),
        (np.ones((3, 4)), [0, 1], {}, "seq_len = len"),
        (np.ones(4), [0], {}, "seq_len = len"),
        (np.ones((1, 4)), [np.nan], {}, "finite"),
        (np.ones((1, 4)), [0], {"pairing": "rotate_half"}, "pairing must be one of"),
    ],
)
def test_bad_input(x, positions, kwargs, message):
    with pytest.raises(ValueError, match=message):
        apply_rotary(x, positions, **kwargs)
