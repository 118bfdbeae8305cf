import numpy as np
import pytest

from companion import sinusoidal_encoding
from companion.analysis.linearity import rotation_matrix
from companion.transformer.attention import (
    attention_weights,
    best_mix_margin,
    diagonal_spread,
    logit_terms,
    most_attended_offset,
    offset_head,
    weight_from_offset,
    weight_on_offset,
)
from companion.transformer.positions import alibi_slopes


def test_the_four_terms_add_up_to_the_logits():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(10, 16))
    pe = sinusoidal_encoding(np.arange(10), 16)
    w_q, w_k = rng.normal(size=(2, 16, 8))  # (d_model, d_k): row vectors, q = x W^Q
    terms = logit_terms(x, pe, w_q, w_k)
    np.testing.assert_allclose(terms.total, ((x + pe) @ w_q) @ ((x + pe) @ w_k).T, atol=1e-10)
    np.testing.assert_allclose(terms.position_content, (pe @ w_q) @ (x @ w_k).T, atol=1e-10)
    np.testing.assert_allclose(terms.content_position, (x @ w_q) @ (pe @ w_k).T, atol=1e-10)


def test_the_position_term_is_relative_for_a_rotation_but_not_for_any_matrix():
    pe = sinusoidal_encoding(np.arange(40), 32)
    x = np.zeros_like(pe)
    w_q, w_k = offset_head(3, 32, sharpness=2.0)
    np.testing.assert_allclose(w_q @ w_k.T, 2.0 * rotation_matrix(3, 32), atol=1e-15)
    np.testing.assert_allclose(pe[3:] @ w_q, 2.0 * pe[:-3], atol=1e-12)  # PE_p R(3) = PE_(p-3)
    assert diagonal_spread(logit_terms(x, pe, w_q, w_k).position_position) < 1e-12
    rng = np.random.default_rng(1)
    random_w_q, random_w_k = rng.normal(size=(2, 32, 32))
    assert diagonal_spread(logit_terms(x, pe, random_w_q, random_w_k).position_position) > 1.0


@pytest.mark.parametrize("offset", [1, 3, 7])
def test_the_hand_built_head_looks_offset_back_at_every_position_of_any_length(offset):
    pe = sinusoidal_encoding(np.arange(1000), 64)
    w_q, w_k = offset_head(offset, 64, sharpness=8.0)
    weights = attention_weights((pe @ w_q) @ (pe @ w_k).T)
    rows = np.arange(offset, 1000)
    assert np.all(weights[rows].argmax(axis=1) == rows - offset)
    assert weights[rows, rows - offset].min() > 0.99


def test_diagonal_spread_is_zero_exactly_for_functions_of_the_offset():
    offsets = np.subtract.outer(np.arange(6), np.arange(6))
    assert diagonal_spread(np.cos(0.3 * offsets)) == 0.0
    assert diagonal_spread(np.cos(0.3 * offsets) + np.eye(6) * np.arange(6)) == 5.0
    assert diagonal_spread(np.zeros((0, 0))) == 0.0
    with pytest.raises(ValueError, match="square"):
        diagonal_spread(np.ones((2, 3)))


def test_attention_weights_are_row_softmaxes_with_an_optional_causal_mask():
    rng = np.random.default_rng(2)
    logits = rng.normal(size=(3, 6, 6))
    weights = attention_weights(logits)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    np.testing.assert_allclose(weights, np.exp(logits) / np.exp(logits).sum(-1, keepdims=True))
    causal = attention_weights(logits, causal=True)
    assert np.all(np.triu(causal[0], 1) == 0)
    np.testing.assert_allclose(causal.sum(axis=-1), 1.0)


def test_a_causal_uniform_head_reads_off_one_over_p_plus_one():
    # Equal logits, value 1 on the first token only: position p averages p + 1 values
    values = np.zeros(12)
    values[0] = 1.0
    causal = attention_weights(np.zeros((12, 12)), causal=True) @ values
    np.testing.assert_allclose(causal, 1 / (np.arange(12) + 1), rtol=1e-15)
    bidirectional = attention_weights(np.zeros((12, 12))) @ values
    np.testing.assert_allclose(bidirectional, 1 / 12)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: logit_terms(np.ones((3, 4)), np.ones((2, 4)), np.ones((2, 4)), np.ones((2, 4))), ValueError, "pe"),
        (lambda: logit_terms(np.ones((3, 4)), np.ones((3, 4)), np.ones((4, 2)), np.ones((5, 2))), ValueError, "w_q"),
        (lambda: logit_terms(np.ones((3, 4)), np.ones((3, 4)), np.ones((2, 4)), np.ones((2, 4))), ValueError, "d_model=4"),
        (lambda: attention_weights(np.ones((3, 4))), ValueError, "seq_len, seq_len"),
        (lambda: attention_weights(np.array([["a"]])), TypeError, "logits"),
        (lambda: offset_head(2, 7), ValueError, "d_model"),
        (lambda: offset_head(2, 8, sharpness="big"), TypeError, "sharpness"),
        (lambda: offset_head(float("nan"), 8), ValueError, "offset"),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_weight_on_offset_reads_the_diagonal_below():
    weights = np.arange(2 * 16, dtype=float).reshape(2, 4, 4)
    result = weight_on_offset(weights, 2)
    np.testing.assert_array_equal(result[:, 2:], [[8.0, 13.0], [24.0, 29.0]])
    assert np.isnan(result[:, :2]).all()
    np.testing.assert_array_equal(weight_on_offset(np.eye(3), 0), [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="offset"):
        weight_on_offset(np.eye(3), -1)
    with pytest.raises(TypeError, match="offset"):
        weight_on_offset(np.eye(3), 1.5)


def test_weight_from_offset_sums_the_weight_on_offsets_at_or_beyond_it():
    weights = attention_weights(np.random.default_rng(4).normal(size=(2, 9, 9)), causal=True)
    for min_offset in (0, 1, 3, 8):
        total = sum(np.nan_to_num(weight_on_offset(weights, k)) for k in range(min_offset, 9))
        got = weight_from_offset(weights, min_offset)
        assert np.all(np.isnan(got[..., :min_offset]))
        np.testing.assert_allclose(got[..., min_offset:], total[..., min_offset:], atol=1e-15)
    np.testing.assert_allclose(weight_from_offset(weights, 0), 1.0, atol=1e-15)  # rows sum to 1
    with pytest.raises(ValueError, match="min_offset"):
        weight_from_offset(weights, -1)
    with pytest.raises(TypeError, match="min_offset"):
        weight_from_offset(weights, 1.5)


def test_the_plain_dot_product_cannot_tell_before_from_after_but_the_rotation_head_can():
    # PE_p . PE_(p+k) is even in k; the head's bilinear form R(2) is not symmetric, and its score is not
    pe = sinusoidal_encoding(np.arange(40), 32)
    p = 20
    np.testing.assert_allclose(pe[p] @ pe[p - 2], pe[p] @ pe[p + 2], rtol=1e-14)
    w_q, w_k = offset_head(2, 32)
    scores = (pe @ w_q) @ (pe @ w_k).T
    assert scores[p, p - 2] > scores[p, p + 2] + 1.0
    symmetric = (w_q @ w_k.T + (w_q @ w_k.T).T) / 2
    np.testing.assert_allclose(pe[p] @ symmetric @ pe[p - 2], pe[p] @ symmetric @ pe[p + 2], rtol=1e-12)


def test_most_attended_offset_is_the_distance_to_the_largest_weight():
    weights = attention_weights(np.random.default_rng(3).normal(size=(2, 7, 7)), causal=True)
    offsets = most_attended_offset(weights)
    assert offsets.shape == (2, 7) and offsets.dtype.kind == "i"
    for head in range(2):
        for p in range(7):
            assert weights[head, p, p - offsets[head, p]] == weights[head, p].max()
    assert np.all(offsets >= 0)  # causal: never ahead
    w_q, w_k = offset_head(3, 32, sharpness=8.0)
    pe = sinusoidal_encoding(np.arange(50), 32)
    assert np.all(most_attended_offset(attention_weights((pe @ w_q) @ (pe @ w_k).T, causal=True))[3:] == 3)
    with pytest.raises(ValueError, match="seq_len, seq_len"):
        most_attended_offset(np.ones((2, 3)))


def alibi_profiles(query: int) -> np.ndarray:
    """Each of the four ALiBi heads' weights on the keys 0, 1, ..., query back, for keys of equal content."""
    distances = np.subtract.outer(np.arange(query + 1), np.arange(query + 1))
    return np.stack([attention_weights(-slope * distances, causal=True)[query, ::-1]
                     for slope in alibi_slopes(4).tolist()])


def test_no_mix_of_the_four_alibi_heads_singles_out_offset_two():
    """Chapter 6: the best mix beats every other offset at offset 2 by about 0.01 of its weight; R(2)'s head by 0.99."""
    for query, bound in [(15, 0.02), (63, 0.002)]:
        best = best_mix_margin(alibi_profiles(query), 2)
        assert 0 < best.margin < bound
        weights = best.mix @ alibi_profiles(query)
        np.testing.assert_allclose(weights, best.weights, atol=1e-12)
        assert np.abs(weights).sum() == pytest.approx(1.0, abs=1e-9)  # the margin is per unit of weight
        others = np.abs(np.delete(weights, 2)).max()
        assert weights[2] - others == pytest.approx(best.margin, abs=1e-9)
    pe = sinusoidal_encoding(np.arange(16), 32)
    w_q, w_k = offset_head(2, 32, sharpness=8.0)
    built = attention_weights((pe @ w_q) @ (pe @ w_k).T, causal=True)[15, ::-1]
    assert best_mix_margin(built[None, :], 2).margin > 0.95


def test_the_best_mix_margin_is_no_mix_for_one_decaying_head_and_a_difference_for_two():
    assert best_mix_margin([[0.5, 0.3, 0.2]], 2).margin == 0.0
    best = best_mix_margin([[0.5, 0.3, 0.2], [0.6, 0.3, 0.1]], 2)
    assert best.margin == pytest.approx(0.4375, abs=1e-9)
    # no mix can do better than any single head rescaled, nor than putting everything on the offset
    assert best_mix_margin([[0.0, 0.0, 1.0]], 2).margin == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: best_mix_margin(np.ones(3), 1), ValueError, "profiles"),
        (lambda: best_mix_margin(np.zeros((2, 3)), 1), ValueError, "non-zero"),
        (lambda: best_mix_margin(np.ones((2, 3)), 3), ValueError, "offset"),
        (lambda: best_mix_margin(np.ones((2, 3)), 1.5), TypeError, "offset"),
        (lambda: best_mix_margin([["a"]], 0), TypeError, "profiles"),
    ],
)
def test_best_mix_margin_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
