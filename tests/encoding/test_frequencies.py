import math

import mpmath
import numpy as np
import pytest

from companion import angular_frequencies, wavelengths


def test_small_case_matches_the_formula_written_out():
    expected = [10_000 ** (-0 / 6), 10_000 ** (-2 / 6), 10_000 ** (-4 / 6)]
    np.testing.assert_allclose(angular_frequencies(6), expected, rtol=1e-15)


@pytest.mark.parametrize("d_model", [2, 4, 128, 512])
@pytest.mark.parametrize("base", [100.0, 10_000.0, 1e8])
def test_geometric_progression_from_one(d_model, base):
    omega = angular_frequencies(d_model, base)
    assert omega.shape == (d_model // 2,) and omega.dtype == np.float64
    assert omega[0] == 1.0
    np.testing.assert_allclose(omega[1:] / omega[:-1], base ** (-2 / d_model), rtol=1e-13)
    np.testing.assert_allclose(omega[-1], base ** (-(d_model - 2) / d_model), rtol=1e-14)


def test_matches_a_high_precision_reference():
    with mpmath.workdps(40):
        exact = [float(mpmath.mpf(10_000) ** (-mpmath.mpf(2 * i) / 512)) for i in range(256)]
    np.testing.assert_allclose(angular_frequencies(512), exact, rtol=4e-16, atol=0)


def test_wavelengths_run_from_two_pi_to_just_below_two_pi_base():
    lam = wavelengths(512)
    assert lam[0] == pytest.approx(2 * math.pi)
    assert lam[-1] == pytest.approx(2 * math.pi * 10_000 ** (510 / 512))
    assert lam[-1] < 2 * math.pi * 10_000
    assert np.all(np.diff(lam) > 0)


def test_the_exponents_of_the_two_spacings():
    from companion.encoding.frequencies import frequency_exponents

    np.testing.assert_array_equal(frequency_exponents(8, "paper"), [0.0, 0.25, 0.5, 0.75])
    np.testing.assert_array_equal(frequency_exponents(8, "tensor2tensor"), np.arange(4) / 3)
    np.testing.assert_array_equal(frequency_exponents(2, "tensor2tensor"), [0.0])  # one pair: no division by 0
    np.testing.assert_array_equal(angular_frequencies(8, 16.0), 16.0 ** -frequency_exponents(8, "paper"))
