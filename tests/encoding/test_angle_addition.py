import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import angular_frequencies, sinusoidal_encoding
from companion.analysis.reference import half_ulp, reference_encoding
from companion.encoding.angle_addition import arithmetic_progression, interleaved_table


def direct(positions, omega):
    """One sine and one cosine per entry, in float64: the definition."""
    angles = np.asarray(positions, dtype=np.float64)[:, None] * omega
    table = np.empty((angles.shape[0], 2 * omega.size))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


@pytest.mark.parametrize(
    "positions",
    [np.arange(10**6 - 200, 10**6 + 57), np.arange(2**20 - 100, 2**20), np.arange(5000, -5000, -37)],
    ids=["around-1e6", "below-2^20", "negative-step"],
)
def test_float32_progressions_are_correctly_rounded_up_to_1e9(positions):
    reference = reference_encoding(positions, 128)
    table = sinusoidal_encoding(positions, 128, dtype=np.float32).astype(np.float64)
    assert arithmetic_progression(positions.astype(np.float64)) is not None
    assert np.all(np.abs(table - reference) <= half_ulp(reference, np.float32) + 1e-9)


def test_float64_progression_is_as_accurate_as_direct_evaluation():
    positions = np.arange(10**6, 10**6 + 300)
    reference = reference_encoding(positions, 64)
    by_addition = np.abs(sinusoidal_encoding(positions, 64) - reference).max()
    by_definition = np.abs(direct(positions, angular_frequencies(64)) - reference).max()
    assert by_addition <= 2 * by_definition + 1e-15


@pytest.mark.parametrize("seq_len", [0, 1, 2, 3, 15, 16, 17, 1000, 1001])
def test_every_length_and_partial_last_block(seq_len):
    omega = angular_frequencies(32)
    positions = np.arange(seq_len, dtype=np.float64) + 3.0
    np.testing.assert_allclose(interleaved_table(positions, omega, np.float64), direct(positions, omega),
                               rtol=0, atol=1e-13)


def test_float32_output_is_the_float64_output_rounded_once():
    positions = np.arange(0, 300_000, 7, dtype=np.float64)
    omega = angular_frequencies(256)
    np.testing.assert_array_equal(
        interleaved_table(positions, omega, np.float32), interleaved_table(positions, omega, np.float64).astype(np.float32)
    )


@given(
    start=st.integers(-10**6, 10**6),
    step=st.sampled_from([1, 2, 3, -1, 0.5, 0.25]),
    seq_len=st.integers(2, 300),
    half=st.integers(1, 64),
    base=st.floats(2.0, 1e6),
)
def test_progressions_match_the_definition(start, step, seq_len, half, base):
    positions = start + step * np.arange(seq_len, dtype=np.float64)
    omega = angular_frequencies(2 * half, base)
    # float64 angle errors scale with the largest angle, |p| * omega_0 <= 1.1e6
    np.testing.assert_allclose(interleaved_table(positions, omega, np.float64), direct(positions, omega),
                               rtol=0, atol=1e-15 * (1 + np.abs(positions).max()))


def test_non_progressions_take_the_direct_path():
    positions = np.array([0.0, 1.0, 3.0, 1e5, -2.5])
    assert arithmetic_progression(positions) is None
    omega = angular_frequencies(16)
    np.testing.assert_array_equal(interleaved_table(positions, omega, np.float64), direct(positions, omega))


def test_progression_detection_is_exact():
    assert arithmetic_progression(np.array([2.0, 5.0, 8.0])) == (2.0, 3.0)
    assert arithmetic_progression(np.array([4.0])) is None
    assert arithmetic_progression(np.arange(5.0) + [0, 0, 0, 1e-12, 0]) is None


def test_direct_method_evaluates_every_entry():
    positions = np.arange(300, dtype=np.float64)
    omega = angular_frequencies(16)
    np.testing.assert_array_equal(interleaved_table(positions, omega, np.float64, method="direct"), direct(positions, omega))
    with pytest.raises(ValueError, match="method must be one of"):
        interleaved_table(positions, omega, np.float64, method="fast")


@pytest.mark.parametrize("seq_len", [2, 3, 5, 17, 100, 1000, 4096, 100_003])
def test_directly_evaluated_rows_counts_the_rows_given_to_sin_and_cos(monkeypatch, seq_len):
    import companion.encoding.angle_addition as angle_addition

    rows = []
    original = angle_addition._expi
    monkeypatch.setattr(angle_addition, "_expi", lambda angles: rows.append(angles.shape[0]) or original(angles))
    interleaved_table(np.arange(seq_len, dtype=np.float64), angular_frequencies(8), np.float64)
    assert sum(rows) == angle_addition.directly_evaluated_rows(seq_len)
    assert sum(rows) <= 8 * seq_len**0.25 + 8
