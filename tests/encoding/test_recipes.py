import numpy as np
import pytest
import torch

from companion import sinusoidal_encoding
from companion.encoding.recipes import annotated_transformer_encoding, d2l_encoding, fairseq_encoding


@pytest.mark.parametrize("recipe", [annotated_transformer_encoding, d2l_encoding])
def test_paper_recipes_agree_with_the_companion_at_short_range(recipe):
    table = recipe(torch.arange(64), 128)
    assert table.dtype == torch.float32 and table.shape == (64, 128)
    np.testing.assert_allclose(table.numpy(), sinusoidal_encoding(np.arange(64), 128), atol=2e-5)


@pytest.mark.parametrize("recipe", [annotated_transformer_encoding, d2l_encoding])
def test_float32_angles_drift_at_long_range(recipe):
    positions = np.arange(10**6 - 64, 10**6)
    error = np.abs(recipe(torch.from_numpy(positions), 128).numpy() - sinusoidal_encoding(positions, 128)).max()
    assert error > 1e-3


def test_fairseq_spaces_frequencies_from_one_to_one_over_base():
    d_model, half = 16, 8
    positions = np.arange(40)
    omega = 10_000.0 ** (-np.arange(half) / (half - 1))
    angles = positions[:, None] * omega
    expected = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    np.testing.assert_allclose(fairseq_encoding(torch.from_numpy(positions), d_model).numpy(), expected, atol=1e-5)


def test_recipes_reject_bad_shapes():
    with pytest.raises(ValueError, match="1-D"):
        d2l_encoding(torch.zeros(2, 2), 8)
    with pytest.raises(ValueError, match="at least 4"):
        fairseq_encoding(torch.arange(3), 2)
