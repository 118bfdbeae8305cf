"""Adding or concatenating the encoding: the cost of a wider stream, and how much of a content vector the sum mixes (companion.analysis.concatenation)."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import sinusoidal_encoding
from companion.analysis.concatenation import (
    embedding_like_vectors,
    encoding_directions,
    energy_share,
    stack_size,
)


def count(*modules) -> int:
    return sum(parameter.numel() for module in modules for parameter in module.parameters())


def test_the_base_models_layers_are_counted_as_pytorchs_transformer_counts_them():
    model = torch.nn.Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                                 dim_feedforward=2048, batch_first=True)
    final_norms = count(model.encoder.norm, model.decoder.norm)  # PyTorch's, not the paper's (post-norm)
    assert stack_size(512).parameters == count(model) - final_norms == 44_138_496
    weights = sum(parameter.numel() for name, parameter in model.named_parameters()
                  if parameter.ndim == 2)
    assert stack_size(512).multiply_adds == weights


@pytest.mark.parametrize(("d_stream", "d_model", "d_ff", "encoder_layers", "decoder_layers"),
                         [(3, 2, 5, 1, 1), (7, 4, 3, 2, 0), (5, 5, 11, 0, 3)])
def test_a_wider_stream_widens_every_matrix_that_reads_or_writes_it(d_stream, d_model, d_ff, encoder_layers,
                                                                    decoder_layers):
    """Counted independently: the modules of each layer built with torch at those shapes."""
    def attention():
        return [torch.nn.Linear(d_stream, d_model) for _ in range(3)] + [torch.nn.Linear(d_model, d_stream)]

    def feed_forward():
        return [torch.nn.Linear(d_stream, d_ff), torch.nn.Linear(d_ff, d_stream)]

    def norms(number):
        return [torch.nn.LayerNorm(d_stream) for _ in range(number)]

    encoder = [module for _ in range(encoder_layers) for module in attention() + feed_forward() + norms(2)]
    decoder = [module for _ in range(decoder_layers)
               for module in attention() + attention() + feed_forward() + norms(3)]
    matrices = sum(module.weight.numel() for module in encoder + decoder if isinstance(module, torch.nn.Linear))
    size = stack_size(d_stream, d_model=d_model, d_ff=d_ff, encoder_layers=encoder_layers,
                      decoder_layers=decoder_layers)
    assert size.parameters == count(*encoder, *decoder)
    assert size.multiply_adds == matrices


def test_concatenating_a_code_as_wide_as_the_model_nearly_doubles_the_layers():
    added, concatenated = stack_size(512), stack_size(1024)
    assert concatenated.multiply_adds == 2 * added.multiply_adds  # every matrix doubles
    assert 1.99 < concatenated.parameters / added.parameters < 2  # the heads' biases do not
    # the cost grows in proportion to the width of the code
    widths = [stack_size(512 + d_pos).parameters for d_pos in (0, 64, 128, 192)]
    assert len(set(np.diff(widths))) == 1


@pytest.mark.parametrize(("kwargs", "message"), [({"d_stream": 0}, "d_stream must be a positive integer"),
                                                 ({"d_stream": 8, "d_ff": -1}, "d_ff must be a non-negative"),
                                                 ({"d_stream": 8, "decoder_layers": -2}, "decoder_layers")])
def test_stack_size_refuses_impossible_sizes(kwargs, message):
    with pytest.raises(ValueError, match=message):
        stack_size(**kwargs)


def test_stack_size_refuses_a_width_that_is_not_an_integer():
    with pytest.raises(TypeError, match="d_stream"):
        stack_size(512.0)


def test_the_directions_are_orthonormal_and_their_shares_are_the_tables_squared_norm():
    positions = np.arange(300)
    directions = encoding_directions(positions, 64)
    np.testing.assert_allclose(directions.basis.T @ directions.basis, np.eye(64), rtol=0, atol=1e-12)
    assert np.all(np.diff(directions.shares) <= 1e-15) and abs(directions.shares.sum() - 1) < 1e-12
    table = sinusoidal_encoding(positions, 64)
    along = np.sum((table @ directions.basis) ** 2, axis=0) / np.sum(table**2)
    np.testing.assert_allclose(along, directions.shares, rtol=0, atol=1e-12)


def test_the_leading_directions_are_the_best_subspace_of_their_size():
    """Eckart-Young: no other subspace of k dimensions holds more of the table (compared with random ones and with coordinates)."""
    table = sinusoidal_encoding(np.arange(256), 32)
    directions = encoding_directions(np.arange(256), 32)
    k = directions.count(0.9)
    best = directions.shares[:k].sum()
    assert best >= 0.9 and directions.shares[: k - 1].sum() < 0.9
    rng = np.random.default_rng(0)
    for _ in range(20):
        other, _ = np.linalg.qr(rng.normal(size=(32, k)))
        assert np.sum((table @ other) ** 2) / np.sum(table**2) < best
    fastest_columns = np.eye(32)[:, :k]  # the fast pairs' coordinates
    assert np.sum((table @ fastest_columns) ** 2) / np.sum(table**2) < best


def test_the_encoding_of_512_positions_needs_a_shrinking_share_of_the_width():
    counts = {d_model: encoding_directions(np.arange(512), d_model).count(0.99) for d_model in (64, 128, 256, 512, 1024)}
    shares = [count / d_model for d_model, count in counts.items()]
    assert all(later < earlier for earlier, later in zip(shares, shares[1:]))
    assert counts[512] == 109 and shares[-1] < 0.15


def test_a_single_position_fills_one_direction_and_more_positions_fill_more():
    assert encoding_directions([5], 16).count(1.0) == 1
    assert encoding_directions(np.arange(64), 16).count(0.99) > encoding_directions(np.arange(8), 16).count(0.99)


@pytest.mark.parametrize("energy", [0, 1.5, -0.1, True, "0.9"])
def test_count_refuses_an_energy_that_is_not_a_share(energy):
    with pytest.raises(ValueError, match="energy must be a share"):
        encoding_directions(np.arange(10), 8).count(energy)


def test_encoding_directions_checks_its_arguments():
    with pytest.raises(ValueError, match="d_model must be a positive even integer"):
        encoding_directions(np.arange(10), 7)
    with pytest.raises(ValueError, match="at least one position"):
        encoding_directions([], 8)


@settings(deadline=None, max_examples=25)
@given(st.integers(1, 40), st.integers(2, 40), st.integers(0, 2**16))
def test_the_share_is_the_squared_cosine_to_the_subspace(k, extra, seed):
    d = k + extra
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.normal(size=(d, k)))
    vectors = rng.normal(size=(5, d))
    projections = vectors @ basis @ basis.T
    cosines = np.einsum("nd,nd->n", vectors, projections) / (
        np.linalg.norm(vectors, axis=1) * np.linalg.norm(projections, axis=1))
    np.testing.assert_allclose(energy_share(vectors, basis), cosines**2, rtol=1e-10)
    cumulative = energy_share(vectors, basis, cumulative=True)
    assert cumulative.shape == (5, k) and np.all(np.diff(cumulative, axis=1) >= 0)
    np.testing.assert_allclose(cumulative[:, -1], energy_share(vectors, basis), rtol=1e-12)


def test_random_directions_put_k_over_d_of_their_energy_in_a_subspace():
    basis = encoding_directions(np.arange(512), 512).basis[:, :109]
    shares = [energy_share(np.random.default_rng(seed).normal(size=(1000, 512)), basis).mean() for seed in range(5)]
    assert all(abs(share - 109 / 512) < 0.005 for share in shares)


@pytest.mark.parametrize(("vectors", "basis", "message"), [
    (np.ones((2, 4)), np.ones((4, 1)), "orthonormal"),
    (np.ones((2, 3)), np.eye(4)[:, :2], "shape"),
    (np.zeros((1, 4)), np.eye(4)[:, :2], "nonzero"),
    (np.full((1, 4), np.nan), np.eye(4)[:, :2], "finite"),
    (np.ones((1, 4)), np.eye(4)[:, :0], "k >= 1"),
])
def test_energy_share_refuses_what_has_no_share(vectors, basis, message):
    with pytest.raises(ValueError, match=message):
        energy_share(vectors, basis)


def test_energy_share_refuses_complex_vectors():
    with pytest.raises(TypeError, match="vectors must hold real numbers"):
        energy_share(np.ones((1, 4), dtype=complex), np.eye(4)[:, :2])


def test_embedding_like_vectors_share_a_direction_and_a_falling_spectrum():
    vectors = embedding_like_vectors(4000, 64, seed=3)
    mean = vectors.mean(axis=0)
    assert 7 < np.linalg.norm(mean) < 9  # shared * sqrt(64)
    variances = np.linalg.eigvalsh(np.cov(vectors.T))[::-1]
    assert variances[0] > 10 * variances[31] and abs(variances.sum() / 64 - 1) < 0.1
    np.testing.assert_array_equal(vectors, embedding_like_vectors(4000, 64, seed=3))  # seeded
    isotropic = embedding_like_vectors(4000, 64, seed=3, decay=0, shared=0)
    spread = np.linalg.eigvalsh(np.cov(isotropic.T))
    assert spread.max() / spread.min() < 1.6 and np.linalg.norm(isotropic.mean(axis=0)) < 0.5


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"n": 0, "d_model": 4}, ValueError, "n must be a positive integer"),
    ({"n": 2, "d_model": 4, "decay": -1.0}, ValueError, "decay"),
    ({"n": 2, "d_model": 4, "shared": float("inf")}, ValueError, "shared"),
    ({"n": 2.5, "d_model": 4}, TypeError, "n must be"),
])
def test_embedding_like_vectors_checks_its_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        embedding_like_vectors(**kwargs)


def test_directions_refuse_shares_that_do_not_fit_the_basis():
    with pytest.raises(ValueError, match="basis must be"):
        type(encoding_directions(np.arange(4), 4))(basis=np.eye(4), shares=np.ones(3) / 3)
