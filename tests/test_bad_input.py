"""Every bad argument gets an error that names it and says what is allowed."""

import numpy as np
import pytest
import torch

from companion import (
    SinusoidalPositionalEncoding,
    angular_frequencies,
    layout_permutation,
    loop_encoding,
    sinusoidal_encoding,
    torch_sinusoidal_encoding,
)
from companion.reference import reference_encoding
from companion.sources import doubled_exponent_encoding

TABLE_BUILDERS = [
    lambda d_model, **kw: sinusoidal_encoding(np.arange(3), d_model, **kw),
    lambda d_model, **kw: torch_sinusoidal_encoding(torch.arange(3), d_model, **kw),
    lambda d_model, **kw: loop_encoding(3, d_model, **kw),
    lambda d_model, **kw: angular_frequencies(d_model, **kw),
    lambda d_model, **kw: doubled_exponent_encoding([1], d_model, **kw),
    lambda d_model, **kw: reference_encoding([1], d_model, **kw),
    lambda d_model, **kw: SinusoidalPositionalEncoding(d_model, 5, **kw),
]
BUILDER_IDS = ["numpy", "torch", "loop", "frequencies", "doubled", "reference", "module"]


@pytest.mark.parametrize("build", TABLE_BUILDERS, ids=BUILDER_IDS)
@pytest.mark.parametrize(
    "d_model, error",
    [(7, ValueError), (0, ValueError), (-4, ValueError), (4.0, TypeError), ("4", TypeError), (True, TypeError)],
)
def test_d_model_must_be_a_positive_even_integer(build, d_model, error):
    with pytest.raises(error, match="d_model must be a positive even integer"):
        build(d_model)


@pytest.mark.parametrize("build", TABLE_BUILDERS, ids=BUILDER_IDS)
@pytest.mark.parametrize(
    "base, error", [(1.0, ValueError), (0.5, ValueError), (-10.0, ValueError), (float("inf"), ValueError),
                    (float("nan"), ValueError), ("10000", TypeError)]
)
def test_base_must_be_finite_and_above_one(build, base, error):
    with pytest.raises(error, match="base must be a finite real number greater than 1"):
        build(8, base=base)


POSITION_BUILDERS = [
    lambda p: sinusoidal_encoding(p, 8),
    lambda p: torch_sinusoidal_encoding(p, 8),
    lambda p: reference_encoding(p, 8),
    lambda p: doubled_exponent_encoding(p, 8),
]


@pytest.mark.parametrize("build", POSITION_BUILDERS, ids=["numpy", "torch", "reference", "doubled"])
@pytest.mark.parametrize(
    "positions, error, message",
    [
        ([0, np.nan], ValueError, "positions must be finite"),
        ([np.inf], ValueError, "positions must be finite"),
        (np.zeros((2, 3)), ValueError, r"1-D array .* got an array of shape \(2, 3\)"),
        (5, ValueError, r"1-D array of positions such as np.arange\(seq_len\)"),
        ([True, False], TypeError, "real numbers"),
        (["a"], TypeError, "real numbers"),
        ([1 + 2j], TypeError, "real numbers"),
        ([2.0**60], ValueError, r"magnitude at most 2\*\*53"),
        (np.array([-(2**62)]), ValueError, r"magnitude at most 2\*\*53"),
        (np.arange(2**24, 2**24 + 3, dtype=np.float32), ValueError, "dtype float32, which holds every integer only below 16777216"),
        (np.array([3000.0], dtype=np.float16), ValueError, "dtype float16, which holds every integer only below 2048"),
    ],
)
def test_positions_must_be_finite_real_1d(build, positions, error, message):
    with pytest.raises(error, match=message):
        build(positions)


@pytest.mark.parametrize(
    "build",
    [lambda: sinusoidal_encoding([0], 4, layout="paper"), lambda: torch_sinusoidal_encoding([0], 4, layout="sincos"),
     lambda: layout_permutation(4, "interleaved", "split"), lambda: reference_encoding([0], 4, layout="")],
)
def test_unknown_layout(build):
    with pytest.raises(ValueError, match=r"layout must be one of \('interleaved', 'concatenated'\)"):
        build()


@pytest.mark.parametrize("dtype", [np.int32, np.complex64, "float128", object])
def test_numpy_dtype_must_be_a_float(dtype):
    with pytest.raises(TypeError, match="dtype must be one of float16, float32, float64"):
        sinusoidal_encoding([0], 4, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.int64, torch.complex64, np.float32])
def test_torch_dtype_must_be_a_float(dtype):
    with pytest.raises(TypeError, match="dtype must be one of torch.float16"):
        torch_sinusoidal_encoding([0], 4, dtype=dtype)


@pytest.mark.parametrize("seq_len, error", [(-1, ValueError), (2.5, TypeError)])
def test_loop_seq_len_must_be_a_count(seq_len, error):
    with pytest.raises(error, match="seq_len must be a non-negative integer"):
        loop_encoding(seq_len, 4)


@pytest.mark.parametrize(
    "kwargs, message",
    [({"max_len": 0}, "max_len must be a positive integer"), ({"max_len": 3.0}, "max_len must be a non-negative"),
     ({"max_len": 4, "dropout": 1.0}, r"dropout must be a probability in \[0, 1\)"),
     ({"max_len": 4, "dropout": -0.1}, "dropout must be a probability")],
)
def test_module_arguments(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        SinusoidalPositionalEncoding(8, **kwargs)


def test_reference_digits():
    with pytest.raises(ValueError, match="digits must be at least 20"):
        reference_encoding([0], 4, digits=10)


@pytest.mark.parametrize(
    "positions, message",
    [(torch.arange(250, 260, dtype=torch.bfloat16), "dtype bfloat16, which holds every integer only below 256"),
     (torch.tensor([3000.0], dtype=torch.float16), "dtype float16, which holds every integer only below 2048"),
     (torch.tensor([2.0**25], dtype=torch.float32), "dtype float32, which holds every integer only below 16777216")],
)
def test_torch_positions_beyond_their_dtype_are_refused(positions, message):
    with pytest.raises(ValueError, match=message):
        torch_sinusoidal_encoding(positions, 8)


def test_narrow_positions_within_their_range_are_accepted():
    expected = sinusoidal_encoding(np.arange(200), 8)
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        np.testing.assert_array_equal(
            torch_sinusoidal_encoding(torch.arange(200, dtype=dtype), 8, dtype=torch.float64).numpy(), expected
        )
