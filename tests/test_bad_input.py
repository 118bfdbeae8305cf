"""Every bad argument gets an error that names it and says what is allowed."""

import numpy as np
import pytest
import torch

from companion import (
    SinusoidalPositionalEncoding,
    angular_frequencies,
    apply_rotary,
    cosine_similarity,
    layout_permutation,
    loop_encoding,
    sinusoidal_encoding,
    torch_sinusoidal_encoding,
)
from companion.analysis.reference import reference_encoding
from companion.book.sources import doubled_exponent_encoding

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
        (np.arange(2**24, 2**24 + 3, dtype=np.float32), ValueError, "dtype float32, which holds every integer only up to 16777216"),
        (np.array([3000.0], dtype=np.float16), ValueError, "dtype float16, which holds every integer only up to 2048"),
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
    [({"max_len": 0}, "max_len must be a positive integer"), ({"max_len": 3.0}, "max_len must be a positive integer"),
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
    [(torch.arange(250, 260, dtype=torch.bfloat16), "dtype bfloat16, which holds every integer only up to 256"),
     (torch.tensor([3000.0], dtype=torch.float16), "dtype float16, which holds every integer only up to 2048"),
     (torch.tensor([2.0**25], dtype=torch.float32), "dtype float32, which holds every integer only up to 16777216")],
)
def test_torch_positions_beyond_their_dtype_are_refused(positions, message):
    with pytest.raises(ValueError, match=message):
        torch_sinusoidal_encoding(positions, 8)


def test_narrow_positions_within_their_range_are_accepted():
    expected = sinusoidal_encoding(np.arange(200), 8)
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        np.testing.assert_allclose(  # float64 rounding of angles below 200 radians
            torch_sinusoidal_encoding(torch.arange(200, dtype=dtype), 8, dtype=torch.float64).numpy(), expected,
            rtol=0, atol=1e-13)


# ---- issue 11: inputs that used to give a silently wrong result, or an unclear error


@pytest.mark.parametrize("dtype", [torch.float32, "flaot32", True, 1.5, "bfloat16", np.int64, "complex128"])
def test_a_dtype_numpy_cannot_read_is_refused_not_replaced_by_float64(dtype):
    with pytest.raises(TypeError, match="dtype must be one of float16, float32, float64"):
        sinusoidal_encoding([0, 1], 4, dtype=dtype)


def test_bfloat16_request_points_to_the_torch_builder():
    with pytest.raises(TypeError, match="bfloat16 tables are built by torch_sinusoidal_encoding"):
        sinusoidal_encoding([0], 4, dtype="bfloat16")


def test_none_dtype_means_float64():
    assert sinusoidal_encoding([0, 1], 4, dtype=None).dtype == np.float64


@pytest.mark.parametrize("build", [lambda p: sinusoidal_encoding(p, 8), lambda p: torch_sinusoidal_encoding(p, 8),
                                   lambda p: reference_encoding(p, 8)], ids=["numpy", "torch", "reference"])
def test_masked_positions_are_refused_rather_than_unmasked(build):
    positions = np.ma.masked_array([0, 1, 99], mask=[False, False, True])
    with pytest.raises(TypeError, match="positions is a masked array; its mask would be ignored"):
        build(positions)


@pytest.mark.parametrize("build", TABLE_BUILDERS, ids=BUILDER_IDS)
def test_a_base_beyond_floats_range_is_refused(build):
    with pytest.raises(ValueError, match="base must be a finite real number greater than 1"):
        build(8, base=10**400)


@pytest.mark.parametrize("d_model", [2**36, 2**50, 2**62])
def test_a_d_model_too_large_to_allocate_is_named(d_model):
    with pytest.raises(ValueError, match=f"d_model={d_model}"):
        sinusoidal_encoding([0, 1], d_model)


@pytest.mark.parametrize("positions", [[2**53 + 1], [2**64], [-(2**70)], np.array([2**63 - 1])])
def test_python_ints_beyond_2_53_are_refused(positions):
    for build in (lambda p: sinusoidal_encoding(p, 8), lambda p: torch_sinusoidal_encoding(p, 8)):
        with pytest.raises(ValueError, match=r"magnitude at most 2\*\*53"):
            build(positions)


def test_int64_tensor_positions_beyond_2_53_are_refused():
    with pytest.raises(ValueError, match=r"magnitude at most 2\*\*53"):
        torch_sinusoidal_encoding(torch.tensor([2**53 + 2]), 8)


def test_meta_positions_have_no_values_for_the_numpy_function():
    with pytest.raises(ValueError, match="positions is on the meta device and has no values"):
        sinusoidal_encoding(torch.arange(4, device="meta"), 8)


def test_tensor_positions_requiring_grad_are_accepted_by_the_numpy_function():
    positions = torch.arange(5, dtype=torch.float64, requires_grad=True)
    np.testing.assert_array_equal(sinusoidal_encoding(positions, 8), sinusoidal_encoding(np.arange(5), 8))


@pytest.mark.parametrize("layout", [None, 0, ["interleaved"], np.array(["interleaved"])])
def test_layout_must_be_a_string(layout):
    for build in (lambda: sinusoidal_encoding([0], 4, layout=layout), lambda: torch_sinusoidal_encoding([0], 4, layout=layout),
                  lambda: layout_permutation(4, layout, "interleaved")):
        with pytest.raises(TypeError, match="layout must be one of .* \\(a str\\)"):
            build()


@pytest.mark.parametrize("spacing, error", [("fairseq", ValueError), (None, TypeError)])
def test_spacing_must_be_known(spacing, error):
    for build in (lambda: sinusoidal_encoding([0], 4, spacing=spacing), lambda: angular_frequencies(4, spacing=spacing),
                  lambda: torch_sinusoidal_encoding([0], 4, spacing=spacing)):
        with pytest.raises(error, match="spacing must be one of"):
            build()


@pytest.mark.parametrize("x", [np.ones((1, 4), dtype=complex), torch.ones(1, 4, dtype=torch.complex64),
                               torch.ones(1, 4, dtype=torch.int64), np.array([["a", "b"]])])
def test_apply_rotary_refuses_what_is_not_real(x):
    with pytest.raises(TypeError, match="x must"):
        apply_rotary(x, [0])


@pytest.mark.parametrize("a, b", [([1j, 0], [1, 0]), (["a", "b"], [1, 2]), (np.ma.masked_array([1, 2], [0, 1]), [1, 2])])
def test_cosine_similarity_refuses_what_is_not_real(a, b):
    with pytest.raises(TypeError):
        cosine_similarity(a, b)


# ---- issue 19: inputs that met another library's error instead of the package's own


@pytest.mark.parametrize("offset", [2**63, 10**30, -(2**62), 2**53])
def test_an_offset_beyond_2_53_is_refused_naming_positions(offset):
    with pytest.raises(ValueError, match=r"positions \(an offset\) must keep every position within magnitude 2\*\*53"):
        SinusoidalPositionalEncoding(8, 4)(torch.zeros(1, 3, 8), positions=offset)


def test_position_ids_beyond_2_53_are_refused():
    with pytest.raises(ValueError, match=r"positions must have magnitude at most 2\*\*53"):
        SinusoidalPositionalEncoding(8, 4)(torch.zeros(1, 2, 8), positions=torch.tensor([0, 2**60]))


def test_position_ids_on_the_meta_device_with_real_x_are_refused():
    with pytest.raises(ValueError, match="positions is on the meta device and x on the cpu device"):
        SinusoidalPositionalEncoding(8, 4)(torch.zeros(1, 3, 8), positions=torch.arange(3, device="meta"))


def test_a_0d_tensor_offset_is_an_offset():
    layer = SinusoidalPositionalEncoding(8, 4)
    x = torch.randn(2, 3, 8)
    assert torch.equal(layer(x, positions=torch.tensor(7)), layer(x, positions=7))


def test_a_cache_too_large_to_allocate_gets_the_packages_message():
    with pytest.raises(ValueError, match=r"a table of 1000000000 positions x d_model=1024 \(3\.81e\+03 GiB\) is too large"):
        SinusoidalPositionalEncoding(1024, 10**9)
    with pytest.raises(ValueError, match="too large to allocate"):
        SinusoidalPositionalEncoding(1024, 2**40)


NUMPY_ONLY = """
import sys
sys.modules["torch"] = None  # a numpy-only install
import companion
from companion import *
assert "sinusoidal_encoding" in dir() and "SinusoidalPositionalEncoding" not in dir()
assert not hasattr(companion, "SinusoidalPositionalEncoding") and getattr(companion, "round_to_dtype", None) is None
try:
    from companion import SinusoidalPositionalEncoding
except ImportError as error:
    print(error)
"""


def test_a_numpy_only_install_has_no_torch_names_and_says_what_to_install():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", NUMPY_ONLY], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("the companion needs torch >= 2.1, which is not installed"), result.stdout
