"""show_source: the chapters show the code they run, readable where the chapter is read."""

import ast
import inspect

import pytest

from companion.analysis.similarity import cosine_similarity
from companion.book.source import show_source
from companion.encoding.frequencies import angular_frequencies
from companion.encoding.table import sinusoidal_encoding


def test_the_listing_is_the_running_code_with_short_docstrings():
    heading, code = show_source(sinusoidal_encoding).parts[0]
    lines, _ = inspect.getsourcelines(sinusoidal_encoding)
    assert heading == "`sinusoidal_encoding` in `companion/encoding/table.py`"
    tree = ast.parse(code)
    function = tree.body[0]
    assert ast.get_docstring(function) == inspect.getdoc(sinusoidal_encoding).splitlines()[0]
    # Everything but the docstring is kept, statement for statement.
    original = ast.parse(inspect.getsource(sinusoidal_encoding)).body[0]
    assert [ast.dump(node) for node in function.body[1:]] == [ast.dump(node) for node in original.body[1:]]
    assert len(code.splitlines()) < len(lines)


def test_a_raw_docstring_stays_raw_and_every_method_docstring_is_cut():
    from companion.encoding.frequencies import angular_frequencies as raw_docstring_function
    from companion.encoding.layer import SinusoidalPositionalEncoding

    _, code = show_source(raw_docstring_function).parts[0]
    assert 'r"""' in code and r"\\omega" not in code

    _, code = show_source(SinusoidalPositionalEncoding).parts[0]
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node):
            assert "\n" not in ast.get_docstring(node), node.name


def test_several_objects_render_as_markdown_code_blocks():
    markdown = show_source(angular_frequencies, cosine_similarity)._repr_markdown_()
    assert markdown.count("```python\n") == 2 and markdown.count("\n```\n") + markdown.endswith("\n```") == 2
    assert "`cosine_similarity` in `companion/analysis/similarity.py`" in markdown
    assert str(show_source(angular_frequencies)).startswith("# `angular_frequencies`")


@pytest.mark.parametrize("bad", [len, 3, ast.parse])
def test_only_companion_functions_and_classes_are_shown(bad):
    with pytest.raises(TypeError, match="functions and classes of the companion"):
        show_source(bad)


def test_nothing_to_show_is_an_error():
    with pytest.raises(TypeError, match="at least one"):
        show_source()
