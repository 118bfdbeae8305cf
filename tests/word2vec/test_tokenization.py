import nltk
import pytest

from companion.word2vec.corpora import TOY_SENTENCES, toy_corpus_text
from companion.word2vec.tokenization import split_sentences, tokenize


def test_toy_corpus_gives_450_lowercase_sentences():
    sentences = tokenize(toy_corpus_text())
    assert len(sentences) == 450
    assert sentences[0] == "the black cat sat on the couch and the brown dog slept on the rug .".split()
    assert all(token == token.lower() for sentence in sentences for token in sentence)


def test_glued_sentences_become_one_token():
    glued = "".join(TOY_SENTENCES)  # "...rug.The cat..." as in the file of Rothman's notebook
    sentences = tokenize(glued)
    assert len(sentences) == 1
    assert "rug.the" in sentences[0] and "wet.the" in sentences[0]


def test_abbreviations_do_not_end_sentences():
    assert split_sentences("Dr. Smith met Mr. Jones. They sat.") == ["Dr. Smith met Mr. Jones.", "They sat."]


def test_works_with_no_nltk_data_at_all(monkeypatch, tmp_path):
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(LookupError):
        nltk.sent_tokenize("The cat sat. The dog slept.")  # the default path needs punkt_tab
    assert tokenize("The cat sat. The dog slept.") == [["the", "cat", "sat", "."], ["the", "dog", "slept", "."]]


def test_case_can_be_kept():
    assert tokenize("The Cat.", lowercase=False) == [["The", "Cat", "."]]


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_empty_corpus_is_an_error(text):
    with pytest.raises(ValueError, match="the corpus is empty"):
        tokenize(text)


def test_text_must_be_a_string():
    with pytest.raises(TypeError, match="text must be a str"):
        tokenize(["The cat sat."])
