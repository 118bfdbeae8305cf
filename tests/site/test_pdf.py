"""The whole-book PDF (`make pdf`, tools/print_book.py), read back with pypdf.

What the PDF must hold is taken from the HTML build of the same sources: every page of _toc.yml
by its title (numbered chapters with their numbers), every theorem-like block by its name, every
bibliography entry, every figure (each explorable figure as its still stand-in, under its caption);
and nothing a reader should not see: raw TeX or MathJax's
error messages, nbval's markers or a check cell. The API reference is condensed to a summary (at most
15% of the pages); the title page credits the authors of _config.yml and carries no page number.
"""

import json
import math
import re
import unicodedata
from collections import Counter
from functools import cache

import pytest
import yaml
from bs4 import BeautifulSoup
from PIL import Image
from pypdf import PdfReader

from .conftest import PDF, ROOT, SITE, book_pages, explorable_figures
from .legibility import PRINT_MINIMUM_PT, alike, book_figures, fingerprint, printed_images

PAGES = book_pages()
# What MathJax left untypeset would show as TeX; what it failed on, as one of its messages.
RAW_TEX = re.compile(r"\\(frac|text|mathrm|begin|end|sum|sin|cos|omega|left|right)\b|\$\$|\\\(|\\\[")
MATHJAX_ERRORS = ["Math input error", "Undefined control sequence", "Missing open brace", "Missing close brace",
                  "Extra open brace", "Extra close brace", "Misplaced &", "Missing argument for"]


def normalized(text: str) -> str:
    """One space between words, ligatures (ﬀ, ﬁ) as letters, typographic quotes as typed."""
    text = unicodedata.normalize("NFKC", text).replace("’", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", text).strip()


@cache
def html(path: str) -> BeautifulSoup:
    return BeautifulSoup((SITE / path).read_text(encoding="utf-8"), "html.parser")


def numbers() -> dict[str, int]:
    """Chapter numbers, as the book gives them: in order through the numbered parts of _toc.yml."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    chapters = [chapter["file"] for part in toc["parts"] if part.get("numbered") for chapter in part["chapters"]]
    return {f"{name}.html": number for number, name in enumerate(chapters, start=1)}


def title(path: str) -> str:
    """The page's title as the PDF prints it: with its number, for a chapter."""
    heading = html(path).select_one("main h1")
    for link in heading.select(".headerlink"):
        link.decompose()
    number = numbers().get(path)
    return (f"{number}. " if number else "") + normalized(heading.get_text(" "))


@pytest.fixture(scope="session")
def pdf() -> PdfReader:
    if not PDF.is_file():
        pytest.fail("the PDF is not built: run `make pdf` (make test does)")
    return PdfReader(PDF)


@pytest.fixture(scope="session")
def extracted(pdf) -> tuple[str, str, Counter, list[str]]:
    """In one pass: the PDF's text; the part of it outside code (not in a monospace font); how
    many characters of that prose are printed at each size, in points; and each page's text."""
    pages, prose, sizes = [], [], Counter()

    def outside_code(text, matrix, text_matrix, font, size):
        if "Mono" not in str((font or {}).get("/BaseFont", "")):
            prose.append(text)
            scale = math.hypot(text_matrix[2], text_matrix[3]) * math.hypot(matrix[2], matrix[3])
            sizes[round(size * scale, 1)] += len(text.strip())

    for page in pdf.pages:
        pages.append(page.extract_text(visitor_text=outside_code))
        prose.append(" ")
    return normalized(" ".join(pages)), normalized("".join(prose)), sizes, [normalized(page) for page in pages]


@pytest.fixture(scope="session")
def text(extracted) -> str:
    return extracted[0]


def config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def test_page_count_is_sane(pdf):
    # Each page of the book starts a page and the chapters run to several: a runaway layout (a word
    # a line, blank pages) or a truncated print lands outside.
    assert 5 * len(PAGES) <= len(pdf.pages) <= 40 * len(PAGES)


def test_every_page_of_the_book_is_there_by_its_title_with_the_chapters_numbered(text):
    # Chapters (notebooks/NN_topic) are numbered; the executable appendix beside them is not.
    chapters = [path for path in PAGES if re.match(r"notebooks/\d\d_", path)]
    assert len(chapters) == 8 and [path for path in chapters if path not in numbers()] == []
    assert [title(path) for path in PAGES if title(path) not in text] == []


def test_the_contents_and_the_bookmarks_give_each_page_of_the_book_where_it_starts(pdf):
    contents = normalized(" ".join(pdf.pages[index].extract_text() for index in range(1, 6)))
    assert "Contents" in contents
    # Chromium drops the space at a line break of a bookmark's title: compare without spaces.
    bookmarks = {normalized(item.title).replace(" ", ""): pdf.get_destination_page_number(item) + 1
                 for item in pdf.outline if not isinstance(item, list)}
    for path in PAGES:
        heading = title(path)
        printed = re.search(re.escape(heading) + r" (\d+)", contents)
        assert printed, f"{heading!r} is not in the contents"
        page = int(printed.group(1))
        assert heading in normalized(pdf.pages[page - 1].extract_text()), (heading, page)
        assert bookmarks[heading.replace(" ", "")] == page


def test_the_glance_is_one_printed_page_with_its_picture(pdf):
    """Issue 24: "The encoding at a glance" fits one page, its picture on it: the next page of the book (the
    reference card) starts on the page after it, as the PDF's bookmarks say."""
    bookmarks = {normalized(item.title).replace(" ", ""): pdf.get_destination_page_number(item)
                 for item in pdf.outline if not isinstance(item, list)}
    glance = PAGES.index("book/glance.html")
    first, following = (bookmarks[title(path).replace(" ", "")] for path in PAGES[glance:glance + 2])
    assert following == first + 1, f"the glance runs over {following - first} pages"
    assert title("book/glance.html") in normalized(pdf.pages[first].extract_text())
    assert len(images(pdf.pages[first].get("/Resources"), set())) == 1


def test_every_theorem_like_block_is_there_by_its_name(text):
    names = [normalized(name.get_text(" ")) for path in PAGES
             for name in html(path).select("div.proof > p.admonition-title")]
    assert any(name.startswith("Theorem") for name in names)
    assert [name for name in names if name not in text] == []


def test_every_bibliography_entry_is_there(text):
    page = next(path for path in PAGES if path.endswith("bibliography.html"))
    entries = [normalized(entry.find("p").get_text(" "))[:40] for entry in html(page).select("div.citation")]
    assert len(entries) > 5
    assert [entry for entry in entries if entry not in text] == []


def test_the_text_is_printed_at_its_size(extracted):
    """The theme's 16 px body text is 12 pt on paper: nothing wider than the column made Chromium
    shrink every page to fit it (tools/print_book.py sets wide formulas and tables smaller)."""
    sizes = extracted[2]
    assert sizes.most_common(1)[0][0] == pytest.approx(12, abs=0.2), sizes.most_common(3)


def test_no_raw_tex_outside_code_and_no_mathjax_error(extracted):
    text, prose, *_ = extracted
    assert len(prose) > len(text) / 3  # the prose is read, not only its code
    assert RAW_TEX.findall(prose) == []  # code may hold TeX (a plot's label), the prose may not
    assert [message for message in MATHJAX_ERRORS if message in text] == []


@pytest.mark.parametrize("raw", ["\\frac{pos}{10000}", "d_{\\text{model}}", "$$x$$", "\\(x\\)", "\\[x\\]",
                                 "\\begin{aligned}", "\\sin(x)"])
def test_raw_tex_is_recognised(raw):
    assert RAW_TEX.search(f"the formula {raw} as printed")


def images(resources, found):
    """Add the ids of the images drawn with `resources` (a page's or a form's) to `found`."""
    objects = resources.get("/XObject") if resources else None
    for reference in (objects.get_object().values() if objects else []):
        drawn = reference.get_object()
        if drawn.get("/Subtype") == "/Image":
            found.add(reference.idnum)
        elif drawn.get("/Subtype") == "/Form":
            images(drawn.get("/Resources"), found)
    return found


def test_every_figure_is_there(pdf):
    figures = {image["src"] for path in PAGES for image in html(path).select("article.bd-article img")}
    printed = set()
    for page in pdf.pages:
        images(page.get("/Resources"), printed)
    assert figures and len(printed) >= len(figures)


def stand_ins() -> dict[str, tuple[str, str, tuple[int, int]]]:
    """Each explorable figure of the HTML book: its caption as printed ("Fig. 2.5 The 8 pairs of PE(10) ..."),
    its caption on screen, and its stand-in's size in pixels (the still image print and readers without
    JavaScript see)."""
    found = {}
    for name, pages in explorable_figures(SITE).items():
        for path in pages:
            for figure in html(path).select("figure:has(.pe-explorable)"):
                spec = json.loads(figure.select_one("script.pe-explorable-spec").string)
                if spec["usermeta"]["explorable"] != name:
                    continue
                for link in figure.select("figcaption .headerlink"):
                    link.decompose()
                image = figure.select_one("img.pe-explorable-stand-in")
                number = normalized(figure.select_one("figcaption .caption-number").get_text(" "))
                printed = normalized(figure.select_one(".pe-explorable-print-caption").get_text(" "))
                with Image.open((SITE / path).parent / image["src"]) as still:
                    found[name] = (f"{number} {printed}", normalized(figure.figcaption.get_text(" ")), still.size)
    return found


def test_every_explorable_figure_is_printed_as_its_stand_in(pdf, extracted):
    """Paper shows each explorable figure's stand-in, under a caption that describes the still picture (not
    the screen's, which speaks of controls): on the page of its caption (or the one before, the caption
    having run onto the next page), an image of the stand-in's own size in pixels."""
    figures = stand_ins()
    assert sorted(figures) == ["clocks", "look_back", "rotation", "similarity", "table"]
    page_texts = extracted[3]
    missing = {}
    for name, (caption, on_screen, size) in figures.items():
        assert caption[:60] != on_screen[:60]
        assert not any(on_screen[:60] in page for page in page_texts), (name, on_screen)
        where = [index for index, page in enumerate(page_texts) if caption[:60] in page]
        assert len(where) == 1, (name, caption, where)
        drawn = set()
        for index in (where[0] - 1, where[0]):
            for number in images(pdf.pages[index].get("/Resources"), set()):
                image = pdf.get_object(number)
                drawn.add((int(image["/Width"]), int(image["/Height"])))
        if size not in drawn:
            missing[name] = (caption[:60], where[0] + 1, size, sorted(drawn))
    assert missing == {}


def test_the_first_page_of_the_site_links_the_pdf():
    links = [link["href"] for link in html(PAGES[0]).select("main a[href]")]
    assert "../book.pdf" in links and (SITE / "book.pdf").read_bytes() == PDF.read_bytes()


def test_the_title_page_credits_the_authors_and_carries_no_number(pdf):
    """Page 1 holds the title and the author line of _config.yml and nothing else (no page number); the
    pages after it are numbered at their foot."""
    title_page = normalized(pdf.pages[0].extract_text())
    assert title_page == normalized(f"{config()['title']} {config()['author']}")
    assert config()["author"] != "The authors of this book"
    for number in (2, 3, len(pdf.pages) // 2, len(pdf.pages)):
        printed = normalized(pdf.pages[number - 1].extract_text())  # the foot's number is read first
        assert printed.startswith(f"{number} ") or printed.endswith(f" {number}"), (number, printed[:40])


def test_the_api_reference_is_a_summary_of_at_most_15_percent_of_the_pages(pdf, text):
    """Each entry's signature and first line; its parameters, returns and examples stay in the HTML book."""
    contents = normalized(" ".join(pdf.pages[index].extract_text() for index in range(1, 6)))
    starts = [int(re.search(re.escape(title(path)) + r" (\d+)", contents).group(1)) for path in PAGES]
    api = PAGES.index("book/api.html")
    pages = starts[api + 1] - starts[api]
    assert pages <= 0.15 * len(pdf.pages), (pages, len(pdf.pages))
    reference = html("book/api.html")
    signatures = [normalized(name.get_text(" ")) for name in reference.select("dl.py > dt .sig-name")]
    assert len(signatures) > 50 and [name for name in signatures if name not in text] == []
    assert "book's HTML reference" in text
    # A parameter list is left out: "Parameters" heads none of the API's pages.
    reference_text = " ".join(normalized(pdf.pages[index].extract_text()) for index in range(starts[api] - 1,
                                                                                              starts[api + 1] - 1))
    assert "Parameters" not in reference_text and "Examples" not in reference_text


def check_cells() -> list[str]:
    """The first line of every check cell of the book's notebooks (left out of the pages: remove-cell)."""
    found = []
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] == "code" and "remove-cell" in cell["metadata"].get("tags", []):
                lines = [line for line in "".join(cell["source"]).splitlines() if line.strip() and not line.startswith("#")]
                if lines and lines[0].startswith("assert "):
                    found.append(normalized(lines[0]))
    return found


def test_no_test_machinery_is_printed(text):
    """No nbval marker and no check cell (a cell that only asserts, which the pages leave out)."""
    assert "NBVAL" not in text
    checks = check_cells()
    assert len(checks) >= 10  # the check cells that start with an assertion (the others start with a comment)
    assert [line for line in checks if len(line) > 30 and line in text] == []


def test_every_figures_smallest_text_is_at_least_7_pt_on_paper(pdf):
    """A figure's smallest text (measured while the chapters executed: tools/figure_text.py), at the width
    the PDF prints the figure (read from the page's drawing operations), is at least 7 points."""
    by_size = {}
    for number, image, width in printed_images(pdf):
        by_size.setdefault((int(image["/Width"]), int(image["/Height"])), []).append((number, image, width))
    looks, small, missing = {}, {}, []
    for figure in book_figures():
        with Image.open(SITE / "_images" / figure.file) as png:
            look = fingerprint(png)
        printed = []
        for number, image, width in by_size.get((figure.width, figure.height), []):
            if id(image) not in looks:
                looks[id(image)] = fingerprint(image.decode_as_image())
            if alike(looks[id(image)], look):
                printed.append((figure.points(width), number))
        if not printed:
            missing.append(figure.where)
        elif min(printed)[0] < PRINT_MINIMUM_PT:
            small[figure.where] = f"{min(printed)[0]:.1f} pt on page {min(printed)[1]} ({figure.smallest})"
    assert missing == [] and small == {}
