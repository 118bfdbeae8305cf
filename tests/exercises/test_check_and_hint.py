"""How check and hint behave for a reader: unanswered cells, wrong kinds, hints, tensors, and no torch on import."""

import subprocess
import sys

import numpy as np
import pytest

from companion.exercises import UnknownExercise, check, exercises, hint
from companion.exercises.feedback import reset_hints, unanswered_message
from companion.exercises.registry import all_exercises


@pytest.fixture(autouse=True)
def fresh_hints():
    reset_hints()


def said(capsys) -> str:
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("label", exercises())
def test_an_unanswered_check_prints_its_fixed_message_and_is_false(label, capsys):
    assert check(label, ...) is False
    out = capsys.readouterr().out
    assert out == check_output(label)
    assert "no answer yet" in out and f'hint("{label}")' in " ".join(out.split())


def check_output(label):
    from companion.exercises.feedback import WIDTH
    import textwrap

    return textwrap.fill(unanswered_message(label), WIDTH, break_on_hyphens=False) + "\n"


@pytest.mark.parametrize("answer, refusal", [
    ("22", "not the string '22'. Write it without quotes."),
    (22.5, "22.5 is not whole"),
    (np.array([22, 23]), "This exercise takes a whole number (the smallest d_model with positions 0 to 1000"),
    (float("nan"), "finite"),
    (True, "not True or False"),
])
def test_a_number_of_the_wrong_kind_is_refused_with_what_to_write(answer, refusal, capsys):
    assert check("ex-half-apart", answer) is False
    out = said(capsys)
    assert out.startswith("ex-half-apart: not checked.") and refusal in out


@pytest.mark.parametrize("answer", [{"x": 1}, None, object()])
def test_an_answer_no_part_takes_is_refused_with_what_the_exercise_takes(answer, capsys):
    assert check("ex-column-loop", answer) is False
    out = said(capsys)
    assert "not checked. This exercise takes a number (the exponent x of column 7" in out
    assert "or a function (your loop by columns" in out


def test_an_unknown_choice_is_refused_with_the_options(capsys):
    assert check("ex-similarity-width", "bigger") is False
    assert "one of 'much larger', 'much smaller', 'about the same'; 'bigger' is none of them" in said(capsys)


def test_choices_ignore_case_and_spaces_and_yes_no_take_booleans(capsys):
    assert check("ex-similarity-width", "  About the SAME ") is True
    assert check("ex-first-return", False) is True
    assert check("ex-rotations-compose", "R(-7)=R(7)^T") is True
    assert check("ex-equivariance", "P @ softmax(S) @ P.T") is True


def test_a_function_that_raises_is_reported_not_raised(capsys):
    def column_loop(seq_len, d_model):
        raise ZeroDivisionError("oops")

    assert check("ex-column-loop", column_loop) is False
    assert "Calling column_loop(50, 64) raised ZeroDivisionError: oops" in said(capsys)


def test_a_function_returning_the_wrong_kind_is_refused(capsys):
    assert check("ex-column-loop", lambda seq_len, d_model: "table") is False
    assert "should return the table" in said(capsys)


def test_a_table_where_a_function_is_asked_is_refused(capsys):
    assert check("ex-column-loop", np.zeros((3, 3))) is False
    assert "not checked. This exercise takes" in said(capsys)


def test_an_unrecognised_wrong_answer_gets_the_first_hint_and_hint_then_gives_the_second(capsys):
    hints = all_exercises()["ex-half-apart"].hints
    assert check("ex-half-apart", 77) is False
    out = said(capsys)
    assert "not yet (checked exactly)." in out and f"Hint 1 of 3: {' '.join(hints[0].split())}" in out
    hint("ex-half-apart")
    assert f"Hint 2 of 3: {' '.join(hints[1].split())}" in said(capsys)


def test_hint_gives_the_next_hint_each_call_then_starts_again(capsys):
    hints = all_exercises()["ex-fit-shift"].hints
    for number in [1, 2, 3, 1]:
        hint("ex-fit-shift")
        out = said(capsys)
        assert f"Hint {number} of 3" in out and " ".join(hints[number - 1].split()) in out
        assert ("the solution is one click away" in out) == (number == 3)


def test_the_tolerance_is_stated_and_applied(capsys):
    assert check("ex-longer-vectors", 0.9853) is True
    assert "checked to within 0.002" in said(capsys)
    assert check("ex-longer-vectors", 0.99) is False


def test_numpy_scalars_zero_d_arrays_and_lists_are_read(capsys):
    assert check("ex-first-return", np.int64(22)) is True
    assert check("ex-first-return", np.array(22.0)) is True
    assert check("ex-key-behind", [50, 47]) is True
    assert check("ex-key-behind", np.array([50, 47])) is True


def test_torch_tensors_are_read():
    torch = pytest.importorskip("torch")
    assert check("ex-first-return", torch.tensor(22)) is True
    assert check("ex-decoding-without-offset",
                 torch.from_numpy(np.tile([0.0, 1.0] * 8, (5, 1))).float()) is True
    eigenvalues = torch.linalg.eigvals(torch.from_numpy(__import__("companion.analysis.linearity",
                                                                   fromlist=["x"]).rotation_matrix(7, 8)))
    assert check("ex-rotation-eigenvalues", eigenvalues) is True


def test_an_unknown_label_raises_a_message_that_suggests_the_nearest_and_renders_without_a_traceback():
    with pytest.raises(UnknownExercise, match="did you mean 'ex-column-loop'") as raised:
        check("ex-colum-loop", 3)
    assert raised.value._render_traceback_() == [f"UnknownExercise: {raised.value}"]
    with pytest.raises(UnknownExercise, match="a string such as"):
        hint(3)


def test_importing_the_checker_does_not_import_torch():
    code = ("import sys, companion.exercises as e; e.check('ex-first-return', 22); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
