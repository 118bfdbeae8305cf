"""What check says of a wrong answer it can diagnose: a shape, float32 rounding, too few digits, a part's hint.

Each case is one a learner met (reports/learner-exercises.md): the layer's own output of shape
(1, 5, 16), a float32 table or tensor, eigenvalue angles predicted by hand, the identity matrix where
another commuting block is asked, a complex matrix, a wrong number in a two-part exercise.
"""

import io
import warnings
from contextlib import redirect_stdout

import numpy as np
import pytest

from companion import loop_encoding, sinusoidal_encoding
from companion.analysis.linearity import one_function_shift_matrix, rotation_matrix
from companion.book.sources import doubled_exponent_encoding
from companion.exercises import check, exercises, hint
from companion.exercises.answers import Choice, Several
from companion.exercises.feedback import reset_hints
from companion.exercises.registry import all_exercises

EXERCISES = all_exercises()
PARTS = [(label, index) for label, exercise in EXERCISES.items() for index in range(len(exercise.parts))]


@pytest.fixture(autouse=True)
def fresh_hints():
    reset_hints()


def said(capsys) -> str:
    return " ".join(capsys.readouterr().out.split())


def first_rows(n=5, d=16):
    return np.tile(sinusoidal_encoding([0], d), (n, 1))


# 1. Shapes -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("label, answer, told", [
    ("ex-decoding-without-offset", first_rows()[None],
     "expected an array of shape (5, 16), got (1, 5, 16). Only axes of size 1 differ: [0] or .squeeze()"),
    ("ex-decoding-without-offset", first_rows().T,
     "expected an array of shape (5, 16), got (16, 5). Rows and columns are swapped: .T transposes."),
    ("ex-sines-recurrence", np.eye(32), "expected an array of shape (32, 64), got (32, 32)."),
    ("ex-relative-terms", np.eye(4), "expected an array of shape (2, 2), got (4, 4)."),
    ("ex-rotation-eigenvalues", np.angle(np.linalg.eigvals(rotation_matrix(7, 8))).reshape(2, 4),
     "expected an array of shape (8,), got (2, 4). The number of entries is right: .ravel() flattens them."),
    ("ex-column-loop", lambda seq_len, d_model: loop_encoding(seq_len, d_model).T,
     "on the call (50, 64), expected an array of shape (50, 64), got (64, 50)."),
])
def test_an_array_of_another_shape_is_told_its_shape_and_the_expected_one_before_any_hint(label, answer, told, capsys):
    assert check(label, answer) is False
    out = said(capsys)
    assert out.startswith(f"{label}: not yet: ") and told in out
    assert "Hint" not in out


def test_a_named_mistake_of_another_shape_is_still_named(capsys):
    assert check("ex-sines-recurrence", one_function_shift_matrix(7, 64).T) is False
    assert "That is the transposed matrix." in said(capsys)


# 2. float32 ----------------------------------------------------------------------------------------

def float32_loop(seq_len, d_model):
    return loop_encoding(seq_len, d_model).astype(np.float32)


@pytest.mark.parametrize("label, answer", [
    ("ex-column-loop", float32_loop),
    ("ex-sines-recurrence", one_function_shift_matrix(7, 64).astype(np.float32)),
    ("ex-ntk-base", lambda base, scale, d_model: np.float32(base * scale ** (d_model / (d_model - 2)))),
])
def test_an_answer_right_to_float32_rounding_is_told_it_was_computed_in_float32(label, answer, capsys):
    assert check(label, answer) is False  # the tolerance is not loosened
    out = said(capsys)
    assert f"{label}: not yet. That is the right answer computed in float32" in out
    assert "Compute in float64" in out and "Hint" not in out


def test_float32_torch_tensors_are_told_so_too(capsys):
    torch = pytest.importorskip("torch")

    def vectorized_in_float32(seq_len, d_model):  # torch's default dtype, as a learner writes it
        angles = torch.arange(seq_len)[:, None] * 10_000.0 ** (-torch.arange(0, d_model, 2) / d_model)
        table = torch.zeros(seq_len, d_model)
        table[:, 0::2], table[:, 1::2] = torch.sin(angles), torch.cos(angles)
        return table

    cases = [("ex-column-loop", vectorized_in_float32),
             ("ex-sines-recurrence", torch.from_numpy(one_function_shift_matrix(7, 64)).float()),
             ("ex-ntk-base", lambda base, scale, d_model: torch.tensor(base * scale ** (d_model / (d_model - 2))))]
    for label, answer in cases:
        assert check(label, answer) is False
        assert "computed in float32" in said(capsys), label


def test_float32_is_not_named_where_the_tolerance_admits_float32_answers(capsys):
    answer = first_rows().astype(np.float32)
    assert check("ex-decoding-without-offset", answer) is True
    capsys.readouterr()
    assert check("ex-decoding-without-offset", first_rows() + 3e-6) is False  # within 64 float32 eps, beyond 1e-6
    out = said(capsys)
    assert "float32" not in out and "Hint 1 of 3" in out


def test_a_named_mistake_computed_in_float32_is_named(capsys):
    def doubled(seq_len, d_model):
        return doubled_exponent_encoding(np.arange(seq_len), d_model).astype(np.float32)

    assert check("ex-column-loop", doubled) is False
    assert "That is the table with the doubled exponent (the paper's formula with base 10^8), computed in float32." \
        in said(capsys)


# 3. Eigenvalues predicted by hand, angles up to whole turns --------------------------------------

HAND = np.array([0.717, -0.717, 0.7, -0.7, 0.07, -0.07, 0.007, -0.007])


@pytest.mark.parametrize("answer", [
    HAND,  # predicted by hand to three decimals
    np.mod(HAND, 2 * np.pi),  # the same angles in [0, 2 pi)
    np.array([0.717, 2 * np.pi - 0.717, 0.7, -0.7, 0.07, 2 * np.pi - 0.07, 0.007, -0.007]),  # both forms mixed
    np.round(np.angle(np.linalg.eigvals(rotation_matrix(7, 8))), 3)[::-1],  # the solution's print, pasted
    list(np.mod(np.angle(np.linalg.eigvals(rotation_matrix(7, 8))), 2 * np.pi)),
])
def test_eigenvalue_angles_predicted_to_three_decimals_or_in_zero_to_two_pi_are_right(answer, capsys):
    assert check("ex-rotation-eigenvalues", answer) is True
    assert "up to whole turns" in said(capsys)


def test_eigenvalue_angles_to_two_decimals_are_told_they_are_rounded_too_coarsely(capsys):
    assert check("ex-rotation-eigenvalues", np.round(HAND, 2)) is False
    out = said(capsys)
    assert "not yet, but close. That is the right answer rounded too coarsely" in out and "Hint" not in out


@pytest.mark.parametrize("answer, name", [
    (np.array([7, -7, 0.7, -0.7, 0.07, -0.07, 0.007, -0.007]), "angles not wrapped to a turn"),
    (np.degrees(np.angle(np.linalg.eigvals(rotation_matrix(7, 8)))), "angles in degrees"),  # np.degrees of np.angle
])
def test_angles_beyond_one_turn_stay_a_named_mistake(answer, name, capsys):
    assert check("ex-rotation-eigenvalues", answer) is False
    assert f"That is {name}." in said(capsys)


def test_a_wrong_angle_is_still_refused(capsys):
    wrong = HAND.copy()
    wrong[:2] = [0.7, -0.7]  # pair 0 put at pair 1's angle
    assert check("ex-rotation-eigenvalues", wrong) is False
    assert "Hint 1 of 3" in said(capsys)


def test_a_constant_given_to_two_digits_is_told_it_is_close(capsys):
    assert check("ex-neighbour-distance", 0.16) is False
    assert "rounded too coarsely: within 0.01, but not to within 0.001" in said(capsys)
    assert check("ex-neighbour-distance", 0.1614) is True


# 4. ex-relative-terms ------------------------------------------------------------------------------

@pytest.mark.parametrize("answer", [np.eye(2), 3 * np.eye(2), np.zeros((2, 2)), [[-0.5, 0], [0, -0.5]]])
def test_a_multiple_of_the_identity_gets_its_own_named_mistake(answer, capsys):
    assert check("ex-relative-terms", answer) is False
    assert ("not yet. That is a multiple of I: it commutes with every rotation, but the exercise asks for one "
            "that is not.") in said(capsys)


def test_a_complex_matrix_is_refused_with_a_clear_message_and_no_warning(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check("ex-relative-terms", np.diag([1j, 2j])) is False
    assert "not checked. This exercise takes a 2 x 2 matrix with real entries; yours has complex ones." in said(capsys)


def test_a_complex_tensor_is_refused_too(capsys):
    torch = pytest.importorskip("torch")
    assert check("ex-relative-terms", torch.tensor([[1j, 0], [0, 2j]])) is False
    assert "with real entries" in said(capsys)
    assert check("ex-first-return", torch.tensor(22 + 0j)) is False
    assert "a real one" in said(capsys)


# 5. The hint of the part answered --------------------------------------------------------------------

@pytest.mark.parametrize("label, answer, number", [
    ("ex-fit-shift", 0.5, 2),
    ("ex-far-position-same-encoding", 596_275, 2),
    ("ex-row-norm", (10.0, 20.0), 2),
    ("ex-exp-log-forms", 1.0, 2),
    ("ex-nope-beyond", 0.5, 3),
    ("ex-alibi-recency", ("yes", "yes"), 3),
    ("ex-rotations-compose", 3, 1),  # the number part: hint 1 is about composing rotations
    ("ex-half-apart", 77, 1),  # one part: the first hint
])
def test_a_wrong_answer_gets_the_hint_of_the_part_answered_and_hint_goes_on_from_there(label, answer, number, capsys):
    hints = EXERCISES[label].hints
    assert check(label, answer) is False
    assert f"Hint {number} of {len(hints)}" in said(capsys)
    hint(label)
    following = number % len(hints) + 1
    assert f"Hint {following} of {len(hints)}" in said(capsys)


def test_every_part_names_a_hint_of_its_exercise():
    for label, exercise in EXERCISES.items():
        assert all(0 <= part.first_hint < len(exercise.hints) for part in exercise.parts), label


# 6. Wording ----------------------------------------------------------------------------------------

def test_a_small_relative_tolerance_reads_as_a_relative_tolerance_not_zero_percent(capsys):
    assert check("ex-ntk-base", lambda base, scale, d_model: base * scale ** (d_model / (d_model - 2))) is True
    out = said(capsys)
    assert "to within 1e-9 relative" in out and "0%" not in out


@pytest.mark.parametrize("label, index", PARTS, ids=[f"{label}-{index}" for label, index in PARTS])
def test_no_tolerance_reads_zero_percent_or_a_padded_exponent(label, index):
    tolerance = EXERCISES[label].parts[index].kind.tolerance()
    assert " 0%" not in tolerance and "e-0" not in tolerance


def choice_options(kind) -> set[str]:
    if isinstance(kind, Choice):
        return set(kind.options)
    if isinstance(kind, Several):
        return set().union(*(choice_options(item) for item in kind.kinds))
    return set()


@pytest.mark.parametrize("label, index", PARTS, ids=[f"{label}-{index}" for label, index in PARTS])
def test_the_answer_cells_comment_lists_each_option_once(label, index):
    part = EXERCISES[label].parts[index]
    comment = f"Your answer: {part.asks} ({part.kind.brief})."  # as tools/add_answer_cells.py writes it
    for option in choice_options(part.kind):
        assert comment.count(repr(option)) <= 1, (option, comment)


def test_a_refused_choice_lists_its_options_once(capsys):
    assert check("ex-nope-encoder", "maybe") is False
    assert said(capsys).count("'only with more layers'") == 1


def test_a_number_in_quotes_is_told_to_drop_them_where_a_choice_part_also_takes_strings(capsys):
    assert check("ex-rotations-compose", "107") is False
    assert "not the string '107'. Write it without quotes." in said(capsys)


def test_a_long_answer_no_part_takes_is_described_by_its_length_or_shape(capsys):
    assert check("ex-row-norm", tuple(range(30))) is False
    assert "you gave tuple of length 30." in said(capsys)
    assert check("ex-row-norm", np.zeros(1000)) is False
    assert "you gave ndarray of shape (1000,)." in said(capsys)


ODD_ANSWERS = [1e308, -1e308, 1j, np.diag([1j, 2j]), np.full((2, 2), 1e308), np.full((5, 16), -1e308),
               np.ones(8) * 1e300, (1e308, -1e308), [1e308] * 8, np.float32(1e30), np.array(1e308), (1j, 1j),
               lambda *args: np.full((50, 64), 1e308), lambda *args: 1e308, lambda *args: 1j,
               lambda *args: np.ones((3, 3), dtype=complex), "1e999", [[1, 2], [3]]]


@pytest.mark.parametrize("label", exercises())
def test_no_warning_escapes_from_check(label):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for answer in ODD_ANSWERS:
            with redirect_stdout(io.StringIO()):
                assert check(label, answer) is False


def test_the_solution_values_used_here_are_right():
    """The float32 and hand cases above are near misses of these, so these must be right."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert check("ex-column-loop", lambda n, d: loop_encoding(n, d)) is True
        assert check("ex-sines-recurrence", one_function_shift_matrix(7, 64)) is True
        assert check("ex-relative-terms", np.array([[2.0, 0.5], [-0.5, 2.0]])) is True
        assert check("ex-decoding-without-offset", first_rows()) is True
