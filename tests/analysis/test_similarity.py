import numpy as np
import pytest
import torch

from companion import cosine_similarity


def test_known_angles():
    assert cosine_similarity([1, 0], [0, 3]) == 0.0
    assert cosine_similarity([2, 2], [1, 1]) == pytest.approx(1.0)
    assert cosine_similarity([1, 0], [-1, 0]) == -1.0
    assert cosine_similarity([1, 0], [1, 1]) == pytest.approx(np.sqrt(0.5))


def test_is_scale_invariant_and_symmetric():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 50))
    assert cosine_similarity(a, b) == pytest.approx(cosine_similarity(b * 3.0, a * 0.5), rel=1e-14)


def test_broadcasts_over_leading_axes():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(2, 4, 7))
    np.testing.assert_allclose(cosine_similarity(a, b), [cosine_similarity(x, y) for x, y in zip(a, b)])


def test_accepts_float32_and_tensors():
    a, b = torch.tensor([1.0, 2.0]), np.array([2.0, 1.0], dtype=np.float32)
    assert cosine_similarity(a, b) == pytest.approx(0.8)


@pytest.mark.parametrize(
    "a, b, message",
    [([0, 0], [1, 1], "non-zero norm"), ([1, 2], [1, 2, 3], "same non-zero length"), ([], [], "same non-zero length"),
     (1.0, 2.0, "same non-zero length")],
)
def test_rejects_undefined_cases(a, b, message):
    with pytest.raises(ValueError, match=message):
        cosine_similarity(a, b)


@pytest.mark.parametrize("scale", [1e200, 1e-200, 1e-310])
def test_scale_invariant_at_the_ends_of_the_float_range(scale):
    assert cosine_similarity([scale, scale], [1, 1]) == 1.0
    assert cosine_similarity([scale, 0], [0, scale]) == 0.0
    assert cosine_similarity([scale, 2 * scale], [2, 1]) == pytest.approx(0.8, rel=1e-15)


def test_only_an_exact_zero_vector_is_undefined():
    assert cosine_similarity([1e-320, 0], [1, 0]) == 1.0
    with pytest.raises(ValueError, match="non-zero norm"):
        cosine_similarity([0.0, 0.0], [1e-320, 0])


def test_non_finite_vectors_are_refused():
    with pytest.raises(ValueError, match="finite"):
        cosine_similarity([np.inf, 1], [1, 1])
