"""The repository URL lives in one place: _config.yml. Everything that links to it must agree."""

import json
import re
import tomllib
from pathlib import Path

import yaml
from book_links import colab_link, colab_url, companion_version, repository, setup_cell_source

ROOT = Path(__file__).parents[2]

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def cells(path):
    return json.loads(path.read_text())["cells"]


def test_every_chapter_starts_with_the_same_setup_cell():
    assert NOTEBOOKS
    for path in NOTEBOOKS:
        first = cells(path)[0]
        assert first["cell_type"] == "code" and "".join(first["source"]) == setup_cell_source(), path.name


def test_setup_cell_installs_the_release_of_the_configured_repository_and_nothing_else():
    url, _ = repository()
    source = setup_cell_source()
    assert f'COMPANION = "positional-encoding-companion[all] @ git+{url}@v{companion_version()}"' in source
    installs = re.findall(r"%pip install (.*)", source)
    assert installs == ['--quiet "{os.environ.get(\'PE_BOOK_INSTALL\', COMPANION)}"']


def test_every_chapter_links_to_itself_in_colab():
    for path in NOTEBOOKS:
        title = "".join(cells(path)[1]["source"])
        assert colab_link(path.name) in title, path.name
        assert title.count("colab.research.google.com") == 1


def test_colab_urls_follow_the_configured_repository_and_branch():
    url, branch = repository()
    owner_and_name = url.removeprefix("https://github.com/")
    assert re.fullmatch(r"[\w.-]+/[\w.-]+", owner_and_name)
    assert colab_url("02_loop_version.ipynb") == (
        f"https://colab.research.google.com/github/{owner_and_name}/blob/{branch}/notebooks/02_loop_version.ipynb"
    )


def test_launch_buttons_and_package_metadata_use_the_same_repository():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert config["html"]["use_repository_button"] is True
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert urls["Source"] == repository()[0]


def test_readme_badges_point_to_the_chapters_in_colab():
    readme = (ROOT / "README.md").read_text()
    badges = re.findall(r"\(https://colab\.research\.google\.com/github/[^)]*\)", readme)
    assert sorted(badges) == sorted(f"({colab_url(path.name)})" for path in NOTEBOOKS)
