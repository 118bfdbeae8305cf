import math

import numpy as np
import pytest

from companion import cosine_similarity, sinusoidal_encoding
from companion.book.sources import ROTHMAN_NOTEBOOK_SIMILARITIES
from companion.word2vec.experiment import (
    encoded_similarities,
    encoded_similarity_by_gap,
    mean_direction_share,
    pairwise_cosines,
    word_position_cosines,
)


@pytest.fixture
def words():
    rng = np.random.default_rng(0)
    return rng.normal(size=512), rng.normal(size=512)


def test_positional_similarities_do_not_depend_on_the_words(words):
    doubled = encoded_similarities(*words, encoding="doubled")
    assert round(doubled.positional, 7) == ROTHMAN_NOTEBOOK_SIMILARITIES["positional"]
    assert round(encoded_similarities(*words).positional, 4) == 0.7225


def test_encoded_similarity_is_the_scaled_sum(words):
    a, b = words
    pe = sinusoidal_encoding([2, 10], 512)
    got = encoded_similarities(a, b)
    assert got.word == pytest.approx(cosine_similarity(a, b))
    assert got.encoded == pytest.approx(cosine_similarity(a * math.sqrt(512) + pe[0], b * math.sqrt(512) + pe[1]))
    assert encoded_similarities(a, b, scale=False).encoded == pytest.approx(cosine_similarity(a + pe[0], b + pe[1]))


def test_gap_sweep_agrees_with_single_evaluations(words):
    sweep = encoded_similarity_by_gap(*words, [0, 8, 100])
    assert sweep[1] == pytest.approx(encoded_similarities(*words).encoded)
    assert sweep[2] == pytest.approx(encoded_similarities(*words, positions=(2, 102)).encoded)
    same_word = encoded_similarity_by_gap(words[0], words[0], [0])
    assert same_word[0] == pytest.approx(1.0)


def test_mean_direction_share_detects_a_collapse():
    rng = np.random.default_rng(1)
    spread = rng.normal(size=(500, 64))
    collapsed = spread * 0.01 + rng.normal(size=64)
    assert mean_direction_share(spread) < 0.1 < 0.99 < mean_direction_share(collapsed)


def test_pairwise_cosines_never_pair_a_vector_with_itself():
    vectors = np.eye(5)
    assert np.all(pairwise_cosines(vectors, n_pairs=500) == 0.0)


def test_word_position_cosines_matches_cosine_similarity():
    rng = np.random.default_rng(2)
    vectors = rng.normal(size=(3, 16))
    got = word_position_cosines(vectors, [0, 5, 9])
    table = sinusoidal_encoding([0, 5, 9], 16)
    assert got.shape == (3, 3)
    assert got[2, 1] == pytest.approx(cosine_similarity(vectors[2], table[1]))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: encoded_similarities(np.ones(4), np.ones(6)), "equal length"),
        (lambda: encoded_similarities(np.ones(5), np.ones(5)), "d_model must be a positive even integer"),
        (lambda: encoded_similarities(np.ones(4), np.ones(4), encoding="rope"), "encoding must be one of"),
        (lambda: encoded_similarities(np.ones(4), np.ones(4), positions=(1, 2, 3)), "two words' positions"),
        (lambda: encoded_similarity_by_gap(np.ones(4), np.ones(4), [np.nan]), "finite"),
        (lambda: mean_direction_share(np.zeros((3, 2))), "all zero"),
        (lambda: pairwise_cosines(np.ones((1, 4))), "at least two rows"),
        (lambda: word_position_cosines(np.ones(4), [0]), "2-D"),
        (lambda: word_position_cosines(np.zeros((2, 4)), [0]), "non-zero norm"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
