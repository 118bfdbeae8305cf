"""The corpora word2vec is trained on, each checked against its SHA-256.

The chapter *Black and brown: word vectors meet positions* trains on these:

- The *toy corpus*: the three sentences the notebook after Rothman (2021)
  trains on, 150 times, one repetition per line (``data/toy_corpus.txt``,
  shipped as ``companion.data``). The notebook's own file glues the sentences
  of a repetition (``rug.The cat``); this copy separates them.
- The *Wikipedia sample*: a stemmed, stop-word-free extract of English
  Wikipedia, 250 articles from the start of a dump ("Anarchism", "Autism",
  "Albedo", ...), one per line, 331,339 tokens, which gensim ships as test data
  (``head500.noblanks.cor``). It is not text8: it keeps hyphens, accented
  letters and apostrophes ("merriam-webst", "encyclopædia"), where text8 holds
  only the letters a-z, and it has no stop words, which text8 keeps.
- *WordSim-353* (Finkelstein et al., 2002): 353 word pairs with human
  similarity ratings, shipped by gensim as ``wordsim353.tsv``.

A missing or altered file raises an error that names it and says how to
restore it, before any of it is used.
"""

from __future__ import annotations

import hashlib
import warnings
from importlib.resources import files
from pathlib import Path

from .._environment import require

__all__ = [
    "TOY_SENTENCES",
    "TOY_REPETITIONS",
    "toy_corpus_text",
    "wikipedia_sample_sentences",
    "wordsim353_pairs",
    "read_verified",
]

#: The three sentences that the text file of the notebook after Rothman (2021) repeats.
TOY_SENTENCES = (
    "The black cat sat on the couch and the brown dog slept on the rug.",
    "The cat did not cross the street because it was too wet.",
    "The dog sat on the couch near the rug.",
)
TOY_REPETITIONS = 150

TOY_CORPUS_SHA256 = "47afd288ca606d119d71dabe15861171a5f6c63ed2d9c4edd3bd560e7f734e93"
WIKIPEDIA_SAMPLE_SHA256 = "af9892fa37eef66079a8fcd5d25090104ee7e588f6121ee43817d82131f12474"
WORDSIM353_SHA256 = "f92a022fc2537793a15bc3a8c162ebcd74990e033a228bb6388cb71e4c0b1e1d"

_RESTORE_TOY = (
    "restore it with `git checkout -- data/toy_corpus.txt` in the book's repository, "
    "or reinstall the companion package"
)
_RESTORE_GENSIM = "reinstall gensim (`pip install --force-reinstall 'gensim>=4.4'`)"


def read_verified(path, sha256: str, restore: str) -> bytes:
    """Read a data file, refusing it if it is missing or its SHA-256 differs.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    sha256 : str
        Expected SHA-256 of its bytes, in hexadecimal.
    restore : str
        What the reader should do to get the right file, for the error message.

    Returns
    -------
    bytes
        The file's contents.

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    ValueError
        If the file's SHA-256 is not `sha256` (the file was altered or replaced).

    Examples
    --------
    >>> text = read_verified(files("companion.data") / "toy_corpus.txt", TOY_CORPUS_SHA256, "")
    >>> text.decode().splitlines()[0][:27]
    'The black cat sat on the co'
    """
    path = Path(str(path))
    if not path.is_file():
        raise FileNotFoundError(f"data file {path} is missing; {restore}")
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ValueError(
            f"data file {path} has SHA-256 {digest}, expected {sha256}: it was altered or "
            f"replaced; {restore}"
        )
    return data


def toy_corpus_text(path=None) -> str:
    """The toy corpus: the three sentences of Rothman's notebook, 150 times, one repetition per line.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Where to read it; default the copy shipped in ``companion.data``.

    Returns
    -------
    str
        150 lines of text; 5,400 words and 450 full stops.

    Raises
    ------
    FileNotFoundError, ValueError
        If the file is missing or altered (see :func:`read_verified`).

    Examples
    --------
    >>> text = toy_corpus_text()
    >>> len(text.splitlines()), text.splitlines()[0] == " ".join(TOY_SENTENCES)
    (150, True)
    """
    path = files("companion.data") / "toy_corpus.txt" if path is None else path
    return read_verified(path, TOY_CORPUS_SHA256, _RESTORE_TOY).decode("utf-8")


def _gensim_test_file(name: str) -> Path:
    require("gensim")  # here, not at import: the toy corpus needs no gensim
    from gensim.test.utils import datapath

    return Path(datapath(name))


def wikipedia_sample_sentences(path=None) -> list[list[str]]:
    """The Wikipedia sample gensim ships as test data: 250 articles of stemmed tokens.

    The tokens are lower-case Porter-style stems with stop words removed
    ("philosophi", "anarch"; no "the"), and keep hyphens, accented letters
    and apostrophes ("merriam-webst", "encyclopædia"). Each line is one
    article, used as one "sentence" of up to 6,610 tokens, within gensim's
    limit of 10,000.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Where to read it; default ``gensim.test.utils.datapath("head500.noblanks.cor")``.

    Returns
    -------
    list of list of str
        One list of tokens per line; 331,339 tokens in all.

    Raises
    ------
    FileNotFoundError, ValueError
        If the file is missing or altered (see :func:`read_verified`).

    Examples
    --------
    >>> sentences = wikipedia_sample_sentences()
    >>> len(sentences), sum(map(len, sentences)), sentences[0][:3]
    (250, 331339, ['anarch', 'greek', 'rule'])
    """
    path = _gensim_test_file("head500.noblanks.cor") if path is None else path
    text = read_verified(path, WIKIPEDIA_SAMPLE_SHA256, _RESTORE_GENSIM).decode("utf-8")
    return [line.split() for line in text.splitlines() if line.strip()]


def wordsim353_pairs() -> list[tuple[str, str, str]]:
    """The WordSim-353 pairs from gensim's copy, after checking its SHA-256.

    Returns
    -------
    list of (str, str, str)
        353 tuples: word, word, mean human rating (0 to 10) as written in the file.

    Raises
    ------
    FileNotFoundError, ValueError
        If the file is missing or altered (see :func:`read_verified`).

    Examples
    --------
    >>> pairs = wordsim353_pairs()
    >>> len(pairs), pairs[1]
    (353, ('tiger', 'cat', '7.35'))
    """
    text = read_verified(_gensim_test_file("wordsim353.tsv"), WORDSIM353_SHA256, _RESTORE_GENSIM).decode("utf-8")
    return [tuple(line.split("\t")) for line in text.splitlines() if line.strip() and not line.startswith("#")]


def __getattr__(name: str):
    # Version 0.1.0 called the Wikipedia sample "the text8 head", which it is not.
    if name == "text8_head_sentences":
        warnings.warn(
            "text8_head_sentences is deprecated: the file is not text8; use wikipedia_sample_sentences",
            DeprecationWarning,
            stacklevel=2,
        )
        return wikipedia_sample_sentences
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
