"""Each figure of the book with the size of its smallest text: what the legibility tests measure.

The sizes are recorded while the chapters execute (tools/figure_text.py, during the native nbval run
of `make test`, written to _build/figure-text.json): for every PNG a cell wrote, the smallest text's
size in points and in the PNG's pixels, and the PNG's size. Here each PNG output stored in a notebook
of the book is matched to its record (by its cell's source and its place among that cell's PNGs;
the record's PNG must have the stored one's size) and to the file the built site shows it from. A
test then scales the smallest text to the width the figure is drawn at: on screen (CSS pixels) or
on paper (points).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from functools import cache

import pytest
from book_links import toc_notebooks
from figure_text import OUT as RECORDS
from figure_text import png_size, source_key

from .conftest import ROOT

#: The smallest text a reader must be able to read: on screen at 1280 px, and printed.
DESKTOP_MINIMUM_PX = 10.0
PRINT_MINIMUM_PT = 7.0


@dataclass(frozen=True)
class Figure:
    page: str  # the page of the site that shows it, "notebooks/02_loop_version.html"
    cell: int  # the index of its cell in the notebook
    file: str  # its file in the site's _images
    width: int  # its PNG's width in pixels
    height: int
    smallest_px: float  # its smallest text, in the PNG's pixels
    smallest: str  # that text, and its size in points

    @property
    def where(self) -> str:
        return f"{self.page.removeprefix('notebooks/').removesuffix('.html')}, cell {self.cell}"

    def css_px(self, drawn_width: float) -> float:
        """The smallest text's height in CSS pixels when the PNG is drawn `drawn_width` CSS pixels wide."""
        return self.smallest_px * drawn_width / self.width

    def points(self, printed_width_pt: float) -> float:
        """The smallest text's size in points when the PNG is printed `printed_width_pt` points wide."""
        return self.smallest_px * printed_width_pt / self.width


@cache
def book_figures() -> tuple[Figure, ...]:
    """Every PNG output of the book's notebooks that has text, with its record."""
    if not RECORDS.is_file():
        pytest.fail(f"no record of the figures' text ({RECORDS.relative_to(ROOT)}): run the chapters with "
                    "`python tools/figure_text.py record -- <nbval command>` (`make test` and `make nbval` do)")
    records = {(record["cell"], record["index"]): record for record in json.loads(RECORDS.read_text())}
    found, stale = [], []
    for notebook in toc_notebooks():
        page = f"{notebook.relative_to(ROOT).with_suffix('').as_posix()}.html"
        for index, cell in enumerate(json.loads(notebook.read_text())["cells"]):
            if cell["cell_type"] != "code":
                continue
            key = source_key("".join(cell["source"]))
            pngs = [output["data"]["image/png"] for output in cell.get("outputs", [])
                    if "image/png" in output.get("data", {})]
            for order, png in enumerate(pngs):
                data = base64.b64decode(png)
                record = records.get((key, order))
                width, height = png_size(data)
                if record is None or abs(record["width"] - width) > 2 or abs(record["height"] - height) > 2:
                    stale.append(f"{page}, cell {index}")
                    continue
                if record["pixels"] is None:
                    continue  # a figure without text
                found.append(Figure(page, index, f"{hashlib.sha256(data).hexdigest()}.png", width, height,
                                    record["pixels"], f"{record['text']!r} at {record['points']:g} pt"))
    if stale:
        pytest.fail(f"figures stored in the notebooks that the last run did not draw alike (execute these "
                    f"chapters again and commit them, then rerun nbval with tools/figure_text.py): {stale}")
    return tuple(found)


def _multiply(first, second):
    """The PDF matrix product first x second ([a b c d e f], as a content stream's cm operator takes them)."""
    a, b, c, d, e, f = first
    A, B, C, D, E, F = second
    return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F]


def printed_images(pdf):
    """Every image the PDF draws: (page number, the image object, its width on the page in points).

    The page's content streams are walked with the graphics state's matrix (``q``, ``Q``, ``cm``),
    into the forms they draw (Chromium draws each image through a form).
    """
    from pypdf.generic import ContentStream

    found = []

    def walk(contents, resources, matrix, number):
        objects = resources.get("/XObject") if resources else None
        objects = objects.get_object() if objects else {}
        stack = []
        for operands, operator in ContentStream(contents, pdf).operations:
            if operator == b"q":
                stack.append(matrix)
            elif operator == b"Q":
                matrix = stack.pop() if stack else matrix
            elif operator == b"cm":
                matrix = _multiply([float(value) for value in operands], matrix)
            elif operator == b"Do" and operands[0] in objects:
                drawn = objects[operands[0]].get_object()
                if drawn.get("/Subtype") == "/Image":
                    found.append((number, drawn, (matrix[0] ** 2 + matrix[1] ** 2) ** 0.5))
                elif drawn.get("/Subtype") == "/Form":
                    inner = _multiply([float(value) for value in drawn.get("/Matrix", [1, 0, 0, 1, 0, 0])], matrix)
                    walk(drawn, drawn.get("/Resources"), inner, number)

    for number, page in enumerate(pdf.pages, start=1):
        contents = page.get_contents()
        if contents is not None:
            walk(contents, page.get("/Resources"), [1, 0, 0, 1, 0, 0], number)
    return found


def fingerprint(image) -> bytes:
    """A figure's look, small: 24 x 24 grey levels (PIL image), to tell same-sized figures apart."""
    return image.convert("L").resize((24, 24)).tobytes()


def alike(first: bytes, second: bytes) -> bool:
    return sum(abs(a - b) for a, b in zip(first, second)) / len(first) < 6
