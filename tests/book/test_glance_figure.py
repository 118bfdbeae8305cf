"""The picture of "The encoding at a glance" is what the companion draws, drawn when the book is built.

The page (book/glance.md) shows ``book/_generated/glance.png``, which the Sphinx extension
``book/_ext/glance_figure.py`` writes from :func:`companion.book.glance.write_glance_figure` before the
pages are read; the file is not committed. The figure itself holds the encoding: its heatmap is the
table, its clock hands point where the pairs' angles say.
"""

import importlib.util
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pytest
import yaml
from PIL import Image

from companion import angular_frequencies, sinusoidal_encoding
from companion.book.glance import (
    GLANCE_CLOCK_PAIRS,
    GLANCE_D_MODEL,
    GLANCE_POSITIONS,
    glance_figure,
    write_glance_figure,
)

ROOT = Path(__file__).parents[2]
PAGE = ROOT / "book" / "glance.md"


def extension():
    spec = importlib.util.spec_from_file_location("glance_figure", ROOT / "book" / "_ext" / "glance_figure.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_shows_the_image_the_build_draws_and_git_does_not_keep():
    figures = re.findall(r"^```\{figure\} (\S+)", PAGE.read_text(), re.MULTILINE)
    assert len(figures) == 1  # one picture on the one page
    shown = (PAGE.parent / figures[0]).resolve()
    assert shown == (ROOT / extension().GLANCE_FIGURE).resolve()
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["local_extensions"]["glance_figure"] == "book/_ext"
    relative = shown.relative_to(ROOT).as_posix()
    ignored = subprocess.run(["git", "check-ignore", "-q", relative], cwd=ROOT)
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", relative], cwd=ROOT, capture_output=True)
    assert ignored.returncode == 0 and tracked.returncode != 0  # drawn by every build, never a stale copy


def test_the_build_writes_the_companions_drawing(tmp_path):
    extension().draw(SimpleNamespace(srcdir=str(tmp_path)))
    built = tmp_path / extension().GLANCE_FIGURE
    fresh = write_glance_figure(tmp_path / "fresh.png")
    with Image.open(built) as drawn, Image.open(fresh) as expected:
        assert drawn.size == expected.size
        assert np.array_equal(np.asarray(drawn), np.asarray(expected))
    assert built.read_bytes() == fresh.read_bytes()  # no date in the file: the same drawing, the same bytes


def test_the_heatmap_is_the_table_and_the_hands_point_at_the_last_positions_angles():
    figure = glance_figure()
    try:
        heatmap, clocks = figure.axes[0], figure.axes[2:]
        table = sinusoidal_encoding(np.arange(GLANCE_POSITIONS), GLANCE_D_MODEL)
        np.testing.assert_array_equal(heatmap.images[0].get_array(), table)
        assert len(clocks) == len(GLANCE_CLOCK_PAIRS)
        last = GLANCE_POSITIONS - 1
        for pair, ax in zip(GLANCE_CLOCK_PAIRS, clocks):
            (hand,) = [line for line in ax.lines if line.get_gid() == "hand"]
            angle = last * angular_frequencies(GLANCE_D_MODEL)[pair]
            # sine across, cosine up, as the clocks of chapter 2
            np.testing.assert_allclose(hand.get_xdata()[1], np.sin(angle), atol=1e-12)
            np.testing.assert_allclose(hand.get_ydata()[1], np.cos(angle), atol=1e-12)
            assert ax.get_title().startswith(f"pair {pair}: a turn in ")
    finally:
        plt.close(figure)


def test_the_picture_is_wide_and_short_enough_for_its_page(tmp_path):
    with Image.open(write_glance_figure(tmp_path / "glance.png")) as image:
        width, height = image.size
    assert width / height >= 2.5  # with the formula and six points, on one printed page


def test_write_glance_figure_refuses_another_format(tmp_path):
    with pytest.raises(ValueError, match="must name a .png file"):
        write_glance_figure(tmp_path / "glance.svg")
