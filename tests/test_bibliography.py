"""The bibliography parses strictly, and every entry in it is cited somewhere in the book."""

import re
from pathlib import Path

import pybtex.errors
from pybtex.database import parse_file

ROOT = Path(__file__).parent.parent
BIBLIOGRAPHY = ROOT / "book" / "references.bib"


def test_the_bibliography_parses_without_a_syntax_error():
    pybtex.errors.set_strict_mode(True)
    try:
        entries = parse_file(str(BIBLIOGRAPHY)).entries
    finally:
        pybtex.errors.set_strict_mode(False)
    assert len(entries) >= 10
    for key, entry in entries.items():
        assert "title" in entry.fields, key


def test_every_entry_is_cited_by_a_page_or_a_chapter():
    entries = parse_file(str(BIBLIOGRAPHY)).entries
    text = "\n".join(path.read_text() for pattern in ("book/*.md", "notebooks/*.ipynb") for path in ROOT.glob(pattern))
    cited = set(re.findall(r"\{cite:[pt]\}`([^`]+)`", text))
    cited = {key.strip() for group in cited for key in group.split(",")}
    assert sorted(set(entries) - cited) == []
