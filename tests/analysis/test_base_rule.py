import math

import mpmath
import numpy as np
import pytest

from companion import wavelengths
from companion.analysis.base_rule import BaseScales, base_scales, base_window
from companion.analysis.distinguishability import (
    offset_distances,
    similarity_scales,
    similarity_trend,
    similarity_trend_crossings,
)


@pytest.mark.parametrize("context_len", [64, 4096, 131_072])
def test_the_window_runs_from_the_trends_range_to_its_resolution(context_len):
    """At the lower end the trend reaches 0 at the context's end; at the upper end it is 1/2 there."""
    lowest, highest = base_window(context_len)
    assert similarity_trend_crossings(lowest)[1] == pytest.approx(context_len, rel=1e-12)
    assert similarity_trend([context_len], highest)[0] == pytest.approx(0.5, abs=1e-12)
    assert similarity_trend_crossings(highest)[0] == pytest.approx(context_len, rel=1e-9)
    # close to the laws' forms N / x0 and (e^gamma N)^2, with x0 the first zero of Ci
    assert lowest == pytest.approx(context_len / float(mpmath.findroot(mpmath.ci, 0.6)), rel=1e-14)
    assert highest == pytest.approx((math.exp(float(mpmath.euler)) * context_len) ** 2, rel=1e-3)


def test_inside_the_window_the_trend_falls_through_one_half_and_stays_positive_over_the_context():
    context_len = 8192
    lowest, highest = base_window(context_len)
    for base in np.geomspace(lowest * 1.01, highest * 0.99, 5):
        half, zero = similarity_trend_crossings(base)
        assert half < context_len < zero
    assert similarity_trend_crossings(lowest * 0.99)[1] < context_len  # below: the trend is 0 within
    assert similarity_trend_crossings(highest * 1.01)[0] > context_len  # above: it never halves within


def test_published_bases_sit_in_the_window_of_their_contexts():
    """The bases and contexts chapter 7 sets against the rule (its sources are cited there)."""
    for base, context_len in [(10_000.0, 4096), (1e6, 16_384), (500_000.0, 8192), (1e6, 32_768)]:
        lowest, highest = base_window(context_len)
        assert lowest <= base <= highest


def test_the_trend_keeps_falling_past_its_zero_to_a_minimum_at_half_pi_times_the_base():
    """The range is where the trend reaches 0, not where it stops falling (its slope is -cos(k/b) / (k ln b))."""
    base = 10_000.0
    _, zero = similarity_trend_crossings(base)
    offsets = np.linspace(zero, 3 * base, 2001)
    trend = similarity_trend(offsets, base)
    lowest = offsets[np.argmin(trend)]
    assert trend[0] == pytest.approx(0, abs=1e-9) and np.all(trend[1:] < 0)
    assert lowest == pytest.approx(math.pi / 2 * base, rel=1e-3)


def test_the_similaritys_own_first_zero_is_not_monotone_in_the_base():
    """The module's notes: at width 128, base 10^6 reaches 0 sooner than 8 10^5 (the ripples, not the trend)."""
    assert base_scales(1e6, 128).first_zero == 27_115 < base_scales(8e5, 128).first_zero == 30_187


def test_base_scales_are_the_trends_crossings_and_the_exact_tables_own_figures():
    scales = base_scales(10_000.0, 128)
    assert isinstance(scales, BaseScales)
    assert (scales.resolution, scales.range) == similarity_trend_crossings(10_000.0)
    assert (scales.first_half, scales.first_zero) == tuple(similarity_scales(128, 10_000.0)) == (46, 1707)
    assert scales.slowest_wavelength == wavelengths(128)[-1]
    assert scales.neighbour_distance == offset_distances([1], 128)[0]


def test_neighbours_come_closer_only_as_one_over_the_root_of_log_base():
    """Chapter 7's correction of 'little': 2.67 to 1.65 (38% closer) from base 100 to 1,000,000, at width 128."""
    near, far = (base_scales(base, 128).neighbour_distance for base in (100.0, 1e6))
    assert (round(near, 2), round(far, 2)) == (2.67, 1.65)
    assert round(1 - far / near, 2) == 0.38
    # the law, d C / ln b, holds better the larger the base (the integral's lower limit matters less)
    c = 0.23981174200056473  # integral of (1 - cos w) / w from 0 to 1
    wide = offset_distances([1], 4096, 1e8)[0]
    assert wide == pytest.approx(math.sqrt(4096 * c / math.log(1e8)), rel=0.01)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: base_window(1), ValueError, "context_len"),
        (lambda: base_window(2.5), TypeError, "context_len"),
        (lambda: base_scales(1.0, 128), ValueError, "base"),
        (lambda: base_scales(1e4, 7), ValueError, "d_model"),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
