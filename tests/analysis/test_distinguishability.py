import numpy as np
import pytest

from companion import angular_frequencies, sinusoidal_encoding
from companion.analysis.distinguishability import (
    SimilarityScales,
    nearest_position_distance,
    offset_distances,
    similarity_scales,
)


def test_offset_distances_match_the_table():
    table = sinusoidal_encoding(np.arange(300), 32)
    direct = np.linalg.norm(table[1:] - table[0], axis=1)
    np.testing.assert_allclose(offset_distances(np.arange(1, 300), 32), direct, atol=1e-12)


@pytest.mark.parametrize("d_model, expected", [(64, 1.4718), (128, 1.9526), (512, 3.7143)])
def test_neighbours_are_sqrt_of_twice_the_sum_of_one_minus_cos_omega_apart(d_model, expected):
    """The review's correction: neighbours are 1.47, 1.95 and 3.71 apart, not 'about one unit'."""
    omega = angular_frequencies(d_model)
    (distance,) = offset_distances([1], d_model)
    assert distance == pytest.approx(np.sqrt(2 * np.sum(1 - np.cos(omega))), rel=1e-14)
    assert distance == pytest.approx(expected, abs=5e-5)


def test_nearest_distance_rounded_tables_agree_with_exact_where_rounding_is_small():
    exact, offsets = nearest_position_distance([64, 4096], 8)
    rounded, _ = nearest_position_distance([64, 4096], 8, dtype=np.float32)
    np.testing.assert_allclose(rounded, exact, rtol=1e-5)
    assert np.all(offsets >= 1) and exact[1] <= exact[0]


def test_nearest_distance_rejects_short_tables():
    with pytest.raises(ValueError, match="at least 2"):
        nearest_position_distance([1], 8)


@pytest.mark.parametrize("d_model, base", [(16, 100.0), (64, 1e4), (128, 1e5)])
def test_similarity_scales_are_the_first_crossings_of_one_half_and_zero(d_model, base):
    half, zero = similarity_scales(d_model, base)
    table = sinusoidal_encoding(np.arange(zero + 1), d_model, base=base)
    similarity = table @ table[0] / (d_model / 2)
    assert similarity[half] <= 0.5 < similarity[1:half].min()
    assert similarity[zero] <= 0 < similarity[1:zero].min()


def test_a_bigger_base_trades_resolution_for_range():
    scales = [similarity_scales(128, base) for base in (1e2, 1e3, 1e4, 1e5)]
    assert all(a.half < b.half and a.zero < b.zero for a, b in zip(scales, scales[1:]))
    assert isinstance(scales[0], SimilarityScales)


def test_similarity_scales_say_when_the_search_is_too_short():
    with pytest.raises(ValueError, match="raise max_offset"):
        similarity_scales(128, 1e6, max_offset=100)


@pytest.mark.parametrize("dtype", [None, np.float32, np.float16])
def test_nearest_distance_equals_a_search_over_all_pairs_of_positions(dtype):
    max_len, d_model = 300, 4
    table = sinusoidal_encoding(np.arange(max_len), d_model, dtype=dtype or np.float64).astype(np.float64)
    gaps = np.linalg.norm(table[:, None, :] - table[None, :, :], axis=-1)
    brute = gaps[np.triu_indices(max_len, k=1)].min()
    (distance,), _ = nearest_position_distance([max_len], d_model, dtype=dtype)
    assert distance == pytest.approx(brute, rel=1e-9, abs=1e-12)
