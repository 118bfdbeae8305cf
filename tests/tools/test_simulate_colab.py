"""tools/simulate_colab.py: what the Colab run compares with the committed notebook, in which order it runs, and
what preparing its environment needs."""

import json
import subprocess
import sys
from pathlib import Path

from book_links import READER_NOTEBOOKS
from simulate_colab import LONGEST, compared, problems_with, text_outputs


def cell(*outputs, tags=()):
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": "", "outputs": list(outputs)}


def shown(data):
    return {"output_type": "display_data", "data": data, "metadata": {}}


def test_every_kind_of_output_nbval_compares_is_compared_and_pictures_are_not():
    listing = shown({"text/markdown": "```python\ndef f(): ...\n```", "text/plain": "<Markdown>"})
    edited = shown({"text/markdown": "```python\ndef g(): ...\n```", "text/plain": "<Markdown>"})
    assert text_outputs(cell(listing)) != text_outputs(cell(edited))  # a listing whose text/plain is the same
    picture = shown({"image/png": "AAAA", "text/plain": "<Figure>"})
    redrawn = shown({"image/png": "BBBB", "text/plain": "<Figure>"})
    assert text_outputs(cell(picture)) == text_outputs(cell(redrawn))


def test_streams_split_differently_compare_equal():
    whole = {"output_type": "stream", "name": "stdout", "text": "a\nb\n"}
    parts = [{"output_type": "stream", "name": "stdout", "text": "a\n"},
             {"output_type": "stream", "name": "stdout", "text": "b\n"}]
    assert text_outputs(cell(whole)) == text_outputs(cell(*parts))


def test_a_cell_tagged_for_nbval_is_not_compared_and_a_differing_output_is_a_problem(tmp_path):
    setup = cell({"output_type": "stream", "name": "stdout", "text": "pip says\n"})
    stored = [setup, cell({"output_type": "stream", "name": "stdout", "text": "0.5\n"}),
              cell({"output_type": "stream", "name": "stdout", "text": "took 3 s\n"}, tags=["nbval-ignore-output"])]
    ran = [setup, cell({"output_type": "stream", "name": "stdout", "text": "0.25\n"}),
           cell({"output_type": "stream", "name": "stdout", "text": "took 4 s\n"}, tags=["nbval-ignore-output"])]
    assert not compared(stored[2])
    (tmp_path / "stored.ipynb").write_text(json.dumps({"cells": stored}))
    (tmp_path / "ran.ipynb").write_text(json.dumps({"cells": ran}))
    found = problems_with(tmp_path / "ran.ipynb", tmp_path / "stored.ipynb")
    assert len(found) == 1 and found[0].startswith("cell 1: output differs")


def test_the_longest_chapter_it_starts_first_is_a_reader_notebook():
    assert (READER_NOTEBOOKS / f"{LONGEST}.ipynb").is_file()


def test_preparing_colabs_environment_needs_only_the_standard_library():
    """`make test` starts `simulate_colab.py --prepare` with the machine's python3 before the book's environment
    exists: nothing it imports may come from outside the standard library (`-S`: no site-packages)."""
    result = subprocess.run([sys.executable, "-S", "-c", "import sys; sys.path.insert(0, 'tools'); import simulate_colab"],
                            cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
