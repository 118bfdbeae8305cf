"""Missing or too-old dependencies are reported with a message that says what to do."""

import re
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import pytest

from companion import _environment
from companion._environment import EXTRAS, MINIMUM_VERSIONS, require

ROOT = Path(__file__).parent.parent


def test_minimum_versions_are_those_of_pyproject_and_each_optional_package_has_its_extra():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared, extra_of = {}, {}
    requirements = [(None, requirement) for requirement in project["dependencies"]] + [
        (extra, requirement) for extra, requirements in project["optional-dependencies"].items() if extra != "all"
        for requirement in requirements]
    for extra, requirement in requirements:
        name, version = re.fullmatch(r"([\w-]+)>=([\d.]+)", requirement).groups()
        declared[name] = tuple(int(part) for part in version.split("."))
        if extra:
            extra_of[name] = extra
    assert declared == MINIMUM_VERSIONS
    assert extra_of == EXTRAS
    assert project["dependencies"] == ["numpy>=1.25"]  # the encoding needs numpy alone


@pytest.mark.parametrize("package", sorted(MINIMUM_VERSIONS))
def test_installed_versions_are_accepted(package):
    assert require(package).__name__ == package


def fake_import(monkeypatch, version):
    module = types.ModuleType("numpy")
    module.__version__ = version
    module.__file__ = "/somewhere/numpy/__init__.py"
    monkeypatch.setattr(_environment.importlib, "import_module", lambda name: module)


@pytest.mark.parametrize(
    "installed, accepted",
    [("1.24.4", False), ("1.25.0", True), ("2.0.2", True), ("1.26.0rc1", True), ("1.9.9", False), ("", False)],
)
def test_old_versions_are_refused_with_the_upgrade_command(monkeypatch, installed, accepted):
    fake_import(monkeypatch, installed)
    if accepted:
        require("numpy")
    else:
        with pytest.raises(ImportError, match=r"needs numpy >= 1.25, but Python imports numpy .* from "
                                              r"/somewhere/numpy/__init__.py: pip install --upgrade 'numpy>=1.25'"):
            require("numpy")


def test_missing_packages_are_named_with_the_extra_that_installs_them(monkeypatch):
    def missing(name):
        raise ModuleNotFoundError(f"No module named {name!r}")

    monkeypatch.setattr(_environment.importlib, "import_module", missing)
    with pytest.raises(ImportError, match=r"needs gensim >= 4.4, which is not installed \(No module named 'gensim'\): "
                                          r"pip install 'positional-encoding-companion\[word2vec\]' "
                                          r"\(or pip install 'gensim>=4.4'\)"):
        require("gensim")


def run(tmp_path, code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": ""}, cwd=tmp_path)


@pytest.mark.parametrize("package, version, code", [
    ("numpy", "1.21.0", "import companion"),
    ("torch", "1.13.1", "import companion; companion.SinusoidalPositionalEncoding"),
    ("gensim", "3.8.3", "import companion.word2vec.training"),
])
def test_an_old_module_shadowing_the_installed_one_is_caught(tmp_path, package, version, code):
    # The installed metadata names a good version; the module Python would import is another, older one.
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text(f"__version__ = {version!r}\n")
    result = run(tmp_path, code)
    assert result.returncode != 0
    wanted = ".".join(map(str, MINIMUM_VERSIONS[package]))
    last = result.stderr.strip().splitlines()[-1]
    assert last == (f"ImportError: the companion needs {package} >= {wanted}, but Python imports {package} {version} "
                    f"from {tmp_path / package / '__init__.py'}: pip install --upgrade '{package}>={wanted}'"), last


def test_importing_the_companion_needs_numpy_only(tmp_path):
    # torch, gensim, nltk, matplotlib, sympy and mpmath made unimportable: the encoding still works
    blocker = "import sys\nfor name in ['torch', 'gensim', 'nltk', 'matplotlib', 'sympy', 'mpmath', 'scipy']:\n" \
              "    sys.modules[name] = None\n"
    code = blocker + (
        # CPU time, not wall time: what the import costs, whatever else the machine is doing
        "import time; start = time.process_time(); import companion; elapsed = time.process_time() - start\n"
        "import numpy as np\n"
        "table = companion.sinusoidal_encoding(np.arange(5), 8)\n"
        "assert table.shape == (5, 8) and not any(name.startswith('torch') and sys.modules[name] for name in sys.modules)\n"
        "try:\n    companion.SinusoidalPositionalEncoding\nexcept ImportError as error:\n    print(error)\n"
        "print(f'{elapsed:.3f}')\n")
    result = run(tmp_path, code)
    assert result.returncode == 0, result.stderr
    message, elapsed = result.stdout.strip().splitlines()
    assert message == ("the companion needs torch >= 2.1, which is not installed (import of torch halted; None in "
                       "sys.modules): pip install 'positional-encoding-companion[torch]' (or pip install 'torch>=2.1')")
    assert float(elapsed) < 0.3


def test_import_does_not_import_torch(tmp_path):
    result = run(tmp_path, "import sys, companion; print('torch' in sys.modules)")
    assert result.stdout.strip() == "False", result.stderr
