"""`make lab`: JupyterLab renders the chapters' MyST with jupyterlab-myst (requirements.txt).

JupyterLab is started for this test alone, on 127.0.0.1 with no token, with a configuration, settings and
workspace directory of its own (no news, no update check, no extension manager reaching PyPI), and with
the settings `make lab` installs (tools/jupyterlab/overrides.json), JupyterLab's default windowed mode
included; it is stopped afterwards. Chapter 5 opens in it, the chapter with theorems, proofs, numbered
equations, admonitions, exercises and gated solutions: once with every cell rendered (windowing off, to
read the whole chapter at once), and once as a reader meets it, in the default windowed mode, scrolled
page by page from the first moment.
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
#: The settings `make lab` installs into the environment's JupyterLab (its overrides.json).
OVERRIDES = ROOT / "tools" / "jupyterlab" / "overrides.json"
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
c.ServerApp.disable_check_xsrf = True  # the test sets the notebook settings through the settings API
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
c.LabApp.extension_manager = "readonly"
c.LabApp.user_settings_dir = {str(home / "settings")!r}
c.LabApp.workspaces_dir = {str(home / "workspaces")!r}
c.LabApp.app_settings_dir = {str(home / "app-settings")!r}
""")
    (home / "app-settings").mkdir()
    (home / "app-settings" / "overrides.json").write_text(OVERRIDES.read_text())
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


def user_settings(jupyterlab, settings: dict):
    """Set the notebook tracker's settings as a reader would in Settings, through JupyterLab's settings API."""
    url = f"{jupyterlab}/lab/api/settings/@jupyterlab/notebook-extension:tracker"
    request = urllib.request.Request(url, data=json.dumps({"raw": json.dumps(settings)}).encode(), method="PUT",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10):
        pass


def test_jupyterlab_renders_a_chapters_myst(browser, jupyterlab, screenshots):
    user_settings(jupyterlab, {"windowingMode": "none"})  # every cell rendered: the whole chapter read at once
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


# What a reader sees at one moment: any raw MyST that a markdown cell on screen shows (a cell not yet
# rendered shows its source), and which of the gated solutions' code cells show their code on screen.
SAMPLE = """([panel, raw]) => {
    const onScreen = element => { const box = element.getBoundingClientRect();
                                  return box.height > 0 && box.bottom > 0 && box.top < innerHeight; };
    const found = [], code = [];
    for (const cell of document.querySelectorAll(`${panel} .jp-MarkdownCell`)) {
        if (!onScreen(cell)) continue;
        const text = cell.innerText;
        for (const piece of raw) if (text.includes(piece)) found.push(`${piece} in: ${text.slice(0, 70)}`);
    }
    for (const cell of document.querySelectorAll(`${panel} .jp-CodeCell[data-pe-solution]`)) {
        const editor = cell.querySelector('.jp-InputArea-editor');
        if (onScreen(cell) && editor && onScreen(editor)) code.push(cell.dataset.peSolution);
    }
    return {raw: found, code, top: (document.querySelector(`${panel} .jp-WindowedPanel-outer`) || {}).scrollTop};
}"""


def test_a_reader_scrolling_in_the_default_windowed_mode_sees_no_raw_myst_and_no_solution_code(browser, jupyterlab,
                                                                                            screenshots):
    """Opened with the settings `make lab` installs (JupyterLab's default windowing, the overrides of
    tools/jupyterlab/overrides.json) and scrolled page by page from the moment the first cell shows:
    no raw directive, role or option line at any sample, and no gated solution's code on screen."""
    user_settings(jupyterlab, {})
    notebook = json.loads(CHAPTER.read_text())
    solution_cells = [index for index in __import__("fold_solutions").solution_code_cells(
        __import__("nbformat").reads(CHAPTER.read_text(), as_version=4))]
    assert solution_cells
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{jupyterlab}/lab/tree/{CHAPTER.relative_to(ROOT).as_posix()}?reset", wait_until="domcontentloaded")
    panel = ".jp-NotebookPanel:not(.lm-mod-hidden)"
    page.wait_for_selector(f"{panel} .jp-Cell", timeout=60_000)
    # Mark the solutions' code cells (the notebook's cells in order) so that the watcher knows them.
    page.evaluate("""([panel, indices]) => { const cells = document.querySelectorAll(`${panel} .jp-Cell`);
        for (const index of indices) if (cells[index]) cells[index].dataset.peSolution = String(index); }""",
                  [panel, solution_cells])
    # A reader paging down with the mouse wheel from the first moment, a page about every 100 ms; what the
    # screen shows is sampled every 20 ms or so.
    page.mouse.move(640, 500)
    raw, code, samples, top = set(), set(), 0, 0
    for _ in range(40):
        page.mouse.wheel(0, 800)
        for _ in range(4):
            page.wait_for_timeout(20)
            shown = page.evaluate(SAMPLE, [panel, RAW_MYST])
            raw.update(shown["raw"])
            code.update(shown["code"])
            samples, top = samples + 1, max(top, shown["top"] or 0)
    watched = {"raw": sorted(raw), "code": sorted(code), "samples": samples, "end": top}
    # Then each solution's code cell, brought on screen: its code is folded (a bar to open it), not shown.
    shown_code = page.evaluate("""([panel, indices]) => {
        const cells = [...document.querySelectorAll(`${panel} .jp-Cell`)];
        return indices.map(index => {
            const cell = cells[index];
            cell.scrollIntoView();
            const editor = cell.querySelector('.jp-InputArea-editor');
            return {index, code: cell.classList.contains('jp-CodeCell'),
                    shown: !!editor && editor.getBoundingClientRect().height > 0,
                    folded: !!cell.querySelector('.jp-InputPlaceholder')};
        });
    }""", [panel, solution_cells])
    page.screenshot(path=str(screenshots / f"jupyterlab-scrolled-{CHAPTER.stem}.png"))
    page.close()
    assert watched["samples"] >= 150 and watched["end"] > 0
    assert watched["raw"] == []
    assert watched["code"] == [], "a gated solution's code is on screen before it is opened"
    assert all(cell["code"] for cell in shown_code), shown_code  # the notebook's cells, in order
    assert [cell["index"] for cell in shown_code if cell["shown"] or not cell["folded"]] == [], (
        "a gated solution's code is shown before it is opened: run `python tools/fold_solutions.py`")
    assert len(notebook["cells"]) > max(solution_cells)
