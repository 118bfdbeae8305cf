"""Check the companion's built distributions before they are published (run by .github/workflows/release.yml).

Usage:
    python .github/release/check_dist.py DIST [--tag TAG]   # the sdist and the wheel in DIST
    python .github/release/check_dist.py --import-only      # the installed companion, from any directory

The first form checks that DIST holds exactly one sdist and one wheel of the version in
pyproject.toml (and, given a tag, that the tag is ``v<version>``), that the wheel holds every module
of ``companion/``, its ``py.typed`` marker and the data files of ``data/`` (as ``companion.data``)
and nothing else, and that the sdist holds what a build from it needs.  The second imports the
installed companion and uses it as a reader would, with numpy alone.  Exits 1 with a list of
problems, 0 if there are none.
"""

from __future__ import annotations

import argparse
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def project() -> tuple[str, str]:
    """(distribution name, version) from pyproject.toml."""
    metadata = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return metadata["name"], metadata["version"]


def expected_wheel_files() -> set[str]:
    """The files the wheel must hold (outside its .dist-info), from the source tree.

    Every module of ``companion/``, and the package data that pyproject.toml's
    ``[tool.setuptools.package-data]`` declares, found where ``package-dir`` puts each package.
    """
    files = {path.relative_to(ROOT).as_posix() for path in (ROOT / "companion").rglob("*.py")
             if "__pycache__" not in path.parts}
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    package_dir = setuptools.get("package-dir", {})
    for package, patterns in setuptools["package-data"].items():
        source = ROOT / package_dir.get(package, package.replace(".", "/"))
        installed = package.replace(".", "/")
        for pattern in patterns:
            files |= {f"{installed}/{path.relative_to(source).as_posix()}" for path in source.glob(pattern)}
    data = ROOT / package_dir.get("companion.data", "data")
    files |= {f"companion/data/{path.name}" for path in data.glob("*.py")}
    return files


def check_wheel(wheel: Path, name: str, version: str) -> list[str]:
    problems = []
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"{name.replace('-', '_')}-{version}.dist-info"
        metadata = archive.read(f"{info}/METADATA").decode() if f"{info}/METADATA" in names else ""
    contents = {entry for entry in names if not entry.startswith(f"{info}/")}
    expected = expected_wheel_files()
    problems += [f"wheel lacks {entry}" for entry in sorted(expected - contents)]
    problems += [f"wheel holds {entry}, which is not part of the package" for entry in sorted(contents - expected)]
    if f"Name: {name}\n" not in metadata or f"Version: {version}\n" not in metadata:
        problems.append(f"wheel METADATA does not name {name} {version}")
    if "Requires-Dist: numpy>=" not in metadata:
        problems.append("wheel METADATA does not require numpy")
    return problems


def check_sdist(sdist: Path, name: str, version: str) -> list[str]:
    top = f"{name.replace('-', '_')}-{version}"
    with tarfile.open(sdist) as archive:
        names = {entry.removeprefix(f"{top}/") for entry in archive.getnames()}
    needed = {"pyproject.toml", "README.md", "PKG-INFO", *(entry.replace("companion/data/", "data/", 1)
                                                             for entry in expected_wheel_files())}
    return [f"sdist lacks {entry}" for entry in sorted(needed - names)]


def check_dist(dist: Path, tag: str | None) -> list[str]:
    name, version = project()
    problems = []
    if tag and tag != f"v{version}":
        problems.append(f"the tag {tag!r} is not v{version}, the version in pyproject.toml")
    prefix = f"{name.replace('-', '_')}-{version}"
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    if [wheel.name for wheel in wheels] != [f"{prefix}-py3-none-any.whl"]:
        problems.append(f"expected one pure-Python wheel {prefix}-py3-none-any.whl in {dist}, found "
                        f"{[wheel.name for wheel in wheels]}")
    else:
        problems += check_wheel(wheels[0], name, version)
    if [sdist.name for sdist in sdists] != [f"{prefix}.tar.gz"]:
        problems.append(f"expected one sdist {prefix}.tar.gz in {dist}, found {[sdist.name for sdist in sdists]}")
    else:
        problems += check_sdist(sdists[0], name, version)
    return problems


def check_import() -> list[str]:
    """Use the installed companion as a reader would; return what went wrong."""
    import importlib.metadata
    import importlib.util
    from importlib.resources import files

    import numpy as np

    import companion

    problems = []
    if Path(companion.__file__).resolve().is_relative_to(ROOT):
        problems.append(f"companion was imported from the checkout ({companion.__file__}), not the installed wheel")
    installed = importlib.metadata.version("positional-encoding-companion")
    if companion.__version__ != installed:
        problems.append(f"companion.__version__ is {companion.__version__}, the installed metadata says {installed}")
    if companion.sinusoidal_encoding(np.arange(4), 8).shape != (4, 8):
        problems.append("sinusoidal_encoding returned the wrong shape")
    if not (files("companion") / "py.typed").is_file() or not (files("companion.data") / "benchmark.json").is_file():
        problems.append("py.typed or the data files are missing from the installed package")
    if importlib.util.find_spec("torch") is None:  # numpy alone: the torch-backed names are absent, politely
        if hasattr(companion, "SinusoidalPositionalEncoding"):
            problems.append("hasattr(companion, 'SinusoidalPositionalEncoding') is True without torch")
        namespace: dict[str, object] = {}
        exec("from companion import *", namespace)
        if "sinusoidal_encoding" not in namespace:
            problems.append("from companion import * did not import sinusoidal_encoding")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", nargs="?", type=Path, help="directory holding the sdist and the wheel")
    parser.add_argument("--tag", help="the git tag being released (v<version>); empty or absent: not a release")
    parser.add_argument("--import-only", action="store_true", help="only import and use the installed companion")
    args = parser.parse_args()
    if args.import_only:
        problems = check_import()
    elif args.dist is None:
        parser.error("give DIST, or --import-only")
    else:
        problems = check_dist(args.dist, args.tag or None)
    for problem in problems:
        print(problem)
    print("no problems" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
