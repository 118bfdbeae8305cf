import numpy as np
import pytest
import torch

from companion import sinusoidal_encoding, torch_sinusoidal_encoding
from companion.torch_encoding import round_to_dtype
from companion.reference import half_ulp, reference_encoding


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize(
    "torch_dtype, numpy_dtype",
    [(torch.float64, np.float64), (torch.float32, np.float32), (torch.float16, np.float16)],
)
def test_same_values_as_numpy(layout, torch_dtype, numpy_dtype):
    positions = np.arange(300)
    expected = sinusoidal_encoding(positions, 64, layout=layout, dtype=numpy_dtype)
    got = torch_sinusoidal_encoding(torch.arange(300), 64, layout=layout, dtype=torch_dtype)
    assert got.dtype == torch_dtype and got.shape == (300, 64)
    np.testing.assert_allclose(got.numpy(), expected, rtol=0, atol=2e-16 if numpy_dtype == np.float64 else 0)


def test_default_is_float32_on_cpu():
    table = torch_sinusoidal_encoding(torch.arange(4), 8)
    assert table.dtype == torch.float32 and table.device.type == "cpu"


def test_accepts_numpy_and_tensor_positions_alike():
    torch.testing.assert_close(
        torch_sinusoidal_encoding(np.array([3, 5]), 6), torch_sinusoidal_encoding(torch.tensor([3, 5]), 6)
    )


def test_float32_torch_table_is_correctly_rounded():
    positions = [0, 3, 10**4, 10**6]
    reference = reference_encoding(positions, 128)
    table = torch_sinusoidal_encoding(positions, 128).double().numpy()
    assert np.all(np.abs(table - reference) <= half_ulp(reference, np.float32) + 1e-9)


def test_half_formats_are_rounded_once_to_nearest():
    values = torch.from_numpy(np.random.default_rng(0).uniform(-1, 1, 10**6) * np.logspace(-9, 0, 10**6))
    np.testing.assert_array_equal(
        round_to_dtype(values, torch.float16).double().numpy(), values.numpy().astype(np.float16).astype(np.float64)
    )
    # bfloat16: 8 significant bits, so a correctly rounded value is within 2**-9 of |x| rounded down to a power of 2
    rounded = round_to_dtype(values, torch.bfloat16).double()
    half_ulp_bf16 = torch.exp2(torch.floor(torch.log2(values.abs())) - 8)
    assert torch.all((rounded - values).abs() <= half_ulp_bf16)
    assert torch.sum(values.to(torch.bfloat16).double() != rounded) > 0  # torch's own cast misses some


def test_bfloat16_table_is_correctly_rounded():
    positions = [0, 1, 7, 1000, 123_457]
    reference = torch.from_numpy(reference_encoding(positions, 32))
    table = torch_sinusoidal_encoding(positions, 32, dtype=torch.bfloat16)
    torch.testing.assert_close(table, round_to_dtype(reference, torch.bfloat16), rtol=0, atol=0)
