import math

import pytest
import torch

from companion import SinusoidalPositionalEncoding, torch_sinusoidal_encoding


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
        "SinusoidalPositionalEncoding(\n  d_model=8, max_len=20, base=10000"
    )


@pytest.mark.parametrize(
    "shape, message",
    [((2, 5, 6), "last dimension d_model=8"), ((5, 8), r"\(batch, seq_len, d_model\)"), ((1, 21, 8), "max_len=20")],
)
def test_forward_rejects_bad_shapes(shape, message):
    with pytest.raises(ValueError, match=message):
        SinusoidalPositionalEncoding(8, 20)(torch.zeros(shape))
