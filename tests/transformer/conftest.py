"""Torch on one thread for every test of the model: many threads on a busy machine are far slower."""

import pytest

from companion.transformer.training import fixed_threads


@pytest.fixture(autouse=True)
def one_torch_thread():
    with fixed_threads(1):
        yield
