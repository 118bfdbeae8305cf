import hashlib
import re
import shutil
from importlib.resources import files

import pytest

from companion.word2vec import corpora
from companion.word2vec.corpora import (
    TOY_REPETITIONS,
    TOY_SENTENCES,
    read_verified,
    toy_corpus_text,
    wikipedia_sample_sentences,
)


def test_toy_corpus_is_the_three_sentences_150_times():
    lines = toy_corpus_text().splitlines()
    assert len(lines) == TOY_REPETITIONS == 150
    assert set(lines) == {" ".join(TOY_SENTENCES)}


def test_data_readme_lists_the_checked_sha256():
    readme = (files("companion.data") / "README.md").read_text()
    listed = dict(re.findall(r"\| `(\w+\.\w+)` \|.*\| `([0-9a-f]{64})` \|", readme))
    actual = hashlib.sha256((files("companion.data") / "toy_corpus.txt").read_bytes()).hexdigest()
    assert listed["toy_corpus.txt"] == actual == corpora.TOY_CORPUS_SHA256


def test_wikipedia_sample_is_stemmed_and_free_of_stop_words():
    sentences = wikipedia_sample_sentences()
    tokens = [token for sentence in sentences for token in sentence]
    assert len(sentences) == 250 and len(tokens) == 331_339
    assert tokens.count("black") == 184 and tokens.count("brown") == 49
    assert "the" not in tokens and "philosophi" in tokens  # stop words removed, stemmed
    assert sentences[0][:3] == ["anarch", "greek", "rule"]  # the article "Anarchism", stemmed


def test_wikipedia_sample_is_not_text8():
    # text8 holds only the letters a-z and keeps stop words: "anarchism originated as a term of abuse"
    characters = set("".join(token for sentence in wikipedia_sample_sentences() for token in sentence))
    assert {"-", "é", "æ", "'"} <= characters
    assert not characters <= set("abcdefghijklmnopqrstuvwxyz")


def test_the_old_name_is_deprecated_but_still_reads_the_sample():
    with pytest.deprecated_call(match="not text8; use wikipedia_sample_sentences"):
        old_name = corpora.text8_head_sentences
    assert old_name is wikipedia_sample_sentences
    with pytest.raises(AttributeError, match="no attribute 'text9'"):
        corpora.text9


def test_missing_file_is_named_with_a_remedy(tmp_path):
    missing = tmp_path / "toy_corpus.txt"
    with pytest.raises(FileNotFoundError, match=r"toy_corpus.txt is missing; restore it with `git checkout"):
        toy_corpus_text(missing)


def test_altered_file_is_refused_before_use(tmp_path):
    copy = tmp_path / "toy_corpus.txt"
    shutil.copy(files("companion.data") / "toy_corpus.txt", copy)
    copy.write_text(copy.read_text().replace("black", "white", 1))
    with pytest.raises(ValueError, match="altered or replaced; restore it"):
        toy_corpus_text(copy)


def test_altered_gensim_file_points_to_reinstalling_gensim(tmp_path):
    fake = tmp_path / "head500.noblanks.cor"
    fake.write_text("anarch greek\n")
    with pytest.raises(ValueError, match="reinstall gensim"):
        wikipedia_sample_sentences(fake)


def test_read_verified_returns_the_bytes(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"abc")
    assert read_verified(path, hashlib.sha256(b"abc").hexdigest(), "") == b"abc"
