"""tools/figure_text.py: every PNG a chapter's kernel writes is measured, and named by its cell and order."""

import base64
import json
import subprocess
import sys

import nbformat
from figure_text import ROOT, png_size, source_key

CELLS = [
    "import matplotlib.pyplot as plt\nprint('no figure here')",
    "fig, ax = plt.subplots(figsize=(4, 3))\nax.set_title('Big', fontsize=14)\nax.set_xlabel('small', fontsize=6)\n"
    "plt.show()\nfig, ax = plt.subplots(figsize=(2, 2))\nax.set_xticks([])\nax.set_yticks([])\nplt.show()",
]


def test_a_kernel_run_records_each_figures_smallest_text(tmp_path, monkeypatch):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS])
    path = tmp_path / "figures.ipynb"
    nbformat.write(notebook, path)
    out = tmp_path / "figure-text.json"
    work = tmp_path / "work"
    script = (f"import sys; sys.path.insert(0, {str(ROOT / 'tools')!r}); import figure_text; "
              f"from pathlib import Path; figure_text.OUT = Path({str(out)!r}); figure_text.WORK = Path({str(work)!r}); "
              f"sys.exit(figure_text.main(['record', '--', sys.executable, '-m', 'jupyter', 'nbconvert', '--to', "
              f"'notebook', '--execute', '--output', {str(tmp_path / 'ran.ipynb')!r}, {str(path)!r}]))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    records = json.loads(out.read_text())
    ran = nbformat.read(tmp_path / "ran.ipynb", as_version=4)
    assert [output.output_type for output in ran.cells[0].outputs] == ["stream"]  # nothing added to what it prints
    assert [(record["cell"], record["index"]) for record in records] == [(source_key(CELLS[1]), 0),
                                                                          (source_key(CELLS[1]), 1)]
    first, second = records
    assert first["points"] == 6 and first["text"] == "small" and first["tight"]
    assert abs(first["pixels"] - 6 * first["dpi"] / 72) < 1e-9
    assert second["points"] is None  # no text at all
    stored = [png_size(base64.b64decode(output.data["image/png"])) for output in ran.cells[1].outputs]
    assert stored == [(first["width"], first["height"]), (second["width"], second["height"])]


def test_png_size_reads_the_header_and_refuses_other_data():
    header = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big")
    assert png_size(header) == (640, 480) and png_size(b"GIF89a" + bytes(20)) is None
