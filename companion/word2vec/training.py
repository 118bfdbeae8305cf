"""Training word2vec with gensim 4, deterministically, and scoring it.

The notebook after Rothman (2021) calls ``gensim.models.Word2Vec(data, min_count=1, size=512,
window=5, sg=1)``, gensim 3 code: gensim 4 renamed ``size`` to
``vector_size`` and ``iter`` to ``epochs``, and vectors are read from
``model.wv[word]`` instead of ``model[word]``.  With one worker thread and a
fixed seed, gensim 4 trains the same model on every run (its initial vectors
come from a seeded generator, not from Python's salted string hash).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np

from .._environment import require

require("gensim")
require("nltk")

from gensim.models import Word2Vec
from nltk.stem import PorterStemmer

from .._checks import check_count
from .corpora import wordsim353_pairs

__all__ = ["SOURCE_SETTINGS", "UnknownWordError", "train_word2vec", "word_vector", "wordsim353_scores"]

#: The settings of the notebook after Rothman (2021): skip-gram, 512 dimensions, window 5, every word kept;
#: gensim's defaults for the rest (5 epochs, 5 negative samples).
SOURCE_SETTINGS = {"vector_size": 512, "window": 5, "min_count": 1, "sg": 1, "epochs": 5, "negative": 5}


class UnknownWordError(KeyError):
    """A word that the model has no vector for; its message says what to check.

    Examples
    --------
    >>> str(UnknownWordError("word 'purple' is not in the vocabulary"))
    "word 'purple' is not in the vocabulary"
    """

    def __str__(self) -> str:
        return str(self.args[0])


def train_word2vec(
    sentences,
    *,
    vector_size: int = 512,
    window: int = 5,
    min_count: int = 1,
    sg: int = 1,
    epochs: int = 5,
    negative: int = 5,
    seed: int = 1,
) -> Word2Vec:
    """Train word2vec (Mikolov et al., 2013) with gensim, on one worker thread.

    Parameters
    ----------
    sentences : list of list of str
        Tokenized sentences, e.g. from :func:`companion.word2vec.tokenization.tokenize`.
    vector_size : int, default 512
        Dimension of the word vectors.
    window : int, default 5
        Largest distance between a word and a context word.
    min_count : int, default 1
        Words seen fewer times are dropped.
    sg : {1, 0}, default 1
        1 for skip-gram, 0 for CBOW.
    epochs : int, default 5
        Passes over the corpus.
    negative : int, default 5
        Negative samples per positive pair.
    seed : int, default 1
        Seed of the initial vectors and of the sampling.

    Returns
    -------
    gensim.models.Word2Vec
        The trained model; word vectors are ``model.wv[word]``, float32, shape
        ``(vector_size,)``.

    Raises
    ------
    TypeError
        If `sentences` is not a list of lists of strings, or a count is not an integer.
    ValueError
        If `sentences` holds no token, or a count is out of range.

    Examples
    --------
    >>> model = train_word2vec([["the", "cat", "sat"]] * 20, vector_size=8, epochs=2)
    >>> model.wv["cat"].shape, model.wv["cat"].dtype
    ((8,), dtype('float32'))
    """
    if not isinstance(sentences, (list, tuple)) or not all(
        isinstance(sentence, (list, tuple)) and all(isinstance(token, str) for token in sentence)
        for sentence in sentences
    ):
        raise TypeError("sentences must be a list of lists of str (tokenized sentences)")
    if not any(sentences):
        raise ValueError("sentences is empty: the corpus holds no tokens to train on")
    for name, value, smallest in [("vector_size", vector_size, 1), ("window", window, 1),
                                  ("min_count", min_count, 1), ("epochs", epochs, 1), ("negative", negative, 1)]:
        if check_count(value, name) < smallest:
            raise ValueError(f"{name} must be at least {smallest}, got {value}")
    if sg not in (0, 1):
        raise ValueError(f"sg must be 1 (skip-gram) or 0 (CBOW), got {sg!r}")
    return Word2Vec(
        sentences, vector_size=vector_size, window=window, min_count=min_count, sg=sg,
        epochs=epochs, negative=negative, seed=seed, workers=1,
    )


def word_vector(model, word: str) -> np.ndarray:
    """The vector of `word`, as float64, with a helpful error if it is unknown.

    Parameters
    ----------
    model : gensim.models.Word2Vec or gensim.models.KeyedVectors
        A trained model or its vectors.
    word : str
        The word, as the corpus spells it (the Wikipedia sample is stemmed).

    Returns
    -------
    ndarray, shape (vector_size,), dtype float64
        A copy of the word's vector.

    Raises
    ------
    UnknownWordError
        A KeyError naming the word, if the model has no vector for it.

    Examples
    --------
    >>> model = train_word2vec([["the", "cat", "sat"]] * 20, vector_size=8, epochs=2)
    >>> word_vector(model, "cat").dtype
    dtype('float64')
    """
    vectors = getattr(model, "wv", model)
    if word not in vectors.key_to_index:
        raise UnknownWordError(
            f"word {word!r} is not in the model's vocabulary of {len(vectors)} words: it does not "
            f"occur in the corpus, or fewer than min_count times; check its spelling (the "
            f"Wikipedia sample is stemmed: 'philosophi', not 'philosophy')"
        )
    return np.asarray(vectors[word], dtype=np.float64)


def wordsim353_scores(model, *, stem: bool = False) -> dict:
    """How well the model's similarities agree with human ratings (WordSim-353).

    Uses gensim's ``evaluate_word_pairs``; pairs with a word the model does
    not know are skipped and counted.

    Parameters
    ----------
    model : gensim.models.Word2Vec or gensim.models.KeyedVectors
        A trained model or its vectors.
    stem : bool, default False
        Porter-stem both words of each pair first, to match a stemmed corpus.

    Returns
    -------
    dict
        ``spearman`` and ``pearson`` correlations (nan when the model knows
        no pair) and ``oov_percent``, the percentage of pairs skipped.

    Raises
    ------
    FileNotFoundError, ValueError
        If gensim's copy of WordSim-353 is missing or altered.

    Examples
    --------
    >>> model = train_word2vec([["tiger", "cat", "sat"]] * 20, vector_size=8, epochs=2)
    >>> round(wordsim353_scores(model)["oov_percent"], 1)  # only tiger-cat and tiger-tiger known
    99.4
    """
    vectors = getattr(model, "wv", model)
    pairs = wordsim353_pairs()
    if stem:
        stemmer = PorterStemmer().stem
        pairs = [(stemmer(first), stemmer(second), score) for first, second, score in pairs]
    if not any(first in vectors.key_to_index and second in vectors.key_to_index for first, second, _ in pairs):
        # gensim refuses to score a model that knows no pair; report it as unscorable
        return {"spearman": math.nan, "pearson": math.nan, "oov_percent": 100.0}
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "wordsim353.tsv"
        path.write_text("".join(f"{first}\t{second}\t{score}\n" for first, second, score in pairs), encoding="utf-8")
        pearson, spearman, oov_percent = vectors.evaluate_word_pairs(str(path))
    return {"spearman": float(spearman.statistic), "pearson": float(pearson.statistic),
            "oov_percent": float(oov_percent)}
