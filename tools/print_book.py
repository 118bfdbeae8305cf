"""Print the whole book to one PDF: the single-page HTML build, typeset by MathJax, printed by Chromium.

`make pdf` builds the single page (Sphinx's singlehtml builder through jupyter-book) and runs this:

    python tools/print_book.py _build/singlehtml _build/pdf/book.pdf

The page is opened in headless Chromium (tools/headless_chromium.py) in light mode. Printing waits
until MathJax has typeset every formula and every image has loaded, and stops with a message if a
formula failed or an image is missing. A title page and a table of contents (chapters and their
sections, with page numbers and links) are put in front; the PDF also carries the same outline as
bookmarks. Every page but the title page carries its number (CSS page margin boxes). The API
reference is condensed to a summary (each module's first paragraph, each entry's signature and first
line); the full reference is the HTML book's. Page numbers come from a first printing: Chromium writes every link target of the page
as a named destination, whose page pypdf reads; the second printing, paginated as the first (the
numbers take the place of placeholders as wide), shows them. Each printing loads the page afresh.
Works offline.
"""

import argparse
import sys
import time
from pathlib import Path

import yaml
from pypdf import PdfReader
from playwright.sync_api import sync_playwright

from book_links import pages_url
from headless_chromium import MATHJAX_DONE, launch, serve

ROOT = Path(__file__).resolve().parents[1]

# Formulas and images as the reader would see them: anything MathJax left untypeset or failed on,
# and any image that did not load, stops the printing.
CHECK = """() => ({
    untypeset: [...document.querySelectorAll('main .math')].filter(node => !node.querySelector('mjx-container'))
        .map(node => node.textContent.slice(0, 80)),
    mathErrors: [...document.querySelectorAll('mjx-merror')].map(node => node.textContent.slice(0, 80)),
    brokenImages: [...document.images].filter(image => !(image.complete && image.naturalWidth > 0))
        .map(image => image.getAttribute('src')),
})"""

IMAGES_LOADED = """() => Promise.all([...document.images].map(image => image.complete ? null
    : new Promise(resolve => { image.addEventListener('load', resolve); image.addEventListener('error', resolve); })))"""

# The front matter: a title page and the table of contents, built from the page's own sections.
# Each document of the book starts after a marker <span id="document-NAME">; the root document starts
# the article. A chapter's entry lists its sections (the next heading level) too.
FRONT_MATTER = """({title, author}) => {
    document.documentElement.classList.add('book-pdf');  // the print rules of book/_static/print.css
    const article = document.querySelector('article.bd-article');
    const headingOf = section => section && section.querySelector(':scope > h1, :scope > h2, :scope > h3');
    const text = heading => {
        const copy = heading.cloneNode(true);
        copy.querySelectorAll('.headerlink').forEach(link => link.remove());
        return copy.textContent.replace(/\\s+/g, ' ').trim();
    };
    const documents = [article.querySelector('section')];
    for (const marker of article.querySelectorAll('span[id^="document-"]')) {
        // A chapter's hidden setup cell comes before its first section.
        let next = marker.nextElementSibling;
        while (next && !next.matches('section')) next = next.nextElementSibling;
        documents.push(next);
    }
    // Section ids repeat across documents on the single page ("summary" in every chapter): each
    // entry links to an anchor of its own.
    let entries = 0;
    const entry = (section, depth) => {
        const heading = headingOf(section);
        const anchor = document.createElement('span');
        anchor.id = `pdf-contents-${++entries}`;
        heading.prepend(anchor);
        const item = document.createElement('li');
        item.className = `pdf-contents-level-${depth}`;
        const link = document.createElement('a');
        link.href = '#' + anchor.id;
        link.textContent = text(heading);
        const page = document.createElement('span');
        page.className = 'pdf-contents-page';
        page.dataset.anchor = anchor.id;
        page.textContent = '000';  // until the first printing says where the section starts
        item.append(link, page);
        return item;
    };
    // The single page nests every document under the first one (the introduction's title is the
    // only h1): one level up for the others' headings, so that each chapter is a top-level entry
    // of the PDF's bookmarks, as it is of the contents.
    for (const section of documents.slice(1).filter(Boolean)) {
        for (const heading of section.querySelectorAll('h2, h3, h4, h5, h6')) {
            const promoted = document.createElement('h' + (Number(heading.tagName[1]) - 1));
            for (const attribute of heading.attributes) promoted.setAttribute(attribute.name, attribute.value);
            promoted.append(...heading.childNodes);
            heading.replaceWith(promoted);
        }
    }
    const list = document.createElement('ol');
    for (const section of documents.filter(Boolean)) {
        section.classList.add('pdf-document-start');
        list.append(entry(section, 1));
        if (/^\\d/.test(text(headingOf(section)))) {
            for (const child of section.querySelectorAll(':scope > section')) list.append(entry(child, 2));
        }
    }
    const front = document.createElement('div');
    front.className = 'pdf-front-matter';
    front.innerHTML = `<div class="pdf-title-page"><p class="pdf-title"></p><p class="pdf-author"></p></div>
        <nav class="pdf-contents" aria-label="Contents"><p class="pdf-contents-title">Contents</p></nav>`;
    front.querySelector('.pdf-title').textContent = title;
    front.querySelector('.pdf-author').textContent = author;
    front.querySelector('.pdf-contents').append(list);
    article.prepend(front);
    return [...list.querySelectorAll('a')].map(link => link.getAttribute('href').slice(1));
}"""

# A formula or a table wider than the printed column is set smaller until it fits: on screen a table
# scrolls, on paper it would be cut off. MathJax breaks display formulas into lines at the printed
# column's width (the page is laid out at that width before it is typeset), so a formula is set smaller
# only where it has no place to break.
FIT_TO_COLUMN = """() => {
    const scaled = [];
    const describe = formula => {
        const number = formula.closest('div.math')?.querySelector('.eqno')?.textContent.replace(/[^\\d.()]/g, '');
        const section = formula.closest('section');
        const tex = Array.from(MathJax.startup.document.math).find(item => item.typesetRoot === formula)?.math;
        return `${number || (tex || '').trim().slice(0, 40)} in #${section ? section.id : '?'}`;
    };
    // A table whose cells cannot wrap enough (formulas, long names) is set smaller as a whole.
    for (const table of document.querySelectorAll('main table')) {
        const available = table.parentElement.clientWidth;
        for (let attempt = 0; attempt < 4 && table.getBoundingClientRect().width > available + 1; attempt++) {
            if (attempt === 0) scaled.push(`a table in #${table.closest('section')?.id}`);
            const size = parseFloat(getComputedStyle(table).fontSize);
            table.style.fontSize = `${size * available / table.getBoundingClientRect().width * 0.97}px`;
        }
    }
    for (const formula of document.querySelectorAll('main mjx-container[display="true"]')) {
        for (let attempt = 0; attempt < 3 && formula.scrollWidth > formula.clientWidth + 1; attempt++) {
            if (attempt === 0) scaled.push(describe(formula));
            const size = parseFloat(getComputedStyle(formula).fontSize);
            formula.style.fontSize = `${size * formula.clientWidth / formula.scrollWidth * 0.97}px`;
        }
    }
    // An inline formula wider than its paragraph cannot wrap either. MathJax lets the browser break an
    // inline formula at an operator: each line's piece of it (a client rectangle) must fit.
    for (const formula of document.querySelectorAll('main mjx-container:not([display="true"])')) {
        const column = formula.closest('p, li, dd, td, th, h1, h2, h3, h4, h5, h6, figcaption, div');
        const width = Math.max(...[...formula.getClientRects()].map(piece => piece.width), 0);
        const available = column ? column.clientWidth : 0;
        if (available > 0 && width > available) {
            scaled.push(describe(formula));
            formula.style.fontSize = `${parseFloat(getComputedStyle(formula).fontSize) * available / width * 0.97}px`;
        }
    }
    // Anything still wider than the column would make Chromium shrink every page to fit it.
    const column = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= column + 1) return {scaled, overflowing: []};
    const overflowing = [...document.querySelectorAll('main *')].filter(element =>
        element.getBoundingClientRect().right > column + 1 && !element.closest('mjx-assistive-mml')
        && ![...element.children].some(child => child.getBoundingClientRect().right > column + 1))
        .map(element => `${element.tagName.toLowerCase()} in #${element.closest('section')?.id}`);
    return {scaled, overflowing};
}"""

# The API reference, condensed for paper: each module's first paragraph and each documented name's
# signature and first paragraph; a note under its title says where the rest is (the HTML book).
CONDENSE_REFERENCE = """({name, url}) => {
    const marker = document.getElementById(`document-${name}`);
    let section = marker && marker.nextElementSibling;
    while (section && !section.matches('section')) section = section.nextElementSibling;
    if (!section) return 0;
    section.classList.add('pdf-reference-summary');
    const note = document.createElement('p');
    note.className = 'pdf-reference-note';
    note.append('On paper, each entry gives its signature and what it does; its parameters, what it returns, '
                + "the errors it raises and its examples are in the book's HTML reference, ");
    const link = document.createElement('a');
    link.href = url;
    link.textContent = url;
    note.append(link, '.');
    section.querySelector('h1, h2').after(note);
    let hidden = 0;
    const hide = element => { element.classList.add('pdf-left-out'); hidden++; };
    // A documented name: its signature (dt) stays, and the first paragraph of its description.
    for (const entry of section.querySelectorAll('dl.py > dd')) {
        let kept = false;
        for (const child of entry.children) {
            if (!kept && child.matches('p')) kept = true;
            else if (!child.matches('dl.py')) hide(child);
        }
    }
    // A module's docstring: its first paragraph (which carries the module's id) stays.
    for (const first of section.querySelectorAll('[id^="module-"]')) {
        for (let next = first.nextElementSibling; next && !next.matches('dl.py, [id^="module-"], section');
             next = next.nextElementSibling) hide(next);
    }
    return hidden;
}"""

# The page box of the PDF: its number at the foot of every page but the first (the title page).
PAGE_STYLE = """
@page { @bottom-center { content: counter(page); font-family: sans-serif; font-size: 9px; color: #555; } }
@page :first { @bottom-center { content: none; } }
"""

# A4 with 16 mm side margins: the printed column is 178 mm, in CSS pixels (96 per inch).
PAPER = {"format": "A4", "margin": {"top": "18mm", "bottom": "18mm", "left": "16mm", "right": "16mm"}}
COLUMN_PX = round((210 - 2 * 16) / 25.4 * 96)

# The page numbers of the contents, once the first printing has told them. The placeholders were
# as wide (tabular digits), so the second printing is paginated as the first.
SET_PAGE_NUMBERS = """(pages) => {
    for (const page of document.querySelectorAll('.pdf-contents-page')) page.textContent = pages[page.dataset.anchor];
}"""

#: The document of _toc.yml that the PDF condenses (the API reference).
REFERENCE = "book/api"


def book_metadata():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    root = yaml.safe_load((ROOT / "_toc.yml").read_text())["root"]
    return config["title"], config["author"], root


def reference_url() -> str:
    """The API reference in the published HTML book."""
    return f"{pages_url()}{REFERENCE}.html"


def open_book(browser, base_url, root):
    """Open the single page at its own address, typeset and with its images loaded."""
    # Laid out as it will be printed, so that what overflows the column can be measured.
    page = browser.new_page(viewport={"width": COLUMN_PX, "height": 1400})
    page.emulate_media(media="print")
    page.add_init_script("localStorage.setItem('mode', 'light'); localStorage.setItem('theme', 'light');")
    url = f"{base_url}/{root}.html"
    # Sphinx's singlehtml builder writes the root document to its own path (book/intro.html) but
    # writes every URL in it relative to the site's root; a <base> element makes them resolve.
    depth = root.count("/")

    def with_base(route):
        html = route.fetch().text()
        route.fulfill(body=html.replace("<head>", f'<head><base href="{"../" * depth or "./"}">', 1),
                      content_type="text/html; charset=utf-8")

    page.route(url, with_base)
    # `make test` prints while the chapters run on every core: loading can outlast Playwright's 30 s default.
    page.goto(url, wait_until="networkidle", timeout=300_000)
    page.evaluate(MATHJAX_DONE)
    page.evaluate(IMAGES_LOADED)
    problems = page.evaluate(CHECK)
    if any(problems.values()):
        raise SystemExit(f"not printed: the page is not ready: {problems}")
    return page


def prepare_for_print(page, report=True):
    """Lay the page out for paper, once: a second 'beforeprint' would toggle the solutions back."""
    # Chromium prints here without the page's print events; sent by hand, they let the extensions
    # prepare as for a reader's printing (sphinx-togglebutton opens the exercises' solutions; the
    # explorable figures' captions describe their stand-ins).
    page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    page.add_style_tag(content=PAGE_STYLE)
    if not page.evaluate(CONDENSE_REFERENCE, {"name": REFERENCE, "url": reference_url()}):
        raise SystemExit(f"not printed: the reference {REFERENCE} was not found on the single page")
    fitted = page.evaluate(FIT_TO_COLUMN)
    if fitted["scaled"] and report:
        print(f"{len(fitted['scaled'])} formulas and tables wider than the printed column, set smaller to fit: "
              + "; ".join(fitted["scaled"]))
    if fitted["overflowing"]:
        print("wider than the printed column, so Chromium shrinks every page to fit: "
              + "; ".join(sorted(set(fitted["overflowing"]))))


def print_pdf(page, out):
    page.pdf(path=str(out), print_background=True, outline=True, tagged=True, **PAPER)


def destination_pages(pdf, ids):
    """Page number (1-based) of each id among the PDF's named destinations."""
    reader = PdfReader(pdf)
    destinations = {name.removeprefix("/"): destination for name, destination in reader.named_destinations.items()}
    return {name: reader.get_destination_page_number(destinations[name]) + 1 for name in ids if name in destinations}


def print_book(browser, base_url, root, title, author, out, pages):
    """Load, lay out and print the book once; `pages` fills in the contents' numbers if known.

    Returns the contents' anchor ids and the page on which each was printed.
    """
    page = open_book(browser, base_url, root)
    ids = page.evaluate(FRONT_MATTER, {"title": title, "author": author})
    prepare_for_print(page, report=pages is None)
    if pages is not None:
        page.evaluate(SET_PAGE_NUMBERS, pages)
    print_pdf(page, out)
    page.close()
    return ids, destination_pages(out, ids)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the single-page HTML build, e.g. _build/singlehtml")
    parser.add_argument("out", type=Path, help="the PDF to write, e.g. _build/pdf/book.pdf")
    args = parser.parse_args(argv)
    title, author, root = book_metadata()
    if not (args.site / f"{root}.html").is_file():
        raise SystemExit(f"no single-page build at {args.site / root}.html: run `make pdf`, which builds it")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with serve(args.site) as base_url, sync_playwright() as playwright:
        browser = launch(playwright)
        # Each printing starts from a freshly loaded page: printing leaves state behind (a second
        # printing of the same page came out a page shorter or longer in chapter 2), so a page is
        # printed once only. Both printings lay out the same content, placeholders being as wide
        # as the numbers that replace them.
        ids, pages = print_book(browser, base_url, root, title, author, args.out, pages=None)
        missing = sorted(set(ids) - set(pages))
        if missing:
            raise SystemExit(f"{args.out}: no page found for the sections {missing}")
        _, printed = print_book(browser, base_url, root, title, author, args.out, pages=pages)
        browser.close()
    if printed != pages:
        moved = sorted(name for name in ids if printed.get(name) != pages.get(name))
        raise SystemExit(f"{args.out}: the second printing moved {len(moved)} sections (first {moved[0]}: "
                         f"page {pages.get(moved[0])} -> {printed.get(moved[0])}); the contents would be wrong")
    pages_total = len(PdfReader(args.out).pages)
    print(f"{args.out}: {pages_total} pages in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
