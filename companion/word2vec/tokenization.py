"""Tokenization with NLTK that needs no downloaded data.

NLTK 3.9 and later make ``sent_tokenize`` and ``word_tokenize`` load the
``punkt_tab`` model, which must be downloaded first; offline (as in the
book's tests) they raise ``LookupError``.  Two pieces of NLTK need nothing:
``word_tokenize(text, preserve_line=True)``, which skips the sentence model
and runs the rule-based NLTKWordTokenizer, and a
``PunktSentenceTokenizer`` given its parameters
explicitly.  Both give the same result online and offline.
"""

from __future__ import annotations

from .._environment import require

require("nltk")

from nltk.tokenize import word_tokenize
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

__all__ = ["ABBREVIATIONS", "sentence_splitter", "split_sentences", "tokenize"]

#: Abbreviations after which a full stop does not end a sentence (lower case,
#: without the final stop), as Punkt stores them.
ABBREVIATIONS = frozenset({"dr", "mr", "mrs", "ms", "prof", "st", "e.g", "i.e", "etc", "vs", "fig", "no"})


def sentence_splitter() -> PunktSentenceTokenizer:
    """A Punkt sentence splitter built from explicit parameters, no download needed.

    Returns
    -------
    nltk.tokenize.punkt.PunktSentenceTokenizer
        Splits after ``.``, ``?`` and ``!`` followed by white space, except
        after the ``ABBREVIATIONS``.

    Examples
    --------
    >>> sentence_splitter().tokenize("Dr. Smith sat. The cat did not.")
    ['Dr. Smith sat.', 'The cat did not.']
    """
    parameters = PunktParameters()
    parameters.abbrev_types = set(ABBREVIATIONS)
    return PunktSentenceTokenizer(parameters)


def split_sentences(text: str) -> list[str]:
    """Split `text` into sentences; line breaks count as spaces.

    Parameters
    ----------
    text : str
        Any text.

    Returns
    -------
    list of str
        The sentences, stripped.

    Raises
    ------
    TypeError
        If `text` is not a string.

    Examples
    --------
    >>> split_sentences("The cat sat.\\nThe dog slept.")
    ['The cat sat.', 'The dog slept.']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return sentence_splitter().tokenize(" ".join(text.split()))


def tokenize(text: str, *, lowercase: bool = True) -> list[list[str]]:
    """Sentences of word tokens, as word2vec takes them.

    Parameters
    ----------
    text : str
        The corpus.
    lowercase : bool, default True
        Lower-case every token (Rothman's notebook does).

    Returns
    -------
    list of list of str
        One list of tokens per sentence; punctuation marks are tokens.

    Raises
    ------
    TypeError
        If `text` is not a string.
    ValueError
        If `text` holds no tokens (an empty corpus cannot train a model).

    Examples
    --------
    >>> tokenize("The black cat sat on the rug. The dog slept.")
    [['the', 'black', 'cat', 'sat', 'on', 'the', 'rug', '.'], ['the', 'dog', 'slept', '.']]
    """
    sentences = [word_tokenize(sentence, preserve_line=True) for sentence in split_sentences(text)]
    sentences = [[token.lower() if lowercase else token for token in s] for s in sentences if s]
    if not sentences:
        raise ValueError("the corpus is empty: it holds no tokens to train on")
    return sentences
