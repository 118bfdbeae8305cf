"""Too-old or missing dependencies are reported with a message that says what to do."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from companion import _environment
from companion._environment import MINIMUM_VERSIONS, require

ROOT = Path(__file__).parent.parent


def test_minimum_versions_are_those_of_pyproject():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    declared = {}
    for requirement in dependencies:
        name, version = re.fullmatch(r"([\w-]+)>=([\d.]+)", requirement).groups()
        declared[name] = tuple(int(part) for part in version.split("."))
    assert declared == MINIMUM_VERSIONS


@pytest.mark.parametrize("package", sorted(MINIMUM_VERSIONS))
def test_installed_versions_are_accepted(package):
    require(package)


@pytest.mark.parametrize(
    "installed, accepted",
    [("1.24.4", False), ("1.25.0", True), ("2.0.2", True), ("1.26.0rc1", True), ("1.9.9", False)],
)
def test_old_versions_are_refused_with_the_upgrade_command(monkeypatch, installed, accepted):
    monkeypatch.setattr(_environment.metadata, "version", lambda name: installed)
    if accepted:
        require("numpy")
    else:
        with pytest.raises(ImportError, match=rf"needs numpy >= 1.25, but this environment has numpy {installed}: "
                                              r"pip install --upgrade 'numpy>=1.25'"):
            require("numpy")


def test_missing_packages_are_named(monkeypatch):
    def missing(name):
        raise _environment.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(_environment.metadata, "version", missing)
    with pytest.raises(ImportError, match=r"needs gensim >= 4.4, which is not installed: pip install 'gensim>=4.4'"):
        require("gensim")


@pytest.mark.parametrize("package, version, module", [("numpy", "1.21.0", "companion"), ("torch", "1.13.1", "companion"),
                                                       ("gensim", "3.8.3", "companion.training")])
def test_importing_with_an_old_package_installed_says_what_to_do(tmp_path, package, version, module):
    # An old installation as importlib.metadata sees it: a dist-info directory earlier on the path.
    dist_info = tmp_path / f"{package}-{version}.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
    result = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True,
                            env={"PYTHONPATH": str(tmp_path), "PATH": ""}, cwd=tmp_path)
    assert result.returncode != 0
    wanted = ".".join(map(str, MINIMUM_VERSIONS[package]))
    assert result.stderr.strip().splitlines()[-1] == (
        f"ImportError: the companion needs {package} >= {wanted}, but this environment has {package} {version}: "
        f"pip install --upgrade '{package}>={wanted}'"
    )
