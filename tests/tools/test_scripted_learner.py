"""tools/scripted_learner.py: the learner of the Colab simulation reads the feedback the checker really prints.

The learner's cells run here in-process against the companion, as the simulation runs them in a
chapter's kernel, and are judged by the same function; the judge must also catch a learner whose
feedback says something else, whose cell raises, or whose verdict differs.
"""

import pytest
from scripted_learner import LEARNERS, cells, problems, run_in_process

from companion.exercises.feedback import reset_hints

# The simulation's requirement (issue 25): a learner in at least two chapters, each wrong then right.
CHAPTERS = sorted(LEARNERS)


def test_the_learner_works_in_at_least_two_chapters():
    assert len(CHAPTERS) >= 2


@pytest.mark.parametrize("stem", CHAPTERS)
def test_the_learner_answers_wrong_reads_the_feedback_then_answers_right(stem):
    reset_hints()  # a new kernel: the chapter's own cells give no hint
    ran = run_in_process(stem)
    assert problems(stem, ran) == []
    shown = [step.shows for step in LEARNERS[stem] if step.shows is not None]
    assert "False" in shown and shown[-1] == "True"
    for exercise in {label for step in LEARNERS[stem] for label in _checked(step.code)}:
        verdicts = [step.shows for step in LEARNERS[stem] if exercise in _checked(step.code)]
        assert verdicts.index("False") < verdicts.index("True"), exercise  # wrong first, then right


def _checked(code):
    return {line.split('"')[1] for line in code.splitlines() if line.startswith("check(")}


def test_the_judge_catches_other_feedback_an_error_and_another_verdict():
    reset_hints()
    ran = run_in_process("02_loop_version")
    first = ran[0]
    reworded = {**first, "outputs": [{"output_type": "stream", "name": "stdout", "text": "ex-first-return: right\n"},
                                     first["outputs"][-1]]}
    assert any("does not say" in problem for problem in problems("02_loop_version", [reworded, *ran[1:]]))
    failed = {**first, "outputs": [{"output_type": "error", "ename": "NameError", "evalue": "name 'check' is not defined"}]}
    assert any("NameError" in problem for problem in problems("02_loop_version", [failed, *ran[1:]]))
    flipped = {**first, "outputs": [*first["outputs"][:-1], {"output_type": "execute_result",
                                                             "data": {"text/plain": "True"}}]}
    assert any("shows ['True']" in problem for problem in problems("02_loop_version", [flipped, *ran[1:]]))
    assert problems("02_loop_version", ran[:-1]) != []


def test_the_cells_are_code_cells_to_append_to_a_notebook():
    for stem in CHAPTERS:
        appended = cells(stem)
        assert [cell["source"] for cell in appended] == [step.code for step in LEARNERS[stem]]
        assert all(cell["cell_type"] == "code" and cell["outputs"] == [] for cell in appended)
        assert len({cell["id"] for cell in appended}) == len(appended)
