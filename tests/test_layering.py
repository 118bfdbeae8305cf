"""Imports run down the package's layers, never up: encoding <- analysis <- book, transformer, word2vec."""

import ast
from pathlib import Path

import pytest

import companion.book.recipes
import companion.encoding.recipes

PACKAGE = Path(__file__).parent.parent / "companion"
# What each layer may import from the companion (besides itself and the private helpers at the top).
ALLOWED = {"encoding": {"encoding"}, "analysis": {"encoding", "analysis"}}


def companion_imports(path: Path) -> set[str]:
    """The companion subpackages a module imports (from its relative and absolute imports)."""
    layer = path.relative_to(PACKAGE).parts[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:  # from .x import y: the module's own subpackage
                found.add(layer)
            elif node.level == 2 and node.module:  # from ..x import y
                found.add(node.module.split(".")[0])
            elif node.level == 0 and (node.module or "").startswith("companion."):
                found.add(node.module.split(".")[1])
    return {name for name in found if not name.startswith("_")}


@pytest.mark.parametrize("path", sorted(path for layer in ALLOWED for path in (PACKAGE / layer).glob("*.py")),
                         ids=lambda path: f"{path.parent.name}/{path.name}")
def test_the_encoding_and_the_analysis_import_nothing_above_them(path):
    layer = path.relative_to(PACKAGE).parts[0]
    assert companion_imports(path) <= ALLOWED[layer], companion_imports(path)


def test_the_book_keeps_its_name_for_the_recipes():
    assert companion.book.recipes.d2l_encoding is companion.encoding.recipes.d2l_encoding
