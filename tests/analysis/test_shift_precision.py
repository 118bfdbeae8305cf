import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from companion import apply_rotary, angular_frequencies, sinusoidal_encoding
from companion.analysis.linearity import rotation_matrix
from companion.analysis.shift_precision import (
    SIGNIFICAND_BITS,
    angle_encoding,
    rope_scores,
    round_to_precision,
    rounded_angles,
    shift_residual,
    ulp,
)
from companion.encoding.torch_table import round_to_dtype

finite_values = st.floats(min_value=1e-30, max_value=1e30) | st.floats(min_value=-1e30, max_value=-1e-30)


@given(st.lists(finite_values, min_size=1, max_size=20))
def test_float32_rounding_is_numpys_cast(values):
    expected = np.asarray(values).astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(round_to_precision(values, "float32"), expected)


@given(st.lists(finite_values, min_size=1, max_size=20))
def test_bfloat16_rounding_is_the_correct_single_rounding_of_torch(values):
    expected = round_to_dtype(torch.tensor(values, dtype=torch.float64), torch.bfloat16).double().numpy()
    np.testing.assert_array_equal(round_to_precision(values, "bfloat16"), expected)


@pytest.mark.parametrize("precision", list(SIGNIFICAND_BITS))
@given(values=st.lists(finite_values, min_size=1, max_size=20))
def test_rounding_moves_a_value_by_at_most_half_an_ulp_and_is_idempotent(precision, values):
    values = np.asarray(values)
    rounded = round_to_precision(values, precision)
    assert np.all(np.abs(rounded - values) <= ulp(values, precision) / 2)
    assert np.all(np.abs(rounded - values) <= np.abs(values) * 2.0 ** -SIGNIFICAND_BITS[precision])
    np.testing.assert_array_equal(round_to_precision(rounded, precision), rounded)


def test_ulp_is_numpys_spacing():
    values = np.random.default_rng(0).uniform(1e-3, 1e7, size=1000)
    np.testing.assert_array_equal(ulp(values, "float64"), np.spacing(values))
    np.testing.assert_array_equal(ulp(values, "float32"), np.spacing(values.astype(np.float32)).astype(np.float64))
    assert ulp(4096, "bfloat16") == 32 and ulp(4095, "bfloat16") == 16


def test_float32_angles_are_torchs_float32_products():
    positions = np.arange(0, 2**24, 4099)
    omega = torch.tensor(angular_frequencies(128)).float()
    expected = (torch.tensor(positions).float()[:, None] * omega).double().numpy()
    np.testing.assert_array_equal(rounded_angles(positions, 128, precision="float32"), expected)


def test_bfloat16_angles_are_torchs_bfloat16_products():
    positions = np.arange(0, 2**20, 1021)
    omega = round_to_dtype(torch.tensor(angular_frequencies(64)), torch.bfloat16)
    expected = (torch.tensor(positions).float().to(torch.bfloat16)[:, None] * omega).double().numpy()
    np.testing.assert_array_equal(rounded_angles(positions, 64, precision="bfloat16"), expected)


def test_float64_angles_give_the_companions_table():
    # both round the float64 angle (about 1e-16 * 10**6), by different routes
    positions = np.arange(10**6, 10**6 + 50)
    np.testing.assert_allclose(angle_encoding(positions, 64, precision="float64"),
                               sinusoidal_encoding(positions, 64), rtol=0, atol=1e-9)


def test_bfloat16_rounds_the_positions_themselves():
    angles = rounded_angles([10_000, 10_003, 10_031], 8, precision="bfloat16")
    np.testing.assert_array_equal(angles[0], angles[1])  # 10000 and 10003 are both 9984 in bfloat16
    assert not np.array_equal(angles[0], angles[2])


@pytest.mark.parametrize("start", [2**12, 2**16, 2**20])
def test_float32_angles_break_the_shift_in_proportion_to_the_position(start):
    positions = np.arange(start, start + 64)
    residual = shift_residual(angle_encoding(positions, 512), angle_encoding(positions + 1, 512), 1).max()
    assert 0.05 < residual / (start * 2.0**-24) < 4


@pytest.mark.parametrize("start", [2**4, 2**12, 2**20])
def test_the_companions_float32_table_keeps_the_shift_at_every_position(start):
    positions = np.arange(start, start + 64)
    table = sinusoidal_encoding(np.arange(start, start + 65), 512, dtype=np.float32)
    assert shift_residual(table[:-1], table[1:], 1).max() < 2e-7
    exact = angle_encoding(positions, 512, precision="float64")
    assert shift_residual(exact, angle_encoding(positions + 1, 512, precision="float64"), 1).max() < 1e-9


def test_shift_residual_applies_the_rotation_matrix():
    table = np.random.default_rng(2).normal(size=(5, 32))
    shifted = np.random.default_rng(3).normal(size=(5, 32))
    expected = np.abs(table @ rotation_matrix(7, 32).T - shifted).max(axis=1)
    np.testing.assert_allclose(shift_residual(table, shifted, 7), expected, rtol=0, atol=1e-13)


def test_shift_residual_of_an_exact_table_is_zero_and_of_a_wrong_offset_is_not():
    pe = sinusoidal_encoding(np.arange(100), 16)
    assert shift_residual(pe[:-5], pe[5:], 5).max() < 1e-14
    assert shift_residual(pe[:-5], pe[5:], 4).max() > 0.1


def test_rope_scores_agree_with_apply_rotary():
    rng = np.random.default_rng(1)
    query, key = rng.normal(size=(2, 32))
    positions = np.array([0, 7, 1234, 10**6])
    expected = [apply_rotary(query[None], [p])[0] @ apply_rotary(key[None], [p - 5])[0] for p in positions]
    np.testing.assert_allclose(rope_scores(query, key, positions, positions - 5, precision="float64"), expected,
                               rtol=0, atol=1e-9)


def test_rope_scores_depend_on_the_offset_alone_only_with_exact_angles():
    rng = np.random.default_rng(0)
    query, key = rng.normal(size=(2, 128))
    positions = np.array([10, 10**4, 10**6])
    exact = rope_scores(query, key, positions, positions - 3, precision="float64")
    assert np.ptp(exact) < 1e-8
    float32 = np.abs(rope_scores(query, key, positions, positions - 3) - exact[0])
    assert float32[0] < 1e-4 < float32[2] and float32[2] > 10 * float32[1]
    # bfloat16 rounds 10**6 - 3 and 10**6 to one position: the key is scored at offset 0
    bfloat16 = rope_scores(query, key, positions, positions - 3, precision="bfloat16")
    assert bfloat16[2] == pytest.approx(query @ key, abs=1e-9)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="precision must be one of"):
        round_to_precision([1.0], "float16")
    with pytest.raises(TypeError, match="precision"):
        rounded_angles([1], 4, precision=np.float32)
    with pytest.raises(ValueError, match="values must be finite"):
        round_to_precision([np.nan], "float32")
    with pytest.raises(ValueError, match="nonzero"):
        ulp([0.0, 1.0], "float32")
    with pytest.raises(ValueError, match="one shape"):
        shift_residual(np.zeros((3, 4)), np.zeros((2, 4)), 1)
    with pytest.raises(ValueError, match="even"):
        shift_residual(np.zeros((3, 5)), np.zeros((3, 5)), 1)
    with pytest.raises(ValueError, match="query and key"):
        rope_scores(np.zeros(4), np.zeros(6), [1], [0])
    with pytest.raises(ValueError, match="one length"):
        rope_scores(np.zeros(4), np.zeros(4), [1, 2], [0])
    with pytest.raises(ValueError, match="key_positions must be finite"):
        rope_scores(np.zeros(4), np.zeros(4), [1], [np.inf])
