import numpy as np
import pytest

from companion.word2vec.corpora import toy_corpus_text, wikipedia_sample_sentences
from companion.word2vec.tokenization import tokenize
from companion.word2vec.training import (
    SOURCE_SETTINGS,
    UnknownWordError,
    train_word2vec,
    word_vector,
    wordsim353_scores,
)


@pytest.fixture(scope="module")
def toy_sentences():
    return tokenize(toy_corpus_text())


def test_training_is_deterministic(toy_sentences):
    first = train_word2vec(toy_sentences, vector_size=32, epochs=3)
    second = train_word2vec(toy_sentences, vector_size=32, epochs=3)
    np.testing.assert_array_equal(first.wv.vectors, second.wv.vectors)
    different_seed = train_word2vec(toy_sentences, vector_size=32, epochs=3, seed=2)
    assert not np.array_equal(first.wv.vectors, different_seed.wv.vectors)


def test_settings_reach_gensim(toy_sentences):
    model = train_word2vec(toy_sentences, **SOURCE_SETTINGS)
    assert model.vector_size == 512 and model.window == 5 and model.sg == 1 and model.min_count == 1
    assert model.workers == 1 and model.epochs == 5 and model.negative == 5
    assert len(model.wv) == 22  # 21 distinct words and the full stop


def test_unknown_word_error_names_the_word(toy_sentences):
    model = train_word2vec(toy_sentences, vector_size=8, epochs=1)
    with pytest.raises(KeyError) as raised:
        word_vector(model, "purple")
    assert isinstance(raised.value, UnknownWordError)
    assert "'purple' is not in the model's vocabulary of 22 words" in str(raised.value)
    assert word_vector(model.wv, "black").dtype == np.float64


@pytest.mark.parametrize(
    "sentences, error, message",
    [([], ValueError, "empty"), ([[]], ValueError, "empty"), ("the cat", TypeError, "list of lists of str"),
     ([["the", 3]], TypeError, "list of lists of str")],
)
def test_bad_corpora(sentences, error, message):
    with pytest.raises(error, match=message):
        train_word2vec(sentences, vector_size=8)


@pytest.mark.parametrize(
    "kwargs, message",
    [({"vector_size": 0}, "vector_size must be at least 1"), ({"window": -1}, "window must be a non-negative"),
     ({"sg": 2}, "sg must be 1"), ({"epochs": 1.5}, "epochs must be a non-negative integer")],
)
def test_bad_settings(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        train_word2vec([["a", "b"]], **kwargs)


def test_stemming_wordsim_matches_more_of_a_stemmed_corpus():
    model = train_word2vec(wikipedia_sample_sentences(), vector_size=16, min_count=5, epochs=1)
    raw, stemmed = wordsim353_scores(model), wordsim353_scores(model, stem=True)
    assert stemmed["oov_percent"] < raw["oov_percent"] - 30
    assert -1 <= stemmed["spearman"] <= 1


def test_a_model_that_knows_no_pair_is_unscorable(toy_sentences):
    scores = wordsim353_scores(train_word2vec(toy_sentences, vector_size=8, epochs=1))
    assert scores["oov_percent"] == 100.0 and np.isnan(scores["spearman"]) and np.isnan(scores["pearson"])
