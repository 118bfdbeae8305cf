import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import cosine_similarity, sinusoidal_encoding
from companion.word2vec.blend import blend_weight, blended_similarity
from companion.word2vec.experiment import encoded_similarities

similarities = st.floats(-1, 1)
norms = st.floats(0.01, 100)
widths = st.sampled_from([2, 8, 64, 512, 4096])


def orthogonal_to(vectors, d_model, seed):
    """Two random vectors of different norms, orthogonal to every row of `vectors` (shape (k, d_model))."""
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(vectors.T)  # orthonormal basis of the rows' span
    a, b = rng.normal(size=(2, d_model))
    a, b = a - basis @ (basis.T @ a), b - basis @ (basis.T @ b)
    return 0.7 * a / np.linalg.norm(a), 1.9 * b / np.linalg.norm(b)


@pytest.mark.parametrize("positions", [(2, 10), (0, 0), (5, 300)])
@pytest.mark.parametrize("scale", [True, False])
def test_the_blend_is_exact_when_word_vectors_are_orthogonal_to_the_encodings(positions, scale):
    d_model = 64
    pe = sinusoidal_encoding(list(positions), d_model)
    a, b = orthogonal_to(pe, d_model, seed=sum(positions))
    measured = encoded_similarities(a, b, positions, scale=scale)
    blend = blended_similarity(measured.word, measured.positional, 0.7, 1.9, d_model, scale=scale)
    assert blend == pytest.approx(measured.encoded, abs=1e-12)


@given(similarities, similarities, norms, widths, st.booleans())
def test_equal_norms_give_a_weighted_average(word, positional, r, d_model, scale):
    lam = blend_weight(r, d_model, scale=scale)
    expected = lam * word + (1 - lam) * positional
    assert blended_similarity(word, positional, r, r, d_model, scale=scale) == pytest.approx(expected, abs=1e-12)
    assert min(word, positional) - 1e-12 <= expected <= max(word, positional) + 1e-12


@given(norms, widths)
def test_with_the_scaling_the_weight_does_not_depend_on_the_width(r, d_model):
    assert blend_weight(r, d_model) == pytest.approx(2 * r**2 / (2 * r**2 + 1), rel=1e-12)
    assert blend_weight(r, d_model, scale=False) == pytest.approx(2 * r**2 / (2 * r**2 + d_model), rel=1e-12)


def test_without_the_scaling_the_word_fades_as_the_width_grows():
    weights = blend_weight(np.ones(4), 512, scale=False), [blend_weight(1.0, d, scale=False) for d in (64, 512, 4096)]
    assert np.all(weights[0] == weights[1][1])
    assert weights[1][0] > weights[1][1] > weights[1][2] and weights[1][2] < 1e-3
    assert blend_weight(0.0, 512) == 0.0


def test_the_blend_predicts_random_words_up_to_cross_terms_of_order_one_over_sqrt_d():
    rng = np.random.default_rng(3)
    for d_model in (64, 1024):
        errors = []
        for _ in range(50):
            a, b = rng.normal(size=(2, d_model)) / math.sqrt(d_model)  # norm near 1, as an initialized embedding
            measured = encoded_similarities(a, b, (3, 40))
            blend = blended_similarity(measured.word, measured.positional, np.linalg.norm(a), np.linalg.norm(b), d_model)
            errors.append(abs(measured.encoded - blend))
        assert np.mean(errors) < 1 / math.sqrt(d_model)
    assert cosine_similarity(a, b) == pytest.approx(measured.word)


def test_arguments_broadcast():
    got = blended_similarity(0.5, np.array([1.0, 0.0, -1.0]), 1.0, 1.0, 512)
    assert got.shape == (3,)
    np.testing.assert_allclose(got, [2 / 3 * 0.5 + 1 / 3, 2 / 3 * 0.5, 2 / 3 * 0.5 - 1 / 3])
    assert isinstance(blended_similarity(0.5, 0.5, 1.0, 2.0, 8), float)
    assert blend_weight(np.array([[1.0], [2.0]]), 8).shape == (2, 1)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: blend_weight(-1.0, 8), ValueError, "word_norm must hold finite, non-negative norms"),
        (lambda: blend_weight(np.nan, 8), ValueError, "word_norm"),
        (lambda: blend_weight(1.0, 7), ValueError, "d_model must be a positive even integer"),
        (lambda: blend_weight(1.0, 8.0), TypeError, "d_model"),
        (lambda: blend_weight(1.0, 8, scale="yes"), TypeError, "scale must be True or False"),
        (lambda: blended_similarity(1.5, 0.5, 1, 1, 8), ValueError, "word_similarity must hold cosine similarities"),
        (lambda: blended_similarity(0.5, np.inf, 1, 1, 8), ValueError, "positional_similarity"),
        (lambda: blended_similarity(0.5, 0.5, 1, -2, 8), ValueError, "norm_b"),
        (lambda: blended_similarity(0.5, 0.5, 1, 1, 0), ValueError, "d_model"),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
