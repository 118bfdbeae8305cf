"""`make lab`: JupyterLab renders the chapters' MyST with jupyterlab-myst (requirements.txt).

JupyterLab is started for this test alone, on 127.0.0.1 with no token, with a configuration, settings and
workspace directory of its own (no news, no update check, no extension manager reaching PyPI; every cell
rendered rather than only those on screen), and stopped afterwards. Chapter 5 opens in it, the chapter
with theorems, proofs, numbered equations, admonitions, exercises and gated solutions.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from urllib.parse import urlparse

import pytest

from .conftest import ROOT
from .test_reader_notebooks import MARKDOWN

CHAPTER = ROOT / "notebooks" / "05_linearity_proof.ipynb"
RAW_MYST = ["```{", ":class:", ":label:", "{prf:", "{eq}`", "{doc}`", "{ref}`", "{cite:", "solution-start",
            "solution-end"]
# jupyterlab-myst marks what it could not render with a warning icon and a title; a bibliography it has
# not, so every citation is such a mark (the README says so). Anything else marked is a failure.
KNOWN_MARKS = {"Citation Not Found"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    home = tmp_path_factory.mktemp("jupyterlab")
    port = free_port()
    (home / "config").mkdir()
    (home / "config" / "jupyter_lab_config.py").write_text(f"""
c.ServerApp.ip = "127.0.0.1"
c.ServerApp.port = {port}
c.ServerApp.port_retries = 0
c.ServerApp.open_browser = False
c.ServerApp.allow_root = True
c.ServerApp.root_dir = {str(ROOT)!r}
c.IdentityProvider.token = ""
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
c.LabApp.extension_manager = "readonly"
c.LabApp.user_settings_dir = {str(home / "settings")!r}
c.LabApp.workspaces_dir = {str(home / "workspaces")!r}
""")
    tracker = home / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    environment = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime")}
    log = (home / "server.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "jupyterlab"], env=environment, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start: {(home / 'server.log').read_text()[-2000:]}")
                time.sleep(0.5)
        yield url
    finally:
        server.send_signal(signal.SIGINT)  # twice: JupyterLab asks for confirmation after the first
        time.sleep(0.5)
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=20)  # it shuts down the kernel the notebook started
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def test_jupyterlab_renders_a_chapters_myst(browser, jupyterlab, screenshots):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    elsewhere = []
    page.on("request", lambda request: urlparse(request.url).hostname not in (None, "127.0.0.1")
            and not request.url.startswith("data:") and elsewhere.append(request.url))
    page.goto(f"{jupyterlab}/lab/tree/{CHAPTER.relative_to(ROOT).as_posix()}?reset", wait_until="domcontentloaded")
    panel = ".jp-NotebookPanel:not(.lm-mod-hidden)"
    page.wait_for_selector(f"{panel} .jp-MarkdownCell .myst", timeout=60_000)
    source = [cell for cell in json.loads(CHAPTER.read_text())["cells"] if cell["cell_type"] == "markdown"]
    page.wait_for_function(f"() => document.querySelectorAll('{panel} .jp-MarkdownCell .myst').length >= {len(source)}",
                           timeout=30_000)
    shown = page.evaluate(f"""() => {{
        const cells = [...document.querySelectorAll('{panel} .jp-MarkdownCell')];
        return {{
            cells: cells.length,
            rendered: cells.filter(cell => cell.querySelector('.myst')).length,
            text: cells.map(cell => cell.innerText),
            formulas: document.querySelectorAll('{panel} .jp-MarkdownCell .katex').length,
            admonitions: document.querySelectorAll('{panel} .myst-admonition').length,
            exercises: [...document.querySelectorAll('{panel} .myst-exercise-header')]
                .filter(header => header.innerText.trim().startsWith('Exercise')).length,
            marks: [...document.querySelectorAll('{panel} .jp-MarkdownCell span[title]')]
                .filter(mark => mark.querySelector('svg')).map(mark => mark.getAttribute('title')),
        }};
    }}""")
    page.screenshot(path=str(screenshots / f"jupyterlab-{CHAPTER.stem}.png"))
    page.close()
    assert shown["cells"] == shown["rendered"] == len(source)
    raw = [(piece, text[:80]) for text in shown["text"] for piece in RAW_MYST if piece in text]
    assert raw == []
    # Every formula outside a directive, as CommonMark with dollar math finds them, is typeset by KaTeX.
    formulas = sum(1 for cell in source for token in MARKDOWN.parse("".join(cell["source"]))
                   for child in [token, *(token.children or [])] if child.type.startswith("math"))
    assert shown["formulas"] >= formulas > 50
    exercises = sum("".join(cell["source"]).count("```{exercise}") for cell in source)
    assert shown["admonitions"] >= 3 and shown["exercises"] == exercises >= 4
    assert set(shown["marks"]) <= KNOWN_MARKS, shown["marks"]
    assert elsewhere == []
