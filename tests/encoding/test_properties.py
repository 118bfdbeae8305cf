"""Invariants of the encoding, checked on generated widths, bases and positions."""

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

from companion import layout_permutation, loop_encoding, sinusoidal_encoding, torch_sinusoidal_encoding

d_models = st.integers(1, 128).map(lambda half: 2 * half)
bases = st.floats(1.5, 1e6)
positions = st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=1, max_size=20).map(np.array)


@given(positions, d_models, bases)
def test_values_lie_in_the_unit_interval(pos, d_model, base):
    table = sinusoidal_encoding(pos, d_model, base=base)
    assert np.all(np.abs(table) <= 1.0)


@given(positions, d_models, bases)
def test_every_row_has_norm_sqrt_half_d_model(pos, d_model, base):
    norms = np.linalg.norm(sinusoidal_encoding(pos, d_model, base=base), axis=1)
    np.testing.assert_allclose(norms, np.sqrt(d_model / 2), rtol=1e-14)


@given(positions, d_models, bases)
def test_layouts_differ_only_by_a_column_permutation(pos, d_model, base):
    inter = sinusoidal_encoding(pos, d_model, base=base)
    concat = sinusoidal_encoding(pos, d_model, base=base, layout="concatenated")
    np.testing.assert_array_equal(inter[:, layout_permutation(d_model, "interleaved", "concatenated")], concat)


@given(st.integers(0, 40), d_models, bases)
def test_loop_numpy_and_torch_agree(seq_len, d_model, base):
    expected = loop_encoding(seq_len, d_model, base=base)
    np.testing.assert_allclose(sinusoidal_encoding(np.arange(seq_len), d_model, base=base), expected, atol=1e-13)
    got = torch_sinusoidal_encoding(torch.arange(seq_len), d_model, base=base, dtype=torch.float64)
    np.testing.assert_allclose(got.numpy(), expected, atol=1e-13)


@given(
    st.integers(0, 10**4), st.integers(0, 10**4), st.integers(-500, 500), d_models, bases
)
def test_dot_product_depends_only_on_the_offset(p, q, k, d_model, base):
    table = sinusoidal_encoding([p, p + k, q, q + k], d_model, base=base)
    omega = base ** (-np.arange(0, d_model, 2) / d_model)
    expected = np.sum(np.cos(omega * k))
    np.testing.assert_allclose(table[0] @ table[1], expected, atol=1e-10)
    np.testing.assert_allclose(table[2] @ table[3], expected, atol=1e-10)
