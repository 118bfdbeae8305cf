"""Every internal link of the built site resolves, offline: to a file that exists and, if the link
names a fragment, to an element with that id in it.

External links need the network; the weekly workflow .github/workflows/linkcheck.yml checks them.
"""

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

from .conftest import PDF

ORIGIN = "http://site.invalid/"
# Attributes that name another file of the site (a fragment is checked on links only).
LINKING = {("a", "href"), ("area", "href"), ("link", "href"), ("img", "src"), ("script", "src"), ("source", "src")}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for element, attribute in LINKING:
            if tag == element and attrs.get(attribute):
                self.links.append((tag, attrs[attribute]))


def read(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def site_pages(site: Path) -> list[Path]:
    """The site's HTML pages; the theme's files under _static are templates, not pages."""
    return sorted(path for path in site.rglob("*.html") if "_static" not in path.relative_to(site).parts)


def broken_links(site: Path) -> list[str]:
    """Each internal link of the site that leads to no file, or to a file without the id it names."""
    pages = {path: read(path) for path in site_pages(site)}
    broken = []
    for path, page in pages.items():
        here = ORIGIN + path.relative_to(site).as_posix()
        for tag, link in page.links:
            url = urlparse(urljoin(here, link))
            if f"{url.scheme}://{url.netloc}/" != ORIGIN:
                continue  # another host, mailto:, javascript:, data:
            target = site / unquote(url.path).lstrip("/")
            if url.path.endswith("/"):
                target = target / "index.html"
            where = f"{path.relative_to(site)}: <{tag}> {link!r}"
            if not target.is_file():
                broken.append(f"{where}: no file {target.relative_to(site)}")
            elif tag == "a" and url.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else read(target).ids
                if unquote(url.fragment) not in ids:
                    broken.append(f"{where}: no id {unquote(url.fragment)!r} in {target.relative_to(site)}")
    return broken


def test_every_internal_link_and_anchor_resolves(site):
    assert PDF.is_file(), "the PDF, which the first page links, is not built: run `make pdf` (make test does)"
    assert len(site_pages(site)) > 10
    assert broken_links(site) == []


def test_broken_links_and_missing_anchors_are_found(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "a.html").write_text(
        '<h1 id="top">A</h1><a href="b.html#here">fine</a> <a href="b.html#gone">no id</a> '
        '<a href="missing.html">no file</a> <a href="https://example.org/x">external</a> '
        '<a href="#top">same page</a> <a href="../book.pdf">PDF</a> <img src="../_images/f.png">')
    (tmp_path / "book" / "b.html").write_text('<p id="here">B</p><a href="a.html#top">back</a>')
    (tmp_path / "book.pdf").write_bytes(b"%PDF-1.7")
    assert broken_links(tmp_path) == [
        "book/a.html: <a> 'b.html#gone': no id 'gone' in book/b.html",
        "book/a.html: <a> 'missing.html': no file book/missing.html",
        "book/a.html: <img> '../_images/f.png': no file _images/f.png",
    ]
