import numpy as np
import pytest

from companion import sinusoidal_encoding
from companion.analysis.precision import (
    PRECISION_METHODS,
    direct_float64_table,
    errors_by_position,
    float32_phase_scale,
)
from companion.analysis.reference import reference_encoding

CHUNK = 2**16


def test_float32_table_of_every_position_below_2_20_is_within_the_bound():
    """Issue 7's bound, max |error| <= 1.2e-7, checked on the whole 2**20 x 512 table (2 GiB)."""
    table = sinusoidal_encoding(np.arange(2**20), 512, dtype=np.float32)
    worst = 0.0
    for start in range(0, 2**20, CHUNK):
        error = direct_float64_table(np.arange(start, start + CHUNK), 512)
        np.subtract(table[start : start + CHUNK].astype(np.float64), error, out=error)
        worst = max(worst, float(np.abs(error, out=error).max()))
    assert worst <= 1.2e-7
    # in fact within 2**-25 (half a float32 ulp of values near 1) of it, up to its own error (< 3e-10 here)
    assert worst <= 2.0**-25 + 3e-10


def test_the_float64_reference_of_that_test_is_itself_accurate():
    positions = np.array([2**20 - 1, 999_983, 654_321, 2**19 + 7])
    error = np.abs(direct_float64_table(positions, 512) - reference_encoding(positions, 512)).max()
    assert error < 3e-10


def test_float32_recipes_drift_like_one_rounding_of_the_angle():
    starts, errors = errors_by_position([4, 12, 20], d_model=512, rows=4)
    for name in ["exp/log recipe, float32 (Annotated Transformer)", "pow recipe, float32 (d2l)"]:
        ratio = errors[name] / float32_phase_scale(starts)
        assert np.all((ratio > 0.1) & (ratio < 10)), (name, ratio)
    assert errors["companion, float32"].max() <= 2.0**-25 + 1e-9
    assert errors["float64 then cast, float32"].max() <= 2.0**-25 + 1e-9
    assert errors["companion, float16"].max() <= 2.0**-12
    assert errors["companion, bfloat16"].max() <= 2.0**-9
    assert np.all(np.diff(errors["companion, float64"]) > 0)  # grows with the angle, ~1e-16 p


def test_every_method_returns_float64_rows_of_the_table():
    for name, build in PRECISION_METHODS.items():
        rows = build(np.arange(5), 16)
        assert rows.shape == (5, 16) and rows.dtype == np.float64, name
        np.testing.assert_allclose(rows, sinusoidal_encoding(np.arange(5), 16), atol=1e-2, err_msg=name)


def test_direct_table_validates_like_the_encoding():
    with pytest.raises(ValueError, match="d_model must be a positive even integer"):
        direct_float64_table([0], 3)
    with pytest.raises(ValueError, match="finite"):
        direct_float64_table([np.inf], 4)


def test_errors_by_position_rejects_bad_blocks():
    with pytest.raises(ValueError, match="exponents must lie in"):
        errors_by_position([60])
    with pytest.raises(ValueError, match="rows be positive"):
        errors_by_position([1], rows=0)
