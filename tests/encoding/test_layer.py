import math
import warnings

import numpy as np
import pytest
import torch

from companion import SinusoidalPositionalEncoding, round_to_dtype, sinusoidal_encoding, torch_sinusoidal_encoding
from companion.analysis.reference import reference_encoding


def test_forward_scales_embeddings_and_adds_the_table():
    torch.manual_seed(0)
    layer = SinusoidalPositionalEncoding(d_model=16, max_len=32)
    x = torch.randn(3, 10, 16)
    expected = x * math.sqrt(16) + torch_sinusoidal_encoding(torch.arange(10), 16)
    torch.testing.assert_close(layer(x), expected, rtol=0, atol=0)


def test_table_is_a_non_persistent_buffer():
    layer = SinusoidalPositionalEncoding(8, 20)
    assert "pe" in dict(layer.named_buffers())
    assert "pe" not in layer.state_dict()
    assert list(layer.parameters()) == []
    # a checkpoint loads into a module built for another max_len
    SinusoidalPositionalEncoding(8, 50).load_state_dict(layer.state_dict())


def test_buffer_follows_dtype_changes_and_output_keeps_input_dtype():
    layer = SinusoidalPositionalEncoding(8, 20).to(torch.float64)
    assert layer.pe.dtype == torch.float64
    assert layer(torch.zeros(1, 4, 8, dtype=torch.float64)).dtype == torch.float64
    assert SinusoidalPositionalEncoding(8, 20)(torch.zeros(1, 4, 8, dtype=torch.float16)).dtype == torch.float16


def test_dropout_acts_in_training_only():
    torch.manual_seed(0)
    layer = SinusoidalPositionalEncoding(64, 128, dropout=0.5)
    x = torch.randn(4, 100, 64)
    train_out = layer.train()(x)
    assert 0.4 < (train_out == 0).float().mean().item() < 0.6
    eval_out = layer.eval()(x)
    torch.testing.assert_close(eval_out, x * 8 + layer.pe[:100])


def test_gradients_flow_to_the_input_only():
    layer = SinusoidalPositionalEncoding(4, 8)
    x = torch.ones(1, 3, 4, requires_grad=True)
    layer(x).sum().backward()
    torch.testing.assert_close(x.grad, torch.full_like(x, 2.0))
    assert not layer.pe.requires_grad


def test_repr_names_the_settings():
    assert repr(SinusoidalPositionalEncoding(8, 20)).startswith(
        "SinusoidalPositionalEncoding(\n  d_model=8, max_len=20, base=10000, scale=True, batch_first=True, "
        "layout='interleaved', spacing='paper'"
    )


@pytest.mark.parametrize(
    "shape, message",
    [((2, 5, 6), "last dimension d_model=8"), ((5, 8), r"\(batch, seq_len, d_model\)")],
)
def test_forward_rejects_bad_shapes(shape, message):
    with pytest.raises(ValueError, match=message):
        SinusoidalPositionalEncoding(8, 20)(torch.zeros(shape))


# ---- positions: offsets for cached decoding, position ids, beyond the cache


def test_decoding_one_token_at_a_time_with_an_offset_equals_the_full_sequence():
    torch.manual_seed(0)
    layer = SinusoidalPositionalEncoding(32, max_len=64).eval()
    x = torch.randn(3, 20, 32)
    full = layer(x)
    steps = torch.cat([layer(x[:, t : t + 1], positions=t) for t in range(20)], dim=1)
    assert torch.equal(steps, full)
    # a prompt of 12, then the rest one token at a time
    prompt = layer(x[:, :12])
    rest = torch.cat([layer(x[:, t : t + 1], positions=t) for t in range(12, 20)], dim=1)
    assert torch.equal(torch.cat([prompt, rest], dim=1), full)


def test_position_ids_per_row_express_left_padding_and_packed_sequences():
    torch.manual_seed(1)
    layer = SinusoidalPositionalEncoding(16, max_len=32, scale=False)
    x = torch.zeros(2, 6, 16)
    # row 0: two pad tokens on the left, then positions 0..3; row 1: two packed sequences of 3
    ids = torch.tensor([[0, 0, 0, 1, 2, 3], [0, 1, 2, 0, 1, 2]])
    out = layer(x, positions=ids)
    table = torch_sinusoidal_encoding(torch.arange(4), 16)
    torch.testing.assert_close(out[0, 2:], table[[0, 1, 2, 3]], rtol=0, atol=0)
    torch.testing.assert_close(out[1], table[[0, 1, 2, 0, 1, 2]], rtol=0, atol=0)
    shared = layer(x, positions=torch.arange(6))  # one row of ids for the whole batch
    torch.testing.assert_close(shared, torch_sinusoidal_encoding(torch.arange(6), 16).expand(2, 6, 16), rtol=0, atol=0)


def test_seq_first_inputs_get_the_encoding_by_time_step_not_by_batch_index():
    torch.manual_seed(2)
    x = torch.randn(7, 3, 16)  # (seq_len, batch, d_model), nn.Transformer's default
    seq_first = SinusoidalPositionalEncoding(16, max_len=10, batch_first=False)
    batch_first = SinusoidalPositionalEncoding(16, max_len=10)
    torch.testing.assert_close(seq_first(x), batch_first(x.transpose(0, 1)).transpose(0, 1), rtol=0, atol=0)
    ids = torch.tensor([[3, 4, 5, 6, 7, 8, 9]] * 3)  # (batch, seq_len) ids with seq-first x
    torch.testing.assert_close(seq_first(x, positions=ids), batch_first(x.transpose(0, 1), positions=ids).transpose(0, 1),
                               rtol=0, atol=0)
    # the whole point: consecutive time steps get different vectors
    out = seq_first(torch.zeros(7, 3, 16))
    assert not torch.equal(out[0], out[1]) and torch.equal(out[:, 0], out[:, 2])


def test_positions_beyond_max_len_are_computed_with_the_same_accuracy():
    layer = SinusoidalPositionalEncoding(64, max_len=8, scale=False)
    out = layer(torch.zeros(1, 30, 64), positions=1000)
    reference = torch.from_numpy(reference_encoding(np.arange(1000, 1030), 64))
    assert (out[0].double() - reference).abs().max() <= 2.0**-25 + 1e-12  # correctly rounded float32
    uncached = SinusoidalPositionalEncoding(64, scale=False)  # max_len=None: no cache at all
    assert uncached.pe.shape == (0, 64)
    torch.testing.assert_close(uncached(torch.zeros(1, 30, 64), positions=1000), out, rtol=0, atol=0)


def test_scale_false_adds_the_encoding_to_embeddings_that_are_already_scaled():
    x = torch.randn(2, 5, 8)
    layer = SinusoidalPositionalEncoding(8, 16, scale=False)
    torch.testing.assert_close(layer(x), x + layer.pe[:5], rtol=0, atol=0)


# ---- dtypes, devices, meta


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_moving_to_another_dtype_rebuilds_the_table_correctly_rounded(dtype):
    layer = SinusoidalPositionalEncoding(512, 4096).to(dtype)
    assert layer.pe.dtype == dtype
    if dtype == torch.float64:  # not the float32 table cast (3e-8 off): float64 rounding of angles below 4096
        reference = torch.from_numpy(sinusoidal_encoding(np.arange(4096), 512))
        assert (layer.pe - reference).abs().max() < 1e-12
        return
    # half formats: the correctly rounded values, not float32's rounded again
    reference = torch_sinusoidal_encoding(torch.arange(4096), 512, dtype=torch.float64)
    torch.testing.assert_close(layer.pe, round_to_dtype(reference, dtype), rtol=0, atol=0)
    assert (layer.pe != SinusoidalPositionalEncoding(512, 4096).pe.to(dtype)).sum() > 0  # casting would differ
    assert torch.equal(SinusoidalPositionalEncoding(8, 16).half().pe, SinusoidalPositionalEncoding(8, 16, dtype=torch.float16).pe)


def test_float64_table_is_exact_to_float64_rounding():
    layer = SinusoidalPositionalEncoding(64, 300, dtype=torch.float64)
    errors = np.abs(layer.pe.numpy() - reference_encoding(np.arange(300), 64)).max(axis=1)
    # a float64 angle p * omega carries a rounding of about p * 1.1e-16; nothing else is lost
    assert np.all(errors <= 2.3e-16 * (1 + np.arange(300)))


def test_inputs_in_another_dtype_get_rows_rounded_in_their_dtype():
    layer = SinusoidalPositionalEncoding(64, 100, scale=False)  # float32 cache
    out = layer(torch.zeros(1, 50, 64, dtype=torch.float16))
    assert out.dtype == torch.float16
    torch.testing.assert_close(out[0], torch_sinusoidal_encoding(torch.arange(50), 64, dtype=torch.float16), rtol=0, atol=0)


def test_meta_construction_then_materialisation():
    with torch.device("meta"):
        layer = SinusoidalPositionalEncoding(16, max_len=32)
    assert layer.pe.is_meta and layer(torch.zeros(2, 5, 16, device="meta")).is_meta
    layer.to_empty(device="cpu")
    layer.reset_parameters()
    torch.testing.assert_close(layer.pe, SinusoidalPositionalEncoding(16, max_len=32).pe, rtol=0, atol=0)
    meta = SinusoidalPositionalEncoding(16, max_len=32, device="meta")
    assert meta.pe.is_meta
    assert meta(torch.zeros(1, 40, 16, device="meta"), positions=5).shape == (1, 40, 16)  # beyond the cache too


def test_reset_parameters_rebuilds_a_corrupted_buffer():
    layer = SinusoidalPositionalEncoding(8, 10)
    expected = layer.pe.clone()
    layer.pe.zero_()
    layer.reset_parameters()
    assert torch.equal(layer.pe, expected)


def test_torchscript_is_refused_with_a_clear_message():
    with warnings.catch_warnings():  # recent torch deprecates torch.jit.script itself; older versions do not
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="does not support TorchScript"):
            torch.jit.script(SinusoidalPositionalEncoding(8, 10))


def test_inside_a_transformer_encoder_with_the_default_seq_first_layout():
    torch.manual_seed(3)
    embedding = torch.nn.Embedding(50, 32)
    layer = SinusoidalPositionalEncoding(32, 64, batch_first=False)
    encoder = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0), num_layers=1,
                                          enable_nested_tensor=False).eval()
    tokens = torch.randint(0, 50, (10, 2))  # (seq_len, batch)
    out = encoder(layer(embedding(tokens)))
    assert out.shape == (10, 2, 32)
    swapped = encoder(layer(embedding(tokens.flip(0))))  # the same tokens, reversed
    assert not torch.allclose(out.flip(0), swapped, atol=1e-4)  # order matters now


def test_compiles_with_fullgraph():
    layer = SinusoidalPositionalEncoding(16, 32).eval()
    compiled = torch.compile(layer, fullgraph=True, backend="eager")
    x = torch.randn(2, 9, 16)
    torch.testing.assert_close(compiled(x), layer(x), rtol=0, atol=0)
    torch.testing.assert_close(compiled(x, positions=3), layer(x, positions=3), rtol=0, atol=0)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda layer: layer(torch.zeros(1, 3, 8, dtype=torch.int64)), TypeError, "x must be a real floating tensor"),
        (lambda layer: layer(torch.zeros(1, 3, 8, dtype=torch.complex64)), TypeError, "x must be a real floating tensor"),
        (lambda layer: layer(torch.zeros(1, 3, 8), positions=torch.zeros(3)), TypeError, "integer tensor of position ids"),
        (lambda layer: layer(torch.zeros(1, 3, 8), positions=2.5), TypeError, "positions must be None, an int offset"),
        (lambda layer: layer(torch.zeros(2, 3, 8), positions=torch.zeros(3, 3, dtype=torch.long)), ValueError,
         r"shape \(seq_len,\) = \(3,\) or \(batch, seq_len\) = \(2, 3\)"),
    ],
)
def test_forward_refuses_what_it_cannot_encode(call, error, message):
    with pytest.raises(error, match=message):
        call(SinusoidalPositionalEncoding(8, 10))


@pytest.mark.parametrize(
    "kwargs, error, message",
    [({"scale": 1}, TypeError, "scale must be True or False"), ({"batch_first": "yes"}, TypeError, "batch_first must be"),
     ({"spacing": "fairseq"}, ValueError, "spacing must be one of"), ({"layout": 0}, TypeError, "layout must be one of"),
     ({"dtype": torch.int32}, TypeError, "dtype must be one of torch.float16")],
)
def test_constructor_refuses_bad_options(kwargs, error, message):
    with pytest.raises(error, match=message):
        SinusoidalPositionalEncoding(8, 10, **kwargs)


def test_numpy_scalars_are_accepted_as_dropout():
    assert SinusoidalPositionalEncoding(8, 10, dropout=np.float32(0.1)).dropout.p == pytest.approx(0.1)


def test_exports_with_torch_export():
    layer = SinusoidalPositionalEncoding(16, 32).eval()
    x = torch.randn(2, 9, 16)
    exported = torch.export.export(layer, (x,))
    torch.testing.assert_close(exported.module()(x), layer(x), rtol=0, atol=0)


# ---- the cache of max_len=None grows, as fairseq's table does; the rows are the same either way


def test_max_len_none_grows_its_cache_to_what_is_asked_and_keeps_it_out_of_the_state_dict():
    grown, fixed = SinusoidalPositionalEncoding(32, scale=False), SinusoidalPositionalEncoding(32, 4096, scale=False)
    x = torch.zeros(2, 100, 32)
    assert torch.equal(grown(x), fixed(x)) and grown.pe.shape == (100, 32)
    assert torch.equal(grown(x[:, :20], positions=150), fixed(x[:, :20], positions=150)) and grown.pe.shape[0] == 200
    ids = torch.tensor([[0, 5, 900], [3, 2, 1]])  # ids grow it too (doubling)
    assert torch.equal(grown(x[:, :3], positions=ids), fixed(x[:, :3], positions=ids)) and grown.pe.shape[0] == 901
    assert torch.equal(grown.pe, fixed.pe[:901])  # the same bits as a cache built at once
    assert sorted(grown.state_dict()) == ["_extra_state"]


def test_the_grown_cache_stops_at_its_limit_and_farther_rows_are_computed():
    from companion.encoding.layer import GROWN_CACHE_ENTRIES

    layer = SinusoidalPositionalEncoding(2048, scale=False)
    limit = GROWN_CACHE_ENTRIES // 2048
    out = layer(torch.zeros(1, 2, 2048), positions=limit + 5)
    assert layer.pe.shape[0] == 0  # past the limit: computed, not cached
    reference = torch.from_numpy(reference_encoding(np.arange(limit + 5, limit + 7), 2048))
    assert (out[0].double() - reference).abs().max() <= 2.0**-25 + 1e-12


def test_rows_by_id_by_offset_and_from_the_cache_are_the_same():
    layer = SinusoidalPositionalEncoding(64, 128, scale=False)
    x = torch.zeros(1, 300, 64)
    by_offset = layer(x, positions=90)  # rows 90 .. 127 from the cache, 128 .. 389 computed
    by_id = layer(x, positions=torch.arange(90, 390))
    by_function = torch_sinusoidal_encoding(torch.arange(90, 390), 64)
    assert torch.equal(by_offset[0], by_id[0]) and torch.equal(by_id[0], by_function)


def test_a_step_inside_the_cache_is_a_view_of_it():
    layer = SinusoidalPositionalEncoding(16, 32, scale=False).eval()
    step = layer(torch.zeros(1, 1, 16), positions=7)
    assert torch.equal(step[0, 0], layer.pe[7])


# ---- position ids of every integer dtype, and (1, seq_len) for the whole batch


INTEGER_DTYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.uint16, torch.uint32,
                  torch.uint64]


@pytest.mark.parametrize("max_len", [16, None])
@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=str)
def test_position_ids_of_every_integer_dtype_give_the_rows_of_their_values(dtype, max_len):
    # uint8 indices are a boolean mask to torch, int8 and int16 are no indices at all: the layer converts them
    layer = SinusoidalPositionalEncoding(8, max_len, scale=False)
    values = torch.tensor([[3, 0, 1, 2, 120], [5, 4, 3, 2, 1]])  # 120: past max_len=16
    expected = torch_sinusoidal_encoding(values.flatten(), 8).reshape(2, 5, 8)
    x = torch.zeros(2, 5, 8)
    assert torch.equal(layer(x, positions=values.to(dtype)), expected)
    assert torch.equal(layer(x, positions=values[1].to(dtype)), expected[1].expand(2, 5, 8))  # (seq_len,)
    assert torch.equal(layer(x, positions=torch.tensor(2, dtype=dtype)), layer(x, positions=2))  # a 0-d offset


def test_uint64_ids_that_int64_cannot_hold_are_refused_not_wrapped():
    ids = torch.tensor([0, 2**64 - 1], dtype=torch.uint64)  # would become position -1 as int64
    with pytest.raises(ValueError, match=r"positions must have magnitude at most 2\*\*53.*torch.uint64 values"):
        SinusoidalPositionalEncoding(8, 4)(torch.zeros(1, 2, 8), positions=ids)


@pytest.mark.parametrize("batch_first", [True, False])
def test_ids_of_shape_1_by_seq_len_serve_the_whole_batch(batch_first):
    # what Hugging Face models pass as position_ids: (1, seq_len), for a batch of any size
    torch.manual_seed(4)
    layer = SinusoidalPositionalEncoding(16, 32, batch_first=batch_first)
    x = torch.randn(3, 7, 16) if batch_first else torch.randn(7, 3, 16)
    ids = torch.arange(10, 17)[None]
    rows = torch_sinusoidal_encoding(torch.arange(10, 17), 16)
    expected = x * 4 + (rows if batch_first else rows[:, None])
    assert torch.equal(layer(x, positions=ids), expected)
    assert torch.equal(layer(x, positions=ids.to(torch.int32)), expected)


def test_boolean_ids_are_refused_as_a_mask_not_positions():
    with pytest.raises(TypeError, match=r"positions must be an integer tensor.*bool is a mask.*torch.bool"):
        SinusoidalPositionalEncoding(8, 4)(torch.zeros(1, 3, 8), positions=torch.tensor([True, False, True]))
