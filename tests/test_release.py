"""The release: the workflow that builds, checks and publishes the companion, and the checks it runs.

The workflow is linted like the others (tests/test_publishing.py); here, its trigger and its jobs
are checked, and its checking script is run on distributions built here from the source tree, as
the workflow builds them (without build isolation, so no download), then on a wheel missing a file
and a tag that disagrees with the version.
"""

import fnmatch
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

import companion

ROOT = Path(__file__).parent.parent
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
CHECK = ROOT / ".github" / "release" / "check_dist.py"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_a_version_tag_publishes_and_the_tag_pattern_matches_the_version():
    workflow = yaml.safe_load(RELEASE.read_text())
    triggers = workflow[True]  # YAML reads the key `on` as True
    (pattern,) = triggers["push"]["tags"]
    assert fnmatch.fnmatch(f"v{VERSION}", pattern) and VERSION == companion.__version__
    assert not fnmatch.fnmatch(VERSION, pattern)  # a tag without the v is not a release
    publish = workflow["jobs"]["publish"]
    assert publish["needs"] == ["build"] and "refs/tags/v" in publish["if"]
    assert publish["permissions"] == {"id-token": "write"}  # trusted publishing: no token in the repository
    assert publish["environment"]["name"] == "pypi"
    assert publish["steps"][-1]["uses"] == "pypa/gh-action-pypi-publish@release/v1"
    assert workflow["permissions"] == {"contents": "read"}


def test_the_build_job_checks_metadata_contents_tag_and_a_fresh_install():
    steps = [step.get("run", "") for step in yaml.safe_load(RELEASE.read_text())["jobs"]["build"]["steps"]]
    assert "python -m build" in steps
    assert "python -m twine check --strict dist/*" in steps
    assert any(".github/release/check_dist.py dist --tag" in step and "github.ref_name" in step for step in steps)
    fresh = next(step for step in steps if "python -m venv" in step)
    assert "pip install dist/*.whl" in fresh and "--import-only" in fresh and 'cd "$RUNNER_TEMP"' in fresh


def check(*arguments, cwd=ROOT, env=None):
    return subprocess.run([sys.executable, str(CHECK), *map(str, arguments)], capture_output=True, text=True, cwd=cwd,
                          env=env)


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    source, dist = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("dist")
    for name in ("companion", "data"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    result = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return dist


def test_the_built_distributions_pass_the_workflows_checks(dist):
    result = check(dist, "--tag", f"v{VERSION}")
    assert result.returncode == 0 and result.stdout.strip() == "no problems", result.stdout


def test_the_wheel_installs_and_imports_away_from_the_checkout(dist, tmp_path):
    site = tmp_path / "site"
    (wheel,) = dist.glob("*.whl")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(site),
                    str(wheel)], check=True)
    result = check("--import-only", cwd=tmp_path, env={"PYTHONPATH": str(site), "PATH": ""})
    assert result.returncode == 0 and result.stdout.strip() == "no problems", result.stdout + result.stderr


def test_the_checks_catch_a_wrong_tag_and_a_wheel_missing_a_file(dist, tmp_path):
    assert "the tag 'v9.9.9' is not" in check(dist, "--tag", "v9.9.9").stdout
    shutil.copy(next(dist.glob("*.tar.gz")), tmp_path)
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as original, zipfile.ZipFile(tmp_path / wheel.name, "w") as broken:
        for entry in original.infolist():
            if entry.filename != "companion/py.typed":
                broken.writestr(entry, original.read(entry))
    result = check(tmp_path)
    assert result.returncode == 1 and "wheel lacks companion/py.typed" in result.stdout, result.stdout
