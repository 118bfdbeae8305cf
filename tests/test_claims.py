"""Claims of the source documents that a test decides (see book/claims.md).

Each test computes the figure behind one row of the claims appendix.
"""

import math
import pathlib
import re

import numpy as np
import pytest
import torch

from companion import angular_frequencies, layout_permutation, sinusoidal_encoding
from companion.book.sources import ROTHMAN_NOTEBOOK_SIMILARITIES


def test_attention_without_positions_is_permutation_equivariant():
    """The notes *Positional Encoding*: transformers are permutation equivariant; adding positions breaks it."""
    torch.manual_seed(0)
    attention = torch.nn.MultiheadAttention(embed_dim=16, num_heads=2, batch_first=True).eval()
    x = torch.randn(1, 6, 16)
    order = torch.tensor([3, 0, 5, 1, 4, 2])
    with torch.no_grad():
        out, _ = attention(x, x, x)
        shuffled, _ = attention(x[:, order], x[:, order], x[:, order])
        torch.testing.assert_close(shuffled, out[:, order], atol=1e-6, rtol=0)
        pe = torch.from_numpy(sinusoidal_encoding(np.arange(6), 16, dtype=np.float32))
        with_positions, _ = attention(x + pe, x + pe, x + pe)
        shuffled_with_positions, _ = attention(x[:, order] + pe, x[:, order] + pe, x[:, order] + pe)
    assert (shuffled_with_positions - with_positions[:, order]).abs().max() > 1e-2


def test_raw_positions_grow_while_the_encoding_norm_is_constant():
    """The blog post *OG positional encoding*: adding the integer position inflates later embeddings; the encoding does not."""
    norms = np.linalg.norm(sinusoidal_encoding(np.arange(2048), 512), axis=1)
    np.testing.assert_allclose(norms, math.sqrt(512 / 2), rtol=1e-14)
    assert 2047 / norms.max() > 100


def test_scaling_positions_to_the_unit_interval_depends_on_the_length():
    """The blog post *OG positional encoding*: dividing by the sequence length encodes one position differently in different sequences."""
    position = 10
    assert position / (50 - 1) != position / (100 - 1)
    np.testing.assert_array_equal(sinusoidal_encoding([position], 64), sinusoidal_encoding(np.arange(100), 64)[[10]])


def test_the_notes_vector_order_is_a_permutation_of_the_papers_columns():
    """The notes *Positional Encoding* write (cos w1 t, sin w1 t, ...): the paper's pairs with sine and cosine swapped."""
    table = sinusoidal_encoding(np.arange(20), 8)
    swap = np.arange(8).reshape(4, 2)[:, ::-1].ravel()
    omega = angular_frequencies(8)
    notes = np.stack([np.cos(np.arange(20)[:, None] * omega), np.sin(np.arange(20)[:, None] * omega)], -1).reshape(20, 8)
    np.testing.assert_allclose(table[:, swap], notes, atol=1e-15)


def test_start_pos_rows_equal_rows_of_the_long_table():
    """The blog post *Understanding positional encoding*: start_pos computes the rows of the middle of a sequence without the rest."""
    # equal up to float64 rounding: the two tables are assembled from different anchors
    np.testing.assert_allclose(
        sinusoidal_encoding(np.arange(50, 100), 128), sinusoidal_encoding(np.arange(100), 128)[50:], rtol=0, atol=1e-13
    )


def test_a_bigger_base_lowers_every_frequency_but_the_first():
    """The blog post *Understanding positional encoding*: the bigger the base, the faster the frequency decreases."""
    slow, fast = angular_frequencies(128, 1e8), angular_frequencies(128, 1e2)
    assert slow[0] == fast[0] == 1.0 and np.all(slow[1:] < fast[1:])


def test_the_notebooks_even_and_odd_denominators_agree():
    """The notebook *Positional Encoding*: its cell prints even_denominator twice; the odd one it computed is indeed the same."""
    d_model = 6
    even_i, odd_i = np.arange(0, d_model, 2), np.arange(1, d_model, 2)
    np.testing.assert_array_equal(10_000.0 ** (even_i / d_model), 10_000.0 ** ((odd_i - 1) / d_model))
    # its commented draft writes i-1/d_model, which as code means i - (1 / d_model)
    assert not np.allclose(10_000.0 ** (odd_i - 1 / d_model), 10_000.0 ** ((odd_i - 1) / d_model))


def test_the_encoding_lies_on_a_sphere_of_radius_sqrt_half_d_model_not_a_unit_sphere():
    """Rothman's notebook: "a unit sphere". Each pair is on a unit circle; the vector has norm sqrt(d_model / 2)."""
    table = sinusoidal_encoding(np.arange(100), 512)
    np.testing.assert_allclose(table[:, 0::2] ** 2 + table[:, 1::2] ** 2, 1.0, atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(table, axis=1), 16.0, rtol=1e-14)


def test_the_concatenated_cosines_occupy_columns_256_to_511():
    """Rothman's notebook: sines in [0, 255], cosines in "[256, 512]" (off by one), "similar results" (a permutation)."""
    perm = layout_permutation(512, "interleaved", "concatenated")
    assert np.array_equal(perm[256:], np.arange(1, 512, 2)) and perm.size == 512
    interleaved = sinusoidal_encoding(np.arange(30), 512)
    np.testing.assert_array_equal(sinusoidal_encoding(np.arange(30), 512, layout="concatenated"), interleaved[:, perm])


def test_gensim_4_rejects_the_sources_gensim_3_call():
    """Rothman's notebook: Word2Vec(data, min_count=1, size=512, ...) is gensim 3 code."""
    from gensim.models import Word2Vec

    with pytest.raises(TypeError, match="size"):
        Word2Vec([["a", "b"]], min_count=1, size=512, window=5, sg=1)


def test_the_sources_own_runs_differ():
    """Rothman's notebook: "might slightly vary during each run": its two runs print different figures."""
    word_runs = (ROTHMAN_NOTEBOOK_SIMILARITIES["word"], 0.9998901)
    encoded_runs = (ROTHMAN_NOTEBOOK_SIMILARITIES["encoded"], 0.9627094)
    assert word_runs[0] != word_runs[1] and abs(encoded_runs[0] - encoded_runs[1]) > 1e-3


def test_base_10000_gives_distinct_positions_far_beyond_2_pi_10000():
    """Folklore (a Hugging Face blog post): base 10,000 gives "2 pi 10000 unique positions", a bound on context near 63,000."""
    from companion.analysis.distinguishability import nearest_position_distance, offset_distances

    limit = 2 * math.pi * 10_000
    for d_model in (64, 128, 512):
        assert angular_frequencies(d_model)[-1] * limit > 2 * math.pi  # the slowest pair turns more than once by then
    distances, offsets = nearest_position_distance([200_000], 64)
    assert offsets[0] == 1 and distances[0] == pytest.approx(offset_distances([1], 64)[0])  # neighbours, closest
    table = sinusoidal_encoding(np.array([0, 62_832, 125_664]), 512)
    assert np.linalg.norm(table[1] - table[0]) > 10 and np.linalg.norm(table[2] - table[0]) > 10


def test_log_10000_sets_the_frequencies_not_a_maximum_length():
    """Folklore (PyTorch's Transformer tutorial): "math.log(10000.0) ... represents the maximum effective input length"."""
    from companion.analysis.distinguishability import nearest_position_distance, similarity_trend_crossings

    d_model = 200  # the tutorial's embedding size
    div_term = np.exp(np.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))  # the tutorial's line, in float64
    np.testing.assert_allclose(div_term, angular_frequencies(d_model), rtol=1e-14)
    distances, offsets = nearest_position_distance([30_000], d_model)
    assert offsets[0] == 1 and distances[0] > 2  # past 10,000 positions stay as far apart as neighbours
    half, zero = similarity_trend_crossings(10_000.0)
    assert round(half) == 56 and round(zero) == 6165  # the encoding's own scales; neither is 10,000


def test_every_test_cited_by_the_claims_appendix_exists():
    appendix = (pathlib.Path(__file__).parent.parent / "book" / "claims.md").read_text()
    cited = set(re.findall(r"tests/((?:\w+/)?test_\w+)\.py::(test_\w+)", appendix))
    assert cited, "the appendix cites no test"
    for module_name, test_name in cited:
        source = (pathlib.Path(__file__).parent / f"{module_name}.py").read_text()
        assert f"def {test_name}(" in source, f"{module_name}.py::{test_name} is cited but missing"
