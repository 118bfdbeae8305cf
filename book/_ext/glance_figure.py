"""Sphinx extension: the picture of "The encoding at a glance", drawn by the companion when the book is built.

The one-page summary (book/glance.md) is a page, not a notebook, so no cell draws its figure. Before
any page is read, this extension calls :func:`companion.book.glance.write_glance_figure`, which writes
``book/_generated/glance.png`` (not committed; see .gitignore); the page shows it with a ``figure``
directive. Every build, HTML, single page and PDF alike, thus shows what the companion draws now.
"""

from pathlib import Path

#: Where the picture is written, relative to the book's source directory (the repository's root).
GLANCE_FIGURE = Path("book") / "_generated" / "glance.png"


def draw(app):
    from companion.book.glance import write_glance_figure  # matplotlib: loaded only when a build runs

    write_glance_figure(Path(app.srcdir) / GLANCE_FIGURE)


def setup(app):
    app.connect("builder-inited", draw)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
