import numpy as np
import sympy

from companion import sinusoidal_encoding
from companion.analysis.symbolic import paper_frequency, symbolic_encoding, symbolic_rotation

p, k, a, b = sympy.symbols("p k a b", real=True)


def test_shift_identity_holds_exactly_for_symbolic_frequencies():
    omegas = sympy.symbols("omega_0:3", positive=True)
    residual = symbolic_rotation(k, omegas) * symbolic_encoding(p, omegas) - symbolic_encoding(p + k, omegas)
    assert sympy.simplify(residual) == sympy.zeros(6, 1)


def test_shift_identity_holds_for_the_papers_frequency_of_a_symbolic_pair():
    i, d, base = sympy.symbols("i d_model base", positive=True)
    omega = [paper_frequency(i, d, base)]
    residual = symbolic_rotation(k, omega) * symbolic_encoding(p, omega) - symbolic_encoding(p + k, omega)
    assert sympy.simplify(residual) == sympy.zeros(2, 1)


def test_block_algebra():
    omega = [sympy.Symbol("omega", positive=True)]
    r = symbolic_rotation
    assert sympy.simplify(r(a, omega) * r(b, omega) - r(a + b, omega)) == sympy.zeros(2, 2)
    assert sympy.simplify(r(a, omega).T * r(a, omega)) == sympy.eye(2)
    assert sympy.simplify(r(a, omega).det()) == 1
    assert sympy.simplify(r(-a, omega) - r(a, omega).T) == sympy.zeros(2, 2)


def test_a_wrong_matrix_leaves_a_nonzero_residual():
    omega = [sympy.Symbol("omega", positive=True)]
    wrong = symbolic_rotation(k, omega).T  # rotates the other way
    residual = sympy.simplify(wrong * symbolic_encoding(p, omega) - symbolic_encoding(p + k, omega))
    assert residual != sympy.zeros(2, 1)


def test_empty_frequencies_are_refused():
    import pytest

    with pytest.raises(ValueError, match="at least one angular frequency"):
        symbolic_encoding(p, [])
    with pytest.raises(ValueError, match="at least one angular frequency"):
        symbolic_rotation(k, [])


def test_consecutive_positions_determine_the_map_exactly_though_float64_barely_sees_it():
    # d_model consecutive positions have linearly independent encodings (a Vandermonde argument), so
    # they determine R(k); the chapter shows it at width 8 with sympy, 50 digits. The determinant is
    # tiny, and the same at 100 digits, while float64 sees a condition number above 1e10.
    frequencies = [paper_frequency(i, 8, 10_000) for i in range(4)]
    table = sympy.Matrix.vstack(*[symbolic_encoding(n, frequencies).T for n in range(8)])
    determinants = [sympy.N(table, digits).det(method="berkowitz") for digits in (50, 100)]
    assert 1e-23 < determinants[0] < 1e-22
    assert abs(determinants[0] - determinants[1]) < 1e-12 * determinants[1]
    assert np.linalg.cond(sinusoidal_encoding(np.arange(8), 8)) > 1e10
