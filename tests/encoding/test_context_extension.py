import numpy as np
import pytest

from companion import angular_frequencies
from companion.encoding.context_extension import EXTENSION_METHODS, ntk_aware_base, scaled_frequencies


@pytest.mark.parametrize("d_model", [4, 64, 128])
@pytest.mark.parametrize("scale", [1, 2, 8, 32])
def test_ntk_aware_scaling_keeps_the_fastest_pair_and_slows_the_slowest_by_the_scale(d_model, scale):
    new = scaled_frequencies(d_model, scale, method="ntk-aware")
    old = angular_frequencies(d_model)
    assert new[0] == old[0] == 1.0
    assert new[-1] == pytest.approx(old[-1] / scale, rel=1e-12)
    ratio = new / old  # a geometric progression from 1 down to 1 / scale
    np.testing.assert_allclose(ratio, scale ** (-np.arange(d_model // 2) / (d_model // 2 - 1)), rtol=1e-12)


def test_ntk_aware_base_is_blocs_formula():
    """bloc97's code: base = base * a ** (dim / (dim - 2)), with a = 8 and dim = 128."""
    assert ntk_aware_base(10_000.0, 8, 128) == pytest.approx(10_000 * 8 ** (128 / 126), rel=1e-15)
    assert ntk_aware_base(500_000.0, 1, 64) == 500_000.0


def test_interpolation_slows_every_pair_by_the_scale():
    np.testing.assert_allclose(scaled_frequencies(64, 4, method="interpolation"), angular_frequencies(64) / 4)


def test_yarn_keeps_fast_pairs_interpolates_slow_ones_and_ramps_linearly_in_turns_between():
    d_model, scale, length = 128, 16, 4096
    omega = angular_frequencies(d_model)
    new = scaled_frequencies(d_model, scale, method="yarn", original_max_len=length)
    turns = length * omega / (2 * np.pi)
    np.testing.assert_array_equal(new[turns > 32], omega[turns > 32])
    np.testing.assert_allclose(new[turns < 1], omega[turns < 1] / scale, rtol=1e-15)
    between = (turns >= 1) & (turns <= 32)
    assert between.sum() > 3
    kept = (new[between] / omega[between] - 1 / scale) / (1 - 1 / scale)
    np.testing.assert_allclose(kept, (turns[between] - 1) / 31, rtol=1e-12)
    assert np.all(np.diff(new / omega) <= 1e-15)  # slower pairs are never slowed less


@pytest.mark.parametrize("method", EXTENSION_METHODS)
def test_every_recipe_lies_between_the_original_and_full_interpolation(method):
    omega = angular_frequencies(64)
    new = scaled_frequencies(64, 8, method=method, original_max_len=2048)
    assert np.all(new <= omega * (1 + 1e-15)) and np.all(new >= omega / 8 * (1 - 1e-15))


@pytest.mark.parametrize(
    "kwargs, error, message",
    [({"method": "linear"}, ValueError, "method must be one of"),
     ({"method": "yarn"}, ValueError, "original_max_len must be a positive integer"),
     ({"method": "yarn", "original_max_len": 0}, ValueError, "original_max_len must be a positive integer"),
     ({"method": "yarn", "original_max_len": 2048.0}, TypeError, "original_max_len must be a non-negative integer"),
     ({"method": "yarn", "original_max_len": 2048, "alpha": 32, "beta": 1}, ValueError, "0 < alpha < beta"),
     ({"method": "interpolation", "scale": 0.5}, ValueError, "scale must be"),
     ({"method": "interpolation", "scale": float("inf")}, ValueError, "scale must be")],
)
def test_bad_arguments_are_named(kwargs, error, message):
    kwargs = {"scale": 4, **kwargs}
    with pytest.raises(error, match=message):
        scaled_frequencies(64, **kwargs)


def test_ntk_aware_needs_two_pairs():
    with pytest.raises(ValueError, match="at least 4"):
        ntk_aware_base(10_000.0, 2, 2)
