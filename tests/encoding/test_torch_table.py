import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from companion import SinusoidalPositionalEncoding, angular_frequencies, sinusoidal_encoding, torch_sinusoidal_encoding
from companion.analysis.reference import half_ulp, reference_encoding
from companion.encoding.recipes import fairseq_encoding
from companion.encoding.torch_table import round_to_dtype, torch_angular_frequencies


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
    if numpy_dtype == np.float64:
        # two float64 computations (direct, and by angle addition): each within float64 rounding of
        # the angle, about p * 1.1e-16, of the 40-digit reference
        reference = reference_encoding(positions, 64, layout=layout)
        for table in (got.numpy(), expected):
            assert np.all(np.abs(table - reference).max(axis=1) <= 2.3e-16 * (1 + positions))
    else:  # rounded once from float64: equal (a few float64 ulps flip a rounding only within 1e-16 of a tie)
        np.testing.assert_array_equal(got.numpy(), expected)


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


# ---- on-device torch: no numpy, compiles, differentiable, lean


def test_computes_with_torch_alone_on_the_positions_device(monkeypatch):
    import companion.encoding.torch_table as torch_table

    def no_numpy(*args, **kwargs):
        raise AssertionError("tensor positions went through numpy")

    monkeypatch.setattr(torch_table, "check_positions", no_numpy)
    table = torch_table.torch_sinusoidal_encoding(torch.arange(50), 32)
    torch.testing.assert_close(table, torch.from_numpy(sinusoidal_encoding(np.arange(50), 32, dtype=np.float32)),
                               rtol=0, atol=0)
    meta = torch_table.torch_sinusoidal_encoding(torch.arange(50, device="meta"), 32)
    assert meta.is_meta and meta.shape == (50, 32)
    assert torch_table.torch_sinusoidal_encoding(torch.arange(5), 8, device="meta").is_meta


def test_compiles_with_fullgraph_and_gives_the_same_table():
    compiled = torch.compile(torch_sinusoidal_encoding, fullgraph=True, backend="eager", dynamic=False)
    positions = torch.arange(100)
    for dtype in (torch.float32, torch.bfloat16):
        torch.testing.assert_close(compiled(positions, 64, dtype=dtype), torch_sinusoidal_encoding(positions, 64, dtype=dtype),
                                   rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16])
def test_differentiable_in_the_positions(dtype):
    positions = torch.tensor([0.0, 3.0, 1000.0], dtype=torch.float64, requires_grad=True)
    table = torch_sinusoidal_encoding(positions, 8, dtype=dtype)
    assert table.requires_grad and table.dtype == dtype
    table[:, 0].sum().backward()  # column 0 is sin(p): its derivative is cos(p)
    torch.testing.assert_close(positions.grad, torch.cos(positions.detach()), rtol=1e-12, atol=0)
    torch.testing.assert_close(table.detach(), torch_sinusoidal_encoding(positions.detach(), 8, dtype=dtype), rtol=0, atol=0)


PEAK_MEMORY = """
import sys, torch
from companion import torch_sinusoidal_encoding
dtype = getattr(torch, sys.argv[1])
torch_sinusoidal_encoding(torch.arange(64), 512, dtype=dtype)  # warm up: kernels, thread pool
positions = torch.arange(2**16)
def status(key):
    return int(next(line for line in open("/proc/self/status") if line.startswith(key)).split()[1]) * 1024
open("/proc/self/clear_refs", "w").write("5")  # reset the peak resident size
before = status("VmRSS:")
table = torch_sinusoidal_encoding(positions, 512, dtype=dtype)
print((status("VmHWM:") - before) / (table.numel() * table.element_size()))
"""


@pytest.mark.parametrize("dtype, bound", [("float32", 1.1), ("float16", 2.0), ("bfloat16", 2.0)])
def test_peak_memory_stays_close_to_the_output(dtype, bound):
    # Large blocks are mmapped and handed back when freed, so the resident size follows live memory
    # (otherwise glibc may keep freed blocks of the process resident, and the figure would vary).
    environment = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(2**16)}
    result = subprocess.run([sys.executable, "-c", PEAK_MEMORY, dtype], capture_output=True, text=True, env=environment)
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) <= bound, result.stdout  # peak resident growth / size of the table


# ---- spacing: tensor2tensor's, fairseq's and M2M100's frequencies


def test_tensor2tensor_spacing_is_fairseqs_formula():
    for d_model in (4, 64, 512, 1024):
        half = d_model // 2
        fairseq = np.exp(np.arange(half) * -(math.log(10_000) / (half - 1)))  # fairseq get_embedding, in float64
        np.testing.assert_allclose(angular_frequencies(d_model, spacing="tensor2tensor"), fairseq, rtol=4e-15, atol=0)
        np.testing.assert_allclose(torch_angular_frequencies(d_model, spacing="tensor2tensor").numpy(), fairseq,
                                   rtol=4e-15, atol=0)
    assert angular_frequencies(512, spacing="tensor2tensor")[-1] == pytest.approx(1e-4, rel=1e-15)


def test_concatenated_tensor2tensor_table_is_fairseqs_up_to_its_float32_rounding():
    positions = torch.arange(2048)
    ours = torch_sinusoidal_encoding(positions, 512, layout="concatenated", spacing="tensor2tensor")
    fairseq = fairseq_encoding(positions, 512)  # faithful port of fairseq's get_embedding (float32)
    # fairseq rounds each angle to float32, so the two differ by about |p| * 2**-24
    assert (ours - fairseq).abs().max() < 2047 * 2.0**-24 * 4
    paper = torch_sinusoidal_encoding(positions, 512, layout="concatenated")
    assert (paper - fairseq).abs().max() > 1.9  # the paper's spacing is another table


def make_positions(tokens, padding_idx, past_key_values_length=0):
    """fairseq's utils.make_positions (and M2M100's create_position_ids_from_input_ids), verbatim in effect."""
    mask = tokens.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) + past_key_values_length) * mask + padding_idx


def test_fairseq_padding_idx_offset_maps_onto_positions():
    # fairseq numbers real tokens from padding_idx + 1 and gives padding the zeroed row padding_idx;
    # the same vectors come from the layer with positions = make_positions(...)
    padding_idx, d_model = 1, 16
    tokens = torch.tensor([[1, 1, 5, 6, 7], [5, 6, 7, 8, 9]])  # left padding in the first row
    ids = make_positions(tokens, padding_idx)
    assert ids.tolist() == [[1, 1, 2, 3, 4], [2, 3, 4, 5, 6]]
    fairseq_table = fairseq_encoding(torch.arange(10), d_model)
    fairseq_table[padding_idx] = 0
    fairseq_out = fairseq_table[ids]
    layer = SinusoidalPositionalEncoding(d_model, scale=False, layout="concatenated", spacing="tensor2tensor")
    ours = layer(torch.zeros(2, 5, d_model), positions=ids)
    real = tokens.ne(padding_idx)
    torch.testing.assert_close(ours[real], fairseq_out[real], rtol=0, atol=1e-6)
    # M2M100 adds past_key_values_length when decoding with a cache: an offset of the ids
    # (on the row without padding: HF counts the cached pad tokens in past_key_values_length too)
    step = make_positions(tokens[1:, -1:], padding_idx, past_key_values_length=4)
    torch.testing.assert_close(layer(torch.zeros(1, 1, d_model), positions=step), ours[1:, -1:], rtol=0, atol=0)


@pytest.mark.parametrize("bad, error, message", [
    (torch.int8, TypeError, "dtype must be one of torch.float16"),
    ("float16", TypeError, "dtype must be one of torch.float16"),
])
def test_round_to_dtype_refuses_non_float_targets(bad, error, message):
    with pytest.raises(error, match=message):
        round_to_dtype(torch.tensor([0.5], dtype=torch.float64), bad)


def test_round_to_dtype_refuses_non_float_input():
    with pytest.raises(TypeError, match="table must be a real floating tensor"):
        round_to_dtype(torch.tensor([1, 2]), torch.float16)
