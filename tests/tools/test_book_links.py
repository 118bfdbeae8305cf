"""The repository URL lives in one place: _config.yml. Everything that links to it must agree."""

import json
import re
import tomllib
from pathlib import Path

import yaml
from book_links import (
    READER_NOTEBOOKS,
    colab_link,
    colab_url,
    companion_version,
    pages_url,
    repository,
    setup_cell_source,
    toc_notebooks,
)

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


def test_colab_urls_open_the_reader_notebooks_of_the_configured_repository_and_branch():
    url, branch = repository()
    owner_and_name = url.removeprefix("https://github.com/")
    assert re.fullmatch(r"[\w.-]+/[\w.-]+", owner_and_name)
    assert colab_url("02_loop_version.ipynb") == (
        f"https://colab.research.google.com/github/{owner_and_name}/blob/{branch}/colab/02_loop_version.ipynb"
    )
    assert READER_NOTEBOOKS == ROOT / "colab"


def test_the_published_book_is_the_repositorys_github_pages_site():
    owner, name = repository()[0].removeprefix("https://github.com/").split("/")
    assert pages_url() == f"https://{owner.lower()}.github.io/{name}/"


def test_every_notebook_of_the_book_has_a_reader_notebook_and_no_other_is_there():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    entries = [toc["root"]] + [chapter["file"] for part in toc["parts"] for chapter in part["chapters"]]
    notebooks = toc_notebooks()
    assert [path.relative_to(ROOT).with_suffix("").as_posix() for path in notebooks] == [
        entry for entry in entries if (ROOT / f"{entry}.ipynb").is_file()]
    assert set(NOTEBOOKS) <= set(notebooks)  # every chapter in notebooks/ is in the book
    assert sorted(path.name for path in READER_NOTEBOOKS.glob("*.ipynb")) == sorted(path.name for path in notebooks)


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


def test_the_author_line_credits_people_and_names_the_configured_repository():
    """The PDF's title page and every page's footer print `author`: no placeholder; a line that credits
    the contributors names the repository of `repository.url`."""
    author = yaml.safe_load((ROOT / "_config.yml").read_text())["author"]
    assert author.strip() and author.strip().lower() not in {"the authors of this book", "the authors", "author"}
    if author.startswith("The contributors to "):
        url, _ = repository()
        assert author == f"The contributors to {url.removeprefix('https://github.com/')}"
