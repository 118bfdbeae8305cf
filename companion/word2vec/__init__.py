"""The black/brown experiment: corpora, offline tokenization, word2vec training with gensim, and the
similarities of word vectors, encodings and their sums. Needs the ``[word2vec]`` extra (gensim, nltk).
Import the modules themselves (``blend`` needs numpy only); this package imports nothing on its own."""
