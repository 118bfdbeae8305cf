"""Attention without positions is permutation-equivariant (companion.analysis.equivariance)."""

import numpy as np
import pytest
import torch

from companion import sinusoidal_encoding
from companion.analysis.equivariance import self_attention


def weights(d_model, seed=0):
    return np.random.default_rng(seed).normal(size=(3, d_model, d_model)) / np.sqrt(d_model)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shuffling_the_tokens_shuffles_the_outputs(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(7, 8))
    order = rng.permutation(7)
    w = weights(8, seed)
    np.testing.assert_allclose(self_attention(x[order], *w), self_attention(x, *w)[order], rtol=0, atol=1e-12)


def test_with_the_encoding_added_the_outputs_are_no_longer_shuffled_copies():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 16))
    order = np.array([3, 0, 5, 1, 4, 2])
    pe = sinusoidal_encoding(np.arange(6), 16)
    w = weights(16)
    gap = np.abs(self_attention(x[order] + pe, *w) - self_attention(x + pe, *w)[order]).max()
    assert gap > 0.1


def test_agrees_with_torchs_scaled_dot_product_attention():
    rng = np.random.default_rng(3)
    x, (w_query, w_key, w_value) = rng.normal(size=(5, 8)), rng.normal(size=(3, 8, 4))
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(x @ w)[None] for w in (w_query, w_key, w_value))
    )[0]
    np.testing.assert_allclose(self_attention(x, w_query, w_key, w_value), expected.numpy(), rtol=1e-12, atol=1e-12)


def test_each_output_is_a_weighted_mean_of_the_values():
    x = np.random.default_rng(4).normal(size=(4, 3))
    identity = np.eye(3)
    outputs = self_attention(x, np.zeros((3, 3)), np.zeros((3, 3)), identity)  # equal scores: the plain mean
    np.testing.assert_allclose(outputs, np.tile(x.mean(axis=0), (4, 1)), atol=1e-15)


def test_large_scores_do_not_overflow():
    x = np.array([[1e3, 0.0], [0.0, 1e3]])
    outputs = self_attention(x, np.eye(2), np.eye(2), np.eye(2))
    assert np.all(np.isfinite(outputs))
    np.testing.assert_allclose(outputs, x)  # each token attends only to itself


@pytest.mark.parametrize(
    "args, match",
    [
        ((np.zeros(3), np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 2))), "x must be 2-D"),
        ((np.zeros((0, 3)), np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 2))), "at least one token"),
        ((np.zeros((2, 3)), np.zeros((4, 2)), np.zeros((3, 2)), np.zeros((3, 2))), "w_query must have shape"),
        ((np.zeros((2, 3)), np.zeros((3, 2)), np.zeros((3, 5)), np.zeros((3, 2))), "the same shape"),
    ],
)
def test_bad_shapes_are_named(args, match):
    with pytest.raises(ValueError, match=match):
        self_attention(*args)
