"""How much each page of the built book weighs on its own, and what the pages share.

    python tools/page_weight.py [_build/html] [--pages notebooks/02_loop_version.html ...]

A reader who opens a chapter downloads its HTML and everything it references: images, scripts,
style sheets, fonts (found in the page and, recursively, in the local style sheets it links). What a
single page alone references (its HTML, its figures, a script no other page loads) is the page's own
weight; what two or more pages reference (the theme, MathJax, Vega, fonts under ``_static/``) is
downloaded once and cached, so it is counted once, as shared. Only files of the site count (nothing
is fetched from another host). Scripts that load more files at run time (MathJax's fonts) are
counted as far as the HTML and style sheets name them: their extra files are shared anyway.

Prints one line per page, the shared total, and fails (exit 1) if a page's own weight exceeds the
limit (3 MB by default: tests/site/test_page_weight.py runs the same check on every chapter).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 3_000_000  # bytes: no chapter page's own weight may exceed it (issue 18)
_CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")


@dataclass(frozen=True)
class Weight:
    """A page's own weight: its HTML and the files no other page measured references."""

    page: str
    html: int
    own_files: dict

    @property
    def total(self) -> int:
        return self.html + sum(self.own_files.values())


def _local(site: Path, base: PurePosixPath, reference: str) -> Path | None:
    """The site file a reference from `base` (a path within the site) points to, or None if external."""
    parts = urlsplit(reference.strip())
    if parts.scheme or parts.netloc or not parts.path or reference.startswith(("#", "data:")):
        return None
    target = (site / base.parent / unquote(parts.path)).resolve()
    return target if target.is_file() and site.resolve() in target.parents else None


def _css_references(site: Path, css: Path, seen: set) -> set:
    found = set()
    for match in _CSS_URL.finditer(css.read_text(errors="replace")):
        target = _local(site, PurePosixPath(css.relative_to(site.resolve()).as_posix()), match.group(1) or match.group(2))
        if target and target not in seen:
            seen.add(target)
            found.add(target)
            if target.suffix == ".css":
                found |= _css_references(site, target, seen)
    return found


def references(site: Path, page: str) -> set:
    """Every file of the site that `page` (a path within the site) loads by name, style sheets followed."""
    soup = BeautifulSoup((site / page).read_text(), "html.parser")
    names = [tag.get("src") for tag in soup.find_all(["script", "img", "source", "video", "audio", "iframe", "embed"])]
    names += [tag.get("href") for tag in soup.find_all("link")
              if set(tag.get("rel", [])) & {"stylesheet", "icon", "preload", "modulepreload", "shortcut"}]
    names += [candidate.split()[0] for tag in soup.find_all(["img", "source"]) if tag.get("srcset")
              for candidate in tag["srcset"].split(",") if candidate.strip()]
    files, seen = set(), set()
    for name in filter(None, names):
        target = _local(site, PurePosixPath(page), name)
        if target and target not in seen:
            seen.add(target)
            files.add(target)
            if target.suffix == ".css":
                files |= _css_references(site, target, seen)
    return files


def measure(site: Path, pages: list[str]) -> tuple[list[Weight], dict]:
    """Each page's own weight, and the files two or more of `pages` share (path -> bytes)."""
    loaded = {page: references(site, page) for page in pages}
    users = {}
    for page, files in loaded.items():
        for file in files:
            users.setdefault(file, set()).add(page)
    shared = {file: file.stat().st_size for file, pages_using in users.items() if len(pages_using) > 1}
    weights = [Weight(page, (site / page).stat().st_size,
                      {str(file.relative_to(site.resolve())): file.stat().st_size for file in files if file not in shared})
               for page, files in loaded.items()]
    return weights, {str(file.relative_to(site.resolve())): size for file, size in shared.items()}


def book_pages() -> list[str]:
    """The book's pages in reading order (_toc.yml), as paths within the site."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [chapter["file"] for part in toc["parts"] for chapter in part["chapters"]]
    return [f"{name}.html" for name in files]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--pages", nargs="+", help="pages to measure (default: every page of _toc.yml)")
    parser.add_argument("--limit", type=float, default=LIMIT / 1e6, help="largest own weight allowed, in MB")
    args = parser.parse_args(argv)
    pages = args.pages or book_pages()
    missing = [page for page in pages if not (args.site / page).is_file()]
    if missing:
        raise SystemExit(f"not built: {missing} (run `make book`)")
    weights, shared = measure(args.site, pages)
    print(f"{'page':55s} {'own weight':>11s}  (HTML, then its own files)")
    for weight in weights:
        largest = sorted(weight.own_files.items(), key=lambda item: -item[1])[:3]
        print(f"{weight.page:55s} {weight.total / 1e6:8.2f} MB  HTML {weight.html / 1e6:.2f} MB, "
              f"{len(weight.own_files)} files" + "".join(f"; {name} {size / 1e6:.2f} MB" for name, size in largest))
    print(f"shared by two pages or more, counted once: {sum(shared.values()) / 1e6:.2f} MB in {len(shared)} files")
    heavy = [weight.page for weight in weights if weight.total > args.limit * 1e6]
    if heavy:
        print(f"over {args.limit:g} MB: {heavy}")
    return 1 if heavy else 0


if __name__ == "__main__":
    sys.exit(main())
