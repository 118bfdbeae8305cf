"""The API page's code examples run as written (book/api.md)."""

import re
from pathlib import Path

import pytest

API_PAGE = Path(__file__).parent.parent / "book" / "api.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", API_PAGE.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_page_has_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example-{index}" for index in range(len(EXAMPLES))])
def test_each_example_runs(code):
    exec(compile(code, str(API_PAGE), "exec"), {})
