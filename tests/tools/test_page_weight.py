"""tools/page_weight.py: a page's own weight is its HTML and the files no other page loads."""

from page_weight import LIMIT, measure


def test_the_measure_counts_a_page_s_own_files_and_shares_the_rest(tmp_path):
    """The check can fail: a page with a 3.5 MB figure of its own is over the limit; a shared script is not its own."""
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "theme.css").write_text("body { background: url(back.png) }")
    (tmp_path / "_static" / "back.png").write_bytes(b"x" * 1000)
    (tmp_path / "_static" / "library.js").write_bytes(b"x" * 2_000_000)
    (tmp_path / "big.png").write_bytes(b"x" * 3_500_000)
    head = '<link rel="stylesheet" href="_static/theme.css"><script src="_static/library.js"></script>'
    (tmp_path / "a.html").write_text(f'<html><head>{head}</head><body><img src="big.png" alt="big"></body></html>')
    (tmp_path / "b.html").write_text(f'<html><head>{head}</head><body><img src="https://example.org/x.png"></body></html>')
    measured, shared = measure(tmp_path, ["a.html", "b.html"])
    by_page = {weight.page: weight for weight in measured}
    assert set(shared) == {"_static/theme.css", "_static/back.png", "_static/library.js"}
    assert by_page["a.html"].own_files == {"big.png": 3_500_000} and by_page["a.html"].total > LIMIT
    assert by_page["b.html"].own_files == {} and by_page["b.html"].total < 1000
