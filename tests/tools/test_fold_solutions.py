"""tools/fold_solutions.py folds the code cells of gated solutions, and nothing else."""

import nbformat
from fold_solutions import fold, folded, main, solution_code_cells


def notebook(tmp_path):
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [code("x = 1"), md("````{solution-start} exercise-a\n:class: dropdown\n````"), code("assert x == 1"),
             code("print(x)", outputs=[nbformat.v4.new_output("stream", text="1\n")]),
             md("````{solution-end}\n````"), code("y = 2"), md("```{solution} exercise-b\nProse only.\n```")]
    path = tmp_path / "chapter.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def test_the_cells_inside_a_gated_solution_are_found(tmp_path):
    assert solution_code_cells(nbformat.read(notebook(tmp_path), as_version=4)) == [2, 3]


def test_folding_sets_source_hidden_and_outputs_hidden_where_there_are_outputs_only(tmp_path):
    path = notebook(tmp_path)
    before = nbformat.read(path, as_version=4)
    assert main(["--check", str(path)]) == 1 and nbformat.read(path, as_version=4) == before
    assert fold(path) == [2, 3] and fold(path) == []
    after = nbformat.read(path, as_version=4)
    assert after.cells[2].metadata["jupyter"] == {"source_hidden": True}
    assert after.cells[3].metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert all(folded(after.cells[index]) for index in (2, 3)) and not folded(after.cells[0])
    assert [cell.source for cell in after.cells] == [cell.source for cell in before.cells]
    assert [cell.metadata for index, cell in enumerate(after.cells) if index not in (2, 3)] == \
           [cell.metadata for index, cell in enumerate(before.cells) if index not in (2, 3)]
    assert main(["--check", str(path)]) == 0
