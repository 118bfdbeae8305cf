import numpy as np
import pytest

from companion import angular_frequencies, sinusoidal_encoding
from companion.analysis.distinguishability import (
    SimilarityScales,
    count_pairs_by_turn,
    last_offset_above,
    nearest_position_distance,
    offset_distances,
    offset_similarity,
    rounding_breakpoints,
    similarity_scales,
    similarity_scales_of_frequencies,
    similarity_trend,
    similarity_trend_crossings,
    similarity_trend_scales,
)
from companion.analysis.linearity import relative_dot_product


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


@pytest.mark.parametrize("d_model, base", [(8, 100.0), (128, 1e4), (512, 1e6)])
def test_offset_similarity_is_the_cosine_similarity_of_rows_k_apart_at_every_position(d_model, base):
    table = sinusoidal_encoding(np.arange(400), d_model, base=base)
    offsets = np.array([0, 1, 3, 37, 150])
    expected = offset_similarity(offsets, d_model, base)
    for start in (0, 11, 249):
        rows = table[start + offsets]
        direct = rows @ table[start] / (np.linalg.norm(rows, axis=1) * np.linalg.norm(table[start]))
        np.testing.assert_allclose(direct, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(offset_similarity(-offsets, d_model, base), expected, rtol=0, atol=0)
    assert expected[0] == 1.0


def test_offset_similarity_rejects_offsets_that_are_not_a_1d_array_of_finite_numbers():
    with pytest.raises(ValueError, match="offsets"):
        offset_similarity([[1, 2]], 8)
    with pytest.raises(ValueError, match="offsets must be finite"):
        offset_similarity([1.0, np.inf], 8)


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


def test_the_scales_of_any_frequencies_are_those_of_the_table_for_the_papers_and_slow_with_them():
    omega = angular_frequencies(64, 1e4)
    assert similarity_scales_of_frequencies(omega) == similarity_scales(64, 1e4)
    # every frequency 4 times slower: the similarity at offset 4k is the old one at k
    half, zero = similarity_scales(64, 1e4)
    slow_half, slow_zero = similarity_scales_of_frequencies(omega / 4)
    assert 4 * (half - 1) < slow_half <= 4 * half and 4 * (zero - 1) < slow_zero <= 4 * zero


@pytest.mark.parametrize("frequencies", [np.ones((2, 3)), np.array([]), np.array([1.0, np.inf])])
def test_the_scales_of_frequencies_refuse_what_is_not_a_1d_array_of_finite_values(frequencies):
    with pytest.raises(ValueError, match="frequencies"):
        similarity_scales_of_frequencies(frequencies)


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


# --- the smooth trend of the similarity ---------------------------------------------------------


@pytest.mark.parametrize("offset", [1, 5, 30, 300, 3000])
def test_the_similarity_of_a_wide_encoding_is_its_log_integral_ci_k_minus_ci_k_over_base(offset):
    """The sum over 8,192 log-spaced pairs is the integral (Ci(k) - Ci(k/b)) / ln b; the trend drops Ci(k)."""
    import mpmath

    base = 1e4
    similarity = np.cos(offset * angular_frequencies(2**14, base)).mean()
    ripple = float(mpmath.ci(offset)) / np.log(base)
    assert similarity == pytest.approx(similarity_trend([offset], base)[0] + ripple, abs=5e-4)


def test_the_trend_loses_one_over_ln_base_per_factor_e_of_distance():
    base = 1e8
    offsets = np.array([10.0, 100.0, 1000.0])  # 1 << k << base
    expected = 1 - (np.euler_gamma + np.log(offsets)) / np.log(base)
    np.testing.assert_allclose(similarity_trend(offsets, base), expected, atol=1e-9)


@pytest.mark.parametrize("base", [1e2, 1e4, 1e6])
def test_trend_scales_grow_as_the_square_root_of_the_base_and_as_the_base(base):
    half, zero = similarity_trend_scales(base)
    assert similarity_trend([half - 0.5], base)[0] > 0.5 >= similarity_trend([half + 0.5], base)[0]
    assert similarity_trend([zero - 0.5], base)[0] > 0 >= similarity_trend([zero + 0.5], base)[0]
    assert abs(half - np.exp(-np.euler_gamma) * np.sqrt(base)) <= 0.5 + 1e-3 * np.sqrt(base)
    assert abs(zero - 0.616505 * base) <= 0.5 + 1e-6 * base


def test_unrounded_trend_crossings_grow_exactly_as_the_laws_say():
    """From base 100 to 10**6 the half point moves about 100-fold (as sqrt b) and the zero exactly 10**4-fold (as b)."""
    (half_low, zero_low), (half_high, zero_high) = similarity_trend_crossings(1e2), similarity_trend_crossings(1e6)
    assert similarity_trend([half_low], 1e2)[0] == pytest.approx(0.5, abs=1e-12)
    assert similarity_trend([zero_high], 1e6)[0] == pytest.approx(0.0, abs=1e-12)
    assert zero_high / zero_low == pytest.approx(1e4, rel=1e-12)
    assert half_high / half_low == pytest.approx(100, rel=2e-3)  # e^-gamma sqrt(b) is the law for b >> 1
    assert similarity_trend_scales(1e2) == (round(half_low), round(zero_low))


def test_similarity_trend_rejects_offsets_that_are_not_positive():
    with pytest.raises(ValueError, match="finite and positive"):
        similarity_trend([0, 1])


@pytest.mark.parametrize("d_model, base", [(16, 100.0), (32, 1e3), (128, 1e4)])
def test_last_offset_above_is_the_last_offset_where_the_table_is_more_alike(d_model, base):
    table = sinusoidal_encoding(np.arange(5001), d_model, base=base)
    similarity = table[1:] @ table[0] / (d_model / 2)
    last = last_offset_above(0.5, d_model, base, max_offset=5000)
    assert similarity[last - 1] > 0.5 and np.all(similarity[last:] <= 0.5)
    assert last >= similarity_scales(d_model, base).half - 1  # it can only come later than the first crossing
    assert last_offset_above(1.0, d_model, base, max_offset=100) == 0
    with pytest.raises(ValueError, match="between -1 and 1"):
        last_offset_above(2.0, d_model, base)


def test_the_similarity_crosses_one_half_again_after_its_first_crossing():
    """Width 128, base 10,000: first at or below 1/2 at 46, above it again at 50, for good only after 88."""
    half = similarity_scales(128).half
    similarity = relative_dot_product(np.arange(1, 101), 128) / 64
    assert half == 46 and similarity[49] > 0.5 and last_offset_above(0.5, 128) == 88


# --- pairs sorted by how far they turn ---------------------------------------------------------


@pytest.mark.parametrize("seq_len, d_model, below", [(50, 128, 1.0), (512, 128, 1.0), (256, 64, 0.1), (50, 512, 0.5)])
def test_pairs_are_counted_by_the_angle_they_turn_from_first_to_last_position(seq_len, d_model, below):
    table = sinusoidal_encoding(np.arange(seq_len), d_model)
    angle = np.unwrap(np.arctan2(table[:, 0::2], table[:, 1::2]), axis=0)[-1]  # angle at the last position
    groups = count_pairs_by_turn(seq_len, d_model, below=below)
    assert sum(groups) == d_model // 2
    assert groups.full_turn == np.sum(angle >= 2 * np.pi - 1e-12)
    assert groups.below == np.sum(angle < below)


def test_pair_counts_reject_bad_arguments():
    with pytest.raises(ValueError, match="at least 2"):
        count_pairs_by_turn(1, 8)
    with pytest.raises(ValueError, match="below must be an angle"):
        count_pairs_by_turn(10, 8, below=7.0)


# --- where a 16-bit clock cannot move --------------------------------------------------------


def torch_grid(dtype_name):
    """Every value of a 16-bit format from 0 to 1, read from torch's own bit layout."""
    import torch

    top = {"float16": 0x3C00, "bfloat16": 0x3F80}[dtype_name]  # the bits of 1.0
    return torch.arange(0, top + 1, dtype=torch.int16).view(getattr(torch, dtype_name)).double().numpy()


def round_to_nearest(values, grid):
    """Each value replaced by the nearest value of `grid` (increasing); ties do not occur at random angles."""
    above = np.clip(np.searchsorted(grid, values), 1, grid.size - 1)
    lower, upper = grid[above - 1], grid[above]
    return np.where(values - lower < upper - values, lower, upper)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rounded_sine_and_cosine_are_one_value_between_breakpoints_and_change_across_them(dtype):
    breakpoints = rounding_breakpoints(dtype)
    assert breakpoints[0] == 0 and breakpoints[-1] == np.pi / 2 and np.all(np.diff(breakpoints) > 0)
    theta = np.sort(np.random.default_rng(0).uniform(0, np.pi / 2, 200_000))
    grid = torch_grid(dtype)
    rounded = np.stack([round_to_nearest(np.sin(theta), grid), round_to_nearest(np.cos(theta), grid)], axis=1)
    if dtype == "float16":  # numpy's conversion rounds correctly too
        np.testing.assert_array_equal(rounded, np.stack([np.sin(theta), np.cos(theta)], 1).astype(np.float16))
    same_value = (rounded[1:] == rounded[:-1]).all(axis=1)
    same_arc = np.diff(np.searchsorted(breakpoints, theta)) == 0
    np.testing.assert_array_equal(same_value, same_arc)


def test_the_longest_float16_arc_is_one_grid_step_seen_at_45_degrees():
    arcs = np.diff(rounding_breakpoints(np.float16))
    longest = np.argmax(arcs)
    assert 0.95 * 2**-11 / np.sin(np.pi / 4) < arcs[longest] <= 2**-11 / np.sin(np.pi / 4)
    assert abs(rounding_breakpoints("float16")[longest] - np.pi / 4) < 0.05
    assert np.diff(rounding_breakpoints("bfloat16")).max() == pytest.approx(8 * arcs.max(), rel=0.1)  # 3 fewer bits


def test_rounding_breakpoints_know_only_16_bit_formats():
    with pytest.raises(ValueError, match="'float16' or 'bfloat16'"):
        rounding_breakpoints("float32")
