import math

import numpy as np
import pytest
import torch

from companion import torch_sinusoidal_encoding
from companion.transformer.positions import (
    POSITION_SCHEMES,
    LearnableFrequencyEncoding,
    LearnedPositionalEmbedding,
    RELATIVE_MAX_DISTANCE,
    alibi_bias,
    alibi_slopes,
    check_scheme,
    relative_bias,
)


def test_the_six_schemes():
    assert POSITION_SCHEMES == ("none", "sinusoidal", "learned", "rotary", "alibi", "relative")
    with pytest.raises(ValueError, match="scheme must be one of"):
        check_scheme("t5")
    with pytest.raises(TypeError, match="scheme must be one of"):
        check_scheme(None)


@pytest.mark.parametrize("position", [16, 17, 1000])
def test_learned_embeddings_refuse_positions_beyond_their_table(position):
    table = LearnedPositionalEmbedding(max_len=16, d_model=8)
    with pytest.raises(ValueError, match=rf"position {position} is beyond the learned table of max_len=16 rows "
                                         r"\(positions 0 to 15\)"):
        table(torch.tensor([0, 3, position]))


def test_learned_embeddings_are_one_trainable_row_per_position():
    table = LearnedPositionalEmbedding(max_len=6, d_model=4)
    torch.testing.assert_close(table(torch.tensor([5, 0, 5])), table.table.weight[[5, 0, 5]])
    table(torch.arange(3)).sum().backward()
    rows_with_gradient = table.table.weight.grad.abs().sum(dim=1) > 0
    assert rows_with_gradient.tolist() == [True, True, True, False, False, False]
    with pytest.raises(ValueError, match="non-negative"):
        table(torch.tensor([-1]))
    with pytest.raises(TypeError, match="integer tensor"):
        table(torch.tensor([0.5]))
    with pytest.raises(ValueError, match="max_len must be a positive"):
        LearnedPositionalEmbedding(0, 4)


@pytest.mark.parametrize("base", [100.0, 10_000.0, 1e6])
def test_learnable_frequencies_start_at_the_papers_encoding(base):
    encoding = LearnableFrequencyEncoding(d_model=32, base=base)
    positions = torch.arange(64)
    expected = torch_sinusoidal_encoding(positions, 32, base=base)
    # float32 frequencies, float32 angles: within a few ulps of angles up to 63 radians
    torch.testing.assert_close(encoding(positions), expected, rtol=0, atol=2e-5)
    np.testing.assert_allclose(encoding.frequencies().detach().numpy(),
                               base ** -(np.arange(0, 32, 2) / 32), rtol=1e-6)


def test_learnable_frequencies_receive_gradients_and_reset():
    encoding = LearnableFrequencyEncoding(d_model=8)
    encoding(torch.arange(10)).pow(2).mul(torch.linspace(-1, 1, 8)).sum().backward()
    assert encoding.log_frequencies.grad is not None and encoding.log_frequencies.grad.abs().sum() > 0
    initial = encoding.frequencies().detach().clone()
    with torch.no_grad():
        encoding.log_frequencies.add_(0.3)
    encoding.reset_parameters()
    torch.testing.assert_close(encoding.frequencies().detach(), initial)


def test_alibi_slopes_follow_press_et_al():
    # 8 heads: 1/2, 1/4, ..., 1/256 (Press et al., 2022, Sec. 3)
    assert alibi_slopes(8).tolist() == [2.0 ** -h for h in range(1, 9)]
    assert alibi_slopes(1).tolist() == [2.0 ** -8]
    # not a power of 2: the 4-head slopes, then every other 8-head slope
    assert alibi_slopes(6).tolist() == [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1, 2 ** -3]
    with pytest.raises(ValueError, match="num_heads"):
        alibi_slopes(0)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("shift", [1, 37, 10_000])
def test_alibi_bias_depends_only_on_the_offset(causal, shift):
    slopes = alibi_slopes(4)
    positions = torch.arange(12)
    torch.testing.assert_close(alibi_bias(positions + shift, slopes, causal=causal),
                               alibi_bias(positions, slopes, causal=causal), rtol=0, atol=0)


def test_alibi_bias_values_and_mask():
    slopes = torch.tensor([0.5, 0.25])
    causal = alibi_bias(torch.arange(5), slopes)
    i, j = torch.meshgrid(torch.arange(5), torch.arange(5), indexing="ij")
    for head, slope in enumerate(slopes.tolist()):
        expected = torch.where(j <= i, -slope * (i - j).float(), torch.tensor(-math.inf))
        torch.testing.assert_close(causal[head], expected)
    symmetric = alibi_bias(torch.arange(5), slopes, causal=False)
    torch.testing.assert_close(symmetric, symmetric.transpose(-1, -2))
    with pytest.raises(TypeError, match="slopes"):
        alibi_bias(torch.arange(3), [0.5])
    with pytest.raises(TypeError, match="positions"):
        alibi_bias(torch.arange(3.0), slopes)


def test_the_relative_bias_is_one_number_per_head_and_clipped_offset():
    reach = 3
    table = torch.arange(2 * (2 * reach + 1), dtype=torch.float64).view(2, 2 * reach + 1)
    positions = torch.arange(10)
    bias = relative_bias(positions, table, causal=False)
    offsets = positions[None, :] - positions[:, None]  # j - i
    expected = table[:, offsets.clamp(-reach, reach) + reach]
    torch.testing.assert_close(bias, expected, rtol=0, atol=0)
    assert bias[0, 9, 0] == bias[0, 9, 5] == table[0, 0]  # 9 and 4 back: both clipped to 3 back
    causal = relative_bias(positions, table)
    assert torch.isinf(causal[:, offsets > 0]).all() and torch.equal(causal[:, offsets <= 0], bias[:, offsets <= 0])


def test_the_relative_bias_sees_offsets_only_and_learns_only_the_offsets_it_sees():
    table = torch.zeros(1, 2 * RELATIVE_MAX_DISTANCE + 1, requires_grad=True)
    bias = relative_bias(torch.arange(4), table)
    torch.testing.assert_close(relative_bias(torch.arange(100, 104), table), bias)
    bias.nan_to_num(neginf=0.0).sum().backward()
    seen = table.grad[0] != 0  # offsets 0 to 3 back, no others
    assert seen.tolist() == [False] * (RELATIVE_MAX_DISTANCE - 3) + [True] * 4 + [False] * RELATIVE_MAX_DISTANCE


@pytest.mark.parametrize("table", [torch.zeros(3), torch.zeros(1, 4), torch.zeros(1, 5, dtype=torch.long)])
def test_the_relative_bias_refuses_a_table_of_the_wrong_shape_or_kind(table):
    with pytest.raises(TypeError, match="table"):
        relative_bias(torch.arange(3), table)
