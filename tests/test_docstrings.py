"""Every public function and class of the companion has a complete numpydoc docstring."""

import importlib
import inspect
import pkgutil

import pytest
from numpydoc.validate import validate

import companion

# GL08 no docstring; PR01 parameter undocumented; PR02 unknown parameter documented;
# RT01 no Returns section; EX01 no Examples section; SS01/SS03/SS05 summary line shape.
REQUIRED = {"GL08", "PR01", "PR02", "RT01", "EX01", "SS01", "SS03"}


def public_objects():
    modules = [companion] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(companion.__path__, prefix="companion.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    seen = set()
    for module in modules:
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if callable(obj) and obj not in seen and obj.__module__.startswith("companion"):
                seen.add(obj)
                yield f"{obj.__module__}.{obj.__qualname__}"


@pytest.mark.parametrize("qualified_name", sorted(set(public_objects())))
def test_numpydoc_docstring_is_complete(qualified_name):
    errors = [f"{code}: {message}" for code, message in validate(qualified_name)["errors"] if code in REQUIRED]
    assert not errors, errors


def test_every_public_function_documents_its_errors():
    missing = []
    for name in public_objects():
        module_name, _, attribute = name.rpartition(".")
        obj = getattr(importlib.import_module(module_name), attribute)
        if inspect.isclass(obj) and "__init__" not in vars(obj):
            continue  # no constructor of its own, so nothing of its own to raise
        if "Raises\n" not in (obj.__doc__ or "") and name not in NO_RAISES:
            missing.append(name)
    assert not missing


# Functions that validate nothing themselves and raise nothing of their own.
NO_RAISES = {
    "companion.analysis.reference.half_ulp",
    "companion.encoding.angle_addition.arithmetic_progression",
    "companion.word2vec.tokenization.sentence_splitter",
    "companion.book.benchmark.format_benchmark",
    "companion.book.benchmark.format_summary",
    "companion.book.benchmark.one_torch_thread",
    "companion.analysis.precision.float32_phase_scale",
    # dataclasses that hold results or sizes; what checks their values is what uses them
    "companion.transformer.experiments.Run",
    "companion.transformer.experiments.Setup",
    "companion.transformer.training.PositionAccuracy",
    "companion.book.source.SourceListing",
}
