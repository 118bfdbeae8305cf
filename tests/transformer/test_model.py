import math

import pytest
import torch

from companion import SinusoidalPositionalEncoding, apply_rotary, torch_sinusoidal_encoding
from companion.transformer.model import SelfAttention, SmallTransformer
from companion.transformer.positions import POSITION_SCHEMES, LearnableFrequencyEncoding, LearnedPositionalEmbedding


def build(scheme, *, causal=True, dtype=torch.float64, seed=0, **options):
    torch.manual_seed(seed)
    return SmallTransformer(20, 5, scheme=scheme, causal=causal, max_len=2000, **options).to(dtype).eval()


@pytest.fixture
def tokens():
    return torch.randint(0, 20, (3, 12), generator=torch.Generator().manual_seed(1))


@pytest.mark.parametrize("scheme", ["rotary", "alibi", "none"])
@pytest.mark.parametrize("shift", [1, 25, 1000])
def test_relative_schemes_logits_are_unchanged_when_every_position_shifts(scheme, shift, tokens):
    model = build(scheme, num_layers=2)
    logits = model.attention_logits(tokens)
    shifted = model.attention_logits(tokens, positions=shift)
    torch.testing.assert_close(shifted, logits, rtol=0, atol=1e-10)
    torch.testing.assert_close(model(tokens, positions=shift), model(tokens), rtol=0, atol=1e-10)


@pytest.mark.parametrize("scheme", ["sinusoidal", "learned"])
def test_absolute_schemes_logits_change_when_every_position_shifts(scheme, tokens):
    model = build(scheme)
    difference = (model.attention_logits(tokens, positions=25) - model.attention_logits(tokens)).nan_to_num()
    assert difference.abs().max() > 1e-2


def test_rotary_in_float32_stays_relative_to_rounding():
    model = build("rotary", dtype=torch.float32)
    tokens = torch.randint(0, 20, (2, 16), generator=torch.Generator().manual_seed(2))
    logits, shifted = model.attention_logits(tokens), model.attention_logits(tokens, positions=48)
    torch.testing.assert_close(shifted, logits, rtol=0, atol=1e-4)


def test_rotary_rotates_queries_and_keys_with_the_companions_apply_rotary():
    torch.manual_seed(3)
    attention = SelfAttention(16, 2, scheme="rotary", causal=False).double()
    x, positions = torch.randn(1, 5, 16, dtype=torch.float64), torch.arange(5)
    q, k, _ = attention.qkv(x).view(1, 5, 3, 2, 8).permute(2, 0, 3, 1, 4)
    expected = apply_rotary(q, positions) @ apply_rotary(k, positions).transpose(-1, -2) / math.sqrt(8)
    torch.testing.assert_close(attention.logits(x, positions), expected)


def test_alibi_logits_are_the_content_logits_plus_the_linear_bias():
    torch.manual_seed(4)
    alibi = SelfAttention(16, 4, scheme="alibi").double()
    plain = SelfAttention(16, 4, scheme="none").double()
    plain.load_state_dict(alibi.state_dict())
    x, positions = torch.randn(1, 6, 16, dtype=torch.float64), torch.arange(6)
    difference = alibi.logits(x, positions) - plain.logits(x, positions)
    i, j = torch.meshgrid(positions, positions, indexing="ij")
    for head, slope in enumerate([1 / 4, 1 / 16, 1 / 64, 1 / 256]):
        torch.testing.assert_close(difference[0, head][j <= i], (-slope * (i - j))[j <= i].double())


def test_the_sinusoidal_scheme_uses_the_companions_layer(tokens):
    model = build("sinusoidal", base=100.0)
    assert isinstance(model.positional, SinusoidalPositionalEncoding)
    assert not model.positional.scale and model.positional.base == 100.0
    x, _ = model._embed(tokens, None)
    expected = model.embedding(tokens) + torch_sinusoidal_encoding(torch.arange(12), 32, base=100.0,
                                                                   dtype=torch.float64)
    torch.testing.assert_close(x, expected, rtol=0, atol=0)
    learnable = build("sinusoidal", learn_frequencies=True)
    assert isinstance(learnable.positional, LearnableFrequencyEncoding)
    assert isinstance(build("learned").positional, LearnedPositionalEmbedding)
    assert build("rotary").positional is None and build("alibi").positional is None


def test_the_learned_model_refuses_sequences_beyond_its_table():
    model = SmallTransformer(20, 5, scheme="learned", max_len=16)
    model(torch.zeros(1, 16, dtype=torch.long))
    with pytest.raises(ValueError, match="position 16 is beyond the learned table of max_len=16 rows"):
        model(torch.zeros(1, 17, dtype=torch.long))


@pytest.mark.parametrize("scheme", POSITION_SCHEMES)
@pytest.mark.parametrize("causal", [True, False])
def test_scaled_dot_product_attention_matches_the_explicit_weights(scheme, causal):
    torch.manual_seed(5)
    attention = SelfAttention(16, 2, scheme=scheme, causal=causal).double()
    x, positions = torch.randn(2, 7, 16, dtype=torch.float64), torch.arange(7)
    _, _, v = attention.qkv(x).view(2, 7, 3, 2, 8).permute(2, 0, 3, 1, 4)
    heads = attention.weights(x, positions) @ v
    expected = attention.out(heads.transpose(1, 2).reshape(2, 7, 16))
    torch.testing.assert_close(attention(x, positions), expected)


@pytest.mark.parametrize("scheme", POSITION_SCHEMES)
def test_a_causal_model_never_looks_ahead(scheme, tokens):
    model = build(scheme, num_layers=2)
    changed = tokens.clone()
    changed[:, 8:] = (changed[:, 8:] + 1) % 20
    torch.testing.assert_close(model(changed)[:, :8], model(tokens)[:, :8], rtol=0, atol=0)


def test_without_positions_an_encoder_is_permutation_equivariant(tokens):
    order = torch.randperm(12, generator=torch.Generator().manual_seed(6))
    nope = build("none", causal=False)
    torch.testing.assert_close(nope(tokens[:, order]), nope(tokens)[:, order], rtol=0, atol=1e-12)
    for scheme in ["sinusoidal", "learned", "rotary", "alibi"]:
        model = build(scheme, causal=False)
        assert (model(tokens[:, order]) - model(tokens)[:, order]).abs().max() > 1e-3, scheme


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"scheme": "t5"}, ValueError, "scheme must be one of"),
        ({"scheme": "rotary", "learn_frequencies": True}, ValueError, "learn_frequencies"),
        ({"num_heads": 3}, ValueError, "num_heads"),
        ({"d_model": 24, "num_heads": 8}, ValueError, "even width"),
        ({"num_layers": 0}, ValueError, "num_layers"),
        ({"base": 1.0}, ValueError, "base"),
    ],
)
def test_bad_options(options, error, message):
    with pytest.raises(error, match=message):
        SmallTransformer(10, 3, **options)


def test_bad_tokens_and_positions():
    model = SmallTransformer(10, 3, scheme="none")
    with pytest.raises(ValueError, match="tokens"):
        model(torch.zeros(5, dtype=torch.long))
    with pytest.raises(ValueError, match="positions must have shape"):
        model(torch.zeros(1, 5, dtype=torch.long), positions=torch.arange(4))


@pytest.mark.parametrize("scheme", POSITION_SCHEMES)
def test_the_residual_stream_starts_with_the_embedded_input_and_ends_where_the_readout_reads(scheme, tokens):
    model = build(scheme, num_layers=2)
    stream = model.residual_stream(tokens)
    assert stream.shape == (3, 3, 12, 32)
    torch.testing.assert_close(model.readout(model.norm(stream[-1])), model(tokens), rtol=0, atol=1e-12)
    embedded = model.embedding(tokens)
    if scheme in ("none", "rotary", "alibi", "relative"):  # these schemes add nothing to the embeddings
        torch.testing.assert_close(stream[0], embedded, rtol=0, atol=0)
    else:
        assert (stream[0] - embedded).abs().max() > 0.1
    torch.testing.assert_close(stream[1], model.blocks[0](stream[0], torch.arange(12)), rtol=0, atol=0)
